// The state machine of src/guard/lifecycle.ts on its own (no search, no Layer B): check → pending →
// observed | released → committed, execution ids, barriers, checkpoints and the bounds. The guard-level
// behaviour (what a check then decides) is in lifecycle.test.ts and session.test.ts.
import { describe, expect, it } from "vitest";
import type { ExecutedCall, ToolCall } from "../../src/core/types.js";
import { MAX_CALLS } from "../../src/abi.js";
import { boundedSuffix, Lifecycle } from "../../src/guard/lifecycle.js";

const keyOf = (c: ToolCall): string => JSON.stringify([c.name, c.arguments]);
const call = (name: string, id = "R1"): ToolCall => ({ name, arguments: { reservation_id: id } });
const entry = (c: ToolCall, before?: Record<string, unknown>): ExecutedCall => (before === undefined ? { ...c, result: "ok" } : { ...c, result: "ok", before });
const names = (list: readonly unknown[]): string[] => list.map((e) => (e as { name: string }).name + ((e as { pending?: boolean }).pending === true ? "?" : ""));

function lc(scope: "turn" | "session" = "session", maxDepth = 8) {
  return new Lifecycle(scope, maxDepth, keyOf);
}

/** Checks then observes `c` (admitted, mutating) under seq `seq`. */
function run(l: Lifecycle, seq: number, c: ToolCall, admitted = true): void {
  const x = l.approve(seq, c, undefined, admitted);
  l.observe(x, x.key, entry(c), true);
}

describe("executions", () => {
  it("approve makes a pending execution named x<seq>, found by id and by call text", () => {
    const l = lc();
    const a = l.approve(3, call("edit"), { status: "confirmed" }, true);
    expect(a).toMatchObject({ id: "x3", seq: 3, state: "pending", committed: false, admitted: true });
    expect(l.get("x3")).toBe(a);
    expect(l.get("x4")).toBeUndefined();
    expect(l.pending()).toEqual([a]);
    expect(l.match(keyOf(call("edit")))).toBe(a);
    expect(l.match(keyOf(call("edit", "R2")))).toBeUndefined();
  });

  it("match gives the oldest pending execution of a call text, and never an observed or released one", () => {
    const l = lc();
    const a = l.approve(1, call("edit"), undefined, true);
    const b = l.approve(2, call("edit"), undefined, true);
    expect(l.match(a.key)).toBe(a);
    l.release(a);
    expect(l.match(a.key)).toBe(b);
    l.observe(b, b.key, entry(b.call), true);
    expect(l.match(a.key)).toBeUndefined();
  });

  it("match still finds a pending execution a checkpoint committed (it may still be observed)", () => {
    const l = lc();
    const a = l.approve(1, call("edit"), undefined, true);
    l.checkpoint();
    expect(l.pending()).toEqual([]);
    expect(a.committed).toBe(true);
    expect(l.match(a.key)).toBe(a);
    expect(l.get("x1")).toBe(a);
    // Observed once: gone from every lookup.
    l.observe(a, a.key, entry(a.call), true);
    expect(l.match(a.key)).toBeUndefined();
    expect(l.get("x1")).toBeUndefined();
  });

  it("an observe without an id prefers a pending execution still in the forward sequence over one a checkpoint committed (the stricter of the two)", () => {
    const l = lc();
    const a = l.approve(1, call("edit"), undefined, true);
    l.checkpoint();
    const b = l.approve(2, call("edit"), undefined, true);
    expect(l.match(a.key)).toBe(b);
    l.observe(b, b.key, entry(b.call), true);
    expect(l.sequence()).toHaveLength(1);
    expect(l.match(a.key)).toBe(a);
  });

  it("release: pending → released, out of the pending list and of every lookup; twice or after observe does nothing", () => {
    const l = lc();
    const a = l.approve(1, call("edit"), undefined, true);
    const b = l.approve(2, call("cancel"), undefined, true);
    l.release(a);
    expect(a.state).toBe("released");
    expect(l.pending()).toEqual([b]);
    expect(l.get("x1")).toBeUndefined();
    expect(l.match(a.key)).toBeUndefined();
    l.release(a);
    expect(a.state).toBe("released");
    l.observe(b, b.key, entry(b.call), true);
    l.release(b);
    expect(b.state).toBe("observed");
    expect(l.sequence()).toHaveLength(1);
  });

  it("undo: a check whose record was not written leaves no trace", () => {
    const l = lc();
    const a = l.approve(1, call("edit"), undefined, true);
    const b = l.approve(2, call("cancel"), undefined, true);
    l.undo(a);
    expect(l.pending()).toEqual([b]);
    expect(l.get("x1")).toBeUndefined();
    expect(l.match(a.key)).toBeUndefined();
  });

  it("an execution's key is its call's, computed once; its entry is frozen, holds `before` frozen, and is the same object each time", () => {
    let computed = 0;
    const l = new Lifecycle("session", 8, (c) => (computed++, keyOf(c)));
    const before = { status: "confirmed", flights: [{ flight_number: "HAT001" }] };
    const a = l.approve(1, call("edit"), before, true);
    expect(computed).toBe(0); // made lazily: most executions are found by id
    expect(a.key).toBe(keyOf(call("edit")));
    expect(a.key).toBe(keyOf(call("edit")));
    expect(computed).toBe(1);
    const e = a.entry;
    expect(e).toEqual({ ...call("edit"), before });
    expect(a.entry).toBe(e);
    expect(Object.isFrozen(e)).toBe(true);
    expect(Object.isFrozen(e.before)).toBe(true);
    expect(Object.isFrozen(before.flights[0])).toBe(true);
    // No `before` (a call that acts on no entity): the entry has no such field.
    const b = l.approve(2, call("send"), undefined, true);
    expect(Object.keys(b.entry)).toEqual(["name", "arguments"]);
  });
});

