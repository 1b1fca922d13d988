import { mutationVitestConfig } from "./base.js";

// src/hooks/shell.ts (the shell guard behind the HookGuard interface): its suite, then the engine's
// contract suite (the real shell guard's read-only and creation-only approvals through the engine).
export default mutationVitestConfig(["test/hooks/shell-adapter.test.ts", "test/hooks/engine.test.ts"], { timeoutMs: 8_000 });
