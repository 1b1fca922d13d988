// `npm test` on a machine without τ²-bench's data or Python says why those suites were skipped: each
// skipped suite or test is listed by name with its reason on the run's output (test/skip.ts), not
// only counted. Runs vitest on two of them with the data and the code pointed at folders that do not
// exist (and the CI switches that would make a missing one fail turned off).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skipLine } from "../skip.js";
import { REPO_ROOT } from "./data-dir.js";

describe("skipped τ²-bench suites say why", () => {
  it("the run's output names each skipped suite or test with its reason", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, POLAR_TAU2_DIR: "/nonexistent-tau2", POLAR_TAU2_SRC: "/nonexistent-tau2-src", NO_COLOR: "1" };
    delete env.POLAR_REQUIRE_TAU2;
    delete env.POLAR_REQUIRE_PYTHON;
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    delete env.VITEST_POOL_ID;
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "node_modules/vitest/vitest.mjs"), "run", "test/tau2/bridge.test.ts", "test/tau2/demo.test.ts", "-t", "environment bridge|decides exactly as on the full"],
      { cwd: REPO_ROOT, env, encoding: "utf8", timeout: 120_000 },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toContain(skipLine("decides exactly as on the full τ²-bench airline db (the excerpt holds everything the runs read)", "needs τ²-bench data: not found at /nonexistent-tau2; set POLAR_TAU2_DIR"));
    expect(out).toContain(skipLine("the τ²-bench environment bridge", "needs Python and τ²-bench's code: τ²-bench's code not found at /nonexistent-tau2-src (POLAR_TAU2_SRC)"));
  });
});
