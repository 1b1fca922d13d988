// Restore points: a content-addressed copy, outside the workspace, of what a call would destroy —
// the paths it removes or replaces (every entry under them: kind, mode, content, link target), and for
// git calls the index, HEAD, refs and stash with the part of the work tree the call can touch (its
// RepoScope: tracked paths, untracked paths, untracked and ignored paths, or the whole tree). Bounded in files and bytes: over
// the bound the point is not taken (RestoreError "over_bound") and the call is asked, not approved.
// Layout of the store: packs/<name>.pack + .idx (the new contents of each point, one pack per point),
// objects/<sha256> (loose contents: written by stores before packs, still read), points/<id>.json (manifests),
// links/<random> (another name of a kept file that has other names: hard links; see Entry.link).
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, linkSync, openSync, readSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { git, gitPath, physicalPath } from "./workspace.js";

export const RESTORE_FORMAT = "polar-restore-point/1";

export interface RestoreBounds {
  maxBytes: number;
  maxFiles: number;
}

export const DEFAULT_BOUNDS: RestoreBounds = { maxBytes: 64 * 1024 * 1024, maxFiles: 5_000 };

export type RestoreErrorCode = "over_bound" | "restore_failed";

export class RestoreError extends Error {
  readonly code: RestoreErrorCode;
  constructor(code: RestoreErrorCode, message: string) {
    super(message);
    this.name = "RestoreError";
    this.code = code;
  }
}

/** One entry under a kept path; `rel` is "" for the path itself. */
export interface Entry {
  rel: string;
  kind: "file" | "directory" | "symlink";
  mode: number;
  hash?: string;
  target?: string;
  /** A file with other names (hard links: `ln`, `cp -l`, a pnpm store's files): the store's own name for
   * it (`links/<random>`, a hard link made when the point was taken). A name removed or replaced by a
   * new file (`rm`, `sed -i`, `mv` over it, git) is put back as that same file again, not as a file of
   * its own that later writes through the other names no longer reach. */
  link?: string;
}

export interface KeptPath {
  path: string;
  /** null: nothing was there. */
  entries: Entry[] | null;
}

/** What a repository-wide git call can touch in the work tree (git's documentation):
 * `tracked` — reset --hard, checkout -f, switch -f: the paths of the index, of HEAD and of the target
 * trees (git-reset(1) "working tree files … are discarded"; an untracked file in the way of a target
 * path is overwritten, so the target trees' paths are kept too); `untracked` — clean -fd (git-clean(1):
 * "files not under version control"), with `ignored` for -x; `all` — every path but .git. */
export type RepoScope = { kind: "all" } | { kind: "tracked"; trees: string[] } | { kind: "untracked"; ignored: boolean };

/** A directory above a kept path: its mode, or null when it was absent (removed again on restore). */
export interface KeptDir {
  path: string;
  mode: number | null;
}

export interface RepoState {
  root: string;
  /** "all" when absent (points taken before scopes existed). */
  scope?: "all" | "tracked" | "untracked" | "untracked+ignored";

  /** HEAD: "ref: refs/heads/x" or a commit id (detached). */
  head: string;
  /** The index file's content hash (its bytes are an object), null when there is none. */
  index: string | null;
  /** Every ref but the stash; a symbolic ref (a clone's `refs/remotes/origin/HEAD`) with the ref it
   * names (`symref`; absent in points taken before symbolic refs were kept apart). */
  refs: { name: string; target: string; symref?: string }[];
  /** The stash, newest first: commit id and reflog message. */
  stash: { id: string; message: string }[];
}

export interface RestorePoint {
  format: typeof RESTORE_FORMAT;
  id: string;
  digest: string;
  paths: KeptPath[];
  repo: RepoState | null;
  files: number;
  bytes: number;
  /** Directories above the kept paths of a narrowed scope, put back as they were. */
  dirs?: KeptDir[];
}

/** Tracked paths under some paths of a repository (checkout/restore with paths; see TypedCall.tracked). */
export interface TrackedUnder {
  root: string;
  trees: string[];
  under: string[];
}

export interface RestoreSummary {
  id: string;
  digest: string;
  files: number;
  bytes: number;
}

/** The digested part of a point (dirs only when there are some: JSON leaves out an undefined field, so
 * older points digest the same). */
function pointBody(p: Omit<RestorePoint, "id" | "digest">): Omit<RestorePoint, "id" | "digest"> {
  return { format: p.format, paths: p.paths, repo: p.repo, files: p.files, bytes: p.bytes, dirs: p.dirs };
}

