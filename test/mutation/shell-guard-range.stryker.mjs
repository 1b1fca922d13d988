// A Stryker config for src/shell/guard.ts over chosen lines (a re-run of the lines that held an
// undetected mutant or changed, docs/testing.md "The shell guard"): `shell-guard`'s options from
// scripts/mutate.ts with `mutate` set to the ranges in $RANGE, comma-separated, e.g.
//   RANGE='src/shell/guard.ts:352-352,src/shell/guard.ts:442-455' nice -n 10 npx stryker run test/mutation/shell-guard-range.stryker.mjs
import base from "../../stryker.config.mjs";

export default {
  ...base,
  mutate: (process.env.RANGE ?? "src/shell/guard.ts").split(","),
  vitest: { configFile: "test/mutation/shell-guard.vitest.config.ts" },
  incrementalFile: "reports/mutation/shell-guard/rerun/incremental.json",
  htmlReporter: { fileName: "reports/mutation/shell-guard/rerun/index.html" },
  jsonReporter: { fileName: "reports/mutation/shell-guard/rerun/mutation.json" },
  timeoutMS: 20000,
};
