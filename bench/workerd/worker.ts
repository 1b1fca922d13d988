// A minimal Worker for the workerd cold-start measurement: the core arrives as an imported wasm
// module (Workers refuse to compile bytes at run time), the compiled ontology as a data module. As the
// Worker example does, everything that is the same for every request is done at module scope (the
// isolate's startup budget): instantiate the core, validate and load the blob (its digests by
// WebCrypto), build the verifier.
// A request pays only for its verdict, so (first − later) response time is what a cold isolate still
// adds to its first request (the first run of the verdict's JavaScript).
import wasm from "./polar-core.wasm";
import blobData from "./airline.blob";
import { instantiateCoreSync } from "../../src/core/wasm.js";
import { createVerifier } from "../../src/core/verifier.js";
import { prepareOntologyAsync } from "../../src/ontology/prepared.js";
import { LayerB } from "../../src/projection/layer-b.js";

// WebCrypto takes the blob's digests (awaited at module scope; workerd allows it there).
const ontology = await prepareOntologyAsync(blobData as ArrayBuffer);
const verifier = createVerifier(ontology.tables, instantiateCoreSync(wasm as WebAssembly.Module).load(ontology.blob), { now: "2024-05-15T15:00:00" });
const state = new LayerB();
for (const [slot, value] of Object.entries({ user_id: "u1", cabin: "economy", status: null, flown: false, nonfree_baggages: 1, total_baggages: 1 })) state.set("reservation", "R1", slot, value);
const call = { name: "update_reservation_baggages", arguments: { reservation_id: "R1", total_baggages: 2, nonfree_baggages: 1, payment_id: "credit_card_1" } };
let served = 0;

export default {
  fetch(): Response {
    const cold = served++ === 0;
    const v = verifier.verdict([call], state);
    return new Response(JSON.stringify({ cold, reason: v.reason, phi: v.phi }), { headers: { "content-type": "application/json" } });
  },
};
