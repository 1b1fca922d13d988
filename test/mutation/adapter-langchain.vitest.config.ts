import { mutationVitestConfig } from "./base.js";

// The tests that state the behaviour of src/adapters/langchain.ts (on the real LangChain agent).
export default mutationVitestConfig(["test/adapters/langchain*.test.ts"]);
