// The hook engine (Node): agent sessions keyed by the agent's session id, each with its guards, its
// hash-chained audit log and its open approvals; calls in one workspace judged one at a time in the
// order they arrive. `polar serve` keeps one engine warm; `polar hook --in-process` builds one per call.
// handle() never throws: whatever goes wrong, the answer is the agent's refusal (./agents.ts).
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chainHead, createChain, HOOK_RECORD_FORMAT, type Chain } from "../audit/index.js";
export { HOOK_RECORD_FORMAT };
import type { Decision } from "../guard/index.js";
import { jsonSafe } from "../guard/index.js";
import { acknowledge, failClosed, formatAnswer, parseHookInput, type Agent, type AgentOutput, type HookAction, type HookEvent } from "./agents.js";
import { shellStorePath } from "./server.js";
import { LockBusyError, takeFileLock, type FileLock } from "../util/file-lock.js";
import { refusingGuard, routeTool, type GuardAnswer, type GuardCall, type HookGuard, type Route } from "./guards.js";

/** A call routed to a guard. */
type Routed = Exclude<Route, { kind: "unknown" }>;


/** One line of a session's audit log (docs/hooks.md, "Audit"). */
export interface HookRecord {
  format: typeof HOOK_RECORD_FORMAT;
  /** 1-based, per session log. */
  seq: number;
  agent: Agent;
  sessionId: string;
  cwd: string;
  tool: string;
  input: unknown;
  action: HookAction;
  reason: string;
  code: string;
  /** `polar approve ID`: the approval that let this exact call through once (else null). */
  approval: string | null;
  /** The core decisions behind the answer, each replayed by `polar audit verify`. */
  decisions: Decision[];
  /** A read-only shell approval's evidence (no core decision): `polar audit verify` dispatches the line
   * again with the same catalogue and requires it to be read-only. */
  readOnly?: { command: string; cwd: string; catalogue: string };
}

export interface ShellGuardFactory {
  (options: { cwd: string; store: string; session: string }): HookGuard | Promise<HookGuard>;
}

export interface EngineOptions {
  /** Per-user state: audit logs, restore points, approvals (default `$POLAR_HOME` or `~/.polar`). */
  home: string;
  /** Builds the shell guard of a session; null: shell commands and file edits are refused
   * ("shell guard not available"). */
  shellGuard: ShellGuardFactory | null;
  /** MCP servers with an ontology: server name → guard factory (one guard per session). */
  mcp?: Record<string, () => HookGuard>;
  /** Sessions kept warm at most (least recently used first out; default 256). */
  maxSessions?: number;
  /** A session unused this long is let go (default 6 h). Its log, store and approvals stay on disk: its
   * next call opens it again. */
  sessionIdleMs?: number;
  /** How long a Codex approval id lasts: from the refusal that names it, and again from `polar approve`
   * (default 1 h). */
  approvalTtlMs?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
}

export const DEFAULT_MAX_SESSIONS = 256;
export const DEFAULT_SESSION_IDLE_MS = 6 * 3600_000;
export const DEFAULT_APPROVAL_TTL_MS = 3600_000;

interface Pending {
  guard: HookGuard;
  call: GuardCall;
  execution: string | null;
}

interface Session {
  key: string;
  agent: Agent;
  sessionId: string;
  /** The shell guard per workspace (cwd) of the session. */
  shell: Map<string, HookGuard>;
  mcp: Map<string, HookGuard>;
  logPath: string;
  /** `<log>.lock`, held while the session is open here: one writer per log, so its chain stays one. */
  lock: FileLock;
  chain: Chain;
  seq: number;
  /** Approved calls not yet observed, by tool_use_id or by the call's text. */
  pending: Map<string, Pending[]>;
  lastUsed: number;
  /** Calls of this session being judged (a busy session is never let go). */
  busy: number;
}

/** A Codex approval as stored in `<home>/approvals/<id>.json`: it outlives the daemon, is used once,
 * and expires (docs/hooks.md, "Codex CLI"). */
export interface StoredApproval {
  format: "polar-approval/1";
  id: string;
  /** The engine's session key (agent and the agent's session id). */
  session: string;
  /** sha256 of the call (tool name and arguments). */
  callKey: string;
  approved: boolean;
  /** ms since the epoch. */
  expires: number;
}

export function approvalsDir(home: string): string {
  return join(home, "approvals");
}

function approvalFile(home: string, id: string): string {
  return join(approvalsDir(home), `${id}.json`);
}

function readApproval(home: string, id: string): StoredApproval | null {
  let a: StoredApproval | null | undefined;
  try {
    a = JSON.parse(readFileSync(approvalFile(home, id), "utf8")) as StoredApproval | null;
  } catch {
    // unreadable: not an approval (below)
  }
  const ok = a?.format === "polar-approval/1" && a.id === id && typeof a.session === "string" && typeof a.callKey === "string" && typeof a.approved === "boolean" && Number.isFinite(a.expires);
  return ok ? a! : null;
}

