// createShellGuard: a coding agent's shell commands and file edits, judged by the ordinary guard
// (src/guard) over the shell ontology (ontologies/shell/shell.polar) on the workspace they meet.
// check(): dispatch → Layer B for exactly what the calls touch → the core guard's verdict → under the
// `snapshot` policy, a restore point of what would be lost and a second verdict. observe(): the call
// ran: the undo journal gets its inverse, the git facts are read again next time. undo(): judged on
// the current state, then run.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { createGuard, type AuditSink, type Guard } from "../guard/guard.js";
import type { Decision } from "../guard/decision.js";
import { coreReason, inverseOf, tierOf, tierRank } from "../guard/dispatched.js";
import type { StateView, TierName } from "../core/types.js";
import { dispatchCommand, followLinks, gitCode, gitCodeDetail, parseCatalogue, type Catalogue, type Problem, type TypedCall } from "./dispatch.js";
import { loadBashParser } from "./parse.js";
import { DEFAULT_BOUNDS, RestoreError, RestoreStore, type RepoScope, type RestoreBounds, type TrackedUnder, type RestorePoint, type RestoreSummary } from "./restore.js";
import { describeStep, Journal, stateFingerprint, undoEntry, type InverseStep, type UndoEntry, type UndoResult, type UndoSelector } from "./undo.js";
export { undoEntry };
import { kindOf, physicalPath, Workspace, WorkspaceReadError } from "./workspace.js";
import { creationOnly } from "./creation.js";

export type ShellPolicy = "snapshot" | "escalate" | "veto" | "advisory";
export type ShellAction = "allow" | "ask" | "deny";

export const SHELL_DECISION_FORMAT = "polar-shell-decision/1";

export type ShellGuardErrorCode = "bad-cwd" | "bad-store" | "bad-option" | "bad-ontology";

export class ShellGuardError extends Error {
  readonly code: ShellGuardErrorCode;
  constructor(code: ShellGuardErrorCode, message: string) {
    super(message);
    this.name = "ShellGuardError";
    this.code = code;
  }
}

export interface ShellGuardOptions {
  /** The workspace: an existing directory. */
  cwd: string;
  /** Where restore points and the undo journal go: a writable directory outside the workspace. */
  store: string;
  /** Names this session's undo journal; default a random id. */
  session?: string;
  /** Default `snapshot`. */
  policy?: ShellPolicy;
  /** Commands to treat as read-only in addition to the catalogue's. */
  readOnlyCommands?: readonly string[];
  restoreBounds?: Partial<RestoreBounds>;
  /** Receives the core guard's decision records. */
  log?: AuditSink;
}

/** `{ tool: "shell", args: { command } }`, `write_file {path, content}`, `edit_file {path, old, new}`,
 * `apply_patch {patch}`; `{ name, arguments }` is accepted too. */
export interface ShellToolCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface ShellDecision {
  format: typeof SHELL_DECISION_FORMAT;
  seq: number;
  approved: boolean;
  action: ShellAction;
  route: "Approved" | "Vetoed" | "ConsentEscalated" | "AdvisoryPassthrough";
  reason: string;
  message: string;
  /** The worst tier among the inverse steps ("T0": read-only), null when not judged. */
  tier: "T0" | TierName | null;
  restorePoint: RestoreSummary | null;
  /** Pass to observe(); null when nothing will be journaled (refused or read-only). */
  execution: string | null;
  calls: TypedCall[];
  problems: Problem[];
  /** π as the undo would run it (most recent call first). */
  inverse: InverseStep[];
  /** The core guard's decision (the last one, after a restore point); null when the core was not asked. */
  core: Decision | null;
  /** A read-only or creation-only approval (the core not asked): what re-derives it (`readOnlyChecker`). */
  readOnly?: ReadOnlyEvidence | null;
  session: string;
}

export interface ShellGuard {
  readonly cwd: string;
  readonly session: string;
  readonly policy: ShellPolicy;
  check(call: unknown): ShellDecision;
  observe(call: unknown, result?: unknown, options?: { execution?: string }): { journaled: string | null };
  list(): UndoEntry[];
  undo(sel?: UndoSelector, options?: { dryRun?: boolean }): UndoResult;
  /** The workspace's Layer B reader (tests, benchmarks). */
  readonly workspace: Workspace;
}

const HERE = new URL(".", import.meta.url);
/** A read-only approval's evidence (the dispatcher found no call that changes anything), as a hook's
 * audit record keeps it, and how `polar audit verify` re-derives it: the same catalogue (by digest)
 * dispatching the same command line in the same directory finds no call and no problem. */
export interface ReadOnlyEvidence {
  command: string;
  cwd: string;
  /** sha256 (hex) of ontologies/shell/commands.json as the guard read it. */
  catalogue: string;
}

export interface ReadOnlyChecker {
  catalogue: string;
  /** null when the line is read-only under this catalogue; else why not. */
  check(command: string, cwd: string): string | null;
  /** null when every call the line makes only creates (src/shell/creation.ts), so it loses nothing in
   * any state (a `creation_only` approval, made without the core); else why not. */
  creationOnly(command: string, cwd: string): string | null;
}

