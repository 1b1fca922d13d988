import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/policies/consent.ts.
export default mutationVitestConfig([
  "test/policies/consent.test.ts",
  "test/policies/consent-*.test.ts",
]);
