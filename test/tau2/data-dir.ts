// Where the full τ²-bench data lives for tests: POLAR_TAU2_DIR, else `../shared/tau2` from the repo root.
// The tests that read it run wherever it exists. On a machine without it (a fresh clone: the README's
// `npm test` must pass there) they are reported as skipped, by name, with the reason in the title and
// on the run's output (../skip.ts) — never silently. CI sets POLAR_REQUIRE_TAU2=1, and then a missing folder fails the run instead.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";
import { skipByName } from "../skip.js";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const TAU2_DIR = resolve(REPO_ROOT, process.env.POLAR_TAU2_DIR ?? "../shared/tau2");
export const HAS_TAU2 = existsSync(resolve(TAU2_DIR, "domains"));

const MISSING = `τ²-bench data not found at ${TAU2_DIR}: set POLAR_TAU2_DIR to a folder laid out like ../shared/tau2 (domains/, tools/, results/)`;
if (!HAS_TAU2 && process.env.POLAR_REQUIRE_TAU2 === "1") throw new Error(MISSING);

export function tau2Dir(): string {
  if (!HAS_TAU2) throw new Error(MISSING);
  return TAU2_DIR;
}

const NOTE = `needs τ²-bench data: not found at ${TAU2_DIR}; set POLAR_TAU2_DIR`;
type Fn = () => void | Promise<void>;

/** A suite that reads the full τ²-bench data: skipped, by name, when the data is absent. */
export function describeTau2(name: string, fn: Fn): void {
  if (HAS_TAU2) describe(name, fn);
  // The suite's body may read the data while collecting its tests, so it is not even collected: one
  // skipped entry stands for it in the report.
  else skipByName(name, NOTE);
}

/** A test that reads the full τ²-bench data: skipped, by name, when the data is absent. */
export function itTau2(name: string, fn: Fn, timeout?: number): void {
  if (HAS_TAU2) it(name, fn, timeout);
  else skipByName(name, NOTE, fn, timeout);
}
