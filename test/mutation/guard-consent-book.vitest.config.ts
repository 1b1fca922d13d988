import { mutationVitestConfig } from "./base.js";

// src/guard/consent-book.ts (which user messages answer which question): consent through the guard, its snapshots and the replays of consent runs.
export default mutationVitestConfig([
  "test/guard/consent-book.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/snapshot.test.ts",
  "test/policies/*.test.ts",
]);
