// Undo: the journal of approved executions (one JSONL file per session in the store) and the runner of
// their inverse sequences π. Before an inverse runs it is judged on the current state: the paths and
// the repository the call touched must be exactly as the call left them (their fingerprint at
// observe time); an undo that would destroy newer work is refused (`changed_since`).
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, lstatSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { TypedCall } from "./dispatch.js";
import { fingerprint, RestoreError, type RestoreStore, type RestoreSummary } from "./restore.js";
import { assumedUnchanged, git, gitPath, physicalPath } from "./workspace.js";

export interface InverseStep {
  tool: string;
  arguments: Record<string, unknown>;
  forwardTool: string;
  tier: string;
  annotation: string;
}

export interface JournalEntry {
  id: string;
  execution: string;
  /** The tool call as the agent made it. */
  call: unknown;
  calls: TypedCall[];
  tier: string;
  phi: number;
  /** π: the inverse steps, most recent call first. */
  inverse: InverseStep[];
  restorePoint: RestoreSummary | null;
  paths: string[];
  /** What each touched path was before the call (file, directory, symlink, other, absent). */
  kinds: Record<string, string>;
  repo: string | null;
  /** The touched paths and repository as the call left them. */
  after: string;
  /** The guard's working directory (absent in journals written before it was recorded). */
  cwd?: string;
  /** The store's names of the restore point's files that have other names (hard links): in the
   * fingerprint (a write through another name since the call is newer work the undo would write over),
   * removed after the undo (the file then has exactly the names it had). */
  linked?: string[];
}

export interface UndoEntry extends JournalEntry {
  /** 1 = the most recent approved execution. */
  index: number;
  undone: boolean;
  /** What an undo would do, step by step. */
  preview: string[];
}

export type UndoSelector = undefined | number | { id: string };

export interface UndoResult {
  ok: boolean;
  id: string | null;
  /** `undone`, `dry_run`, `nothing_to_undo`, `not_found`, `already_undone`, `changed_since`,
   * `inverse_failed`, `unknown_state`. */
  reason: string;
  message: string;
  steps: string[];
}

