// The tests that state the behaviour of the guard's composition (createGuard and its parts, issue 27 §3):
// every suite under test/guard that goes through createGuard, and the policies' (consent through the
// guard). Left out: test/guard/tau2.test.ts (τ²-bench replays, seconds per run; the golden decisions
// and the fixed sessions state the same paths faster) and the suites of modules that have their own
// rows (call-shape, reads-*, canonical-fast, evaluate-*, config-resolve are call, reads, evaluate, config).
export const GUARD_TESTS = [
  "test/guard/guard.test.ts",
  "test/guard/guard-*.test.ts",
  // The parts' own suites (issue 27 §3; test/guard/parts.ts composes the parts as createGuard does).
  "test/guard/judge.test.ts",
  "test/guard/judge-paths.test.ts",
  "test/guard/options.test.ts",
  "test/guard/context.test.ts",
  "test/guard/consent-book.test.ts",
  "test/guard/engine.test.ts",
  "test/guard/before.test.ts",
  "test/guard/observe.test.ts",
  "test/guard/snapshot-write.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/session.test.ts",
  "test/guard/models.test.ts",
  "test/guard/fast-path.test.ts",
  "test/guard/caller-objects.test.ts",
  "test/guard/outcome-unknown.test.ts",
  "test/guard/execution-ids.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/lifecycle-states.test.ts",
  "test/guard/snapshot.test.ts",
  "test/guard/snapshot-auth.test.ts",
  "test/guard/injected-sha256.test.ts",
  "test/guard/call-freeze-own.test.ts",
  "test/guard/config-resolve.test.ts",
  "test/policies/*.test.ts",
];
