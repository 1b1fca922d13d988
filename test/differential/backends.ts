// The two backends under comparison, built over the same blob: the WebAssembly core loads the encoded
// bytes, the reference reads the tables decodeBlob returns from those bytes (so the codec round trip is
// part of what agrees).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeBlob, encodeBlob } from "../../src/blob/index.js";
import type { SearchBackend } from "../../src/core/backend.js";
import { instantiateCoreSync, type CoreInstance } from "../../src/core/wasm.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { createReferenceBackend } from "../../src/reference/index.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The release core from `npm run build:wasm` (build/polar-core.wasm), compiled once. */
export function loadCore(file = "build/polar-core.wasm"): CoreInstance {
  return instantiateCoreSync(new WebAssembly.Module(readFileSync(resolve(ROOT, file))));
}

export interface Pair {
  wasm: SearchBackend;
  reference: SearchBackend;
  tables: OntologyTables;
}

export function pairFor(core: CoreInstance, tables: OntologyTables): Pair {
  const blob = encodeBlob(tables);
  const decoded = decodeBlob(blob);
  return { wasm: core.load(blob), reference: createReferenceBackend(decoded), tables: decoded };
}
