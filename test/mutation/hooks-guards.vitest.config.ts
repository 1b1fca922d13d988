import { mutationVitestConfig } from "./base.js";

// src/hooks/guards.ts (each agent's tool call routed to a guard, the core and refusing HookGuards): its own
// suite, then the engine's contract suite (a real MCP server's core guard through the engine).
export default mutationVitestConfig(["test/hooks/guards.test.ts", "test/hooks/engine.test.ts"], { timeoutMs: 8_000 });
