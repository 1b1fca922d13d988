import { mutationVitestConfig } from "./base.js";

// src/sql/parse.ts (a statement string → typed calls, problems, statements; targetSelect; the read-only
// re-check): test/sql/parse.test.ts states every statement form's whole answer in-process, without a
// database, and test/sql/parse-load.test.ts loading the parser with its packages replaced (the verdicts
// built on it are sql-guard's set).
export default mutationVitestConfig(["test/sql/parse.test.ts", "test/sql/parse-load.test.ts"], { timeoutMs: 10_000 });
