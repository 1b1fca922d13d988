// src/hooks/server.ts, in process: what the daemon answers on each route of its Unix socket and its
// loopback listener, for each kind of request (the hook's answer, a refusal in the form the client
// reads as a block, an unknown route, a payload too large, a daemon that fails inside), and how it starts
// (one per polar home, a stale socket replaced) and stops.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { HookEngine } from "../../src/hooks/engine.js";
import type { HookGuard } from "../../src/hooks/guards.js";
import { MAX_BODY, ping, polarHome, readTcpEndpoint, serveLockPath, shellStorePath, socketPath, startServer, tcpFile, writeTcpEndpoint, type RunningServer } from "../../src/hooks/server.js";
import { VERSION } from "../../src/version.js";

const guard: HookGuard = {
  check: (call) =>
    String(call.arguments.command).startsWith("rm")
      ? { action: "deny", reason: "refused: would delete an untracked file", code: "irreversible", execution: null, decisions: [] }
      : String(call.arguments.command).startsWith("git reset")
        ? { action: "ask", reason: "would discard a.ts", code: "irreversible", execution: null, decisions: [] }
        : { action: "allow", reason: "ok", code: "read_only", execution: null, decisions: [] },
  observe() {},
};

const pre = (command: string, event = "PreToolUse", tool = "Bash") => JSON.stringify({ session_id: "s1", cwd: "/tmp", hook_event_name: event, tool_name: tool, tool_input: { command } });

interface Reply {
  status: number;
  type: string | undefined;
  length: string | undefined;
  body: string;
}

