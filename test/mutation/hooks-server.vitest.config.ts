import { mutationVitestConfig } from "./base.js";

// src/hooks/server.ts (the hook daemon: its routes on the Unix socket and on loopback TCP, starting and
// stopping): the in-process daemon suites, requests over a real socket to startServer in the test's own
// process. Left out: lock.test.ts (its daemon cases spawn `polar serve` processes).
export default mutationVitestConfig(["test/hooks/server-routes.test.ts", "test/hooks/server-edges.test.ts", "test/hooks/server-ping.test.ts", "test/hooks/server.test.ts"], { timeoutMs: 8_000 });
