// A generator of search problems dense in what the branch and bound decides on: several positive
// candidates per call with φ and loss drawn from a few values (so ties are common), identity = new on
// shared keys (overlap conflicts), fail-closed steps, thresholds around the scores, and sequences long
// enough that pruning matters but short enough for the exhaustive DFS to finish.
import fc from "fast-check";
import { Identity, Tier } from "../../src/abi.js";
import { tierFlags } from "../../src/core/record.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { ONE, TablesBuilder, type CallSpec, type RunOptions } from "./fixtures.js";

export interface DenseCase {
  tables: OntologyTables;
  calls: CallSpec[];
  options: RunOptions;
}

const edgeArb = fc.record({
  tier: fc.constantFrom(Tier.T1, Tier.T1, Tier.T2, Tier.T3, Tier.T3, Tier.T4, Tier.T5),
  weight: fc.constantFrom(500_000, 800_000, 900_000, 950_000, 990_000, ONE),
  lossWeight: fc.constantFrom(0, 0, 50_000, 100_000, 300_000),
  identityNew: fc.boolean(),
});

const toolArb = fc.record({ actsOn: fc.constantFrom(-1, 1, 1, 1), edges: fc.array(edgeArb, { minLength: 1, maxLength: 3 }) });

export const denseArb: fc.Arbitrary<DenseCase> = fc
  .record({
    tools: fc.array(toolArb, { minLength: 1, maxLength: 4 }),
    calls: fc.array(fc.record({ tool: fc.nat(3), key: fc.nat(2) }), { minLength: 1, maxLength: 12 }),
    tau: fc.constantFrom(0, 500_000, 800_000, 855_000, 900_000, 950_000, ONE),
    failClosed: fc.constantFrom(true, true, false),
  })
  .map(({ tools, calls, tau, failClosed }) => {
    const b = new TablesBuilder();
    tools.forEach((t, k) => {
      const tool = b.tool(`tool${k}`, { actsOn: t.actsOn });
      for (const e of t.edges) {
        const lossWeight = e.tier === Tier.T1 || e.tier === Tier.T5 ? 0 : e.lossWeight; // the table in docs/semantics.md
        b.edge(tool, { tier: e.tier, weight: e.weight, lossWeight, identity: e.identityNew && e.tier <= Tier.T3 ? Identity.New : Identity.Same });
      }
    });
    return {
      tables: b.build(),
      calls: calls.map((c) => ({ tool: c.tool % tools.length, key: c.key })),
      options: { tau, flags: tierFlags(["T1", "T2", "T3"], failClosed), maxNodes: 20_000 },
    };
  });
