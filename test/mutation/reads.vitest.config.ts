import { mutationVitestConfig } from "./base.js";
import { GUARD_TESTS } from "./guard-tests.js";

// src/guard/reads.ts (the RecordingView: what a verdict read, in order): its own suites first, then every
// guard suite and the audit tampering suite (a replay names the reads).
export default mutationVitestConfig([...new Set([
  "test/guard/reads-*.test.ts",
  "test/guard/read-once.test.ts",
  "test/audit/verify-tampering.test.ts",
  ...GUARD_TESTS,
])]);
