// `polar hook <claude-code|codex|gemini> [--in-process]`: an agent's pre/post-tool hook (docs/hooks.md).
// Reads the agent's JSON on stdin and prints that agent's answer; fail-closed for the agent: every
// failure is exit 2 with the reason on stderr (each of these agents blocks the call on exit 2), and
// an own deadline answers before the agent's hook timeout would let the call through.
// `polar serve [--status|--stop]`: the per-user daemon the hook asks (a Unix socket in ~/.polar).
// `polar approve ID`: lets the identical retry of a call Codex was refused (it cannot ask) pass once.
import { request } from "node:http";
import type { CAC } from "cac";
import { failClosed, isHookAgent, type AgentOutput } from "../../hooks/agents.js";
import { runHookClient } from "../../hooks/client.js";
import { ping, polarHome, serveLockPath, socketPath, startServer } from "../../hooks/server.js";
import { readLockHolder } from "../../util/file-lock.js";
import { approveStored } from "../../hooks/engine.js";
import { createHookEngine } from "../../hooks/setup.js";
import { shellGuardFactory } from "../../hooks/shell.js";
import { action, CliError, usageError } from "../errors.js";

/** The hook's own deadline (ms): well under the hook timeout `polar init` writes (60 s). */
export const HOOK_TIMEOUT_MS = 20_000;

function readStdin(timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error(`stdin did not end within ${timeoutMs} ms`)), timeoutMs);
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    process.stdin.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

function emit(out: AgentOutput): void {
  if (out.stdout !== "") process.stdout.write(out.stdout);
  if (out.stderr !== "") process.stderr.write(out.stderr);
  process.exitCode = out.exitCode;
}

function timeoutMs(): number {
  const v = Number(process.env.POLAR_HOOK_TIMEOUT_MS);
  return Number.isInteger(v) && v > 0 ? v : HOOK_TIMEOUT_MS;
}

async function runHook(agent: string, flags: { inProcess?: boolean }): Promise<void> {
  const deadline = timeoutMs();
  // The own deadline: an answer before the agent gives up on the hook (which would let the call run).
  const timer = setTimeout(() => {
    emit(failClosed(`refused: polar did not decide within ${deadline} ms`));
    process.exit(2);
  }, deadline);
  timer.unref();
  try {
    if (!isHookAgent(agent)) {
      emit(failClosed(`refused: unknown agent \`${agent}\` (claude-code, codex or gemini)`));
      return;
    }
    const text = await readStdin(deadline);
    const home = polarHome();
    if (flags.inProcess === true) {
      const engine = createHookEngine(home, await shellGuardFactory());
      try {
        emit(await engine.handle(agent, text));
      } finally {
        engine.close(); // the session log's lock
      }
      return;
    }
    emit(await runHookClient(agent, text, { home, timeoutMs: deadline, serveCommand: [process.execPath, process.argv[1], "serve"] }));
  } catch (e) {
    emit(failClosed(`refused: polar failed inside (${e instanceof Error ? e.message : String(e)})`));
  } finally {
    clearTimeout(timer);
  }
}

function post(path: string): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socketPath(polarHome()), path, method: "POST", timeout: 5000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(null));
    req.end();
  });
}

async function runServe(flags: { status?: boolean; stop?: boolean }): Promise<void> {
  const home = polarHome();
  if (flags.status === true) {
    const s = await ping(socketPath(home));
    if (s === null) throw new CliError("daemon-down", `no polar daemon answers on \`${socketPath(home)}\``, "it starts on the first hook call, or run `polar serve`");
    process.stdout.write(`polar daemon ${s.version}: pid ${s.pid}, ${s.sessions} session(s), socket ${socketPath(home)}\n`);
    return;
  }
  if (flags.stop === true) {
    const r = await post("/shutdown");
    // Stopped means gone: a `polar serve` right after this finds serve.lock free (up to 10 s).
    for (let i = 0; r !== null && i < 200 && readLockHolder(serveLockPath(home)) !== null; i++) await new Promise((w) => setTimeout(w, 50));
    process.stdout.write(r === null ? "no polar daemon was running\n" : "polar daemon stopped\n");
    return;
  }
  const engine = createHookEngine(home, await shellGuardFactory());
  const running = await startServer(engine, home);
  if (running === null) {
    const holder = readLockHolder(serveLockPath(home));
    throw new CliError(
      "daemon-running",
      `a polar daemon already runs for \`${home}\` (${holder === null ? "it answers" : `pid ${holder}`} on ${socketPath(home)}); a second one does not start beside it`,
      "the hooks use the running one; `polar serve --status` shows it, `polar serve --stop` stops it",
    );
  }
  process.stderr.write(`polar: serving on ${running.socket} (pid ${process.pid})\n`);
  const stop = (): void => void running.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await new Promise<void>((resolve) => running.server.on("close", () => resolve()));
}

async function runApprove(id: string): Promise<void> {
  if (!/^[0-9a-f]{8}$/u.test(id)) throw usageError("bad-approval-id", `\`${id}\` is not an approval id`, "the refusal names it: `polar approve 1a2b3c4d`");
  // Approvals are stored in the polar home: with the daemon down, recorded there directly.
  const r = await post(`/approve/${id}`);
  const ok = r === null ? approveStored(polarHome(), id) : r.status === 200;
  if (!ok) throw new CliError("unknown-approval", `no refused call has the approval id \`${id}\` (or it expired)`, "the id is in the refusal the agent showed; it lasts an hour");
  process.stdout.write(`approved: the identical retry of that call runs once\n`);
}

export function register(cli: CAC): void {
  cli
    .command("hook <agent>", "A coding agent's pre/post-tool hook (claude-code, codex, gemini): the agent's JSON on stdin, its answer on stdout; every failure refuses")
    .option("--in-process", "Judge in this process instead of asking the daemon (slower: no warm state)")
    .example("polar init claude-code   # writes the hook configuration that runs this")
    .action(async (agent: string, flags: { inProcess?: boolean }) => runHook(agent, flags));
  cli
    .command("serve", "The per-user daemon the hooks ask (a Unix socket in ~/.polar, or $POLAR_HOME); started by the first hook call")
    .option("--status", "Say whether the daemon answers")
    .option("--stop", "Stop the daemon")
    .action(action(runServe));
  cli
    .command("approve <id>", "Let the identical retry of a call the agent was refused (Codex cannot ask) run once")
    .action(action(runApprove));
}
