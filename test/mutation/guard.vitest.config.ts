import { mutationVitestConfig } from "./base.js";
import { GUARD_TESTS } from "./guard-tests.js";

// src/guard/guard.ts, a part of the guard's composition: the guard's suites (./guard-tests.ts).
export default mutationVitestConfig(GUARD_TESTS);
