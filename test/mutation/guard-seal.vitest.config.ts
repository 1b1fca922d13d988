import { mutationVitestConfig } from "./base.js";

// src/guard/seal.ts (polar-guard/snapshot: HMAC-sealed snapshots): sealing, opening, every refusal and
// the resumed guard (test/package/snapshot-subpath.test.ts runs the built dist, which a mutant cannot reach).
export default mutationVitestConfig(["test/guard/snapshot-auth.test.ts"]);