describe("the session's forward sequence", () => {
  it("observed mutating calls, then pending ones in check order, marked pending", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    const b = l.approve(2, call("b"), undefined, true);
    l.approve(3, call("c"), undefined, true);
    const fwd = l.sessionForward();
    expect(names(fwd)).toEqual(["a", "b?", "c?"]);
    expect(fwd[1]).toEqual({ ...call("b"), pending: true });
    expect(Object.isFrozen(fwd[1])).toBe(true);
    // The pending entry is made once per execution.
    expect(l.sessionForward()[1]).toBe(fwd[1]);
    l.release(b);
    expect(names(l.sessionForward())).toEqual(["a", "c?"]);
  });

  it("without pending calls it is a copy of the observed list (a caller's change does not reach it)", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    const fwd = l.sessionForward();
    fwd.push("x");
    expect(names(l.sessionForward())).toEqual(["a"]);
    expect(l.sequence()).toHaveLength(1);
  });

  it("a read-only observe and a turn-scope observe do not join the sequence", () => {
    const s = lc("session");
    const r = s.approve(1, call("read"), undefined, true);
    s.observe(r, r.key, entry(r.call), false);
    expect(s.sequence()).toEqual([]);
    const t = lc("turn");
    run(t, 1, call("a"));
    expect(t.sequence()).toEqual([]);
  });

  it("an observe without a check joins the sequence (seq 0: before every check)", () => {
    const l = lc("session");
    const c = call("a");
    l.observe(undefined, keyOf(c), entry(c), true);
    expect(names(l.sequence())).toEqual(["a"]);
    // A barrier checked later commits it.
    const bar = l.approve(5, call("email"), undefined, false);
    l.observe(bar, bar.key, entry(bar.call), true);
    expect(l.sequence()).toEqual([]);
  });

  it("keeps only the last maxDepth observed calls, and the last maxDepth of observed + pending", () => {
    const l = lc("session", 3);
    for (let i = 1; i <= 5; i++) run(l, i, call(`c${i}`));
    expect(names(l.sequence())).toEqual(["c3", "c4", "c5"]);
    l.approve(6, call("p6"), undefined, true);
    expect(names(l.sessionForward())).toEqual(["c4", "c5", "p6?"]);
    l.approve(7, call("p7"), undefined, true);
    l.approve(8, call("p8"), undefined, true);
    l.approve(9, call("p9"), undefined, true);
    expect(names(l.sessionForward())).toEqual(["p7?", "p8?", "p9?"]);
    // Exactly maxDepth: nothing cut.
    const m = lc("session", 3);
    run(m, 1, call("a"));
    m.approve(2, call("b"), undefined, true);
    expect(names(m.sessionForward())).toEqual(["a", "b?"]);
    m.approve(3, call("c"), undefined, true);
    expect(names(m.sessionForward())).toEqual(["a", "b?", "c?"]);
  });

  it("maxDepth 0 keeps no observed call (the sequence stays empty over a long session)", () => {
    const l = lc("session", 0);
    for (let i = 1; i <= 50; i++) run(l, i, call(`c${i}`));
    expect(l.sequence()).toEqual([]);
    expect(l.exportState().sequence).toEqual([]);
  });

  it("the trimmed sequence keeps each call's seq: a barrier still commits exactly the older ones", () => {
    const l = lc("session", 2);
    run(l, 1, call("a"));
    const bar = l.approve(2, call("email"), undefined, false);
    run(l, 3, call("b"));
    run(l, 4, call("c"));
    run(l, 5, call("d"));
    expect(names(l.sequence())).toEqual(["c", "d"]);
    // The barrier was checked at 2, before c (4) and d (5): they stay.
    l.observe(bar, bar.key, entry(bar.call), true);
    expect(names(l.sequence())).toEqual(["c", "d"]);
  });
});

