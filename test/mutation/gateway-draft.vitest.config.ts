import { mutationVitestConfig } from "./base.js";

// src/mcp/draft.ts (`polar draft`, `polar promote`: an ontology guessed from a tool list): the reviewed
// draft of a tool list that reaches every guess and the rules one by one (test/mcp/draft-text.test.ts),
// and the real servers' lists with promotion through the guard (test/mcp/draft.test.ts; its CLI test
// runs child processes, which a mutant cannot reach).
export default mutationVitestConfig(["test/mcp/draft-text.test.ts", "test/mcp/draft.test.ts"]);
