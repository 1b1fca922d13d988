import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/projection/project.ts.
export default mutationVitestConfig([
  "test/projection/interpret.test.ts",
  "test/projection/project-*.test.ts",
  "test/projection/shapes.test.ts",
  "test/fuzz/projection-regressions.test.ts",
]);
