import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/projection/rules.ts.
export default mutationVitestConfig([
  "test/projection/rules.test.ts",
  "test/projection/rules-*.test.ts",
  "test/projection/interpret.test.ts",
]);
