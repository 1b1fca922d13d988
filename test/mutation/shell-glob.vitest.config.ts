import { mutationVitestConfig } from "./base.js";

// src/shell/glob.ts: expansion against a temporary directory, with its bounds (test/shell/glob.test.ts).
export default mutationVitestConfig(["test/shell/glob.test.ts"], { timeoutMs: 20_000 });
