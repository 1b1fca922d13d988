// Input records captured once from the verifier, replayed into a backend with the record codec. This
// is "the core alone": what remains of a verdict when the host has nothing left to resolve (record
// write + one search + reading φ and the reason back).
import {
  CALL_GROUNDED,
  CALL_OPERAND_START,
  CALL_SIZE,
  CALL_TARGET_KEY,
  CALL_TOOL,
  IN_CALLS,
  IN_FLAGS,
  IN_MAX_DEPTH,
  IN_MAX_NODES,
  IN_N_CALLS,
  IN_N_OPERANDS,
  IN_NOW,
  IN_OPERANDS,
  IN_TAU,
  OPERAND_VALUE_SIZE,
  OUT_PHI,
  OUT_REASON,
} from "../../src/abi.js";
import type { SearchBackend } from "../../src/core/backend.js";
import { writeCall, writeHeader, writeOperand, type InputHeader } from "../../src/core/record.js";
import type { ExecutedCall, StateView, VerdictOptions } from "../../src/core/types.js";
import { createVerifier } from "../../src/core/verifier.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { createReferenceBackend } from "../../src/reference/index.js";

export interface CapturedRecord {
  header: InputHeader;
  /** Per call: tool, grounded, target key, operand start. */
  calls: Int32Array;
  tags: Int32Array;
  values: BigInt64Array;
}

function read(view: DataView): CapturedRecord {
  const LE = true;
  const header: InputHeader = {
    nCalls: view.getUint32(IN_N_CALLS, LE),
    tau: view.getInt32(IN_TAU, LE),
    flags: view.getUint32(IN_FLAGS, LE),
    maxNodes: view.getUint32(IN_MAX_NODES, LE),
    now: view.getBigInt64(IN_NOW, LE),
    maxDepth: view.getUint32(IN_MAX_DEPTH, LE),
    nOperands: view.getUint32(IN_N_OPERANDS, LE),
  };
  const calls = new Int32Array(header.nCalls * 4);
  for (let i = 0; i < header.nCalls; i++) {
    const at = IN_CALLS + i * CALL_SIZE;
    calls[i * 4] = view.getInt32(at + CALL_TOOL, LE);
    calls[i * 4 + 1] = view.getUint32(at + CALL_GROUNDED, LE);
    calls[i * 4 + 2] = view.getInt32(at + CALL_TARGET_KEY, LE);
    calls[i * 4 + 3] = view.getUint32(at + CALL_OPERAND_START, LE);
  }
  const tags = new Int32Array(header.nOperands);
  const values = new BigInt64Array(header.nOperands);
  for (let k = 0; k < header.nOperands; k++) {
    const at = IN_OPERANDS + k * OPERAND_VALUE_SIZE;
    tags[k] = view.getInt32(at, LE);
    values[k] = view.getBigInt64(at + 8, LE);
  }
  return { header, calls, tags, values };
}

/** The input records the verifier writes for each sequence (captured through the reference backend). */
export function captureRecords(tables: OntologyTables, sequences: ExecutedCall[][], state: StateView, options: VerdictOptions): CapturedRecord[] {
  const ref = createReferenceBackend(tables);
  const out: CapturedRecord[] = [];
  const capture: SearchBackend = {
    kind: "reference",
    inputView: () => ref.inputView(),
    run() {
      out.push(read(ref.inputView()));
      return ref.run();
    },
  };
  const verifier = createVerifier(tables, capture, options);
  for (const s of sequences) verifier.verdict(s, state);
  if (out.length !== sequences.length) throw new Error("a sequence did not reach the backend (depth bound?)");
  return out;
}

/** Writes one captured record with the codec (as the verifier does), runs it, returns reason*2^24 ^ φ. */
export function replay(backend: SearchBackend, r: CapturedRecord): number {
  const view = backend.inputView();
  const n = r.header.nCalls;
  const c = r.calls;
  for (let i = 0; i < n; i++) writeCall(view, i, c[i * 4], c[i * 4 + 1], c[i * 4 + 2], c[i * 4 + 3]);
  const m = r.header.nOperands;
  for (let k = 0; k < m; k++) writeOperand(view, k, r.tags[k], r.values[k]);
  writeHeader(view, r.header);
  const out = backend.run();
  return (out.getInt32(OUT_REASON, true) << 24) ^ out.getInt32(OUT_PHI, true);
}
