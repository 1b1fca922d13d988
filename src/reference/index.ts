// The plain TypeScript reference backend: the oracle the WebAssembly core is held to, bit for bit, by
// the conformance corpus and the differential tests. It reads the same input record bytes as the core,
// runs docs/semantics.md's search (./search.ts) and writes the same output record bytes.
import {
  INPUT_SIZE,
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
  STEP_CALL,
  STEP_EDGE,
  STEP_LOSS,
  STEP_PHI,
  STEP_SIZE,
  Status,
} from "../abi.js";
import type { SearchBackend } from "../core/backend.js";
import type { OntologyTables } from "../ontology/tables.js";
import { decodeInput } from "./input.js";
import { search, type Outcome } from "./search.js";

export { decodeInput } from "./input.js";
export { search } from "./search.js";

const LE = true;

function writeOutcome(out: DataView, o: Outcome): void {
  out.setInt32(OUT_STATUS, Status.Ok, LE);
  out.setInt32(OUT_REASON, o.reason, LE);
  out.setInt32(OUT_COMPLETE, o.complete ? 1 : 0, LE);
  out.setInt32(OUT_PHI, o.phi, LE);
  out.setInt32(OUT_LOSS, o.loss, LE);
  out.setInt32(OUT_B_CALL, o.bottleneckCall, LE);
  out.setInt32(OUT_B_EDGE, o.bottleneckEdge, LE);
  out.setInt32(OUT_B_TOOL, o.bottleneckTool, LE);
  out.setUint32(OUT_N_STEPS, o.steps.length, LE);
  out.setUint32(OUT_NODES, o.nodes, LE);
  o.steps.forEach((s, k) => {
    const at = OUT_STEPS + k * STEP_SIZE;
    out.setInt32(at + STEP_CALL, s.call, LE);
    out.setInt32(at + STEP_EDGE, s.edge, LE);
    out.setInt32(at + STEP_PHI, s.phi, LE);
    out.setInt32(at + STEP_LOSS, s.loss, LE);
    out.setInt32(at + STEP_AMOUNT_STATE, o.amounts[k].state, LE);
    out.setBigInt64(at + STEP_AMOUNT, o.amounts[k].value, LE);
  });
  out.setInt32(OUT_AMOUNT_STATE, o.amountState, LE);
  out.setBigInt64(OUT_AMOUNT, o.amount, LE);
}

export function createReferenceBackend(tables: OntologyTables): SearchBackend {
  const input = new DataView(new ArrayBuffer(INPUT_SIZE));
  const output = new DataView(new ArrayBuffer(OUTPUT_SIZE));
  const clear = new Uint8Array(output.buffer);
  // The core could not answer: the status, every other field zero.
  function failed(status: Status): DataView {
    clear.fill(0);
    output.setInt32(OUT_STATUS, status, LE);
    return output;
  }
  return {
    kind: "reference",
    inputView: () => input,
    run(): DataView {
      clear.fill(0);
      let decoded;
      try {
        decoded = decodeInput(input, tables);
      } catch {
        decoded = null;
      }
      if (decoded === null) return failed(Status.BadInput);
      try {
        writeOutcome(output, search(tables, decoded));
      } catch {
        return failed(Status.Internal);
      }
      return output;
    },
  };
}
