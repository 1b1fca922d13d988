import { mutationVitestConfig } from "./base.js";

// src/hooks/setup.ts (config.json read strictly, each MCP server's guard built): its suite, in process.
export default mutationVitestConfig(["test/hooks/setup.test.ts", "test/hooks/engine.test.ts"], { timeoutMs: 8_000 });
