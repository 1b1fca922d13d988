import { mutationVitestConfig } from "./base.js";
import { GUARD_TESTS } from "./guard-tests.js";

// src/guard/reads.ts (the RecordingView: what a verdict read, in order; the replay's and the overlay's
// views): its own suites first, then every guard suite. Not test/audit/verify-tampering.test.ts: it
// builds its log when imported, which makes two thirds of this module's mutants static (each then
// reruns the whole set: a 2-hour run on the shared machine); ReplayView is stated by reads-views, and
// the guard suites replay their logs inside tests.
export default mutationVitestConfig([...new Set([
  "test/guard/reads-*.test.ts",
  "test/guard/read-once.test.ts",
  ...GUARD_TESTS,
])]);
