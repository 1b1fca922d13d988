// The gateway in-process (createGateway) in front of the project's SQLite MCP server fixture
// (test/fixtures/mcp-sqlite-server, a stdio child on a temp database file), with an SDK client over an
// in-memory transport. Shared by the gateway's dispatcher tests (test/mcp/sql-*.test.ts).
import { join } from "node:path";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { compile } from "../../src/compiler/index.js";
import { createGuard, type Guard } from "../../src/guard/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { parseProjectionRules } from "../../src/projection/rules.js";
import { createGateway, type DispatcherTool } from "../../src/mcp/gateway.js";
import { ROOT, tempDir } from "./helpers.js";

export const SQLITE_SERVER = join(ROOT, "test/fixtures/mcp-sqlite-server/server.mjs");

/** A database with `orders` (3 rows) and `notes` (2 rows). */
export function seed(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, qty INTEGER NOT NULL);
    INSERT INTO orders VALUES (1, 'apple', 3), (2, 'pear', 1), (7, 'plum', 12);
    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
    INSERT INTO notes VALUES (1, 'a'), (2, 'b');`);
  db.close();
}

/** Every table's rows (sorted), read on a connection of its own. */
export function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const { name } of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>) {
      out[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all();
    }
    return out;
  } finally {
    db.close();
  }
}

export interface SqlHarness {
  file: string;
  dir: string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The session's guard. */
  guard: Guard;
  close(): Promise<void>;
}

/** The gateway with `ontology` (a .polar source) in front of the fixture server on a seeded database. */
export async function sqlGateway(opts: { ontology: string; dispatchers?: Map<string, DispatcherTool>; policy?: "veto" | "escalate"; elicit?: (message: string) => ElicitResult | Promise<ElicitResult>; file?: string }): Promise<SqlHarness> {
  const tmp = tempDir("sql");
  const file = opts.file ?? join(tmp.dir, "app.db");
  if (opts.file === undefined) seed(file);
  const r = compile(opts.ontology, { name: "sql.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const blob = r.blob;
  const rules = parseProjectionRules({ format: "polar-projection/1", domain: "sqlite-fixture", entities: {} });
  const upstream = new Client({ name: "polar-test-upstream", version: "1.0.0" });
  await upstream.connect(new StdioClientTransport({ command: process.execPath, args: [SQLITE_SERVER, file], env: getDefaultEnvironment(), stderr: "ignore", cwd: ROOT }));
  let guard: Guard | null = null;
  const gateway = createGateway({
    upstream,
    rules,
    dispatchers: opts.dispatchers,
    createGuard: (state) => (guard = createGuard({ ontology: blob, backend: (t) => createReferenceBackend(t), state, policy: opts.policy ?? "veto", config: { projection: rules } })),
  });
  const server = gateway.session();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "polar-test-client", version: "1.0.0" }, opts.elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (opts.elicit) {
    const elicit = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, (req) => elicit((req.params as { message: string }).message));
  }
  await client.connect(a);
  return {
    file,
    dir: tmp.dir,
    guard: guard!,
    call: (name, args) => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema) as Promise<CallToolResult>,
    async close() {
      await client.close().catch(() => {});
      await upstream.close().catch(() => {});
      tmp.cleanup();
    },
  };
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
