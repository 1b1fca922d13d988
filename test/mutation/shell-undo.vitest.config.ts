import { mutationVitestConfig } from "./base.js";

// src/shell/undo.ts: the journal, the step texts, each inverse step on a real folder or a small
// repository, and undoEntry's refusals (test/shell/undo.test.ts, in-process).
export default mutationVitestConfig(["test/shell/undo.test.ts"], { timeoutMs: 30_000 });
