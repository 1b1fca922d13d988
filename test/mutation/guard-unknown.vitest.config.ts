import { mutationVitestConfig } from "./base.js";

// src/guard/unknown.ts (entities the guard no longer knows: unknown_state until re-read): unprojectable
// results through observe, markKnown, the marks in snapshots (bounds, sealing) and their replay.
// test/guard/snapshot.test.ts (a resumed mark on everything; seconds of replay properties that reach
// every mutant) is left out: unknown.test.ts and snapshot-bounds state the same restore.
export default mutationVitestConfig([
  "test/guard/unknown.test.ts",
  "test/guard/outcome-unknown.test.ts",
  "test/guard/lifecycle.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/observe.test.ts",
  "test/guard/snapshot-bounds.test.ts",
  "test/guard/snapshot-auth.test.ts",
]);
