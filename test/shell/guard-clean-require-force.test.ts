// `git clean` without -f, through the shell guard, proved by execution: git refuses only while
// clean.requireForce is true (the default); a repository whose config sets it false removes the
// untracked files. It was approved read-only (no restore point, nothing to undo) and the untracked work
// was lost. Now judged as cleaning: approved with a restore point, run with bash, undone → the manifest
// is the one before; with the default it is a refused no-op whose undo changes nothing.
import { existsSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { buildTemplate, copyTemplate, diffManifests, manifest, runBash, sh, tempDir } from "./helpers.js";

let rich: string;
const made: string[] = [];
beforeAll(() => {
  rich = buildTemplate("rich");
  made.push(rich);
});
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

describe("git clean without -f, run and undone", () => {
  it.each([
    ["false", "git clean", false],
    ["false", "git clean -d", false],
    ["true", "git clean", true],
  ])("clean.requireForce=%s: %s", async (requireForce, command, kept) => {
    const root = tempDir("polar-shell-clean-");
    made.push(root);
    const ws = copyTemplate(rich, `${root}/ws`);
    sh(ws, `git config clean.requireForce ${requireForce}`);
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const before = manifest(ws);
    const call = { tool: "shell", args: { command } };
    const d = g.check(call);
    expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
    expect(d.reason).toBe("restore_point");
    const code = runBash(ws, command);
    expect(existsSync(`${ws}/untracked.txt`)).toBe(kept);
    g.observe(call, { exitCode: code }, { execution: d.execution! });
    const u = g.undo();
    expect(u.ok, u.message).toBe(true);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });
});
