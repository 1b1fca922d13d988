import { mutationVitestConfig } from "./base.js";

// src/hooks/init.ts (`polar init`: the agent's hook configuration merged into its file): its suite, in process.
export default mutationVitestConfig(["test/hooks/init-config.test.ts", "test/hooks/init.test.ts"], { timeoutMs: 8_000 });
