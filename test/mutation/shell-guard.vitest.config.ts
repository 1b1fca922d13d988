import { mutationVitestConfig } from "./base.js";

// src/shell/guard.ts: the shell guard's decisions, in-process without running the calls
// (test/shell/guard-verdicts.test.ts and the guard-*.test.ts that state one rule each: plain folders,
// and small git templates built once per file, ./verdict-fixture.ts).
// The executed proofs (guard.test.ts, creation.test.ts: bash and a manifest per case) state the same
// verdicts by running them and are left out: each case costs seconds.
export default mutationVitestConfig(["test/shell/guard-*.test.ts"], { timeoutMs: 30_000 });