describe("barriers and checkpoints", () => {
  it("an observed unadmitted execution commits what was checked before it, pending or observed, and nothing checked after it", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    const p2 = l.approve(2, call("b"), undefined, true);
    const bar = l.approve(3, call("email"), undefined, false);
    run(l, 4, call("c")); // checked after the barrier, finished first
    const p5 = l.approve(5, call("d"), undefined, true);
    l.observe(bar, bar.key, entry(bar.call), true);
    expect(bar.state).toBe("observed");
    expect(names(l.sequence())).toEqual(["c"]);
    expect(l.pending()).toEqual([p5]);
    expect(p2.committed).toBe(true);
    expect(p5.committed).toBe(false);
    expect(names(l.sessionForward())).toEqual(["c", "d?"]);
    // The committed execution is still observable (Layer B), but does not rejoin the sequence.
    expect(l.get("x2")).toBe(p2);
    l.observe(p2, p2.key, entry(p2.call), true);
    expect(names(l.sequence())).toEqual(["c"]);
  });

  it("after a checkpoint, a barrier checked before it commits nothing observed since", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    const bar = l.approve(2, call("email"), undefined, false);
    l.checkpoint();
    run(l, 3, call("b"));
    l.observe(bar, bar.key, entry(bar.call), true);
    expect(names(l.sequence())).toEqual(["b"]);
  });

  it("two barriers in a row: each commits only what was checked before it", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    const bar1 = l.approve(2, call("email"), undefined, false);
    const bar2 = l.approve(3, call("sms"), undefined, false);
    run(l, 4, call("b"));
    l.observe(bar1, bar1.key, entry(bar1.call), true);
    expect(names(l.sequence())).toEqual(["b"]);
    l.observe(bar2, bar2.key, entry(bar2.call), true);
    expect(names(l.sequence())).toEqual(["b"]);
    const bar3 = l.approve(5, call("fax"), undefined, false);
    l.observe(bar3, bar3.key, entry(bar3.call), true);
    expect(l.sequence()).toEqual([]);
  });

  it("a barrier is the execution, not its call text: an admitted run of the same call commits nothing", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    run(l, 2, call("email"), true);
    expect(names(l.sequence())).toEqual(["a", "email"]);
    const bar = l.approve(3, call("email"), undefined, false);
    l.observe(bar, bar.key, entry(bar.call), true);
    expect(l.sequence()).toEqual([]);
  });

  it("a read-only unadmitted execution is a barrier too (it was let through without the search)", () => {
    const l = lc("session");
    run(l, 1, call("a"));
    const bar = l.approve(2, call("lookup"), undefined, false);
    l.observe(bar, bar.key, entry(bar.call), false);
    expect(l.sequence()).toEqual([]);
  });

  it("checkpoint commits everything: no sequence, no history, pending executions committed", () => {
    const l = lc("session");
    const c = call("a");
    l.observe(undefined, keyOf(c), entry(c, { status: "confirmed" }), true);
    const p = l.approve(2, call("b"), undefined, true);
    l.checkpoint();
    expect(l.sequence()).toEqual([]);
    expect(l.sessionForward()).toEqual([]);
    expect(l.pending()).toEqual([]);
    expect(p.committed).toBe(true);
    expect(l.observedBefore(keyOf(c))).toBeUndefined();
    l.observe(p, p.key, entry(p.call), true);
    expect(l.sequence()).toEqual([]);
  });
});

