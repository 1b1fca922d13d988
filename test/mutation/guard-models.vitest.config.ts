import { mutationVitestConfig } from "./base.js";

// src/guard/models.ts (the model components' contracts): through check and checkAsync.
export default mutationVitestConfig([
  "test/guard/guard-api.test.ts",
  "test/guard/models.test.ts",
  "test/guard/hostile.test.ts",
]);
