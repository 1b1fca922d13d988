// Where tests find Python and τ²-bench's environment code (../shared/tau2-bench/src, or
// POLAR_TAU2_SRC). Suites that need them are skipped by name, with the reason in the title, when either
// is absent; CI sets POLAR_REQUIRE_PYTHON=1 and then a missing one fails the run instead.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe } from "vitest";
import { skipByName } from "../skip.js";
import { HAS_TAU2, REPO_ROOT } from "./data-dir.js";

export const TAU2_SRC = resolve(REPO_ROOT, process.env.POLAR_TAU2_SRC ?? "../shared/tau2-bench/src");
const PYTHON = process.env.POLAR_PYTHON ?? "python3";

function probe(): string | null {
  if (!existsSync(resolve(TAU2_SRC, "tau2", "environment", "environment.py"))) return `τ²-bench's code not found at ${TAU2_SRC} (POLAR_TAU2_SRC)`;
  const r = spawnSync(PYTHON, ["-c", "import pydantic, loguru, docstring_parser, deepdiff, toml"], { encoding: "utf8" });
  if (r.error) return `python \`${PYTHON}\` not found (POLAR_PYTHON)`;
  if (r.status !== 0) return "python lacks τ²-bench's dependencies (pip install loguru docstring_parser deepdiff toml)";
  if (!HAS_TAU2) return "τ²-bench data not found (POLAR_TAU2_DIR)";
  return null;
}

export const PYTHON_MISSING = probe();
export const HAS_PYTHON = PYTHON_MISSING === null;
if (!HAS_PYTHON && process.env.POLAR_REQUIRE_PYTHON === "1") throw new Error(PYTHON_MISSING!);

/** A suite that runs τ²-bench's environment through the bridge: skipped by name without it. */
export function describePython(name: string, fn: () => void): void {
  if (HAS_PYTHON) describe(name, fn);
  else skipByName(name, `needs Python and τ²-bench's code: ${PYTHON_MISSING}`);
}
