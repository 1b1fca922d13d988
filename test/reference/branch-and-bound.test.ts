// The branch and bound of docs/semantics.md ("Combination and overlap") is exact: on generated
// ontologies and longer records it selects what the exhaustive DFS selects (π, φ, loss, bottleneck,
// reason, overlap conflicts) whenever the exhaustive search ends within its budget, and never visits more.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INPUT_SIZE, MAX_CALLS, Reason } from "../../src/abi.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { decodeInput, type Input } from "../../src/reference/input.js";
import { search, type Outcome } from "../../src/reference/search.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { denseArb } from "../core/dense.js";
import { run } from "../core/fixtures.js";
import { writeRecord } from "../differential/harness.js";
import { recordArb, tablesArb, type RecordSpec } from "../differential/generators.js";

const BUDGET = 20_000;

/** The record's calls repeated up to n, operand ranges re-laid, a node budget the exhaustive DFS can spend. */
function lengthen(r: RecordSpec, tables: OntologyTables, n: number): RecordSpec {
  if (r.calls.length === 0 || r.nCalls !== r.calls.length) return { ...r, maxNodes: BUDGET };
  const calls = [];
  const operands = [];
  for (let i = 0; i < n; i++) {
    const c = r.calls[i % r.calls.length];
    const count = c.tool >= 0 && c.tool < tables.tools.length ? tables.tools[c.tool].operands.length : 0;
    calls.push({ ...c, targetKey: (c.targetKey + i) % 3, operandStart: operands.length });
    for (let k = 0; k < count; k++) operands.push(r.operands[(c.operandStart + k) % Math.max(1, r.operands.length)] ?? { tag: 0, value: 0n });
  }
  return { ...r, nCalls: n, calls, nOperands: operands.length, operands, maxNodes: BUDGET, maxDepth: MAX_CALLS };
}

function decode(tables: OntologyTables, r: RecordSpec): Input | null {
  const view = new DataView(new ArrayBuffer(INPUT_SIZE));
  writeRecord(view, r);
  return decodeInput(view, tables);
}

const budgetStop = (o: Outcome) => o.reason === Reason.DepthExceeded && o.bottleneckCall >= 0;

describe("branch and bound vs the exhaustive DFS (reference)", () => {
  it("same verdict apart from nodes, never more nodes, on 3,000 generated cases", () => {
    const tally = { compared: 0, fewer: 0, leaves: 0 };
    const arb = tablesArb.chain((tables) =>
      fc.tuple(recordArb(tables), fc.integer({ min: 1, max: 11 })).map(([r, n]) => ({ tables, record: lengthen(r, tables, n) })),
    );
    fc.assert(
      fc.property(arb, ({ tables, record }) => {
        const input = decode(tables, record);
        if (input === null) return;
        const pruned = search(tables, input);
        const exhaustive = search(tables, input, { prune: false });
        expect(pruned.nodes).toBeLessThanOrEqual(exhaustive.nodes);
        if (budgetStop(exhaustive)) return;
        const { nodes: _p, ...a } = pruned;
        const { nodes: _e, ...b } = exhaustive;
        expect(a).toEqual(b);
        tally.compared++;
        if (pruned.complete) tally.leaves++;
        if (pruned.nodes < exhaustive.nodes) tally.fewer++;
      }),
      { numRuns: 3_000, seed: 0x5eed_0b2b, endOnFailure: true },
    );
    // The generator must reach pruning, or the agreement proves little.
    expect(tally.compared).toBeGreaterThan(1_500);
    expect(tally.leaves).toBeGreaterThan(500);
    expect(tally.fewer).toBeGreaterThan(50);
  });

  it("same on 3,000 dense cases (ties, overlap, fail-closed steps, thresholds around the scores)", () => {
    const tally = { compared: 0, fewer: 0, rescued: 0, conflicts: 0, belowTau: 0 };
    fc.assert(
      fc.property(denseArb, ({ tables, calls, options }) => {
        const backend = createReferenceBackend(tables);
        run(backend, calls, options);
        const input = decodeInput(backend.inputView(), tables)!;
        const pruned = search(tables, input);
        const exhaustive = search(tables, input, { prune: false });
        expect(pruned.nodes).toBeLessThanOrEqual(exhaustive.nodes);
        if (budgetStop(exhaustive)) {
          if (!budgetStop(pruned)) tally.rescued++;
          return;
        }
        const { nodes: _p, ...a } = pruned;
        const { nodes: _e, ...b } = exhaustive;
        expect(a).toEqual(b);
        tally.compared++;
        if (pruned.reason === Reason.OverlapConflict) tally.conflicts++;
        if (pruned.reason === Reason.BelowThreshold) tally.belowTau++;
        if (pruned.nodes < exhaustive.nodes) tally.fewer++;
      }),
      { numRuns: 3_000, seed: 0x5eed_0b2c, endOnFailure: true },
    );
    expect(tally.compared).toBeGreaterThan(2_500);
    expect(tally.fewer).toBeGreaterThan(1_000);
    expect(tally.conflicts).toBeGreaterThan(20);
    expect(tally.belowTau).toBeGreaterThan(100);
    expect(tally.rescued).toBeGreaterThan(0);
  });
});
