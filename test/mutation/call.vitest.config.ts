import { mutationVitestConfig } from "./base.js";
import { GUARD_TESTS } from "./guard-tests.js";

// src/guard/call.ts (the call's JSON-safe, frozen copy; its shape): its own suites first, then every guard
// suite (the copies are made on every check and observe; the suites that stated them were folded into
// the guard's parts' suites when guard.ts was split, so the narrow list of 2 Dec no longer reached them).
export default mutationVitestConfig([...new Set([
  "test/guard/call-*.test.ts",
  "test/guard/own-executed.test.ts",
  "test/guard/canonical-fast.test.ts",
  "test/guard/lazy.test.ts",
  "test/guard/read-once.test.ts",
  "test/fuzz/guard-copy.test.ts",
  ...GUARD_TESTS,
])]);
