// Creation-only calls (src/shell/creation.ts): mkdir loses nothing in any state, so its verdict needs no
// state. Proof by execution: in every kind of state the call meets (absent, a directory, a file, a
// symbolic link to a directory, to a file, dangling, an unreadable path), the guard approves, mkdir runs
// for real, nothing that was there changes, and a journaled undo puts the manifest back exactly. Calls
// that can lose data are still asked when the state cannot be read.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createShellGuard, CREATION_ONLY_TOOLS, creationOnly, type ShellPolicy } from "../../src/shell/index.js";
import { diffManifests, manifest, runBash, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A plain workspace holding one of each kind, and `loop` (a symbolic link to itself: reading a path
 * under it fails with ELOOP, so the guard cannot read that state). */
async function workspace(policy: ShellPolicy) {
  const root = tempDir("polar-shell-creation-");
  made.push(root);
  const ws = `${root}/ws`;
  mkdirSync(`${ws}/dir/sub`, { recursive: true });
  writeFileSync(`${ws}/dir/sub/keep.txt`, "keep\n");
  writeFileSync(`${ws}/file.txt`, "data\n");
  symlinkSync("dir", `${ws}/to-dir`);
  symlinkSync("file.txt", `${ws}/to-file`);
  symlinkSync("nowhere", `${ws}/dangling`);
  symlinkSync("loop", `${ws}/loop`);
  const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy });
  return { g, ws };
}

const sh = (command: string) => ({ tool: "shell", args: { command } });

