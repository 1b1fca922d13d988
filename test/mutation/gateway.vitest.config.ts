import { mutationVitestConfig } from "./base.js";

// src/mcp/gateway.ts: the tests that run the gateway in this process (createGateway through the
// in-process harness test/mcp/inproc.ts, startGateway in listen.test.ts). The suites that start
// `polar mcp` as a child process (consent, memory, filesystem, protocol, lifecycle) cannot see a
// mutant (Stryker switches mutants inside the test process), so the behaviour they state is stated
// again in-process by test/mcp/gateway-*.test.ts.
export default mutationVitestConfig([
  "test/mcp/failclosed.test.ts",
  "test/mcp/listen.test.ts",
  "test/mcp/gateway-*.test.ts",
]);
