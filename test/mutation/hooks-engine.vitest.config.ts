import { mutationVitestConfig } from "./base.js";

// src/hooks/engine.ts (what a PreToolUse/BeforeTool hook answers for each agent, the session's audit log,
// the Codex approvals, the post-tool observe): the in-process suites that call HookEngine.handle directly.
// Left out: lock.test.ts (child processes and a daemon per test; its in-process engine cases are
// engine-lock.test.ts), cli/opencode/readme (child processes: a mutant in the engine they start
// cannot be seen from here), server.test.ts (the daemon: its own row).
export default mutationVitestConfig(["test/hooks/engine.test.ts", "test/hooks/engine-*.test.ts"], { timeoutMs: 8_000 });
