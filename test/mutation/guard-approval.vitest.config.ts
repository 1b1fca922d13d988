import { mutationVitestConfig } from "./base.js";

// src/guard/approval.ts (approval tokens bound to the call, the state read and the ontology): the
// tokens' own suite and the gateway's consent flow in-process (test/mcp/consent.test.ts runs `polar mcp`
// as a child process, which a mutant cannot reach).
export default mutationVitestConfig(["test/mcp/approval.test.ts", "test/mcp/gateway-consent.test.ts"], { timeoutMs: 8_000 });