export function stateFingerprint(paths: readonly string[], repo: string | null, linked: readonly string[] = []): string {
  const h = createHash("sha256");
  h.update(fingerprint(paths));
  // (a new digest only where there are such files: journals written before them fingerprint the same)
  if (linked.length > 0) h.update(fingerprint(linked));
  if (repo !== null) {
    h.update(readFileSync(gitPath(repo, "HEAD")));
    // (Not the index file's bytes: every index change an undo can write over shows in status — each
    // record holds the index's mode and object id — or in the assume-unchanged list below, while the
    // bytes also change when git refreshes a touched file's stat data: an agent's `git status` after
    // a `touch` made every undo of the repository `changed_since`.)
    h.update(git(repo, ["for-each-ref", "--format=%(refname) %(objectname)"]));
    const stashLog = gitPath(repo, "logs/refs/stash");
    h.update(existsSync(stashLog) ? readFileSync(stashLog) : "-");
    const status = git(repo, ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames"]);
    h.update(status);
    // The content of what git does not hold (modified, unmerged, untracked, ignored paths): their
    // status line stays the same when they are edited again. Records of git-status(1)'s porcelain v2
    // (no renames: a renamed path is a deleted one and an added one): `1` has its path after 8 fields,
    // `u` after 10.
    const listed: string[] = [];
    for (const rec of status.split("\0")) {
      if (rec[0] === "?" || rec[0] === "!") listed.push(`${repo}/${rec.slice(2)}`);
      else if (rec[0] === "1") listed.push(`${repo}/${rec.split(" ").slice(8).join(" ")}`);
      else if (rec[0] === "u") listed.push(`${repo}/${rec.split(" ").slice(10).join(" ")}`);
    }
    // Paths git was told to assume unchanged (`git ls-files -v`: a lowercase tag): git status never
    // shows their edits and reset --hard or a checkout writes over them, so their content counts too.
    // (A path git skips in the work tree, `S`, is left alone by both.)
    for (const p of assumedUnchanged(git(repo, ["ls-files", "-v", "-z"]))) listed.push(`${repo}/${p}`);
    h.update(fingerprint(listed));
  }
  return h.digest("hex");
}

export function describeStep(s: InverseStep, cwd: string): string {
  const a = s.arguments;
  const rel = (p: unknown): string => (typeof p === "string" ? relative(cwd, p) || "." : String(p));
  switch (s.tool) {
    case "nothing":
      return `nothing to undo (${s.forwardTool} changed nothing)`;
    case "git_restore_path":
      return `git restore --source=HEAD --staged --worktree -- ${rel(a.path)}`;
    case "restore_point_apply":
      return `put back what restore point ${String(a.point)} holds`;
    case "fs_remove":
      return `remove ${rel(a.path)} (created by the call)`;
    case "fs_move_back":
      return `mv ${rel(a.destination)} ${rel(a.source)}`;
    case "fs_move_back_git":
      return `mv ${rel(a.destination)} ${rel(a.source)}; git restore --source=HEAD -- ${rel(a.destination)}`;
    case "fs_move_back_restore":
      return `mv ${rel(a.destination)} ${rel(a.source)}; put back ${rel(a.destination)} from restore point ${String(a.point)}`;
    case "git_reset_to":
      return `git reset --hard ${String(a.target)}`;
    case "git_uncommit":
      return `git reset --soft ${String(a.target)}`;
    case "git_switch_to":
      return a.branch ? `git switch ${String(a.branch)}` : `git switch --detach ${String(a.target)}`;
    case "git_ref_create":
      return `git update-ref ${String(a.ref)} ${String(a.target)}`;
    case "git_ref_delete":
      return `git update-ref -d ${String(a.ref)}`;
    case "git_unstage":
      return `git reset -q -- ${(a.paths as unknown[]).map(String).join(" ")}`;
    default:
      return `${s.tool} ${JSON.stringify(a)}`;
  }
}

export class Journal {
  readonly file: string;
  private entries: JournalEntry[] = [];
  private undone = new Set<string>();

  constructor(file: string) {
    this.file = file;
    if (existsSync(file)) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (line === "") continue;
        const rec = JSON.parse(line) as { entry?: JournalEntry; undone?: string };
        if (rec.entry !== undefined) this.entries.push(rec.entry);
        if (rec.undone !== undefined) this.undone.add(rec.undone);
      }
    }
  }

  add(e: JournalEntry): void {
    appendFileSync(this.file, `${JSON.stringify({ entry: e })}\n`);
    this.entries.push(e);
  }

  markUndone(id: string): void {
    appendFileSync(this.file, `${JSON.stringify({ undone: id })}\n`);
    this.undone.add(id);
  }

  list(cwd: string): UndoEntry[] {
    const n = this.entries.length;
    return this.entries.map((e, i) => ({ ...e, index: n - i, undone: this.undone.has(e.id), preview: e.inverse.map((s) => describeStep(s, cwd)) }));
  }

  select(sel: UndoSelector): JournalEntry | null {
    if (sel === undefined) {
      for (let i = this.entries.length - 1; i >= 0; i--) if (!this.undone.has(this.entries[i]!.id)) return this.entries[i]!;
      return null;
    }
    // An index outside 1..n (0, negative, fractional, NaN) names no element of the list: null.
    if (typeof sel === "number") return this.entries[this.entries.length - sel] ?? null;
    return this.entries.find((e) => e.id === sel.id) ?? null;
  }

  isUndone(id: string): boolean {
    return this.undone.has(id);
  }
}

/** The most recent session journal in a store (for `polar undo` without --session). */
/** The workspace a directory belongs to: its git work tree (the nearest folder up with a `.git`), else
 * the directory itself. */
export function workspaceOf(dir: string): string {
  for (let d = dir; ; ) {
    if (existsSync(`${d}/.git`)) return d;
    const up = dirname(d);
    if (up === d) return dir;
    d = up;
  }
}

/** Does a journal entry act in `workspace` (its cwd, repository or a touched path inside it)? */
export function entryIn(e: JournalEntry, workspace: string): boolean {
  const inside = (p: unknown): boolean => typeof p === "string" && (p === workspace || p.startsWith(workspace.endsWith("/") ? workspace : `${workspace}/`));
  return inside(e.cwd) || inside(e.repo) || e.paths.some(inside);
}

/** The most recently written session of the store; with `workspace`, the most recent one that has an
 * execution in that workspace (another project's session is never picked by default). */