describe("observedBefore (turn scope's snapshot of an earlier call)", () => {
  it("is the `before` of the most recent observed execution of that call text", () => {
    const l = lc("turn");
    const c = call("edit");
    l.observe(undefined, keyOf(c), entry(c, { v: 1 }), true);
    l.observe(undefined, keyOf(c), entry(c, { v: 2 }), true);
    l.observe(undefined, keyOf(call("other")), entry(call("other"), { v: 3 }), true);
    expect(l.observedBefore(keyOf(c))).toEqual({ v: 2 });
    expect(l.observedBefore(keyOf(call("none")))).toBeUndefined();
  });

  it("remembers the last MAX_CALLS observed executions", () => {
    const l = lc("turn");
    const at = (i: number) => call(`c${i}`);
    for (let i = 0; i < MAX_CALLS; i++) l.observe(undefined, keyOf(at(i)), entry(at(i), { v: i }), true);
    expect(l.observedBefore(keyOf(at(0)))).toEqual({ v: 0 });
    l.observe(undefined, keyOf(at(MAX_CALLS)), entry(at(MAX_CALLS), { v: MAX_CALLS }), true);
    // The oldest one leaves; the rest of the window stays.
    expect(l.observedBefore(keyOf(at(0)))).toBeUndefined();
    expect(l.observedBefore(keyOf(at(1)))).toEqual({ v: 1 });
    expect(l.observedBefore(keyOf(at(MAX_CALLS)))).toEqual({ v: MAX_CALLS });
  });
});

