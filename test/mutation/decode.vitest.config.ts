import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/blob/decode.ts. Not roundtrip.test.ts and fuzz.test.ts:
// their 10,000-tool and random-flip tests take seconds and reach every mutant, so a run would take
// hours on a shared machine; the error table and the decode-* tests name each check instead.
export default mutationVitestConfig([
  "test/blob/errors.test.ts",
  "test/blob/decode-*.test.ts",
]);
