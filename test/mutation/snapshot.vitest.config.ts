import { mutationVitestConfig } from "./base.js";

// src/guard/snapshot.ts: reading a stored snapshot back (every refusal) and copying one out.
export default mutationVitestConfig(["test/guard/snapshot.test.ts"]);