function writeApproval(home: string, a: StoredApproval): void {
  mkdirSync(approvalsDir(home), { recursive: true, mode: 0o700 });
  const file = approvalFile(home, a.id);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(a)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** `polar approve ID` on the stored approvals (with or without a running daemon): the identical retry
 * passes once within the approval's lifetime. False for an unknown, malformed or expired id. */
export function approveStored(home: string, id: string, now: number = Date.now(), ttlMs: number = DEFAULT_APPROVAL_TTL_MS): boolean {
  if (!/^[0-9a-f]{8}$/u.test(id)) return false;
  const a = readApproval(home, id);
  if (a === null || a.expires <= now) return false;
  writeApproval(home, { ...a, approved: true, expires: now + ttlMs });
  return true;
}

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const nodeSha256 = (data: Uint8Array | string): Uint8Array => createHash("sha256").update(data).digest();

/** A file-name-safe form of a session id (an id with other characters is hashed). */
export function sessionFileName(agent: Agent, sessionId: string): string {
  const safe = /^[A-Za-z0-9._-]{1,100}$/u.test(sessionId) && !sessionId.startsWith(".") ? sessionId : sha(sessionId).slice(0, 32);
  return `${agent}-${safe}.jsonl`;
}

export function auditLogPath(home: string, agent: Agent, sessionId: string): string {
  return join(home, "audit", sessionFileName(agent, sessionId));
}

/** A session's log is written by another process (a daemon, `polar hook --in-process`, a second
 * daemon): this call is refused, never judged unlogged. */
export class SessionLogBusyError extends Error {
  override readonly name = "SessionLogBusyError";
  readonly code = "audit-log-busy";
  constructor(logPath: string, agent: Agent, holder: number | null, lock: string) {
    super(
      `refused: this session's audit log \`${logPath}\` is being written by another polar process (${holder === null ? "pid unknown" : `pid ${holder}`}, lock \`${lock}\`): a log has one writer, so this call is not judged. ` +
        `Use \`polar hook ${agent}\` without --in-process (it asks the running daemon), or stop the other process (\`polar serve --stop\`); a lock whose process is gone is taken over by the next call`,
    );
  }
}

export class HookEngine {
  /** Least recently used first (a used session moves to the end). */
  private readonly sessions = new Map<string, Session>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly now: () => number;

  constructor(private readonly options: EngineOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Answers one hook call of `agent` given its stdin text. Never throws. */
  async handle(agent: Agent, text: string): Promise<AgentOutput> {
    let ev: HookEvent;
    try {
      ev = parseHookInput(agent, text);
    } catch (e) {
      return failClosed(`refused: ${e instanceof Error ? e.message : String(e)}`);
    }
    // Calls in one workspace are judged in the order they arrive (two agents in one worktree).
    return this.serialized(ev.cwd, async () => {
      let s: Session | null = null;
      try {
        s = this.session(ev);
        s.busy++;
        return await this.handleEvent(s, ev);
      } catch (e) {
        if (e instanceof SessionLogBusyError) return failClosed(e.message);
        return failClosed(`refused: polar failed inside (${e instanceof Error ? e.message : String(e)})`);
      } finally {
        if (s !== null) s.busy--;
      }
    });
  }

  /** `polar approve ID`: the identical retry of that call passes once. False for an unknown or expired id. */
  approve(id: string): boolean {
    return approveStored(this.options.home, id, this.now(), this.options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS);
  }

  sessionCount(): number {
    return this.sessions.size;
  }

  /** Lets go of every session and its log's lock (the daemon stopping; `polar hook --in-process` done). */
  close(): void {
    for (const s of this.sessions.values()) s.lock.release();
    this.sessions.clear();
  }

  private async serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  /** Lets go of sessions over the bound (least recently used first) and of idle ones; never a busy one,
   * nor `keep`, the session a call is opening (it is not yet counted busy: let go here, its log's lock
   * would be released while the call goes on to write it). */
  private evict(keep: string): void {
    const max = Math.max(1, this.options.maxSessions ?? DEFAULT_MAX_SESSIONS);
    const idle = this.options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    const now = this.now();
    let over = this.sessions.size - max;
    for (const [key, s] of this.sessions) {
      if (over <= 0 && now - s.lastUsed < idle) break;
      if (s.busy > 0 || key === keep) continue;
      this.sessions.delete(key);
      s.lock.release();
      over--;
    }
  }

  private session(ev: HookEvent): Session {
    const key = `${ev.agent}\u0000${ev.sessionId}`;
    let s = this.sessions.get(key);
    if (s !== undefined) {
      s.lastUsed = this.now();
      this.sessions.delete(key);
      this.sessions.set(key, s);
      this.evict(key);
      return s;
    }
    const logPath = auditLogPath(this.options.home, ev.agent, ev.sessionId);
    mkdirSync(join(this.options.home, "audit"), { recursive: true, mode: 0o700 });
    // One writer per log: taken before its head is read, held while the session is open here.
    let lock: FileLock;
    try {
      lock = takeFileLock(`${logPath}.lock`);
    } catch (e) {
      if (e instanceof LockBusyError) throw new SessionLogBusyError(logPath, ev.agent, e.holder, e.lock);
      throw e;
    }
    // A session seen before (the daemon restarted): its log goes on from its last record.
    let from;
    let seq = 0;
    try {
      if (existsSync(logPath)) {
        const text = readFileSync(logPath, "utf8");
        from = chainHead(text, nodeSha256);
        const last = text.trimEnd().split("\n").pop()!;
        seq = last === "" ? 0 : Number((JSON.parse(last) as { seq?: unknown }).seq) || 0;
      }
    } catch (e) {
      lock.release();
      throw e;
    }
    s = {
      key,
      agent: ev.agent,
      sessionId: ev.sessionId,
      shell: new Map(),
      mcp: new Map(),
      logPath,
      lock,
      chain: createChain({ sha256: nodeSha256, from }),
      seq,
      pending: new Map(),
      lastUsed: this.now(),
      busy: 0,
    };
    this.sessions.set(key, s);
    this.evict(key);
    return s;
  }

  private async shellGuard(s: Session, cwd: string): Promise<HookGuard> {
    const have = s.shell.get(cwd);
    if (have !== undefined) return have;
    const factory = this.options.shellGuard;
    let g: HookGuard;
    if (factory === null) {
      g = refusingGuard("refused: shell guard not available (polar cannot judge shell commands or file edits here)", "shell_guard_unavailable");
    } else {
      try {
        g = await factory({ cwd, store: shellStorePath(this.options.home), session: sha(s.key).slice(0, 16) });
      } catch (e) {
        // Not kept: the next call tries again (e.g. the directory exists by then).
        return refusingGuard(`refused: the shell guard cannot start here (${e instanceof Error ? e.message : String(e)})`, "shell_guard_unavailable");
      }
    }
    s.shell.set(cwd, g);
    return g;
  }

  /** The guard of a routed call: the workspace's shell guard, or the session's guard of that MCP server
   * (null: no ontology is configured for the server). */
  private async guardFor(s: Session, route: Routed, cwd: string): Promise<HookGuard | null> {
    if (route.kind === "shell") return this.shellGuard(s, cwd);
    let g = s.mcp.get(route.server);
    if (g === undefined) {
      const make = this.options.mcp?.[route.server];
      if (make === undefined) return null;
      g = make();
      s.mcp.set(route.server, g);
    }
    return g;
  }

  private async handleEvent(s: Session, ev: HookEvent): Promise<AgentOutput> {
    // A session start and a post-tool event decide nothing.
    if (ev.phase === "start") return acknowledge(ev.agent);
    const route = routeTool(ev.agent, ev.tool, ev.input);
    if (ev.phase === "post") {
      await this.observe(s, ev, route);
      return acknowledge(ev.agent);
    }
    if (route.kind === "unknown") return this.refuse(s, ev, `refused: ${route.why}`);
    const guard = await this.guardFor(s, route, ev.cwd);
    if (guard === null) return this.refuse(s, ev, `refused: no ontology is configured for the MCP server \`${(route as { server: string }).server}\``);
    let answer = guard.check(route.call);
    if (!isAnswer(answer)) throw new Error("the guard returned no answer");
    let approval: string | null = null;
    let reason = answer.reason;
    if (answer.action === "ask" && ev.agent === "codex") {
      // Codex cannot ask: a denial naming the approval; the identical retry passes once after it.
      const callKey = sha(callText(route.call));
      const found = this.findApproval(s.key, callKey);
      if (found !== null && found.approved && this.consumeApproval(found.id)) {
        approval = found.id;
        answer = { ...answer, action: "allow" };
        reason = `approved once by \`polar approve ${found.id}\`: ${answer.reason}`;
      } else {
        let id: string;
        if (found === null || found.approved) {
          // A new id (an approved one that another call used first is gone).
          id = randomBytes(4).toString("hex");
          writeApproval(this.options.home, { format: "polar-approval/1", id, session: s.key, callKey, approved: false, expires: this.now() + (this.options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS) });
        } else id = found.id;
        reason = `${answer.reason} — to run this exact call once, the user runs \`polar approve ${id}\` and asks for a retry`;
      }
    }
    this.record(s, ev, { ...answer, reason }, approval);
    if (answer.action === "allow") {
      const key = ev.toolUseId ?? callText(route.call);
      const list = s.pending.get(key) ?? [];
      list.push({ guard, call: route.call, execution: answer.execution });
      s.pending.set(key, list);
    }
    return formatAnswer(ev.agent, "pre", { action: answer.action, reason });
  }

  /** A call no guard judges (an unknown tool, an MCP server without an ontology): refused, recorded. */
  private refuse(s: Session, ev: HookEvent, reason: string): AgentOutput {
    this.record(s, ev, { action: "deny", reason, code: "unknown_tool", execution: null, decisions: [] }, null);
    return formatAnswer(ev.agent, "pre", { action: "deny", reason });
  }

  /** The live stored approval of this call in this session; expired ones are deleted on the way. */
  private findApproval(session: string, callKey: string): StoredApproval | null {
    const dir = approvalsDir(this.options.home);
    if (!existsSync(dir)) return null;
    const now = this.now();
    let best: StoredApproval | null = null;
    for (const f of readdirSync(dir)) {
      const m = /^([0-9a-f]{8})\.json$/u.exec(f);
      if (m === null) continue;
      const a = readApproval(this.options.home, m[1]);
      if (a === null) continue;
      if (a.expires <= now) {
        try {
          unlinkSync(approvalFile(this.options.home, a.id));
        } catch {
          // gone already
        }
        continue;
      }
      if (a.session === session && a.callKey === callKey && (best === null || (a.approved && !best.approved))) best = a;
    }
    return best;
  }

  /** Uses an approval: the rename succeeds for one caller only (one retry passes, even across daemons). */
  private consumeApproval(id: string): boolean {
    const file = approvalFile(this.options.home, id);
    const used = `${file}.used-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      renameSync(file, used);
    } catch {
      return false;
    }
    try {
      unlinkSync(used);
    } catch {
      // the approval is used either way
    }
    return true;
  }

  private async observe(s: Session, ev: HookEvent, route: Route): Promise<void> {
    if (route.kind === "unknown") return;
    const key = ev.toolUseId ?? callText(route.call);
    const list = s.pending.get(key);
    const p = list?.shift();
    if (list !== undefined && list.length === 0) s.pending.delete(key);
    const guard = p?.guard ?? (await this.guardFor(s, route, ev.cwd));
    if (guard === null) return;
    guard.observe(route.call, toolResult(ev.response), p?.execution ?? null);
  }

  private record(s: Session, ev: HookEvent, answer: GuardAnswer, approval: string | null): void {
    const rec: HookRecord = {
      format: HOOK_RECORD_FORMAT,
      seq: s.seq + 1,
      agent: ev.agent,
      sessionId: ev.sessionId,
      cwd: ev.cwd,
      tool: ev.tool,
      input: jsonSafe(ev.input),
      action: answer.action,
      reason: answer.reason,
      code: answer.code,
      approval,
      decisions: answer.decisions,
      ...(answer.readOnly ? { readOnly: answer.readOnly } : {}),
    };
    const before = s.chain.head();
    const { line } = s.chain.link(rec as unknown as Decision);
    try {
      appendFileSync(s.logPath, `${line}\n`, { mode: 0o600 });
    } catch (e) {
      s.chain = createChain({ sha256: nodeSha256, from: before });
      // Unrecorded is unapproved: the caller turns this into a refusal.
      throw new Error(`the audit log \`${s.logPath}\` cannot be written (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    s.seq++;
  }
}

function isAnswer(a: unknown): a is GuardAnswer {
  const o = a as GuardAnswer | null;
  return typeof o === "object" && o !== null && (o.action === "allow" || o.action === "ask" || o.action === "deny") && typeof o.reason === "string" && Array.isArray(o.decisions);
}

function callText(call: GuardCall): string {
  return JSON.stringify([call.name, jsonSafe(call.arguments)]);
}

/** The agent's tool response as the guard's result: exit code and output where the agent says them. */
export function toolResult(response: unknown): { exitCode: number; stdout?: string; stderr?: string; raw?: unknown } {
  const r = (typeof response === "object" && response !== null ? response : {}) as Record<string, unknown>;
  const code = r.exitCode ?? r.exit_code ?? r.returncode;
  // The post-tool events of these agents fire for calls that ran; an error flag means it failed.
  const failed = r.is_error === true || r.success === false || r.interrupted === true;
  const exitCode = Number.isInteger(code) ? (code as number) : failed ? 1 : 0;
  const out: { exitCode: number; stdout?: string; stderr?: string; raw?: unknown } = { exitCode, raw: response };
  if (typeof r.stdout === "string") out.stdout = r.stdout;
  else if (typeof response === "string") out.stdout = response;
  if (typeof r.stderr === "string") out.stderr = r.stderr;
  return out;
}
