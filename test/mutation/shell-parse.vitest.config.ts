import { mutationVitestConfig } from "./base.js";

// src/shell/parse.ts: the front end's cases (test/shell/parse.test.ts: every statement form, word,
// directory and change of the shell's state along a line), in-process, no git, no bash. The
// dispatcher's cases (test/shell/dispatch.test.ts) parse every line too, but each of them reruns for
// every parser mutant they reach: left out since parse.test.ts states the parser on its own.
export default mutationVitestConfig(["test/shell/parse.test.ts"], { timeoutMs: 20_000 });
