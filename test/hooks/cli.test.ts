// bin/polar-hook and `polar hook` as processes, broken on purpose: whatever fails, the agent gets exit 2
// with a reason on stderr and nothing on stdout (each agent's block), never exit 0 with silence.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HOOK = join(ROOT, "bin/polar-hook");
const PRE = JSON.stringify({ session_id: "s", cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf build" } });

function hook(home: string, input: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(HOOK, ["claude-code"], { input, encoding: "utf8", env: { ...process.env, POLAR_HOME: home, ...env }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking this process (where a fake daemon has to answer). */
function hookAsync(home: string, input: string, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(HOOK, ["claude-code"], { env: { ...process.env, POLAR_HOME: home, ...env } });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    c.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    c.on("close", (status) => resolve({ status, stdout, stderr }));
    c.stdin.end(input);
  });
}

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

describe("bin/polar-hook fails closed", () => {
  test("a daemon that accepts and never answers: refused after the own deadline (curl --max-time)", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-hang-"));
    const server = createServer(() => {
      // accept, read nothing, answer nothing
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(join(home, "polar.sock"), () => r()));
    const r = await hookAsync(home, PRE, { POLAR_HOOK_TIMEOUT_S: "1" });
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(/polar: refused: the polar daemon did not answer/u);
  });

  test("a daemon that answers garbage with an error status: refused with its text", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-garbage-"));
    const server = createServer((sock) => {
      let got = "";
      // Answer once the whole request (the payload ends the body) is in.
      sock.on("data", (d) => {
        got += d.toString();
        if (got.endsWith(PRE)) sock.end("HTTP/1.1 500 Oops\r\ncontent-length: 5\r\nconnection: close\r\n\r\nboom\n");
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(join(home, "polar.sock"), () => r()));
    const r = await hookAsync(home, PRE);
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toContain("boom");
  });

  test("no daemon and polar's Node cannot run: exit 2 with the reason", () => {
    const home = mkdtempSync(join(tmpdir(), "polar-nonode-"));
    const r = hook(home, PRE, { POLAR_NODE: "/nonexistent/node" });
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(/polar hook failed \(exit 127\)/u);
  });

  test("no daemon: this call is refused, a daemon is started, the next call is answered by it", () => {
    const home = mkdtempSync(join(tmpdir(), "polar-start-"));
    const first = hook(home, PRE);
    expect(first).toMatchObject({ status: 2, stdout: "" });
    expect(first.stderr).toMatch(/daemon was not running \(it is started now/u);
    const second = hook(home, PRE);
    try {
      expect(second.status).toBe(0);
      expect(JSON.parse(second.stdout).hookSpecificOutput.permissionDecision).toMatch(/deny|ask|allow/u);
    } finally {
      spawnSync(process.execPath, [join(ROOT, "bin/polar.js"), "serve", "--stop"], { env: { ...process.env, POLAR_HOME: home } });
    }
  });

  test("polar hook with an unknown agent or unreadable config: exit 2, never silence", () => {
    const home = mkdtempSync(join(tmpdir(), "polar-cfg-"));
    writeFileSync(join(home, "config.json"), "{ not json");
    const r = spawnSync(process.execPath, [join(ROOT, "bin/polar.js"), "hook", "claude-code", "--in-process"], { input: PRE, encoding: "utf8", env: { ...process.env, POLAR_HOME: home } });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/refused: polar failed inside .*not JSON/u);
    const u = spawnSync(process.execPath, [join(ROOT, "bin/polar.js"), "hook", "cursor"], { input: PRE, encoding: "utf8" });
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/unknown agent/u);
  });
});
