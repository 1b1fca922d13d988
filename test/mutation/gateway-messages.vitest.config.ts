import { mutationVitestConfig } from "./base.js";

// src/mcp/messages.ts (what the gateway tells the model and the user instead of running a call): the
// texts stated whole, and the gateway's judging and consent flows in-process that show them.
export default mutationVitestConfig(["test/mcp/messages.test.ts", "test/mcp/gateway-judge.test.ts", "test/mcp/gateway-consent.test.ts"], { timeoutMs: 8_000 });
