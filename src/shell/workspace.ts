// Layer B of a workspace, read for exactly the paths and the repository a call touches: the
// filesystem (lstat, realpath, a bounded walk of a directory the call removes or replaces) and git
// through its CLI (porcelain v2, pathspecs limited to the touched paths, bounded time). A read that
// fails or times out throws a WorkspaceReadError: what it was for is unknown, and the call is not
// approved. Git facts are cached per session until observe() (the guard clears the cache).
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, relative, resolve, sep } from "node:path";

export class WorkspaceReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceReadError";
  }
}

export const GIT_TIMEOUT_MS = 10_000;
/** Entries walked under one directory before its git state is "unknown" (not clean). */
export const MAX_WALK_ENTRIES = 20_000;

export type PathKind = "file" | "directory" | "symlink" | "other" | "absent";

export interface PathFacts {
  kind: PathKind;
  git: "clean" | "modified" | "staged" | "untracked" | "ignored" | "dirty" | "outside" | "absent";
  inside: boolean;
}

export interface RepoFacts {
  root: string;
  head: string | null;
  branch: string;
  upstream: string | null;
  /** Local commits not on the upstream (from local refs; null without an upstream). */
  ahead: number | null;
  dirty: boolean;
  untracked: boolean;
  ignored: boolean;
  stashes: number;
}

export function git(root: string, args: string[], input?: string): string {
  try {
    return execFileSync("git", ["-C", root, ...args], {
      encoding: "utf8",
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["pipe", "pipe", "pipe"],
      input,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
    });
  } catch (e) {
    const err = e as { stderr?: string; message?: string; code?: string };
    throw new WorkspaceReadError(`git ${args[0]} failed: ${(err.stderr || err.message || String(e)).trim().split("\n")[0]}`);
  }
}

export function kindOf(p: string): PathKind {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return "symlink";
    if (st.isDirectory()) return "directory";
    if (st.isFile()) return "file";
    return "other";
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return "absent";
    throw new WorkspaceReadError(`cannot read ${p}: ${(e as Error).message}`);
  }
}

/** A file of the repository at `root`'s git folder (`HEAD`, `index`, `logs/refs/stash`): in `.git`, or,
 * where `.git` is a file (a linked worktree, a submodule), where git says it is (a worktree's HEAD and
 * index are its own, in the shared folder's worktrees/NAME; its refs and stash are the shared ones).
 * `run` runs git (a Workspace passes its own, which counts the processes). */
export function gitPath(root: string, name: string, run: (root: string, args: string[]) => string = git): string {
  if (kindOf(`${root}/.git`) !== "file") return `${root}/.git/${name}`;
  return resolve(root, run(root, ["rev-parse", "--git-path", name]).trim());
}

/** The workspace's view: one per shell guard. */
export class Workspace {
  readonly root: string;
  private readonly repoRoots = new Map<string, string | null>();
  private readonly pathCache = new Map<string, PathFacts>();
  private readonly repoCache = new Map<string, RepoFacts>();
  private readonly umask: number;
  /** Entries walked under one directory before its git state is "dirty" (unknown, never clean). */
  readonly maxWalkEntries: number;
  /** How many git processes this workspace ran (for tests and the benchmark). */
  gitCalls = 0;

  constructor(root: string, options: { maxWalkEntries?: number } = {}) {
    this.root = root;
    this.umask = process.umask();
    this.maxWalkEntries = options.maxWalkEntries ?? MAX_WALK_ENTRIES;
  }

  /** Forget every git fact (after a call ran). */
  invalidate(): void {
    this.pathCache.clear();
    this.repoCache.clear();
    this.repoRoots.clear();
  }

  private run(root: string, args: string[]): string {
    this.gitCalls++;
    return git(root, args);
  }

  /** The repository holding a directory (walking up to the first `.git`), or null. */
  repoOf(dir: string): string | null {
    const seen: string[] = [];
    let found: string | null = null;
    for (let d = dir; ; d = dirname(d)) {
      const cached = this.repoRoots.get(d);
      if (cached !== undefined) {
        found = cached;
        break;
      }
      seen.push(d);
      if (kindOf(`${d === "/" ? "" : d}/.git`) !== "absent") {
        found = d;
        break;
      }
      if (d === "/") break;
    }
    for (const s of seen) this.repoRoots.set(s, found);
    return found;
  }

