// The guard on top of the verifier: imported after the first verdict, its import counted in the first
// check's time.
export { createGuard } from "../../src/guard/index.js";
