import { mutationVitestConfig } from "./base.js";
import { GUARD_TESTS } from "./guard-tests.js";

// src/guard/evaluate.ts (one verdict, the policy, the record's fields): its own suites first, then every
// guard suite (every check goes through it).
export default mutationVitestConfig([...new Set([
  "test/guard/evaluate-*.test.ts",
  "test/guard/amount-limit.test.ts",
  "test/guard/read-once.test.ts",
  ...GUARD_TESTS,
])]);