/** The default catalogue's digest and a checker over it (loads the bash parser). */
export async function readOnlyChecker(): Promise<ReadOnlyChecker> {
  await loadBashParser();
  const text = readFileSync(asset("commands.json"), "utf8");
  const catalogue = parseCatalogue(JSON.parse(text));
  const home = homedir();
  return {
    catalogue: createHash("sha256").update(text).digest("hex"),
    check(command, cwd) {
      const d = dispatchCommand(command, cwd, catalogue, home);
      if (d.problems.length > 0) return `not read-only: ${d.problems[0]!.reason} (${d.problems[0]!.detail})`;
      if (d.calls.length > 0) return `not read-only: it makes ${d.calls.map((c) => c.name).join(", ")}`;
      return null;
    },
    creationOnly(command, cwd) {
      const d = dispatchCommand(command, cwd, catalogue, home);
      if (d.problems.length > 0) return `not creation-only: ${d.problems[0]!.reason} (${d.problems[0]!.detail})`;
      if (!creationOnly(d.calls)) return `not creation-only: it makes ${d.calls.map((c) => c.name).join(", ") || "no call"}`;
      return null;
    },
  };
}

function asset(rel: string): string {
  for (const base of ["../../ontologies/shell/", "../ontologies/shell/", "./ontologies/shell/"]) {
    const p = new URL(base + rel, HERE).pathname;
    if (existsSync(p)) return p;
  }
  throw new ShellGuardError("bad-ontology", `ontologies/shell/${rel} is not beside the module`);
}

let assets: { blob: Uint8Array; catalogue: unknown; digest: string } | null = null;

const POLICIES: readonly ShellPolicy[] = ["snapshot", "escalate", "veto", "advisory"];
const OPTION_KEYS = ["cwd", "store", "session", "policy", "readOnlyCommands", "restoreBounds", "log"];

export async function createShellGuard(options: ShellGuardOptions): Promise<ShellGuard> {
  if (options === null || typeof options !== "object") throw new ShellGuardError("bad-option", "createShellGuard needs { cwd, store }");
  for (const k of Object.keys(options)) if (!OPTION_KEYS.includes(k)) throw new ShellGuardError("bad-option", `unknown option \`${k}\` (the options are ${OPTION_KEYS.join(", ")})`);
  if (typeof options.cwd !== "string" || options.cwd === "") throw new ShellGuardError("bad-cwd", "`cwd` is not a path");
  const cwd = resolve(options.cwd);
  let st;
  try {
    st = statSync(cwd);
  } catch {
    throw new ShellGuardError("bad-cwd", `cwd ${cwd} does not exist`);
  }
  if (!st.isDirectory()) throw new ShellGuardError("bad-cwd", `cwd ${cwd} is not a directory`);
  const realCwd = (await import("node:fs")).realpathSync(cwd);
  if (typeof options.store !== "string" || options.store === "") throw new ShellGuardError("bad-store", "`store` is not a path");
  const storeDir = resolve(options.store);
  if (storeDir === cwd || storeDir.startsWith(`${cwd}/`) || storeDir.startsWith(`${realCwd}/`)) throw new ShellGuardError("bad-store", `the store ${storeDir} is inside the workspace`);
  const policy = options.policy ?? "snapshot";
  if (!POLICIES.includes(policy)) throw new ShellGuardError("bad-option", `unknown policy \`${String(policy)}\` (${POLICIES.join(", ")})`);
  const session = options.session ?? randomBytes(6).toString("hex");
  if (typeof session !== "string" || !/^[A-Za-z0-9._-]{1,128}$/.test(session)) throw new ShellGuardError("bad-option", "`session` must be 1–128 characters of [A-Za-z0-9._-]");
  const bounds: RestoreBounds = { ...DEFAULT_BOUNDS, ...(options.restoreBounds ?? {}) };
  if (!(Number.isInteger(bounds.maxBytes) && bounds.maxBytes >= 0 && Number.isInteger(bounds.maxFiles) && bounds.maxFiles >= 0)) throw new ShellGuardError("bad-option", "restoreBounds must be non-negative integers");
  if (options.readOnlyCommands !== undefined && (!Array.isArray(options.readOnlyCommands) || options.readOnlyCommands.some((c) => typeof c !== "string" || c === ""))) {
    throw new ShellGuardError("bad-option", "readOnlyCommands must be a list of command names");
  }
  const store = new RestoreStore(storeDir, bounds);
  try {
    store.open();
  } catch (e) {
    throw new ShellGuardError("bad-store", (e as Error).message);
  }
  await loadBashParser();
  if (assets === null) {
    const text = readFileSync(asset("commands.json"), "utf8");
    assets = { blob: new Uint8Array(readFileSync(asset("shell.blob"))), catalogue: JSON.parse(text), digest: createHash("sha256").update(text).digest("hex") };
  }
  let catalogue: Catalogue;
  try {
    catalogue = parseCatalogue(assets.catalogue, options.readOnlyCommands ?? []);
  } catch (e) {
    throw new ShellGuardError("bad-ontology", (e as Error).message);
  }
  // Extra read-only commands change what is read-only: the evidence names that catalogue, not the default.
  const extra = options.readOnlyCommands ?? [];
  const digest = extra.length === 0 ? assets.digest : createHash("sha256").update(`${assets.digest}\u0000${JSON.stringify([...extra].sort())}`).digest("hex");
  return new ShellGuardImpl(realCwd, store, session, policy, catalogue, assets.blob, options.log, digest);
}

