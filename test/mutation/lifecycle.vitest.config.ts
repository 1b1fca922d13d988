import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/guard/lifecycle.ts: the state machine on its own, and the
// guard's executions, barriers and bounds built on it.
export default mutationVitestConfig([
  "test/guard/lifecycle-*.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/execution-ids.test.ts",
  "test/guard/session.test.ts",
  "test/guard/guard.test.ts",
  // exportState / restoreState: the resumed guard answers as the original (property and fixed sessions).
  "test/guard/snapshot.test.ts",
]);