function sha256(b: Uint8Array | string): string {
  return createHash("sha256").update(b).digest("hex");
}

export class RestoreStore {
  readonly dir: string;
  readonly bounds: RestoreBounds;

  constructor(dir: string, bounds: RestoreBounds) {
    this.dir = dir;
    this.bounds = bounds;
  }

  /** Creates the store's folders and proves it writable. Throws RestoreError restore_failed. */
  open(): void {
    try {
      mkdirSync(`${this.dir}/objects`, { recursive: true });
      mkdirSync(`${this.dir}/points`, { recursive: true });
      mkdirSync(`${this.dir}/sessions`, { recursive: true });
      const probe = `${this.dir}/.probe-${randomBytes(4).toString("hex")}`;
      writeFileSync(probe, "x");
      rmSync(probe);
    } catch (e) {
      throw new RestoreError("restore_failed", `the restore-point store ${this.dir} is not writable: ${(e as Error).message}`);
    }
  }

  /** Objects of packs: hash → where its bytes are. Loaded on first use. */
  private packIndex: Map<string, { pack: string; off: number; len: number }> | null = null;

  private packs(): Map<string, { pack: string; off: number; len: number }> {
    if (this.packIndex !== null) return this.packIndex;
    const m = new Map<string, { pack: string; off: number; len: number }>();
    const dir = `${this.dir}/packs`;
    if (existsSync(dir)) {
      for (const f of readdirSync(dir)) {
        if (!f.endsWith(".idx")) continue;
        const pack = f.slice(0, -4);
        const idx = JSON.parse(readFileSync(`${dir}/${f}`, "utf8")) as Record<string, [number, number]>;
        for (const [h, [off, len]] of Object.entries(idx)) m.set(h, { pack, off, len });
      }
    }
    this.packIndex = m;
    return m;
  }

  /** A content of the point being taken: new ones wait in `pending`, written as one pack at its end. */
  private putObject(data: Buffer, pending: Map<string, Buffer>): string {
    const h = sha256(data);
    if (pending.has(h) || this.packs().has(h) || existsSync(`${this.dir}/objects/${h}`)) return h;
    pending.set(h, data);
    return h;
  }

  /** The new objects of a point, as one pack file and its index (two files, not one per object). Not
   * fsynced: a restore point guards against an agent's mistake, not a power cut. A torn object is
   * caught when read (its hash is checked: restore_failed), never restored wrong (docs/shell.md). */
  private flushPending(pending: Map<string, Buffer>): void {
    if (pending.size === 0) return;
    const hashes = [...pending.keys()];
    const name = `pk-${sha256(hashes.join("\n")).slice(0, 24)}`;
    const idx: Record<string, [number, number]> = {};
    let off = 0;
    for (const h of hashes) {
      const len = pending.get(h)!.length;
      idx[h] = [off, len];
      off += len;
    }
    mkdirSync(`${this.dir}/packs`, { recursive: true });
    writeFileSync(`${this.dir}/packs/${name}.pack`, Buffer.concat([...pending.values()]), { mode: 0o600 });
    writeFileSync(`${this.dir}/packs/${name}.idx`, JSON.stringify(idx), { mode: 0o600 });
    const m = this.packs();
    for (const h of hashes) m.set(h, { pack: name, off: idx[h]![0], len: idx[h]![1] });
  }

  object(hash: string): Buffer {
    let data: Buffer;
    const loose = `${this.dir}/objects/${hash}`;
    const where = existsSync(loose) ? null : this.packs().get(hash);
    if (where === undefined) throw new RestoreError("restore_failed", `object ${hash} is missing from the store`);
    if (where === null) data = readFileSync(loose);
    else {
      data = Buffer.alloc(where.len);
      const fd = openSync(`${this.dir}/packs/${where.pack}.pack`, "r");
      try {
        readSync(fd, data, 0, where.len, where.off);
      } finally {
        closeSync(fd);
      }
    }
    if (sha256(data) !== hash) throw new RestoreError("restore_failed", `object ${hash} is corrupted`);
    return data;
  }

