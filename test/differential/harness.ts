// Shared by the differential test and scripts/differential.ts: write a generated record into a
// backend's input view, run it, and compare two backends' canonical output bytes.
import { OUT_STATUS, Status } from "../../src/abi.js";
import type { SearchBackend } from "../../src/core/backend.js";
import { outputBytes, writeCall, writeHeader, writeOperand } from "../../src/core/record.js";
import type { RecordSpec } from "./generators.js";

export function writeRecord(view: DataView, r: RecordSpec): void {
  writeHeader(view, { nCalls: r.nCalls, tau: r.tau, flags: r.flags, maxNodes: r.maxNodes, now: r.now, maxDepth: r.maxDepth, nOperands: r.nOperands });
  r.calls.forEach((c, i) => writeCall(view, i, c.tool, c.grounded, c.targetKey, c.operandStart));
  r.operands.forEach((o, i) => writeOperand(view, i, o.tag, o.value));
}

/** Runs the record on a backend and returns its canonical output bytes (a copy). */
export function runOn(backend: SearchBackend, r: RecordSpec): Uint8Array {
  writeRecord(backend.inputView(), r);
  return outputBytes(backend.run());
}

export function statusOf(bytes: Uint8Array): Status {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(OUT_STATUS, true);
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
