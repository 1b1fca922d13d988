import { mutationVitestConfig } from "./base.js";

// src/hooks/client.ts (`polar hook`'s thin client): its suite against a stand-in daemon on a temporary
// socket in the test's process, then OpenCode's plugin (which asks through it, the daemon in process, and
// starts it through it when none answers: the spawned command and its options, spawn replaced in process).
export default mutationVitestConfig(["test/hooks/client.test.ts", "test/hooks/opencode.test.ts", "test/hooks/opencode-start.test.ts"], { timeoutMs: 8_000 });