  /** Takes a restore point of the paths (and the repository, when given, its work tree within scope). */
  take(paths: readonly string[], repoRoot: string | null, scope: RepoScope = { kind: "all" }, tracked?: TrackedUnder): RestorePoint {
    const budget = { files: 0, bytes: 0 };
    const kept: KeptPath[] = [];
    const pending = new Map<string, Buffer>();
    const linked: string[] = [];
    try {
      // Each path where it is (physicalPath): two spellings of one place through a link to a folder
      // (alink/x, zdir/x) are one kept path, and one under another kept folder is inside it (put back
      // through the link first, before its folder was, the undo failed halfway).
      const wanted = new Set(paths.map(physicalPath));
      const d = new Map<string, number | null>();
      /** Keeps root/rel for each rel, with each directory above it (up to the root): kept as it is
       * (mode) or as absent; a file or link where a directory would go is kept whole. */
      const addScoped = (root: string, rels: readonly string[]): void => {
        for (const rel of rels) {
          const full: string = `${root}/${rel}`;
          wanted.add(full);
          let at: string = full;
          for (;;) {
            at = dirname(at);
            if (d.has(at) || !at.startsWith(`${root}/`)) break;
            let st;
            try {
              st = lstatSync(at);
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== "ENOENT" && (e as NodeJS.ErrnoException).code !== "ENOTDIR") throw e;
            }
            if (st === undefined) d.set(at, null);
            else if (st.isDirectory()) d.set(at, Number(st.mode) & 0o7777);
            else {
              d.set(at, null);
              wanted.add(at);
            }
          }
        }
      };
      // A narrowed scope never covers the root itself (nor a path above it): then the whole tree.
      if (repoRoot !== null && [...wanted].some((p) => p === repoRoot || repoRoot.startsWith(`${p}/`))) scope = { kind: "all" };
      if (repoRoot !== null && scope.kind !== "all") {
        const s = scopePaths(repoRoot, scope);
        if (s === null) scope = { kind: "all" };
        else addScoped(repoRoot, s);
      }
      if (tracked !== undefined) {
        const s = scopePaths(tracked.root, { kind: "tracked", trees: tracked.trees });
        if (s === null) for (const u of tracked.under) wanted.add(u);
        else addScoped(tracked.root, s.filter((rel) => tracked.under.some((u) => `${tracked.root}/${rel}` === u || `${tracked.root}/${rel}`.startsWith(`${u}/`))));
      }
      const dirs: KeptDir[] | undefined = d.size === 0 ? undefined : [...d].map(([path, mode]) => ({ path, mode })).sort((a, b) => (a.path < b.path ? -1 : 1)); // (no two are equal)
      const list = [...wanted].sort();
      // A path under another kept path is already inside it.
      const top = list.filter((p) => {
        for (let a = p; a !== dirname(a); ) {
          a = dirname(a);
          if (wanted.has(a)) return false;
        }
        return true;
      });
      for (const p of top) kept.push({ path: p, entries: this.keep(p, budget, null, pending, linked) });
      let repo: RepoState | null = null;
      if (repoRoot !== null) {
        if (scope.kind === "all" && !top.includes(repoRoot)) kept.push({ path: repoRoot, entries: this.keep(repoRoot, budget, `${repoRoot}/.git`, pending, linked) });
        repo = this.keepRepo(repoRoot, pending);
        if (scope.kind !== "all") repo.scope = scope.kind === "tracked" ? "tracked" : scope.ignored ? "untracked+ignored" : "untracked";
      }
      const body = pointBody({ format: RESTORE_FORMAT, paths: kept, repo, files: budget.files, bytes: budget.bytes, dirs });
      const digest = sha256(JSON.stringify(body));
      const id = `rp-${digest.slice(0, 16)}`;
      const point: RestorePoint = { id, digest, ...body };
      this.flushPending(pending);
      writeFileSync(`${this.dir}/points/${id}.json`, JSON.stringify(point));
      return point;
    } catch (e) {
      // (a point not taken holds no file's name)
      for (const l of linked) rmSync(`${this.dir}/${l}`, { force: true });
      if (e instanceof RestoreError) throw e;
      throw new RestoreError("restore_failed", `the restore point could not be taken: ${(e as Error).message}`);
    }
  }

  private keep(p: string, budget: { files: number; bytes: number }, skip: string | null, pending: Map<string, Buffer>, linked: string[]): Entry[] | null {
    let st;
    try {
      st = lstatSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
    const entries: Entry[] = [];
    const visit = (full: string, rel: string, s: ReturnType<typeof lstatSync>): void => {
      if (++budget.files > this.bounds.maxFiles) throw new RestoreError("over_bound", `more than ${this.bounds.maxFiles} files to keep`);
      const mode = Number(s!.mode) & 0o7777;
      if (s!.isSymbolicLink()) entries.push({ rel, kind: "symlink", mode, target: readlinkSync(full) });
      else if (s!.isDirectory()) {
        entries.push({ rel, kind: "directory", mode });
        for (const n of readdirSync(full).sort()) {
          const f = `${full}/${n}`;
          if (f === skip) continue;
          visit(f, rel === "" ? n : `${rel}/${n}`, lstatSync(f));
        }
      } else if (s!.isFile()) {
        budget.bytes += Number(s!.size);
        if (budget.bytes > this.bounds.maxBytes) throw new RestoreError("over_bound", `more than ${this.bounds.maxBytes} bytes to keep`);
        const e: Entry = { rel, kind: "file", mode, hash: this.putObject(readFileSync(full), pending) };
        if (s!.nlink > 1) e.link = this.linkFile(full, linked);
        entries.push(e);
      } else throw new RestoreError("restore_failed", `${full} is not a file, directory or symbolic link`);
    };
    visit(p, "", st);
    return entries;
  }

  /** A name in the store for a file with other names (link(2): the same file, not a copy). A store on
   * another filesystem (EXDEV) or a file the kernel will not link (EPERM under protected_hardlinks,
   * EMLINK) cannot keep it: restore_failed, the call is asked (a name put back as a file of its own
   * would not be the same file as the others). */
  private linkFile(full: string, linked: string[]): string {
    const name = `links/${randomBytes(12).toString("hex")}`;
    try {
      mkdirSync(`${this.dir}/links`, { recursive: true });
      linkSync(full, `${this.dir}/${name}`);
    } catch (e) {
      throw new RestoreError("restore_failed", `${full} has other names (hard links) and the store cannot keep it as the same file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: is the store on another filesystem?); put back as a file of its own, it would no longer be the file its other names are`);
    }
    linked.push(name);
    return name;
  }

  /** The store's names of the files of a point that have other names (absolute paths). */
  links(point: RestorePoint): string[] {
    const out: string[] = [];
    for (const k of point.paths) for (const e of k.entries ?? []) if (e.link !== undefined) out.push(`${this.dir}/${e.link}`);
    return out;
  }

  private keepRepo(root: string, pending: Map<string, Buffer>): RepoState {
    // A linked worktree's or a submodule's `.git` is a file: its HEAD and index are where git says.
    const headPath = gitPath(root, "HEAD");
    const head = readFileSync(headPath, "utf8").trim();
    if (head === "") throw new RestoreError("restore_failed", `${headPath} is empty`);
    const indexPath = gitPath(root, "index");
    const index = existsSync(indexPath) ? this.putObject(readFileSync(indexPath), pending) : null;
    // (Ref names hold no space or NUL: git check-ref-format.)
    const all = git(root, ["for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)"]).split("\n");
    const refs = all
      .filter((l) => l !== "" && !l.startsWith("refs/stash\0"))
      .map((l) => {
        const [name, target, symref] = l.split("\0") as [string, string, string];
        return symref === "" ? { name, target } : { name, target, symref };
      });
    // The stash is its reflog (refs/stash is its newest entry; packed or loose). A stash ref without a
    // reflog would be lost by putting the stash back from the reflog: not kept, so the call is asked.
    let stash: RepoState["stash"] = [];
    if (all.some((l) => l.startsWith("refs/stash\0"))) {
      const out = git(root, ["log", "-g", "--format=%H%x00%gs", "refs/stash", "--"]).trim();
      if (out === "") throw new RestoreError("restore_failed", `the stash of ${root} has no reflog`);
      stash = out.split("\n").map((l) => ({ id: l.split("\0")[0]!, message: l.split("\0")[1]! }));
    }
    return { root, head, index, refs, stash };
  }

  load(id: string): RestorePoint {
    if (!/^rp-[0-9a-f]{16}$/.test(id)) throw new RestoreError("restore_failed", `not a restore point id: ${id}`);
    const p = JSON.parse(readFileSync(`${this.dir}/points/${id}.json`, "utf8")) as RestorePoint;
    if (p.format !== RESTORE_FORMAT) throw new RestoreError("restore_failed", `restore point ${id} is in format ${JSON.stringify(p.format)}, not ${RESTORE_FORMAT}`);
    const { digest } = p;
    if (sha256(JSON.stringify(pointBody(p))) !== digest) throw new RestoreError("restore_failed", `restore point ${id} does not match its digest`);
    return p;
  }

  /** Puts back everything the point holds. */
  apply(point: RestorePoint): void {
    // The repository's root is a kept path only under the whole scope (take widens a narrowed scope
    // that would keep it): its .git stays.
    for (const k of point.paths) this.putBack(k, k.path === point.repo?.root ? `${k.path}/.git` : null);
    {
      // A narrowed scope: the directories above its paths as they were (modes; the absent ones removed
      // again when nothing else is in them — anything there is newer than the point and stays).
      const dirs = point.dirs ?? [];
      for (const d of dirs) {
        if (d.mode === null) continue;
        mkdirSync(d.path, { recursive: true }); // (a file there fails putBack of the paths under it first)
        chmodSync(d.path, d.mode);
      }
      for (const d of [...dirs].reverse()) {
        if (d.mode !== null || !existsSync(d.path) || !lstatSync(d.path).isDirectory()) continue;
        if (readdirSync(d.path).length === 0) rmdirSync(d.path);
      }
    }
    if (point.repo !== null) this.putBackRepo(point.repo);
  }

  private putBack(k: KeptPath, skip: string | null): void {
    // A file that has other names now (hard links: `cp -l`, `ln`, a pnpm store's files) is written back
    // in place: a write through one name changed every name, and a new file made here would leave the
    // others holding what the call wrote.
    // (One entry is the kept path itself; the repository's root, `skip`, is a folder.)
    const only = k.entries?.length === 1 ? k.entries[0]! : null;
    if (only?.kind === "file" && (only.link === undefined ? hardLinked(k.path) : this.sameFile(k.path, only.link))) {
      this.writeInPlace(k.path, only);
      return;
    }
    if (skip === null) rmSync(k.path, { recursive: true, force: true });
    else {
      // The repository root: everything but .git goes, then comes back (a root that is gone, with
      // its .git, cannot be put back: readdir fails before anything is written).
      for (const n of readdirSync(k.path)) if (`${k.path}/${n}` !== skip) rmSync(`${k.path}/${n}`, { recursive: true });
    }
    if (k.entries === null) return;
    mkdirSync(dirname(k.path), { recursive: true });
    const dirs: [string, number][] = [];
    for (const e of k.entries) {
      const full = e.rel === "" ? k.path : `${k.path}/${e.rel}`;
      if (e.kind === "directory") {
        if (!existsSync(full)) mkdirSync(full);
        chmodSync(full, 0o700);
        dirs.push([full, e.mode]);
      } else if (e.kind === "symlink") symlinkSync(e.target!, full);
      else {
        // A file with other names: that file again (the store's name of it), its content and mode as kept.
        if (e.link === undefined) {
          writeFileSync(full, this.object(e.hash!));
          chmodSync(full, e.mode);
        } else {
          linkSync(this.linkOf(e.link), full);
          this.writeInPlace(full, e);
        }
      }
    }
    // Deepest first: a folder's own mode may forbid what its children still need.
    for (const [full, mode] of dirs.reverse()) chmodSync(full, mode);
  }

  /** A file with other names gets its kept content and mode back in place (every name is that file).
   * Written only where the content differs (a name removed, `rm`, left the file as it was), and made
   * writable for the write: a read-only file (a pnpm store's are 0444) cannot be opened for writing by
   * a user other than root, and its undo failed there. */
  private writeInPlace(full: string, e: Entry): void {
    const want = this.object(e.hash!);
    chmodSync(full, e.mode | 0o600);
    if (!readFileSync(full).equals(want)) writeFileSync(full, want);
    chmodSync(full, e.mode);
  }

  /** The store's name of a kept file; restore_failed when it is gone. */
  private linkOf(name: string): string {
    const full = `${this.dir}/${name}`;
    if (!/^links\/[0-9a-f]{24}$/.test(name) || lstatSync(full, { throwIfNoEntry: false })?.isFile() !== true) throw new RestoreError("restore_failed", `the store's name ${name} of a file with other names is missing`);
    return full;
  }

  /** Is the path the file the store keeps under `name` (the same inode)? */
  private sameFile(p: string, name: string): boolean {
    const kept = lstatSync(this.linkOf(name));
    const now = lstatSync(p, { throwIfNoEntry: false });
    return now !== undefined && now.ino === kept.ino && now.dev === kept.dev;
  }

  private putBackRepo(r: RepoState): void {
    const indexPath = gitPath(r.root, "index");
    if (r.index !== null) writeFileSync(indexPath, this.object(r.index));
    else rmSync(indexPath, { force: true });
    // (refs/stash is deleted here too, and its entries stored again below.)
    // Each ref itself, never the one a symbolic ref names (`option no-deref`): a clone's
    // refs/remotes/origin/HEAD names origin's branch, and updating both through it is refused ("multiple
    // updates … via symref"). The symbolic refs are set again after the plain ones exist.
    const now = git(r.root, ["for-each-ref", "--format=%(refname)"]).split("\n").filter((l) => l !== "");
    const want = new Set(r.refs.map((x) => x.name));
    const lines: string[] = [];
    for (const n of now) if (!want.has(n)) lines.push("option no-deref", `delete ${n}`);
    for (const x of r.refs) if (x.symref === undefined) lines.push("option no-deref", `update ${x.name} ${x.target}`);
    if (lines.length > 0) git(r.root, ["update-ref", "--stdin"], `${lines.join("\n")}\n`);
    for (const x of r.refs) if (x.symref !== undefined) git(r.root, ["symbolic-ref", x.name, x.symref]);
    if (r.head.startsWith("ref: ")) git(r.root, ["symbolic-ref", "HEAD", r.head.slice(5)]);
    else git(r.root, ["update-ref", "--no-deref", "HEAD", r.head]);
    // The stash: emptied (deleting the ref deletes its reflog), then stored again oldest first.
    git(r.root, ["update-ref", "-d", "refs/stash"]);
    for (const s of [...r.stash].reverse()) git(r.root, ["stash", "store", "-m", s.message, s.id]);
  }

  summary(p: RestorePoint): RestoreSummary {
    return { id: p.id, digest: p.digest, files: p.files, bytes: p.bytes };
  }
}

