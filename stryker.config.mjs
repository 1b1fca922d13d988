// StrykerJS mutation testing (npm run mutate, scripts/mutate.ts). The script runs one module at a time
// and sets `mutate`, the vitest config that narrows the tests to the ones covering that module, and the
// report and incremental files; this file holds what every module's run shares.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  // Run only the tests that reach a mutant, not the whole narrowed set.
  coverageAnalysis: "perTest",
  // The machine is shared: one test-runner process.
  concurrency: 1,
  // Re-runs redo only mutants whose code or covering tests changed (the file lives in reports/mutation/).
  incremental: true,
  timeoutMS: 10000,
  timeoutFactor: 2,
  reporters: ["html", "json", "progress"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // The sandbox needs the sources, tests and built wasm; not old reports or bench output.
  ignorePatterns: ["reports", "bench/out", "test-results", ".wrangler", "dist"],
  thresholds: { high: 90, low: 80, break: null },
};
