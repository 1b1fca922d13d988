import { mutationVitestConfig } from "./base.js";

// src/guard/snapshot.ts: reading a stored snapshot back (every refusal, the binding to its guard) and
// writing one out.
export default mutationVitestConfig(["test/guard/snapshot.test.ts", "test/guard/snapshot-write.test.ts", "test/guard/snapshot-auth.test.ts", "test/guard/snapshot-history.test.ts", "test/guard/snapshot-bounds.test.ts", "test/guard/guard-api.test.ts"]);
