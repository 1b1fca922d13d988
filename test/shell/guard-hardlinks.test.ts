// A file with other names (hard links: `cp -l`, `ln`, a pnpm store's files under node_modules), written
// in place through one of them, proved by execution: approved → written → observed → undone → every
// name holds what it held before. Before, the restore point was applied as a new file, so the other
// names kept what the call wrote ("hours of work" lost from notes.txt after an undo of a write to its link).
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { tempDir } from "./helpers.js";

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