describe("creation-only: the class", () => {
  it("is fs_mkdir alone, and every edge of it in the ontology is a T1 inverse (no loss edge)", () => {
    expect([...CREATION_ONLY_TOOLS]).toEqual(["fs_mkdir"]);
    const r = compile(readFileSync(new URL("../../ontologies/shell/shell.polar", import.meta.url), "utf8"), { name: "shell.polar" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.tables;
    for (const name of CREATION_ONLY_TOOLS) {
      const i = t.tools.findIndex((x) => x.name === name);
      expect(i).toBeGreaterThanOrEqual(0);
      const tiers: number[] = [];
      for (let e = t.edgeOffsets[i]!; e < t.edgeOffsets[i + 1]!; e++) tiers.push(t.edges[e]!.tier);
      expect(tiers.length).toBeGreaterThanOrEqual(4);
      expect(tiers.every((x) => x === 1)).toBe(true);
    }
    expect(creationOnly([{ name: "fs_mkdir" }, { name: "fs_mkdir" }])).toBe(true);
    expect(creationOnly([{ name: "fs_mkdir" }, { name: "fs_write" }])).toBe(false);
    expect(creationOnly([])).toBe(false);
  });
});

describe("mkdir in every state: approved, nothing existing changes, the undo is exact", () => {
  const cases: [string, string][] = [
    ["absent", "mkdir new"],
    ["absent, with missing parents (-p)", "mkdir -p a/b/c"],
    ["an existing directory (-p)", "mkdir -p dir/sub"],
    ["an existing directory (fails)", "mkdir dir"],
    ["an existing file (fails)", "mkdir file.txt"],
    ["an existing file (-p, fails)", "mkdir -p file.txt"],
    ["a symbolic link to a directory (-p: left alone)", "mkdir -p to-dir"],
    ["a symbolic link to a directory (fails)", "mkdir to-dir"],
    ["a symbolic link to a file (fails)", "mkdir -p to-file"],
    ["a dangling symbolic link (fails)", "mkdir dangling"],
    ["under a file (fails)", "mkdir -p file.txt/x"],
  ];
  for (const [state, command] of cases) {
    it(`${state}: \`${command}\``, async () => {
      const { g, ws } = await workspace("veto");
      const before = manifest(ws);
      const d = g.check(sh(command));
      expect(d.approved, `${d.reason}: ${d.message}`).toBe(true);
      expect(d.tier).toBe("T1");
      runBash(ws, command);
      const after = manifest(ws);
      // Nothing that was there changed or went away: only new paths.
      for (const [k, v] of before) expect(after.get(k), k).toBe(v);
      g.observe(sh(command), { exitCode: 0 }, { execution: d.execution! });
      const u = g.undo();
      expect(u.ok, u.message).toBe(true);
      expect(diffManifests(before, manifest(ws))).toEqual([]);
    });
  }
});

describe("state that cannot be read", () => {
  for (const policy of ["veto", "escalate", "snapshot"] as ShellPolicy[]) {
    it(`mkdir -p under it is approved as creation-only (T1, no undo journaled) under ${policy}; running it changes nothing`, async () => {
      const { g, ws } = await workspace(policy);
      const before = manifest(ws);
      const d = g.check(sh("mkdir -p loop/x"));
      expect(d.approved, d.message).toBe(true);
      expect(d.action).toBe("allow");
      expect(d.route).toBe("Approved");
      expect(d.reason).toBe("creation_only");
      expect(d.tier).toBe("T1");
      expect(d.execution).toBeNull();
      expect(d.inverse).toEqual([]);
      expect(d.message).toMatch(/no undo is journaled/);
      runBash(ws, "mkdir -p loop/x");
      expect(diffManifests(before, manifest(ws))).toEqual([]);
    });

    for (const command of ["echo hi > loop/x", "touch loop/x", "rm -f loop/x", "cp file.txt loop/x", "mkdir -p loop/x && touch loop/x/y"]) {
      it(`a call that can lose data there is still not approved under ${policy}: \`${command}\``, async () => {
        const { g } = await workspace(policy);
        const d = g.check(sh(command));
        expect(d.approved, d.message).toBe(false);
        expect(d.action).toBe(policy === "veto" ? "deny" : "ask");
        expect(d.reason).toBe("unknown_state");
      });
    }
  }
});

describe("git add/commit in a repository the same line creates", () => {
  const saved: Record<string, string | undefined> = {};
  const ids = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
  beforeAll(() => {
    for (const [k, v] of Object.entries(ids)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(() => {
    for (const k of Object.keys(ids)) if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  });

  for (const command of ["git init && git add file.txt && git commit -m first", "git init -q -b main fresh && cd fresh && git add . && git commit -qm first && git branch dev && git tag v1"]) {
    it(`is approved with the init's undo (remove the new .git), exact by execution: \`${command}\``, async () => {
      const { g, ws } = await workspace("veto");
      if (command.includes("fresh")) {
        mkdirSync(`${ws}/fresh`);
        writeFileSync(`${ws}/fresh/x.txt`, "x\n");
      }
      const before = manifest(ws);
      const d = g.check(sh(command));
      expect(d.approved, `${d.reason}: ${d.message}`).toBe(true);
      expect(d.reason).toBe("reversible");
      expect(d.tier).toBe("T1");
      expect(d.inverse.map((s) => `${s.tool} ${String(s.arguments.path).slice(ws.length)}`)).toContain(command.includes("fresh") ? "fs_remove /fresh/.git" : "fs_remove /.git");
      expect(runBash(ws, command)).toBe(0);
      const repo = command.includes("fresh") ? `${ws}/fresh` : ws;
      expect(runBash(repo, "git rev-parse --verify HEAD")).toBe(0); // it really committed
      g.observe(sh(command), { exitCode: 0 }, { execution: d.execution! });
      const u = g.undo();
      expect(u.ok, u.message).toBe(true);
      expect(diffManifests(before, manifest(ws))).toEqual([]);
    });
  }

  for (const command of ["git init && git add . && git reset --hard", "git init --template=/tmp && git add .", "git init && git add . && git stash", "git add . && git init"]) {
    it(`anything else there is judged as before (no repository yet: not approved): \`${command}\``, async () => {
      const { g } = await workspace("veto");
      const d = g.check(sh(command));
      expect(d.approved, d.message).toBe(false);
    });
  }

  it("inside another repository the rule does not apply (a failed init would leave git add to that one)", async () => {
    const { g, ws } = await workspace("veto");
    expect(runBash(ws, "git init -q && git add file.txt && git commit -qm first")).toBe(0);
    mkdirSync(`${ws}/inner`);
    writeFileSync(`${ws}/inner/y.txt`, "y\n");
    const d = g.check(sh("git init inner; cd inner && git add y.txt"));
    expect(d.approved && !d.inverse.some((s) => s.forwardTool === "git_stage")).toBe(false);
  });

  it("where a repository exists already, it is judged on that repository (never undone by removing its .git)", async () => {
    const { g, ws } = await workspace("snapshot");
    expect(runBash(ws, "git init -q && git add file.txt && git commit -qm first")).toBe(0);
    writeFileSync(`${ws}/file.txt`, "changed\n");
    const d = g.check(sh("git init && git add file.txt && git commit -m second"));
    expect(d.reason).toBe("restore_point");
    expect(d.restorePoint).not.toBeNull();
    expect(d.inverse.map((s) => s.tool)).not.toContain("fs_remove");
  });
});
