import { mutationVitestConfig } from "./base.js";

// src/guard/evaluate.ts (one verdict, the policy, the record's fields): its own suites (the gate, the
// grounding check, the intent parser's targets), the score rule (amount-limit) and the consent context
// through createGuard, and the guard suites that state what a check answers (guard, guard-api, models,
// fast-path, hostile). Not every guard suite: every check goes through this module, so each surviving
// mutant would rerun all of them (the reads run with every suite was estimated at an hour on 6 Dec).
export default mutationVitestConfig([
  "test/guard/evaluate-*.test.ts",
  "test/guard/amount-limit.test.ts",
  "test/guard/consent-context.test.ts",
  "test/guard/read-once.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/models.test.ts",
  "test/guard/fast-path.test.ts",
  "test/guard/hostile.test.ts",
]);