describe("turn scope's forward sequence", () => {
  const isMutating = (e: unknown): boolean => typeof e !== "object" || !(e as { name: string }).name.startsWith("get");
  const given = (...cs: ToolCall[]) => cs.map((c) => ({ copy: entry(c), key: keyOf(c) }));

  it("the caller's calls, then the pending executions; a caller's entry that is a pending execution is taken once, from the pending list", () => {
    const l = lc("turn");
    const b = l.approve(1, call("b"), { s: 1 }, true);
    l.approve(2, call("c"), undefined, true);
    const fwd = l.turnForward(given(call("a"), call("b"), call("b")), isMutating);
    // The first `b` is the pending execution (with its `before`), the second is another run.
    expect(names(fwd)).toEqual(["a", "b", "b?", "c?"]);
    expect(fwd[2]).toEqual({ ...call("b"), before: { s: 1 }, pending: true });
    expect(b.state).toBe("pending");
  });

  it("an entry without a key (a malformed call) is kept as it was given", () => {
    const l = lc("turn");
    l.approve(1, call("b"), undefined, true);
    const fwd = l.turnForward([{ copy: "junk", key: null }], isMutating);
    expect(fwd[0]).toBe("junk");
    expect(names(fwd.slice(1))).toEqual(["b?"]);
  });

  it("drops the caller's calls up to and including the last one that ran unadmitted", () => {
    const l = lc("turn");
    run(l, 1, call("a"));
    run(l, 2, call("email"), false);
    run(l, 3, call("b"));
    expect(names(l.turnForward(given(call("a"), call("email"), call("b")), isMutating))).toEqual(["b"]);
    // Without the barrier's run in the history (a message the guard never saw run): kept.
    const m = lc("turn");
    expect(names(m.turnForward(given(call("a"), call("email"), call("b")), isMutating))).toEqual(["a", "email", "b"]);
  });

  it("matches the caller's calls against the most recent observed executions only while they agree", () => {
    const l = lc("turn");
    run(l, 1, call("email"), false);
    run(l, 2, call("x"));
    // The caller's last call is not the last one observed: the history says nothing about this message.
    expect(names(l.turnForward(given(call("email"), call("b")), isMutating))).toEqual(["email", "b"]);
  });

  it("a later admitted re-run of a call that once ran unadmitted is that re-run (no barrier)", () => {
    const l = lc("turn");
    run(l, 1, call("email"), false);
    run(l, 2, call("email"), true);
    expect(names(l.turnForward(given(call("email")), isMutating))).toEqual(["email"]);
  });

  it("a barrier older than the caller's calls cuts at its own position", () => {
    const l = lc("turn");
    run(l, 1, call("email"), false);
    run(l, 2, call("a"));
    run(l, 3, call("b"));
    expect(names(l.turnForward(given(call("email"), call("a"), call("b")), isMutating))).toEqual(["a", "b"]);
    expect(names(l.turnForward(given(call("a"), call("b")), isMutating))).toEqual(["a", "b"]);
  });

  it("keeps only the suffix with maxDepth mutating calls (reads inside it stay)", () => {
    const l = lc("turn", 2);
    const fwd = l.turnForward(given(call("a"), call("b"), call("get1"), call("c"), call("get2")), isMutating);
    expect(names(fwd)).toEqual(["b", "get1", "c", "get2"]);
  });
});

describe("boundedSuffix", () => {
  const m = (e: unknown): boolean => e !== "r";
  it("is the shortest suffix holding maxDepth mutating calls, or everything when there are fewer", () => {
    expect(boundedSuffix(["a", "r", "b", "r", "c"], 2, m)).toEqual(["b", "r", "c"]);
    expect(boundedSuffix(["a", "r", "b", "r", "c"], 3, m)).toEqual(["a", "r", "b", "r", "c"]);
    expect(boundedSuffix(["r", "a", "b"], 2, m)).toEqual(["a", "b"]);
    expect(boundedSuffix(["a", "b"], 5, m)).toEqual(["a", "b"]);
    expect(boundedSuffix([], 1, m)).toEqual([]);
  });
  it("returns the list itself when nothing is cut", () => {
    const list = ["a", "b"];
    expect(boundedSuffix(list, 2, m)).toBe(list);
    expect(boundedSuffix(list, 3, m)).toBe(list);
  });
});

describe("bounds on tracked executions", () => {
  it("past 512 tracked executions the oldest committed one is forgotten first, else the oldest pending one", () => {
    const l = lc("session", 64);
    l.approve(1, call("old"), undefined, true);
    l.checkpoint(); // x1 committed
    for (let s = 2; s <= 513; s++) l.approve(s, call(`c${s}`), undefined, true);
    expect(l.get("x1")).toBeUndefined();
    expect(l.get("x2")).toBeDefined();
    expect(l.pending()).toHaveLength(512);
    l.approve(514, call("c514"), undefined, true);
    // No committed one left: the oldest pending one goes, from the pending list too.
    expect(l.get("x2")).toBeUndefined();
    expect(l.get("x3")).toBeDefined();
    expect(l.pending()).toHaveLength(512);
    expect(l.pending()[0].id).toBe("x3");
    expect(l.match(keyOf(call("c2")))).toBeUndefined();
  });

  it("exactly 512 tracked executions are all kept", () => {
    const l = lc("session", 64);
    for (let s = 1; s <= 512; s++) l.approve(s, call(`c${s}`), undefined, true);
    expect(l.get("x1")).toBeDefined();
    expect(l.pending()).toHaveLength(512);
  });
});
