import { mutationVitestConfig } from "./base.js";

// src/guard/before.ts (the acts_on entity's slots before a call): the sequences and the caller's objects.
export default mutationVitestConfig([
  "test/guard/before.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/caller-objects.test.ts",
  "test/guard/session.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/snapshot.test.ts",
  "test/guard/guard.test.ts",
]);
