import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/guard/reads.ts.
export default mutationVitestConfig([
  "test/guard/guard.test.ts",
  "test/guard/fast-path.test.ts",
  "test/guard/reads-*.test.ts",
  "test/audit/verify-tampering.test.ts",
]);
