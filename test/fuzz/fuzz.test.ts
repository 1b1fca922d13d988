// The fuzz targets (test/fuzz/targets) with fixed seeds and a few thousand cases each, so every CI run
// checks the same cases; `npm run fuzz` runs the same properties for ≥ 1,000,000 cases.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CI_SEED } from "./support.js";
import { TARGETS } from "./targets/index.js";

describe("fuzz targets (fixed seed)", () => {
  it("are the five of the first issue, the lifecycle's three, the log-tampering and Worker-batch targets, the MCP gateway's interleavings and the adapters' tool call ids", () => {
    expect(TARGETS.map((t) => t.name)).toEqual(["compiler", "blob", "guard-args", "projection", "consent", "guard-parallel", "guard-results", "consent-timing", "audit-tamper", "worker-batch", "mcp-interleavings", "adapter-ids"]);
  });

  for (const t of TARGETS) {
    it(`${t.name}: ${t.claim}`, async () => {
      const details = await fc.check(t.property(), { seed: CI_SEED, numRuns: t.ciRuns });
      if (details.failed) {
        throw new Error(`${t.name} failed after ${details.numRuns} cases (seed ${CI_SEED}, path ${details.counterexamplePath}): ${String(details.errorInstance)}\ncounterexample: ${fc.stringify(details.counterexample).slice(0, 2000)}`);
      }
      expect(details.numRuns).toBe(t.ciRuns);
    });
  }
});
