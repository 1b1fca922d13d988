import { mutationVitestConfig } from "./base.js";

// src/shell/workspace.ts: Layer B of folders and small repositories, its cache and its failed reads
// (test/shell/workspace.test.ts, in-process).
export default mutationVitestConfig(["test/shell/workspace.test.ts"], { timeoutMs: 30_000 });
