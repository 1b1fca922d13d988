import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/guard/config.ts.
export default mutationVitestConfig([
  "test/guard/guard.test.ts",
  "test/guard/session.test.ts",
  "test/guard/config-*.test.ts",
]);
