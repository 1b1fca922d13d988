// The core's verdicts on hand-built ontologies: every reason, bounds, overlap, the work bounds, the
// ablation switches and the selection tie-breaks. Each verdict also runs on the debug core and the
// reference, which must produce the same bytes (harness.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Identity, Lifecycle, MAX_CANDIDATES, Op, Reason, Status, Tier } from "../../src/abi.js";
import { tierFlags } from "../../src/core/record.js";
import { ONE, TablesBuilder, missing, num } from "./fixtures.js";
import { denseArb } from "./dense.js";
import { backends, verdict } from "./harness.js";

const ORDER = 0;
const RESERVATION = 1;

/** One ontology with a tool per situation. */
function domain() {
  const b = new TablesBuilder();
  const read = b.tool("get_order", { readOnly: true });
  const t1 = b.tool("set_address", { actsOn: ORDER });
  b.edge(t1, { tier: Tier.T1, weight: 950000 });
  const t3 = b.tool("refund", { actsOn: ORDER });
  b.edge(t3, { tier: Tier.T3, weight: 900000, lossWeight: 200000 });
  const t4 = b.tool("burn_points", { actsOn: ORDER });
  b.edge(t4, { tier: Tier.T4, lossWeight: 500000 });
  const t5 = b.tool("send_email", {});
  b.edge(t5, { tier: Tier.T5 });
  const none = b.tool("no_edges", { actsOn: ORDER });
  // T2: undoable while operand 0 < 100 (e.g. hours since booking).
  const lt100 = b.program([[Op.Operand, 0], [Op.Const, b.constant(num(100))], [Op.Lt]]);
  const t2 = b.tool("change_flight", { actsOn: RESERVATION, operands: 1 });
  b.edge(t2, { tier: Tier.T2, weight: 900000, lossWeight: 100000, program: lt100 });
  // Positive and fail-closed edges on one tool (for the fail-closed switch).
  const mixed = b.tool("upgrade", { actsOn: ORDER });
  b.edge(mixed, { tier: Tier.T1, weight: 900000 });
  b.edge(mixed, { tier: Tier.T4, lossWeight: 300000 });
  // Overlap: cancelling re-books under a new id; editing restores the same id.
  const cancel = b.tool("cancel_reservation", { actsOn: RESERVATION });
  b.edge(cancel, { tier: Tier.T1, weight: 900000, identity: Identity.New });
  const cancelEither = b.tool("cancel_or_void", { actsOn: RESERVATION });
  b.edge(cancelEither, { tier: Tier.T1, weight: 900000, identity: Identity.New });
  b.edge(cancelEither, { tier: Tier.T3, weight: 900000, lossWeight: 100000 });
  const edit = b.tool("edit_reservation", { actsOn: RESERVATION });
  b.edge(edit, { tier: Tier.T1, weight: 950000 });
  const provisional = b.tool("draft_only", { actsOn: ORDER });
  b.edge(provisional, { tier: Tier.T1, lifecycle: Lifecycle.Provisional });
  // A fail-closed step on the reservation a later cancellation re-creates under a new id.
  const burnOnReservation = b.tool("burn_reservation_points", { actsOn: RESERVATION });
  b.edge(burnOnReservation, { tier: Tier.T4, lossWeight: 500000 });
  const tables = b.build();
  const edgeOf = (tool: number, k = 0) => tables.edgeOffsets[tool] + k;
  return { tables, edgeOf, read, t1, t2, t3, t4, t5, none, mixed, cancel, cancelEither, edit, provisional, burnOnReservation };
}

const d = domain();
const be = backends(d.tables);

