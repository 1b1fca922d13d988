// Node entry (`polar-guard` under the "node" condition, or `polar-guard/node`): the core and the
// compiled ontology are read from files. Everything else is the neutral API of ../index.ts.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { instantiateCore, type CoreInstance } from "../core/wasm.js";
import type { Verifier } from "../core/verifier.js";
import type { Guard } from "../guard/index.js";
import {
  RuntimeError, loadGuardOn, loadVerifierOn, toBytes, fetchOk,
  type LoadGuardOptions, type LoadVerifierOptions, type Platform, type WasmSource,
} from "./shared.js";

export * from "../index.js";

// dist/ (entries and chunks), dist/cli/ (the CLI), then src/runtimes/ run from source (tests).
const CORE_FILES = ["./polar-core.wasm", "../polar-core.wasm", "../../build/polar-core.wasm"];

async function packagedCore(): Promise<Uint8Array> {
  for (const rel of CORE_FILES) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) return readFile(url);
  }
  throw new RuntimeError("core-unavailable", "the packaged core `polar-core.wasm` was not found next to the entry", "run `npm run build`, or pass `wasm`");
}

async function readPath(path: string | URL): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new RuntimeError("ontology-unreadable", `cannot read the ontology \`${String(path)}\`: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

const node: Platform = {
  name: "node",
  async core(wasm) {
    if (wasm === undefined) return instantiateCore(await packagedCore());
    if (typeof wasm === "string" || wasm instanceof URL) return instantiateCore(await readPath(wasm));
    return instantiateCore(wasm);
  },
  async ontology({ ontologyPath, ontologyUrl }) {
    if (ontologyPath !== undefined) return readPath(ontologyPath);
    const url = new URL(String(ontologyUrl));
    if (url.protocol === "file:") return readPath(url);
    return toBytes(await (await fetchOk(url, "ontology")).arrayBuffer());
  },
};

/** A new core instance (one per loaded ontology: a later load replaces a core's blob). */
export const loadCore = (wasm?: WasmSource): Promise<CoreInstance> => node.core(wasm);
export const loadVerifier = (options: LoadVerifierOptions): Promise<Verifier> => loadVerifierOn(node, options);
export const loadGuard = (options: LoadGuardOptions): Promise<Guard> => loadGuardOn(node, options);
