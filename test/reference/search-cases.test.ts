// Cases of the reverse search the generated differential cases rarely or never make, each on the
// release core, the debug core and the reference (test/core/harness.ts checks the three agree):
// a fail-closed step whose entity a later call re-creates under a new id, and the candidate cap at,
// just below and just above MAX_CANDIDATES.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Identity, MAX_CALLS, MAX_CANDIDATES, Reason, Tier } from "../../src/abi.js";
import { tierFlags } from "../../src/core/record.js";
import { backends, verdict } from "../core/harness.js";
import { ONE, TablesBuilder } from "../core/fixtures.js";

const RESERVATION = 1;

describe("fail-closed steps and overlap", () => {
  // Both tools act on reservations; `rebook` restores a reservation under a new id.
  const b = new TablesBuilder();
  const burn = b.tool("burn_points", { actsOn: RESERVATION });
  b.edge(burn, { tier: Tier.T4, lossWeight: 500000 });
  const email = b.tool("email_reservation", { actsOn: RESERVATION });
  b.edge(email, { tier: Tier.T5 });
  const rebook = b.tool("cancel_reservation", { actsOn: RESERVATION });
  b.edge(rebook, { tier: Tier.T1, weight: 900000, identity: Identity.New });
  const edit = b.tool("edit_reservation", { actsOn: RESERVATION });
  b.edge(edit, { tier: Tier.T1, weight: 950000 });
  const be = backends(b.build());

  it.each([
    ["a T4 step, fail-closed on", burn, true, Reason.IrreversiblyConsumes],
    ["a T5 step, fail-closed on", email, true, Reason.ExternalSideEffect],
    ["a T4 step, fail-closed off", burn, false, Reason.Ok],
    ["a T5 step, fail-closed off", email, false, Reason.Ok],
  ])("%s whose reservation a later call re-creates under a new id does not conflict: it has no inverse to lose", (_what, tool, failClosed, reason) => {
    const flags = tierFlags(["T1", "T2", "T3"], failClosed);
    const out = verdict(be, [{ tool, key: 7 }, { tool: rebook, key: 7 }], { flags });
    expect(out.reason).toBe(reason);
    expect(out.complete).toBe(1);
    expect(out.steps.map((s) => s.call)).toEqual([1, 0]);
  });

  it("a positive step on that reservation does conflict (the contrast)", () => {
    expect(verdict(be, [{ tool: edit, key: 7 }, { tool: rebook, key: 7 }]).reason).toBe(Reason.OverlapConflict);
  });

  it("generated: fail-closed calls before and after new-id restores of the same keys never end in overlap_conflict", () => {
    const tools = [burn, email, rebook];
    // At most one restore per key: two restores of one key do conflict (the earlier one is positive).
    const onceEach = (calls: { tool: number; key: number }[]) => calls.filter((c, i) => c.tool !== rebook || !calls.slice(0, i).some((p) => p.tool === rebook && p.key === c.key));
    const caseArb = fc.record({
      calls: fc.array(fc.record({ tool: fc.constantFrom(...tools), key: fc.integer({ min: 0, max: 2 }) }), { minLength: 2, maxLength: 6 }).map(onceEach),
      failClosed: fc.boolean(),
      tau: fc.constantFrom(0, 500000, 800000, ONE),
    });
    fc.assert(
      fc.property(caseArb, ({ calls, failClosed, tau }) => {
        const out = verdict(be, calls, { flags: tierFlags(["T1", "T2", "T3"], failClosed), tau });
        expect(out.reason).not.toBe(Reason.OverlapConflict);
      }),
      { numRuns: 300, seed: 0x5eed_0016 },
    );
  });
});

describe("the candidate cap", () => {
  // Tools with 16, 15 and 17 live T1 edges: 256 calls of the first hold exactly MAX_CANDIDATES.
  const b = new TablesBuilder();
  const sixteen = b.tool("sixteen", {});
  for (let k = 0; k < 16; k++) b.edge(sixteen, { tier: Tier.T1, weight: ONE - k });
  const fifteen = b.tool("fifteen", {});
  for (let k = 0; k < 15; k++) b.edge(fifteen, { tier: Tier.T1, weight: ONE - k });
  const seventeen = b.tool("seventeen", {});
  for (let k = 0; k < 17; k++) b.edge(seventeen, { tier: Tier.T1, weight: ONE - k });
  const be = backends(b.build());
  const calls = (last: number) => [...Array.from({ length: MAX_CALLS - 1 }, () => ({ tool: sixteen })), { tool: last }];

  it("the fixture's arithmetic", () => {
    expect(16 * MAX_CALLS).toBe(MAX_CANDIDATES);
  });

  it.each([
    ["exactly at the cap", sixteen],
    ["one below the cap", fifteen],
  ])("%s the search runs (here into its node budget, at a call, after visits)", (_what, last) => {
    const out = verdict(be, calls(last), { maxNodes: 300, maxDepth: MAX_CALLS });
    expect(out).toMatchObject({ reason: Reason.DepthExceeded, nodes: 300, bottleneckTool: sixteen });
  });

  it("one above the cap: depth_exceeded before any visit", () => {
    const out = verdict(be, calls(seventeen), { maxNodes: 300, maxDepth: MAX_CALLS });
    expect(out).toMatchObject({ reason: Reason.DepthExceeded, nodes: 0, bottleneckCall: -1, bottleneckTool: -1 });
  });
});