describe("single call reasons", () => {
  it("T1: ok with the edge's weight as phi", () => {
    const out = verdict(be, [{ tool: d.t1 }]);
    expect(out).toMatchObject({ status: Status.Ok, reason: Reason.Ok, complete: 1, phi: 950000, loss: 0, nodes: 1 });
    expect(out.steps).toEqual([{ call: 0, edge: d.edgeOf(d.t1), phi: 950000, loss: 0 }]);
    expect(out).toMatchObject({ bottleneckCall: 0, bottleneckEdge: d.edgeOf(d.t1), bottleneckTool: d.t1 });
  });

  it("T3: phi = floor(w (1 - w_loss)) is below 0.8, ok at 0.7", () => {
    const below = verdict(be, [{ tool: d.t3 }]);
    expect(below).toMatchObject({ reason: Reason.BelowThreshold, complete: 1, phi: 720000, loss: 200000 });
    expect(below.bottleneckEdge).toBe(d.edgeOf(d.t3));
    expect(verdict(be, [{ tool: d.t3 }], { tau: 720000 }).reason).toBe(Reason.Ok);
  });

  it("T4 and T5 fail closed with phi 0", () => {
    expect(verdict(be, [{ tool: d.t4 }])).toMatchObject({ reason: Reason.IrreversiblyConsumes, complete: 1, phi: 0, loss: 500000 });
    expect(verdict(be, [{ tool: d.t5 }])).toMatchObject({ reason: Reason.ExternalSideEffect, complete: 1, phi: 0, loss: 0 });
  });

  it("fail-closed off: T4/T5 steps score ONE", () => {
    const flags = tierFlags(["T1", "T2", "T3"], false);
    expect(verdict(be, [{ tool: d.t4 }], { flags })).toMatchObject({ reason: Reason.Ok, phi: ONE, loss: 500000 });
    expect(verdict(be, [{ tool: d.t5 }], { flags })).toMatchObject({ reason: Reason.Ok, phi: ONE, loss: 0 });
  });

  it("a T4 edge shadows a positive edge unless fail-closed is off", () => {
    const on = verdict(be, [{ tool: d.mixed }]);
    expect(on).toMatchObject({ reason: Reason.IrreversiblyConsumes, phi: 0, nodes: 1 });
    expect(on.steps[0].edge).toBe(d.edgeOf(d.mixed, 1));
    // Off: candidates T1 (phi 0.9, loss 0) then T4 (phi 1, loss 0.3); both qualify, least loss wins.
    const off = verdict(be, [{ tool: d.mixed }], { flags: tierFlags(["T1", "T2", "T3"], false) });
    expect(off).toMatchObject({ reason: Reason.Ok, phi: 900000, loss: 0, nodes: 2 });
    expect(off.steps[0].edge).toBe(d.edgeOf(d.mixed, 0));
  });

  it("unknown tool", () => {
    expect(verdict(be, [{ tool: -1 }])).toMatchObject({
      reason: Reason.UnknownTool, complete: 0, phi: 0, bottleneckCall: 0, bottleneckEdge: -1, bottleneckTool: -1, steps: [],
    });
  });

  it("no candidate: no edges, ungrounded, provisional, tier disabled", () => {
    expect(verdict(be, [{ tool: d.none }])).toMatchObject({ reason: Reason.NoCandidate, bottleneckCall: 0, bottleneckEdge: -1, bottleneckTool: d.none });
    expect(verdict(be, [{ tool: d.t1, grounded: false }]).reason).toBe(Reason.NoCandidate);
    expect(verdict(be, [{ tool: d.t2, grounded: false, operands: [num(5)] }]).reason).toBe(Reason.NoCandidate);
    expect(verdict(be, [{ tool: d.provisional }]).reason).toBe(Reason.NoCandidate);
    expect(verdict(be, [{ tool: d.t1 }], { flags: tierFlags(["T2", "T3"], true) }).reason).toBe(Reason.NoCandidate);
    expect(verdict(be, [{ tool: d.t2, operands: [num(5)] }], { flags: tierFlags(["T1", "T3"], true) }).reason).toBe(Reason.NoCandidate);
  });

  it("T4/T5 ignore their tier mask bits", () => {
    expect(verdict(be, [{ tool: d.t4 }], { flags: 0 }).reason).toBe(Reason.IrreversiblyConsumes);
  });
});

describe("T2 bounds (Kleene, unknown fails closed)", () => {
  it("true: the edge is a candidate", () => {
    expect(verdict(be, [{ tool: d.t2, operands: [num(99)] }])).toMatchObject({ reason: Reason.Ok, phi: 900000, loss: 100000 });
  });
  it("false: bound_violated, naming the edge", () => {
    expect(verdict(be, [{ tool: d.t2, operands: [num(100)] }])).toMatchObject({
      reason: Reason.BoundViolated, complete: 0, bottleneckCall: 0, bottleneckEdge: d.edgeOf(d.t2), bottleneckTool: d.t2,
    });
  });
  it("unknown (missing operand): bound_violated", () => {
    expect(verdict(be, [{ tool: d.t2, operands: [missing] }]).reason).toBe(Reason.BoundViolated);
  });
});

