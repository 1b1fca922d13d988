// bin/polar-hook and `polar hook` as processes, broken on purpose: whatever fails, the agent gets exit 2
// with a reason on stderr and nothing on stdout (each agent's block), never exit 0 with silence.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HOOK = join(ROOT, "bin/polar-hook");
const PRE = JSON.stringify({ session_id: "s", cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf build" } });
const PRE_UTF8 = JSON.stringify({ session_id: "s", cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "echo 'é ✓ 日本'" } });

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

/** A fake daemon on loopback TCP where bin/polar-hook looks for it (`$POLAR_HOME/polar.tcp`). */
async function fakeDaemon(home: string, onConnection: (sock: Socket) => void): Promise<void> {
  const server = createServer(onConnection);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  writeFileSync(join(home, "polar.tcp"), `${(server.address() as AddressInfo).port}\n${"ab".repeat(32)}\n`);
}

/** Answers `reply` once the whole request (the payload ends the body) is in. */
function answering(reply: string): (sock: Socket) => void {
  return (sock) => {
    let got = "";
    sock.on("data", (d) => {
      got += d.toString();
      if (got.trimEnd().endsWith(PRE)) sock.end(reply);
    });
  };
}
afterAll(() => {
  for (const s of servers) s.close();
});

describe("bin/polar-hook fails closed", () => {
  test("a daemon that accepts and never answers: refused after the own deadline (read -t)", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-hang-"));
    await fakeDaemon(home, () => {
      // accept, read nothing, answer nothing
    });
    const r = await hookAsync(home, PRE, { POLAR_HOOK_TIMEOUT_S: "1" });
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(/polar: refused: the polar daemon did not answer/u);
  });

  test("a daemon that answers garbage with an error status: refused with its text", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-garbage-"));
    await fakeDaemon(home, answering("HTTP/1.1 500 Oops\r\ncontent-length: 5\r\nconnection: close\r\n\r\nboom\n"));
    const r = await hookAsync(home, PRE);
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toContain("boom");
  });

  test("a 200 answer cut short (fewer bytes than its length): refused, never a half-written deny read as text", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-cut-"));
    await fakeDaemon(home, answering('HTTP/1.1 200 OK\r\ncontent-length: 120\r\n\r\n{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDec'));
    const r = await hookAsync(home, PRE);
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(/answer was cut short/u);
  });

  test("a 200 answer without a length: refused", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-nolen-"));
    await fakeDaemon(home, answering("HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{}\n"));
    const r = await hookAsync(home, PRE);
    expect(r).toMatchObject({ status: 2, stdout: "" });
  });

  test("a daemon that hangs up before reading the call: exit 2, never killed by SIGPIPE (141 would let the call run)", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-hangup-"));
    await fakeDaemon(home, (sock) => sock.destroy());
    // A payload larger than the socket buffers, so the write meets the closed connection.
    const big = JSON.stringify({ ...JSON.parse(PRE), tool_input: { command: `echo ${"x".repeat(4_000_000)}` } });
    const r = await hookAsync(home, big);
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toMatch(/polar: refused/u);
  });

  test("the request carries the token of polar.tcp and the payload byte for byte", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-token-"));
    const chunks: string[] = [];
    await fakeDaemon(home, (sock) => {
      sock.on("data", (d) => {
        chunks.push(d.toString("utf8"));
        if (chunks.join("").trimEnd().endsWith(PRE_UTF8)) sock.end("HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n{}\n");
      });
    });
    const r = await hookAsync(home, PRE_UTF8);
    expect(r).toMatchObject({ status: 0, stdout: "{}\n" });
    const req = chunks.join("");
    expect(req).toContain(`Authorization: Bearer ${"ab".repeat(32)}\r\n`);
    const body = req.slice(req.indexOf("\r\n\r\n") + 4);
    expect(Number(/Content-Length: (\d+)/u.exec(req)?.[1])).toBe(Buffer.byteLength(body));
    expect(body.trimEnd()).toBe(PRE_UTF8);
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