interface Pending {
  call: unknown;
  calls: TypedCall[];
  decision: Omit<ShellDecision, "route">;
  repo: string | null;
  paths: string[];
  kinds: Record<string, string>;
  /** The store's names of the restore point's files that have other names (RestoreStore.links). */
  linked: string[];
}

const GIT_REPO_TOOLS = new Set(["git_discard", "git_clean", "git_stash_drop", "git_stash_push", "git_move_head", "git_commit", "git_switch", "git_stage", "git_fetch"]);
/** `git init`, `git init -q`, `git init -b main <dir>`: a plain new repository (no template, bare,
 * separate git dir or shared option). */
const FRESH_INIT = /^git\s+init(?:\s+(?:-q|--quiet|-b\s+\w[\w./-]*|--initial-branch[= ]\w[\w./-]*|[\w./][\w./-]*))*\s*$/;
/** What a git call may be, in a repository the same line creates, to change only its new .git. */
const FRESH_REPO_TOOLS = new Set(["git_stage", "git_commit", "git_ref_add"]);
const PATH_ARGS: Record<string, string> = { fs_remove: "path", fs_write: "path", fs_mkdir: "path", fs_move: "destination" };

class ShellGuardImpl implements ShellGuard {
  readonly workspace: Workspace;
  private readonly core: Guard;
  private readonly entities = new Map<string, Record<string, unknown>>();
  private readonly journal: Journal;
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private readonly home = homedir();

  constructor(
    readonly cwd: string,
    private readonly store: RestoreStore,
    readonly session: string,
    readonly policy: ShellPolicy,
    private readonly catalogue: Catalogue,
    blob: Uint8Array,
    log: AuditSink | undefined,
    private readonly catalogueDigest: string,
  ) {
    this.workspace = new Workspace(cwd);
    const view: StateView = {
      hasEntity: (e, id) => this.entities.has(`${e}\u0000${id}`),
      slot: (e, id, s) => this.entities.get(`${e}\u0000${id}`)?.[s],
    };
    this.core = createGuard({ ontology: blob, state: view, policy: "veto", scope: "turn", config: log === undefined ? {} : { log } });
    this.journal = new Journal(`${store.dir}/sessions/${session}.jsonl`);
  }

  /** The typed calls of a tool call, or a problem. */
  /** The command line the last check dispatched (for a read-only approval's evidence). */
  private line: { command: string; cwd: string } | null = null;

  private toTyped(call: unknown): { calls: TypedCall[]; problems: Problem[]; commands: number } {
    const c = call as { tool?: unknown; args?: unknown; name?: unknown; arguments?: unknown } | null;
    const tool = c !== null && typeof c === "object" ? (c.tool ?? c.name) : undefined;
    const args = c !== null && typeof c === "object" ? (c.args ?? c.arguments) : undefined;
    const bad = (detail: string) => ({ calls: [], problems: [{ reason: "malformed_call" as never, detail, source: "" }], commands: 0 });
    if (typeof tool !== "string" || args === null || typeof args !== "object" || Array.isArray(args)) return bad("a tool call is { tool, args } with args an object");
    const a = args as Record<string, unknown>;
    const path = (p: unknown): string | null => (typeof p === "string" && p !== "" && !p.includes("\u0000") ? (isAbsolute(p) ? resolve(p) : resolve(this.cwd, p)) : null);
    switch (tool) {
      case "shell": {
        if (typeof a.command !== "string") return bad("shell: `command` is not a string");
        let dir = this.cwd;
        if (a.cwd !== undefined) {
          const d = path(a.cwd);
          if (d === null) return bad("shell: `cwd` is not a path");
          try {
            if (!statSync(d).isDirectory()) return bad(`shell: cwd ${d} is not a directory`);
          } catch {
            return bad(`shell: cwd ${d} does not exist`);
          }
          dir = d;
        }
        this.line = { command: a.command, cwd: dir };
        return dispatchCommand(a.command, dir, this.catalogue, this.home);
      }
      case "write_file":
      case "edit_file": {
        const p = path(a.path);
        if (p === null) return bad(`${tool}: \`path\` is not a path`);
        if (tool === "write_file" && typeof a.content !== "string") return bad("write_file: `content` is not a string");
        if (tool === "edit_file" && (typeof a.old !== "string" || typeof a.new !== "string")) return bad("edit_file: `old` and `new` must be strings");
        // The tool writes through a symbolic link (as a shell redirection does: dispatch.ts followLinks).
        const target = followLinks(p);
        const problems: Problem[] = gitCode(target) ? [{ reason: "unknown_effect", detail: gitCodeDetail(target), source: `${tool} ${target}` }] : [];
        return { calls: [{ name: "fs_write", arguments: { path: target }, source: `${tool} ${target}` }], problems, commands: 1 };
      }
      case "apply_patch": {
        if (typeof a.patch !== "string") return bad("apply_patch: `patch` is not a string");
        return patchCalls(a.patch, (x) => path(x));
      }
      default:
        return { calls: [], problems: [{ reason: "unknown_command", detail: `unknown tool \`${tool}\``, source: tool }], commands: 0 };
    }
  }

