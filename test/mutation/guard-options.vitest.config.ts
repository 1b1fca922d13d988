import { mutationVitestConfig } from "./base.js";

// src/guard/options.ts (createGuard's options, checked and resolved): every refusal and what an accepted option becomes.
export default mutationVitestConfig([
  "test/guard/options.test.ts",
  "test/guard/guard-api.test.ts",
  "test/guard/guard.test.ts",
  "test/guard/hostile.test.ts",
  "test/guard/config-resolve.test.ts",
  "test/guard/injected-sha256.test.ts",
  "test/guard/snapshot-auth.test.ts",
]);
