import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/reference/search.ts: the reference on its own, the named
// search cases on all three backends (test/core), and the cases the generators never make. Not the
// 10,000-case differential run or the branch-and-bound comparison: a minute per mutant.
export default mutationVitestConfig([
  "test/reference/reference.test.ts",
  "test/reference/search-*.test.ts",
  "test/core/search.test.ts",
]);
