// The undo journal and runner (src/shell/undo.ts), in-process: what a journal keeps and selects, how
// each inverse step reads, what each step does to a real folder or repository, and when an undo is
// refused (changed since, unknown state, no inverse, already undone) — the workspace as it was after
// each answer.
import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { fingerprint, RestoreError, RestoreStore, DEFAULT_BOUNDS } from "../../src/shell/restore.js";
import { describeStep, entryIn, Journal, latestSession, runStep, stateFingerprint, undoEntry, workspaceOf, type InverseStep, type JournalEntry } from "../../src/shell/undo.js";
import { git } from "../../src/shell/workspace.js";
import { buildTemplate, copyTemplate, sh as bash, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function root(): string {
  const r = realpathSync(tempDir("polar-shell-undo-"));
  made.push(r);
  return r;
}

let cleanTpl: string | null = null;
/** A copy of the `clean` template (committed, branches main, feature, old, topic; tag v1). */
function repo(): string {
  if (cleanTpl === null) {
    cleanTpl = buildTemplate("clean");
    made.push(cleanTpl);
  }
  return copyTemplate(cleanTpl, `${root()}/ws`);
}

const step = (tool: string, args: Record<string, unknown> = {}, forwardTool = "fs_remove"): InverseStep => ({ tool, arguments: args, forwardTool, tier: "T1", annotation: "" });

function entry(over: Partial<JournalEntry> = {}): JournalEntry {
  return { id: "u-1-aaaaaa", execution: "s:1", call: { tool: "shell", args: { command: "x" } }, calls: [], tier: "T1", phi: 0, inverse: [step("nothing")], restorePoint: null, paths: [], kinds: {}, repo: null, after: stateFingerprint([], null), ...over };
}

function store(): RestoreStore {
  const s = new RestoreStore(`${root()}/store`, DEFAULT_BOUNDS);
  s.open();
  return s;
}

describe("describeStep: one line per inverse step, paths relative to the workspace", () => {
  it("names every step the runner knows", () => {
    const cwd = "/w";
    const lines = [
      [step("nothing", {}, "git_clean"), "nothing to undo (git_clean changed nothing)"],
      [step("git_restore_path", { path: "/w/a.txt" }), "git restore --source=HEAD --staged --worktree -- a.txt"],
      [step("restore_point_apply", { point: "rp-1" }), "put back what restore point rp-1 holds"],
      [step("fs_remove", { path: "/w/d/n.txt" }), "remove d/n.txt (created by the call)"],
      [step("fs_remove", { path: "/w" }), "remove . (created by the call)"],
      [step("fs_remove", { path: 5 }), "remove 5 (created by the call)"],
      [step("fs_move_back", { source: "/w/a", destination: "/w/b" }), "mv b a"],
      [step("fs_move_back_git", { source: "/w/a", destination: "/w/b" }), "mv b a; git restore --source=HEAD -- b"],
      [step("fs_move_back_restore", { source: "/w/a", destination: "/w/b", point: "rp-2" }), "mv b a; put back b from restore point rp-2"],
      [step("git_reset_to", { target: "abc" }), "git reset --hard abc"],
      [step("git_uncommit", { target: "abc" }), "git reset --soft abc"],
      [step("git_switch_to", { branch: "main", target: "abc" }), "git switch main"],
      [step("git_switch_to", { branch: "", target: "abc" }), "git switch --detach abc"],
      [step("git_ref_create", { ref: "refs/heads/x", target: "abc" }), "git update-ref refs/heads/x abc"],
      [step("git_ref_delete", { ref: "refs/tags/v" }), "git update-ref -d refs/tags/v"],
      [step("git_unstage", { paths: ["a", 3] }), "git reset -q -- a 3"],
      [step("teleport_back", { x: 1 }), 'teleport_back {"x":1}'],
    ] as const;
    for (const [s, line] of lines) expect(describeStep(s, cwd)).toBe(line);
  });
});

describe("the journal: one JSONL file per session", () => {
  it("keeps entries and undo marks across instances; lists newest as index 1 with a preview; selects by index, id or the latest not undone", () => {
    const file = `${root()}/s.jsonl`;
    const j = new Journal(file);
    expect(j.file).toBe(file);
    expect(j.list("/w")).toEqual([]);
    expect(j.select(undefined)).toBeNull();
    const a = entry({ id: "u-1-a", inverse: [step("fs_remove", { path: "/w/a" })] });
    const b = entry({ id: "u-2-b", inverse: [step("git_reset_to", { target: "abc" })] });
    j.add(a);
    j.add(b);
    j.markUndone("u-2-b");
    const k = new Journal(file);
    expect(k.list("/w")).toEqual([
      { ...a, index: 2, undone: false, preview: ["remove a (created by the call)"] },
      { ...b, index: 1, undone: true, preview: ["git reset --hard abc"] },
    ]);
    expect(k.isUndone("u-2-b")).toBe(true);
    expect(k.isUndone("u-1-a")).toBe(false);
    expect(k.select(undefined)?.id).toBe("u-1-a");
    expect(k.select(1)?.id).toBe("u-2-b");
    expect(k.select(2)?.id).toBe("u-1-a");
    for (const n of [0, -1, 1.5, 3, -2, NaN, Infinity]) expect(k.select(n)).toBeNull();
    expect(k.select({ id: "u-1-a" })?.id).toBe("u-1-a");
    expect(k.select({ id: "u-9" })).toBeNull();
    k.markUndone("u-1-a");
    expect(k.select(undefined)).toBeNull();
    expect(readFileSync(file, "utf8").split("\n")).toEqual([JSON.stringify({ entry: a }), JSON.stringify({ entry: b }), JSON.stringify({ undone: "u-2-b" }), JSON.stringify({ undone: "u-1-a" }), ""]);
  });
});

describe("which workspace and session an undo belongs to", () => {
  it("workspaceOf: the nearest folder up with a .git, else the folder itself", () => {
    const r = root();
    mkdirSync(`${r}/repo/.git`, { recursive: true });
    mkdirSync(`${r}/repo/a/b`, { recursive: true });
    mkdirSync(`${r}/plain/c`, { recursive: true });
    expect(workspaceOf(`${r}/repo/a/b`)).toBe(`${r}/repo`);
    expect(workspaceOf(`${r}/repo`)).toBe(`${r}/repo`);
    expect(workspaceOf(`${r}/plain/c`)).toBe(`${r}/plain/c`);
  });

  it("entryIn: its cwd, its repository or a touched path is the workspace or under it (not a sibling that shares the prefix)", () => {
    expect(entryIn(entry({ cwd: "/w" }), "/w")).toBe(true);
    expect(entryIn(entry({ cwd: "/w/sub" }), "/w")).toBe(true);
    expect(entryIn(entry({ cwd: "/w/sub" }), "/w/")).toBe(true);
    expect(entryIn(entry({ cwd: "/wx" }), "/w")).toBe(false);
    expect(entryIn(entry({ repo: "/w" }), "/w")).toBe(true);
    expect(entryIn(entry({ paths: ["/x/a", "/w/b"] }), "/w")).toBe(true);
    expect(entryIn(entry({ paths: ["/x/a"], repo: "/x" }), "/w")).toBe(false);
  });

  it("latestSession: the most recently written journal; with a workspace, the latest with an execution in it", () => {
    const r = root();
    expect(latestSession(`${r}/none`)).toBeNull();
    mkdirSync(`${r}/sessions`);
    expect(latestSession(r)).toBeNull();
    const write = (name: string, e: JournalEntry, t: number) => {
      writeFileSync(`${r}/sessions/${name}.jsonl`, `${JSON.stringify({ entry: e })}\n`);
      utimesSync(`${r}/sessions/${name}.jsonl`, t, t);
    };
    // Named so that the names' order is not the order in time: the newest is "b-new".
    write("a-old", entry({ cwd: "/w1" }), 1_000);
    write("b-new", entry({ cwd: "/w2" }), 2_000);
    writeFileSync(`${r}/sessions/notes.txt`, "not a journal");
    expect(latestSession(r)).toBe("b-new");
    expect(latestSession(r, "/w1")).toBe("a-old");
    expect(latestSession(r, "/w2")).toBe("b-new");
    expect(latestSession(r, "/w3")).toBeNull();
    // A session with an execution in the workspace among others elsewhere is that workspace's.
    writeFileSync(`${r}/sessions/c-mixed.jsonl`, `${JSON.stringify({ entry: entry({ cwd: "/w5" }) })}\n${JSON.stringify({ entry: entry({ cwd: "/w6" }) })}\n`);
    utimesSync(`${r}/sessions/c-mixed.jsonl`, 2_500, 2_500);
    expect(latestSession(r, "/w6")).toBe("c-mixed");
    expect(latestSession(r, "/w5")).toBe("c-mixed");
    // Written at the same time: by name.
    write("b-same", entry({ cwd: "/w4" }), 3_000);
    write("a-same", entry({ cwd: "/w4" }), 3_000);
    expect(latestSession(r)).toBe("a-same");
  });
});

describe("stateFingerprint: what the touched paths and the repository are now", () => {
  it("changes with a path's content, mode, kind or absence; not with an untouched path", () => {
    const r = root();
    writeFileSync(`${r}/a`, "1");
    writeFileSync(`${r}/other`, "o");
    const f0 = stateFingerprint([`${r}/a`], null);
    expect(stateFingerprint([`${r}/a`, `${r}/a`], null)).toBe(f0);
    writeFileSync(`${r}/other`, "changed");
    expect(stateFingerprint([`${r}/a`], null)).toBe(f0);
    writeFileSync(`${r}/a`, "2");
    const f1 = stateFingerprint([`${r}/a`], null);
    expect(f1).not.toBe(f0);
    rmSync(`${r}/a`);
    expect(stateFingerprint([`${r}/a`], null)).not.toBe(f1);
  });

  it("in a repository: HEAD, the index (through status), refs, the stash, and the content of untracked, ignored and modified files; not what git keeps for itself (objects, packed refs, stat data refreshed by git status: was changed_since)", () => {
    const ws = repo();
    const fp = () => stateFingerprint([], ws);
    let prev = fp();
    expect(fp()).toBe(prev);
    const changes = [
      () => bash(ws, "git checkout -q feature"),
      () => bash(ws, "git branch extra"),
      () => writeFileSync(`${ws}/u.txt`, "untracked"),
      () => writeFileSync(`${ws}/u.txt`, "untracked, edited"),
      () => writeFileSync(`${ws}/x.log`, "ignored"),
      () => writeFileSync(`${ws}/x.log`, "ignored, edited"),
      () => writeFileSync(`${ws}/a.txt`, "modified"),
      () => writeFileSync(`${ws}/a.txt`, "modified again"),
      () => bash(ws, "git add a.txt"),
      () => bash(ws, "git stash -q"),
      () => bash(ws, "echo again > a.txt && git stash -q"),
      // Dropping an older stash leaves refs/stash as it was: only its reflog tells.
      () => bash(ws, "git stash drop -q 'stash@{1}'"),
      () => rmSync(`${ws}/.git/index`),
      // Edited again, a renamed, a modified or an unmerged path keeps its status line: its content counts.
      () => bash(ws, "git reset -q && git mv a.txt 'moved a.txt' && echo 1 >> 'moved a.txt'"),
      () => writeFileSync(`${ws}/moved a.txt`, "edited again"),
      () => writeFileSync(`${ws}/moved a.txt`, "and again"),
      () => bash(ws, "git reset -q --hard && echo s > 'sp ace.txt' && git add 'sp ace.txt' && git commit -qm sp && echo 1 >> 'sp ace.txt'"),
      () => writeFileSync(`${ws}/sp ace.txt`, "edited again"),
      () => bash(ws, "git reset -q --hard && git checkout -q -b side && echo side > 'b c.txt' && git add 'b c.txt' && git commit -qm side && git checkout -q main && echo main > 'b c.txt' && git add 'b c.txt' && git commit -qm main && (git merge -q side || true)"),
      () => writeFileSync(`${ws}/b c.txt`, "resolving"),
      () => writeFileSync(`${ws}/b c.txt`, "resolving, edited"),
    ];
    writeFileSync(`${ws}/.gitignore`, "*.log\n");
    bash(ws, "git add .gitignore && git commit -qm ignore");
    prev = fp();
    for (const change of changes) {
      change();
      const now = fp();
      expect(now, change.toString()).not.toBe(prev);
      prev = now;
    }
    // What no undo acts on and git keeps for itself (an object written to its store, refs packed,
    // the stat data of a touched file refreshed in the index by git status) leaves the state as it was.
    bash(ws, "echo loose | git hash-object -w --stdin >/dev/null && git pack-refs --all");
    expect(fp()).toBe(prev);
    const index = readFileSync(`${ws}/.git/index`);
    bash(ws, "touch -d @1000000000 src/x.ts && git status >/dev/null");
    expect(readFileSync(`${ws}/.git/index`).equals(index)).toBe(false);
    expect(fp()).toBe(prev);
  });
});

describe("runStep: each inverse step on a real folder or repository", () => {
  it("fs_remove removes a file or a whole folder; an absent path, or one under a file, is nothing to remove", () => {
    const r = root();
    mkdirSync(`${r}/d/e`, { recursive: true });
    writeFileSync(`${r}/d/e/f`, "f");
    writeFileSync(`${r}/file`, "x");
    const s = store();
    runStep(step("fs_remove", { path: `${r}/d` }), s, null, {});
    expect(existsSync(`${r}/d`)).toBe(false);
    runStep(step("fs_remove", { path: `${r}/absent` }), s, null, {});
    runStep(step("fs_remove", { path: `${r}/file/under` }), s, null, {});
    expect(readFileSync(`${r}/file`, "utf8")).toBe("x");
    // Any other failure is the step's failure.
    expect(() => runStep(step("fs_remove", { path: `${r}/${"n".repeat(300)}` }), s, null, {})).toThrow(/ENAMETOOLONG/);
    expect(() => runStep(step("fs_remove", {}), s, null, {})).toThrow("inverse fs_remove: argument path is missing");
    expect(() => runStep(step("fs_remove", { path: "" }), s, null, {})).toThrow("inverse fs_remove: argument path is missing");
  });

  it("fs_move_back moves the destination back only when the move happened", () => {
    const r = root();
    const s = store();
    writeFileSync(`${r}/b`, "moved");
    runStep(step("fs_move_back", { source: `${r}/a`, destination: `${r}/b` }), s, null, { [`${r}/a`]: "file" });
    expect(readFileSync(`${r}/a`, "utf8")).toBe("moved");
    expect(existsSync(`${r}/b`)).toBe(false);
    // The source was absent before the call: the move failed; nothing is moved.
    writeFileSync(`${r}/c`, "c");
    runStep(step("fs_move_back", { source: `${r}/s`, destination: `${r}/c` }), s, null, { [`${r}/s`]: "absent" });
    expect(existsSync(`${r}/s`)).toBe(false);
    expect(existsSync(`${r}/c`)).toBe(true);
    // The source is still there (the move did not happen): nothing is moved.
    runStep(step("fs_move_back", { source: `${r}/a`, destination: `${r}/c` }), s, null, {});
    expect(readFileSync(`${r}/a`, "utf8")).toBe("moved");
    expect(readFileSync(`${r}/c`, "utf8")).toBe("c");
    // The destination is not there: nothing is moved.
    runStep(step("fs_move_back", { source: `${r}/gone`, destination: `${r}/none` }), s, null, {});
    expect(existsSync(`${r}/gone`)).toBe(false);
    // A dangling link moved is moved back (lstat, not stat).
    symlinkSync("nowhere", `${r}/l2`);
    runStep(step("fs_move_back", { source: `${r}/l1`, destination: `${r}/l2` }), s, null, {});
    expect(readlinkSync(`${r}/l1`)).toBe("nowhere");
    expect(() => runStep(step("fs_move_back", { source: `${r}/a` }), s, null, {})).toThrow("inverse fs_move_back: argument destination is missing");
  });

  it("fs_move_back_restore: moves back, then puts back what the destination held; a source inside the point is put back by the point, not moved", () => {
    const r = root();
    const s = store();
    writeFileSync(`${r}/dest`, "old content");
    const point = s.take([`${r}/dest`], null);
    // The call moved src over dest.
    writeFileSync(`${r}/dest`, "src content");
    runStep(step("fs_move_back_restore", { source: `${r}/src`, destination: `${r}/dest`, point: point.id }), s, null, {});
    expect(readFileSync(`${r}/src`, "utf8")).toBe("src content");
    expect(readFileSync(`${r}/dest`, "utf8")).toBe("old content");
    // The source is a kept path: the point holds it, it is not moved from the destination.
    mkdirSync(`${r}/dir`);
    writeFileSync(`${r}/dir/f`, "in dir");
    writeFileSync(`${r}/d2`, "d2 before");
    const p2 = s.take([`${r}/dir`, `${r}/d2`], null);
    rmSync(`${r}/dir`, { recursive: true });
    writeFileSync(`${r}/d2`, "in dir");
    runStep(step("fs_move_back_restore", { source: `${r}/dir/f`, destination: `${r}/d2`, point: p2.id }), s, null, {});
    expect(readFileSync(`${r}/dir/f`, "utf8")).toBe("in dir");
    expect(readFileSync(`${r}/d2`, "utf8")).toBe("d2 before");
    // The source itself is a kept path, and its folder is gone too: the point puts both back.
    mkdirSync(`${r}/k`);
    writeFileSync(`${r}/k/src`, "k src");
    writeFileSync(`${r}/d3`, "d3 before");
    const p3 = s.take([`${r}/k/src`, `${r}/d3`], null);
    writeFileSync(`${r}/d3`, "k src");
    rmSync(`${r}/k`, { recursive: true });
    runStep(step("fs_move_back_restore", { source: `${r}/k/src`, destination: `${r}/d3`, point: p3.id }), s, null, {});
    expect([readFileSync(`${r}/k/src`, "utf8"), readFileSync(`${r}/d3`, "utf8")]).toEqual(["k src", "d3 before"]);
    expect(() => runStep(step("fs_move_back_restore", { source: `${r}/a`, destination: `${r}/b`, point: "rp-nope" }), s, null, {})).toThrow(RestoreError);
  });

  it("git steps in a repository: restore a path, move back, reset, uncommit, switch, refs, unstage", () => {
    const ws = repo();
    const s = store();
    const head = git(ws, ["rev-parse", "HEAD"]).trim();
    const first = git(ws, ["rev-parse", "HEAD~1"]).trim();
    writeFileSync(`${ws}/a.txt`, "changed");
    runStep(step("git_restore_path", { path: `${ws}/a.txt` }), s, ws, {});
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("alpha\n");
    // A path in a folder of the repository: git restores it from the repository above.
    writeFileSync(`${ws}/src/x.ts`, "changed");
    runStep(step("git_restore_path", { path: `${ws}/src/x.ts` }), s, ws, {});
    expect(readFileSync(`${ws}/src/x.ts`, "utf8")).toBe("export const x = 1;\n");
    // The path is literal, never a pathspec pattern: `f*.txt` restores that file, not f1.txt.
    writeFileSync(`${ws}/f*.txt`, "star");
    writeFileSync(`${ws}/f1.txt`, "one");
    bash(ws, "git add -A && git commit -qm f && echo changed > 'f*.txt' && echo changed > f1.txt");
    runStep(step("git_restore_path", { path: `${ws}/f*.txt` }), s, ws, {});
    expect([readFileSync(`${ws}/f*.txt`, "utf8"), readFileSync(`${ws}/f1.txt`, "utf8")]).toEqual(["star", "changed\n"]);
    bash(ws, "git reset -q --hard HEAD~1");
    mkdirSync(`${ws}/src/extra`);
    writeFileSync(`${ws}/src/extra/n`, "n");
    runStep(step("git_restore_path", { path: `${ws}/src` }), s, ws, {});
    expect(existsSync(`${ws}/src/extra`)).toBe(false);
    expect(readFileSync(`${ws}/src/x.ts`, "utf8")).toBe("export const x = 1;\n");
    // mv a.txt c.txt over a tracked c.txt? here: b.txt moved onto a.txt, git gives a.txt back.
    rmSync(`${ws}/b.txt`);
    writeFileSync(`${ws}/a.txt`, "beta\nmore\n");
    runStep(step("fs_move_back_git", { source: `${ws}/b.txt`, destination: `${ws}/a.txt` }), s, ws, {});
    expect(readFileSync(`${ws}/b.txt`, "utf8")).toBe("beta\nmore\n");
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("alpha\n");
    runStep(step("git_reset_to", { target: first }), s, ws, {});
    expect(git(ws, ["rev-parse", "HEAD"]).trim()).toBe(first);
    runStep(step("git_uncommit", { target: head }), s, ws, {});
    expect(git(ws, ["rev-parse", "HEAD"]).trim()).toBe(head);
    expect(git(ws, ["status", "--porcelain"]).trim()).not.toBe("");
    runStep(step("git_reset_to", { target: head }), s, ws, {});
    runStep(step("git_switch_to", { branch: "feature", target: head }), s, ws, {});
    expect(readFileSync(`${ws}/.git/HEAD`, "utf8").trim()).toBe("ref: refs/heads/feature");
    runStep(step("git_switch_to", { branch: "", target: first }), s, ws, {});
    expect(readFileSync(`${ws}/.git/HEAD`, "utf8").trim()).toBe(first);
    runStep(step("git_switch_to", { branch: "main", target: first }), s, ws, {});
    runStep(step("git_switch_to", { target: head }), s, ws, {});
    expect(readFileSync(`${ws}/.git/HEAD`, "utf8").trim()).toBe(head);
    runStep(step("git_ref_create", { ref: "refs/heads/made", target: head }), s, ws, {});
    expect(git(ws, ["rev-parse", "refs/heads/made"]).trim()).toBe(head);
    runStep(step("git_ref_delete", { ref: "refs/heads/made" }), s, ws, {});
    expect(git(ws, ["branch", "--list", "made"]).trim()).toBe("");
    writeFileSync(`${ws}/new.txt`, "n");
    bash(ws, "git add new.txt");
    runStep(step("git_unstage", { paths: ["new.txt"] }), s, ws, {});
    expect(git(ws, ["status", "--porcelain", "new.txt"]).trim()).toBe("?? new.txt");
  });

  it("fails with the reason: a step that needs the repository without one, a path in no repository, arguments of the wrong shape, an unknown step", () => {
    const r = root();
    const s = store();
    for (const t of ["git_reset_to", "git_uncommit", "git_ref_create"]) expect(() => runStep(step(t, { target: "abc", ref: "refs/heads/x" }), s, null, {})).toThrow(`inverse ${t} needs the repository`);
    expect(() => runStep(step("git_switch_to", { branch: "main" }), s, null, {})).toThrow("inverse git_switch_to needs the repository");
    expect(() => runStep(step("git_switch_to", { target: "abc" }), s, null, {})).toThrow("inverse git_switch_to needs the repository");
    expect(() => runStep(step("git_ref_delete", { ref: "refs/heads/x" }), s, null, {})).toThrow("inverse git_ref_delete needs the repository");
    expect(() => runStep(step("git_unstage", { paths: ["a"] }), s, null, {})).toThrow("inverse git_unstage needs the repository");
    expect(() => runStep(step("git_unstage", { paths: "a" }), s, r, {})).toThrow("git_unstage: paths is not a list");
    writeFileSync(`${r}/a`, "a");
    expect(() => runStep(step("git_restore_path", { path: `${r}/a` }), s, null, {})).toThrow(`${r}/a is not in a git repository`);
    expect(readFileSync(`${r}/a`, "utf8")).toBe("a");
    expect(() => runStep(step("git_reset_to", {}), s, r, {})).toThrow("inverse git_reset_to: argument target is missing");
    expect(() => runStep(step("restore_point_apply", { point: "../x" }), s, null, {})).toThrow("not a restore point id: ../x");
    let e: unknown = null;
    try {
      runStep(step("teleport_back"), s, null, {});
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(RestoreError);
    expect((e as RestoreError).code).toBe("restore_failed");
    expect((e as Error).message).toBe("no runner for inverse tool teleport_back");
    runStep(step("nothing"), s, null, {});
  });
});

describe("undoEntry: judged on the current state, then run", () => {
  function setup(inverse: InverseStep[], paths: string[]) {
    const r = root();
    const j = new Journal(`${r}/s.jsonl`);
    const s = store();
    return { r, j, s, add: (over: Partial<JournalEntry> = {}) => {
      const e = entry({ inverse, paths, after: stateFingerprint(paths, null), ...over });
      j.add(e);
      return e;
    } };
  }

  it("nothing to undo, no such execution, already undone, no inverse", () => {
    const { j, s } = setup([], []);
    expect(undoEntry(j, s, "/w", undefined, false)).toEqual({ ok: false, id: null, reason: "nothing_to_undo", message: "nothing to undo", steps: [] });
    expect(undoEntry(j, s, "/w", 1, false)).toEqual({ ok: false, id: null, reason: "not_found", message: "no such execution", steps: [] });
    expect(undoEntry(j, s, "/w", { id: "u-x" }, false)).toEqual({ ok: false, id: null, reason: "not_found", message: "no such execution", steps: [] });
    j.add(entry({ id: "u-none", inverse: [] }));
    expect(undoEntry(j, s, "/w", undefined, false)).toEqual({ ok: false, id: "u-none", reason: "no_inverse", message: "u-none has no inverse (it was recorded, not approved as undoable)", steps: [] });
    j.add(entry({ id: "u-empty", inverse: [step("")] }));
    expect(undoEntry(j, s, "/w", { id: "u-empty" }, false).reason).toBe("no_inverse");
    j.add(entry({ id: "u-null", inverse: [step("nothing"), { ...step("x"), tool: null as never }] }));
    expect(undoEntry(j, s, "/w", { id: "u-null" }, false).reason).toBe("no_inverse");
    j.add(entry({ id: "u-done" }));
    j.markUndone("u-done");
    expect(undoEntry(j, s, "/w", { id: "u-done" }, false)).toEqual({ ok: false, id: "u-done", reason: "already_undone", message: "u-done was undone already", steps: ["nothing to undo (fs_remove changed nothing)"] });
  });

  it("a dry run changes nothing; the undo runs π, marks the entry and calls back; a second is already undone", () => {
    const { r, j, s, add } = setup([], []);
    const p = `${r}/made.txt`;
    writeFileSync(p, "made by the call");
    const e = add({ id: "u-1", inverse: [step("fs_remove", { path: p })], paths: [p], after: stateFingerprint([p], null) });
    let called = 0;
    const dry = undoEntry(j, s, r, undefined, true, () => called++);
    expect(dry).toEqual({ ok: true, id: "u-1", reason: "dry_run", message: "would undo u-1", steps: ["remove made.txt (created by the call)"] });
    expect(existsSync(p)).toBe(true);
    expect(called).toBe(0);
    expect(undoEntry(j, s, r, { id: e.id }, false, () => called++)).toEqual({ ok: true, id: "u-1", reason: "undone", message: "undid u-1", steps: ["remove made.txt (created by the call)"] });
    expect(existsSync(p)).toBe(false);
    expect(called).toBe(1);
    expect(new Journal(j.file).isUndone("u-1")).toBe(true);
    expect(undoEntry(j, s, r, { id: "u-1" }, false).reason).toBe("already_undone");
    // Without a callback too.
    writeFileSync(`${r}/m2`, "x");
    add({ id: "u-2", inverse: [step("fs_remove", { path: `${r}/m2` })], paths: [`${r}/m2`], after: stateFingerprint([`${r}/m2`], null) });
    expect(undoEntry(j, s, r, undefined, false).reason).toBe("undone");
  });

  it("what the call touched changed since: refused, nothing run", () => {
    const { r, j, s, add } = setup([], []);
    const p = `${r}/made.txt`;
    writeFileSync(p, "made by the call");
    add({ id: "u-1", inverse: [step("fs_remove", { path: p })], paths: [p], after: stateFingerprint([p], null) });
    writeFileSync(p, "newer work");
    expect(undoEntry(j, s, r, undefined, false)).toEqual({ ok: false, id: "u-1", reason: "changed_since", message: "refused: what u-1 touched has changed since it ran; undoing it would destroy newer work", steps: ["remove made.txt (created by the call)"] });
    expect(readFileSync(p, "utf8")).toBe("newer work");
    // A dry run is refused the same way.
    expect(undoEntry(j, s, r, undefined, true).reason).toBe("changed_since");
  });

  it("newer work on a path the repository call left renamed and modified is seen: refused, not destroyed (was: undone over it)", () => {
    const { r, j, s } = setup([], []);
    const ws = repo();
    bash(ws, "git mv a.txt b2.txt && echo call >> b2.txt");
    const head = git(ws, ["rev-parse", "HEAD"]).trim();
    j.add(entry({ id: "u-reset", repo: ws, inverse: [step("git_reset_to", { target: head }, "git_reset")], after: stateFingerprint([], ws) }));
    writeFileSync(`${ws}/b2.txt`, "newer work");
    expect(undoEntry(j, s, r, undefined, false).reason).toBe("changed_since");
    expect(readFileSync(`${ws}/b2.txt`, "utf8")).toBe("newer work");
  });

  it("newer work on a path git was told to assume unchanged (which git status never shows) is seen: refused, not written over by the reset (was: undone over it)", () => {
    const { r, j, s } = setup([], []);
    const ws = repo();
    const head = git(ws, ["rev-parse", "HEAD"]).trim();
    bash(ws, "git update-index --assume-unchanged a.txt && git reset -q --soft HEAD~1");
    j.add(entry({ id: "u-reset", repo: ws, inverse: [step("git_reset_to", { target: head }, "git_reset")], after: stateFingerprint([], ws) }));
    writeFileSync(`${ws}/a.txt`, "newer work");
    expect(bash(ws, "git status --porcelain -- a.txt")).toBe("");
    expect(undoEntry(j, s, r, undefined, false).reason).toBe("changed_since");
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("newer work");
  });

  it("a state that cannot be read is unknown_state; a step that fails is inverse_failed, not marked, and calls back", () => {
    const { r, j, s } = setup([], []);
    j.add(entry({ id: "u-repo", repo: `${r}/not-a-repo`, after: "x" }));
    const u = undoEntry(j, s, r, undefined, false);
    expect(u.reason).toBe("unknown_state");
    expect(u.message).toMatch(/^the current state could not be read: ENOENT/);
    expect(u.ok).toBe(false);
    j.add(entry({ id: "u-fail", inverse: [step("teleport_back")] }));
    let called = 0;
    expect(undoEntry(j, s, r, { id: "u-fail" }, false, () => called++)).toEqual({ ok: false, id: "u-fail", reason: "inverse_failed", message: "the undo of u-fail failed: no runner for inverse tool teleport_back", steps: ['teleport_back {}'] });
    expect(called).toBe(1);
    expect(j.isUndone("u-fail")).toBe(false);
    expect(undoEntry(j, s, r, { id: "u-fail" }, false).reason).toBe("inverse_failed");
  });

  it("renaming the branch HEAD is on moved HEAD too: the undo puts HEAD back on the old name (was: left on the deleted new name, every file then a new one)", () => {
    const { r, j, s } = setup([], []);
    const ws = repo();
    const at = git(ws, ["rev-parse", "HEAD"]).trim();
    const before = [git(ws, ["symbolic-ref", "HEAD"]), git(ws, ["for-each-ref"]), bash(ws, "git status --porcelain")];
    bash(ws, "git branch -m main renamed");
    const inverse = [step("git_ref_delete", { ref: "refs/heads/renamed" }, "git_ref_add"), step("git_ref_create", { ref: "refs/heads/main", target: at }, "git_ref_delete")];
    j.add(entry({ id: "u-mv", repo: ws, inverse, after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, undefined, true).steps.at(-1)).toBe("git symbolic-ref HEAD refs/heads/main");
    expect(undoEntry(j, s, r, undefined, false).reason).toBe("undone");
    expect([git(ws, ["symbolic-ref", "HEAD"]), git(ws, ["for-each-ref"]), bash(ws, "git status --porcelain")]).toEqual(before);
    // A branch HEAD is not on: HEAD stays where it is.
    bash(ws, "git branch -m feature f2");
    j.add(entry({ id: "u-mv2", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/f2" }, "git_ref_add"), step("git_ref_create", { ref: "refs/heads/feature", target: at }, "git_ref_delete")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, undefined, false).steps).not.toContain("git symbolic-ref HEAD refs/heads/feature");
    expect([git(ws, ["symbolic-ref", "HEAD"]), git(ws, ["for-each-ref"])]).toEqual(before.slice(0, 2));
    // The undo deletes the branch HEAD is on and recreates it: HEAD stays on it.
    j.add(entry({ id: "u-same", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/main" }, "git_ref_add"), step("git_ref_create", { ref: "refs/heads/main", target: at }, "git_ref_delete")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, undefined, false).reason).toBe("undone");
    expect(git(ws, ["symbolic-ref", "HEAD"])).toBe(before[0]);
    // `git branch -M main feature` on main (over feature, at another commit): undone by deleting feature,
    // recreating feature where it was and main at its commit; HEAD goes back to main, the one branch put
    // back at the commit HEAD's branch had (a tag there, or a branch elsewhere, is not one).
    bash(ws, "git commit -q --allow-empty -m more");
    const feature = git(ws, ["rev-parse", "feature"]).trim();
    const more = git(ws, ["rev-parse", "HEAD"]).trim();
    bash(ws, "git branch -M main feature");
    j.add(entry({ id: "u-over", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/feature" }, "git_ref_add"), step("git_ref_create", { ref: "refs/heads/feature", target: feature }, "git_ref_delete"), step("git_ref_create", { ref: "refs/tags/more", target: more }, "git_ref_delete"), step("git_ref_create", { ref: "refs/heads/main", target: more }, "git_ref_delete")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, undefined, false).reason).toBe("undone");
    expect(git(ws, ["symbolic-ref", "HEAD"])).toBe("refs/heads/main\n");
    expect(git(ws, ["rev-parse", "main", "feature"])).toBe(`${more}\n${feature}\n`);
  });

  it("an undo that would delete the branch HEAD is on and put no one branch back at its commit is refused before any step", () => {
    const { r, j, s } = setup([], []);
    const ws = repo();
    const at = git(ws, ["rev-parse", "HEAD"]).trim();
    const refs = git(ws, ["for-each-ref"]);
    j.add(entry({ id: "u-none", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/main" }, "git_ref_add")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, undefined, false)).toEqual({ ok: false, id: "u-none", reason: "inverse_failed", message: "refused: the undo of u-none would leave HEAD on a branch that no longer exists (it deletes refs/heads/main, the branch HEAD is on, and puts no branch back at its commit); nothing was changed", steps: ["git update-ref -d refs/heads/main"] });
    j.add(entry({ id: "u-two", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/main" }, "git_ref_add"), step("git_ref_create", { ref: "refs/heads/a1", target: at }, "git_ref_delete"), step("git_ref_create", { ref: "refs/heads/a2", target: at }, "git_ref_delete"), step("git_ref_create", { ref: "refs/tags/t", target: at }, "git_ref_delete")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, { id: "u-two" }, false).message).toContain("and puts more than one branch back at its commit");
    expect(git(ws, ["for-each-ref"])).toBe(refs);
    expect(j.isUndone("u-none") || j.isUndone("u-two")).toBe(false);
    // A switch step puts HEAD back itself (`git checkout -b x` is undone by switching back, then deleting x).
    bash(ws, "git checkout -q -b nb");
    j.add(entry({ id: "u-sw", repo: ws, inverse: [step("git_switch_to", { branch: "main", target: at }, "git_switch"), step("git_ref_delete", { ref: "refs/heads/nb" }, "git_ref_add")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, { id: "u-sw" }, false).reason).toBe("undone");
    expect(git(ws, ["symbolic-ref", "HEAD"])).toBe("refs/heads/main\n");
    // Detached HEAD: no branch to follow.
    bash(ws, "git checkout -q --detach");
    j.add(entry({ id: "u-det", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/main" }, "git_ref_add"), step("git_ref_create", { ref: "refs/heads/main", target: at }, "git_ref_delete")], after: stateFingerprint([], ws) }));
    expect(undoEntry(j, s, r, { id: "u-det" }, false).reason).toBe("undone");
  });

  it("the store's names of hard-linked files (`linked`): in the fingerprint only when there are some (older journals' digests unchanged), a write through them since is newer work, and they are removed after the undo", () => {
    const { r, j, s } = setup([], []);
    const f = `${r}/f.txt`;
    writeFileSync(f, "f\n");
    const kept = `${r}/kept-name`;
    writeFileSync(kept, "k\n");
    // No linked names: the digest of the paths alone, as journals written before them have it.
    expect(stateFingerprint([f], null, [])).toBe(createHash("sha256").update(fingerprint([f])).digest("hex"));
    expect(stateFingerprint([f], null)).toBe(stateFingerprint([f], null, []));
    const withLinked = stateFingerprint([f], null, [kept]);
    expect(withLinked).not.toBe(stateFingerprint([f], null));
    // A write through the store's name since the call: refused as newer work.
    j.add(entry({ id: "u-l1", paths: [f], linked: [kept], after: withLinked }));
    writeFileSync(kept, "written since\n");
    expect(undoEntry(j, s, r, { id: "u-l1" }, false).reason).toBe("changed_since");
    expect(existsSync(kept)).toBe(true);
    // Unchanged: undone, and the store's name is gone.
    j.add(entry({ id: "u-l2", paths: [f], linked: [kept], after: stateFingerprint([f], null, [kept]) }));
    expect(undoEntry(j, s, r, { id: "u-l2" }, false).reason).toBe("undone");
    expect(existsSync(kept)).toBe(false);
  });

  it("a restore point that holds the repository puts HEAD back as it kept it: the HEAD check follows it through the steps in order (was: `git checkout -b x` in a dirty work tree, undone by the point and then deleting x, was refused as leaving HEAD on x)", () => {
    const { r, j, s } = setup([], []);
    const ws = repo();
    const at = git(ws, ["rev-parse", "HEAD"]).trim();
    const onMain = s.take([`${ws}/a.txt`], ws);
    expect(onMain.repo!.head).toBe("ref: refs/heads/main");
    const add = (id: string, inverse: InverseStep[], repoOf = ws): void => j.add(entry({ id, repo: repoOf, inverse, after: stateFingerprint([], repoOf) }));
    const apply = (p: { id: string }) => step("restore_point_apply", { point: p.id }, "git_switch");
    // The point first, then the new branch deleted: HEAD is on main again when nb goes.
    bash(ws, "git checkout -q -b nb");
    add("u-pt", [apply(onMain), step("git_ref_delete", { ref: "refs/heads/nb" }, "git_ref_add")]);
    expect(undoEntry(j, s, r, { id: "u-pt" }, true).steps).not.toContain("git symbolic-ref HEAD refs/heads/main");
    expect(undoEntry(j, s, r, { id: "u-pt" }, false).reason).toBe("undone");
    expect([git(ws, ["symbolic-ref", "HEAD"]).trim(), git(ws, ["for-each-ref", "refs/heads/nb"])]).toEqual(["refs/heads/main", ""]);
    // The branch deleted first, then the point: the point puts HEAD (and every ref it kept) back.
    bash(ws, "git checkout -q -b nb2");
    add("u-del-pt", [step("git_ref_delete", { ref: "refs/heads/nb2" }, "git_ref_add"), apply(onMain)]);
    expect(undoEntry(j, s, r, { id: "u-del-pt" }, false).reason).toBe("undone");
    expect(git(ws, ["symbolic-ref", "HEAD"]).trim()).toBe("refs/heads/main");
    // A step after the point that deletes the branch the point put HEAD on: refused, nothing run.
    add("u-pt-del", [apply(onMain), step("git_ref_delete", { ref: "refs/heads/main" }, "git_ref_add")]);
    expect(undoEntry(j, s, r, { id: "u-pt-del" }, false)).toMatchObject({ ok: false, reason: "inverse_failed", message: expect.stringContaining("it deletes refs/heads/main, the branch HEAD is on") });
    // A point of another repository says nothing of this one's HEAD.
    const other = repo();
    const otherPoint = s.take([`${other}/a.txt`], other);
    bash(ws, "git checkout -q -b nb3");
    add("u-other", [apply(otherPoint), step("git_ref_delete", { ref: "refs/heads/nb3" }, "git_ref_add")]);
    expect(undoEntry(j, s, r, { id: "u-other" }, false).message).toContain("it deletes refs/heads/nb3, the branch HEAD is on");
    // A point that kept a detached HEAD: no branch for a later delete to take from under it.
    bash(ws, "git checkout -q --detach main");
    const detached = s.take([`${ws}/a.txt`], ws);
    expect(detached.repo!.head).toBe(at);
    bash(ws, "git checkout -q nb3");
    add("u-det-pt", [apply(detached), step("git_ref_delete", { ref: "refs/heads/nb3" }, "git_ref_add")]);
    expect(undoEntry(j, s, r, { id: "u-det-pt" }, false).reason).toBe("undone");
    expect(git(ws, ["rev-parse", "--symbolic-full-name", "HEAD"]).trim()).toBe("HEAD");
    // A point without the repository (a path outside it): HEAD stays as it is, and the delete is judged on it.
    bash(ws, "git checkout -q -b nb4");
    const noRepo = s.take([`${r}/outside.txt`], null);
    add("u-norepo", [apply(noRepo), step("git_ref_delete", { ref: "refs/heads/nb4" }, "git_ref_add")]);
    expect(undoEntry(j, s, r, { id: "u-norepo" }, false).message).toContain("it deletes refs/heads/nb4, the branch HEAD is on");
  });

  it("a repository whose HEAD cannot be read as a branch or a commit (no commit yet) is unknown_state for an undo that deletes a ref, nothing run", () => {
    const { r, j, s } = setup([], []);
    const ws = `${r}/unborn`;
    mkdirSync(ws);
    bash(ws, "git init -q -b main");
    j.add(entry({ id: "u-unborn", repo: ws, inverse: [step("git_ref_delete", { ref: "refs/heads/x" }, "git_ref_add")], after: stateFingerprint([], ws) }));
    const u = undoEntry(j, s, r, undefined, false);
    expect(u.reason).toBe("unknown_state");
    expect(u.message).toMatch(/^the current state could not be read: git rev-parse failed/);
    expect(j.isUndone("u-unborn")).toBe(false);
  });

  it("an entry without kinds (older journals) moves back as if every source existed", () => {
    const { r, j, s } = setup([], []);
    writeFileSync(`${r}/b`, "moved");
    const paths = [`${r}/a`, `${r}/b`];
    const e = entry({ id: "u-old", inverse: [step("fs_move_back", { source: `${r}/a`, destination: `${r}/b` })], paths, after: stateFingerprint(paths, null) });
    delete (e as Partial<JournalEntry>).kinds;
    appendFileSync(j.file, `${JSON.stringify({ entry: e })}\n`);
    const k = new Journal(j.file);
    expect(undoEntry(k, s, r, undefined, false).reason).toBe("undone");
    expect(readFileSync(`${r}/a`, "utf8")).toBe("moved");
    expect(lstatSync(`${r}/a`).isFile()).toBe(true);
  });
});
