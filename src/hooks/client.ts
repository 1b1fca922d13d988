// `polar hook <agent>`: the daemon's thin client (bin/polar-hook's fallback when `curl` cannot reach the
// socket). Reads the agent's stdin, asks the daemon, prints the answer. Fail-closed for the agent:
// daemon down, no answer in time, an error status, an exception: exit 2 with the reason on stderr.
// A daemon that is not running is started for the next call, and this call is refused: the
// session's history (what ran, restore points in flight) lived in the daemon that is gone.
import { spawn } from "node:child_process";
import { request } from "node:http";
import { eventNames, failClosed, type Agent, type AgentOutput } from "./agents.js";
import { ping, socketPath } from "./server.js";

export interface ClientOptions {
  home: string;
  /** Own timeout for the whole answer (not the idle time between bytes); under the agent's hook
   * timeout (docs/hooks.md). */
  timeoutMs: number;
  /** How to start the daemon: the command and its arguments (default: this CLI's `serve`). */
  serveCommand: [string, ...string[]];
}

type Reply = { kind: "answer"; status: number; body: string } | { kind: "down" } | { kind: "failed"; why: string };

function post(socket: string, path: string, body: string, timeoutMs: number): Promise<Reply> {
  return new Promise((resolve) => {
    // The whole answer within the client's own time: a daemon that trickles bytes, or sends its status
    // and then nothing, is no answer (the first of these resolves; the rest are no-ops).
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ kind: "failed", why: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    const done = (r: Reply): void => {
      clearTimeout(timer);
      resolve(r);
    };
    // A connection of its own each time (no keep-alive pool): a long-lived process (OpenCode runs the
    // plugin in its own) never writes to a connection of a daemon that has stopped since.
    const req = request({ socketPath: socket, path, method: "POST", agent: false, headers: { "content-type": "application/json" } }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (data += d));
      res.on("end", () => done({ kind: "answer", status: res.statusCode ?? 0, body: data }));
      res.on("error", (e) => done({ kind: "failed", why: e.message }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      done(e.code === "ENOENT" || e.code === "ECONNREFUSED" ? { kind: "down" } : { kind: "failed", why: e.message });
    });
    req.end(body);
  });
}

/** Starts the daemon detached (it outlives this process) and waits up to `waitMs` for it to answer. */
export async function startDaemon(options: ClientOptions, waitMs: number): Promise<boolean> {
  const [cmd, ...args] = options.serveCommand;
  let failed = false;
  try {
    const child = spawn(cmd, args, { detached: true, stdio: "ignore", env: { ...process.env, POLAR_HOME: options.home } });
    // A command that cannot start (not found): reported here, never an unhandled error in the agent.
    child.on("error", () => (failed = true));
    child.on("exit", () => (failed = true));
    child.unref();
  } catch {
    return false;
  }
  const socket = socketPath(options.home);
  const until = Date.now() + waitMs;
  while (Date.now() < until && !failed) {
    if ((await ping(socket, 500)) !== null) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  // The child may have exited because another daemon won the race: ask once more.
  return (await ping(socket, 500)) !== null;
}

/** A session start or a post-tool event of this agent (handed to a daemon started for it); anything
 * else, text that is not JSON included, is taken as a pre-tool call. */
function handsOver(agent: Agent, text: string): boolean {
  try {
    const name = (JSON.parse(text) as { hook_event_name?: unknown }).hook_event_name;
    return name === eventNames(agent).post || name === eventNames(agent).start;
  } catch {
    return false;
  }
}

export async function runHookClient(agent: Agent, text: string, options: ClientOptions): Promise<AgentOutput> {
  const socket = socketPath(options.home);
  const reply = await post(socket, `/hook/${agent}`, text, options.timeoutMs);
  if (reply.kind === "answer") {
    if (reply.status === 200) return { stdout: reply.body, stderr: "", exitCode: 0 };
    return failClosed(reply.body.replace(/^polar: /u, "") || `refused: the daemon answered ${reply.status}`);
  }
  // Anything but a daemon known to be down (no socket, or nothing listening on it) is a refusal.
  if (reply.kind !== "down") return failClosed(`refused: the polar daemon did not answer (${reply.why})`);
  // Down. A session start or a post-tool event: start the daemon and hand the event over.
  if (handsOver(agent, text)) {
    if (await startDaemon(options, Math.min(options.timeoutMs, 5000))) {
      const again = await post(socket, `/hook/${agent}`, text, options.timeoutMs);
      if (again.kind === "answer" && again.status === 200) return { stdout: again.body, stderr: "", exitCode: 0 };
    }
    return failClosed("the polar daemon could not be started (`polar serve`)");
  }
  const started = await startDaemon(options, Math.min(options.timeoutMs, 5000));
  return failClosed(
    started
      ? "refused: the polar daemon was not running (it is started now, without this session's history): retry the call"
      : "refused: the polar daemon is not running and could not be started (run `polar serve` to see why)",
  );
}
