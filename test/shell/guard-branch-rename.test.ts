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

describe("a new branch switched to, or HEAD detached, in a dirty work tree: run and undone", () => {
  // Under snapshot a dirty work tree gets a restore point (it holds HEAD, the refs and the index) and
  // then the new branch is deleted: the point puts HEAD back on the old branch first. (Regression: the
  // HEAD check of the branch -m fix saw HEAD on the branch the undo deletes and refused every such undo,
  // inverse_failed. And `git checkout --detach` without a commit was read-only: HEAD moved, nothing to
  // undo.)
  it.each([
    ["git checkout -q -b fresh-branch", "allow restore_point"],
    ["git switch -q -c fresh-branch", "allow restore_point"],
    ["git checkout -q -B fresh-branch && echo x >> a.txt", "allow restore_point"],
    ["git checkout -q --detach", "allow restore_point"],
    ["git switch -q --detach", "allow restore_point"],
  ])("%s", async (command, verdict) => {
    const root = tempDir("polar-shell-newbranch-");
    made.push(root);
    const ws = copyTemplate(clean, `${root}/ws`);
    sh(ws, "echo more >> a.txt && echo new > fresh.txt");
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const before = manifest(ws);
    const call = { tool: "shell", args: { command } };
    const d = g.check(call);
    expect(`${d.action} ${d.reason}`, d.message ?? "").toBe(verdict);
    expect(runBash(ws, command)).toBe(0);
    expect(sh(ws, "git rev-parse --symbolic-full-name HEAD").trim()).not.toBe("refs/heads/main");
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    expect(u.reason, u.message).toBe("undone");
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });

  it("git checkout --detach on a clean work tree is a switch, undone by switching back", async () => {
    const root = tempDir("polar-shell-detach-");
    made.push(root);
    const ws = copyTemplate(clean, `${root}/ws`);
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "veto" });
    const before = manifest(ws);
    const call = { tool: "shell", args: { command: "git checkout --detach" } };
    const d = g.check(call);
    expect([d.action, d.reason, d.calls.map((c) => c.name)]).toEqual(["allow", "reversible", ["git_switch"]]);
    expect(runBash(ws, "git checkout -q --detach")).toBe(0);
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    expect(g.undo().reason).toBe("undone");
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });
});
