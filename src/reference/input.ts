// Decoding the ABI input record for the reference search. Deliberately independent of
// src/core/record.ts: the reference reads the bytes itself, straight from the offsets in src/abi.ts,
// so a mistake in the shared record codec cannot hide behind agreeing backends.
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
  MAX_CALLS,
  MAX_OPERANDS,
  OPERAND_VALUE_SIZE,
  ValueTag,
} from "../abi.js";
import type { OntologyTables } from "../ontology/tables.js";

/** A tagged value as bound programs see it (docs/semantics.md, "Bound programs"). */
export interface Value {
  tag: ValueTag;
  value: bigint;
}

export interface InputCall {
  tool: number; // -1: unknown to the ontology
  grounded: boolean;
  targetKey: number;
  operandStart: number;
}

export interface Input {
  tau: number;
  enabledTiers: number; // the IN_FLAGS word; bit (t-1) enables tier t
  failClosed: boolean;
  maxNodes: number;
  now: bigint;
  maxDepth: number;
  calls: InputCall[]; // forward order, the last one is the candidate
  operands: Value[];
}

const LE = true;

/** The decoded record, or null when a count, tool or operand range is out of bounds
 * (docs/semantics.md, "Status": `bad_input`). */
export function decodeInput(view: DataView, tables: OntologyTables): Input | null {
  const nCalls = view.getUint32(IN_N_CALLS, LE);
  const nOperands = view.getUint32(IN_N_OPERANDS, LE);
  if (nCalls > MAX_CALLS || nOperands > MAX_OPERANDS) return null;

  const operands: Value[] = [];
  for (let i = 0; i < nOperands; i++) {
    const at = IN_OPERANDS + i * OPERAND_VALUE_SIZE;
    const tag = view.getInt32(at, LE);
    if (tag < ValueTag.Missing || tag > ValueTag.String) return null;
    operands.push({ tag, value: view.getBigInt64(at + 8, LE) });
  }

  const calls: InputCall[] = [];
  for (let i = 0; i < nCalls; i++) {
    const at = IN_CALLS + i * CALL_SIZE;
    const call: InputCall = {
      tool: view.getInt32(at + CALL_TOOL, LE),
      grounded: view.getUint32(at + CALL_GROUNDED, LE) !== 0,
      targetKey: view.getInt32(at + CALL_TARGET_KEY, LE),
      operandStart: view.getUint32(at + CALL_OPERAND_START, LE),
    };
    if (!callInRange(call, tables, nOperands)) return null;
    calls.push(call);
  }

  const flags = view.getUint32(IN_FLAGS, LE);
  return {
    tau: view.getInt32(IN_TAU, LE),
    enabledTiers: flags,
    failClosed: (flags & FLAG_FAIL_CLOSED_OFF) === 0,
    maxNodes: view.getUint32(IN_MAX_NODES, LE),
    now: view.getBigInt64(IN_NOW, LE),
    maxDepth: view.getUint32(IN_MAX_DEPTH, LE),
    calls,
    operands,
  };
}

/** A call names a tool of the ontology (or -1) and its tool's operands lie inside the operand array. */
function callInRange(call: InputCall, tables: OntologyTables, nOperands: number): boolean {
  if (call.tool === -1) return true;
  if (call.tool < -1 || call.tool >= tables.tools.length) return false;
  const needed = tables.tools[call.tool].operands.length;
  return call.operandStart + needed <= nOperands;
}
