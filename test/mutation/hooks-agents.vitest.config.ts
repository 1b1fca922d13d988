import { mutationVitestConfig } from "./base.js";

// src/hooks/agents.ts (each agent's hook contract: the payload read, the answer written): its own suite,
// then the engine's contract suite (every agent's answer through HookEngine.handle).
export default mutationVitestConfig(["test/hooks/agents.test.ts", "test/hooks/engine.test.ts"], { timeoutMs: 8_000 });
