// Cloudflare Workers entry (the "workerd"/"worker" conditions, or `polar-guard/workerd`). workerd
// refuses to compile WebAssembly from bytes at run time, so the core is imported as a module, which
// wrangler uploads beside the Worker; the user imports their ontology blob as a Data module
// (an ArrayBuffer) and passes it as `blob`.
import coreModule from "./polar-core.wasm";
import { instantiateCoreSync, type CoreInstance } from "../core/wasm.js";
import type { Verifier } from "../core/verifier.js";
import type { Guard } from "../guard/index.js";
import {
  RuntimeError, fetchOk, loadGuardOn, loadVerifierOn, toBytes,
  type LoadGuardOptions, type LoadVerifierOptions, type Platform, type WasmSource,
} from "./shared.js";

export * from "../index.js";

const workerd: Platform = {
  name: "workerd",
  async core(wasm) {
    if (wasm === undefined) return instantiateCoreSync(coreModule);
    if (wasm instanceof WebAssembly.Module) return instantiateCoreSync(wasm);
    throw new RuntimeError("unsupported-source", "workerd runs only a WebAssembly.Module imported from a .wasm file as `wasm`", "import the core with `import core from \"polar-guard/polar-core.wasm\"` or omit `wasm`");
  },
  async ontology({ ontologyPath, ontologyUrl }) {
    if (ontologyPath !== undefined) {
      throw new RuntimeError("unsupported-source", "`ontologyPath` needs a file system: Workers have none", "import the blob as a Data module and pass it as `blob`");
    }
    return toBytes(await (await fetchOk(ontologyUrl as string | URL, "ontology")).arrayBuffer());
  },
};

export const loadCore = (wasm?: WasmSource): Promise<CoreInstance> => workerd.core(wasm);
export const loadVerifier = (options: LoadVerifierOptions): Promise<Verifier> => loadVerifierOn(workerd, options);
export const loadGuard = (options: LoadGuardOptions): Promise<Guard> => loadGuardOn(workerd, options);
