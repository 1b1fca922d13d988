// Restore points (src/shell/restore.ts), in-process on real folders and a small git repository: what
// a point keeps (every entry's kind, mode, content, link target; a repository's HEAD, index, refs,
// stash and the part of the work tree its scope names), its bounds, its store (packs, loose objects,
// manifests with a digest), and that applying it puts back exactly what was there.
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_BOUNDS, fingerprint, RESTORE_FORMAT, RestoreError, RestoreStore, relativeTo, scopePaths, type RestorePoint } from "../../src/shell/restore.js";
import { git } from "../../src/shell/workspace.js";
import { buildTemplate, copyTemplate, diffManifests, manifest, sh as bash, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function root(): string {
  const r = realpathSync(tempDir("polar-shell-restore-"));
  made.push(r);
  return r;
}

const tpls = new Map<string, string>();
function repo(kind: "rich" | "clean"): string {
  let t = tpls.get(kind);
  if (t === undefined) {
    t = buildTemplate(kind);
    made.push(t);
    tpls.set(kind, t);
  }
  return copyTemplate(t, `${root()}/ws`);
}

function store(bounds = DEFAULT_BOUNDS): RestoreStore {
  const s = new RestoreStore(`${root()}/store`, bounds);
  s.open();
  return s;
}

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");

/** A folder with one of each kind and modes that are not the defaults. */
function tree(r: string): string {
  const d = `${r}/t`;
  mkdirSync(`${d}/sub/deep`, { recursive: true });
  writeFileSync(`${d}/a.txt`, "alpha");
  chmodSync(`${d}/a.txt`, 0o640);
  writeFileSync(`${d}/sub/run.sh`, "#!/bin/sh\n");
  chmodSync(`${d}/sub/run.sh`, 0o751);
  writeFileSync(`${d}/sub/deep/same.txt`, "alpha");
  symlinkSync("../a.txt", `${d}/sub/link`);
  chmodSync(`${d}/sub/deep`, 0o705);
  return d;
}

describe("the store", () => {
  it("open() makes its folders and proves them writable; a store it cannot write is restore_failed", () => {
    const r = root();
    const s = new RestoreStore(`${r}/s`, DEFAULT_BOUNDS);
    expect(s.dir).toBe(`${r}/s`);
    expect(s.bounds).toBe(DEFAULT_BOUNDS);
    s.open();
    expect(readdirSync(`${r}/s`).sort()).toEqual(["objects", "points", "sessions"]);
    writeFileSync(`${r}/file`, "x");
    let e: unknown = null;
    try {
      new RestoreStore(`${r}/file/s`, DEFAULT_BOUNDS).open();
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(RestoreError);
    expect((e as RestoreError).name).toBe("RestoreError");
    expect((e as RestoreError).code).toBe("restore_failed");
    expect((e as Error).message).toMatch(new RegExp(`^the restore-point store ${r}/file/s is not writable: ENOTDIR`));
    expect(DEFAULT_BOUNDS).toEqual({ maxBytes: 64 * 1024 * 1024, maxFiles: 5_000 });
  });

  it("a store opened again (another guard on it) keeps its points; packs are private (0600); reading an object leaves no file open", () => {
    const r = root();
    const d = tree(r);
    const s = store();
    const p = s.take([d], null);
    const again = new RestoreStore(s.dir, DEFAULT_BOUNDS);
    again.open();
    expect(again.load(p.id)).toEqual(p);
    for (const f of readdirSync(`${s.dir}/packs`)) expect(lstatSync(`${s.dir}/packs/${f}`).mode & 0o777).toBe(0o600);
    const open = () => readdirSync("/proc/self/fd").length;
    const before = open();
    for (let i = 0; i < 50; i++) again.object(sha("alpha"));
    expect(open()).toBe(before);
  });
});

describe("take and apply: paths", () => {
  it("keeps every entry under a path (kind, mode, content by hash, link target) in one pack, and a manifest whose id and digest name it", () => {
    const r = root();
    const d = tree(r);
    const s = store();
    const p = s.take([d, `${r}/absent`], null);
    expect(p.format).toBe(RESTORE_FORMAT);
    expect(p.paths).toEqual([
      { path: `${r}/absent`, entries: null },
      {
        path: d,
        entries: [
          { rel: "", kind: "directory", mode: 0o755 & ~process.umask() },
          { rel: "a.txt", kind: "file", mode: 0o640, hash: sha("alpha") },
          { rel: "sub", kind: "directory", mode: 0o755 & ~process.umask() },
          { rel: "sub/deep", kind: "directory", mode: 0o705 },
          { rel: "sub/deep/same.txt", kind: "file", mode: 0o644 & ~process.umask(), hash: sha("alpha") },
          { rel: "sub/link", kind: "symlink", mode: lstatSync(`${d}/sub/link`).mode & 0o7777, target: "../a.txt" },
          { rel: "sub/run.sh", kind: "file", mode: 0o751, hash: sha("#!/bin/sh\n") },
        ],
      },
    ]);
    expect(p.repo).toBeNull();
    expect(p.files).toBe(7);
    expect(p.bytes).toBe(5 + 5 + 10);
    expect(p.dirs).toBeUndefined();
    const body = { format: p.format, paths: p.paths, repo: p.repo, files: p.files, bytes: p.bytes };
    expect(p.digest).toBe(sha(JSON.stringify(body)));
    expect(p.id).toBe(`rp-${p.digest.slice(0, 16)}`);
    expect(JSON.parse(readFileSync(`${s.dir}/points/${p.id}.json`, "utf8"))).toEqual(p);
    expect(s.summary(p)).toEqual({ id: p.id, digest: p.digest, files: 7, bytes: 20 });
    // Two distinct contents: one pack of two objects, nothing loose.
    const packs = readdirSync(`${s.dir}/packs`).sort();
    expect(packs.length).toBe(2);
    expect(packs[0]!.endsWith(".idx") && packs[1]!.endsWith(".pack")).toBe(true);
    expect(readdirSync(`${s.dir}/objects`)).toEqual([]);
    expect(Object.keys(JSON.parse(readFileSync(`${s.dir}/packs/${packs[0]}`, "utf8"))).sort()).toEqual([sha("alpha"), sha("#!/bin/sh\n")].sort());
    expect(s.object(sha("alpha")).toString()).toBe("alpha");
    // A second store instance reads the packs from disk.
    const s2 = new RestoreStore(s.dir, DEFAULT_BOUNDS);
    expect(s2.object(sha("#!/bin/sh\n")).toString()).toBe("#!/bin/sh\n");
    expect(s2.load(p.id)).toEqual(p);
  });

  it("apply puts back exactly what was there: contents, modes, links, removed and added entries, and removes what was absent", () => {
    const r = root();
    const d = tree(r);
    const s = store();
    const before = manifest(r);
    const p = s.take([d, `${r}/absent`], null);
    rmSync(`${d}/sub`, { recursive: true });
    writeFileSync(`${d}/a.txt`, "changed");
    chmodSync(`${d}/a.txt`, 0o600);
    writeFileSync(`${d}/added`, "new");
    mkdirSync(`${r}/absent`);
    writeFileSync(`${r}/absent/x`, "x");
    s.apply(s.load(p.id));
    expect(diffManifests(before, manifest(r))).toEqual([]);
    // Removed whole, with its parent made again.
    rmSync(d, { recursive: true });
    s.apply(p);
    expect(diffManifests(before, manifest(r))).toEqual([]);
    expect(readlinkSync(`${d}/sub/link`)).toBe("../a.txt");
  });

  it("a file with other names is kept under a name of its own in the store: `links` lists exactly those names; a name replaced by a new file comes back as that same file; a store name that is missing, not a file or not one of the store's is restore_failed; a point not taken leaves no store name", () => {
    const r = root();
    writeFileSync(`${r}/work.txt`, "hours of work");
    execFileSync("ln", [`${r}/work.txt`, `${r}/other`]);
    writeFileSync(`${r}/single.txt`, "one name");
    const ino = lstatSync(`${r}/work.txt`).ino;
    const s = store();
    const p = s.take([`${r}/other`, `${r}/single.txt`], null);
    const names = s.links(p);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/\/store\/links\/[0-9a-f]{24}$/);
    expect(lstatSync(names[0]!).ino).toBe(ino);
    expect(s.links(s.take([`${r}/single.txt`], null))).toEqual([]);
    // Replaced by a new file with the same content (`sed -i` writes a new file): the name is the kept
    // file again, one file with work.txt.
    rmSync(`${r}/other`);
    writeFileSync(`${r}/other`, "hours of work");
    expect(lstatSync(`${r}/other`).ino).not.toBe(ino);
    s.apply(p);
    expect(lstatSync(`${r}/other`).ino).toBe(ino);
    expect(lstatSync(`${r}/other`).nlink).toBe(3); // work.txt, other and the store's name
    // The store's name gone, or a point naming something else: restore_failed, nothing written.
    const entry = p.paths.find((k) => k.path === `${r}/other`)!.entries![0]!;
    const withLink = (link: string) => ({ ...p, paths: p.paths.map((k) => (k.path === `${r}/other` ? { ...k, entries: [{ ...entry, link }] } : k)) });
    rmSync(`${r}/other`);
    for (const bad of ["links/../points", "x/links/0123456789abcdef01234567", "links/0123456789abcdef01234567/x", "links/0123456789abcdef0123456", "links/0123456789abcdef01234567"]) {
      let e: unknown = null;
      try {
        s.apply(withLink(bad));
      } catch (x) {
        e = x;
      }
      expect([bad, e instanceof RestoreError && (e as RestoreError).code, (e as Error).message]).toEqual([bad, "restore_failed", `the store's name ${bad} of a file with other names is missing`]);
    }
    mkdirSync(`${s.dir}/links/0123456789abcdef01234567`);
    expect(() => s.apply(withLink("links/0123456789abcdef01234567"))).toThrow("the store's name links/0123456789abcdef01234567 of a file with other names is missing");
    rmSync(names[0]!);
    expect(() => s.apply(p)).toThrow(/of a file with other names is missing/);
    // The store cannot make the name (here `links` is a file): restore_failed with the error's code, and
    // a point that fails after keeping a name leaves none behind.
    execFileSync("ln", [`${r}/work.txt`, `${r}/other`]);
    const s2 = store();
    rmSync(`${s2.dir}/links`, { recursive: true, force: true });
    writeFileSync(`${s2.dir}/links`, "not a folder");
    let err: unknown = null;
    try {
      s2.take([`${r}/work.txt`], null);
    } catch (x) {
      err = x;
    }
    expect((err as RestoreError).code).toBe("restore_failed");
    expect((err as Error).message).toMatch(/^\S+ has other names \(hard links\) and the store cannot keep it as the same file \((EEXIST|ENOTDIR): is the store on another filesystem\?\)/);
    const s3 = store({ ...DEFAULT_BOUNDS, maxFiles: 2 });
    writeFileSync(`${r}/third`, "3");
    expect(() => s3.take([`${r}/other`, `${r}/single.txt`, `${r}/third`], null)).toThrow(RestoreError);
    expect(existsSync(`${s3.dir}/links`) ? readdirSync(`${s3.dir}/links`) : []).toEqual([]);
  });

  it("a point kept before store names (an entry without `link`) writes a file that has other names now in place, and makes a single-name file anew", () => {
    const r = root();
    writeFileSync(`${r}/f`, "kept");
    const s = store();
    const p = s.take([`${r}/f`, `${r}/g`], null);
    writeFileSync(`${r}/g`, "absent before");
    rmSync(`${r}/g`);
    writeFileSync(`${r}/f`, "changed");
    execFileSync("ln", [`${r}/f`, `${r}/f2`]);
    const old = { ...p, paths: p.paths.map((k) => ({ ...k, entries: k.entries?.map(({ link: _l, ...e }) => e) ?? null })) };
    s.apply(old);
    expect([readFileSync(`${r}/f`, "utf8"), readFileSync(`${r}/f2`, "utf8"), lstatSync(`${r}/f`).ino === lstatSync(`${r}/f2`).ino]).toEqual(["kept", "kept", true]);
    // One name again: made anew (a descriptor open on the file before still reads what it held).
    rmSync(`${r}/f2`);
    writeFileSync(`${r}/f`, "changed again");
    const fd = openSync(`${r}/f`, "r");
    try {
      s.apply(old);
      const buf = Buffer.alloc(64);
      expect(buf.subarray(0, readSync(fd, buf, 0, 64, 0)).toString()).toBe("changed again");
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(`${r}/f`, "utf8")).toBe("kept");
  });

  it("a file with other names (hard links) is written back in place, so every name gets its content back (was: a new file, the other names kept what the call wrote)", () => {
    const r = root();
    writeFileSync(`${r}/work.txt`, "hours of work");
    chmodSync(`${r}/work.txt`, 0o640);
    execFileSync("ln", [`${r}/work.txt`, `${r}/other`]);
    const ino = lstatSync(`${r}/work.txt`).ino;
    const s = store();
    const p = s.take([`${r}/other`], null);
    writeFileSync(`${r}/other`, "written through one name");
    chmodSync(`${r}/other`, 0o600);
    s.apply(s.load(p.id));
    for (const n of ["work.txt", "other"]) {
      expect(readFileSync(`${r}/${n}`, "utf8")).toBe("hours of work");
      expect(lstatSync(`${r}/${n}`).ino).toBe(ino);
      expect(lstatSync(`${r}/${n}`).mode & 0o777).toBe(0o640);
    }
    // Replaced by a new file (one name now, as `sed -i` does): put back as a file of its own; the other
    // name was never written.
    rmSync(`${r}/other`);
    writeFileSync(`${r}/other`, "a new file");
    s.apply(p);
    expect(readFileSync(`${r}/other`, "utf8")).toBe("hours of work");
    expect(readFileSync(`${r}/work.txt`, "utf8")).toBe("hours of work");
    // A kept file that is a folder now, a kept empty folder that is a hard-linked file now, and a path
    // that was absent and is a hard link now go the usual way: removed, then put back as kept.
    rmSync(`${r}/other`);
    mkdirSync(`${r}/other`);
    writeFileSync(`${r}/other/x`, "x");
    s.apply(p);
    expect(readFileSync(`${r}/other`, "utf8")).toBe("hours of work");
    mkdirSync(`${r}/empty`);
    const pe = s.take([`${r}/empty`, `${r}/absent`], null);
    rmSync(`${r}/empty`, { recursive: true });
    execFileSync("ln", [`${r}/work.txt`, `${r}/empty`]);
    execFileSync("ln", [`${r}/work.txt`, `${r}/absent`]);
    s.apply(pe);
    expect(lstatSync(`${r}/empty`).isDirectory()).toBe(true);
    expect(existsSync(`${r}/absent`)).toBe(false);
    expect(readFileSync(`${r}/work.txt`, "utf8")).toBe("hours of work");
    // A kept file that is absent or a link now goes the usual way.
    rmSync(`${r}/other`);
    s.apply(p);
    expect(readFileSync(`${r}/other`, "utf8")).toBe("hours of work");
    rmSync(`${r}/other`);
    symlinkSync("work.txt", `${r}/other`);
    s.apply(p);
    expect(lstatSync(`${r}/other`).isSymbolicLink()).toBe(false);
    expect(readFileSync(`${r}/work.txt`, "utf8")).toBe("hours of work");
  });

  it("a path under another kept path is inside it; the same content twice is one object", () => {
    const r = root();
    const d = tree(r);
    const s = store();
    const p = s.take([`${d}/sub`, d, `${d}/a.txt`], null);
    expect(p.paths.map((k) => k.path)).toEqual([d]);
    const p2 = s.take([`${d}/a.txt`], null);
    expect(p2.paths).toEqual([{ path: `${d}/a.txt`, entries: [{ rel: "", kind: "file", mode: 0o640, hash: sha("alpha") }] }]);
    // Nothing new: no second pack.
    expect(readdirSync(`${s.dir}/packs`).length).toBe(2);
  });

  it("over the bound in files or bytes: over_bound, no manifest and no pack written; at the bound it is taken", () => {
    const r = root();
    const d = tree(r);
    const small = store({ maxFiles: 6, maxBytes: 1_000 });
    expect(() => small.take([d], null)).toThrow(new RestoreError("over_bound", "more than 6 files to keep"));
    const bytes = store({ maxFiles: 100, maxBytes: 19 });
    let e: unknown = null;
    try {
      bytes.take([d], null);
    } catch (x) {
      e = x;
    }
    expect((e as RestoreError).code).toBe("over_bound");
    expect((e as Error).message).toBe("more than 19 bytes to keep");
    for (const s of [small, bytes]) {
      expect(readdirSync(`${s.dir}/points`)).toEqual([]);
      expect(existsSync(`${s.dir}/packs`)).toBe(false);
    }
    // At the bound exactly: taken.
    expect(store({ maxFiles: 7, maxBytes: 20 }).take([d], null).files).toBe(7);
  });

  it("what is not a file, folder or link (a FIFO) cannot be kept: restore_failed", () => {
    const r = root();
    mkdirSync(`${r}/d`);
    execFileSync("mkfifo", [`${r}/d/pipe`]);
    const s = store();
    let e: unknown = null;
    try {
      s.take([`${r}/d`], null);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(RestoreError);
    expect((e as RestoreError).code).toBe("restore_failed");
    expect((e as Error).message).toBe(`${r}/d/pipe is not a file, directory or symbolic link`);
  });

  it("a path that cannot be read is restore_failed with the reason", () => {
    const r = root();
    symlinkSync("loop", `${r}/loop`);
    let e: unknown = null;
    try {
      store().take([`${r}/loop/x`], null);
    } catch (x) {
      e = x;
    }
    expect((e as RestoreError).code).toBe("restore_failed");
    expect((e as Error).message).toMatch(/^the restore point could not be taken: ELOOP/);
  });
});

describe("load and object: a point or object that does not match its hash is refused, never applied", () => {
  it("an id that is not a point id, a missing point, a manifest edited after it was written", () => {
    const r = root();
    const d = tree(r);
    const s = store();
    const p = s.take([d], null);
    expect(() => s.load("rp-../../etc")).toThrow(new RestoreError("restore_failed", "not a restore point id: rp-../../etc"));
    expect(() => s.load(`x${p.id}`)).toThrow("not a restore point id");
    expect(() => s.load(`${p.id}0`)).toThrow("not a restore point id");
    expect(() => s.load("rp-0000000000000000")).toThrow(/ENOENT/);
    const edited = { ...p, files: 1 };
    writeFileSync(`${s.dir}/points/${p.id}.json`, JSON.stringify(edited));
    expect(() => s.load(p.id)).toThrow(new RestoreError("restore_failed", `restore point ${p.id} does not match its digest`));
    // Another format, even with a digest that matches it, is not read as this one.
    expect(JSON.parse(readFileSync(`${s.dir}/points/${p.id}.json`, "utf8")).format).toBe("polar-restore-point/1");
    const { id: _id, digest: _digest, ...body } = { ...p, format: "polar-restore-point/2" };
    writeFileSync(`${s.dir}/points/${p.id}.json`, JSON.stringify({ ...body, id: p.id, digest: sha(JSON.stringify(body)) }));
    expect(() => s.load(p.id)).toThrow(new RestoreError("restore_failed", `restore point ${p.id} is in format "polar-restore-point/2", not polar-restore-point/1`));
  });

  it("a missing or corrupted object, in a pack or loose", () => {
    const r = root();
    const d = tree(r);
    const s = store();
    s.take([d], null);
    expect(() => s.object("0".repeat(64))).toThrow(new RestoreError("restore_failed", `object ${"0".repeat(64)} is missing from the store`));
    const pack = readdirSync(`${s.dir}/packs`).find((f) => f.endsWith(".pack"))!;
    const bytes = readFileSync(`${s.dir}/packs/${pack}`);
    bytes[0] = bytes[0]! ^ 1;
    writeFileSync(`${s.dir}/packs/${pack}`, bytes);
    const idx = JSON.parse(readFileSync(`${s.dir}/packs/${pack.replace(/\.pack$/, ".idx")}`, "utf8")) as Record<string, [number, number]>;
    const first = Object.entries(idx).find(([, [off]]) => off === 0)![0];
    const fresh = new RestoreStore(s.dir, DEFAULT_BOUNDS);
    expect(() => fresh.object(first)).toThrow(new RestoreError("restore_failed", `object ${first} is corrupted`));
    // The other object of the pack is still read at its offset.
    const second = Object.keys(idx).find((h) => h !== first)!;
    expect(sha(fresh.object(second))).toBe(second);
    // A loose object (stores before packs wrote one file per object) is checked the same way.
    writeFileSync(`${s.dir}/objects/${sha("loose")}`, "lose");
    expect(() => fresh.object(sha("loose"))).toThrow("is corrupted");
    writeFileSync(`${s.dir}/objects/${sha("loose")}`, "loose");
    expect(fresh.object(sha("loose")).toString()).toBe("loose");
    // A content the store holds loose already is not written again in a pack.
    writeFileSync(`${r}/l.txt`, "loose");
    const packs = readdirSync(`${s.dir}/packs`).length;
    expect(fresh.take([`${r}/l.txt`], null).paths[0]!.entries![0]!.hash).toBe(sha("loose"));
    expect(readdirSync(`${s.dir}/packs`).length).toBe(packs);
  });
});

describe("take and apply: a repository", () => {
  it("the whole scope keeps the work tree but .git, with HEAD, the index, refs and the stash; apply puts all of it back", () => {
    const ws = repo("rich");
    const s = store();
    const before = manifest(ws);
    const p = s.take([], ws);
    expect(p.paths.map((k) => k.path)).toEqual([ws]);
    expect(p.paths[0]!.entries!.some((e) => e.rel === ".git" || e.rel.startsWith(".git/"))).toBe(false);
    expect(p.repo).toMatchObject({ root: ws, head: "ref: refs/heads/main", index: sha(readFileSync(`${ws}/.git/index`)) });
    expect(p.repo!.scope).toBeUndefined();
    expect(p.repo!.refs.map((x) => x.name)).toEqual(["refs/heads/feature", "refs/heads/main", "refs/heads/old", "refs/heads/topic", "refs/remotes/origin/HEAD", "refs/remotes/origin/main", "refs/tags/v1"]);
    // A clone's origin/HEAD is kept as the symbolic ref it is; the others are plain.
    expect(p.repo!.refs.filter((x) => x.symref !== undefined)).toEqual([{ name: "refs/remotes/origin/HEAD", target: git(ws, ["rev-parse", "main"]).trim(), symref: "refs/remotes/origin/main" }]);
    expect(p.repo!.refs.every((x) => /^[0-9a-f]{40}$/.test(x.target))).toBe(true);
    expect(p.repo!.stash).toEqual([{ id: git(ws, ["rev-parse", "refs/stash"]).trim(), message: "WIP on main: " + git(ws, ["log", "-1", "--format=%h %s", "main"]).trim() }]);
    // Everything changes: work tree, index, HEAD, refs, stash.
    bash(ws, "git stash -q && git add -A && git commit -qm x && git branch -q made && git tag -d v1 && git checkout -q -b other && echo z > z.txt && git stash -q -u && git update-ref refs/remotes/origin/main HEAD && git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/other");
    s.apply(s.load(p.id));
    expect(diffManifests(before, manifest(ws))).toEqual([]);
    expect(git(ws, ["symbolic-ref", "refs/remotes/origin/HEAD"]).trim()).toBe("refs/remotes/origin/main");
  });

  it("a detached HEAD, no stash, no index: kept as they were", () => {
    const ws = repo("clean");
    bash(ws, "git checkout -q --detach HEAD~1 && rm .git/index");
    const head = readFileSync(`${ws}/.git/HEAD`, "utf8").trim();
    const s = store();
    const before = manifest(ws);
    const p = s.take([`${ws}/a.txt`], ws);
    expect(p.repo).toMatchObject({ head, index: null, stash: [] });
    bash(ws, "git checkout -q -f main && git reset -q && git stash -q -u");
    s.apply(p);
    expect(readFileSync(`${ws}/.git/HEAD`, "utf8").trim()).toBe(head);
    expect(existsSync(`${ws}/.git/index`)).toBe(false);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });

  it("a tracked scope keeps the paths of the index, HEAD and the target trees with the folders above them; untracked and ignored files are not kept", () => {
    const ws = repo("rich");
    const s = store();
    const p = s.take([], ws, { kind: "tracked", trees: ["topic"] });
    expect(p.repo!.scope).toBe("tracked");
    const kept = p.paths.map((k) => k.path.slice(ws.length + 1)).sort();
    expect(kept).toEqual([".gitignore", "a.txt", "b.txt", "bin/run.sh", "docs/readme.md", "link", "src/lib/y.ts", "src/x.ts", "staged.txt", "topic.txt"]);
    expect(p.dirs).toEqual([
      { path: `${ws}/bin`, mode: 0o755 & ~process.umask() },
      { path: `${ws}/docs`, mode: 0o755 & ~process.umask() },
      { path: `${ws}/src`, mode: 0o755 & ~process.umask() },
      { path: `${ws}/src/lib`, mode: 0o755 & ~process.umask() },
    ]);
    const before = manifest(ws);
    bash(ws, "git checkout -q -f topic && rm -rf docs && chmod 700 src");
    s.apply(p);
    const after = manifest(ws);
    // The work tree is back; HEAD, refs, index and stash too.
    expect(diffManifests(before, after)).toEqual([]);
  });

  it("a tracked scope whose tree is not known, or a kept path at the root, keeps the whole tree", () => {
    const ws = repo("clean");
    const s = store();
    expect(s.take([], ws, { kind: "tracked", trees: ["no-such-ref"] }).paths.map((k) => k.path)).toEqual([ws]);
    const p = s.take([ws], ws, { kind: "untracked", ignored: false });
    expect(p.paths.map((k) => k.path)).toEqual([ws]);
    expect(p.repo!.scope).toBeUndefined();
  });

  it("an untracked scope keeps untracked folders whole (with -x: the ignored ones too), and removes again a folder that was absent", () => {
    const ws = repo("rich");
    const s = store();
    const u = s.take([], ws, { kind: "untracked", ignored: false });
    expect(u.repo!.scope).toBe("untracked");
    expect(u.paths.map((k) => k.path.slice(ws.length + 1)).sort()).toEqual(["draft-link", "notes", "untracked.txt"]);
    const x = s.take([], ws, { kind: "untracked", ignored: true });
    expect(x.repo!.scope).toBe("untracked+ignored");
    expect(x.paths.map((k) => k.path.slice(ws.length + 1)).sort()).toEqual([".env.local", "app.log", "build", "draft-link", "notes", "untracked.txt"]);
    const before = manifest(ws);
    bash(ws, "git clean -qfdx");
    s.apply(x);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });

  it("tracked paths under some paths (a checkout of paths): only those, with the folders above them; absent folders removed again when empty, kept when something newer is in them", () => {
    const ws = repo("rich");
    rmSync(`${ws}/src/lib`, { recursive: true });
    const s = store();
    const p = s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/src`] });
    expect(p.repo).toBeNull();
    expect(p.paths.map((k) => [k.path.slice(ws.length + 1), k.entries === null])).toEqual([["src/lib/y.ts", true], ["src/x.ts", false]]);
    expect(p.dirs).toEqual([{ path: `${ws}/src`, mode: 0o755 & ~process.umask() }, { path: `${ws}/src/lib`, mode: null }]);
    const before = manifest(ws);
    bash(ws, "git checkout -- src");
    expect(existsSync(`${ws}/src/lib/y.ts`)).toBe(true);
    s.apply(p);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
    // Something newer in the absent folder: it stays.
    bash(ws, "git checkout -- src && echo n > src/lib/newer.txt");
    s.apply(p);
    expect(readdirSync(`${ws}/src/lib`)).toEqual(["newer.txt"]);
    // A file where a folder above a kept path would go is kept whole.
    rmSync(`${ws}/src/lib`, { recursive: true });
    writeFileSync(`${ws}/src/lib`, "a file in the way");
    const q = s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/src`] });
    expect(q.paths.map((k) => k.path.slice(ws.length + 1))).toEqual(["src/lib", "src/x.ts"]);
  });
});

