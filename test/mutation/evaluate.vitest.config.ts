import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/guard/evaluate.ts.
export default mutationVitestConfig([
  "test/guard/guard.test.ts",
  "test/guard/session.test.ts",
  "test/guard/models.test.ts",
  "test/guard/fast-path.test.ts",
  "test/guard/evaluate-*.test.ts",
]);
