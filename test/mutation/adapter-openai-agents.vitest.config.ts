import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/adapters/openai-agents.ts (on the real Agents SDK runner).
export default mutationVitestConfig(["test/adapters/openai-agents*.test.ts"]);
