// The ABI's input and output records as plain functions over a DataView (layouts in src/abi.ts).
// Both search backends read the same bytes, so the host writes a verdict's input once with these
// functions and reads the answer back the same way whichever backend ran. The write paths allocate
// nothing: they only store integers at offsets.
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
  STEP_AMOUNT,
  STEP_AMOUNT_STATE,
  STEP_CALL,
  STEP_EDGE,
  STEP_LOSS,
  STEP_PHI,
  STEP_SIZE,
  Tier,
} from "../abi.js";
import type { TierName } from "./types.js";

const LE = true;

/** The input record's header fields. `tau` is fixed point; `now` is fixed-point seconds since the epoch. */
export interface InputHeader {
  nCalls: number;
  tau: number;
  flags: number;
  maxNodes: number;
  now: bigint;
  maxDepth: number;
  nOperands: number;
}

export interface RawStep {
  call: number;
  edge: number;
  phi: number;
  loss: number;
  /** Present only when the step's AmountState is not None (0): the state and its fixed value. */
  amountState?: number;
  amount?: bigint;
}

/** The output record decoded field by field, without interpretation (names and spans come later). */
export interface RawOutput {
  status: number;
  reason: number;
  complete: number;
  phi: number;
  loss: number;
  bottleneckCall: number;
  bottleneckEdge: number;
  bottleneckTool: number;
  nodes: number;
  steps: RawStep[];
  /** Present only when the total's AmountState is not None (0). */
  amountState?: number;
  amount?: bigint;
}

export function writeHeader(view: DataView, h: InputHeader): void {
  view.setUint32(IN_N_CALLS, h.nCalls, LE);
  view.setInt32(IN_TAU, h.tau, LE);
  view.setUint32(IN_FLAGS, h.flags, LE);
  view.setUint32(IN_MAX_NODES, h.maxNodes, LE);
  view.setBigInt64(IN_NOW, h.now, LE);
  view.setUint32(IN_MAX_DEPTH, h.maxDepth, LE);
  view.setUint32(IN_N_OPERANDS, h.nOperands, LE);
}

/** Call i of the forward sequence (0-based, forward order). `tool` is -1 for a tool the ontology lacks. */
export function writeCall(
  view: DataView,
  i: number,
  tool: number,
  grounded: boolean | number,
  targetKey: number,
  operandStart: number,
): void {
  const at = IN_CALLS + i * CALL_SIZE;
  view.setInt32(at + CALL_TOOL, tool, LE);
  view.setUint32(at + CALL_GROUNDED, grounded ? 1 : 0, LE);
  view.setInt32(at + CALL_TARGET_KEY, targetKey, LE);
  view.setUint32(at + CALL_OPERAND_START, operandStart, LE);
}

/** Operand value i: a ValueTag and its i64 payload (fixed-point number, interned string id, 0/1 bool). */
export function writeOperand(view: DataView, i: number, tag: number, value: bigint): void {
  const at = IN_OPERANDS + i * OPERAND_VALUE_SIZE;
  view.setInt32(at, tag, LE);
  view.setInt32(at + 4, 0, LE);
  view.setBigInt64(at + 8, value, LE);
}

const TWO_32 = 4294967296;

/** writeOperand for a payload that is an integer of magnitude at most 2^53 held in a number: the same
 * bytes (the i64's two halves), without a BigInt per operand. */
export function writeOperandInt(view: DataView, i: number, tag: number, value: number): void {
  const at = IN_OPERANDS + i * OPERAND_VALUE_SIZE;
  view.setInt32(at, tag, LE);
  view.setInt32(at + 4, 0, LE);
  const hi = Math.floor(value / TWO_32);
  view.setUint32(at + 8, value - hi * TWO_32, LE);
  view.setInt32(at + 12, hi, LE);
}

/** Steps actually present: the count field, clamped to the record's capacity so a corrupt count
 * cannot make the reader run past the output region. */
export function stepCount(view: DataView): number {
  const n = view.getUint32(OUT_N_STEPS, LE);
  return n > MAX_STEPS ? MAX_STEPS : n;
}

export function readOutput(view: DataView): RawOutput {
  const n = stepCount(view);
  const steps: RawStep[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const at = OUT_STEPS + k * STEP_SIZE;
    const step: RawStep = {
      call: view.getInt32(at + STEP_CALL, LE),
      edge: view.getInt32(at + STEP_EDGE, LE),
      phi: view.getInt32(at + STEP_PHI, LE),
      loss: view.getInt32(at + STEP_LOSS, LE),
    };
    const state = view.getInt32(at + STEP_AMOUNT_STATE, LE);
    if (state !== 0) {
      step.amountState = state;
      step.amount = view.getBigInt64(at + STEP_AMOUNT, LE);
    }
    steps[k] = step;
  }
  const out: RawOutput = {
    status: view.getInt32(OUT_STATUS, LE),
    reason: view.getInt32(OUT_REASON, LE),
    complete: view.getInt32(OUT_COMPLETE, LE),
    phi: view.getInt32(OUT_PHI, LE),
    loss: view.getInt32(OUT_LOSS, LE),
    bottleneckCall: view.getInt32(OUT_B_CALL, LE),
    bottleneckEdge: view.getInt32(OUT_B_EDGE, LE),
    bottleneckTool: view.getInt32(OUT_B_TOOL, LE),
    nodes: view.getUint32(OUT_NODES, LE),
    steps,
  };
  const state = view.getInt32(OUT_AMOUNT_STATE, LE);
  if (state !== 0) {
    out.amountState = state;
    out.amount = view.getBigInt64(OUT_AMOUNT, LE);
  }
  return out;
}

/** A copy of the canonical verdict bytes: the header fields through the last step. */
export function outputBytes(view: DataView): Uint8Array {
  return wordsToBytes(outputWords(view));
}

/** The canonical verdict bytes as little-endian 32-bit words (the record's length is a multiple of 4):
 * a plain array of small numbers is far cheaper to make than a byte copy (a new ArrayBuffer), and
 * wordsToBytes gives the same bytes back. */
export function outputWords(view: DataView): number[] {
  const n = (OUT_STEPS + stepCount(view) * STEP_SIZE) >> 2;
  const words: number[] = new Array<number>(n);
  for (let k = 0; k < n; k++) words[k] = view.getInt32(k << 2, LE);
  return words;
}

/** The bytes outputWords read. */
export function wordsToBytes(words: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(words.length << 2);
  const view = new DataView(bytes.buffer);
  for (let k = 0; k < words.length; k++) view.setInt32(k << 2, words[k], LE);
  return bytes;
}

const TIER_BY_NAME: Record<TierName, Tier> = { T1: Tier.T1, T2: Tier.T2, T3: Tier.T3, T4: Tier.T4, T5: Tier.T5 };
/** T4 and T5 are always enabled (docs/semantics.md): their bits are always set. */
const ALWAYS_ON = (1 << (Tier.T4 - 1)) | (1 << (Tier.T5 - 1));

/** The IN_FLAGS word: bit (t-1) per enabled tier t, plus FLAG_FAIL_CLOSED_OFF when fail-closed is off. */
export function tierFlags(tiers: readonly (TierName | Tier)[], failClosed: boolean): number {
  let flags = ALWAYS_ON;
  for (const t of tiers) {
    const tier = typeof t === "number" ? t : TIER_BY_NAME[t];
    if (tier >= Tier.T1 && tier <= Tier.T5) flags |= 1 << (tier - 1);
  }
  if (!failClosed) flags |= FLAG_FAIL_CLOSED_OFF;
  return flags;
}