  private isInside(p: string): boolean {
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      // Absent: inside when the folder it would be made in is the workspace or inside it.
      try {
        real = realpathSync(dirname(p));
      } catch {
        return false;
      }
    }
    return real === this.root || real.startsWith(this.root + sep);
  }

  /** Facts for each path, reading git once per repository for all of them. */
  paths(list: readonly string[]): Map<string, PathFacts> {
    const out = new Map<string, PathFacts>();
    const byRepo = new Map<string, string[]>();
    for (const p of list) {
      if (out.has(p)) continue;
      const cached = this.pathCache.get(p);
      if (cached !== undefined) {
        out.set(p, cached);
        continue;
      }
      const proc = perProcess(p);
      if (proc !== null) throw new WorkspaceReadError(proc);
      const kind = kindOf(p);
      const inside = this.isInside(p);
      const repo = this.repoOf(kind === "directory" ? p : dirname(p));
      // The repository's own .git is never "clean": git does not track it. The root holds it: dirty.
      if (repo === null || p === repo || p === `${repo}/.git` || p.startsWith(`${repo}/.git/`)) {
        const facts: PathFacts = { kind, git: kind === "absent" ? "absent" : p === repo ? "dirty" : "outside", inside };
        out.set(p, facts);
        this.pathCache.set(p, facts);
        continue;
      }
      out.set(p, { kind, git: "absent", inside });
      const l = byRepo.get(repo);
      if (l === undefined) byRepo.set(repo, [p]);
      else l.push(p);
    }
    for (const [repo, ps] of byRepo) this.gitFacts(repo, ps, out);
    return out;
  }

  private gitFacts(repo: string, ps: string[], out: Map<string, PathFacts>): void {
    const rels = ps.map((p) => relative(repo, p));
    // What git says about the touched paths only (pathspecs; `:(literal)` so names are not patterns).
    const spec = rels.map((r) => `:(literal)${r}`);
    const status = this.run(repo, ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames", "--", ...spec]);
    // -v: a lowercase tag marks a path git was told to assume unchanged, `S` one it skips in the work
    // tree (git-ls-files(1)); git status does not look at either, so their content is unknown.
    const tracked = this.run(repo, ["ls-files", "-s", "-v", "-z", "--", ...spec]);
    const changed = new Map<string, "modified" | "staged" | "untracked" | "ignored">();
    for (const rec of status.split("\0")) {
      const t = rec[0];
      // `1 XY …`: X is the index's change.
      if (t === "1") changed.set(rec.split(" ").slice(8).join(" "), rec[2] !== "." ? "staged" : "modified");
      else if (t === "u") changed.set(rec.split(" ").slice(10).join(" "), "modified");
      else if (t === "?") changed.set(rec.slice(2), "untracked");
      else if (t === "!") changed.set(rec.slice(2), "ignored");
    }
    const index = new Map<string, number>();
    for (const rec of tracked.split("\0")) {
      if (rec === "") continue;
      // `TAG MODE OBJECT STAGE\tPATH`
      const [tag, mode] = rec.split(" ", 2);
      const path = rec.slice(rec.indexOf("\t") + 1);
      index.set(path, parseInt(mode!, 8));
      // (also over `staged`: the work tree may differ from the index, git does not look)
      if (unchecked(tag!)) changed.set(path, "modified");
    }
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i]!;
      const rel = rels[i]!;
      const prev = out.get(p)!;
      let g: PathFacts["git"];
      if (prev.kind === "absent") g = index.has(rel) ? "modified" : "absent";
      else if (prev.kind === "directory") g = this.dirState(p, rel, changed, index);
      else {
        const c = changed.get(rel);
        if (c !== undefined) g = c;
        else if (!index.has(rel)) g = "untracked";
        else g = this.gitGivesBack(p, index.get(rel)!) ? "clean" : "modified";
      }
      const facts: PathFacts = { ...prev, git: g };
      out.set(p, facts);
      this.pathCache.set(p, facts);
    }
  }

  /** Would git give the path back as it is? git checks out files with (0666 or 0777) & ~umask: any
   * other mode is not given back by git. Nor a file with other names (hard links: `ln`, `cp -l`, a pnpm
   * store's files): git writes a new file in its place, so a write through this name that git "undoes"
   * stays in the others, and the names are no longer one file. */
  private gitGivesBack(p: string, indexMode: number): boolean {
    const st = lstatSync(p);
    if (indexMode === 0o120000) return st.isSymbolicLink();
    if (!st.isFile() || st.nlink > 1) return false;
    const want = (indexMode & 0o111 ? 0o777 : 0o666) & ~this.umask;
    return (st.mode & 0o777) === want;
  }

  /** A directory is clean when every entry under it is tracked, unmodified, in git's mode, and no
   * directory in it is empty (git does not keep empty directories). */
  private dirState(p: string, rel: string, changed: Map<string, string>, index: Map<string, number>): PathFacts["git"] {
    // (never the repository's root: paths() answers it as "dirty" without a walk)
    const prefix = `${rel}/`;
    for (const k of changed.keys()) if (k === rel || k.startsWith(prefix)) return "dirty";
    let entries = 0;
    const walk = (d: string, r: string): boolean => {
      let names: string[];
      try {
        names = readdirSync(d);
      } catch (e) {
        throw new WorkspaceReadError(`cannot read ${d}: ${(e as Error).message}`);
      }
      if (names.length === 0) return false;
      for (const n of names) {
        if (++entries > this.maxWalkEntries) return false;
        const full = `${d}/${n}`;
        const rr = `${r}${n}`;
        const st = lstatSync(full);
        if (st.isDirectory()) {
          if (!walk(full, `${rr}/`)) return false;
        } else {
          const mode = index.get(rr);
          if (mode === undefined || !this.gitGivesBack(full, mode)) return false;
        }
      }
      return true;
    };
    return walk(p, prefix) ? "clean" : "dirty";
  }

  /** The repository's facts (whole work tree: what reset --hard, clean or stash act on). */
  repo(root: string): RepoFacts {
    const cached = this.repoCache.get(root);
    if (cached !== undefined) return cached;
    const status = this.run(root, ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--ignored=matching", "--no-renames"]);
    let head: string | null = null;
    let branch = "";
    let upstream: string | null = null;
    let ahead: number | null = null;
    let dirty = false;
    let untracked = false;
    let ignored = false;
    for (const rec of status.split("\0")) {
      if (rec.startsWith("# branch.oid ")) head = rec.slice(13) === "(initial)" ? null : rec.slice(13);
      else if (rec.startsWith("# branch.head ")) branch = rec.slice(14) === "(detached)" ? "" : rec.slice(14);
      else if (rec.startsWith("# branch.upstream ")) upstream = rec.slice(18);
      else if (rec.startsWith("# branch.ab ")) ahead = parseInt(rec.slice(12), 10); // `+AHEAD -BEHIND`
      // (no rename records, type 2: --no-renames)
      else if (rec[0] === "1" || rec[0] === "u") dirty = true;
      else if (rec[0] === "?") untracked = true;
      else if (rec[0] === "!") ignored = true;
    }
    // A path git was told to assume unchanged is not in git status whatever it holds, and reset --hard
    // or a checkout writes over it: its work is unknown, the repository dirty. (Skipped work-tree
    // paths, `S`, are left alone by both.)
    if (!dirty) dirty = assumedUnchanged(this.run(root, ["ls-files", "-v", "-z"])).length > 0;
    // The stash's reflog is in the repository's .git folder, or, where `.git` is a file (a linked
    // worktree, a submodule), in the git folder git names: never "no stash" for a stash kept there.
    const log = gitPath(root, "logs/refs/stash", (r, a) => this.run(r, a));
    const stash = existsSync(log) ? this.run(root, ["rev-list", "--walk-reflogs", "--count", "refs/stash", "--"]) : "0";
    // A count git did not give (empty or not a number) stays NaN: never read as "no stash" (0).
    const facts: RepoFacts = { root, head, branch, upstream, ahead, dirty, untracked, ignored, stashes: parseInt(stash, 10) };
    this.repoCache.set(root, facts);
    return facts;
  }

  /** A ref's target, or null when it does not exist. */
  ref(root: string, ref: string): string | null {
    this.gitCalls++;
    try {
      return git(root, ["rev-parse", "-q", "--verify", ref]).trim() || null;
    } catch {
      // rev-parse -q --verify exits 1 for a missing ref; a broken repository fails the repo read.
      return null;
    }
  }
}