describe("sequences", () => {
  it("read-only calls are skipped; all read-only is the empty sequence", () => {
    const out = verdict(be, [{ tool: d.read }, { tool: d.t1 }, { tool: d.read }]);
    expect(out).toMatchObject({ reason: Reason.Ok, nodes: 1 });
    expect(out.steps.map((s) => s.call)).toEqual([1]);
    expect(verdict(be, [{ tool: d.read }, { tool: d.read }])).toMatchObject({
      reason: Reason.Ok, complete: 1, phi: ONE, loss: 0, nodes: 0, steps: [], bottleneckCall: -1, bottleneckEdge: -1, bottleneckTool: -1,
    });
    expect(verdict(be, [])).toMatchObject({ reason: Reason.Ok, complete: 1, phi: ONE });
  });

  it("phi is the weakest step, loss the sum; steps most recent first", () => {
    const out = verdict(be, [{ tool: d.t3 }, { tool: d.t1 }, { tool: d.t2, operands: [num(1)] }], { tau: 700000 });
    expect(out).toMatchObject({ reason: Reason.Ok, phi: 720000, loss: 300000, bottleneckCall: 0, nodes: 3 });
    expect(out.steps.map((s) => s.call)).toEqual([2, 1, 0]);
  });

  it("bottleneck: the first step (inverse order) at the sequence phi", () => {
    const out = verdict(be, [{ tool: d.t1, key: 1 }, { tool: d.t1, key: 2 }]);
    expect(out.bottleneckCall).toBe(1);
  });

  it("a fail-closed call anywhere names its reason", () => {
    const out = verdict(be, [{ tool: d.t5 }, { tool: d.t1 }]);
    expect(out).toMatchObject({ reason: Reason.ExternalSideEffect, complete: 1, phi: 0, bottleneckCall: 0, bottleneckTool: d.t5 });
  });

  it("the walk stops at the most recent failing call", () => {
    expect(verdict(be, [{ tool: -1 }, { tool: d.none }])).toMatchObject({ reason: Reason.NoCandidate, bottleneckCall: 1 });
    expect(verdict(be, [{ tool: d.none }, { tool: -1 }])).toMatchObject({ reason: Reason.UnknownTool, bottleneckCall: 1 });
    expect(verdict(be, [{ tool: d.t2, operands: [num(500)] }, { tool: d.t4 }])).toMatchObject({ reason: Reason.BoundViolated, bottleneckCall: 0 });
  });
});

describe("overlap", () => {
  it("a later re-book under a new id leaves the earlier edit without its entity", () => {
    const out = verdict(be, [{ tool: d.edit, key: 7 }, { tool: d.cancel, key: 7 }]);
    expect(out).toMatchObject({
      reason: Reason.OverlapConflict, complete: 0, bottleneckCall: 0, bottleneckEdge: d.edgeOf(d.edit), bottleneckTool: d.edit, nodes: 2,
    });
  });
  it("different entities do not conflict", () => {
    expect(verdict(be, [{ tool: d.edit, key: 7 }, { tool: d.cancel, key: 8 }]).reason).toBe(Reason.Ok);
  });
  it("the earlier call (forward order) losing nothing does not conflict", () => {
    expect(verdict(be, [{ tool: d.cancel, key: 7 }, { tool: d.edit, key: 7 }]).reason).toBe(Reason.Ok);
  });
  it("another candidate that keeps the id avoids the conflict", () => {
    const out = verdict(be, [{ tool: d.edit, key: 7 }, { tool: d.cancelEither, key: 7 }], { tau: 0 });
    // DFS: cancel/T1(new) -> edit conflicts; cancel/T3(same) -> edit ok. 4 nodes.
    expect(out).toMatchObject({ reason: Reason.Ok, complete: 1, phi: 810000, loss: 100000, nodes: 4 });
    expect(out.steps.map((s) => s.edge)).toEqual([d.edgeOf(d.cancelEither, 1), d.edgeOf(d.edit)]);
  });
  it("fail-closed steps never conflict", () => {
    // Same entity and key as the cancellation that re-creates it under a new id: had the T4 step been
    // checked for a stale id like a restoring step (edit, above), this would be overlap_conflict.
    expect(verdict(be, [{ tool: d.burnOnReservation, key: 7 }, { tool: d.cancel, key: 7 }])).toMatchObject({
      reason: Reason.IrreversiblyConsumes, bottleneckCall: 0, bottleneckTool: d.burnOnReservation,
    });
  });
});