function ask(target: { socket: string } | { port: number }, path: string, body = "", method = "POST", headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const where = "socket" in target ? { socketPath: target.socket } : { host: "127.0.0.1", port: target.port };
    const req = request({ ...where, path, method, agent: false, headers }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], length: res.headers["content-length"], body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const running: RunningServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function daemon(engine?: (home: string) => HookEngine): Promise<{ home: string; d: RunningServer; unix: { socket: string }; tcp: { port: number }; auth: Record<string, string> }> {
  const home = mkdtempSync(join(tmpdir(), "polar-serve-"));
  const d = (await startServer(engine?.(home) ?? new HookEngine({ home, shellGuard: () => guard }), home))!;
  running.push(d);
  const ep = readTcpEndpoint(home)!;
  return { home, d, unix: { socket: d.socket }, tcp: { port: ep.port }, auth: { authorization: `Bearer ${ep.token}` } };
}

describe("the Unix socket's routes", () => {
  test("POST /hook/<agent>: the agent's answer as a 200 JSON with its length", async () => {
    const { unix } = await daemon();
    expect(await ask(unix, "/hook/claude-code", pre("ls"))).toEqual({ status: 200, type: "application/json", length: "3", body: "{}\n" });
    const deny = await ask(unix, "/hook/gemini", pre("rm a", "BeforeTool", "run_shell_command"));
    expect(deny).toMatchObject({ status: 200, type: "application/json" });
    expect(JSON.parse(deny.body)).toEqual({ decision: "deny", reason: "refused: would delete an untracked file" });
    expect(Number(deny.length)).toBe(Buffer.byteLength(deny.body));
    expect(await ask(unix, "/hook/opencode", pre("ls", "tool.execute.before", "bash"))).toMatchObject({ status: 200, body: '{"action":"allow","reason":"ok"}\n' });
  });

  test("a refusal before any answer (exit 2 for the agent): 422 with `polar: <reason>` as text", async () => {
    const { unix } = await daemon();
    expect(await ask(unix, "/hook/codex", "not json")).toEqual({ status: 422, type: "text/plain; charset=utf-8", length: String(Buffer.byteLength("polar: refused: the hook payload is not JSON\n")), body: "polar: refused: the hook payload is not JSON\n" });
  });

  test("POST /http/<agent> on the socket too: every refusal a 200 with the agent's deny, a post-tool one a block", async () => {
    const { unix } = await daemon();
    expect(await ask(unix, "/http/claude-code", pre("ls"))).toMatchObject({ status: 200, body: "{}\n" });
    const bad = await ask(unix, "/http/gemini", JSON.stringify({ hook_event_name: "BeforeTool", cwd: "/tmp" }));
    expect(bad).toMatchObject({ status: 200, type: "application/json" });
    expect(JSON.parse(bad.body)).toEqual({ decision: "deny", reason: "refused: the hook payload has no `session_id` string" });
    // A post-tool event the engine refuses (no tool_input): nothing can be denied any more, it is a block.
    const after = await ask(unix, "/http/claude-code", JSON.stringify({ hook_event_name: "PostToolUse", session_id: "s1", cwd: "/tmp", tool_name: "Bash" }));
    expect(JSON.parse(after.body)).toEqual({ decision: "block", reason: "refused: the hook payload's `tool_input` is not an object" });
    const start = await ask(unix, "/http/claude-code", JSON.stringify({ hook_event_name: "SessionStart", cwd: "/tmp" }));
    expect(JSON.parse(start.body)).toEqual({ decision: "block", reason: "refused: the hook payload has no `session_id` string" });
  });

  test("a payload over MAX_BODY is refused, never judged: 422 on /hook, a deny on /http", async () => {
    const { unix } = await daemon();
    const big = JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s1", cwd: "/tmp", tool_name: "Write", tool_input: { file_path: "/tmp/a", content: "x".repeat(MAX_BODY) } });
    expect(MAX_BODY).toBe(16 * 1024 * 1024);
    const r = await ask(unix, "/hook/claude-code", big).catch((e: NodeJS.ErrnoException) => ({ status: -1, body: e.code ?? "" }) as Reply);
    // The daemon answers before reading the rest, or the connection is cut: never a 200.
    if (r.status !== -1) expect(r).toMatchObject({ status: 422, body: `polar: refused: the hook payload is over ${MAX_BODY} bytes\n` });
    else expect(r.body).toMatch(/^E/u);
    const h = await ask(unix, "/http/claude-code", big).catch(() => null);
    if (h !== null) expect(JSON.parse(h.body).hookSpecificOutput).toEqual({ hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: `refused: the hook payload is over ${MAX_BODY} bytes` });
  });

  test("a payload of exactly MAX_BODY bytes is judged", async () => {
    const { unix } = await daemon();
    const head = JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s1", cwd: "/tmp", tool_name: "Bash", tool_input: { command: "ls", pad: "" } });
    const body = head.replace('"pad":""', `"pad":"${"x".repeat(MAX_BODY - head.length)}"`);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY);
    expect(await ask(unix, "/hook/claude-code", body)).toMatchObject({ status: 200, body: "{}\n" });
  });

  test("GET /status: pid, sessions, version", async () => {
    const { unix } = await daemon();
    await ask(unix, "/hook/claude-code", pre("ls"));
    const r = await ask(unix, "/status", "", "GET");
    expect(r).toMatchObject({ status: 200, type: "application/json" });
    expect(JSON.parse(r.body)).toEqual({ pid: process.pid, sessions: 1, version: VERSION });
    expect(await ping(unix.socket)).toEqual({ pid: process.pid, sessions: 1, version: VERSION });
  });

  test("POST /approve/<id>: 200 for an id the engine issued, 404 for an unknown one; a malformed id is no route", async () => {
    const { unix } = await daemon();
    const out = await ask(unix, "/hook/codex", pre("git reset --hard"));
    const id = /polar approve ([0-9a-f]{8})/u.exec(out.body)![1];
    expect(await ask(unix, `/approve/${id}`)).toMatchObject({ status: 200, type: "text/plain; charset=utf-8", body: "approved\n" });
    expect(await ask(unix, "/approve/0000000f")).toMatchObject({ status: 404, body: "unknown approval id\n" });
    expect(await ask(unix, "/approve/0123ABCD")).toMatchObject({ status: 404, body: "polar: unknown route\n" });
    expect(await ask(unix, `/approve/${id}`, "", "GET")).toMatchObject({ status: 404, body: "polar: unknown route\n" });
    expect(await ask(unix, "/hook/codex", pre("git reset --hard"))).toMatchObject({ status: 200, body: "" });
  });

  test("anything else is 404: other methods, unknown agents, other paths", async () => {
    const { unix } = await daemon();
    for (const [path, method] of [
      ["/hook/claude-code", "GET"],
      ["/hook/cursor", "POST"],
      ["/hook/claude-code/x", "POST"],
      ["/hooks/claude-code", "POST"],
      ["/status", "POST"],
      ["/status/", "GET"],
      ["/shutdown", "GET"],
      ["/", "GET"],
    ] as const) {
      expect(await ask(unix, path, "", method)).toMatchObject({ status: 404, body: "polar: unknown route\n" });
    }
  });

  test("POST /shutdown: answered, then the daemon stops and lets go of its lock, its sessions and the socket", async () => {
    const { home, d, unix } = await daemon();
    await ask(unix, "/hook/claude-code", pre("ls"));
    expect(existsSync(serveLockPath(home))).toBe(true);
    expect(await ask(unix, "/shutdown")).toMatchObject({ status: 200, body: "stopping\n" });
    await d.close();
    expect(d.server.listening).toBe(false);
    expect(d.tcp?.server.listening).toBe(false);
    expect(existsSync(serveLockPath(home))).toBe(false);
    expect(existsSync(join(home, "audit", "claude-code-s1.jsonl.lock"))).toBe(false);
    expect(await ping(unix.socket, 200)).toBeNull();
  });
});

