import { mutationVitestConfig } from "./base.js";
import { GUARD_TESTS } from "./guard-tests.js";

// src/guard/lifecycle.ts (executions, the session's and the turn's forward sequences): its own suites
// first, then every guard suite.
export default mutationVitestConfig([...new Set([
  "test/guard/lifecycle-*.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/execution-ids.test.ts",
  "test/guard/own-executed.test.ts",
  "test/guard/session.test.ts",
  "test/guard/snapshot.test.ts",
  "test/guard/snapshot-history.test.ts",
  ...GUARD_TESTS,
])]);
