import { mutationVitestConfig } from "./base.js";

// src/guard/judge.ts (check → decide → judge → record, the fallback record): the suites that state what a
// check answers and records, through createGuard or the parts (test/guard/parts.ts). Left out of
// ./guard-tests.ts: snapshot.test.ts, snapshot-*.test.ts and injected-sha256.test.ts (the snapshot
// module's), observe.test.ts and options/context/engine/consent-book/before.test.ts (the parts with their
// own rows), config-resolve.test.ts, and policies/consent-runs.test.ts (seconds of recorded runs whose
// checks the other consent suites state). Every check goes through judge, so each mutant runs this set
// until a test fails: the narrower, the faster.
export default mutationVitestConfig([
  "test/guard/guard.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/judge.test.ts",
  "test/guard/judge-paths.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/session.test.ts",
  "test/guard/models.test.ts",
  "test/guard/fast-path.test.ts",
  "test/guard/caller-objects.test.ts",
  "test/guard/outcome-unknown.test.ts",
  "test/guard/execution-ids.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/lifecycle-states.test.ts",
  "test/guard/call-freeze-own.test.ts",
  "test/policies/consent.test.ts",
  "test/policies/consent-rules.test.ts",
  "test/policies/consent-load.test.ts",
  "test/policies/policies.test.ts",
]);
