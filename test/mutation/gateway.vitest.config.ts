import { mutationVitestConfig } from "./base.js";

// src/mcp/gateway.ts: the tests that run the gateway in this process. Stryker switches mutants inside
// the test process, so the suites that start `polar mcp` as a child process (consent, memory,
// filesystem, protocol, lifecycle, parent) cannot see one: what they state is stated again in-process
// by test/mcp/gateway-*.test.ts, against a scripted upstream server (test/mcp/fake-upstream.ts), and by
// test/mcp/failclosed.test.ts (the in-process harness in front of the real filesystem server: lost
// answers, racing sessions, stale consent). test/mcp/listen.test.ts (startGateway, in-process too)
// is left out: it tests the HTTP front and the audit logs of src/mcp/node.ts, and its child processes
// and HTTP sessions cost seconds per mutant for code the suites above reach first.
// A mutant that breaks the upstream lock or a request's timeout makes a call wait forever: 8 s per test
// (the slowest takes 2 s on the loaded machine) kills it without a Stryker timeout.
export default mutationVitestConfig(["test/mcp/failclosed.test.ts", "test/mcp/gateway-*.test.ts"], { timeoutMs: 8_000 });
