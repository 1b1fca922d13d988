// How Node obtains the core and the ontology: files (or a URL) read with node:fs.
import * as crypto from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { instantiateCore, instantiateCoreSync } from "../core/wasm.js";
import { RuntimeError, fetchOk, toBytes, type Platform } from "../loading/shared.js";
import type { Sha256 } from "../blob/decode.js";

// dist/ (entries and chunks), dist/cli/ (the CLI), then src/runtimes/ run from source (tests).
const CORE_FILES = ["./polar-core.wasm", "../polar-core.wasm", "../../build/polar-core.wasm"];

function packagedCore(): Uint8Array {
  for (const rel of CORE_FILES) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) return readFileSync(url);
  }
  throw new RuntimeError("core-unavailable", "the packaged core `polar-core.wasm` was not found next to the entry", "run `npm run build`, or pass `wasm`");
}

// Synchronous reads and compilation: the core (~5 KB) and a blob are small, and a cold process starts
// faster without a round trip through the thread pool and a background compile (bench: cold-node).
function readPath(path: string | URL, what: "core" | "ontology"): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = what === "core" ? "core-unavailable" : "ontology-unreadable";
    throw new RuntimeError(code, `cannot read the ${what} \`${String(path)}\`: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

/** Node's native SHA-256, synchronous: the one-shot `crypto.hash` (Node ≥ 20.12), which skips the
 * Hash object (its first use costs a cold start ~0.15 ms more), else `createHash`. */
export const nodeSha256: Sha256 = (data) => {
  if (typeof crypto.hash === "function") {
    const d: unknown = crypto.hash("sha256", data, "buffer");
    if (d instanceof Uint8Array) return d;
  }
  return crypto.createHash("sha256").update(data).digest();
};

export const nodePlatform: Platform = {
  name: "node",
  // Node's SHA-256 is synchronous and native: it checks a blob's digest several times faster at load.
  sha256: nodeSha256,
  async core(wasm, options) {
    if (wasm === undefined) return instantiateCoreSync(packagedCore(), options);
    if (typeof wasm === "string" || wasm instanceof URL) return instantiateCoreSync(readPath(wasm, "core"), options);
    if (wasm instanceof WebAssembly.Module || ArrayBuffer.isView(wasm) || wasm instanceof ArrayBuffer) return instantiateCoreSync(wasm, options);
    return instantiateCore(wasm, options);
  },
  async ontology({ ontologyPath, ontologyUrl }) {
    if (ontologyPath !== undefined) return readPath(ontologyPath, "ontology");
    const url = new URL(String(ontologyUrl));
    if (url.protocol === "file:") return readPath(url, "ontology");
    return toBytes(await (await fetchOk(url, "ontology")).arrayBuffer());
  },
};
