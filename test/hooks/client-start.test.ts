// src/hooks/client.ts when the daemon is down, with node:child_process's spawn replaced in process: the
// serve command is recorded and what "the started daemon" does is up to each test (a stand-in daemon on
// the home's socket comes up, answers an error, never comes up, the child exits or cannot start), so
// no answer depends on how fast a real child starts. Also the socket a killed daemon left behind
// (nothing listens on it: down, not "no answer"), and a daemon that hangs up in the middle of its answer.
import { EventEmitter } from "node:events";
import { linkSync, mkdtempSync, renameSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { runHookClient, startDaemon, type ClientOptions } from "../../src/hooks/client.js";
import { socketPath } from "../../src/hooks/server.js";

type Child = EventEmitter & { unref(): void };
interface Spawned {
  cmd: string;
  args: string[];
  detached: unknown;
  stdio: unknown;
  env: NodeJS.ProcessEnv | undefined;
}

const spawned: Spawned[] = [];
/** What the serve command does when spawned (each test sets it). */
let onSpawn: (home: string, child: Child) => void = () => {};

vi.mock("node:child_process", async (original) => {
  const actual = await original<typeof import("node:child_process")>();
  return {
    ...actual,
    spawn: (cmd: string, args: string[], options: { detached?: unknown; stdio?: unknown; env?: NodeJS.ProcessEnv }) => {
      // As node's spawn does: a command it cannot take at all throws at once.
      if (cmd === "" || cmd.includes("\0")) throw new TypeError(`The argument 'file' is invalid: ${JSON.stringify(cmd)}`);
      spawned.push({ cmd, args, detached: options.detached, stdio: options.stdio, env: options.env });
      const child = new EventEmitter() as Child;
      child.unref = () => {};
      onSpawn(options.env?.POLAR_HOME ?? "", child);
      return child;
    },
  };
});

const servers: Server[] = [];
beforeEach(() => {
  spawned.length = 0;
  onSpawn = () => {};
});
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

/** A stand-in daemon on `<home>/polar.sock`: /status answers as the daemon does; the rest goes to `answer`. */
async function standIn(home: string, answer: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string[]> {
  const seen: string[] = [];
  const s = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      if (req.url === "/status") return void res.writeHead(200).end(JSON.stringify({ pid: 1, sessions: 0, version: "x" }));
      seen.push(`${req.url} ${body}`);
      answer(req, body, res);
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(socketPath(home), () => r()));
  return seen;
}

const newHome = (): string => mkdtempSync(join(tmpdir(), "polar-client-start-"));
const options = (home: string, extra: Partial<ClientOptions> = {}): ClientOptions => ({ home, timeoutMs: 2000, serveCommand: ["/opt/polar/bin/polar", "serve"], ...extra });
const pre = JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s", cwd: "/tmp", tool_name: "Bash", tool_input: { command: "ls" } });
const post = JSON.stringify({ hook_event_name: "PostToolUse", session_id: "s", cwd: "/tmp", tool_name: "Bash", tool_input: { command: "ls" }, tool_response: {} });
const refusedStarted = { stdout: "", stderr: "polar: refused: the polar daemon was not running (it is started now, without this session's history): retry the call\n", exitCode: 2 };
const refusedNotStarted = { stdout: "", stderr: "polar: refused: the polar daemon is not running and could not be started (run `polar serve` to see why)\n", exitCode: 2 };
const notHandedOver = { stdout: "", stderr: "polar: the polar daemon could not be started (`polar serve`)\n", exitCode: 2 };

describe("startDaemon", () => {
  test("runs the serve command detached, its output ignored, with the environment and POLAR_HOME set to the client's home", async () => {
    const home = newHome();
    onSpawn = (h) => void standIn(h, () => {});
    process.env.POLAR_CLIENT_START_PROBE = "kept";
    try {
      expect(await startDaemon(options(home, { serveCommand: ["/usr/bin/node", "/pkg/bin/polar.js", "serve"] }), 2000)).toBe(true);
    } finally {
      delete process.env.POLAR_CLIENT_START_PROBE;
    }
    expect(spawned.map((s) => [s.cmd, s.args, s.detached, s.stdio, s.env?.POLAR_HOME, s.env?.POLAR_CLIENT_START_PROBE])).toEqual([
      ["/usr/bin/node", ["/pkg/bin/polar.js", "serve"], true, "ignore", home, "kept"],
    ]);
  });

  test("true as soon as the daemon answers, while its process still runs (the wait does not last until the 10 min asked for)", async () => {
    const home = newHome();
    onSpawn = (h) => void standIn(h, () => {});
    expect(await startDaemon(options(home), 600_000)).toBe(true);
  });

  test("a serve command spawn refuses outright (empty, a NUL byte), one that cannot start, or exits: false, never a throw", async () => {
    const home = newHome();
    expect(await startDaemon(options(home, { serveCommand: [""] }), 600_000)).toBe(false);
    expect(await startDaemon(options(home, { serveCommand: ["po\0lar", "serve"] }), 600_000)).toBe(false);
    onSpawn = (_h, child) => setImmediate(() => child.emit("error", Object.assign(new Error("spawn polar ENOENT"), { code: "ENOENT" })));
    expect(await startDaemon(options(home), 600_000)).toBe(false);
    onSpawn = (_h, child) => setImmediate(() => child.emit("exit", 1, null));
    expect(await startDaemon(options(home), 600_000)).toBe(false);
  });

  test("a serve command whose process keeps running but never answers: false once the wait asked for is over", async () => {
    const home = newHome();
    onSpawn = () => {};
    expect(await startDaemon(options(home), 300)).toBe(false);
    expect(spawned).toHaveLength(1);
  });

  test("the child exits because another daemon won the race, which answers after it: true", async () => {
    const home = newHome();
    onSpawn = (h, child) =>
      setImmediate(() => {
        child.emit("exit", 1, null);
        void standIn(h, () => {});
      });
    expect(await startDaemon(options(home), 600_000)).toBe(true);
  });
});

describe("runHookClient with the daemon down", () => {
  test("a pre-tool call: the daemon is started and this call refused, saying it runs now; the next call is answered by it", async () => {
    const home = newHome();
    onSpawn = (h) => void standIn(h, (_req, _body, res) => res.writeHead(200).end("{}\n"));
    expect(await runHookClient("claude-code", pre, options(home))).toEqual(refusedStarted);
    expect(spawned).toHaveLength(1);
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    expect(spawned).toHaveLength(1);
  });

  test("a pre-tool call when the daemon cannot be started: refused, saying so", async () => {
    const home = newHome();
    onSpawn = (_h, child) => setImmediate(() => child.emit("exit", 1, null));
    expect(await runHookClient("codex", pre, options(home))).toEqual(refusedNotStarted);
  });

  test("a post-tool event is handed to the started daemon: its 200 is the answer; any other status, or no daemon, a refusal", async () => {
    const home = newHome();
    let seen: string[] = [];
    onSpawn = (h) => void standIn(h, (_req, _body, res) => res.writeHead(200).end('{"ok":1}\n')).then((s) => (seen = s));
    expect(await runHookClient("claude-code", post, options(home))).toEqual({ stdout: '{"ok":1}\n', stderr: "", exitCode: 0 });
    expect(seen).toEqual([`/hook/claude-code ${post}`]);
    for (const status of [500, 201, 422]) {
      await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
      onSpawn = (h) => void standIn(h, (_req, _body, res) => res.writeHead(status).end("{}\n"));
      expect(await runHookClient("claude-code", post, options(home))).toEqual(notHandedOver);
    }
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
    onSpawn = (_h, child) => setImmediate(() => child.emit("exit", 1, null));
    expect(await runHookClient("gemini", JSON.stringify({ hook_event_name: "AfterTool", session_id: "s", cwd: "/tmp", tool_name: "x", tool_input: {} }), options(home))).toEqual(notHandedOver);
  });

  test("a daemon that is started but does not come up within the client's time: the pre-tool call is refused as not started, the post-tool event not handed over", async () => {
    const home = newHome();
    onSpawn = () => {};
    expect(await runHookClient("claude-code", pre, options(home, { timeoutMs: 300 }))).toEqual(refusedNotStarted);
    expect(await runHookClient("claude-code", post, options(home, { timeoutMs: 300 }))).toEqual(notHandedOver);
    expect(spawned).toHaveLength(2);
  });

  test("a socket left behind by a killed daemon (nothing listens on it) is a daemon that is down: started, this call refused", async () => {
    const home = newHome();
    // The socket file outlives its server, as after a SIGKILL: a hard link keeps it through close().
    const s = createServer();
    await new Promise<void>((r) => s.listen(socketPath(home), () => r()));
    linkSync(socketPath(home), `${socketPath(home)}.kept`);
    await new Promise<void>((r) => s.close(() => r()));
    renameSync(`${socketPath(home)}.kept`, socketPath(home));
    onSpawn = (_h, child) => setImmediate(() => child.emit("exit", 1, null));
    expect(await runHookClient("claude-code", pre, options(home))).toEqual(refusedNotStarted);
    expect(spawned).toHaveLength(1);
  });
});

describe("runHookClient with a daemon that answers", () => {
  test("a daemon that sends its status and hangs up in the middle of the body: refused (no answer), never the part it sent", async () => {
    const home = newHome();
    await standIn(home, (_req, _body, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write('{"hookSpecificOutput":{"permissionDecision":"allow"');
      setImmediate(() => res.socket?.destroy());
    });
    // The cut connection is the reason (not the client's time running out).
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({
      stdout: "",
      stderr: "polar: refused: the polar daemon did not answer (aborted)\n",
      exitCode: 2,
    });
    expect(spawned).toEqual([]);
  });

  test("in a long-lived process (OpenCode's): after the daemon it asked stops, the next call finds it down and starts it, never writing to the old connection", async () => {
    const home = newHome();
    await standIn(home, (_req, _body, res) => res.writeHead(200).end("{}\n"));
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
    onSpawn = (h) => void standIn(h, (_req, _body, res) => res.writeHead(200).end("{}\n"));
    expect(await runHookClient("claude-code", pre, options(home))).toEqual(refusedStarted);
    expect(spawned).toHaveLength(1);
  });

  test("the client's time is for the whole answer: a daemon that trickles its answer past it is refused, not waited for", async () => {
    const home = newHome();
    await standIn(home, (_req, _body, res) => {
      res.writeHead(200);
      // A space every 20 ms for 100 ticks (each byte resets an idle timer), then an answer that would
      // let the call through.
      let ticks = 0;
      const tick = (): void => {
        if (++ticks > 100 || res.destroyed) return void res.end("{}\n");
        res.write(" ");
        setTimeout(tick, 20);
      };
      tick();
    });
    const out = await runHookClient("claude-code", pre, options(home, { timeoutMs: 300 }));
    expect(out).toEqual({ stdout: "", stderr: "polar: refused: the polar daemon did not answer (no answer within 300 ms)\n", exitCode: 2 });
  });

  test("an error status's text loses only a leading `polar: `", async () => {
    const home = newHome();
    await standIn(home, (_req, _body, res) => res.writeHead(500).end("refused: polar: the engine stopped\n"));
    expect(await runHookClient("claude-code", pre, options(home))).toEqual({ stdout: "", stderr: "polar: refused: polar: the engine stopped\n", exitCode: 2 });
  });
});
