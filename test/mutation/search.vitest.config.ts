import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/reference/search.ts.
export default mutationVitestConfig([
  "test/reference/reference.test.ts",
  "test/reference/branch-and-bound.test.ts",
  "test/reference/search-*.test.ts",
  "test/differential/wasm-vs-reference.test.ts",
]);
