// The shell guard's answers (src/shell/guard.ts), in-process and without running the calls: the
// options it refuses, the shape of every decision (reason, action, route, message, tier, π, restore
// point, execution) under each policy, the read-only and creation-only evidence, the patch headers,
// the overlap and fresh-repository rules, what observe() journals. Plain directories cost no git
// process; the git cases use the small templates of ./helpers.ts, built once. The executed proofs
// (run the call, undo it, compare the manifest) are in guard.test.ts and creation.test.ts.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard, readOnlyChecker, repoScope, SHELL_DECISION_FORMAT, ShellGuardError, type ShellGuard, type ShellGuardOptions, type ShellPolicy } from "../../src/shell/guard.js";
import type { TypedCall } from "../../src/shell/dispatch.js";
import { tempDir } from "./helpers.js";
import { guardOn, points, sh } from "./verdict-fixture.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const COMMANDS = readFileSync(new URL("../../ontologies/shell/commands.json", import.meta.url), "utf8");
const DIGEST = createHash("sha256").update(COMMANDS).digest("hex");

describe("createShellGuard refuses bad options with a code and a one-line message", () => {
  const root = realpathSync(tempDir("polar-shell-options-"));
  made.push(root);
  mkdirSync(`${root}/ws`);
  writeFileSync(`${root}/file`, "x");
  const ok = { cwd: `${root}/ws`, store: `${root}/store` };
  const refused = async (options: unknown, code: string, message: string | RegExp) => {
    const e = await createShellGuard(options as ShellGuardOptions).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(ShellGuardError);
    expect((e as ShellGuardError).name).toBe("ShellGuardError");
    expect((e as ShellGuardError).code).toBe(code);
    if (typeof message === "string") expect((e as Error).message).toBe(message);
    else expect((e as Error).message).toMatch(message);
  };

  it("the options object", async () => {
    await refused(null, "bad-option", "createShellGuard needs { cwd, store }");
    await refused("ws", "bad-option", "createShellGuard needs { cwd, store }");
    await refused({ ...ok, polcy: "veto" }, "bad-option", "unknown option `polcy` (the options are cwd, store, session, policy, readOnlyCommands, restoreBounds, log)");
  });

  it("cwd: a path of an existing directory", async () => {
    await refused({ ...ok, cwd: "" }, "bad-cwd", "`cwd` is not a path");
    await refused({ ...ok, cwd: 5 }, "bad-cwd", "`cwd` is not a path");
    await refused({ ...ok, cwd: `${root}/nope` }, "bad-cwd", `cwd ${root}/nope does not exist`);
    await refused({ ...ok, cwd: `${root}/file` }, "bad-cwd", `cwd ${root}/file is not a directory`);
  });

  it("store: a path outside the workspace, also through a symbolic link to it", async () => {
    await refused({ ...ok, store: "" }, "bad-store", "`store` is not a path");
    await refused({ ...ok, store: 7 }, "bad-store", "`store` is not a path");
    await refused({ ...ok, store: `${root}/ws` }, "bad-store", `the store ${root}/ws is inside the workspace`);
    await refused({ ...ok, store: `${root}/ws/s` }, "bad-store", `the store ${root}/ws/s is inside the workspace`);
    symlinkSync(`${root}/ws`, `${root}/link`);
    await refused({ cwd: `${root}/link`, store: `${root}/ws/s` }, "bad-store", `the store ${root}/ws/s is inside the workspace`);
    await refused({ ...ok, store: `${root}/file/store` }, "bad-store", /^the restore-point store .*\/file\/store is not writable: /);
    // A sibling whose name starts with the workspace's is outside it.
    const g = await createShellGuard({ ...ok, store: `${root}/ws-store` });
    expect(g.cwd).toBe(`${root}/ws`);
  });

  it("policy, session, bounds, read-only commands", async () => {
    await refused({ ...ok, policy: "yolo" }, "bad-option", "unknown policy `yolo` (snapshot, escalate, veto, advisory)");
    const session = "`session` must be 1–128 characters of [A-Za-z0-9._-]";
    await refused({ ...ok, session: "" }, "bad-option", session);
    await refused({ ...ok, session: "a b" }, "bad-option", session);
    await refused({ ...ok, session: "x".repeat(129) }, "bad-option", session);
    await refused({ ...ok, session: 12 }, "bad-option", session);
    const bounds = "restoreBounds must be non-negative integers";
    await refused({ ...ok, restoreBounds: { maxBytes: -1 } }, "bad-option", bounds);
    await refused({ ...ok, restoreBounds: { maxFiles: -1 } }, "bad-option", bounds);
    await refused({ ...ok, restoreBounds: { maxBytes: 1.5 } }, "bad-option", bounds);
    await refused({ ...ok, restoreBounds: { maxFiles: 2.5 } }, "bad-option", bounds);
    const ro = "readOnlyCommands must be a list of command names";
    await refused({ ...ok, readOnlyCommands: "ls" }, "bad-option", ro);
    await refused({ ...ok, readOnlyCommands: [""] }, "bad-option", ro);
    await refused({ ...ok, readOnlyCommands: ["ok", 3] }, "bad-option", ro);
  });

  it("the defaults: policy snapshot, a random 12-hex-digit session, the workspace's real path; 128 characters and zero bounds are accepted", async () => {
    const g = await createShellGuard({ cwd: `${root}/link`, store: `${root}/store-d` });
    expect(g.policy).toBe("snapshot");
    expect(g.session).toMatch(/^[0-9a-f]{12}$/);
    expect(g.cwd).toBe(`${root}/ws`);
    const h = await createShellGuard({ ...ok, store: `${root}/store-e`, session: "A.b_c-".padEnd(128, "z"), policy: "advisory", restoreBounds: { maxBytes: 0, maxFiles: 0 }, readOnlyCommands: [] });
    expect(h.session).toBe("A.b_c-".padEnd(128, "z"));
    expect(h.policy).toBe("advisory");
  });
});

