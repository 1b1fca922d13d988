import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/blob/decode.ts.
export default mutationVitestConfig([
  "test/blob/errors.test.ts",
  "test/blob/roundtrip.test.ts",
  "test/blob/fuzz.test.ts",
]);
