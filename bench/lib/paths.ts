// Where things are. The variants run from source (tsx) or from a bundle in bench/out/; both sit two
// folders below the repository root, so the root is found the same way from either.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = process.env.POLAR_BENCH_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** τ²-bench data: POLAR_TAU2_DIR, else `../shared/tau2` from the repository root. */
export const TAU2_DIR = resolve(ROOT, process.env.POLAR_TAU2_DIR ?? "../shared/tau2");

/** The vendored excerpt used when the full data is absent (samples/tau2-airline). */
export const SAMPLE_DIR = join(ROOT, "samples", "tau2-airline");

export const WASM_PATH = join(ROOT, "build", "polar-core.wasm");

export function airlineDbPath(): { path: string; source: "tau2" | "sample" } {
  const full = join(TAU2_DIR, "domains", "airline", "db.json");
  if (existsSync(full)) return { path: full, source: "tau2" };
  return { path: join(SAMPLE_DIR, "domains", "airline", "db.json"), source: "sample" };
}
