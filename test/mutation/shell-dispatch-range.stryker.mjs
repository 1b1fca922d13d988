// A Stryker config for src/shell/dispatch.ts over a range of lines, for a machine where the whole
// module does not fit (docs/testing.md, "The shell guard"): `shell-dispatch`'s options from
// scripts/mutate.ts with `mutate` set to the range in $RANGE, e.g.
//   RANGE='src/shell/dispatch.ts:89-303' nice -n 10 npx stryker run test/mutation/shell-dispatch-range.stryker.mjs
import base from "../../stryker.config.mjs";

export default {
  ...base,
  // One range or several, comma-separated (`src/shell/dispatch.ts:93-93,src/shell/dispatch.ts:101-106`).
  mutate: (process.env.RANGE ?? "src/shell/dispatch.ts").split(","),
  vitest: { configFile: "test/mutation/shell-dispatch.vitest.config.ts" },
  incrementalFile: "reports/mutation/shell-dispatch/incremental.json",
  htmlReporter: { fileName: "reports/mutation/shell-dispatch/index.html" },
  jsonReporter: { fileName: "reports/mutation/shell-dispatch/mutation.json" },
  timeoutMS: 30000,
  ignoreStatic: true,
};