  /** Fills Layer B for the calls. Throws WorkspaceReadError when a read fails. */
  private kindsOf(paths: string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of paths) out[p] = String(this.entities.get(`ws_path\u0000${p}`)?.kind ?? "unknown");
    return out;
  }

  /** `ungrounded`: a git call of the line found no repository (its entity is missing). */
  private readState(calls: TypedCall[]): { repo: string | null; paths: string[]; ungrounded: boolean } {
    this.entities.clear();
    this.entities.set("environment\u0000env", { name: "env" });
    const paths: string[] = [];
    for (const c of calls) {
      const arg = PATH_ARGS[c.name];
      if (arg !== undefined) paths.push(String(c.arguments[arg]));
      if (c.name === "fs_move") paths.push(String(c.arguments.source));
    }
    const facts = this.workspace.paths(paths);
    for (const [p, f] of facts) {
      const slots: Record<string, unknown> = { kind: f.kind, git: f.git, inside: f.inside };
      this.entities.set(`ws_path\u0000${p}`, slots);
    }
    let repo: string | null = null;
    let ungrounded = false;
    for (const c of calls) {
      if (!c.name.startsWith("git_")) continue;
      const dir = String(c.arguments.dir);
      const r = this.workspace.repoOf(dir);
      if (r === null) {
        ungrounded = true; // no git_repo entity: the call is not grounded (missing_entity)
        continue;
      }
      if (repo !== null && repo !== r) throw new WorkspaceReadError("one command acts on two repositories");
      repo = r;
      if (GIT_REPO_TOOLS.has(c.name)) {
        const f = this.workspace.repo(r);
        const slots: Record<string, unknown> = { branch: f.branch, dirty: f.dirty, untracked: f.untracked, ignored: f.ignored, stashes: f.stashes };
        if (f.head !== null) slots.head = f.head;
        this.entities.set("git_repo\u0000repo", slots);
      } else {
        const ref = String(c.arguments.ref);
        const target = this.workspace.ref(r, ref);
        this.entities.set(`git_ref\u0000${ref}`, target === null ? { exists: false } : { exists: true, target });
      }
    }
    return { repo, paths: [...new Set(paths)], ungrounded };
  }

  private coreCheck(calls: TypedCall[]): Decision {
    const typed = calls.map((c) => ({ name: c.name, arguments: c.arguments }));
    const last = typed[typed.length - 1]!;
    const d = this.core.check(last, { turnCalls: typed.slice(0, -1) });
    if (d.execution !== null) this.core.release(d.execution);
    return d;
  }

  check(call: unknown): ShellDecision {
    this.seq++;
    const seq = this.seq;
    let typed: { calls: TypedCall[]; problems: Problem[] };
    this.line = null;
    try {
      typed = this.toTyped(call);
    } catch (e) {
      typed = { calls: [], problems: [{ reason: "unparsed", detail: `internal error: ${(e as Error).message}`, source: "" }] };
    }
    const base = { format: SHELL_DECISION_FORMAT, seq, calls: typed.calls, problems: typed.problems, session: this.session } as const;
    if (typed.problems.length > 0) {
      const p = typed.problems[0]!;
      const action: ShellAction = this.policy === "veto" || (p.reason as string) === "malformed_call" ? "deny" : "ask";
      return this.finish({ ...base, approved: false, action, reason: p.reason, message: `not judged (${p.reason}): ${p.detail}`, tier: null, restorePoint: null, execution: null, inverse: [], core: null }, null);
    }
    if (typed.calls.length === 0) {
      // (set by toTyped above: TypeScript does not see it through the call)
      const line = this.line as { command: string; cwd: string } | null;
      const readOnly = line === null ? null : { ...line, catalogue: this.catalogueDigest };
      return this.finish({ ...base, approved: true, action: "allow", reason: "read_only", message: "read-only: nothing to undo", tier: "T0", restorePoint: null, execution: null, inverse: [], core: null, readOnly }, null);
    }
    // git add/commit/branch in a repository an earlier `git init` of the same line creates: they act
    // only inside the new .git, which the init's undo (remove the .git it created) takes away whole.
    let judged = typed.calls;
    try {
      const inFresh = this.inFreshRepo(typed.calls);
      if (inFresh.size > 0) judged = typed.calls.filter((_, i) => !inFresh.has(i));
    } catch {
      // unreadable: judged as they are (a git call with no repository is not grounded)
    }
    let state: { repo: string | null; paths: string[]; ungrounded: boolean };
    let d: Decision;
    try {
      state = this.readState(judged);
      d = this.coreCheck(judged);
    } catch (e) {
      const reason = e instanceof WorkspaceReadError ? "unknown_state" : "internal_error";
      // Creation-only (mkdir): nothing existing is lost in any state, so the verdict needs no state;
      // which directories it creates (its undo) does, so no undo is journaled (src/shell/creation.ts).
      if (reason === "unknown_state" && creationOnly(typed.calls)) {
        // The core is not asked: the evidence (line, directory, catalogue) lets `polar audit verify`
        // dispatch the line again and see that it still only creates (ReadOnlyChecker.creationOnly).
        const line = this.line as { command: string; cwd: string } | null;
        const readOnly = line === null ? null : { ...line, catalogue: this.catalogueDigest };
        return this.finish({ ...base, approved: true, action: "allow", reason: "creation_only", message: `approved: it only creates directories, and in any state loses nothing (mkdir fails on an existing path); the state could not be read (${(e as Error).message}), so which directories it creates is not known and no undo is journaled`, tier: "T1", restorePoint: null, execution: null, inverse: [], core: null, readOnly }, null);
      }
      const message = reason === "unknown_state" ? `the workspace could not be read: ${(e as Error).message}` : `not judged: internal error: ${(e as Error).message}`;
      return this.finish({ ...base, approved: false, action: this.policy === "veto" ? "deny" : "ask", reason, message, tier: null, restorePoint: null, execution: null, inverse: [], core: null }, null);
    }
    let point: RestorePoint | null = null;
    // (the repository entity exists only when a repository-wide git call found its repository)
    const overlap = overlapping(judged, this.entities.has("git_repo\u0000repo"));
    if (overlap && this.policy !== "snapshot" && this.policy !== "advisory") {
      return this.finish({ ...base, approved: false, action: this.policy === "veto" ? "deny" : "ask", reason: "overlap", message: "not approved: calls of this line act on the same paths, so their undo depends on their order; the snapshot policy keeps them in a restore point", tier: tierOf(d), restorePoint: null, execution: null, inverse: [], core: d }, null);
    }
    if (this.policy === "snapshot" && (overlap || (!d.admissible && this.restorable(d)))) {
      try {
        point = this.takePoint(judged, state, overlap);
      } catch (e) {
        const reason = e instanceof RestoreError ? e.code : e instanceof WorkspaceReadError ? "unknown_state" : "restore_failed";
        return this.finish({ ...base, approved: false, action: "ask", reason, message: `no restore point, so no approval: ${(e as Error).message}`, tier: tierOf(d), restorePoint: null, execution: null, inverse: [], core: d }, null);
      }
      try {
        d = this.coreCheck(judged);
      } catch (e) {
        // The point is taken: the second verdict failed (its audit record could not be written), as the first can.
        return this.finish({ ...base, approved: false, action: "ask", reason: "internal_error", message: `not judged: internal error: ${(e as Error).message}`, tier: null, restorePoint: null, execution: null, inverse: [], core: null }, null);
      }
    }
    const inverse = inverseOf(d);
    if (d.admissible) {
      const execution = `${this.session}:${seq}`;
      const decision: Omit<ShellDecision, "route"> = {
        ...base, approved: true, action: "allow", reason: point !== null ? "restore_point" : "reversible",
        message: point !== null ? `approved: restore point ${point.id} keeps what it would change; undo: ${inverse.map((s) => describeStep(s, this.cwd)).join("; ")}` : `approved: undo is ${inverse.map((s) => describeStep(s, this.cwd)).join("; ")}`,
        tier: tierOf(d), restorePoint: point === null ? null : this.store.summary(point), execution, inverse, core: d,
      };
      return this.finish(decision, { call, calls: typed.calls, decision, repo: state.repo, paths: state.paths, kinds: this.kindsOf(state.paths), linked: point === null ? [] : this.store.links(point) });
    }
    const reason = coreReason(d);
    // Advisory passes what was judged; a git call in no repository is not grounded wherever it stands
    // in the line (the core names the last call's missing entity missing_entity, an earlier one's
    // no_candidate): asked, as an unknown state is under every policy.
    const advisory = this.policy === "advisory" && d.reason !== "missing_entity" && d.reason !== "internal_error" && !state.ungrounded;
    const action: ShellAction = advisory ? "allow" : this.policy === "veto" ? "deny" : "ask";
    const execution = advisory ? `${this.session}:${seq}` : null;
    const decision: Omit<ShellDecision, "route"> = {
      ...base, approved: advisory, action, reason, message: refusalText(reason, d), tier: tierOf(d), restorePoint: null, execution, inverse, core: d,
    };
    return this.finish(decision, advisory ? { call, calls: typed.calls, decision, repo: state.repo, paths: state.paths, kinds: this.kindsOf(state.paths), linked: [] } : null);
  }

  /** Indexes of the line's git calls that act in a repository an earlier `git init` of the line
   * creates (its `.git` absent now, no repository above it, nothing else in between): git_stage, git_commit and git_ref_add
   * there change only that new .git. Any other git call in it, an init with other options than -q and
   * -b, or a nested repository in between: none (the calls are judged as they are). Throws
   * WorkspaceReadError when a path cannot be read. */
  private inFreshRepo(calls: readonly TypedCall[]): Set<number> {
    const out = new Set<number>();
    const fresh = new Set<string>();
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]!;
      const p = c.arguments.path;
      // Not under another repository either: were the init to fail (`git init; git add .`), its git
      // calls would act on that one.
      if (c.name === "fs_mkdir" && typeof p === "string" && p.endsWith("/.git") && FRESH_INIT.test(c.source) && kindOf(p) === "absent" && this.workspace.repoOf(dirname(dirname(p))) === null) {
        fresh.add(dirname(p));
        continue;
      }
      if (!c.name.startsWith("git_") || fresh.size === 0) continue;
      const dir = c.arguments.dir;
      if (typeof dir !== "string") return new Set();
      let root: string | null = null;
      for (let d = dir; ; d = dirname(d)) {
        if (fresh.has(d)) {
          root = d;
          break;
        }
        if (kindOf(`${d === "/" ? "" : d}/.git`) !== "absent" || d === "/") break;
      }
      if (root === null) continue;
      if (!FRESH_REPO_TOOLS.has(c.name)) return new Set();
      out.add(i);
    }
    return out;
  }

  /** The only obstacles are data a restore point can keep (T4 uncommitted_work), or an inverse whose
   * condition failed (bound_violated: every workspace and repository-wide tool has a restore-point
   * inverse). Not no_candidate: a call with no candidate is one whose repository entity is missing
   * (every other entity is always read), and a point only marks entities that exist. (The core names
   * a verdict irreversibly_consumes only when its bottleneck step is T4: never with no failing step.) */
  private restorable(d: Decision): boolean {
    const v = d.verdict;
    if (v === null) return false; // not judged: missing_entity, internal_error … (the core gives no verdict)
    const failing = v.steps.filter((s) => s.tier === "T4" || s.tier === "T5");
    if (failing.length === 0) return v.reason === "bound_violated";
    return failing.every((s) => s.tier === "T4" && s.lossClass === "uncommitted_work");
  }

  private takePoint(calls: TypedCall[], state: { repo: string | null; paths: string[] }, all: boolean): RestorePoint {
    const keep: string[] = [];
    let repo: string | null = null;
    // Writes by git of tracked paths (checkout/restore with paths): the tracked paths under them.
    const tracked: { root: string; trees: string[]; under: string[] }[] = [];
    const marked: string[] = [];
    for (const c of calls) {
      const arg = c.name === "fs_move" ? "destination" : c.name === "fs_remove" || c.name === "fs_write" ? "path" : undefined;
      if (c.tracked !== undefined) {
        const p = String(c.arguments.path);
        const slots = this.entities.get(`ws_path\u0000${p}`);
        const root = this.workspace.repoOf(slots?.kind === "directory" ? p : dirname(p));
        if (root !== null) {
          const t = tracked.find((x) => x.root === root) ?? (tracked.push({ root, trees: [], under: [] }), tracked[tracked.length - 1]!);
          t.trees.push(...c.tracked.trees);
          t.under.push(p);
          marked.push(p);
          continue;
        }
      }
      if (all) {
        // Every touched path, absent ones too (they are removed again on restore).
        const a = PATH_ARGS[c.name];
        if (a !== undefined) keep.push(String(c.arguments[a]));
        if (c.name === "fs_move") keep.push(String(c.arguments.source));
      } else if (arg !== undefined) {
        const p = String(c.arguments[arg]);
        const slots = this.entities.get(`ws_path\u0000${p}`);
        if (slots !== undefined && slots.kind !== "absent") keep.push(p);
      }
      if (GIT_REPO_TOOLS.has(c.name) && this.entities.has("git_repo\u0000repo")) repo = state.repo;
    }
    // The repository's work tree as far as its git calls can touch it (repoScope); with the whole tree,
    // the paths inside it are in it already.
    let scope: RepoScope = repo === null ? { kind: "all" } : repoScope(calls);
    let under: TrackedUnder | undefined;
    for (const t of tracked) {
      if (t.root === repo && scope.kind !== "untracked") {
        if (scope.kind === "tracked") scope = { kind: "tracked", trees: [...scope.trees, ...t.trees] };
      } else if (under === undefined) under = t;
      else keep.push(...t.under); // a second repository: its paths kept whole
    }
    const point = this.store.take(repo === null || scope.kind !== "all" ? keep : keep.filter((p) => !p.startsWith(`${repo}/`)), repo, scope, under);
    // (with `all`, keep and marked hold every touched path: each ws_path entity readState made)
    for (const p of [...keep, ...marked]) {
      const slots = this.entities.get(`ws_path\u0000${p}`);
      if (slots !== undefined) slots.restore_point = point.id;
    }
    const r = this.entities.get("git_repo\u0000repo");
    if (r !== undefined) r.restore_point = point.id; // (it exists only with a repository-wide call there: repo is set)
    return point;
  }

  private finish(partial: Omit<ShellDecision, "route">, pending: Pending | null): ShellDecision {
    // (every decision is approved exactly when its action is allow; one is pending only with its execution)
    const route: ShellDecision["route"] = partial.action === "ask" ? "ConsentEscalated" : partial.action === "deny" ? "Vetoed" : !partial.core?.admissible && partial.reason !== "read_only" && partial.reason !== "creation_only" ? "AdvisoryPassthrough" : "Approved";
    const d: ShellDecision = { ...partial, route };
    if (pending !== null) this.pending.set(d.execution!, { ...pending, decision: d });
    return deepFreeze(d);
  }

  observe(call: unknown, _result?: unknown, options?: { execution?: string }): { journaled: string | null } {
    this.workspace.invalidate();
    let key = options?.execution;
    if (key === undefined) {
      const want = JSON.stringify(call);
      for (const [k, p] of this.pending) if (JSON.stringify(p.call) === want) key = k;
    }
    if (key === undefined) return { journaled: null };
    const p = this.pending.get(key);
    if (p === undefined) return { journaled: null };
    this.pending.delete(key);
    const after = stateFingerprint(p.paths, p.repo, p.linked);
    const id = `u-${p.decision.seq}-${randomBytes(3).toString("hex")}`;
    this.journal.add({
      id, execution: key, call: JSON.parse(JSON.stringify(call ?? null)), calls: p.calls, tier: p.decision.tier ?? "T5",
      phi: p.decision.core?.verdict?.phi ?? 0, inverse: p.decision.inverse, restorePoint: p.decision.restorePoint,
      paths: p.paths, kinds: p.kinds, repo: p.repo, after, cwd: this.cwd, ...(p.linked.length > 0 ? { linked: p.linked } : {}),
    });
    return { journaled: id };
  }

  list(): UndoEntry[] {
    return this.journal.list(this.cwd);
  }

  undo(sel?: UndoSelector, options?: { dryRun?: boolean }): UndoResult {
    return undoEntry(this.journal, this.store, this.cwd, sel, options?.dryRun === true, () => this.workspace.invalidate());
  }
}

