// What a Node service imports to get a verdict: the core binding, the blob loader, the verifier and
// Layer B. Bundled (with bench/cold/guard.ts, shared code split into a chunk, like the package's dist/)
// and imported dynamically by bench/cold/node.ts so the import itself is timed.
export { instantiateCore, instantiateCoreSync } from "../../src/core/wasm.js";
export { decodeBlob } from "../../src/blob/index.js";
export { createVerifier } from "../../src/core/verifier.js";
export { LayerB } from "../../src/projection/layer-b.js";
