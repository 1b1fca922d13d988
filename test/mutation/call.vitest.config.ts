import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/guard/call.ts.
export default mutationVitestConfig([
  "test/guard/guard.test.ts",
  "test/guard/call-*.test.ts",
  "test/guard/shared-frozen.test.ts",
  "test/fuzz/guard-copy.test.ts",
]);
