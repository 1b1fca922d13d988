import { mutationVitestConfig } from "./base.js";

// src/hooks/client.ts (`polar hook`'s thin client): its suites against a stand-in daemon on a temporary
// socket in the test's process (client-start.test.ts with spawn replaced: what the started daemon does
// is up to each test), then OpenCode's plugin (which asks through it, the daemon in process, and starts
// it through it when none answers).
export default mutationVitestConfig(["test/hooks/client.test.ts", "test/hooks/client-start.test.ts", "test/hooks/opencode.test.ts", "test/hooks/opencode-start.test.ts"], { timeoutMs: 8_000 });
