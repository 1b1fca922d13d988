import { mutationVitestConfig } from "./base.js";

// src/mcp/draft.ts (`polar draft`, `polar promote`: an ontology guessed from a tool list): the reviewed
// draft of a tool list that reaches every guess and the rules one by one (test/mcp/draft-text.test.ts).
// test/mcp/draft.test.ts (the real servers' lists, promotion through the guard) is left out: its CLI test
// runs child processes for 10 s, which every static mutant (the module's regexes and word lists) would
// rerun, and a mutant cannot reach them.
export default mutationVitestConfig(["test/mcp/draft-text.test.ts"]);
