import { mutationVitestConfig } from "./base.js";

// src/shell/variables.ts: which variables set for a command change what it runs or reads, for each
// name and value, and the dispatcher's answer for the lines that were approved
// (test/shell/variables.test.ts, in-process).
export default mutationVitestConfig(["test/shell/variables.test.ts"], { timeoutMs: 20_000 });
