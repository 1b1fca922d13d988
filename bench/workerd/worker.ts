// A minimal Worker for the workerd cold-start measurement: the core arrives as an imported wasm
// module (Workers refuse to compile bytes at run time), the compiled ontology as a data module. The
// first request instantiates the core, validates and loads the blob, and answers one verdict; later
// requests reuse them, so (first − later) response time ≈ instantiate + load + first verdict.
import wasm from "./polar-core.wasm";
import blobData from "./airline.blob";
import { instantiateCoreSync } from "../../src/core/wasm.js";
import { decodeBlob } from "../../src/blob/index.js";
import { createVerifier, type Verifier } from "../../src/core/verifier.js";
import { LayerB } from "../../src/projection/layer-b.js";

let verifier: Verifier | null = null;
const state = new LayerB();
for (const [slot, value] of Object.entries({ user_id: "u1", cabin: "economy", status: null, flown: false, nonfree_baggages: 1, total_baggages: 1 })) state.set("reservation", "R1", slot, value);
const call = { name: "update_reservation_baggages", arguments: { reservation_id: "R1", total_baggages: 2, nonfree_baggages: 1, payment_id: "credit_card_1" } };

export default {
  fetch(): Response {
    const cold = verifier === null;
    if (verifier === null) {
      const blob = new Uint8Array(blobData as ArrayBuffer);
      verifier = createVerifier(decodeBlob(blob), instantiateCoreSync(wasm as WebAssembly.Module).load(blob), { now: "2024-05-15T15:00:00" });
    }
    const v = verifier.verdict([call], state);
    return new Response(JSON.stringify({ cold, reason: v.reason, phi: v.phi }), { headers: { "content-type": "application/json" } });
  },
};