/** The work-tree paths (relative to the root) a scope covers, null when one of its trees is not known
 * (the caller keeps the whole tree then). */
export function scopePaths(root: string, scope: Exclude<RepoScope, { kind: "all" }>): string[] | null {
  const z = (out: string) => out.split("\0").filter((l) => l !== "");
  const out = new Set<string>();
  if (scope.kind === "untracked") {
    // Untracked directories as one path each (kept whole); with -x the ignored ones too.
    const args = ["ls-files", "-z", "--others", "--directory"];
    if (!scope.ignored) args.push("--exclude-standard");
    for (const p of z(git(root, args))) out.add(p.replace(/\/$/, ""));
    return [...out];
  }
  for (const p of z(git(root, ["ls-files", "-z"]))) out.add(p);
  const trees: string[] = [];
  for (const t of ["HEAD", ...scope.trees]) {
    let id: string;
    try {
      id = git(root, ["rev-parse", "--verify", "-q", `${t}^{tree}`]).trim();
    } catch {
      if (t === "HEAD") continue; // an empty repository: no HEAD tree
      return null;
    }
    trees.push(id);
  }
  for (const id of trees) for (const p of z(git(root, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", id]))) out.add(p);
  return [...out];
}

/** A fingerprint of the paths as they are now (the same walk as a restore point, hashes only). */
export function fingerprint(paths: readonly string[], limit = 20_000): string {
  const h = createHash("sha256");
  let n = 0;
  const visit = (full: string): void => {
    if (++n > limit) throw new RestoreError("over_bound", "too many files to fingerprint");
    let s;
    try {
      s = lstatSync(full);
    } catch {
      h.update(`${full}\0absent\n`);
      return;
    }
    const mode = Number(s.mode) & 0o7777;
    if (s.isSymbolicLink()) h.update(`${full}\0l${mode}\0${readlinkSync(full)}\n`);
    else if (s.isDirectory()) {
      h.update(`${full}\0d${mode}\n`);
      for (const c of readdirSync(full).sort()) visit(`${full}/${c}`);
    } else h.update(`${full}\0f${mode}\0${sha256(readFileSync(full))}\n`);
  };
  for (const p of [...new Set(paths)].sort()) visit(p);
  return h.digest("hex");
}

export function relativeTo(root: string, p: string): string {
  return relative(root, p);
}

/** A regular file with more than one name (not following a link); false when nothing is there. */
function hardLinked(p: string): boolean {
  const st = lstatSync(p, { throwIfNoEntry: false });
  return st !== undefined && st.isFile() && st.nlink > 1;
}