describe("work bounds", () => {
  it("more mutating calls than max_depth: depth_exceeded before any search", () => {
    const calls = [{ tool: d.t1 }, { tool: d.read }, { tool: d.t1 }, { tool: d.t1 }];
    expect(verdict(be, calls, { maxDepth: 2 })).toMatchObject({
      reason: Reason.DepthExceeded, complete: 0, bottleneckCall: -1, bottleneckEdge: -1, bottleneckTool: -1, nodes: 0,
    });
    expect(verdict(be, calls, { maxDepth: 3 }).reason).toBe(Reason.Ok);
    // Checked before the walk: an unknown tool beyond the bound is not reached.
    expect(verdict(be, [{ tool: -1 }, { tool: d.t1 }], { maxDepth: 1 }).reason).toBe(Reason.DepthExceeded);
  });

  it("the node budget: exactly enough passes, one less stops at the call being visited", () => {
    const flags = tierFlags(["T1", "T2", "T3"], false);
    const calls = [{ tool: d.mixed, key: 1 }, { tool: d.mixed, key: 2 }];
    // Two levels of T1 (0.9, loss 0) then T4 (1, loss 0.3): the first path is the best leaf, then the
    // T4 visit at each level is pruned (its loss cannot be made up): 2 + 2 = 4 visits, not 6.
    expect(verdict(be, calls, { flags, maxNodes: 4 })).toMatchObject({ reason: Reason.Ok, nodes: 4 });
    expect(verdict(be, calls, { flags, maxNodes: 3 })).toMatchObject({
      reason: Reason.DepthExceeded, complete: 0, bottleneckCall: 1, bottleneckEdge: -1, bottleneckTool: d.mixed, nodes: 3,
    });
    // The second visit is at the deeper level (call 0).
    expect(verdict(be, calls, { flags, maxNodes: 1 })).toMatchObject({ reason: Reason.DepthExceeded, bottleneckCall: 0, nodes: 1 });
    expect(verdict(be, calls, { flags, maxNodes: 0 })).toMatchObject({ reason: Reason.DepthExceeded, bottleneckCall: 1, nodes: 0 });
    expect(verdict(be, [{ tool: d.read }], { maxNodes: 0 }).reason).toBe(Reason.Ok);
  });

  it("more than MAX_CANDIDATES candidates: depth_exceeded (and the blob outgrows initial memory)", () => {
    const b = new TablesBuilder();
    const wide = b.tool("wide", { actsOn: ORDER });
    for (let k = 0; k < 1100; k++) b.edge(wide, { tier: Tier.T1, weight: 500000 + k });
    const big = backends(b.build());
    const four = [0, 1, 2, 3].map((k) => ({ tool: wide, key: k }));
    expect(4 * 1100).toBeGreaterThan(MAX_CANDIDATES);
    expect(verdict(big, four)).toMatchObject({ reason: Reason.DepthExceeded, bottleneckCall: -1, nodes: 0 });
    // Within the cap the search runs: 3 levels of 1100 is far past the node budget.
    expect(verdict(big, four.slice(1), { maxNodes: 5000 })).toMatchObject({ reason: Reason.DepthExceeded, nodes: 5000 });
    expect(verdict(big, four.slice(3))).toMatchObject({ reason: Reason.BelowThreshold, phi: 500000 + 1099, nodes: 1100 });
  });
});

describe("selection", () => {
  function choices(specs: { phi: number; loss: number }[]) {
    const b = new TablesBuilder();
    const t = b.tool("choose", { actsOn: ORDER });
    for (const s of specs) b.edge(t, { tier: Tier.T3, weight: ONE, lossWeight: s.loss, phi: s.phi });
    const tables = b.build();
    return { be: backends(tables), t, first: tables.edgeOffsets[t] };
  }
  const pick = (c: ReturnType<typeof choices>, tau: number) => {
    const out = verdict(c.be, [{ tool: c.t }], { tau });
    return out.steps[0].edge - c.first;
  };

  it("a qualifying leaf beats a non-qualifying one despite more loss", () => {
    expect(pick(choices([{ phi: 700000, loss: 0 }, { phi: 850000, loss: 400000 }]), 800000)).toBe(1);
  });
  it("among qualifying: least loss, then higher phi, then the earlier", () => {
    const c = choices([
      { phi: 950000, loss: 200000 },
      { phi: 850000, loss: 100000 },
      { phi: 900000, loss: 100000 },
      { phi: 900000, loss: 100000 },
    ]);
    expect(pick(c, 800000)).toBe(2);
  });
  it("none qualifying: higher phi, then less loss, then the earlier", () => {
    const c = choices([
      { phi: 500000, loss: 0 },
      { phi: 600000, loss: 300000 },
      { phi: 600000, loss: 200000 },
      { phi: 600000, loss: 200000 },
    ]);
    expect(pick(c, 800000)).toBe(2);
  });
  it("ties across calls keep the earlier leaf in DFS order", () => {
    const c = choices([{ phi: 900000, loss: 0 }, { phi: 900000, loss: 0 }]);
    const out = verdict(c.be, [{ tool: c.t, key: 1 }, { tool: c.t, key: 2 }]);
    expect(out.steps.map((s) => s.edge - c.first)).toEqual([0, 0]);
    // The later visits only tie the first leaf, so they are pruned: 2 + 1 + 1 visits.
    expect(out.nodes).toBe(4);
  });
});

