import { mutationVitestConfig } from "./base.js";

// src/guard/lazy.ts (fields made on first read: a verdict record's bytes, an observed call's before):
// its own suite and the observe suite that reads `before` through the guard.
export default mutationVitestConfig(["test/guard/lazy.test.ts", "test/guard/observe.test.ts"]);