describe("take and apply: which scope, and the folders above a narrowed scope's paths", () => {
  it("a narrowed scope stays narrowed with a kept path inside the repository; a kept path at or above the root keeps the whole tree; without a repository a scope names nothing", () => {
    const ws = repo("clean");
    const s = store();
    const inside = s.take([`${ws}/a.txt`], ws, { kind: "untracked", ignored: false });
    expect(inside.repo!.scope).toBe("untracked");
    expect(inside.paths.map((k) => k.path)).toEqual([`${ws}/a.txt`]);
    const above = s.take([dirname(ws)], ws, { kind: "untracked", ignored: false });
    expect(above.repo!.scope).toBeUndefined();
    // (the parent keeps .git too, which a command there can remove; the root is also kept as the whole scope keeps it)
    expect(above.paths.map((k) => k.path)).toEqual([dirname(ws), ws]);
    const none = s.take([`${ws}/a.txt`], null, { kind: "tracked", trees: [] });
    expect([none.repo, none.paths.map((k) => k.path), none.dirs]).toEqual([null, [`${ws}/a.txt`], undefined]);
  });

  it("tracked paths under some paths: a tracked file itself, the root (every tracked path), several paths; a tree not known keeps those paths whole", () => {
    const ws = repo("rich");
    const s = store();
    const rel = (p: RestorePoint) => p.paths.map((k) => k.path.slice(ws.length + 1)).sort();
    expect(rel(s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/a.txt`] }))).toEqual(["a.txt"]);
    expect(rel(s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [ws] }))).toEqual([".gitignore", "a.txt", "b.txt", "bin/run.sh", "docs/readme.md", "link", "src/lib/y.ts", "src/x.ts", "staged.txt"]);
    expect(rel(s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/docs`, `${ws}/src/lib`] }))).toEqual(["docs/readme.md", "src/lib/y.ts"]);
    const unknown = s.take([], null, { kind: "all" }, { root: ws, trees: ["no-such-ref"], under: [`${ws}/src`, `${ws}/a.txt`] });
    expect(rel(unknown)).toEqual(["a.txt", "src"]);
    expect(unknown.dirs).toBeUndefined();
  });

  it("folders above the kept paths that were there stay (made again with their mode when removed); nested folders that were absent are removed again, deepest first", () => {
    const ws = repo("rich");
    rmSync(`${ws}/src/x.ts`);
    rmSync(`${ws}/src/lib/y.ts`);
    chmodSync(`${ws}/src/lib`, 0o750);
    const s = store();
    const p = s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/src`] });
    expect(p.dirs).toEqual([{ path: `${ws}/src`, mode: 0o755 & ~process.umask() }, { path: `${ws}/src/lib`, mode: 0o750 }]);
    const before = manifest(ws);
    bash(ws, "git checkout -- src");
    s.apply(p);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
    rmSync(`${ws}/src`, { recursive: true });
    s.apply(p);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
    // A file made where the folder was is newer than the point: not removed, the apply fails (at the paths under it).
    rmSync(`${ws}/src`, { recursive: true });
    writeFileSync(`${ws}/src`, "newer");
    expect(() => s.apply(p)).toThrow(/ENOTDIR/);
    expect(readFileSync(`${ws}/src`, "utf8")).toBe("newer");
    rmSync(`${ws}/src`);
    s.apply(p);
    // Both src and src/lib absent at the point: both removed again after a checkout made them.
    rmSync(`${ws}/src`, { recursive: true });
    const q = s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/src`] });
    expect(q.dirs).toEqual([{ path: `${ws}/src`, mode: null }, { path: `${ws}/src/lib`, mode: null }]);
    const gone = manifest(ws);
    bash(ws, "git checkout -- src");
    s.apply(q);
    expect(diffManifests(gone, manifest(ws))).toEqual([]);
  });

  it("a folder above a kept path that cannot be read is restore_failed; a file in the way two levels up is kept whole", () => {
    const ws = repo("rich");
    rmSync(`${ws}/src`, { recursive: true });
    symlinkSync("src", `${ws}/src`); // a link to itself: src/lib cannot be looked up
    const s = store();
    expect(() => s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/src`] })).toThrow(/^the restore point could not be taken: ELOOP/);
    rmSync(`${ws}/src`);
    writeFileSync(`${ws}/src`, "a file where src was");
    const p = s.take([], null, { kind: "all" }, { root: ws, trees: [], under: [`${ws}/src`] });
    expect(p.paths.map((k) => k.path.slice(ws.length + 1))).toEqual(["src"]);
    expect(p.dirs).toEqual([{ path: `${ws}/src`, mode: null }, { path: `${ws}/src/lib`, mode: null }]);
  });
});

describe("take and apply: a repository's other states", () => {
  it("a repository with no commit yet (no refs, no HEAD tree): taken and put back", () => {
    const r = root();
    bash(r, "git init -q -b main && echo x > f && git add f");
    const s = store();
    const before = manifest(r);
    const p = s.take([`${r}/f`], r, { kind: "tracked", trees: [] });
    expect(p.repo).toMatchObject({ head: "ref: refs/heads/main", refs: [], stash: [] });
    bash(r, "echo y > f && git add f && git -c user.email=t@e -c user.name=t commit -qm c");
    s.apply(p);
    expect(diffManifests(before, manifest(r))).toEqual([]);
    // Applied again where there is still no ref: no ref to write or delete (git refuses an empty list).
    s.apply(p);
    expect(diffManifests(before, manifest(r))).toEqual([]);
  });

  it("a point without an index applied where there is still none; two stashes put back in their order, also from packed refs", () => {
    const ws = repo("clean");
    rmSync(`${ws}/.git/index`);
    const s = store();
    const p = s.take([`${ws}/a.txt`], ws);
    s.apply(p);
    expect(existsSync(`${ws}/.git/index`)).toBe(false);
    bash(ws, "git reset -q && echo 1 > a.txt && git stash -q && echo 2 > a.txt && git stash -q && git pack-refs --all");
    expect(existsSync(`${ws}/.git/refs/stash`)).toBe(false);
    const before = manifest(ws);
    const q = s.take([`${ws}/a.txt`], ws);
    expect(q.repo!.stash.map((x) => x.id)).toEqual([git(ws, ["rev-parse", "stash@{0}"]).trim(), git(ws, ["rev-parse", "stash@{1}"]).trim()]);
    bash(ws, "git stash drop -q && git stash drop -q");
    s.apply(q);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });

  it("what it cannot keep is restore_failed, never a point that loses it: a stash ref without its reflog, an empty HEAD", () => {
    const ws = repo("rich");
    const s = store();
    rmSync(`${ws}/.git/logs/refs/stash`);
    expect(() => s.take([`${ws}/a.txt`], ws)).toThrow(new RestoreError("restore_failed", `the stash of ${ws} has no reflog`));
    writeFileSync(`${ws}/.git/HEAD`, "");
    expect(() => s.take([`${ws}/a.txt`], ws)).toThrow(new RestoreError("restore_failed", `${ws}/.git/HEAD is empty`));
    expect(readdirSync(`${s.dir}/points`)).toEqual([]);
  });

  it("an untracked scope keeps an untracked folder inside a tracked one as that folder", () => {
    const ws = repo("clean");
    mkdirSync(`${ws}/src/new/deep`, { recursive: true });
    writeFileSync(`${ws}/src/new/deep/n.txt`, "n");
    const s = store();
    const p = s.take([], ws, { kind: "untracked", ignored: false });
    expect(p.paths.map((k) => k.path.slice(ws.length + 1))).toEqual(["src/new"]);
    const before = manifest(ws);
    bash(ws, "git clean -qfd");
    s.apply(p);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });
});

describe("scopePaths and fingerprint", () => {
  it("scopePaths: tracked paths of the index, HEAD and the trees; null for an unknown tree; an empty repository has no HEAD tree", () => {
    const ws = repo("rich");
    expect(scopePaths(ws, { kind: "tracked", trees: [] })!.sort()).toEqual([".gitignore", "a.txt", "b.txt", "bin/run.sh", "docs/readme.md", "link", "src/lib/y.ts", "src/x.ts", "staged.txt"]);
    expect(scopePaths(ws, { kind: "tracked", trees: ["nope"] })).toBeNull();
    expect(scopePaths(ws, { kind: "untracked", ignored: false })!.sort()).toEqual(["draft-link", "notes", "untracked.txt"]);
    const r = root();
    bash(r, "git init -q && echo x > f && git add f");
    expect(scopePaths(r, { kind: "tracked", trees: [] })).toEqual(["f"]);
  });

  it("fingerprint: content, mode, kind, link target and absence of each path and everything under it; bounded", () => {
    const r = root();
    const d = tree(r);
    const f0 = fingerprint([d, `${r}/none`]);
    expect(fingerprint([`${r}/none`, d, d])).toBe(f0);
    const changes = [
      () => writeFileSync(`${d}/sub/deep/same.txt`, "beta"),
      () => chmodSync(`${d}/a.txt`, 0o600),
      () => chmodSync(`${d}/sub`, 0o700),
      () => {
        rmSync(`${d}/sub/link`);
        symlinkSync("a.txt", `${d}/sub/link`);
      },
      () => writeFileSync(`${r}/none`, ""),
      () => mkdirSync(`${d}/sub/deep/empty`),
    ];
    let prev = f0;
    for (const c of changes) {
      c();
      const now = fingerprint([d, `${r}/none`]);
      expect(now, c.toString()).not.toBe(prev);
      prev = now;
    }
    // Eight entries under d now: a limit of 8 reads them all, 7 is over.
    expect(() => fingerprint([d], 7)).toThrow(new RestoreError("over_bound", "too many files to fingerprint"));
    expect(fingerprint([d], 8)).toBe(fingerprint([d]));
    expect(relativeTo("/a/b", "/a/b/c/d")).toBe("c/d");
  });
});