describe("readOnlyChecker: what `polar audit verify` re-derives a read-only or creation-only approval with", () => {
  it("names the catalogue by its digest and answers null only for a read-only line", async () => {
    const c = await readOnlyChecker();
    expect(c.catalogue).toBe(DIGEST);
    expect(c.check("ls -la && git status", "/tmp")).toBeNull();
    expect(c.check("rm a b && touch c", "/tmp")).toBe("not read-only: it makes fs_remove, fs_remove, fs_write");
    expect(c.check("frobnicate", "/tmp")).toBe("not read-only: unknown_command (frobnicate is not in the command catalogue)");
  });

  it("creation-only: mkdir and nothing else", async () => {
    const c = await readOnlyChecker();
    expect(c.creationOnly("mkdir -p a/b", "/tmp")).toBeNull();
    expect(c.creationOnly("mkdir a && rm b", "/tmp")).toBe("not creation-only: it makes fs_mkdir, fs_remove");
    expect(c.creationOnly("ls", "/tmp")).toBe("not creation-only: it makes no call");
    expect(c.creationOnly("frobnicate", "/tmp")).toBe("not creation-only: unknown_command (frobnicate is not in the command catalogue)");
  });
});

describe("calls the guard cannot judge", () => {
  it("a wrong shape is malformed_call, denied under every policy, with the reason in the message", async () => {
    const { g, ws } = await guardOn("empty", "advisory");
    writeFileSync(`${ws}/f`, "x");
    const cases: [unknown, string][] = [
      [null, "a tool call is { tool, args } with args an object"],
      ["rm -rf /", "a tool call is { tool, args } with args an object"],
      [{ tool: 5, args: {} }, "a tool call is { tool, args } with args an object"],
      [{ tool: "shell", args: null }, "a tool call is { tool, args } with args an object"],
      [{ tool: "shell", args: "ls" }, "a tool call is { tool, args } with args an object"],
      [{ tool: "shell", args: ["ls"] }, "a tool call is { tool, args } with args an object"],
      [{ tool: "shell", args: { command: 5 } }, "shell: `command` is not a string"],
      [{ tool: "shell", args: { command: "ls", cwd: "" } }, "shell: `cwd` is not a path"],
      [{ tool: "shell", args: { command: "ls", cwd: "a\u0000b" } }, "shell: `cwd` is not a path"],
      [{ tool: "shell", args: { command: "ls", cwd: "f" } }, `shell: cwd ${ws}/f is not a directory`],
      [{ tool: "shell", args: { command: "ls", cwd: "/no/such" } }, "shell: cwd /no/such does not exist"],
      [{ tool: "write_file", args: { path: 3, content: "x" } }, "write_file: `path` is not a path"],
      [{ tool: "write_file", args: { path: "a" } }, "write_file: `content` is not a string"],
      [{ tool: "edit_file", args: { path: "", old: "a", new: "b" } }, "edit_file: `path` is not a path"],
      [{ tool: "edit_file", args: { path: "a", old: "a" } }, "edit_file: `old` and `new` must be strings"],
      [{ tool: "edit_file", args: { path: "a", new: "b" } }, "edit_file: `old` and `new` must be strings"],
      [{ tool: "apply_patch", args: { patch: 1 } }, "apply_patch: `patch` is not a string"],
    ];
    for (const [call, detail] of cases) {
      const d = g.check(call);
      expect(d, JSON.stringify(call)).toMatchObject({ approved: false, action: "deny", route: "Vetoed", reason: "malformed_call", message: `not judged (malformed_call): ${detail}`, tier: null, execution: null, core: null, calls: [], inverse: [], restorePoint: null });
    }
  });

  it("an unknown tool is asked (denied under veto); the core's `{ name, arguments }` shape is accepted", async () => {
    const { g } = await guardOn("empty");
    const d = g.check({ tool: "teleport", args: {} });
    expect(d).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", reason: "unknown_command", message: "not judged (unknown_command): unknown tool `teleport`", problems: [{ reason: "unknown_command", detail: "unknown tool `teleport`", source: "teleport" }] });
    const v = await guardOn("empty", "veto");
    expect(v.g.check({ tool: "teleport", args: {} })).toMatchObject({ action: "deny", route: "Vetoed" });
    expect(g.check({ name: "shell", arguments: { command: "ls" } }).reason).toBe("read_only");
  });

  it("a call whose reading throws is unparsed with the error, never approved", async () => {
    const { g } = await guardOn("empty");
    const hostile = {
      get tool(): string {
        throw new Error("boom");
      },
    };
    const d = g.check(hostile);
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "unparsed", message: "not judged (unparsed): internal error: boom", problems: [{ reason: "unparsed", detail: "internal error: boom", source: "" }] });
  });

  it("a line the dispatcher cannot resolve is asked under advisory too, with its problem", async () => {
    const { g } = await guardOn("empty", "advisory");
    const d = g.check(sh("rm $(cat list)"));
    expect(d).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", reason: "unresolved_argument", tier: null, core: null });
    expect(d.message).toBe(`not judged (unresolved_argument): ${d.problems[0]!.detail}`);
  });
});

describe("read-only lines", () => {
  it("are approved without the core, with the evidence that re-derives them; seq counts every check", async () => {
    const { g, ws } = await guardOn("empty");
    mkdirSync(`${ws}/sub`);
    const a = g.check(sh("ls -la"));
    expect(a).toEqual({
      format: SHELL_DECISION_FORMAT, seq: 1, approved: true, action: "allow", route: "Approved", reason: "read_only", message: "read-only: nothing to undo",
      tier: "T0", restorePoint: null, execution: null, calls: [], problems: [], inverse: [], core: null, readOnly: { command: "ls -la", cwd: ws, catalogue: DIGEST }, session: g.session,
    });
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.readOnly)).toBe(true);
    const b = g.check(sh("cat x", "sub"));
    expect(b.seq).toBe(2);
    expect(b.readOnly).toEqual({ command: "cat x", cwd: `${ws}/sub`, catalogue: DIGEST });
    expect(g.check(sh("cat x", `${ws}/sub`)).readOnly?.cwd).toBe(`${ws}/sub`);
  });

  it("extra read-only commands make a catalogue of their own: its digest names the list, in any order", async () => {
    const a = await guardOn("empty", "snapshot", { readOnlyCommands: ["zeta", "alpha"] });
    const b = await guardOn("empty", "snapshot", { readOnlyCommands: ["alpha", "zeta"] });
    const da = a.g.check(sh("zeta --all"));
    expect(da.reason).toBe("read_only");
    const want = createHash("sha256").update(`${DIGEST}\u0000${JSON.stringify(["alpha", "zeta"])}`).digest("hex");
    expect(da.readOnly?.catalogue).toBe(want);
    expect(b.g.check(sh("alpha")).readOnly?.catalogue).toBe(want);
    const c = await guardOn("empty");
    expect(c.g.check(sh("zeta")).reason).toBe("unknown_command");
  });
});

