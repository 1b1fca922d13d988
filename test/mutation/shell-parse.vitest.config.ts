import { mutationVitestConfig } from "./base.js";

// src/shell/parse.ts: the front end's cases (test/shell/parse.test.ts) and the dispatcher's, which
// parse every line they judge (test/shell/dispatch.test.ts); both in-process, no git, no bash.
export default mutationVitestConfig(["test/shell/parse.test.ts", "test/shell/dispatch.test.ts"], { timeoutMs: 20_000 });
