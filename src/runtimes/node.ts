// Node entry (`polar-guard` under the "node" condition, or `polar-guard/node`): the core and the
// compiled ontology are read from files (node-platform.ts). Everything else is the neutral API.
import type { CoreInstance, CoreOptions } from "../core/wasm.js";
import type { Verifier } from "../core/verifier.js";
import type { Guard } from "../guard/index.js";
import { nodePlatform as node } from "./node-platform.js";
import { loadGuardOn, loadVerifierOn, type LoadGuardOptions, type LoadVerifierOptions, type WasmSource } from "../loading/shared.js";

export * from "../index.js";

/** A new core instance (one per loaded ontology: a later load replaces a core's blob). */
export const loadCore = (wasm?: WasmSource, options?: CoreOptions): Promise<CoreInstance> => node.core(wasm, options);
export const loadVerifier = (options: LoadVerifierOptions): Promise<Verifier> => loadVerifierOn(node, options);
export const loadGuard = (options: LoadGuardOptions): Promise<Guard> => loadGuardOn(node, options);
