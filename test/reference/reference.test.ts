// The reference backend on its own: bound programs (Kleene logic, tags, wrapping), bad input records,
// and a search it must never throw from.
import { describe, expect, it } from "vitest";
import { IN_N_CALLS, MAX_CALLS, Op, Reason, Status, ValueTag } from "../../src/abi.js";
import { readOutput } from "../../src/core/record.js";
import type { ConstantTable, OntologyTables } from "../../src/ontology/tables.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { boundHolds } from "../../src/reference/bound.js";
import type { Value } from "../../src/reference/input.js";
import { writeRecord } from "../differential/harness.js";
import type { RecordSpec } from "../differential/generators.js";

const M: Value = { tag: ValueTag.Missing, value: 0n };
const NULL: Value = { tag: ValueTag.Null, value: 0n };
const T: Value = { tag: ValueTag.Bool, value: 1n };
const F: Value = { tag: ValueTag.Bool, value: 0n };
const num = (n: bigint): Value => ({ tag: ValueTag.Number, value: n });
const str = (id: bigint): Value => ({ tag: ValueTag.String, value: id });

function tablesWith(code: number[], constants: ConstantTable[] = []): OntologyTables {
  return {
    sourceName: "t", sourceSha256: new Uint8Array(32), compilerVersion: "t", strings: [], entities: [], slots: [],
    lossClasses: [], sinks: [], tools: [], edgeOffsets: [0], edges: [], programs: [{ code, maxStack: 8 }], constants, meta: {},
  };
}

/** Does `a op b` (operands 0 and 1) hold? */
const holds = (op: Op, a: Value, b: Value) => boundHolds(tablesWith([Op.Operand, Op.Operand | (1 << 8), op]), 0, [a, b], 0n);
/** Is `not (a op b)` TRUE, i.e. is `a op b` FALSE (not UNKNOWN)? */
const isFalse = (op: Op, a: Value, b: Value) => boundHolds(tablesWith([Op.Operand, Op.Operand | (1 << 8), op, Op.Not]), 0, [a, b], 0n);