/** An index entry's `git ls-files -v` tag for a path git does not compare with the work tree:
 * assume-unchanged (a lowercase tag) or skip-worktree (`S`). */
function unchecked(tag: string): boolean {
  return tag === "S" || tag !== tag.toUpperCase();
}

/** The paths `git ls-files -v -z` output tags as assumed unchanged (a lowercase tag, git-ls-files(1)):
 * git status never shows their edits, and reset --hard or a checkout writes over them. */
export function assumedUnchanged(out: string): string[] {
  const paths: string[] = [];
  for (const rec of out.split("\0")) if (rec.charAt(0) !== rec.charAt(0).toUpperCase()) paths.push(rec.slice(2));
  return paths;
}

/** Where a path is on the filesystem: its longest existing folder resolved (links followed, as the
 * kernel resolves every part but the last) and the rest as written. Two spellings of one place
 * (`alink/x` and `zdir/x`, alink -> zdir) give the same; the last part is not followed (a link itself
 * stays a link). */
export function physicalPath(p: string): string {
  let head = dirname(p);
  let tail = basename(p);
  if (p === "/" || tail === "") return p;
  for (;;) {
    try {
      const real = realpathSync(head);
      return `${real === "/" ? "" : real}/${tail}`;
    } catch {
      if (head === "/") return p;
      tail = `${basename(head)}/${tail}`;
      head = dirname(head);
    }
  }
}

