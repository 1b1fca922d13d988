import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/audit/verify.ts.
export default mutationVitestConfig([
  "test/audit/verify-*.test.ts",
]);
