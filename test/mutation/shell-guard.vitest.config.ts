import { mutationVitestConfig } from "./base.js";

// src/shell/guard.ts: the shell guard's decisions, in-process without running the calls
// (test/shell/guard-verdicts.test.ts: plain folders, and small git templates built once per run).
// The executed proofs (guard.test.ts, creation.test.ts: bash and a manifest per case) state the same
// verdicts by running them and are left out: each case costs seconds.
export default mutationVitestConfig(["test/shell/guard-verdicts.test.ts"], { timeoutMs: 30_000 });
