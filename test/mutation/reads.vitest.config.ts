import { mutationVitestConfig } from "./base.js";

// src/guard/reads.ts (the RecordingView: what a verdict read, in order; the digest; the replay's and the
// overlay's views): its own suites, the audit tampering suite (a replay names the reads), and the guard
// suites that state what a check records of Layer B: the decision's reads and digest (guard, guard-api),
// values that are not JSON or not Layer B's own (hostile, caller-objects), the grounding read and the
// intent parser's overlays (evaluate-grounding, evaluate-targets). Not every guard suite: reads are made
// by every check, so each surviving mutant reran all of them (a run estimated at an hour on the shared
// machine on 6 Dec, stopped).
export default mutationVitestConfig([
  "test/guard/reads-*.test.ts",
  "test/guard/read-once.test.ts",
  "test/audit/verify-tampering.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/caller-objects.test.ts",
  "test/guard/evaluate-grounding.test.ts",
  "test/guard/evaluate-targets.test.ts",
]);