describe("bound programs", () => {
  it("Eq/Ne: Missing is UNKNOWN, different tags unequal, Null equals Null", () => {
    expect(holds(Op.Eq, M, M)).toBe(false);
    expect(isFalse(Op.Eq, M, M)).toBe(false);
    expect(holds(Op.Eq, NULL, { tag: ValueTag.Null, value: 7n })).toBe(true);
    expect(isFalse(Op.Eq, str(1n), num(1n))).toBe(true);
    expect(holds(Op.Ne, str(1n), num(1n))).toBe(true);
    expect(holds(Op.Eq, str(2n), str(2n))).toBe(true);
    expect(holds(Op.Ne, M, str(2n))).toBe(false);
    expect(isFalse(Op.Ne, M, str(2n))).toBe(false);
  });

  it("orderings compare Numbers only", () => {
    expect(holds(Op.Lt, num(1n), num(2n))).toBe(true);
    expect(isFalse(Op.Ge, num(1n), num(2n))).toBe(true);
    expect(holds(Op.Le, str(1n), str(1n))).toBe(false);
    expect(isFalse(Op.Le, str(1n), str(1n))).toBe(false);
  });

  it("And/Or follow Kleene's tables", () => {
    const vals = [T, F, M, num(1n)];
    const k = (v: Value) => (v === T ? 1 : v === F ? 0 : 0.5); // non-Bool counts as UNKNOWN
    for (const a of vals) {
      for (const b of vals) {
        expect(holds(Op.And, a, b)).toBe(Math.min(k(a), k(b)) === 1);
        expect(isFalse(Op.And, a, b)).toBe(Math.min(k(a), k(b)) === 0);
        expect(holds(Op.Or, a, b)).toBe(Math.max(k(a), k(b)) === 1);
        expect(isFalse(Op.Or, a, b)).toBe(Math.max(k(a), k(b)) === 0);
      }
    }
  });

  it("Add/Sub wrap at 64 bits and give Missing on other tags", () => {
    const max = 9_223_372_036_854_775_807n;
    const min = -9_223_372_036_854_775_808n;
    // max + 1 wraps to min: (max + 1) < 0 holds
    const wrap = tablesWith([Op.Operand, Op.Operand | (1 << 8), Op.Add, Op.Const, Op.Lt], [{ tag: ValueTag.Number, value: 0n }]);
    expect(boundHolds(wrap, 0, [num(max), num(1n)], 0n)).toBe(true);
    const sub = tablesWith([Op.Operand, Op.Operand | (1 << 8), Op.Sub, Op.Const, Op.Gt], [{ tag: ValueTag.Number, value: 0n }]);
    expect(boundHolds(sub, 0, [num(min), num(1n)], 0n)).toBe(true);
    expect(boundHolds(wrap, 0, [str(1n), num(1n)], 0n)).toBe(false);
  });

  it("Now pushes the input's time; a bound must leave exactly TRUE", () => {
    expect(boundHolds(tablesWith([Op.Now, Op.Operand, Op.Lt]), 0, [num(10n)], 5n)).toBe(true);
    expect(boundHolds(tablesWith([Op.Operand]), 0, [T], 0n)).toBe(true);
    expect(boundHolds(tablesWith([Op.Operand]), 0, [num(1n)], 0n)).toBe(false);
    expect(boundHolds(tablesWith([Op.Operand, Op.Operand]), 0, [T, T], 0n)).toBe(false);
  });

  it("fails closed on malformed programs", () => {
    expect(boundHolds(tablesWith([Op.Eq]), 0, [], 0n)).toBe(false); // underflow
    expect(boundHolds(tablesWith([99]), 0, [], 0n)).toBe(false); // unknown opcode
    expect(boundHolds(tablesWith([Op.Const | (5 << 8)]), 0, [], 0n)).toBe(false); // no constant 5
    expect(boundHolds(tablesWith([Op.Operand | (3 << 8)]), 0, [T], 0n)).toBe(false); // no operand 3
    expect(boundHolds(tablesWith(Array(65).fill(Op.Now)), 0, [], 0n)).toBe(false); // stack overflow
    expect(boundHolds(tablesWith([Op.Now]), 7, [], 0n)).toBe(false); // no program 7
  });
});

describe("reference backend", () => {
  const tables = tablesWith([Op.Now]);
  tables.tools = [{ name: "t", readOnly: false, actsOn: -1, keyArg: null, keyConst: null, creates: -1, target: -1, newKey: null, operands: [] }];
  tables.edgeOffsets = [0, 0];
  const base: RecordSpec = { nCalls: 1, tau: 800_000, flags: 31, maxNodes: 10, now: 0n, maxDepth: 64, calls: [{ tool: 0, grounded: 1, targetKey: 0, operandStart: 0 }], nOperands: 0, operands: [] };

  function run(r: RecordSpec) {
    const b = createReferenceBackend(tables);
    writeRecord(b.inputView(), r);
    return readOutput(b.run());
  }

  it("answers no_candidate for a tool without edges", () => {
    expect(run(base)).toMatchObject({ status: Status.Ok, reason: Reason.NoCandidate, bottleneckCall: 0, bottleneckTool: 0 });
  });

  it("refuses out-of-range tools, counts, operand ranges and tags with BadInput", () => {
    expect(run({ ...base, calls: [{ ...base.calls[0], tool: 1 }] }).status).toBe(Status.BadInput);
    expect(run({ ...base, calls: [{ ...base.calls[0], tool: -2 }] }).status).toBe(Status.BadInput);
    expect(run({ ...base, nCalls: MAX_CALLS + 1 }).status).toBe(Status.BadInput);
    expect(run({ ...base, nOperands: 1, operands: [{ tag: 9, value: 0n }] }).status).toBe(Status.BadInput);
    const b = createReferenceBackend(tables);
    b.inputView().setUint32(IN_N_CALLS, 0xffffffff, true);
    expect(readOutput(b.run()).status).toBe(Status.BadInput);
  });
});
