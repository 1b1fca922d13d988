// Renaming branches through the shell guard, proved by execution: approved → run with bash → observed →
// undone → the repository's manifest (files, HEAD, refs, index, stash) is the one before. Renaming the
// branch HEAD is on moves HEAD with it; its undo left HEAD on the deleted new name before (an unborn
// branch: every file then showed as new).
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { buildTemplate, copyTemplate, diffManifests, manifest, runBash, sh, tempDir } from "./helpers.js";

let clean: string;
const made: string[] = [];
beforeAll(() => {
  clean = buildTemplate("clean");
  made.push(clean);
});
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

describe("git branch -m, run and undone", () => {
  it.each([
    ["git branch -m main renamed", "refs/heads/renamed"],
    ["git branch -m feature f2", "refs/heads/main"],
    ["git branch --move main m2 && git status --short", "refs/heads/m2"],
    ["git branch -c main copy", "refs/heads/main"],
  ])("%s", async (command, headAfter) => {
    const root = tempDir("polar-shell-rename-");
    made.push(root);
    const ws = copyTemplate(clean, `${root}/ws`);
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const before = manifest(ws);
    const call = { tool: "shell", args: { command } };
    const d = g.check(call);
    expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
    runBash(ws, command);
    expect(sh(ws, "git symbolic-ref HEAD").trim()).toBe(headAfter);
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    expect(u.ok, u.message).toBe(true);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
    expect(sh(ws, "git status --porcelain")).toBe("");
  });
});
