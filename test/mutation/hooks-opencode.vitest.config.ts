import { mutationVitestConfig } from "./base.js";

// src/hooks/opencode.ts (OpenCode's plugin): its suites, in process (a stand-in daemon, then the real
// daemon built in the test's process).
export default mutationVitestConfig(["test/hooks/opencode-plugin.test.ts", "test/hooks/opencode.test.ts"], { timeoutMs: 8_000 });
