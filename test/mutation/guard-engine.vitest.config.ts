import { mutationVitestConfig } from "./base.js";

// src/guard/engine.ts (the verifier over a backend, rebuilt after a trap): createGuard's backends and the trap tests.
export default mutationVitestConfig([
  "test/guard/engine.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/session.test.ts",
]);
