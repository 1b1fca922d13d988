// Cloudflare Workers entry (the "workerd"/"worker" conditions, or `polar-guard/workerd`). The core is
// imported as a module, which wrangler uploads beside the Worker; the user imports their ontology blob
// as a Data module (an ArrayBuffer) and passes it as `blob`.
import coreModule from "./polar-core.wasm";
import type { CoreInstance, CoreOptions } from "../core/wasm.js";
import type { Verifier } from "../core/verifier.js";
import type { Guard } from "../guard/index.js";
import { loadGuardOn, loadVerifierOn, type LoadGuardOptions, type LoadVerifierOptions, type WasmSource } from "../loading/shared.js";
import { workerdPlatform } from "./workerd-platform.js";

export * from "../index.js";

const workerd = workerdPlatform(coreModule);

export const loadCore = (wasm?: WasmSource, options?: CoreOptions): Promise<CoreInstance> => workerd.core(wasm, options);
export const loadVerifier = (options: LoadVerifierOptions): Promise<Verifier> => loadVerifierOn(workerd, options);
export const loadGuard = (options: LoadGuardOptions): Promise<Guard> => loadGuardOn(workerd, options);