/** What the line's repository-wide git calls can touch in the work tree (git's documentation; see
 * RepoScope): only discards (reset --hard, checkout -f, switch -f, with the switches they make) → the
 * tracked paths of the index, HEAD and their targets; only cleans → the untracked paths (-x: and the
 * ignored ones); anything else (stash, merge, commit …) → the whole tree. */
export function repoScope(calls: readonly TypedCall[]): RepoScope {
  const repoCalls = calls.filter((c) => GIT_REPO_TOOLS.has(c.name));
  if (repoCalls.length > 0 && repoCalls.every((c) => c.name === "git_clean")) {
    return { kind: "untracked", ignored: repoCalls.some((c) => c.arguments.ignored === true) };
  }
  if (repoCalls.some((c) => c.name === "git_discard") && repoCalls.every((c) => c.name === "git_discard" || c.name === "git_switch")) {
    const trees: string[] = [];
    for (const c of repoCalls) {
      const t = c.arguments.target;
      if (typeof t !== "string" || t === "" || t.startsWith("-")) return { kind: "all" };
      trees.push(t);
    }
    return { kind: "tracked", trees };
  }
  return { kind: "all" };
}

/** Do two calls of the line touch the same path (or one under the other)? Chains of mkdir are not an
 * overlap (their inverses run in reverse order); a repository-wide git call overlaps every other call. */
