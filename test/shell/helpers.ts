// Real git workspaces for the shell guard's tests: template repositories built once, copied per case
// (fs.cpSync, no process), and a full manifest of a workspace (every path: kind, mode, content hash,
// link target; git HEAD, refs, index entries, stash) to compare before and after.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createShellGuard } from "../../src/shell/index.js";

export function sh(cwd: string, script: string): string {
  return execFileSync("bash", ["-c", script], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z", GIT_TERMINAL_PROMPT: "0" } });
}

/** Runs a command line the way an agent's shell would; its exit status does not matter. */
export function runBash(cwd: string, command: string): number {
  try {
    execFileSync("bash", ["-c", command], { cwd, stdio: "ignore", timeout: 20_000, env: { ...process.env, GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z", GIT_EDITOR: "true", GIT_TERMINAL_PROMPT: "0" } });
    return 0;
  } catch (e) {
    return (e as { status?: number }).status ?? 1;
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(`${tmpdir()}/${prefix}`);
}

const GIT_INIT = "git init -q -b main && git config user.email t@example.com && git config user.name t && git config commit.gpgsign false && git config core.hooksPath /dev/null";

/** kinds: `rich` (every git state, and a clone's symbolic origin/HEAD), `clean` (committed, nothing else), `plain` (no repository),
 * `linked` (committed, with links out of the workspace and files that will be hard links: see
 * linkTemplate, which makes what a copy cannot carry). */
export function buildTemplate(kind: "rich" | "clean" | "plain" | "linked"): string {
  const d = tempDir(`polar-shell-tpl-${kind}-`);
  const w = (p: string, text: string, mode = 0o644) => {
    mkdirSync(`${d}/${p}`.replace(/\/[^/]+$/, ""), { recursive: true });
    writeFileSync(`${d}/${p}`, text);
    chmodSync(`${d}/${p}`, mode);
  };
  w("a.txt", "alpha\n");
  w("b.txt", "beta\n");
  w("src/x.ts", "export const x = 1;\n");
  w("src/lib/y.ts", "export const y = 2;\n");
  w("docs/readme.md", "# docs\n");
  w("bin/run.sh", "#!/bin/sh\necho run\n", 0o755);
  symlinkSync("a.txt", `${d}/link`);
  if (kind === "plain") {
    w("notes/draft.md", "draft\n");
    return d;
  }
  w(".gitignore", ".env.local\nbuild/\n*.log\n");
  sh(d, `${GIT_INIT} && git add -A && git commit -qm init && git tag v1 && git branch old && echo more >> b.txt && git commit -qam second && git branch feature && git checkout -q -b topic && echo topic > topic.txt && git add topic.txt && git commit -qm topic && git checkout -q main`);
  if (kind === "linked") {
    // Committed: links to a file and a folder outside the workspace (`$OUT` is the case's `../out`), a
    // link in a folder to a file outside it, one up to a file of the workspace, a dangling one, one to a
    // folder of the workspace (srcl -> src: two spellings of one place); hard-a
    // and hout hold what the files they are made hard links of hold (linkTemplate).
    w("hard-a", "alpha\n");
    w("hout", "out hard\n");
    symlinkSync("../out/o.txt", `${d}/outl`);
    symlinkSync("../out/odir", `${d}/outdir`);
    symlinkSync("../../out/o.txt", `${d}/src/lnk-out`);
    symlinkSync("../a.txt", `${d}/src/lnk-up`);
    symlinkSync("nowhere", `${d}/dangling`);
    symlinkSync("src", `${d}/srcl`);
    sh(d, "git add -A && git commit -qm links");
  }
  if (kind === "rich") {
    // As in a clone: origin's branch and refs/remotes/origin/HEAD, a symbolic ref to it.
    sh(d, "git update-ref refs/remotes/origin/main main && git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main");
    w("stashed.txt", "s0\n");
    sh(d, "git add stashed.txt && git stash -q");
    w("a.txt", "alpha modified\n");
    w("staged.txt", "staged\n");
    sh(d, "git add staged.txt");
    w("untracked.txt", "untracked\n");
    w("notes/draft.md", "draft\n");
    w(".env.local", "SECRET=1\n", 0o600);
    w("build/out.o", "binary\n");
    w("app.log", "log\n");
    symlinkSync("notes/draft.md", `${d}/draft-link`);
  }
  return d;
}

/** What a copy of the `linked` template cannot carry, made in the copy `ws` beside the folder outside
 * it, `out` (made here): hard-a, a committed file, is a hard link of a.txt (same content: still clean
 * to git status); hout one of out/hl.txt; hard-b, untracked, one of b.txt; abs-link an absolute link to
 * out/o.txt. */
export function linkTemplate(ws: string, out: string): void {
  mkdirSync(`${out}/odir`, { recursive: true });
  writeFileSync(`${out}/o.txt`, "outside\n");
  writeFileSync(`${out}/odir/f.txt`, "f\n");
  writeFileSync(`${out}/hl.txt`, "out hard\n");
  rmSync(`${ws}/hard-a`);
  linkSync(`${ws}/a.txt`, `${ws}/hard-a`);
  rmSync(`${ws}/hout`);
  linkSync(`${out}/hl.txt`, `${ws}/hout`);
  linkSync(`${ws}/b.txt`, `${ws}/hard-b`);
  symlinkSync(`${out}/o.txt`, `${ws}/abs-link`);
}

export function copyTemplate(tpl: string, into: string): string {
  cpSync(tpl, into, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  return into;
}

/** Every path under the workspace (without .git; its kind, mode, content or link target, and for a file
 * with other names, hard links, how many and which of the walk's paths are the same file) and the
 * repository's HEAD, refs, index and stash. */
export function manifest(ws: string): Map<string, string> {
  const m = new Map<string, string>();
  // A file with other names (hard links): its count of names and the names of the walk that share it.
  const inodes = new Map<string, string[]>();
  const walk = (full: string, rel: string): void => {
    for (const n of readdirSync(full).sort()) {
      if (rel === "" && n === ".git") continue;
      const f = `${full}/${n}`;
      const r = rel === "" ? n : `${rel}/${n}`;
      const s = lstatSync(f);
      const mode = (s.mode & 0o7777).toString(8);
      if (s.isSymbolicLink()) m.set(r, `link ${mode} -> ${readlinkSync(f)}`);
      else if (s.isDirectory()) {
        m.set(r, `dir ${mode}`);
        walk(f, r);
      } else {
        m.set(r, `file ${mode} ${createHash("sha256").update(readFileSync(f)).digest("hex").slice(0, 16)}`);
        if (s.nlink > 1) inodes.set(`${s.dev}:${s.ino}`, [...(inodes.get(`${s.dev}:${s.ino}`) ?? []), `${r} (${s.nlink} names)`]);
      }
    }
  };
  walk(ws, "");
  for (const names of inodes.values()) for (const n of names) m.set(`${n.slice(0, n.lastIndexOf(" ("))} (same file as)`, names.join(", "));
  let isRepo = true;
  try {
    lstatSync(`${ws}/.git`);
  } catch {
    isRepo = false;
  }
  if (isRepo) {
    // HEAD and the stash's reflog where git keeps them (`.git` may be a file: a linked worktree, a
    // submodule); a symbolic ref with the ref it names.
    const out = sh(ws, `cat "$(git rev-parse --git-path HEAD)"; echo '--refs'; git for-each-ref --format='%(refname) %(objectname) %(symref)'; echo '--index'; git ls-files -s; echo '--stash'; if [ -f "$(git rev-parse --git-path logs/refs/stash)" ]; then git log -g --format=%H refs/stash --; fi`);
    m.set(".git (HEAD, refs, index, stash)", out);
  }
  return m;
}

export function diffManifests(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v) out.push(`${k}: ${v.slice(0, 300)} → ${(b.get(k) ?? "(absent)").slice(0, 300)}`);
  for (const [k, v] of b) if (!a.has(k)) out.push(`${k}: (absent) → ${v.slice(0, 300)}`);
  return out;
}

/** A workspace (a git repository when `git`) beside a folder outside it, built by `script` (run in the
 * workspace; `$OUT` is the folder outside) and, after the commit, `then`; the line is checked under `snapshot`, run with bash when
 * approved, observed and undone; `after`: how both folders' manifests differ from before (empty: undone
 * exactly). Everything is removed after. */
export async function undoneExactly(script: string, line: string, git: boolean, then = ""): Promise<{ approved: boolean; reason: string; message: string; undo: string; after: string[] }> {
  const root = tempDir("polar-shell-undone-");
  try {
    const ws = `${root}/ws`;
    mkdirSync(ws);
    mkdirSync(`${root}/out`);
    sh(ws, `export OUT=${root}/out; ${script}`);
    if (git) sh(ws, `${GIT_INIT} && git add -A && git commit -qm init`);
    // (what changes the workspace after the commit, before the guard is made)
    if (then !== "") sh(ws, `export OUT=${root}/out; ${then}`);
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const state = () => new Map([...manifest(ws), ...[...manifest(`${root}/out`)].map(([k, v]): [string, string] => [`$OUT/${k}`, v])]);
    const before = state();
    const call = { tool: "shell", args: { command: line } };
    const d = g.check(call);
    if (!d.approved) return { approved: false, reason: d.reason, message: d.message, undo: "", after: [] };
    runBash(ws, line);
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    return { approved: true, reason: d.reason, message: d.message, undo: u.reason, after: diffManifests(before, state()) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