describe("verdicts in a plain folder (no repository: an existing file has no copy but a restore point)", () => {
  it("a new file is reversible: its undo removes it; the execution names the session and the check", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(sh("echo x > fresh.txt"));
    expect(d).toMatchObject({ approved: true, action: "allow", route: "Approved", reason: "reversible", tier: "T1", restorePoint: null, execution: `${g.session}:1` });
    expect(d.inverse.map((s) => [s.tool, s.arguments])).toEqual([["fs_remove", { path: `${ws}/fresh.txt` }]]);
    expect(d.message).toBe("approved: undo is remove fresh.txt (created by the call)");
    expect(d.core?.admissible).toBe(true);
  });

  it("removing an existing file: veto denies it as irreversible, escalate asks, snapshot keeps it in a restore point, advisory lets it run and records it", async () => {
    const refusal = "not approved: it would destroy data nothing can give back";
    for (const [policy, action, route] of [["veto", "deny", "Vetoed"], ["escalate", "ask", "ConsentEscalated"]] as const) {
      const { g, ws } = await guardOn("empty", policy);
      writeFileSync(`${ws}/notes.txt`, "work\n");
      const d = g.check(sh("rm notes.txt"));
      expect(d).toMatchObject({ approved: false, action, route, reason: "irreversible", tier: "T4", restorePoint: null, execution: null });
      expect(d.message.startsWith(refusal)).toBe(true);
      expect(g.observe(sh("rm notes.txt"))).toEqual({ journaled: null });
    }
    const s = await guardOn("empty", "snapshot");
    writeFileSync(`${s.ws}/notes.txt`, "work\n");
    const d = s.g.check(sh("rm notes.txt"));
    expect(d).toMatchObject({ approved: true, action: "allow", route: "Approved", reason: "restore_point", tier: "T1", execution: `${s.g.session}:1` });
    expect(d.restorePoint).toMatchObject({ id: expect.stringMatching(/^rp-[0-9a-f]{16}$/), files: 1, bytes: 5 });
    expect(d.inverse.map((x) => x.tool)).toEqual(["restore_point_apply"]);
    expect(d.message).toBe(`approved: restore point ${d.restorePoint!.id} keeps what it would change; undo: put back what restore point ${d.restorePoint!.id} holds`);
    const a = await guardOn("empty", "advisory");
    writeFileSync(`${a.ws}/notes.txt`, "work\n");
    const ad = a.g.check(sh("rm notes.txt"));
    expect(ad).toMatchObject({ approved: true, action: "allow", route: "AdvisoryPassthrough", reason: "irreversible", tier: "T4", restorePoint: null, execution: `${a.g.session}:1` });
    expect(a.g.observe(sh("rm notes.txt")).journaled).toMatch(/^u-1-[0-9a-f]{6}$/);
  });

  it("under snapshot a restore point is taken only for what it would lose: a new file needs none", async () => {
    const { g, store } = await guardOn("empty", "snapshot");
    const d = g.check(sh("echo x > fresh.txt"));
    expect(d.reason).toBe("reversible");
    expect(d.restorePoint).toBeNull();
    expect(points(store)).toEqual([]);
  });

  it("a restore point over its bound is asked under snapshot (never approved)", async () => {
    const { g, ws } = await guardOn("empty", "snapshot", { restoreBounds: { maxFiles: 1 } });
    mkdirSync(`${ws}/dir`);
    writeFileSync(`${ws}/dir/a`, "a");
    const d = g.check(sh("rm -r dir"));
    expect(d).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", reason: "over_bound", restorePoint: null, execution: null, inverse: [], tier: "T4" });
    expect(d.message).toBe("no restore point, so no approval: more than 1 files to keep");
  });

  it("a store that stopped being writable: restore_failed, asked", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    rmSync(`${store}/points`, { recursive: true });
    writeFileSync(`${store}/points`, "not a folder");
    const d = g.check(sh("rm notes.txt"));
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "restore_failed", restorePoint: null, execution: null });
    expect(d.message).toMatch(/^no restore point, so no approval: the restore point could not be taken: ENOTDIR/);
  });

  it("an external effect is never approved under veto or snapshot, and says where it acts", async () => {
    const { g } = await guardOn("empty", "snapshot");
    const d = g.check(sh("curl -X POST https://example.com -d x"));
    expect(d).toMatchObject({ approved: false, action: "ask", reason: "external_effect", tier: "T5", execution: null });
    expect(d.message.startsWith("not approved: it acts outside the workspace, which no undo reaches")).toBe(true);
  });

  it("a git call outside any repository is unknown_state: not grounded, asked even under advisory", async () => {
    for (const policy of ["advisory", "snapshot", "veto"] as const) {
      const { g } = await guardOn("empty", policy);
      const d = g.check(sh("git reset --hard"));
      expect(d).toMatchObject({ approved: false, action: policy === "veto" ? "deny" : "ask", reason: "unknown_state", execution: null });
      expect(d.message).toBe("not approved: the workspace state it needs is not known (not a git repository?)");
    }
  });

  it("a git call outside any repository before another call is not grounded either: asked under advisory (was: approved and journaled, while the same calls in the other order were asked)", async () => {
    const { g } = await guardOn("empty", "advisory");
    for (const line of ["git reset --hard; echo x > f", "git branch x; echo x > f", "git add . && git init"]) {
      expect(g.check(sh(line)), line).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", execution: null });
    }
    expect(g.check(sh("echo x > f; git reset --hard"))).toMatchObject({ approved: false, action: "ask", reason: "unknown_state" });
    // A line whose git calls all find their repository is passed through as before.
    expect(g.check(sh("echo x > f"))).toMatchObject({ approved: true, route: "Approved" });
  });

  it("a glob with a negated class is judged on the names bash expands it to (was: `[!a]*` read as `!` or `a`, so `rm [!a]*` was approved as the removal of a file in git while it removes an untracked one)", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    writeFileSync(`${ws}/untracked.txt`, "only here\n");
    const d = g.check(sh("rm [!ab]*.txt"));
    // a.txt and b.txt are committed and clean: judged on them, the line was approved (T1 by git restore).
    expect(d.calls.map((c) => c.arguments.path)).toEqual([`${ws}/untracked.txt`]);
    expect(d.approved).toBe(false);
    expect(d.reason).toBe("irreversible");
  });

  it("an operand after a redirection, or a line bash splits at a carriage return, is judged as bash runs it (was: `rm 2>/dev/null f` and `ls f\\<CR><LF>rm f` approved under veto as read-only)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/f.txt`, "only here\n");
    const d = g.check(sh("rm 2>/dev/null f.txt"));
    expect(d.calls.map((c) => [c.name, c.arguments.path])).toEqual([["fs_remove", `${ws}/f.txt`]]);
    expect([d.approved, d.reason]).toEqual([false, "irreversible"]);
    const cr = g.check(sh("ls f.txt\\\r\nrm f.txt"));
    expect([cr.approved, cr.reason]).toEqual([false, "unparsed"]);
  });
});


