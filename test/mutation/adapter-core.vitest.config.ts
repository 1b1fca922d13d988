import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/adapters/core.ts: the seam on its own, and each adapter on
// its real framework (they all go through it). test/adapters/shadow.test.ts is left out: it runs the
// CLI in a child process (seconds per mutant); core.test.ts states what it checks of the seam.
export default mutationVitestConfig([
  "test/adapters/core.test.ts",
  "test/adapters/ai*.test.ts",
  "test/adapters/openai-agents*.test.ts",
  "test/adapters/langchain*.test.ts",
]);