/** Links followed at most (Linux's MAXSYMLINKS): past them the kernel answers ELOOP. */
const MAX_HOPS = 40;

/**
 * Why `p` names a file the kernel answers per process, or null. Under /proc, `self`, `thread-self` and
 * `<pid>` are whoever opens the path, and `cwd`, `root`, `fd/N`, `exe` are that process's: the guard
 * resolving `/proc/self/cwd/a.txt` reads its own directory, while bash writes the agent's. So a path
 * that is under /proc, by its text or through a link on the way (`/dev/fd` is one, a workspace's
 * `ln -s /proc/self/cwd pc` another), is not known at check time.
 */
export function perProcess(p: string): string | null {
  const under = (x: string): boolean => x === "/proc" || x.startsWith("/proc/");
  if (under(p)) return `${p} is under /proc, which names the files of whichever process opens it`;
  let rest = p.split("/").filter((x) => x !== "");
  let cur = "";
  for (let hops = 0; rest.length > 0; ) {
    const seg = rest.shift()!;
    cur = seg === "." ? cur : seg === ".." ? (cur === "" ? "" : dirname(cur) === "/" ? "" : dirname(cur)) : `${cur}/${seg}`;
    if (under(cur)) return `${p} leads under /proc (${cur}), which names the files of whichever process opens it`;
    let target: string;
    try {
      target = readlinkSync(cur === "" ? "/" : cur);
    } catch {
      continue; // not a link, or not there (nothing further to follow)
    }
    if (++hops > MAX_HOPS) return null; // a loop: the call fails there, as bash's would
    const from = target.startsWith("/") ? "" : dirname(cur) === "/" ? "" : dirname(cur);
    if (under(target.startsWith("/") ? target : `${from}/${target}`)) return `${p} leads under /proc (${cur} -> ${target}), which names the files of whichever process opens it`;
    rest = [...`${from}/${target}`.split("/").filter((x) => x !== ""), ...rest];
    cur = "";
  }
  return null;
}

/** Is `p` a directory that exists (stat follows links)? */
export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