describe("calls of one line that touch the same paths (overlap)", () => {
  it("veto denies and escalate asks; snapshot keeps every touched path, absent ones too, in one restore point; advisory judges them as they are", async () => {
    const line = "echo a > x.txt && rm x.txt";
    const message = "not approved: calls of this line act on the same paths, so their undo depends on their order; the snapshot policy keeps them in a restore point";
    for (const [policy, action] of [["veto", "deny"], ["escalate", "ask"]] as const) {
      const { g } = await guardOn("empty", policy);
      const d = g.check(sh(line));
      expect(d).toMatchObject({ approved: false, action, reason: "overlap", message, restorePoint: null, execution: null, inverse: [], tier: "T1" });
      expect(d.core).not.toBeNull();
    }
    const s = await guardOn("empty", "snapshot");
    const d = s.g.check(sh(line));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", restorePoint: { files: 0, bytes: 0 } });
    const point = JSON.parse(readFileSync(`${s.store}/points/${d.restorePoint!.id}.json`, "utf8")) as { paths: { path: string; entries: unknown }[] };
    expect(point.paths).toEqual([{ path: `${s.ws}/x.txt`, entries: null }]);
    const a = await guardOn("empty", "advisory");
    const ad = a.g.check(sh(line));
    expect(ad).toMatchObject({ approved: true, action: "allow", route: "Approved", reason: "reversible", restorePoint: null });
  });

  it("a copy onto a path the line then removes, a move and a write under its destination: overlaps; a chain of mkdir is not one", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/a`, "a");
    mkdirSync(`${ws}/d`);
    expect(g.check(sh("cp a b && rm b")).reason).toBe("overlap");
    expect(g.check(sh("mv a d2 && echo x > d2/f")).reason).toBe("overlap");
    expect(g.check(sh("echo x > d/f && mv d e")).reason).toBe("overlap");
    expect(g.check(sh("mv a e && echo x > a")).reason).toBe("overlap");
    // A folder made and then moved: a mkdir beside another kind of call is an overlap.
    expect(g.check(sh("mkdir n0 && mv n0 m0")).reason).toBe("overlap");
    // A later path under an earlier one.
    expect(g.check(sh("rm -r d; echo x > d/f")).reason).toBe("overlap");
    const chain = g.check(sh("mkdir n && mkdir n/m"));
    expect(chain.reason).toBe("reversible");
    expect(chain.message).toBe("approved: undo is remove n/m (created by the call); remove n (created by the call)");
    expect(g.check(sh("echo x > p; echo y > q")).reason).toBe("reversible");
    // A name that only starts with another's is not under it.
    expect(g.check(sh("echo x > pq; echo y > p")).reason).toBe("reversible");
  });

  it("in a repository, a repository-wide git call overlaps every other call but a ref's; two of them overlap each other", async () => {
    const { g } = await guardOn("clean", "veto");
    expect(g.check(sh("git add -A && git commit -m x"))).toMatchObject({ approved: false, reason: "overlap" });
    expect(g.check(sh("git add a.txt && rm b.txt"))).toMatchObject({ approved: false, reason: "overlap" });
    const ref = g.check(sh("git branch x && git add a.txt"));
    expect(ref).toMatchObject({ approved: true, reason: "reversible" });
    expect(ref.inverse.map((s) => s.tool)).toEqual(["git_unstage", "git_ref_delete"]);
    expect(ref.message).toBe("approved: undo is git reset -q -- a.txt; git update-ref -d refs/heads/x");
  });

  it("under snapshot an overlap in a repository keeps the whole tree with the repository's refs and index", async () => {
    const { g, store } = await guardOn("rich", "snapshot");
    const d = g.check(sh("git add -A && git commit -m x"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    const point = JSON.parse(readFileSync(`${store}/points/${d.restorePoint!.id}.json`, "utf8")) as { paths: { path: string }[]; repo: { scope?: string; refs: unknown[] } | null };
    expect(point.repo).not.toBeNull();
    expect(point.repo!.scope).toBeUndefined();
    expect(point.repo!.refs.length).toBeGreaterThan(0);
    expect(d.inverse.map((s) => s.tool)).toEqual(["restore_point_apply", "restore_point_apply"]);
  });
});

describe("git in a repository the same line creates", () => {
  it("git init, add and commit in a folder with no repository above: only the new .git changes; undo removes it", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(sh("git init && git add . && git commit -m first"));
    expect(d).toMatchObject({ approved: true, reason: "reversible", tier: "T1" });
    expect(d.calls.map((c) => c.name)).toEqual(["fs_mkdir", "fs_mkdir", "git_stage", "git_commit"]);
    expect(d.inverse.map((s) => [s.tool, s.arguments.path])).toEqual([["fs_remove", `${ws}/.git`], ["nothing", undefined]]);
    const sub = g.check(sh("git init sub && git -C sub add . && git -C sub branch b"));
    expect(sub).toMatchObject({ approved: true, reason: "reversible" });
    // A git call in a folder below the new repository acts in it too.
    mkdirSync(`${ws}/below`);
    expect(g.check(sh("git init && git -C below add x")).approved).toBe(true);
  });

  it("other git calls there, other init options, or a repository above: judged as they are (not grounded, or on that repository)", async () => {
    const { g } = await guardOn("empty", "veto");
    expect(g.check(sh("git init && git reset --hard"))).toMatchObject({ approved: false, reason: "unknown_state" });
    // The dispatcher asks these itself (a template's hooks; a bare repository's files in the folder).
    for (const line of ["git init --bare && git add .", "git init --template=t && git add ."]) {
      expect(g.check(sh(line)), line).toMatchObject({ approved: false, reason: "unknown_effect" });
    }
    // A git call before the init acts in no repository.
    expect(g.check(sh("git add . && git init")).approved).toBe(false);
    const c = await guardOn("clean", "veto");
    expect(c.g.check(sh("git init sub && git -C sub add ."))).toMatchObject({ approved: false, reason: "overlap" });
  });

  it("a repository between the new one and the git call's folder: that repository's", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    mkdirSync(`${ws}/inner/.git`, { recursive: true });
    expect(g.check(sh("git init && git -C inner add x"))).toMatchObject({ approved: false, reason: "unknown_state" });
  });
});

describe("the state cannot be read", () => {
  async function looped(policy: ShellPolicy) {
    const r = await guardOn("empty", policy);
    symlinkSync("loop", `${r.ws}/loop`);
    writeFileSync(`${r.ws}/f`, "f");
    return r;
  }

  it("a line that can lose data is asked (denied under veto), with the read's error", async () => {
    for (const [policy, action] of [["snapshot", "ask"], ["advisory", "ask"], ["veto", "deny"]] as const) {
      const { g, ws } = await looped(policy);
      for (const line of ["rm loop/x", "mkdir loop/x && rm f"]) {
        const d = g.check(sh(line));
        expect(d).toMatchObject({ approved: false, action, reason: "unknown_state", tier: null, execution: null, core: null, restorePoint: null, inverse: [] });
        expect(d.message).toMatch(new RegExp(`^the workspace could not be read: cannot read ${ws}/loop/x: ELOOP`));
      }
    }
  });

  it("mkdir alone loses nothing in any state: approved as creation_only without the core, with the evidence and no undo", async () => {
    const { g, ws } = await looped("veto");
    const d = g.check(sh("mkdir loop/x"));
    expect(d).toMatchObject({ approved: true, action: "allow", route: "Approved", reason: "creation_only", tier: "T1", execution: null, core: null, restorePoint: null, inverse: [], readOnly: { command: "mkdir loop/x", cwd: ws, catalogue: DIGEST } });
    expect(d.message).toMatch(/^approved: it only creates directories, and in any state loses nothing \(mkdir fails on an existing path\); the state could not be read \(cannot read .*ELOOP.*\), so which directories it creates is not known and no undo is journaled$/);
    expect(g.observe(sh("mkdir loop/x"))).toEqual({ journaled: null });
  });

  it("one line in two repositories is unknown_state", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    mkdirSync(`${ws}/r1/.git`, { recursive: true });
    mkdirSync(`${ws}/r2/.git`, { recursive: true });
    const d = g.check(sh("git -C r1 branch x && git -C r2 branch y"));
    expect(d).toMatchObject({ approved: false, reason: "unknown_state", message: "the workspace could not be read: one command acts on two repositories" });
  });
});

describe("restore points keep what the call can touch", () => {
  it("reset --hard over uncommitted work keeps the tracked paths with HEAD, index and refs (not the ignored or untracked files)", async () => {
    const { g, store, ws } = await guardOn("rich", "snapshot");
    const d = g.check(sh("git reset --hard"));
    expect(d).toMatchObject({ approved: true, reason: "restore_point", tier: "T1" });
    const point = JSON.parse(readFileSync(`${store}/points/${d.restorePoint!.id}.json`, "utf8")) as { paths: { path: string }[]; repo: { root: string; scope?: string } };
    expect(point.repo.root).toBe(ws);
    expect(point.repo.scope).toBe("tracked");
    const kept = point.paths.map((p) => p.path.slice(ws.length + 1));
    expect(kept).toContain("a.txt");
    expect(kept).toContain("staged.txt");
    expect(kept).not.toContain("untracked.txt");
    expect(kept).not.toContain(".env.local");
  });

  it("clean -fd keeps the untracked paths; -x the ignored ones too", async () => {
    const { g, store, ws } = await guardOn("rich", "snapshot");
    const fd = g.check(sh("git clean -fd"));
    const p1 = JSON.parse(readFileSync(`${store}/points/${fd.restorePoint!.id}.json`, "utf8")) as { paths: { path: string }[]; repo: { scope?: string } };
    expect(p1.repo.scope).toBe("untracked");
    expect(p1.paths.map((p) => p.path.slice(ws.length + 1)).sort()).toEqual(["draft-link", "notes", "untracked.txt"]);
    const fdx = g.check(sh("git clean -fdx"));
    const p2 = JSON.parse(readFileSync(`${store}/points/${fdx.restorePoint!.id}.json`, "utf8")) as { paths: { path: string }[]; repo: { scope?: string } };
    expect(p2.repo.scope).toBe("untracked+ignored");
    expect(p2.paths.map((p) => p.path.slice(ws.length + 1)).sort()).toEqual([".env.local", "app.log", "build", "draft-link", "notes", "untracked.txt"]);
  });

  it("a file command keeps only the paths that exist; a checkout of paths keeps the tracked paths under them", async () => {
    const { g, store, ws } = await guardOn("rich", "snapshot");
    const rm = g.check(sh("rm untracked.txt nothing.txt"));
    expect(rm.reason).toBe("restore_point");
    const p1 = JSON.parse(readFileSync(`${store}/points/${rm.restorePoint!.id}.json`, "utf8")) as { paths: { path: string }[]; repo: unknown };
    expect(p1.paths.map((p) => p.path)).toEqual([`${ws}/untracked.txt`]);
    expect(p1.repo).toBeNull();
    const co = g.check(sh("git checkout -- a.txt"));
    expect(co.reason).toBe("restore_point");
    const p2 = JSON.parse(readFileSync(`${store}/points/${co.restorePoint!.id}.json`, "utf8")) as { paths: { path: string }[]; repo: unknown };
    expect(p2.paths.map((p) => p.path)).toEqual([`${ws}/a.txt`]);
    expect(p2.repo).toBeNull();
  });
});

describe("repoScope: what the line's repository-wide git calls can touch", () => {
  const call = (name: string, args: Record<string, unknown> = {}): TypedCall => ({ name, arguments: { dir: "/r", ...args }, source: name });
  it("only cleans: the untracked paths, the ignored ones when one of them says so", () => {
    expect(repoScope([call("git_clean")])).toEqual({ kind: "untracked", ignored: false });
    expect(repoScope([call("git_clean"), call("git_clean", { ignored: true }), call("fs_remove", { path: "/r/x" })])).toEqual({ kind: "untracked", ignored: true });
  });
  it("only discards and switches with a discard: the tracked paths of their targets", () => {
    expect(repoScope([call("git_discard", { target: "HEAD" }), call("git_switch", { target: "main" })])).toEqual({ kind: "tracked", trees: ["HEAD", "main"] });
    expect(repoScope([call("git_discard", { target: "" })])).toEqual({ kind: "all" });
    expect(repoScope([call("git_discard", { target: "-x" })])).toEqual({ kind: "all" });
    // A discard beside a stash or a move of HEAD (any other repository-wide call): the whole tree.
    expect(repoScope([call("git_discard", { target: "HEAD" }), call("git_stash_push")])).toEqual({ kind: "all" });
    expect(repoScope([call("git_discard", { target: "HEAD" }), call("git_move_head", { target: "HEAD~1" })])).toEqual({ kind: "all" });
    expect(repoScope([call("git_discard")])).toEqual({ kind: "all" });
  });
  it("anything else, or nothing: the whole tree", () => {
    expect(repoScope([])).toEqual({ kind: "all" });
    expect(repoScope([call("git_switch", { target: "main" })])).toEqual({ kind: "all" });
    expect(repoScope([call("git_discard", { target: "HEAD" }), call("git_stash_push")])).toEqual({ kind: "all" });
    expect(repoScope([call("git_clean"), call("git_commit")])).toEqual({ kind: "all" });
  });
});

describe("file edits and patches", () => {
  it("write_file and edit_file are one fs_write of the resolved path", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    expect(g.check({ tool: "write_file", args: { path: "n.txt", content: "x" } }).calls).toEqual([{ name: "fs_write", arguments: { path: `${ws}/n.txt` }, source: `write_file ${ws}/n.txt` }]);
    expect(g.check({ tool: "edit_file", args: { path: `${ws}/sub/../e.txt`, old: "a", new: "b" } }).calls).toEqual([{ name: "fs_write", arguments: { path: `${ws}/e.txt` }, source: `edit_file ${ws}/e.txt` }]);
  });

  it("apply_patch: one call per file header, in order (Add, Update, Move to, Delete; unified --- / +++ with /dev/null)", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const codex = g.check({ tool: "apply_patch", args: { patch: "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: u.txt\n*** Move to: m.txt\n*** Delete File: d.txt\n*** End Patch\n" } });
    expect(codex.calls).toEqual([
      { name: "fs_write", arguments: { path: `${ws}/n.txt` }, source: "apply_patch n.txt" },
      { name: "fs_write", arguments: { path: `${ws}/u.txt` }, source: "apply_patch u.txt" },
      { name: "fs_write", arguments: { path: `${ws}/m.txt` }, source: "apply_patch m.txt" },
      { name: "fs_remove", arguments: { path: `${ws}/d.txt` }, source: "apply_patch d.txt" },
    ]);
    const unified = g.check({ tool: "apply_patch", args: { patch: "--- a/x.txt\t2024-01-01\n+++ b/x.txt\t2024-01-01\n@@ -1 +1 @@\n--- /dev/null\n+++ b/new.txt\n--- a/old.txt\n+++ /dev/null\n--- plain.txt\n+++ plain.txt\n--- /dev/null\n+++ /dev/null\n" } });
    expect(unified.calls.map((c) => [c.name, c.arguments.path])).toEqual([
      ["fs_write", `${ws}/x.txt`],
      ["fs_write", `${ws}/new.txt`],
      ["fs_remove", `${ws}/old.txt`],
      ["fs_write", `${ws}/plain.txt`],
    ]);
    expect(unified.approved).toBe(true);
  });

  it("a patch with no file header is unparsed; a header that is not a path is unresolved", async () => {
    const { g } = await guardOn("empty", "snapshot");
    expect(g.check({ tool: "apply_patch", args: { patch: "hello\n+++ \n" } })).toMatchObject({ approved: false, action: "ask", reason: "unparsed", message: "not judged (unparsed): apply_patch: no file header in the patch" });
    const bad = g.check({ tool: "apply_patch", args: { patch: "*** Add File: a\u0000b\n" } });
    expect(bad).toMatchObject({ approved: false, reason: "unresolved_argument", message: "not judged (unresolved_argument): apply_patch: a\u0000b is not a path" });
    expect(bad.problems).toEqual([{ reason: "unresolved_argument", detail: "apply_patch: a\u0000b is not a path", source: "apply_patch" }]);
    expect(g.check({ tool: "apply_patch", args: { patch: "hello\n" } }).problems).toEqual([{ reason: "unparsed", detail: "apply_patch: no file header in the patch", source: "apply_patch" }]);
  });
});

describe("observe journals an approved execution once", () => {
  it("by its execution, or by the same call; not a refused one, not twice, not an unknown one; the entry keeps π, the kinds before and the restore point", async () => {
    const { g, ws } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const call = sh("rm notes.txt");
    const d = g.check(call);
    expect(g.observe(call, null, { execution: "nope:1" })).toEqual({ journaled: null });
    rmSync(`${ws}/notes.txt`);
    const j = g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    expect(j.journaled).toMatch(/^u-1-[0-9a-f]{6}$/);
    expect(g.observe(call, null, { execution: d.execution! })).toEqual({ journaled: null });
    const list = g.list();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: j.journaled, execution: d.execution, call: { tool: "shell", args: { command: "rm notes.txt" } }, tier: "T1", restorePoint: d.restorePoint, paths: [`${ws}/notes.txt`], kinds: { [`${ws}/notes.txt`]: "file" }, repo: null, cwd: ws, index: 1, undone: false });
    expect(list[0]!.phi).toBe(d.core!.verdict!.phi);
    expect(list[0]!.inverse).toEqual(d.inverse);
    // By the call (no execution given): the latest pending check of the same call.
    const e = g.check(sh("echo x > made.txt"));
    expect(g.observe(sh("echo y > other.txt"))).toEqual({ journaled: null });
    writeFileSync(`${ws}/made.txt`, "x\n");
    expect(g.observe(sh("echo x > made.txt")).journaled).toMatch(new RegExp(`^u-${e.seq}-`));
    expect(g.list().map((x) => [x.index, x.kinds])).toEqual([[2, { [`${ws}/notes.txt`]: "file" }], [1, { [`${ws}/made.txt`]: "absent" }]]);
    expect(g.undo().ok).toBe(true);
    expect(g.undo().ok).toBe(true);
    expect(readFileSync(`${ws}/notes.txt`, "utf8")).toBe("work\n");
    expect(g.undo(undefined, { dryRun: true }).reason).toBe("nothing_to_undo");
  });

  it("an advisory execution is journaled with the tier of its worst step", async () => {
    const { g, ws } = await guardOn("empty", "advisory");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    const d = g.check(sh("rm notes.txt"));
    expect(d.route).toBe("AdvisoryPassthrough");
    g.observe(sh("rm notes.txt"), null, { execution: d.execution! });
    expect(g.list()[0]).toMatchObject({ tier: "T4", restorePoint: null });
  });
});

describe("more of each decision", () => {
  it("refusal messages name the ontology edge that blocked the undo; a reason without its own text is named as it is", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/notes.txt`, "n");
    expect(g.check(sh("rm notes.txt")).message).toBe("not approved: it would destroy data nothing can give back (shell.fs_remove.lost)");
    expect(g.check(sh("curl -X POST https://example.com -d x")).message).toBe("not approved: it acts outside the workspace, which no undo reaches (shell.remote_write)");
    // A git call before the init of its repository: no candidate inverse, no bottleneck annotation.
    expect(g.check(sh("git add . && git init"))).toMatchObject({ reason: "no_candidate", message: "not approved: no_candidate" });
  });

  it("the log receives the core's decision record of each judged check (not of a read-only one)", async () => {
    const records: { reason: string }[] = [];
    const { g, ws } = await guardOn("empty", "veto", { log: { append: (r) => void records.push(r as never) } });
    writeFileSync(`${ws}/notes.txt`, "n");
    g.check(sh("ls"));
    g.check(sh("rm notes.txt"));
    g.check(sh("echo x > new.txt"));
    expect(records.map((r) => r.reason)).toEqual(["irreversibly_consumes", "ok"]);
  });

  it("refs: deleting a branch or tag is undone by creating it again at the commit it named", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    const feature = readFileSync(`${ws}/.git/refs/heads/feature`, "utf8").trim();
    const d = g.check(sh("git branch -D feature"));
    expect(d).toMatchObject({ approved: true, reason: "reversible", tier: "T3" });
    expect(d.inverse.map((s) => [s.tool, s.arguments])).toEqual([["git_ref_create", { ref: "refs/heads/feature", target: feature }]]);
    expect(d.message).toBe(`approved: undo is git update-ref refs/heads/feature ${feature}`);
    // A branch that does not exist yet: its undo deletes it.
    expect(g.check(sh("git branch fresh")).inverse.map((s) => [s.tool, s.arguments])).toEqual([["git_ref_delete", { ref: "refs/heads/fresh" }]]);
  });

  it("a repository with no commit yet: what reset --hard does to the untracked files is not bounded (refused under veto, a restore point under snapshot)", async () => {
    for (const policy of ["veto", "snapshot"] as const) {
      const { g, ws } = await guardOn("empty", policy);
      writeFileSync(`${ws}/a.txt`, "a");
      const { execFileSync } = await import("node:child_process");
      execFileSync("git", ["init", "-q", "-b", "main"], { cwd: ws });
      const d = g.check(sh("git reset --hard"));
      if (policy === "veto") expect(d).toMatchObject({ approved: false, reason: "bound_violated", message: "not approved: bound_violated (shell.git_discard.restore_point)" });
      else expect(d).toMatchObject({ approved: true, reason: "restore_point" });
    }
  });

  it("the decision is frozen all the way down", async () => {
    const { g } = await guardOn("empty", "veto");
    const d = g.check(sh("echo x > new.txt"));
    expect(Object.isFrozen(d.calls[0]!.arguments)).toBe(true);
    expect(Object.isFrozen(d.inverse[0]!.arguments)).toBe(true);
    expect(Object.isFrozen(d.core)).toBe(true);
  });

  it("observe() makes the git facts be read again: a second check of the same line reads none until then", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    const call = sh("rm a.txt");
    const d = g.check(call);
    expect(g.workspace.gitCalls).toBe(2);
    g.check(call);
    expect(g.workspace.gitCalls).toBe(2);
    rmSync(`${ws}/a.txt`);
    expect(g.observe(call, null, { execution: d.execution! }).journaled).not.toBeNull();
    g.check(call);
    expect(g.workspace.gitCalls).toBe(4);
    // Observing an unknown execution still invalidates.
    g.observe(call, null, { execution: "x:1" });
    g.check(call);
    expect(g.workspace.gitCalls).toBe(6);
  });

  it("a journaled call is a copy: changing the object afterwards does not change the journal", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const call = { tool: "shell", args: { command: "echo x > new.txt" } };
    const d = g.check(call);
    writeFileSync(`${ws}/new.txt`, "x\n");
    g.observe(call, null, { execution: d.execution! });
    call.args.command = "changed";
    expect(g.list()[0]!.call).toEqual({ tool: "shell", args: { command: "echo x > new.txt" } });
  });
});

