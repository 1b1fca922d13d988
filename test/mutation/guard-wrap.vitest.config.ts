import { mutationVitestConfig } from "./base.js";

// src/guard/wrap.ts (wrapTools: a guard in front of a map of tool functions): its own suite, the
// arguments that change after the check, and the guard's suites that go through wrapTools.
export default mutationVitestConfig([
  "test/guard/wrap.test.ts",
  "test/fuzz/guard-wrap.test.ts",
  "test/guard/session.test.ts",
  "test/guard/lifecycle.test.ts",
]);
