import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/adapters/ai.ts (on the real AI SDK agent loop).
export default mutationVitestConfig(["test/adapters/ai*.test.ts"]);
