// The shell guard's scenarios (issue 23), each on a real git repository: the verdict depends on the
// state the call meets, restore points make lossy calls undoable, undo puts the workspace back exactly.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellGuard, ShellGuardError, type ShellGuard, type ShellPolicy } from "../../src/shell/index.js";
import { buildTemplate, copyTemplate, diffManifests, manifest, runBash, tempDir } from "./helpers.js";
import { rmSync } from "node:fs";

let rich: string;
let clean: string;
let plain: string;
const made: string[] = [];

beforeAll(() => {
  rich = buildTemplate("rich");
  clean = buildTemplate("clean");
  plain = buildTemplate("plain");
  made.push(rich, clean, plain);
});
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

async function guardOn(tpl: string, policy: ShellPolicy = "snapshot"): Promise<{ g: ShellGuard; ws: string }> {
  const root = tempDir("polar-shell-case-");
  made.push(root);
  const ws = copyTemplate(tpl, `${root}/ws`);
  const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy });
  return { g, ws };
}

const sh = (command: string) => ({ tool: "shell", args: { command } });

/** Approved → run → undo → the manifest is the one before. */
async function roundTrip(tpl: string, command: string, policy: ShellPolicy = "snapshot") {
  const { g, ws } = await guardOn(tpl, policy);
  const before = manifest(ws);
  const d = g.check(sh(command));
  expect(d.approved, `${command}: ${d.reason} ${d.message}`).toBe(true);
  runBash(ws, command);
  g.observe(sh(command), { exitCode: 0 }, { execution: d.execution! });
  const u = g.undo();
  expect(u.ok, u.message).toBe(true);
  expect(diffManifests(before, manifest(ws))).toEqual([]);
  return d;
}