function overlapping(calls: TypedCall[], hasRepo: boolean): boolean {
  const repoCalls = calls.filter((c) => GIT_REPO_TOOLS.has(c.name)).length;
  if (hasRepo && (repoCalls > 1 || (repoCalls === 1 && calls.some((c) => !GIT_REPO_TOOLS.has(c.name) && !c.name.startsWith("git_ref"))))) return true;
  // Each path where it is: two spellings of one place through a link to a folder (alink/x, zdir/x) overlap.
  const touched: { i: number; p: string; mk: boolean }[] = [];
  calls.forEach((c, i) => {
    const a = PATH_ARGS[c.name];
    if (a !== undefined) touched.push({ i, p: physicalPath(String(c.arguments[a])), mk: c.name === "fs_mkdir" });
    if (c.name === "fs_move") touched.push({ i, p: physicalPath(String(c.arguments.source)), mk: false });
  });
  for (const x of touched) {
    for (const y of touched) {
      if (x.i >= y.i || (x.mk && y.mk)) continue;
      if (x.p === y.p || y.p.startsWith(`${x.p}/`) || x.p.startsWith(`${y.p}/`)) return true;
    }
  }
  return false;
}

function refusalText(reason: string, d: Decision): string {
  const b = d.verdict?.bottleneck;
  const at = b?.annotation ? ` (${b.annotation})` : "";
  switch (reason) {
    case "irreversible":
      return `not approved: it would destroy data nothing can give back${at}`;
    case "external_effect":
      return `not approved: it acts outside the workspace, which no undo reaches${at}`;
    case "unknown_state":
      return "not approved: the workspace state it needs is not known (not a git repository?)";
    default:
      return `not approved: ${reason}${at}`;
  }
}