export function latestSession(store: string, workspace?: string): string | null {
  const dir = `${store}/sessions`;
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => ({ f, t: statSync(`${dir}/${f}`).mtimeMs }))
    .sort((a, b) => b.t - a.t || (a.f < b.f ? -1 : 1));
  for (const { f } of files) {
    if (workspace === undefined) return f.slice(0, -6);
    const j = new Journal(`${dir}/${f}`);
    if (j.list(workspace).some((e) => entryIn(e, workspace))) return f.slice(0, -6);
  }
  return null;
}

/** Runs one inverse step. Throws on failure. */
export function runStep(s: InverseStep, store: RestoreStore, repo: string | null, kinds: Record<string, string>): void {
  const a = s.arguments;
  const str = (k: string): string => {
    const v = a[k];
    if (typeof v !== "string" || v === "") throw new Error(`inverse ${s.tool}: argument ${k} is missing`);
    return v;
  };
  const needRepo = (): string => {
    if (repo === null) throw new Error(`inverse ${s.tool} needs the repository`);
    return repo;
  };
  const gitRestore = (p: string): void => {
    const r = repoFor(p);
    rmSync(p, { recursive: true, force: true });
    git(r, ["checkout", "HEAD", "--", `:(literal)${relative(r, p)}`]);
  };
  switch (s.tool) {
    case "nothing":
      return;
    case "git_restore_path":
      gitRestore(str("path"));
      return;
    case "restore_point_apply":
      store.apply(store.load(str("point")));
      return;
    case "fs_remove": {
      // A path under a file (ENOTDIR) is as absent as a missing one: nothing to remove.
      try {
        rmSync(str("path"), { recursive: true, force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOTDIR") throw e;
      }
      return;
    }
    case "fs_move_back":
    case "fs_move_back_git":
    case "fs_move_back_restore": {
      const src = str("source");
      const dest = str("destination");
      // The source absent before the call, still there, or the destination not there: the move did
      // not happen.
      const point = s.tool === "fs_move_back_restore" ? store.load(str("point")) : null;
      // (a point keeps each path where it is: physicalPath)
      const at = physicalPath(src);
      const keptSource = point !== null && point.paths.some((k) => k.path === src || src.startsWith(`${k.path}/`) || k.path === at || at.startsWith(`${k.path}/`));
      const moved = !keptSource && kinds[src] !== "absent" && !lexists(src) && lexists(dest);
      if (moved) renameSync(dest, src);
      if (s.tool === "fs_move_back_git") gitRestore(dest);
      if (point !== null) store.apply(point);
      return;
    }
    case "git_reset_to":
      git(needRepo(), ["reset", "-q", "--hard", str("target")]);
      return;
    case "git_uncommit":
      git(needRepo(), ["reset", "-q", "--soft", str("target")]);
      return;
    case "git_switch_to": {
      const b = a.branch;
      if (typeof b === "string" && b !== "") git(needRepo(), ["checkout", "-q", b]);
      else git(needRepo(), ["checkout", "-q", "--detach", str("target")]);
      return;
    }
    case "git_ref_create":
      git(needRepo(), ["update-ref", str("ref"), str("target")]);
      return;
    case "git_ref_delete":
      git(needRepo(), ["update-ref", "-d", str("ref")]);
      return;
    case "git_unstage": {
      const ps = a.paths;
      if (!Array.isArray(ps)) throw new Error("git_unstage: paths is not a list");
      git(needRepo(), ["reset", "-q", "--", ...ps.map(String)]);
      return;
    }
    default:
      throw new RestoreError("restore_failed", `no runner for inverse tool ${s.tool}`);
  }
}

/** `git branch -m A B` (or `-M`) of the branch HEAD is on moves HEAD onto B as well; its undo deletes B
 * and recreates A at B's commit, so HEAD must follow back to A, or it is left on a branch that no longer
 * exists (every file then shows as a new one). The branch HEAD goes back on after the steps: null when no
 * step deletes the branch HEAD is on at that step (HEAD detached reads as `HEAD`, which no step deletes;
 * a restore point that holds the repository puts back HEAD and every ref as it kept them, so
 * `git checkout -b x` in a dirty work tree, undone by the point and then deleting x, leaves HEAD where
 * the point put it) or a switch step puts HEAD back itself (`git checkout -b x` is undone by switching
 * back, then deleting x); not ok when the undo puts no one branch back at the deleted branch's commit.
 * `pointHead` answers the HEAD a restore point keeps for `repo` (null: it holds none). Throws when the
 * repository or a point cannot be read. */
function headAfterUndo(inverse: readonly InverseStep[], repo: string | null, pointHead: (id: string) => string | null): { ok: true; ref: string | null } | { ok: false; why: string } {
  if (repo === null || inverse.some((s) => s.tool === "git_switch_to")) return { ok: true, ref: null };
  let head = git(repo, ["rev-parse", "--symbolic-full-name", "HEAD"]).trim();
  let deleted = false;
  for (const s of inverse) {
    if (s.tool === "restore_point_apply") {
      const kept = pointHead(String(s.arguments.point));
      if (kept !== null) {
        head = kept.startsWith("ref: ") ? kept.slice(5) : "HEAD";
        deleted = false;
      }
    } else if (s.tool === "git_ref_delete" && s.arguments.ref === head) deleted = true;
  }
  if (!deleted) return { ok: true, ref: null };
  const at = git(repo, ["rev-parse", "--verify", head]).trim();
  const back = inverse.filter((s) => s.tool === "git_ref_create" && String(s.arguments.ref).startsWith("refs/heads/") && s.arguments.target === at);
  if (back.length !== 1) return { ok: false, why: `it deletes ${head}, the branch HEAD is on, and puts ${back.length === 0 ? "no branch" : "more than one branch"} back at its commit` };
  return { ok: true, ref: String(back[0]!.arguments.ref) };
}

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function repoFor(p: string): string {
  for (let d = dirname(p); ; d = dirname(d)) {
    if (existsSync(`${d}/.git`)) return d;
    if (d === "/") throw new Error(`${p} is not in a git repository`);
  }
}

/** Undo one journal entry (also used by `polar undo`). */
export function undoEntry(journal: Journal, store: RestoreStore, cwd: string, sel: UndoSelector, dryRun: boolean, after?: () => void): UndoResult {
  const e = journal.select(sel);
  if (e === null) return { ok: false, id: null, reason: sel === undefined ? "nothing_to_undo" : "not_found", message: sel === undefined ? "nothing to undo" : "no such execution", steps: [] };
  const steps = e.inverse.map((s) => describeStep(s, cwd));
  if (journal.isUndone(e.id)) return { ok: false, id: e.id, reason: "already_undone", message: `${e.id} was undone already`, steps };
  if (e.inverse.length === 0 || e.inverse.some((s) => s.tool === null || s.tool === "")) {
    return { ok: false, id: e.id, reason: "no_inverse", message: `${e.id} has no inverse (it was recorded, not approved as undoable)`, steps };
  }
  let now: string;
  try {
    now = stateFingerprint(e.paths, e.repo, e.linked ?? []);
  } catch (err) {
    return { ok: false, id: e.id, reason: "unknown_state", message: `the current state could not be read: ${(err as Error).message}`, steps };
  }
  if (now !== e.after) {
    return { ok: false, id: e.id, reason: "changed_since", message: `refused: what ${e.id} touched has changed since it ran; undoing it would destroy newer work`, steps };
  }
  let head: ReturnType<typeof headAfterUndo>;
  try {
    head = headAfterUndo(e.inverse, e.repo, (id) => {
      const r = store.load(id).repo;
      return r !== null && r.root === e.repo ? r.head : null;
    });
  } catch (err) {
    return { ok: false, id: e.id, reason: "unknown_state", message: `the current state could not be read: ${(err as Error).message}`, steps };
  }
  if (!head.ok) return { ok: false, id: e.id, reason: "inverse_failed", message: `refused: the undo of ${e.id} would leave HEAD on a branch that no longer exists (${head.why}); nothing was changed`, steps };
  if (head.ref !== null) steps.push(`git symbolic-ref HEAD ${head.ref}`);
  if (dryRun) return { ok: true, id: e.id, reason: "dry_run", message: `would undo ${e.id}`, steps };
  try {
    for (const s of e.inverse) runStep(s, store, e.repo, e.kinds ?? {});
    if (head.ref !== null) git(e.repo!, ["symbolic-ref", "HEAD", head.ref]);
  } catch (err) {
    after?.();
    return { ok: false, id: e.id, reason: "inverse_failed", message: `the undo of ${e.id} failed: ${(err as Error).message}`, steps };
  }
  journal.markUndone(e.id);
  // The store's names of hard-linked files (their file has its names back; the point is spent).
  for (const l of e.linked ?? []) rmSync(l, { force: true });
  after?.();
  return { ok: true, id: e.id, reason: "undone", message: `undid ${e.id}`, steps };
}

