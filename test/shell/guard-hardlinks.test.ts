// A file with other names (hard links: `cp -l`, `ln`, a pnpm store's files under node_modules), written
// in place through one of them, proved by execution: approved → written → observed → undone → every
// name holds what it held before. Before, the restore point was applied as a new file, so the other
// names kept what the call wrote ("hours of work" lost from notes.txt after an undo of a write to its link).
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { runBash, sh, tempDir, undoneExactly } from "./helpers.js";

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

describe("a committed file with other names is not one git gives back", () => {
  // git restore writes a new file in the file's place: the other name kept what the call wrote (`echo
  // x > h1` undone left h2 holding "x"), and h1 and h2 were no longer one file.
  it.each(["echo x > h1", "echo x >> h1", "truncate -s 0 h1", "chmod 600 h1", "cp other h1", "echo x > hd/a"])("%s", async (line) => {
    const r = await undoneExactly("printf 'one\\n' > h1 && ln h1 h2 && printf 'other\\n' > other && mkdir hd && printf 'a\\n' > hd/a && ln hd/a ha", line, true);
    expect(r.approved, r.reason).toBe(true);
    expect(r.reason).toBe("restore_point");
    expect(r.undo).toBe("undone");
    expect(r.after).toEqual([]);
  });
});

describe("a name of a file with other names, removed or replaced, comes back as that same file", () => {
  // A name removed (`rm`, a folder removed around it, git rm) or replaced by a new file (`sed -i`, `mv`
  // or `install` over it, `ln -f`, `cp --remove-destination`) came back as a file of its own: the
  // content was right, but a write through one name no longer reached the other.
  const files = "printf 'one\\n' > h1 && ln h1 h2 && printf 'other\\n' > other && mkdir hd && printf 'a\\n' > hd/a && ln hd/a ha && printf 'out\\n' > $OUT/o && ln $OUT/o ho";
  it.each([
    ["rm h1", true], ["rm -f h2", false], ["rm -r hd", true], ["rm ho", false], ["sed -i s/one/two/ h1", true], ["mv other h1", false],
    ["install other h1", true], ["ln -f other h1", false], ["ln -sf other h1", true], ["cp --remove-destination other h1", false],
    ["git rm -q h1", true], ["echo x >> other && git stash -q", true], ["find . -name 'h*' -delete", false], ["rm -rf ./*", false],
  ] as const)("%s (git: %s)", async (line, git) => {
    const r = await undoneExactly(files, line, git);
    expect(r.approved, r.reason).toBe(true);
    expect(r.undo).toBe("undone");
    expect(r.after).toEqual([]);
  });

  it("a write through another name since the call is newer work: the undo is refused", async () => {
    const root = tempDir("polar-shell-hardlinks-since-");
    made.push(root);
    const ws = `${root}/ws`;
    mkdirSync(ws);
    sh(ws, "printf 'one\\n' > h1 && ln h1 h2");
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const call = { tool: "shell", args: { command: "rm h1" } };
    const d = g.check(call);
    expect(d.approved).toBe(true);
    runBash(ws, "rm h1");
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    writeFileSync(`${ws}/h2`, "newer work\n");
    expect(g.undo().reason).toBe("changed_since");
    expect(readFileSync(`${ws}/h2`, "utf8")).toBe("newer work\n");
  });

  // link(2) does not cross filesystems: a store elsewhere cannot keep the file as the same file.
  it.skipIf(!existsSync("/dev/shm") || statSync("/dev/shm").dev === statSync(tmpdir()).dev)("a store on another filesystem: asked (restore_failed), never approved with the link lost", async () => {
    const root = tempDir("polar-shell-hardlinks-exdev-");
    made.push(root);
    const store = mkdtempSync("/dev/shm/polar-store-");
    made.push(store);
    const ws = `${root}/ws`;
    mkdirSync(ws);
    sh(ws, "printf 'one\\n' > h1 && ln h1 h2");
    const g = await createShellGuard({ cwd: ws, store, policy: "snapshot" });
    const d = g.check({ tool: "shell", args: { command: "rm h1" } });
    expect(d.approved).toBe(false);
    expect(d.reason).toBe("restore_failed");
    expect(d.message).toMatch(/h1 has other names \(hard links\) and the store cannot keep it as the same file \(EXDEV/);
    expect(lstatSync(`${ws}/h2`).nlink).toBe(2);
  });

  it("the store's name of the file is gone after the undo: the file has the names it had", async () => {
    const root = tempDir("polar-shell-hardlinks-names-");
    made.push(root);
    const ws = `${root}/ws`;
    mkdirSync(ws);
    sh(ws, "printf 'one\\n' > h1 && ln h1 h2");
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const call = { tool: "shell", args: { command: "rm h1" } };
    const d = g.check(call);
    expect(lstatSync(`${ws}/h2`).nlink).toBe(3); // h1, h2 and the store's name
    runBash(ws, "rm h1");
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    expect(g.undo().ok).toBe(true);
    expect(lstatSync(`${ws}/h1`).ino).toBe(lstatSync(`${ws}/h2`).ino);
    expect(lstatSync(`${ws}/h2`).nlink).toBe(2);
  });
});

describe("a file with other names put back in place is written only where its content differs", () => {
  // A name removed (`rm`) leaves the file as it was: the undo relinks it and does not write it (its
  // modification time stays). A write made writable first: a read-only file (a pnpm store's are 0444)
  // cannot be opened for writing by a user other than root, so the undo of `rm -f ro` failed there
  // (EACCES) writing ro's unchanged content into the file itself (these tests run as root here too).
  it.each(["rm -f ro", "rm -rf ./*", "chmod 600 ro", "mv other ro", "echo x > ro2"])("%s", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly("printf 'one\\n' > ro && chmod 444 ro && ln ro ro2 && printf 'other\\n' > other && touch -d 2001-01-01 ro", line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
      expect(r.undo).toBe("undone");
      expect(r.after).toEqual([]);
    }
  });

  it("rm of a name: the file is not written by the undo", async () => {
    const root = tempDir("polar-shell-hardlinks-mtime-");
    made.push(root);
    const ws = `${root}/ws`;
    mkdirSync(ws);
    sh(ws, "printf 'one\\n' > ro && chmod 444 ro && ln ro ro2 && touch -d 2001-01-01 ro");
    const mtime = lstatSync(`${ws}/ro2`).mtimeMs;
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const call = { tool: "shell", args: { command: "rm -f ro" } };
    const d = g.check(call);
    runBash(ws, "rm -f ro");
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    expect(g.undo().ok).toBe(true);
    expect(lstatSync(`${ws}/ro`).ino).toBe(lstatSync(`${ws}/ro2`).ino);
    expect(lstatSync(`${ws}/ro`).mtimeMs).toBe(mtime);
    expect(lstatSync(`${ws}/ro`).mode & 0o7777).toBe(0o444);
  });
});
