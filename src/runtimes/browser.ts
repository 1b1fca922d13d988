// Browser entry (the "browser" condition, or `polar-guard/browser`): the core is streamed from the
// polar-core.wasm next to this file (bundlers that understand `new URL(…, import.meta.url)` copy it),
// or from what the page passes as `wasm`; the ontology comes as bytes or is fetched from `ontologyUrl`.
import type { CoreInstance, CoreOptions } from "../core/wasm.js";
import type { Verifier } from "../core/verifier.js";
import type { Guard } from "../guard/index.js";
import { loadGuardOn, loadVerifierOn, type LoadGuardOptions, type LoadVerifierOptions, type WasmSource } from "../loading/shared.js";
import { webPlatform } from "../loading/web.js";

export * from "../index.js";

const browser = webPlatform("browser", () => new URL("./polar-core.wasm", import.meta.url));

export const loadCore = (wasm?: WasmSource, options?: CoreOptions): Promise<CoreInstance> => browser.core(wasm, options);
export const loadVerifier = (options: LoadVerifierOptions): Promise<Verifier> => loadVerifierOn(browser, options);
export const loadGuard = (options: LoadGuardOptions): Promise<Guard> => loadGuardOn(browser, options);