describe("branch and bound", () => {
  /** One tool per kind of call in the benchmark's mixed session. */
  function session(twoEdgeOrder: "t2-first" | "t3-first") {
    const b = new TablesBuilder();
    const pax = b.tool("update_passengers", { actsOn: RESERVATION });
    b.edge(pax, { tier: Tier.T1, weight: 980000 });
    const bags = b.tool("update_baggages", { actsOn: RESERVATION });
    const t2 = { tier: Tier.T2, weight: 990000 };
    const t3 = { tier: Tier.T3, weight: 900000, lossWeight: 50000, phi: 855000 };
    for (const e of twoEdgeOrder === "t2-first" ? [t2, t3] : [t3, t2]) b.edge(bags, e);
    const flights = b.tool("update_flights", { actsOn: RESERVATION });
    b.edge(flights, { tier: Tier.T2, weight: 970000 });
    const tables = b.build();
    const calls = (n: number) => Array.from({ length: n }, (_, k) => ({ tool: [bags, pax, flights][k % 3], key: k }));
    return { be: backends(tables), calls, bags, first: tables.edgeOffsets[bags] };
  }

  it("a 64-call session, every third call with two admissible edges, completes in linear nodes", () => {
    const s = session("t2-first");
    for (const n of [1, 4, 16, 64]) {
      const out = verdict(s.be, s.calls(n), { maxDepth: 64 });
      const twoEdge = Math.ceil(n / 3);
      // The first path is the best leaf (n visits); each T3 visit is then pruned (one visit each).
      expect(out).toMatchObject({ reason: Reason.Ok, complete: 1, phi: n >= 3 ? 970000 : n === 2 ? 980000 : 990000, loss: 0, nodes: n + twoEdge });
      expect(out.steps.filter((st) => st.edge === s.first + 1)).toEqual([]);
    }
  });

  it("candidates listed worst first still find the least-loss leaf, within a small budget", () => {
    const s = session("t3-first");
    const out = verdict(s.be, s.calls(64), { maxDepth: 64, maxNodes: 10_000 });
    expect(out).toMatchObject({ reason: Reason.Ok, phi: 970000, loss: 0 });
    expect(out.steps.filter((st) => st.edge === s.first)).toEqual([]); // no T3 step
    expect(out.nodes).toBeLessThan(10_000);
  });

  it("nothing qualifies: the bound on phi prunes as well", () => {
    const s = session("t2-first");
    // tau above every step: the best phi (0.97) with the least loss, T3 visits cut by loss at equal phi.
    const out = verdict(s.be, s.calls(64), { maxDepth: 64, tau: 999000 });
    expect(out).toMatchObject({ reason: Reason.BelowThreshold, phi: 970000, loss: 0, nodes: 64 + 22 });
  });

  it("release, debug and reference agree byte for byte on 400 dense cases", () => {
    fc.assert(
      fc.property(denseArb, ({ tables, calls, options }) => {
        verdict(backends(tables), calls, options);
      }),
      { numRuns: 400, seed: 0x5eed_0b2d, endOnFailure: true },
    );
  });
});

