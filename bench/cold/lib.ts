// What a Node service imports to get a verdict: the core binding, the blob loader, the verifier and
// Layer B (bundled into one ES module, like the package's dist/ entry). Imported dynamically by
// bench/cold/node.ts so the import itself is timed.
export { instantiateCore, instantiateCoreSync } from "../../src/core/wasm.js";
export { decodeBlob } from "../../src/blob/index.js";
export { createVerifier } from "../../src/core/verifier.js";
export { LayerB } from "../../src/projection/layer-b.js";
export { createGuard } from "../../src/guard/index.js";
