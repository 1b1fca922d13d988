import { mutationVitestConfig } from "./base.js";

// src/shell/dispatch.ts: the dispatcher's cases, in-process on a plain directory (test/shell/dispatch.test.ts
// and the command families' tables beside it, test/shell/dispatch-<family>.test.ts).
// The executed suites (test/shell/guard.test.ts, the corpus, the fuzz target) run git and bash for
// every case and state the verdicts on top of the dispatch; they still run in `npm test`.
export default mutationVitestConfig(["test/shell/dispatch.test.ts", "test/shell/dispatch-find.test.ts", "test/shell/dispatch-shell.test.ts", "test/shell/dispatch-sed.test.ts", "test/shell/dispatch-readonly.test.ts", "test/shell/dispatch-remote.test.ts", "test/shell/dispatch-git.test.ts", "test/shell/dispatch-paths.test.ts", "test/shell/dispatch-links.test.ts", "test/shell/dispatch-parent-steps.test.ts"], { timeoutMs: 20_000 });
