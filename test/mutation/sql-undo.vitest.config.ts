import { mutationVitestConfig } from "./base.js";

// src/sql/undo.ts (restore points, the journal, undoSqlEntry, applyPoint): test/sql/undo.test.ts states
// it in-process on SQLite (every refusal, the journal, what a point puts back, run for real), then
// test/sql/guard-verdicts.test.ts (SQLite only: every approval there is run, observed and undone).
export default mutationVitestConfig(["test/sql/undo.test.ts", "test/sql/guard-verdicts.test.ts"]);
