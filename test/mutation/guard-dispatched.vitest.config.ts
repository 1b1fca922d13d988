import { mutationVitestConfig } from "./base.js";

// src/guard/dispatched.ts (what the shell and SQL dispatchers read off a Decision: π's steps, the worst
// tier, the core's reason in their words): its own suite and the SQL guard's verdicts (SQLite in
// process; the shell guard's verdict suite states the same through real work trees, seconds per mutant).
export default mutationVitestConfig(["test/guard/dispatched.test.ts", "test/sql/guard-verdicts.test.ts"]);
