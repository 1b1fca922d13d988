// The record codec: every field lands at its src/abi.ts offset, little-endian, and reads back.
import { describe, expect, it } from "vitest";
import {
  CALL_GROUNDED,
  CALL_OPERAND_START,
  CALL_SIZE,
  CALL_TARGET_KEY,
  CALL_TOOL,
  FLAG_FAIL_CLOSED_OFF,
  IN_CALLS,
  IN_FLAGS,
  IN_MAX_DEPTH,
  IN_MAX_NODES,
  IN_N_CALLS,
  IN_N_OPERANDS,
  IN_NOW,
  IN_OPERANDS,
  IN_TAU,
  INPUT_SIZE,
  MAX_STEPS,
  OPERAND_VALUE_SIZE,
  OUT_AMOUNT,
  OUT_AMOUNT_STATE,
  OUT_B_CALL,
  OUT_B_EDGE,
  OUT_B_TOOL,
  OUT_COMPLETE,
  OUT_LOSS,
  OUT_N_STEPS,
  OUT_NODES,
  OUT_PHI,
  OUT_REASON,
  OUT_STATUS,
  OUT_STEPS,
  OUTPUT_SIZE,
  STEP_AMOUNT,
  STEP_AMOUNT_STATE,
  STEP_SIZE,
  Tier,
  ValueTag,
} from "../../src/abi.js";
import { outputBytes, readOutput, tierFlags, writeCall, writeHeader, writeOperand } from "../../src/core/record.js";

describe("input record", () => {
  it("writes the header at its offsets", () => {
    const v = new DataView(new ArrayBuffer(INPUT_SIZE));
    writeHeader(v, { nCalls: 3, tau: 800000, flags: 0x11f, maxNodes: 100000, now: -5n, maxDepth: 64, nOperands: 9 });
    expect(v.getUint32(IN_N_CALLS, true)).toBe(3);
    expect(v.getInt32(IN_TAU, true)).toBe(800000);
    expect(v.getUint32(IN_FLAGS, true)).toBe(0x11f);
    expect(v.getUint32(IN_MAX_NODES, true)).toBe(100000);
    expect(v.getBigInt64(IN_NOW, true)).toBe(-5n);
    expect(v.getUint32(IN_MAX_DEPTH, true)).toBe(64);
    expect(v.getUint32(IN_N_OPERANDS, true)).toBe(9);
  });

  it("writes calls and operands at their indices", () => {
    const v = new DataView(new ArrayBuffer(INPUT_SIZE));
    writeCall(v, 2, -1, true, 42, 7);
    writeCall(v, 3, 5, false, -3, 0);
    const c2 = IN_CALLS + 2 * CALL_SIZE;
    expect([v.getInt32(c2 + CALL_TOOL, true), v.getUint32(c2 + CALL_GROUNDED, true), v.getInt32(c2 + CALL_TARGET_KEY, true), v.getUint32(c2 + CALL_OPERAND_START, true)]).toEqual([-1, 1, 42, 7]);
    expect(v.getUint32(IN_CALLS + 3 * CALL_SIZE + CALL_GROUNDED, true)).toBe(0);
    writeOperand(v, 4095, ValueTag.Number, -(2n ** 63n));
    const o = IN_OPERANDS + 4095 * OPERAND_VALUE_SIZE;
    expect(o + OPERAND_VALUE_SIZE).toBe(INPUT_SIZE);
    expect(v.getInt32(o, true)).toBe(ValueTag.Number);
    expect(v.getInt32(o + 4, true)).toBe(0);
    expect(v.getBigInt64(o + 8, true)).toBe(-(2n ** 63n));
  });

  it("tier flags: chosen positive tiers, T4/T5 always, the fail-closed switch", () => {
    expect(tierFlags(["T1", "T2", "T3"], true)).toBe(31);
    expect(tierFlags(["T1", "T3"], true)).toBe(0b11101);
    expect(tierFlags([], false)).toBe(0b11000 | FLAG_FAIL_CLOSED_OFF);
    expect(tierFlags([Tier.T2], true)).toBe(0b11010);
  });
});

describe("output record", () => {
  function filled(nSteps: number): DataView {
    const v = new DataView(new ArrayBuffer(OUTPUT_SIZE));
    new Uint8Array(v.buffer).fill(0xee); // bytes past the last step are not part of the verdict
    [OUT_STATUS, OUT_REASON, OUT_COMPLETE, OUT_PHI, OUT_LOSS, OUT_B_CALL, OUT_B_EDGE, OUT_B_TOOL].forEach((at, k) => v.setInt32(at, k - 1, true));
    v.setUint32(OUT_N_STEPS, nSteps, true);
    v.setUint32(OUT_NODES, 77, true);
    for (let k = 0; k < Math.min(nSteps, MAX_STEPS); k++) {
      for (let f = 0; f < 4; f++) v.setInt32(OUT_STEPS + k * STEP_SIZE + f * 4, k * 10 + f, true);
      // Step k's amount: none for the first, known (k * 1000) for the others.
      v.setInt32(OUT_STEPS + k * STEP_SIZE + STEP_AMOUNT_STATE, k === 0 ? 0 : 1, true);
      v.setBigInt64(OUT_STEPS + k * STEP_SIZE + STEP_AMOUNT, BigInt(k * 1000), true);
    }
    v.setInt32(OUT_AMOUNT_STATE, 2, true);
    v.setBigInt64(OUT_AMOUNT, 0n, true);
    return v;
  }

  it("reads every field and the steps", () => {
    expect(readOutput(filled(2))).toEqual({
      status: -1, reason: 0, complete: 1, phi: 2, loss: 3, bottleneckCall: 4, bottleneckEdge: 5, bottleneckTool: 6, nodes: 77,
      steps: [{ call: 0, edge: 1, phi: 2, loss: 3 }, { call: 10, edge: 11, phi: 12, loss: 13, amountState: 1, amount: 1000n }],
      amountState: 2, amount: 0n,
    });
  });

  it("outputBytes is a copy of the header through the last step", () => {
    const v = filled(2);
    const bytes = outputBytes(v);
    expect(bytes.length).toBe(OUT_STEPS + 2 * STEP_SIZE);
    expect(bytes).toEqual(new Uint8Array(v.buffer, 0, bytes.length));
    v.setInt32(OUT_PHI, 123, true);
    expect(new DataView(bytes.buffer).getInt32(OUT_PHI, true)).toBe(2);
  });

  it("works on a view at an offset (wasm memory) and clamps a corrupt step count", () => {
    const buf = new ArrayBuffer(OUTPUT_SIZE + 64);
    const v = new DataView(buf, 64, OUTPUT_SIZE);
    v.setUint32(OUT_N_STEPS, 1e9, true);
    expect(readOutput(v).steps.length).toBe(MAX_STEPS);
    expect(outputBytes(v).length).toBe(OUTPUT_SIZE);
  });
});
