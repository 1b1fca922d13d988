import { mutationVitestConfig } from "./base.js";

// src/guard/canonical-fast.ts (canonicalJson's bytes on the hot paths): the same bytes and refusals as
// canonicalJson (properties), and which values it writes itself and which it hands over.
export default mutationVitestConfig(["test/guard/canonical-fast.test.ts", "test/guard/canonical-fast-path.test.ts"]);
