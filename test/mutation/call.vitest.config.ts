import { mutationVitestConfig } from "./base.js";

// src/guard/call.ts (the call's JSON-safe, frozen copy; its shape; the executed entries kept): its own
// suites, the copy's fuzz target, and the guard suites that state what a check and an observe keep of a
// caller's call, turn calls and results (guard, guard-api, caller-objects, lifecycle, snapshot,
// observe). Not every guard suite: every check copies its call, so each surviving mutant would rerun
// all of them.
export default mutationVitestConfig([
  "test/guard/call-*.test.ts",
  "test/guard/own-executed.test.ts",
  "test/guard/observed-result-copy.test.ts",
  "test/guard/turn-calls-shape.test.ts",
  "test/guard/canonical-fast.test.ts",
  "test/guard/lazy.test.ts",
  "test/guard/read-once.test.ts",
  "test/fuzz/guard-copy.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/caller-objects.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/lifecycle-no-entity.test.ts",
  "test/guard/snapshot.test.ts",
  "test/guard/observe.test.ts",
]);
