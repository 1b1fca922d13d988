import { mutationVitestConfig } from "./base.js";

// The in-process gateway suites without test/mcp/failclosed.test.ts (each of its tests starts the real
// filesystem server: seconds per mutant): for re-testing the survivors of a full `gateway` run, which
// failclosed.test.ts did not kill there (docs/testing.md, "The guard's composition and the MCP gateway").
export default mutationVitestConfig(["test/mcp/gateway-*.test.ts"], { timeoutMs: 8_000 });