describe("bound programs", () => {
  // Each program decides a T2 edge; `holds` says whether the verdict is ok rather than bound_violated.
  const b = new TablesBuilder();
  const T = b.constant({ tag: 2, value: 1n });
  const F = b.constant({ tag: 2, value: 0n });
  const N = b.constant({ tag: 1, value: 0n });
  const S7 = b.constant({ tag: 4, value: 7n });
  const n5 = b.constant(num(5));
  const n3 = b.constant(num(3));
  const cases: { name: string; code: [Op, number?][]; holds: boolean; operands?: ReturnType<typeof num>[] }[] = [
    { name: "const true", code: [[Op.Const, T]], holds: true },
    { name: "const false", code: [[Op.Const, F]], holds: false },
    { name: "number is not a boolean", code: [[Op.Const, n5]], holds: false },
    { name: "null == null", code: [[Op.Const, N], [Op.Const, N], [Op.Eq]], holds: true },
    { name: "string == number is false", code: [[Op.Const, S7], [Op.Const, n5], [Op.Eq]], holds: false },
    { name: "string != number is true", code: [[Op.Const, S7], [Op.Const, n5], [Op.Ne]], holds: true },
    { name: "missing == x is unknown", code: [[Op.Operand, 0], [Op.Const, n5], [Op.Eq]], holds: false, operands: [missing] },
    { name: "not unknown is unknown", code: [[Op.Operand, 0], [Op.Const, n5], [Op.Eq], [Op.Not]], holds: false, operands: [missing] },
    { name: "unknown or true", code: [[Op.Operand, 0], [Op.Const, n5], [Op.Eq], [Op.Const, T], [Op.Or]], holds: true, operands: [missing] },
    { name: "unknown and false is false: not holds", code: [[Op.Operand, 0], [Op.Const, n5], [Op.Eq], [Op.Const, F], [Op.And], [Op.Not]], holds: true, operands: [missing] },
    { name: "unknown and true is unknown", code: [[Op.Operand, 0], [Op.Const, n5], [Op.Eq], [Op.Const, T], [Op.And]], holds: false, operands: [missing] },
    { name: "string < number is unknown", code: [[Op.Const, S7], [Op.Const, n5], [Op.Lt], [Op.Not]], holds: false },
    { name: "3 + 5 - 3 == 5", code: [[Op.Const, n3], [Op.Const, n5], [Op.Add], [Op.Const, n3], [Op.Sub], [Op.Const, n5], [Op.Eq]], holds: true },
    { name: "now - 3 >= 5 at now 8", code: [[Op.Now], [Op.Const, n3], [Op.Sub], [Op.Const, n5], [Op.Ge]], holds: true },
    { name: "now > 5 at now 8, then <= fails", code: [[Op.Now], [Op.Const, n5], [Op.Le]], holds: false },
    { name: "add on a string is missing", code: [[Op.Const, S7], [Op.Const, n5], [Op.Add], [Op.Const, n5], [Op.Gt]], holds: false },
    { name: "i64 add wraps", code: [[Op.Operand, 0], [Op.Const, n5], [Op.Add], [Op.Const, n3], [Op.Lt]], holds: true, operands: [num(0x7fffffffffffffffn)] },
    { name: "two values left", code: [[Op.Const, T], [Op.Const, T]], holds: false },
    { name: "stack underflow", code: [[Op.Const, T], [Op.And]], holds: false },
    { name: "unknown opcode", code: [[Op.Const, T], [Op.Const, T], [99 as Op]], holds: false },
    { name: "constant out of range", code: [[Op.Const, 999]], holds: false },
    { name: "operand out of range", code: [[Op.Operand, 1]], holds: false, operands: [num(1)] },
    { name: "empty program", code: [], holds: false },
    { name: "stack of MAX_STACK values", code: [...Array.from({ length: 64 }, () => [Op.Const, T] as [Op, number]), ...Array.from({ length: 63 }, () => [Op.And] as [Op])], holds: true },
    { name: "stack overflow", code: [...Array.from({ length: 65 }, () => [Op.Const, T] as [Op, number]), ...Array.from({ length: 64 }, () => [Op.And] as [Op])], holds: false },
  ];
  const tools = cases.map((c, k) => {
    const t = b.tool(`bound${k}`, { actsOn: ORDER, operands: 1 });
    b.edge(t, { tier: Tier.T2, program: b.program(c.code) });
    return t;
  });
  const pbe = backends(b.build());
  cases.forEach((c, k) => {
    it(c.name, () => {
      const out = verdict(pbe, [{ tool: tools[k], operands: c.operands ?? [num(0)] }], { now: 8n });
      expect(out.reason).toBe(c.holds ? Reason.Ok : Reason.BoundViolated);
    });
  });
});
