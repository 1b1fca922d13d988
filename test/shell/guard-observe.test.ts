// What observe() journals for an approved execution: every path the line touches with its kind before
// (both ends of a move), the repository, and the call as given (also none, when the hook names the
// execution only). The undo of the entry (src/shell/undo.ts) compares that state before it runs.
import { existsSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { guardOn, sh } from "./verdict-fixture.js";

describe("observe journals what the undo needs", () => {
  it("a move: both its paths with their kinds before the call", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/a`, "a");
    const d = g.check(sh("mv a b"));
    expect(d).toMatchObject({ approved: true, reason: "reversible" });
    expect(g.observe(sh("mv a b"), null, { execution: d.execution! }).journaled).not.toBeNull();
    const [e] = g.list();
    expect(e!.paths).toEqual([`${ws}/b`, `${ws}/a`]);
    expect(e!.kinds).toEqual({ [`${ws}/b`]: "absent", [`${ws}/a`]: "file" });
    expect(e!.repo).toBeNull();
  });

  it("a git call: the repository it acts in", async () => {
    const { g, ws } = await guardOn("clean", "veto");
    const d = g.check(sh("git branch fresh"));
    expect(d.approved).toBe(true);
    g.observe(sh("git branch fresh"), null, { execution: d.execution! });
    expect(g.list()[0]!.repo).toBe(ws);
  });

  it("named by its execution alone (no call given): journaled, with no call", async () => {
    const { g } = await guardOn("empty", "veto");
    const d = g.check(sh("echo x > n.txt"));
    const j = g.observe(undefined, undefined, { execution: d.execution! });
    expect(j.journaled).toMatch(/^u-1-[0-9a-f]{6}$/);
    expect(g.list()[0]!.call).toBeNull();
  });

  it("by the call alone: the latest pending check of that call", async () => {
    const { g } = await guardOn("empty", "veto");
    g.check(sh("echo x > n.txt"));
    const second = g.check(sh("echo x > n.txt"));
    expect(g.observe(sh("echo x > n.txt")).journaled).toMatch(new RegExp(`^u-${second.seq}-`));
    expect(g.list()[0]!.execution).toBe(second.execution);
  });

  it("undo: a dry run names the entry and changes nothing; the undo itself makes the next check read the workspace again", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    const d = g.check(sh("echo x > n.txt"));
    writeFileSync(`${ws}/n.txt`, "x\n");
    const { journaled } = g.observe(sh("echo x > n.txt"), null, { execution: d.execution! });
    // The file exists now: overwriting it would lose it.
    expect(g.check(sh("echo y > n.txt"))).toMatchObject({ approved: false, reason: "irreversible" });
    expect(g.undo(undefined, { dryRun: true })).toMatchObject({ ok: true, id: journaled, reason: "dry_run" });
    expect(existsSync(`${ws}/n.txt`)).toBe(true);
    expect(g.list()[0]).toMatchObject({ id: journaled, undone: false });
    expect(g.undo()).toMatchObject({ ok: true, id: journaled, reason: "undone" });
    expect(existsSync(`${ws}/n.txt`)).toBe(false);
    expect(g.check(sh("echo y > n.txt"))).toMatchObject({ approved: true, reason: "reversible" });
  });

  it("observe() with neither a call nor an execution journals nothing, after a refused or a read-only check", async () => {
    const { g, ws } = await guardOn("empty", "veto");
    writeFileSync(`${ws}/n.txt`, "n\n");
    expect(g.check(sh("rm n.txt"))).toMatchObject({ approved: false, execution: null });
    expect(g.check(sh("ls"))).toMatchObject({ approved: true, execution: null });
    expect(g.observe(undefined)).toEqual({ journaled: null });
    expect(g.list()).toEqual([]);
  });
});
