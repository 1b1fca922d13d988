import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/projection/rules.ts: the validator's issues and what a
// valid document compiles to. (The interpreter's tests parse rules at import, which would make every
// mutant "static" and run all of them; CI runs this module, so it stays fast.)
export default mutationVitestConfig([
  "test/projection/rules.test.ts",
  "test/projection/rules-*.test.ts",
]);