/** Paths a patch touches: `*** Add/Update/Delete File:` and `*** Move to:` (apply_patch) or unified diff
 * headers. A file header is read as both agents that send it read it, and every name either reads is
 * judged: codex (codex-rs/apply-patch/src/parser.rs) splits lines like `str::lines` (a "\r" before the
 * "\n" dropped), trims a hunk's first line and takes the rest after `*** Add File: ` as it is (a second
 * blank is part of the name); opencode (packages/opencode/src/patch/index.ts) takes a line that starts
 * with `*** Add File:` (no blank needed) and trims the rest. A name may hold any character but "\n". */
function patchCalls(patch: string, path: (p: string) => string | null): { calls: TypedCall[]; problems: Problem[]; commands: number } {
  const calls: TypedCall[] = [];
  const problems: Problem[] = [];
  // The blanks Rust's `str::trim` removes (Unicode White_Space): codex trims a hunk's first line before
  // it reads the marker (parse_one_hunk).
  const blanks = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
  const add = (name: string, p: string): void => {
    const abs = path(p);
    if (abs === null) {
      problems.push({ reason: "unresolved_argument", detail: `apply_patch: ${p} is not a path`, source: "apply_patch" });
      return;
    }
    // A write goes through a symbolic link to its target; an update with a move removes the link
    // itself, so a link is judged as written too. A deletion removes the link, not its target.
    const target = name === "fs_write" ? followLinks(abs) : abs;
    // A file named twice (`rename to new` and `+++ b/new`) is one call.
    if (calls.some((c) => c.name === name && c.arguments.path === target)) return;
    if (name === "fs_write" && gitCode(target)) problems.push({ reason: "unknown_effect", detail: gitCodeDetail(target), source: `apply_patch ${p}` });
    calls.push({ name, arguments: { path: target }, source: `apply_patch ${p}` });
    if (target !== abs) calls.push({ name, arguments: { path: abs }, source: `apply_patch ${p}` });
  };
  let minus: string | null = null;
  for (const raw of patch.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const names = new Set<string>();
    let kind: string | null = null;
    let m: RegExpMatchArray | null;
    if ((m = line.replace(blanks, "").match(/^\*\*\* (Add|Update|Delete) File: (.+)$/s))) {
      kind = m[1]!;
      names.add(m[2]!);
    }
    if ((m = raw.match(/^\*\*\* (Add|Update|Delete) File:(.*)$/s)) && m[2]!.trim() !== "") {
      kind = m[1]!;
      names.add(m[2]!.trim());
    }
    if ((m = line.match(/^\*\*\* Move to: (.+)$/s))) {
      kind = "Move";
      names.add(m[1]!);
    }
    if ((m = raw.match(/^\*\*\* Move to:(.*)$/s)) && m[1]!.trim() !== "") {
      kind = "Move";
      names.add(m[1]!.trim());
    }
    if (kind !== null) {
      for (const n of names) add(kind === "Delete" ? "fs_remove" : "fs_write", n);
    } else if ((m = line.match(/^--- (?:a\/)?(.+?)(\t.*)?$/s))) minus = m[1]!.trim();
    else if ((m = line.match(/^\+\+\+ (?:b\/)?(.+?)(\t.*)?$/s))) {
      const plus = m[1]!.trim();
      if (plus === "/dev/null") {
        if (minus !== null && minus !== "/dev/null") add("fs_remove", minus);
      } else {
        add("fs_write", plus);
        // `--- a/old` `+++ b/new`: git apply renames old (it is gone), GNU patch changes old in place.
        if (minus !== null && minus !== "/dev/null" && minus !== plus) add("fs_write", minus);
      }
      minus = null;
    } else if ((m = line.match(/^(?:rename from|rename to|copy to) (.+)$/s))) add("fs_write", m[1]!);
  }
  if (calls.length === 0 && problems.length === 0) problems.push({ reason: "unparsed", detail: "apply_patch: no file header in the patch", source: "apply_patch" });
  return { calls, problems, commands: 1 };
}

function deepFreeze<T>(x: T): T {
  // (null, undefined and every primitive count as frozen)
  if (!Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x as object)) deepFreeze(v);
  }
  return x;
}