describe("an audit log that cannot be written", () => {
  it("is internal_error: never approved, asked even under advisory and for mkdir alone (denied under veto), with the error", async () => {
    for (const [policy, action] of [["advisory", "ask"], ["veto", "deny"]] as const) {
      const { g, ws } = await guardOn("empty", policy, { log: { append: () => { throw new Error("disk full"); } } });
      writeFileSync(`${ws}/n`, "n");
      for (const line of ["rm n", "echo x > m", "mkdir d"]) {
        expect(g.check(sh(line)), line).toMatchObject({ approved: false, action, route: action === "ask" ? "ConsentEscalated" : "Vetoed", reason: "internal_error", message: "not judged: internal error: disk full", core: null, execution: null });
      }
    }
  });

  it("under snapshot, failing at the second verdict (after the restore point): internal_error, asked (was: restore_failed, 'no restore point', while the point was written)", async () => {
    let records = 0;
    const { g, ws, store } = await guardOn("empty", "snapshot", { log: { append: () => { if (++records === 2) throw new Error("disk full"); } } });
    writeFileSync(`${ws}/n`, "n");
    expect(g.check(sh("rm n"))).toMatchObject({ approved: false, action: "ask", route: "ConsentEscalated", reason: "internal_error", message: "not judged: internal error: disk full", tier: null, core: null, restorePoint: null, execution: null, inverse: [] });
    expect(points(store)).toHaveLength(1);
    // The next check's records are written again: judged as ever.
    expect(g.check(sh("rm n"))).toMatchObject({ approved: true, reason: "restore_point" });
  });
});

