import { mutationVitestConfig } from "./base.js";

// src/sql/parse.ts (a statement string → typed calls, problems, statements; targetSelect; the read-only
// re-check): test/sql/parse.test.ts states every statement form's whole answer in-process, without a
// database (the verdicts built on it are sql-guard's set).
export default mutationVitestConfig(["test/sql/parse.test.ts"], { timeoutMs: 10_000 });
