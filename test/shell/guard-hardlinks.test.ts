// A file with other names (hard links: `cp -l`, `ln`, a pnpm store's files under node_modules), written
// in place through one of them, proved by execution: approved → written → observed → undone → every
// name holds what it held before. Before, the restore point was applied as a new file, so the other
// names kept what the call wrote ("hours of work" lost from notes.txt after an undo of a write to its link).
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { diffManifests, manifest, runBash, sh, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

async function workspace() {
  const root = tempDir("polar-shell-hardlinks-");
  made.push(root);
  const ws = `${root}/ws`;
  mkdirSync(ws);
  writeFileSync(`${ws}/notes.txt`, "hours of work\n");
  execFileSync("ln", ["notes.txt", "hard"], { cwd: ws });
  symlinkSync("hard", `${ws}/soft`);
  const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
  return { ws, g };
}

describe("a write through one name of a hard-linked file, undone", () => {
  it.each([
    [{ tool: "write_file", args: { path: "hard", content: "overwritten" } }],
    [{ tool: "write_file", args: { path: "notes.txt", content: "overwritten" } }],
    [{ tool: "edit_file", args: { path: "soft", old: "hours", new: "minutes" } }],
  ])("%j", async (call) => {
    const { ws, g } = await workspace();
    const ino = lstatSync(`${ws}/notes.txt`).ino;
    const d = g.check(call);
    expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
    const p = `${ws}/${call.args.path}`;
    // Written in place, as an agent's file tool does (the same inode: every name changes).
    writeFileSync(p, call.tool === "write_file" ? (call.args as { content: string }).content : readFileSync(p, "utf8").replace("hours", "minutes"));
    expect(readFileSync(`${ws}/notes.txt`, "utf8")).not.toBe("hours of work\n");
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    expect(u.ok, u.message).toBe(true);
    for (const n of ["notes.txt", "hard", "soft"]) expect(readFileSync(`${ws}/${n}`, "utf8"), n).toBe("hours of work\n");
    expect(lstatSync(`${ws}/hard`).ino).toBe(ino);
    expect(lstatSync(`${ws}/notes.txt`).nlink).toBe(2);
  });
});

/** A workspace (a git repository when `git`) beside a folder outside it, built by `script` (run in the
 * workspace, `$OUT` the outside folder); the line is checked, run with bash when approved, observed and
 * undone; both folders' manifests (hard links as one file with several names) must be as before. */
export async function undoneExactly(script: string, line: string, git: boolean): Promise<{ approved: boolean; reason: string; after: string[] }> {
  const root = tempDir("polar-shell-hardlinks-run-");
  made.push(root);
  const ws = `${root}/ws`;
  mkdirSync(ws);
  mkdirSync(`${root}/out`);
  sh(ws, `export OUT=${root}/out; ${script}`);
  if (git) sh(ws, "git init -q -b main && git config user.email t@example.com && git config user.name t && git config commit.gpgsign false && git config core.hooksPath /dev/null && git add -A && git commit -qm init");
  const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
  const state = () => new Map([...manifest(ws), ...[...manifest(`${root}/out`)].map(([k, v]): [string, string] => [`$OUT/${k}`, v])]);
  const before = state();
  const call = { tool: "shell", args: { command: line } };
  const d = g.check(call);
  if (!d.approved) return { approved: false, reason: d.reason, after: [] };
  runBash(ws, line);
  g.observe(call, { exitCode: 0 }, { execution: d.execution! });
  const u = g.undo();
  expect(u.ok, u.message).toBe(true);
  return { approved: true, reason: d.reason, after: diffManifests(before, state()) };
}

describe("a committed file with other names is not one git gives back", () => {
  // git restore writes a new file in the file's place: the other name kept what the call wrote (`echo
  // x > h1` undone left h2 holding "x"), and h1 and h2 were no longer one file.
  it.each(["echo x > h1", "echo x >> h1", "truncate -s 0 h1", "chmod 600 h1", "cp other h1", "echo x > hd/a"])("%s", async (line) => {
    const r = await undoneExactly("printf 'one\\n' > h1 && ln h1 h2 && printf 'other\\n' > other && mkdir hd && printf 'a\\n' > hd/a && ln hd/a ha", line, true);
    expect(r.approved, r.reason).toBe(true);
    expect(r.reason).toBe("restore_point");
    expect(r.after).toEqual([]);
  });
});
