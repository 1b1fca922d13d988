import { mutationVitestConfig } from "./base.js";

// src/guard/context.ts (the caller's context read as data): the guard's suites that pass contexts, good and hostile.
export default mutationVitestConfig([
  "test/guard/context.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/session.test.ts",
  "test/guard/caller-objects.test.ts",
]);
