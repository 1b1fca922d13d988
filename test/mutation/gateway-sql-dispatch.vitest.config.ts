import { mutationVitestConfig } from "./base.js";

// src/mcp/sql-dispatch.ts (the SQL guard as the gateway's dispatcher): the options, the verdict, the
// sessions and the errors in-process (test/mcp/sql-dispatchers.test.ts), and the gateway in front of a
// SQLite MCP server with the real SQL guard (test/mcp/sql-gateway.test.ts; its CLI test runs a child
// process, which a mutant cannot reach).
export default mutationVitestConfig(["test/mcp/sql-dispatchers.test.ts", "test/mcp/sql-gateway.test.ts"]);
