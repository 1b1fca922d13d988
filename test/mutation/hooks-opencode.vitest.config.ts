import { mutationVitestConfig } from "./base.js";

// src/hooks/opencode.ts (OpenCode's plugin): its suites, in process (a stand-in daemon, then the real
// daemon built in the test's process, then the daemon the plugin starts when none answers, with
// node:child_process's spawn replaced by an in-process start).
export default mutationVitestConfig(["test/hooks/opencode-plugin.test.ts", "test/hooks/opencode.test.ts", "test/hooks/opencode-start.test.ts"], { timeoutMs: 8_000 });
