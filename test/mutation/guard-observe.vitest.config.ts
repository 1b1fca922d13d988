import { mutationVitestConfig } from "./base.js";

// src/guard/observe.ts (an executed call fed back): matching, projection, unknown outcomes, the sequence.
export default mutationVitestConfig([
  "test/guard/observe.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/outcome-unknown.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/caller-objects.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/lifecycle-states.test.ts",
  "test/guard/session.test.ts",
  "test/guard/execution-ids.test.ts",
  "test/guard/snapshot.test.ts",
]);