describe("restore points only where one lifts the refusal", () => {
  it("under snapshot, an external effect or a call on a state that is not known takes no restore point", async () => {
    const { g, store } = await guardOn("empty", "snapshot");
    expect(g.check(sh("curl -X POST https://example.com -d x")).reason).toBe("external_effect");
    expect(g.check(sh("git reset --hard")).reason).toBe("unknown_state");
    expect(points(store)).toEqual([]);
    const c = await guardOn("clean", "snapshot");
    expect(c.g.check(sh("git push --force origin main")).reason).toBe("external_effect");
    expect(points(c.store)).toEqual([]);
  });
});

describe("git in a repository the same line creates: only that repository", () => {
  it("other calls between the init and its git calls keep the rule; a git call in another folder is judged as it is", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    expect(g.check(sh("git init && mkdir d && git add d"))).toMatchObject({ approved: true, reason: "reversible" });
    mkdirSync(`${ws}/other`);
    const d = g.check(sh("git init sub && git -C other add ."));
    expect(d).toMatchObject({ approved: false, reason: "unknown_state" });
  });
});

describe("more of the restore-point and fresh-repository rules", () => {
  it("a line that loses uncommitted work and acts outside the workspace: refused as an external effect under snapshot, no restore point taken", async () => {
    const { g, ws, store } = await guardOn("empty", "snapshot");
    writeFileSync(`${ws}/notes.txt`, "work\n");
    expect(g.check(sh("rm notes.txt; curl -X POST https://example.com -d x"))).toMatchObject({ approved: false, reason: "external_effect" });
    expect(points(store)).toEqual([]);
  });

  it("a restore point's approval lists every step of its undo", async () => {
    const { g } = await guardOn("empty", "snapshot");
    const d = g.check(sh("echo a > x.txt && rm x.txt"));
    const id = d.restorePoint!.id;
    expect(d.message).toBe(`approved: restore point ${id} keeps what it would change; undo: put back what restore point ${id} holds; put back what restore point ${id} holds`);
  });

  it("git init where a repository exists already: judged on that repository (never undone by removing its .git)", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    const d = g.check(sh("git init && git add a.txt"));
    expect(d.calls.map((c) => c.name)).toContain("git_stage");
    expect(d.inverse.map((s) => [s.tool, s.arguments.path])).not.toContainEqual(["fs_remove", `${ws}/.git`]);
  });

  it("a call the guard cannot read has no typed calls", async () => {
    const { g } = await guardOn("empty");
    const d = g.check({ get tool(): string { throw new Error("boom"); } });
    expect(d.calls).toEqual([]);
    expect(d.inverse).toEqual([]);
  });
});

describe("`unset` reads its names as bash does", () => {
  // `X=keep; unset "X"; rm -rf sub/$X` removes sub (bash expands the unset $X empty); it was approved as
  // removing the absent sub/keep ("nothing to undo"). `unset "PATH"; ls` runs ./ls; it was approved as a read.
  it("a quoted or escaped name is unset, so what uses it after is not judged", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    mkdirSync(`${ws}/sub`);
    for (const command of ['X=keep; unset "X"; rm -rf sub/$X', "X=keep; unset 'X'; rm -rf sub/$X", 'X=keep; builtin unset "X"; rm -rf sub/$X']) {
      const d = await g.check(sh(command));
      expect([command, d.action, d.reason]).toEqual([command, "deny", "unresolved_argument"]);
    }
    for (const command of ['unset "PATH"; ls', "unset P\\ATH; ls"]) {
      const d = await g.check(sh(command));
      expect([command, d.action, d.reason]).toEqual([command, "deny", "unknown_effect"]);
    }
    const kept = await g.check(sh("X=keep; unset -f X; rm -rf sub/$X"));
    expect([kept.action, kept.reason]).toEqual(["allow", "reversible"]);
  });
});