describe("verdicts depend on the state the call meets", () => {
  it("git reset --hard on a clean tree only moves HEAD: T1 by the reflog, no restore point", async () => {
    const d = await roundTrip(clean, "git reset --hard HEAD~1");
    expect(d.reason).toBe("reversible");
    expect(d.restorePoint).toBeNull();
    expect(d.inverse.map((s) => s.tool)).toEqual(["git_reset_to"]);
  });

  it("git reset --hard over uncommitted work is refused under veto (it would destroy it)", async () => {
    const { g } = await guardOn(rich, "veto");
    const d = g.check(sh("git reset --hard"));
    expect(d.approved).toBe(false);
    expect(d.action).toBe("deny");
    expect(d.reason).toBe("irreversible");
    expect(d.tier).toBe("T4");
  });

  it("git reset --hard over uncommitted work gets a restore point under snapshot, and undo brings the work back", async () => {
    const d = await roundTrip(rich, "git reset --hard");
    expect(d.reason).toBe("restore_point");
    expect(d.restorePoint?.id).toMatch(/^rp-[0-9a-f]{16}$/);
    expect(d.restorePoint?.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("git checkout -- . over modified files: refused under veto, restore point under snapshot", async () => {
    const { g } = await guardOn(rich, "veto");
    expect(g.check(sh("git checkout -- .")).approved).toBe(false);
    await roundTrip(rich, "git checkout -- .");
  });

  it("git clean -fdx would take the ignored .env.local: refused under veto; kept and given back under snapshot", async () => {
    const { g } = await guardOn(rich, "veto");
    const v = g.check(sh("git clean -fdx"));
    expect(v.approved).toBe(false);
    expect(v.reason).toBe("irreversible");
    const d = await roundTrip(rich, "git clean -fdx");
    expect(d.reason).toBe("restore_point");
  });

  it("git clean -fd on a tree with nothing untracked changes nothing: T1", async () => {
    const { g } = await guardOn(clean, "veto");
    const d = g.check(sh("git clean -fd"));
    expect(d.approved).toBe(true);
    expect(d.inverse.map((s) => s.tool)).toEqual(["nothing"]);
  });

  it("rm of a tracked, unmodified file is T1 by git restore; of an untracked file it is refused under veto", async () => {
    const d = await roundTrip(rich, "rm b.txt", "veto");
    expect(d.inverse.map((s) => s.tool)).toEqual(["git_restore_path"]);
    const { g } = await guardOn(rich, "veto");
    const u = g.check(sh("rm untracked.txt"));
    expect(u.approved).toBe(false);
    expect(u.reason).toBe("irreversible");
    const m = g.check(sh("rm a.txt")); // modified
    expect(m.approved).toBe(false);
  });

  it("rm -rf of a directory with untracked files: restore point, undo gives every file back", async () => {
    await roundTrip(rich, "rm -rf notes src");
  });

  it("mv A B with B free is T1 (mv B A); over an untracked B it needs a restore point", async () => {
    const d = await roundTrip(rich, "mv untracked.txt moved.txt", "veto");
    expect(d.inverse.map((s) => s.tool)).toEqual(["fs_move_back"]);
    const { g } = await guardOn(rich, "veto");
    expect(g.check(sh("mv b.txt untracked.txt")).approved).toBe(false);
    await roundTrip(rich, "mv b.txt untracked.txt");
  });

  it("a write_file over an untracked file is an overwrite: refused under veto, kept under snapshot", async () => {
    const { g, ws } = await guardOn(rich, "veto");
    const call = { tool: "write_file", args: { path: "untracked.txt", content: "new" } };
    expect(g.check(call).approved).toBe(false);
    const s = await guardOn(rich);
    const before = manifest(s.ws);
    const d = s.g.check(call);
    expect(d.reason).toBe("restore_point");
    writeFileSync(`${s.ws}/untracked.txt`, "new");
    s.g.observe(call, null, { execution: d.execution! });
    expect(s.g.undo().ok).toBe(true);
    expect(diffManifests(before, manifest(s.ws))).toEqual([]);
    expect(readFileSync(`${ws}/untracked.txt`, "utf8")).toBe("untracked\n");
  });

  it("edit_file and apply_patch are overwrites of the files they name", async () => {
    const { g } = await guardOn(rich, "veto");
    expect(g.check({ tool: "edit_file", args: { path: "b.txt", old: "beta", new: "gamma" } }).approved).toBe(true);
    expect(g.check({ tool: "edit_file", args: { path: "a.txt", old: "alpha", new: "x" } }).approved).toBe(false);
    const p = g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Update File: b.txt\n@@\n-beta\n+x\n*** Add File: new.txt\n+hi\n*** End Patch\n" } });
    expect(p.calls.map((c) => c.name)).toEqual(["fs_write", "fs_write"]);
    expect(p.approved).toBe(true);
  });

  it("git push (plain or forced) is an external effect: never approved, asked", async () => {
    const { g } = await guardOn(clean);
    for (const c of ["git push", "git push --force origin main", "curl -X POST https://example.com -d x", "npm publish"]) {
      const d = g.check(sh(c));
      expect(d.approved, c).toBe(false);
      expect(d.reason, c).toBe("external_effect");
      expect(d.action, c).toBe("ask");
    }
  });

  it("git stash drop, branch -D, tag -d, commit --amend are judged and undone exactly", async () => {
    await roundTrip(rich, "git stash drop");
    await roundTrip(rich, "git stash clear");
    const b = await roundTrip(clean, "git branch -D feature", "veto");
    expect(b.inverse.map((s) => s.tool)).toEqual(["git_ref_create"]);
    await roundTrip(clean, "git tag -d v1", "veto");
    await roundTrip(clean, "git commit --amend -m changed", "veto");
    await roundTrip(rich, "git commit -m more");
    await roundTrip(rich, "git add -A");
    await roundTrip(clean, "git switch feature", "veto");
    await roundTrip(clean, "git checkout -b newbranch", "veto");
  });
});

describe("what cannot be resolved is never approved without a question", () => {
  const cases: [string, string][] = [
    ['rm -rf "$DIR"/', "unresolved_argument"],
    ["rm -rf $(cat list.txt)", "unresolved_argument"],
    ["eval 'rm -rf x'", "unknown_effect"],
    ["frobnicate --all", "unknown_command"],
    ["echo 'unterminated", "unparsed"],
    ["ls | xargs rm", "unresolved_argument"],
    ["for f in *.txt; do rm $f; done", "unresolved_argument"],
    ["rm -rf {src,docs}", "unresolved_argument"],
    ["python3 script.py", "unknown_effect"],
  ];
  for (const [cmd, reason] of cases) {
    it(`${cmd} → ${reason}`, async () => {
      for (const policy of ["snapshot", "advisory", "escalate"] as const) {
        const { g } = await guardOn(rich, policy);
        const d = g.check(sh(cmd));
        expect(d.approved).toBe(false);
        expect(d.action).toBe("ask");
        expect(d.reason).toBe(reason);
      }
      const { g } = await guardOn(rich, "veto");
      expect(g.check(sh(cmd)).action).toBe("deny");
    });
  }

  it("wrappers are followed into the commands they run", async () => {
    const { g } = await guardOn(rich, "veto");
    for (const c of ["sudo rm untracked.txt", "env A=1 nice -n 5 timeout 10 rm untracked.txt", "bash -c 'rm untracked.txt'", "find notes -delete", "find . -name '*.md' -exec rm {} +", "(cd notes && rm draft.md)", "echo x > untracked.txt", "cat a.txt | tee untracked.txt"]) {
      const d = g.check(sh(c));
      expect(d.approved, c).toBe(false);
      expect(d.reason, c).toBe("irreversible");
    }
  });
});

describe("Layer B is read for exactly what a call touches", () => {
  it("read-only calls trigger no reads", async () => {
    const { g } = await guardOn(rich);
    for (const c of ["ls -la", "git status", "git log --oneline | head", "cat a.txt && grep -r x src", "git diff HEAD~1"]) {
      expect(g.check(sh(c)).reason).toBe("read_only");
    }
    expect(g.workspace.gitCalls).toBe(0);
  });

  it("a file command reads git with pathspecs only (two processes), and not again while nothing ran", async () => {
    const { g } = await guardOn(rich);
    g.check(sh("rm b.txt"));
    expect(g.workspace.gitCalls).toBe(2);
    g.check(sh("rm b.txt"));
    expect(g.workspace.gitCalls).toBe(2);
    const d = g.check(sh("rm b.txt"));
    g.observe(sh("rm b.txt"), null, { execution: d.execution! }); // invalidates
    g.check(sh("rm b.txt"));
    expect(g.workspace.gitCalls).toBe(4);
  });

  it("users can extend the read-only list", async () => {
    const root = tempDir("polar-shell-ro-");
    made.push(root);
    const g = await createShellGuard({ cwd: plain, store: `${root}/store`, readOnlyCommands: ["mytool"] });
    expect(g.check(sh("mytool --all")).reason).toBe("read_only");
    const g2 = await createShellGuard({ cwd: plain, store: `${root}/store2` });
    expect(g2.check(sh("mytool --all")).reason).toBe("unknown_command");
  });

  it("outside a repository, an existing file has no git copy: refused under veto", async () => {
    const { g } = await guardOn(plain, "veto");
    expect(g.check(sh("rm a.txt")).approved).toBe(false);
    expect(g.check(sh("echo x > fresh.txt")).approved).toBe(true);
    expect(g.check(sh("git reset --hard")).reason).toBe("unknown_state");
  });
});

describe("undo", () => {
  it("lists approved executions with a preview, undoes N and by id, and --dry-run changes nothing", async () => {
    const { g, ws } = await guardOn(rich);
    for (const c of ["echo one > one.txt", "rm untracked.txt"]) {
      const d = g.check(sh(c));
      runBash(ws, c);
      g.observe(sh(c), null, { execution: d.execution! });
    }
    const list = g.list();
    expect(list.map((e) => e.index)).toEqual([2, 1]);
    expect(list[0]!.preview[0]).toContain("remove one.txt");
    expect(list[1]!.preview[0]).toContain("restore point");
    const dry = g.undo(2, { dryRun: true });
    expect(dry.reason).toBe("dry_run");
    expect(existsSync(`${ws}/one.txt`)).toBe(true);
    expect(g.undo(2).ok).toBe(true);
    expect(existsSync(`${ws}/one.txt`)).toBe(false);
    expect(g.undo({ id: list[1]!.id }).ok).toBe(true);
    expect(readFileSync(`${ws}/untracked.txt`, "utf8")).toBe("untracked\n");
    expect(g.undo({ id: list[1]!.id }).reason).toBe("already_undone");
    expect(g.undo().reason).toBe("nothing_to_undo");
  });

  it("an undo that would destroy newer work is refused (the file changed since)", async () => {
    const { g, ws } = await guardOn(rich);
    const c = "echo one > one.txt";
    const d = g.check(sh(c));
    runBash(ws, c);
    g.observe(sh(c), null, { execution: d.execution! });
    writeFileSync(`${ws}/one.txt`, "newer work\n");
    const u = g.undo();
    expect(u.ok).toBe(false);
    expect(u.reason).toBe("changed_since");
    expect(readFileSync(`${ws}/one.txt`, "utf8")).toBe("newer work\n");
  });

  it("a corrupted restore point is refused when read, never restored wrong", async () => {
    const root = tempDir("polar-shell-corrupt-");
    made.push(root);
    const ws = copyTemplate(rich, `${root}/ws`);
    const g = await createShellGuard({ cwd: ws, store: `${root}/store` });
    const c = "rm untracked.txt";
    const d = g.check(sh(c));
    expect(d.reason).toBe("restore_point");
    runBash(ws, c);
    g.observe(sh(c), null, { execution: d.execution! });
    const { readdirSync } = await import("node:fs");
    for (const o of readdirSync(`${root}/store/packs`)) if (o.endsWith(".pack")) writeFileSync(`${root}/store/packs/${o}`, "tampered!!!!!!!!!!!!!!");
    const u = g.undo();
    expect(u.ok).toBe(false);
    expect(u.reason).toBe("inverse_failed");
    expect(u.message).toContain("corrupted");
  });

  it("modes and symlink targets come back", async () => {
    const { g, ws } = await guardOn(rich);
    const before = manifest(ws);
    const c = "chmod 600 untracked.txt && rm draft-link && ln -s b.txt draft-link";
    const d = g.check(sh(c));
    expect(d.approved, d.message).toBe(true);
    runBash(ws, c);
    g.observe(sh(c), null, { execution: d.execution! });
    expect(g.undo().ok).toBe(true);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });
});

describe("bad input: typed errors or refusals, never an approval, never a hang", () => {
  it("a cwd that is not a directory, a store that is not writable, unknown options", async () => {
    const root = tempDir("polar-shell-bad-");
    made.push(root);
    writeFileSync(`${root}/file`, "x");
    await expect(createShellGuard({ cwd: `${root}/file`, store: `${root}/s` })).rejects.toMatchObject({ code: "bad-cwd" });
    await expect(createShellGuard({ cwd: `${root}/nope`, store: `${root}/s` })).rejects.toBeInstanceOf(ShellGuardError);
    mkdirSync(`${root}/ro`);
    chmodSync(`${root}/ro`, 0o500);
    const isRoot = process.getuid?.() === 0;
    if (!isRoot) await expect(createShellGuard({ cwd: plain, store: `${root}/ro/store` })).rejects.toMatchObject({ code: "bad-store" });
    await expect(createShellGuard({ cwd: plain, store: `${root}/file/store` })).rejects.toMatchObject({ code: "bad-store" });
    await expect(createShellGuard({ cwd: plain, store: `${plain}/store` })).rejects.toMatchObject({ code: "bad-store" });
    await expect(createShellGuard({ cwd: plain, store: `${root}/s`, polcy: "veto" } as never)).rejects.toMatchObject({ code: "bad-option" });
  });

  it("malformed calls are denied with malformed_call", async () => {
    const { g } = await guardOn(plain);
    for (const c of [null, 1, "rm -rf /", { tool: "shell" }, { tool: "shell", args: { command: 5 } }, { tool: "write_file", args: { path: "a" } }, { tool: "shell", args: { command: "ls", cwd: "a.txt" } }]) {
      const d = g.check(c);
      expect(d.approved).toBe(false);
      expect(d.reason).toBe("malformed_call");
    }
    expect(g.check({ tool: "teleport", args: {} }).reason).toBe("unknown_command");
  });

  it("a command of megabytes is unparsed; a glob over the bound is over_bound", async () => {
    const { g, ws } = await guardOn(plain);
    const big = g.check(sh(`echo ${"x".repeat(2 * 1024 * 1024)}`));
    expect(big.approved).toBe(false);
    expect(big.reason).toBe("unparsed");
    mkdirSync(`${ws}/many`);
    for (let i = 0; i < 10_050; i++) writeFileSync(`${ws}/many/f${i}`, "");
    const glob = g.check(sh("rm many/*"));
    expect(glob.approved).toBe(false);
    expect(glob.reason).toBe("over_bound");
  });

  it("a restore point over its bound is asked, not approved", async () => {
    const root = tempDir("polar-shell-bound-");
    made.push(root);
    const ws = copyTemplate(rich, `${root}/ws`);
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, restoreBounds: { maxFiles: 1 } });
    const d = g.check(sh("rm -rf notes"));
    expect(d.approved).toBe(false);
    expect(d.reason).toBe("over_bound");
    expect(d.action).toBe("ask");
  });

  it("a workspace read that fails is unknown_state, not an approval", async () => {
    const { g, ws } = await guardOn(rich, "snapshot");
    writeFileSync(`${ws}/.git/HEAD`, "garbage\n");
    const d = g.check(sh("git reset --hard"));
    expect(d.approved).toBe(false);
    expect(["unknown_state", "internal_error"]).toContain(d.reason);
  });
});

describe("a restore point keeps what the git call can touch (git's documentation), not the whole tree", () => {
  /** A repository with a large ignored folder (over the 5,000-file bound) and one modified tracked file. */
  function bigIgnored(): string {
    const root = tempDir("polar-shell-ignored-");
    made.push(root);
    const ws = copyTemplate(clean, `${root}/ws`);
    writeFileSync(`${ws}/.gitignore`, "node_modules/\n");
    runBash(ws, "git add .gitignore && git commit -q -m ignore");
    for (let d = 0; d < 60; d++) {
      mkdirSync(`${ws}/node_modules/p${d}`, { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(`${ws}/node_modules/p${d}/f${f}.js`, `module.exports = ${d * 100 + f};\n`);
    }
    writeFileSync(`${ws}/a.txt`, "hours of uncommitted work\n");
    return ws;
  }

  it("git reset --hard over a modified file, beside 6,000 ignored files: restore point (not asked), undo brings the work back, the ignored folder untouched", async () => {
    const ws = bigIgnored();
    const g = await createShellGuard({ cwd: ws, store: `${ws}/../store`, policy: "snapshot" });
    const before = manifest(ws);
    expect([...before.keys()].filter((p) => p.startsWith("node_modules/")).length).toBeGreaterThan(6_000);
    const d = g.check(sh("git reset --hard"));
    expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
    expect(d.reason).toBe("restore_point");
    // Only the tracked paths (and the directories above them) are kept: far under the bound.
    expect(d.restorePoint!.files).toBeLessThan(50);
    expect(runBash(ws, "git reset --hard")).toBe(0);
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("alpha\n");
    g.observe(sh("git reset --hard"), { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    expect(u.ok, u.message).toBe(true);
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("hours of uncommitted work\n");
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });

  for (const cmd of ["git checkout -- .", "git restore .", "git checkout -f", "git switch -f main"]) {
    it(`${cmd} beside 6,000 ignored files: the tracked paths are kept, undo puts the work back`, async () => {
      const ws = bigIgnored();
      // A deleted tracked file in a deleted folder: git writes both back; undo removes them again.
      rmSync(`${ws}/src/lib`, { recursive: true });
      const g = await createShellGuard({ cwd: ws, store: `${ws}/../store`, policy: "snapshot" });
      const before = manifest(ws);
      const d = g.check(sh(cmd));
      expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
      expect(d.reason).toBe("restore_point");
      expect(d.restorePoint!.files).toBeLessThan(50);
      expect(runBash(ws, cmd)).toBe(0);
      expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("alpha\n");
      expect(existsSync(`${ws}/src/lib/y.ts`)).toBe(true);
      g.observe(sh(cmd), { exitCode: 0 }, { execution: d.execution! });
      const u = g.undo();
      expect(u.ok, u.message).toBe(true);
      expect(diffManifests(before, manifest(ws))).toEqual([]);
    });
  }

  it("git restore -S is --staged, not an option with a value: -W -S a.txt / -SW a.txt also write a.txt (git-restore(1))", async () => {
    const { g, ws } = await guardOn(clean, "veto");
    for (const cmd of ["git restore -W -S a.txt", "git restore -SW a.txt"]) {
      const d = g.check(sh(cmd));
      expect(d.calls.map((c) => [c.name, c.arguments.path ?? c.arguments.paths]), cmd).toEqual([
        ["fs_write", `${ws}/a.txt`],
        ["git_stage", [`${ws}/a.txt`]],
      ]);
    }
  });

  it("git's options take values per subcommand (git's documentation): add -u/-A take none (-u a.txt stages a.txt; alone, the whole tree), cherry-pick -s is --signoff, checkout -t is --track", async () => {
    const { g, ws } = await guardOn(clean, "veto");
    const stage = (cmd: string) => g.check(sh(cmd)).calls.filter((c) => c.name === "git_stage").map((c) => c.arguments.paths);
    expect(stage("git add -u a.txt")).toEqual([["a.txt"]]);
    expect(stage("git add --update a.txt")).toEqual([["a.txt"]]);
    expect(stage("git add -u")).toEqual([["."]]);
    expect(stage("git add -A")).toEqual([["."]]);
    expect(stage("git add a.txt")).toEqual([["a.txt"]]);
    const pick = g.check(sh("git cherry-pick -s abc123"));
    expect(pick.calls.map((c) => [c.name, c.arguments.target])).toEqual([["git_move_head", "abc123"]]);
    // commit's -t is a template (a value); checkout's -t is --track (none): the ref stays an operand,
    // and a branch created from it is not one the dispatcher names, so it is not approved.
    const track = g.check(sh("git checkout -t origin/feature"));
    expect(track.approved).toBe(false);
    expect(track.reason).toBe("unknown_effect");
    const msg = g.check(sh("git commit -t tpl.txt -m 'x'"));
    expect(msg.calls.map((c) => c.name)).toEqual(["git_commit"]);
    expect(ws).toBeTruthy();
  });

  it("the whole work tree would be over the bound (6,000 ignored files): git clean -fdx, which removes them, is asked", async () => {
    const ws = bigIgnored();
    const g = await createShellGuard({ cwd: ws, store: `${ws}/../store`, policy: "snapshot" });
    const d = g.check(sh("git clean -fdx"));
    expect(d.approved).toBe(false);
    expect(d.reason).toBe("over_bound");
    expect(d.action).toBe("ask");
  });

  it("git clean -fd keeps the untracked paths only, and undo gives them back with the ignored folder untouched", async () => {
    const ws = bigIgnored();
    mkdirSync(`${ws}/scratch/deep`, { recursive: true });
    writeFileSync(`${ws}/scratch/deep/n.txt`, "untracked\n");
    writeFileSync(`${ws}/todo.txt`, "untracked too\n");
    const g = await createShellGuard({ cwd: ws, store: `${ws}/../store`, policy: "snapshot" });
    const before = manifest(ws);
    const d = g.check(sh("git clean -fd"));
    expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
    expect(d.restorePoint!.files).toBeLessThan(10);
    runBash(ws, "git clean -fd");
    expect(existsSync(`${ws}/todo.txt`)).toBe(false);
    g.observe(sh("git clean -fd"), { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    expect(u.ok, u.message).toBe(true);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });

  it("git reset --hard to another commit: paths it creates, removes and the directories above them come back as they were", async () => {
    const root = tempDir("polar-shell-target-");
    made.push(root);
    const ws = copyTemplate(clean, `${root}/ws`);
    runBash(ws, "git tag base && mkdir -p new/deep && echo n > new/deep/n.txt && git add new && git rm -q b.txt && git commit -q -m next && echo mod > a.txt && mkdir -p gone && echo u > gone/u.txt");
    const g = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
    const before = manifest(ws);
    const d = g.check(sh("git reset --hard base"));
    expect(d.approved, `${d.reason} ${d.message}`).toBe(true);
    runBash(ws, "git reset --hard base");
    expect(existsSync(`${ws}/new`)).toBe(false);
    g.observe(sh("git reset --hard base"), { exitCode: 0 }, { execution: d.execution! });
    const u = g.undo();
    expect(u.ok, u.message).toBe(true);
    expect(diffManifests(before, manifest(ws))).toEqual([]);
  });
});