describe("the loopback listener's routes", () => {
  test("only POST to a hook route of a known agent; the rest is 404 before the token is looked at", async () => {
    const { tcp, auth } = await daemon();
    for (const [path, method] of [
      ["/hook/claude-code", "GET"],
      ["/hook/cursor", "POST"],
      ["/http/cursor", "POST"],
      ["/hook/claude-code/", "POST"],
      ["/approve/0123abcd", "POST"],
    ] as const) {
      expect(await ask(tcp, path, pre("ls"), method, auth)).toMatchObject({ status: 404, body: "polar: unknown route\n" });
      expect(await ask(tcp, path, pre("ls"), method)).toMatchObject({ status: 404 });
    }
    expect(await ask(tcp, "/hook/gemini", pre("ls", "BeforeTool", "run_shell_command"), "POST", auth)).toMatchObject({ status: 200, body: "{}\n" });
  });

  test("the token must be exactly `Bearer <token>`", async () => {
    const { tcp, auth } = await daemon();
    const token = auth.authorization.slice(7);
    for (const header of [token, `bearer ${token}`, `Bearer  ${token}`, `Bearer ${token}0`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`]) {
      expect(await ask(tcp, "/hook/claude-code", pre("ls"), "POST", { authorization: header })).toEqual({
        status: 401,
        type: "text/plain; charset=utf-8",
        length: String(Buffer.byteLength("polar: refused: the hook's token does not match the polar daemon's\n")),
        body: "polar: refused: the hook's token does not match the polar daemon's\n",
      });
    }
    const h = await ask(tcp, "/http/gemini", pre("ls", "BeforeTool"), "POST", { authorization: token });
    expect(h).toMatchObject({ status: 200, type: "application/json" });
    expect(JSON.parse(h.body)).toEqual({ decision: "deny", reason: "refused: the hook's token does not match the polar daemon's (run `polar init` again)" });
  });
});

describe("a daemon that fails inside: never an allow", () => {
  const failing = (home: string) =>
    ({
      handle: () => Promise.reject(new Error("engine gone")),
      sessionCount: () => 0,
      approve: () => false,
      close: () => {},
      home,
    }) as unknown as HookEngine;

  test("/hook: 500 with the reason; /http: a 200 deny", async () => {
    const { unix, tcp, auth } = await daemon(failing);
    expect(await ask(unix, "/hook/claude-code", pre("ls"))).toMatchObject({ status: 500, body: "polar: refused: the daemon failed (engine gone)\n" });
    const h = await ask(unix, "/http/claude-code", pre("ls"));
    expect(h).toMatchObject({ status: 200, type: "application/json" });
    expect(JSON.parse(h.body).hookSpecificOutput).toEqual({ hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "refused: the daemon failed (engine gone)" });
    expect(await ask(tcp, "/hook/codex", pre("ls"), "POST", auth)).toMatchObject({ status: 500, body: "polar: refused: the daemon failed (engine gone)\n" });
  });
});

describe("starting", () => {
  test("the home is 0700, the socket 0600, the pid recorded; a second daemon on the same home does not start", async () => {
    const { home, unix } = await daemon();
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(unix.socket).mode & 0o777).toBe(0o600);
    expect(unix.socket).toBe(socketPath(home));
    expect(readFileSync(join(home, "polar.pid"), "utf8")).toBe(`${process.pid}\n`);
    expect(await startServer(new HookEngine({ home, shellGuard: null }), home)).toBeNull();
  });

  test("a stale socket file (no daemon answers it) is replaced; a live daemon's socket with no lock is not", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-serve-"));
    writeFileSync(socketPath(home), "");
    const d = (await startServer(new HookEngine({ home, shellGuard: () => guard }), home))!;
    running.push(d);
    expect(d).not.toBeNull();
    expect(await ping(socketPath(home))).toMatchObject({ pid: process.pid });
    // The lock gone (a tmp cleaner) but the daemon answering: still one daemon.
    const { unlinkSync } = await import("node:fs");
    unlinkSync(serveLockPath(home));
    expect(await startServer(new HookEngine({ home, shellGuard: null }), home)).toBeNull();
    expect(existsSync(serveLockPath(home))).toBe(false);
  });

  test("ping: null where nothing answers, or something that is not the daemon", async () => {
    const home = mkdtempSync(join(tmpdir(), "polar-serve-"));
    expect(await ping(socketPath(home), 200)).toBeNull();
    const { createServer } = await import("node:http");
    const other = createServer((_req, res) => res.writeHead(200).end("not json"));
    const notFound = createServer((_req, res) => res.writeHead(404).end("{}"));
    await new Promise<void>((r) => other.listen(join(home, "a.sock"), () => r()));
    await new Promise<void>((r) => notFound.listen(join(home, "b.sock"), () => r()));
    try {
      expect(await ping(join(home, "a.sock"), 500)).toBeNull();
      expect(await ping(join(home, "b.sock"), 500)).toBeNull();
    } finally {
      other.close();
      notFound.close();
    }
  });
});

describe("the files of a polar home", () => {
  test("POLAR_HOME when set and not empty, else ~/.polar; the store, socket, lock and tcp file under it", () => {
    expect(polarHome({ POLAR_HOME: "/x/h" })).toBe("/x/h");
    expect(polarHome({ POLAR_HOME: "" })).toMatch(/\/\.polar$/u);
    expect(polarHome({})).toMatch(/\/\.polar$/u);
    expect([shellStorePath("/h"), socketPath("/h"), serveLockPath("/h"), tcpFile("/h")]).toEqual(["/h/store", "/h/polar.sock", "/h/serve.lock", "/h/polar.tcp"]);
  });

  test("polar.tcp: a port 1-65535 and a 64-hex token, 0600; anything else is none", () => {
    const home = mkdtempSync(join(tmpdir(), "polar-tcp-file-"));
    const token = "a".repeat(64);
    expect(readTcpEndpoint(home)).toBeNull();
    writeTcpEndpoint(home, { port: 65535, token });
    expect(readFileSync(tcpFile(home), "utf8")).toBe(`65535\n${token}\n`);
    expect(statSync(tcpFile(home)).mode & 0o777).toBe(0o600);
    expect(readTcpEndpoint(home)).toEqual({ port: 65535, token });
    writeTcpEndpoint(home, { port: 1, token });
    expect(readTcpEndpoint(home)).toEqual({ port: 1, token });
    for (const text of [`0\n${token}\n`, `65536\n${token}\n`, `80.5\n${token}\n`, `x\n${token}\n`, `80\n${"A".repeat(64)}\n`, `80\n${"a".repeat(63)}\n`, `80\n${"a".repeat(65)}\n`, "80\n", ""]) {
      writeFileSync(tcpFile(home), text);
      expect(readTcpEndpoint(home)).toBeNull();
    }
  });
});
