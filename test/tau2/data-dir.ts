// Where the τ²-bench data lives for tests: POLAR_TAU2_DIR, else `../shared/tau2` from the repo root.
// CI always has it, so a missing folder is a failure with a clear message, never a skip.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export function tau2Dir(): string {
  const dir = resolve(REPO_ROOT, process.env.POLAR_TAU2_DIR ?? "../shared/tau2");
  if (!existsSync(resolve(dir, "domains"))) {
    throw new Error(
      `τ²-bench data not found at ${dir}: set POLAR_TAU2_DIR to a folder laid out like ../shared/tau2 (domains/, results/)`,
    );
  }
  return dir;
}
