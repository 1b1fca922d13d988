// src/hooks/client.ts (`polar hook <agent>`, the daemon's thin client), in process against a stand-in
// daemon on a temporary socket: the daemon's 200 is the agent's answer; any other status, no answer in
// time, a daemon that is down: the agent's refusal (exit 2 with the reason). A daemon that is down is
// started: a pre-tool call is still refused (the session's history is gone), a post-tool or session-start
// event is handed to the new daemon.
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runHookClient, startDaemon, type ClientOptions } from "../../src/hooks/client.js";
import { socketPath } from "../../src/hooks/server.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

interface Seen {
  method: string;
  path: string;
  body: string;
  type: string | undefined;
}

/** A stand-in daemon on `<home>/polar.sock`: /status answers as the daemon does; other requests go to `answer`. */
async function standIn(home: string, answer: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<Seen[]> {
  const seen: Seen[] = [];
  const s = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      if (req.url === "/status") return void res.writeHead(200).end(JSON.stringify({ pid: 1, sessions: 0, version: "x" }));
      seen.push({ method: req.method ?? "", path: req.url ?? "", body, type: req.headers["content-type"] });
      answer(req, body, res);
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(socketPath(home), () => r()));
  return seen;
}

const newHome = (): string => mkdtempSync(join(tmpdir(), "polar-client-"));
const options = (home: string, extra: Partial<ClientOptions> = {}): ClientOptions => ({ home, timeoutMs: 2000, serveCommand: ["/nonexistent/polar", "serve"], ...extra });
const pre = JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s", cwd: "/tmp", tool_name: "Bash", tool_input: { command: "ls" } });
const postTool = JSON.stringify({ hook_event_name: "PostToolUse", session_id: "s", cwd: "/tmp", tool_name: "Bash", tool_input: { command: "ls" }, tool_response: {} });

