// How Node obtains the core and the ontology: files (or a URL) read with node:fs.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { instantiateCore } from "../core/wasm.js";
import { RuntimeError, fetchOk, toBytes, type Platform } from "../loading/shared.js";

// dist/ (entries and chunks), dist/cli/ (the CLI), then src/runtimes/ run from source (tests).
const CORE_FILES = ["./polar-core.wasm", "../polar-core.wasm", "../../build/polar-core.wasm"];

async function packagedCore(): Promise<Uint8Array> {
  for (const rel of CORE_FILES) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) return readFile(url);
  }
  throw new RuntimeError("core-unavailable", "the packaged core `polar-core.wasm` was not found next to the entry", "run `npm run build`, or pass `wasm`");
}

async function readPath(path: string | URL, what: "core" | "ontology"): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = what === "core" ? "core-unavailable" : "ontology-unreadable";
    throw new RuntimeError(code, `cannot read the ${what} \`${String(path)}\`: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

export const nodePlatform: Platform = {
  name: "node",
  // Node's SHA-256 is synchronous and native: it checks a blob's digest several times faster at load.
  sha256: (data) => createHash("sha256").update(data).digest(),
  async core(wasm, options) {
    if (wasm === undefined) return instantiateCore(await packagedCore(), options);
    if (typeof wasm === "string" || wasm instanceof URL) return instantiateCore(await readPath(wasm, "core"), options);
    return instantiateCore(wasm, options);
  },
  async ontology({ ontologyPath, ontologyUrl }) {
    if (ontologyPath !== undefined) return readPath(ontologyPath, "ontology");
    const url = new URL(String(ontologyUrl));
    if (url.protocol === "file:") return readPath(url, "ontology");
    return toBytes(await (await fetchOk(url, "ontology")).arrayBuffer());
  },
};
