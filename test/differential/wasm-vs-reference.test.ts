// Differential test: the WebAssembly core and the plain-TS reference on generated ontologies and input
// records must write identical output bytes (φ bit-equal, same reason, same π, same node count).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIXED_ONE, Identity, Lifecycle, MAX_CALLS, MAX_CANDIDATES, Reason, Status, Tier } from "../../src/abi.js";
import { readOutput } from "../../src/core/record.js";
import type { EdgeTable, OntologyTables } from "../../src/ontology/tables.js";
import { pairFor, loadCore } from "./backends.js";
import { caseArb, recordArb, tablesArb, type RecordSpec } from "./generators.js";
import { hex, runOn, sameBytes, statusOf } from "./harness.js";

const core = loadCore();

function agree(tables: OntologyTables, record: RecordSpec, tally?: Map<string, number>): void {
  const pair = pairFor(core, tables);
  const w = runOn(pair.wasm, record);
  const r = runOn(pair.reference, record);
  if (!sameBytes(w, r)) {
    throw new Error(`backends disagree\nwasm      ${hex(w)}\nreference ${hex(r)}\nrecord ${JSON.stringify(record, (_, v) => (typeof v === "bigint" ? `${v}n` : v))}`);
  }
  if (tally !== undefined) {
    const status = statusOf(r);
    const key = status !== Status.Ok ? `status:${Status[status]}` : Reason[readOutput(new DataView(r.buffer)).reason];
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
}

describe("wasm core vs reference", () => {
  it("agree byte for byte on 10,000 generated (ontology, record) cases", () => {
    const tally = new Map<string, number>();
    fc.assert(
      fc.property(caseArb, ({ tables, record }) => agree(tables, record, tally)),
      { numRuns: 10_000, seed: 0x5eed_0001, endOnFailure: true },
    );
    // The generator must reach every reason and bad input, or agreement proves little.
    for (const r of ["Ok", "NoCandidate", "ExternalSideEffect", "IrreversiblyConsumes", "BoundViolated", "UnknownTool", "OverlapConflict", "DepthExceeded", "BelowThreshold", "status:BadInput"]) {
      expect(tally.get(r) ?? 0, `cases ending in ${r}`).toBeGreaterThan(20);
    }
  });

  it("agree on longer sequences over one ontology with small node budgets", () => {
    const longCase = tablesArb.chain((tables) =>
      fc
        .tuple(fc.array(recordArb(tables), { minLength: 1, maxLength: 4 }), fc.integer({ min: 8, max: 40 }), fc.nat(300))
        .map(([records, n, budget]) => ({ tables, records: records.map((r) => lengthen(r, tables, n, budget)) })),
    );
    fc.assert(
      fc.property(longCase, ({ tables, records }) => {
        for (const r of records) agree(tables, r);
      }),
      { numRuns: 500, seed: 0x5eed_0002, endOnFailure: true },
    );
  });

  it("agree when the candidate lists overflow MAX_CANDIDATES", () => {
    const tables = manyEdges(20);
    const n = Math.ceil((MAX_CANDIDATES + 1) / 20);
    expect(n).toBeLessThanOrEqual(MAX_CALLS);
    const record = repeat(n, 0, 64 * MAX_CALLS);
    const pair = pairFor(core, tables);
    const out = runOn(pair.reference, record);
    expect(readOutput(new DataView(out.buffer)).reason).toBe(Reason.DepthExceeded);
    agree(tables, record);
    // One call fewer fits, and the search then runs into its node budget instead.
    const fits = repeat(Math.floor(MAX_CANDIDATES / 20), 0, 1000);
    agree(tables, fits);
    expect(readOutput(new DataView(runOn(pair.reference, fits).buffer)).nodes).toBe(1000);
  });
});

/** The record with its calls repeated up to `n` (keeping the operand layout valid) and a node budget. */
function lengthen(r: RecordSpec, tables: OntologyTables, n: number, budget: number): RecordSpec {
  if (r.calls.length === 0 || r.nCalls !== r.calls.length) return r;
  const calls = [];
  const operands = [];
  let next = 0;
  for (let i = 0; i < n; i++) {
    const c = r.calls[i % r.calls.length];
    const count = c.tool >= 0 && c.tool < tables.tools.length ? tables.tools[c.tool].operands.length : 0;
    calls.push({ ...c, operandStart: next });
    for (let k = 0; k < count; k++) operands.push(r.operands[(c.operandStart + k) % Math.max(1, r.operands.length)] ?? { tag: 0, value: 0n });
    next += count;
  }
  return { ...r, nCalls: n, calls, nOperands: next, operands, maxNodes: budget, maxDepth: MAX_CALLS };
}

function repeat(n: number, tool: number, maxNodes: number): RecordSpec {
  return {
    nCalls: n,
    tau: 800_000,
    flags: 31,
    maxNodes,
    now: 0n,
    maxDepth: MAX_CALLS,
    calls: Array.from({ length: n }, (_, i) => ({ tool, grounded: 1, targetKey: i, operandStart: 0 })),
    nOperands: 0,
    operands: [],
  };
}

/** One tool with `k` live T1 edges onto itself: every call contributes k candidates. */
function manyEdges(k: number): OntologyTables {
  const edges: EdgeTable[] = Array.from({ length: k }, (_, i) => ({
    tier: Tier.T1,
    lifecycle: Lifecycle.Live,
    identity: Identity.Same,
    forward: 0,
    inverse: 0,
    slot: 0,
    lossClass: -1,
    sink: -1,
    weight: FIXED_ONE - i,
    phi: FIXED_ONE - i,
    lossWeight: 0,
    program: -1,
    amount: -1,
    id: `edge${i}`,
    span: { line: i + 1, col: 1, endLine: i + 1, endCol: 2 },
    argMap: null,
  }));
  return {
    sourceName: "many.polar",
    sourceSha256: new Uint8Array(32),
    compilerVersion: "test",
    strings: [],
    entities: [{ name: "thing" }],
    slots: [{ name: "state", entity: 0, type: 0 }],
    lossClasses: [],
    sinks: [],
    tools: [{ name: "flip", readOnly: false, actsOn: -1, keyArg: null, keyConst: null, creates: -1, target: -1, newKey: null, operands: [] }],
    edgeOffsets: [0, k],
    edges,
    programs: [],
    constants: [],
    meta: {},
  };
}