describe("a daemon that answers", () => {
  test("the payload goes as it is to POST /hook/<agent> as JSON; a 200's body is the agent's stdout", async () => {
    const home = newHome();
    const seen = await standIn(home, (_req, _body, res) => res.writeHead(200).end('{"decision":"deny","reason":"r"}\n'));
    expect(await runHookClient("gemini", pre, options(home))).toEqual({ stdout: '{"decision":"deny","reason":"r"}\n', stderr: "", exitCode: 0 });
    expect(seen).toEqual([{ method: "POST", path: "/hook/gemini", body: pre, type: "application/json" }]);
  });

  test("any other status is a refusal: its text without the `polar: ` prefix, or the status when it has none", async () => {
    const home = newHome();
    let status = 422;
    let text = "polar: refused: the hook payload is not JSON\n";
    await standIn(home, (_req, _body, res) => res.writeHead(status).end(text));
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({ stdout: "", stderr: "polar: refused: the hook payload is not JSON\n", exitCode: 2 });
    status = 500;
    text = "";
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({ stdout: "", stderr: "polar: refused: the daemon answered 500\n", exitCode: 2 });
    status = 201;
    text = "{}";
    expect(await runHookClient("codex", pre, options(home))).toMatchObject({ stdout: "", exitCode: 2 });
  });

  test("no answer within the client's own time: a refusal saying so", async () => {
    const home = newHome();
    await standIn(home, () => {});
    expect(await runHookClient("claude-code", pre, options(home, { timeoutMs: 150 }))).toEqual({ stdout: "", stderr: "polar: refused: the polar daemon did not answer (no answer within 150 ms)\n", exitCode: 2 });
  });

  test("a daemon that hangs up mid-answer: a refusal", async () => {
    const home = newHome();
    await standIn(home, (req) => req.socket.destroy());
    const out = await runHookClient("claude-code", pre, options(home));
    expect(out).toMatchObject({ stdout: "", exitCode: 2 });
    expect(out.stderr).toMatch(/^polar: refused: the polar daemon did not answer \(/u);
  });
});

describe("a daemon that is down", () => {
  test("no socket, or a socket no one listens on, and the daemon cannot be started: the pre-tool call is refused saying so", async () => {
    const home = newHome();
    const refusal = { stdout: "", stderr: "polar: refused: the polar daemon is not running and could not be started (run `polar serve` to see why)\n", exitCode: 2 };
    expect(await runHookClient("claude-code", pre, options(home))).toEqual(refusal);
    // A socket file left behind by a daemon that is gone: "down" too.
    const s = createServer();
    await new Promise<void>((r) => s.listen(socketPath(home), () => r()));
    await new Promise<void>((r) => s.close(() => r()));
    expect(await runHookClient("claude-code", pre, options(home, { serveCommand: ["false"] }))).toEqual(refusal);
  });

  test("a post-tool event when the daemon cannot be started: refused (exit 2) saying so", async () => {
    const home = newHome();
    expect(await runHookClient("codex", postTool, options(home))).toEqual({ stdout: "", stderr: "polar: the polar daemon could not be started (`polar serve`)\n", exitCode: 2 });
  });

  test("started for the next call: this pre-tool call is still refused, and the daemon answers from then on", async () => {
    const home = newHome();
    // The serve command runs a while; the stand-in daemon comes up meanwhile.
    setTimeout(() => void standIn(home, (_req, _body, res) => res.writeHead(200).end("{}\n")), 100);
    const out = await runHookClient("claude-code", pre, options(home, { serveCommand: ["sleep", "1"] }));
    expect(out).toEqual({ stdout: "", stderr: "polar: refused: the polar daemon was not running (it is started now, without this session's history): retry the call\n", exitCode: 2 });
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
  });

  test("a post-tool or session-start event is handed to the daemon it started", async () => {
    for (const text of [postTool, JSON.stringify({ hook_event_name: "SessionStart", session_id: "s", cwd: "/tmp" })]) {
      const home = newHome();
      let seen: Seen[] = [];
      setTimeout(() => void standIn(home, (_req, _body, res) => res.writeHead(200).end("{}\n")).then((s) => (seen = s)), 100);
      expect(await runHookClient("claude-code", text, options(home, { serveCommand: ["sleep", "1"] }))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
      expect(seen.map((s) => [s.path, s.body])).toEqual([["/hook/claude-code", text]]);
    }
  });

  test("the started daemon answers the handed-over event with an error: refused", async () => {
    const home = newHome();
    setTimeout(() => void standIn(home, (_req, _body, res) => res.writeHead(500).end("")), 100);
    expect(await runHookClient("gemini", JSON.stringify({ hook_event_name: "AfterTool", session_id: "s", cwd: "/tmp", tool_name: "x", tool_input: {} }), options(home, { serveCommand: ["sleep", "1"] }))).toEqual({
      stdout: "",
      stderr: "polar: the polar daemon could not be started (`polar serve`)\n",
      exitCode: 2,
    });
  });

  test("text that is not JSON, or another agent's post-tool name, is taken as a pre-tool call: refused, never handed over", async () => {
    const home = newHome();
    const refusal = "polar: refused: the polar daemon is not running and could not be started (run `polar serve` to see why)\n";
    expect((await runHookClient("gemini", "{", options(home))).stderr).toBe(refusal);
    expect((await runHookClient("gemini", postTool, options(home))).stderr).toBe(refusal);
  });
});

describe("startDaemon", () => {
  test("a command that cannot start, or exits without a daemon: false (the wait ends with the child, not after the 10 min asked for)", async () => {
    const home = newHome();
    expect(await startDaemon(options(home), 600_000)).toBe(false);
    expect(await startDaemon(options(home, { serveCommand: ["true"] }), 600_000)).toBe(false);
  });

  test("the daemon is started with POLAR_HOME set to the client's home", async () => {
    const home = newHome();
    const out = join(home, "env.txt");
    expect(await startDaemon(options(home, { serveCommand: ["sh", "-c", `printf %s "$POLAR_HOME" > '${out}'`] }), 2000)).toBe(false);
    const { readFileSync, existsSync } = await import("node:fs");
    for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 20));
    expect(readFileSync(out, "utf8")).toBe(home);
  });
});
