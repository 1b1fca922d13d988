// Layer B of a workspace (src/shell/workspace.ts), in-process on real folders and one small git
// repository: the facts a path and a repository give the verdict (kind, git state, inside the
// workspace), what is cached until invalidate(), and the reads that fail (never a default).
import { chmodSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { git, isDir, kindOf, Workspace, WorkspaceReadError } from "../../src/shell/workspace.js";
import { buildTemplate, copyTemplate, sh as bash, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function root(): string {
  const r = realpathSync(tempDir("polar-shell-ws-"));
  made.push(r);
  return r;
}

let tpl: string | null = null;
/** A copy of the `rich` template: modified a.txt, staged staged.txt, untracked untracked.txt and
 * notes/, ignored .env.local, build/, app.log, a stash, a symbolic link `link` to a.txt (tracked). */
function rich(): string {
  if (tpl === null) {
    tpl = buildTemplate("rich");
    made.push(tpl);
  }
  return copyTemplate(tpl, `${root()}/ws`);
}

describe("kindOf and isDir", () => {
  it("the kind of what is at a path, not following a final link; absent also under a file", () => {
    const r = root();
    mkdirSync(`${r}/d`);
    writeFileSync(`${r}/f`, "x");
    symlinkSync("d", `${r}/l`);
    expect(kindOf(`${r}/d`)).toBe("directory");
    expect(kindOf(`${r}/f`)).toBe("file");
    expect(kindOf(`${r}/l`)).toBe("symlink");
    expect(kindOf("/dev/null")).toBe("other");
    expect(kindOf(`${r}/none`)).toBe("absent");
    expect(kindOf(`${r}/f/under`)).toBe("absent");
    symlinkSync("loop", `${r}/loop`);
    expect(() => kindOf(`${r}/loop/x`)).toThrow(WorkspaceReadError);
    expect(() => kindOf(`${r}/loop/x`)).toThrow(/^cannot read .*\/loop\/x: ELOOP/);
    expect(isDir(`${r}/d`)).toBe(true);
    expect(isDir(`${r}/l`)).toBe(true);
    expect(isDir(`${r}/f`)).toBe(false);
    expect(isDir(`${r}/none`)).toBe(false);
  });
});

describe("git", () => {
  it("runs git in a folder and gives its output; a failure is a WorkspaceReadError naming the subcommand and git's first line", () => {
    const ws = rich();
    expect(git(ws, ["rev-parse", "--abbrev-ref", "HEAD"])).toBe("main\n");
    expect(git(ws, ["hash-object", "--stdin"], "x")).toBe(`${bash(ws, "printf x | git hash-object --stdin")}`);
    const r = root();
    let e: unknown = null;
    try {
      git(r, ["status"]);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(WorkspaceReadError);
    expect((e as Error).name).toBe("WorkspaceReadError");
    expect((e as Error).message).toBe("git status failed: fatal: not a git repository (or any of the parent directories): .git");
    // A failure with nothing on stderr: the first line of the error itself.
    expect(() => git(ws, ["rev-parse", "-q", "--verify", "refs/heads/nope"])).toThrow(/^git rev-parse failed: Command failed: git -C \S+ rev-parse -q --verify refs\/heads\/nope$/u);
  });
});

describe("Workspace.repoOf", () => {
  it("the nearest folder up with a .git (a file or a folder), cached until invalidate()", () => {
    const r = root();
    mkdirSync(`${r}/repo/.git`, { recursive: true });
    mkdirSync(`${r}/repo/a/b`, { recursive: true });
    mkdirSync(`${r}/wt/c`, { recursive: true });
    writeFileSync(`${r}/wt/.git`, "gitdir: elsewhere\n");
    const w = new Workspace(r);
    expect(w.repoOf(`${r}/repo/a/b`)).toBe(`${r}/repo`);
    expect(w.repoOf(`${r}/repo`)).toBe(`${r}/repo`);
    expect(w.repoOf(`${r}/wt/c`)).toBe(`${r}/wt`);
    expect(w.repoOf(r)).toBeNull();
    // Cached: a .git made later is not seen until invalidate().
    mkdirSync(`${r}/repo/a/.git`);
    expect(w.repoOf(`${r}/repo/a/b`)).toBe(`${r}/repo`);
    w.invalidate();
    expect(w.repoOf(`${r}/repo/a/b`)).toBe(`${r}/repo/a`);
    // Every folder walked through is cached: none above the found one is read again.
    rmSync(`${r}/repo/a/.git`, { recursive: true });
    expect(w.repoOf(`${r}/repo/a`)).toBe(`${r}/repo/a`);
  });
});

describe("Workspace.paths: the facts of each touched path", () => {
  it("outside a repository: kind, `outside` (absent when nothing is there) and whether it is inside the workspace", () => {
    const r = root();
    mkdirSync(`${r}/ws/d`, { recursive: true });
    writeFileSync(`${r}/ws/f`, "x");
    writeFileSync(`${r}/out`, "x");
    symlinkSync(`${r}/out`, `${r}/ws/to-out`);
    symlinkSync(`${r}/ws/f`, `${r}/ws/to-in`);
    const w = new Workspace(`${r}/ws`);
    const f = w.paths([`${r}/ws/f`, `${r}/ws/d`, `${r}/ws/none`, `${r}/ws/none/deeper`, `${r}/out`, `${r}/ws/to-out`, `${r}/ws/to-in`, `${r}/ws`, `${r}/wsx`, `${r}/ws/f`]);
    expect(Object.fromEntries([...f].map(([p, x]) => [p.slice(r.length), x]))).toEqual({
      "/ws/f": { kind: "file", git: "outside", inside: true },
      "/ws/d": { kind: "directory", git: "outside", inside: true },
      "/ws/none": { kind: "absent", git: "absent", inside: true },
      "/ws/none/deeper": { kind: "absent", git: "absent", inside: false },
      "/out": { kind: "file", git: "outside", inside: false },
      "/ws/to-out": { kind: "symlink", git: "outside", inside: false },
      "/ws/to-in": { kind: "symlink", git: "outside", inside: true },
      "/ws": { kind: "directory", git: "outside", inside: true },
      "/wsx": { kind: "absent", git: "absent", inside: false },
    });
    expect(w.gitCalls).toBe(0);
  });

  it("in a repository: clean, modified, staged, untracked, ignored, a deleted tracked path, a clean or dirty folder, the root, its .git", () => {
    const ws = rich();
    writeFileSync(`${ws}/spaced name.txt`, "x");
    bash(ws, "git add 'spaced name.txt' && git commit -qm spaced -o 'spaced name.txt' && echo more >> 'spaced name.txt'");
    bash(ws, "rm b.txt && mkdir -p empty/inner");
    writeFileSync(`${ws}/src/lib/new.ts`, "n");
    const w = new Workspace(ws);
    const names = ["bin/run.sh", "a.txt", "staged.txt", "untracked.txt", ".env.local", "b.txt", "nothing.txt", "docs", "src", "notes", "link", "spaced name.txt", "build", "empty", ".git", ".git/config", "bin"];
    const f = w.paths([...names.map((n) => `${ws}/${n}`), ws]);
    const git = Object.fromEntries(names.map((n) => [n, f.get(`${ws}/${n}`)!.git]));
    expect(git).toEqual({
      "bin/run.sh": "clean",
      "a.txt": "modified",
      "staged.txt": "staged",
      "untracked.txt": "untracked",
      ".env.local": "ignored",
      "b.txt": "modified",
      "nothing.txt": "absent",
      docs: "clean",
      src: "dirty",
      notes: "dirty",
      link: "clean",
      "spaced name.txt": "modified",
      build: "dirty",
      empty: "dirty",
      ".git": "outside",
      ".git/config": "outside",
      bin: "clean",
    });
    expect(f.get(ws)).toEqual({ kind: "directory", git: "dirty", inside: true });
    expect(f.get(`${ws}/b.txt`)).toEqual({ kind: "absent", git: "modified", inside: true });
    // One status and one ls-files for all of them.
    expect(w.gitCalls).toBe(2);
    // Cached until invalidate().
    w.paths([`${ws}/a.txt`]);
    expect(w.gitCalls).toBe(2);
    w.invalidate();
    w.paths([`${ws}/a.txt`]);
    expect(w.gitCalls).toBe(4);
  });

  it("a link to another repository is a path of this one (a new link: untracked), never that repository", () => {
    const ws = rich();
    const other = `${root()}/other`;
    mkdirSync(other);
    bash(other, "git init -q");
    symlinkSync(other, `${ws}/lrepo`);
    expect(new Workspace(ws).paths([`${ws}/lrepo`]).get(`${ws}/lrepo`)).toEqual({ kind: "symlink", git: "untracked", inside: false });
  });

  it("a tracked file in another mode than git writes it, or a link where a file was, is modified", () => {
    const ws = rich();
    chmodSync(`${ws}/b.txt`, 0o600);
    chmodSync(`${ws}/bin/run.sh`, 0o644);
    bash(ws, "git config core.fileMode false");
    rmSync(`${ws}/docs/readme.md`);
    symlinkSync("../a.txt", `${ws}/docs/readme.md`);
    rmSync(`${ws}/link`);
    writeFileSync(`${ws}/link`, "a.txt");
    const w = new Workspace(ws);
    const f = w.paths([`${ws}/b.txt`, `${ws}/bin/run.sh`, `${ws}/bin`, `${ws}/docs/readme.md`, `${ws}/link`]);
    expect([...f.values()].map((x) => x.git)).toEqual(["modified", "modified", "dirty", "modified", "modified"]);
  });

  it("a folder is clean only while its walk stays within the bound (20,000 entries by default): one entry more is dirty", () => {
    expect(new Workspace(root()).maxWalkEntries).toBe(20_000);
    const ws = rich();
    // src: x.ts, lib/, lib/y.ts (3 entries, every one tracked and clean); docs: readme.md (1).
    bash(ws, "git checkout -q -- . && rm -rf src/lib/new.ts");
    const facts = (bound: number) => {
      const f = new Workspace(ws, { maxWalkEntries: bound }).paths([`${ws}/src`, `${ws}/docs`]);
      return [f.get(`${ws}/src`)!.git, f.get(`${ws}/docs`)!.git];
    };
    expect(facts(3)).toEqual(["clean", "clean"]);
    expect(facts(2)).toEqual(["dirty", "clean"]);
    expect(facts(1)).toEqual(["dirty", "clean"]);
    expect(facts(0)).toEqual(["dirty", "dirty"]);
  });

  it("a file with a merge conflict (git's unmerged record) is modified, its folder dirty; the repository dirty", () => {
    const ws = rich();
    bash(ws, "git stash -q -u && git checkout -q -b left && mkdir -p conflict && echo left > 'conflict/c d.txt' && git add conflict && git commit -qm left && git checkout -q main && mkdir -p conflict && echo right > 'conflict/c d.txt' && git add conflict && git commit -qm right && (git merge -q left >/dev/null 2>&1 || true)");
    expect(bash(ws, "git status --porcelain=v2 -- conflict").startsWith("u ")).toBe(true);
    const w = new Workspace(ws);
    const f = w.paths([`${ws}/conflict/c d.txt`, `${ws}/conflict`, `${ws}/docs`]);
    expect([f.get(`${ws}/conflict/c d.txt`)!.git, f.get(`${ws}/conflict`)!.git, f.get(`${ws}/docs`)!.git]).toEqual(["modified", "dirty", "clean"]);
    expect(w.repo(ws)).toMatchObject({ dirty: true, untracked: false });
  });

  it("a tracked file git was told to assume unchanged, or skips in the work tree, is modified whatever it holds (git status never shows its edits), its folder dirty (was: clean — its work lost by rm and reset --hard)", () => {
    const ws = rich();
    bash(ws, "git checkout -q -- . && git update-index --assume-unchanged b.txt src/x.ts staged.txt && git update-index --skip-worktree docs/readme.md");
    writeFileSync(`${ws}/b.txt`, "uncommitted work");
    writeFileSync(`${ws}/staged.txt`, "work after the staged change");
    expect(bash(ws, "git status --porcelain -- b.txt src docs")).toBe("");
    const f = new Workspace(ws).paths([`${ws}/b.txt`, `${ws}/src/x.ts`, `${ws}/src`, `${ws}/docs/readme.md`, `${ws}/docs`, `${ws}/bin/run.sh`, `${ws}/bin`, `${ws}/staged.txt`]);
    // staged.txt's index differs from HEAD (status: staged), but its work tree is not compared: modified.
    expect([...f.values()].map((x) => x.git)).toEqual(["modified", "modified", "dirty", "modified", "dirty", "clean", "clean", "modified"]);
  });

  it("a tracked file replaced by something that is not a file (a FIFO) is modified, whatever its mode", () => {
    const ws = rich();
    rmSync(`${ws}/docs/readme.md`);
    bash(ws, "mkfifo -m 644 docs/readme.md");
    const f = new Workspace(ws).paths([`${ws}/docs/readme.md`, `${ws}/docs`]);
    expect([f.get(`${ws}/docs/readme.md`), f.get(`${ws}/docs`)!.git]).toEqual([{ kind: "other", git: "modified", inside: true }, "dirty"]);
  });

  it("reading never writes the repository: the index is not refreshed (GIT_OPTIONAL_LOCKS=0), even when git could", () => {
    const ws = rich();
    // A tracked file touched without a change: a plain `git status` would refresh and rewrite the index.
    bash(ws, "git checkout -q -- . && touch -d @1000000000 docs/readme.md b.txt");
    const before = statSync(`${ws}/.git/index`);
    const w = new Workspace(ws);
    w.paths([`${ws}/docs/readme.md`, `${ws}/docs`, `${ws}/b.txt`]);
    w.repo(ws);
    const after = statSync(`${ws}/.git/index`);
    expect([after.mtimeMs, after.size, after.ino]).toEqual([before.mtimeMs, before.size, before.ino]);
    // (git writes a new index by renaming a lock file over it: another inode)
    bash(ws, "git status >/dev/null");
    expect(statSync(`${ws}/.git/index`).ino).not.toBe(before.ino);
  });

  it("a path whose git read fails is a WorkspaceReadError, never a default", () => {
    const ws = rich();
    writeFileSync(`${ws}/.git/index`, "garbage");
    const w = new Workspace(ws);
    expect(() => w.paths([`${ws}/a.txt`])).toThrow(WorkspaceReadError);
  });
});

describe("Workspace.repo and ref", () => {
  it("the repository's facts: head, branch, upstream and ahead, dirty, untracked, ignored, stashes; cached until invalidate()", () => {
    const ws = rich();
    const w = new Workspace(ws);
    const head = git(ws, ["rev-parse", "HEAD"]).trim();
    expect(w.repo(ws)).toEqual({ root: ws, head, branch: "main", upstream: null, ahead: null, dirty: true, untracked: true, ignored: true, stashes: 1 });
    const calls = w.gitCalls;
    expect(calls).toBe(2);
    w.repo(ws);
    expect(w.gitCalls).toBe(calls);
    bash(ws, "git stash -q -u && git stash -q --all || true");
    w.invalidate();
    const after = w.repo(ws);
    expect(after.stashes).toBeGreaterThanOrEqual(2);
    expect(after.dirty).toBe(false);
  });

  it("a clean repository on a detached HEAD with an upstream elsewhere; an empty repository", () => {
    const ws = rich();
    bash(ws, "git stash clear && git reset -q --hard && git clean -qfdx && git branch -q --set-upstream-to=old main 2>/dev/null || git branch -q -u old");
    const w = new Workspace(ws);
    const f = w.repo(ws);
    expect(f).toMatchObject({ branch: "main", upstream: "old", ahead: 1, dirty: false, untracked: false, ignored: false, stashes: 0 });
    bash(ws, "git checkout -q --detach HEAD");
    w.invalidate();
    expect(w.repo(ws)).toMatchObject({ branch: "", upstream: null, ahead: null });
    const r = root();
    bash(r, "git init -q -b trunk");
    expect(new Workspace(r).repo(r)).toEqual({ root: r, head: null, branch: "trunk", upstream: null, ahead: null, dirty: false, untracked: false, ignored: false, stashes: 0 });
  });

  it("a repository whose only uncommitted work is in a path git assumes unchanged is dirty (reset --hard writes over it); one with a skipped work-tree path only is not", () => {
    const ws = rich();
    bash(ws, "git stash clear && git reset -q --hard && git clean -qfdx");
    const w = new Workspace(ws);
    expect(w.repo(ws).dirty).toBe(false);
    bash(ws, "git update-index --skip-worktree b.txt && echo kept > b.txt");
    w.invalidate();
    expect(w.repo(ws).dirty).toBe(false);
    bash(ws, "git update-index --assume-unchanged a.txt && echo work > a.txt");
    w.invalidate();
    expect(w.repo(ws)).toMatchObject({ dirty: true, untracked: false });
    expect(bash(ws, "git reset -q --hard && cat a.txt b.txt")).toBe("alpha\nkept\n");
  });

  it("a linked worktree (`.git` a file): the stash of the repository it shares is counted, none when there is none", () => {
    const ws = rich();
    const wt = `${root()}/wt`;
    bash(ws, `git worktree add -q '${wt}' -b side`);
    const w = new Workspace(wt);
    expect(w.repoOf(wt)).toBe(wt);
    expect(w.repo(wt)).toMatchObject({ root: wt, branch: "side", dirty: false, stashes: 1 });
    bash(wt, "git stash clear");
    w.invalidate();
    expect(w.repo(wt).stashes).toBe(0);
    expect(new Workspace(ws).repo(ws).stashes).toBe(0);
  });

  it("a ref's target, or null when it does not exist; each read is counted", () => {
    const ws = rich();
    const w = new Workspace(ws);
    expect(w.ref(ws, "refs/tags/v1")).toBe(git(ws, ["rev-parse", "v1"]).trim());
    expect(w.ref(ws, "refs/heads/nope")).toBeNull();
    expect(w.gitCalls).toBe(2);
  });
});
