// A Stryker config for src/shell/dispatch.ts over a range of lines, for a machine where the whole
// module does not fit (docs/testing.md, "The shell guard"): `shell-dispatch`'s options from
// scripts/mutate.ts with `mutate` set to the range in $RANGE, e.g.
//   RANGE='src/shell/dispatch.ts:89-303' nice -n 10 npx stryker run test/mutation/shell-dispatch-range.stryker.mjs
// STATIC=1 keeps the range's static mutants (module-level constants, each of which reruns the whole
// set) instead of leaving them out, with its own report and incremental file: to measure what they cost.
import base from "../../stryker.config.mjs";

const dir = process.env.STATIC === "1" ? "reports/mutation/shell-dispatch/static" : "reports/mutation/shell-dispatch";

export default {
  ...base,
  // One range or several, comma-separated (`src/shell/dispatch.ts:93-93,src/shell/dispatch.ts:101-106`).
  mutate: (process.env.RANGE ?? "src/shell/dispatch.ts").split(","),
  vitest: { configFile: "test/mutation/shell-dispatch.vitest.config.ts" },
  incrementalFile: `${dir}/incremental.json`,
  htmlReporter: { fileName: `${dir}/index.html` },
  jsonReporter: { fileName: `${dir}/mutation.json` },
  timeoutMS: 30000,
  ignoreStatic: process.env.STATIC !== "1",
};
