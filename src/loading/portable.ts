// The portable loaders of the neutral entry (runtimes without a specific condition, e.g. Deno or Bun):
// the core is fetched from beside the entry unless the caller passes `wasm`.
import type { CoreInstance, CoreOptions } from "../core/wasm.js";
import type { Verifier } from "../core/verifier.js";
import type { Guard } from "../guard/index.js";
import { loadGuardOn, loadVerifierOn, type LoadGuardOptions, type LoadVerifierOptions, type WasmSource } from "./shared.js";
import { webPlatform } from "./web.js";

const portable = webPlatform("default", () => new URL("./polar-core.wasm", import.meta.url));

/** A new core instance (one per loaded ontology: a later load replaces a core's blob). */
export const loadCore = (wasm?: WasmSource, options?: CoreOptions): Promise<CoreInstance> => portable.core(wasm, options);
export const loadVerifier = (options: LoadVerifierOptions): Promise<Verifier> => loadVerifierOn(portable, options);
export const loadGuard = (options: LoadGuardOptions): Promise<Guard> => loadGuardOn(portable, options);
