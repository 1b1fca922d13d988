// Issue 21, item 20 (the gateway's part): killing the launcher of `polar mcp` (what `npx polar mcp`
// is: a parent sharing its stdin with the gateway, so the client's pipe stays open) must not leave
// the gateway and its server running; nor must a hang-up (SIGHUP).
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MEMORY_ONTOLOGY, MEMORY_RULES, MEMORY_SERVER, ROOT, alive, descendantsOf, gone, tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const GATEWAY = ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--", process.execPath, MEMORY_SERVER];

/** A launcher (`node -e`, as npx is a node process) that starts the gateway with its own stdio
 * inherited and prints the gateway's pid. Its stdin is a pipe whose other end another process
 * (`sleep`) holds, as the MCP client does: the launcher dying does not close it. */
function launch(dir: string): { group: ChildProcess; gateway: Promise<number>; stderr: () => string } {
  const code = `const c = require("node:child_process").spawn(process.execPath, ${JSON.stringify(GATEWAY)}, { stdio: "inherit", cwd: ${JSON.stringify(ROOT)} }); process.stderr.write("gateway pid " + c.pid + "\\n"); setInterval(() => {}, 1e6);`;
  const group = spawn("sh", ["-c", 'sleep 600 | exec "$NODE" -e "$CODE"'], { stdio: ["ignore", "pipe", "pipe"], detached: true, env: { ...process.env, NODE: process.execPath, CODE: code, MEMORY_FILE_PATH: join(dir, "m.jsonl") } });
  let err = "";
  const gateway = new Promise<number>((resolve, reject) => {
    group.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /gateway pid (\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    group.once("exit", () => reject(new Error(`launcher exited: ${err}`)));
  });
  return { group, gateway, stderr: () => err };
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

function killGroup(group: ChildProcess): void {
  try {
    process.kill(-group.pid!, "SIGKILL");
  } catch {
    // gone
  }
}

/** The gateway's server child (server-memory; the gateway's other children, such as tsx's esbuild,
 * do not count): once it runs, the gateway has taken note of who started it. */
async function serverOf(pid: number): Promise<number[]> {
  for (let i = 0; i < 400; i++) {
    const kids = (await descendantsOf(pid)).filter((k) => {
      try {
        return readFileSync(`/proc/${k}/cmdline`, "utf8").includes("server-memory");
      } catch {
        return false;
      }
    });
    if (kids.length > 0) return kids;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the gateway started no server");
}

describe("the gateway does not outlive what started it", () => {
  it("its launcher killed (the client's stdin still open): the gateway and its server exit", async () => {
    const t = tempDir("parent");
    const { group, gateway, stderr } = launch(t.dir);
    const pid = await gateway;
    cleanups.push(() => {
      if (alive(pid)) process.kill(pid, "SIGKILL");
      killGroup(group);
      t.cleanup();
    });
    const kids = await serverOf(pid);
    const launcher = parentOf(pid);
    process.kill(launcher, "SIGKILL"); // the launcher, not the group: `sleep` keeps stdin open
    expect(await gone(pid, 15_000), `gateway (launcher ${launcher}, now parent ${alive(pid) ? parentOf(pid) : "-"}): ${stderr()}`).toBe(true);
    for (const k of kids) expect(await gone(k, 15_000), `server ${k}`).toBe(true);
  }, 40_000);

  it("SIGHUP: the gateway shuts down and takes its server along", async () => {
    const t = tempDir("hup");
    const { group, gateway } = launch(t.dir);
    const pid = await gateway;
    cleanups.push(() => {
      if (alive(pid)) process.kill(pid, "SIGKILL");
      killGroup(group);
      t.cleanup();
    });
    const kids = await serverOf(pid);
    process.kill(pid, "SIGHUP");
    expect(await gone(pid, 15_000), "gateway").toBe(true);
    for (const k of kids) expect(await gone(k, 15_000), `server ${k}`).toBe(true);
  }, 40_000);
});
