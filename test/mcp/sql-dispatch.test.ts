// Issue 25: a tool that takes an SQL string is never read-only. `polar draft` never guesses it so (it
// is a dispatcher or unknown), the gateway never forwards it unjudged even when an ontology declares it
// read-only, and a configured dispatcher tool has each statement judged (fail closed when the judge is
// missing, throws or answers in a wrong shape). Run against the project's SQLite MCP server fixture
// (test/fixtures/mcp-sqlite-server) and the tools/list of `mcp-server-sqlite-npx` 0.8.0 from npm.
import { afterEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { compile } from "../../src/compiler/index.js";
import { dispatchArgument, draftOntology, parseToolList, promote, provisionalItems } from "../../src/mcp/draft.js";
import { DECISION_META_KEY, type DispatcherTool, type DispatchVerdict } from "../../src/mcp/gateway.js";
import { ROOT, tempDir } from "./helpers.js";
import { dump, seed, sqlGateway, SQLITE_SERVER, textOf, type SqlHarness } from "./sqlite-fixture.js";

const fixture = (n: string): unknown => JSON.parse(readFileSync(join(ROOT, "test/mcp/fixtures", n), "utf8"));

/** What a new user does: draft from the server's tools/list, then promote every guess. */
function draftAndPromoteAll(tools: unknown): string {
  let text = draftOntology(parseToolList(tools), "tools.json");
  for (;;) {
    const r = compile(text, { name: "draft.polar" });
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
    const items = provisionalItems(r.tables, text);
    if (items.length === 0) return text;
    text = promote(text, items[0].id, r.tables);
  }
}

async function liveTools(): Promise<unknown> {
  const tmp = tempDir("sql-list");
  const c = new Client({ name: "t", version: "1" });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [SQLITE_SERVER, join(tmp.dir, "x.db")], env: getDefaultEnvironment(), stderr: "ignore" }));
  try {
    return await c.listTools();
  } finally {
    await c.close();
    tmp.cleanup();
  }
}

let open: SqlHarness | null = null;
afterEach(async () => {
  await open?.close();
  open = null;
});

describe("polar draft: a tool that takes an SQL or shell string is never guessed read-only", () => {
  it("the real npm server's read_query / write_query / create_table (mcp-server-sqlite-npx 0.8.0) are dispatchers, not read-only", () => {
    const tools = parseToolList(fixture("sqlite-npx-tools.json"));
    expect(tools.map((t) => [t.name, dispatchArgument(t)])).toEqual([
      ["read_query", { kind: "sql", argument: "query" }],
      ["write_query", { kind: "sql", argument: "query" }],
      ["create_table", { kind: "sql", argument: "query" }],
      ["list_tables", null],
      ["describe_table", null],
    ]);
    const text = draftAndPromoteAll(fixture("sqlite-npx-tools.json"));
    const r = compile(text, { name: "d.polar" });
    if (!r.ok) throw new Error("does not compile");
    const readOnly = r.tables.tools.filter((t) => t.readOnly).map((t) => t.name).sort();
    // Before the fix `read_query` was guessed read-only from its name and promoted live.
    expect(readOnly).toEqual(["describe_table", "list_tables"]);
    expect(text).toContain("polar mcp --dispatch read_query=sql:query");
  });

  it("a raw `query`/`execute_sql` tool is a dispatcher even with readOnlyHint true; a search `query` is not", () => {
    const tools = parseToolList({ tools: [
      { name: "query", description: "Run a query", annotations: { readOnlyHint: true }, inputSchema: { properties: { sql: { type: "string" } }, required: ["sql"] } },
      { name: "execute_sql", description: "Execute SQL", inputSchema: { properties: { statement: { type: "string" } }, required: ["statement"] } },
      { name: "run_command", description: "Run a shell command", inputSchema: { properties: { command: { type: "string" } }, required: ["command"] } },
      { name: "bash", description: "", annotations: { readOnlyHint: true }, inputSchema: { properties: { cmd: { type: "string", description: "the bash command to run" } } } },
      { name: "search_nodes", description: "Search for nodes in the knowledge graph based on a query", annotations: { readOnlyHint: true }, inputSchema: { properties: { query: { type: "string" } }, required: ["query"] } },
    ] });
    expect(tools.map((t) => dispatchArgument(t)?.kind ?? null)).toEqual(["sql", "sql", "shell", "shell", null]);
    const text = draftAndPromoteAll({ tools: tools.map((t) => ({ name: t.name, description: t.description, annotations: t.annotations, inputSchema: { properties: Object.fromEntries(t.params.map((p) => [p, t.paramInfo?.[p] ?? {}])), required: t.required } })) });
    const r = compile(text, { name: "d.polar" });
    if (!r.ok) throw new Error("does not compile");
    expect(r.tables.tools.filter((t) => t.readOnly).map((t) => t.name)).toEqual(["search_nodes"]);
    for (const name of ["query", "execute_sql", "run_command", "bash"]) expect(text).toContain(`tool(${name}).`);
  });
});

describe("the MCP gateway in front of an SQLite MCP server", () => {
  it("as a new user: draft + promote everything + gateway → DELETE and DROP through `query` are refused, the rows stay", async () => {
    const ontology = draftAndPromoteAll(await liveTools());
    open = await sqlGateway({ ontology });
    const before = dump(open.file);
    for (const sql of ["DELETE FROM orders", "DROP TABLE notes"]) {
      const r = await open.call("query", { sql });
      expect(r.isError, sql).toBe(true);
      expect(textOf(r)).toMatch(/^Not run: `query` was stopped by the POLAR guard/);
    }
    expect(dump(open.file)).toEqual(before);
  });

  it("an ontology that declares the raw SQL tool read-only does not let DELETE/DROP through unjudged", async () => {
    // What the draft guessed before the fix, promoted: `read_only(query)`.
    open = await sqlGateway({ ontology: "read_only(query).\nread_only(list_tables).\n" });
    const before = dump(open.file);
    for (const sql of ["DELETE FROM orders WHERE id = 7", "DROP TABLE orders", "SELECT * FROM orders"]) {
      const r = await open.call("query", { sql });
      expect(r.isError, sql).toBe(true);
      expect(textOf(r)).toContain("it takes an SQL statement in `sql`");
      expect(textOf(r)).toContain("--dispatch query=sql:sql");
    }
    expect(dump(open.file)).toEqual(before);
    // A read-only tool without a string argument is still forwarded.
    const t = await open.call("list_tables", {});
    expect(t.isError).toBeFalsy();
    expect(JSON.parse(textOf(t))).toEqual(["notes", "orders"]);
  });
});

/** A stub judge: SELECT allowed, DELETE asked, anything else refused; records what it observed. */
function stub(observed: Array<[string, string]>, over: Partial<{ judge: DispatchVerdict | (() => never); create: () => never }> = {}): DispatcherTool {
  return {
    kind: "sql",
    argument: "sql",
    create() {
      if (over.create) over.create();
      return {
        judge: (_call, text) => {
          if (typeof over.judge === "function") return over.judge();
          if (over.judge) return over.judge;
          if (/^\s*select\b/i.test(text)) return { action: "allow", reason: "read_only", message: "reads only" };
          if (/^\s*delete\b/i.test(text)) return { action: "ask", reason: "over_bound", message: "DELETE without a bound: 3 rows of `orders` would be lost" };
          return { action: "deny", reason: "irreversible", message: `\`${text}\` cannot be undone: the table \`notes\` (2 rows) would be lost`, meta: { tier: "T4" } };
        },
        observe: (v, outcome) => void observed.push([v.reason, outcome]),
      };
    },
  };
}

describe("the gateway's dispatcher tools (the statement is judged, not the tool's name)", () => {
  const ONTOLOGY = "read_only(query).\nread_only(list_tables).\n";

  it("allowed runs (and is observed), denied is refused with what would be lost, asked is refused under veto", async () => {
    const observed: Array<[string, string]> = [];
    open = await sqlGateway({ ontology: ONTOLOGY, dispatchers: new Map([["query", stub(observed)]]) });
    const sel = await open.call("query", { sql: "SELECT item FROM orders WHERE id = 7" });
    expect(sel.isError).toBeFalsy();
    expect(JSON.parse(textOf(sel))).toEqual({ rows: [{ item: "plum" }] });
    expect(sel._meta?.[DECISION_META_KEY]).toMatchObject({ dispatcher: "sql", action: "allow", reason: "read_only" });
    const drop = await open.call("query", { sql: "DROP TABLE notes" });
    expect(drop.isError).toBe(true);
    expect(textOf(drop)).toContain("the table `notes` (2 rows) would be lost");
    expect(drop._meta?.[DECISION_META_KEY]).toMatchObject({ action: "deny", reason: "irreversible", tier: "T4" });
    const del = await open.call("query", { sql: "DELETE FROM orders" });
    expect(del.isError).toBe(true);
    expect(textOf(del)).toContain("It needs the user's consent: DELETE without a bound: 3 rows of `orders` would be lost");
    expect(dump(open.file).orders).toHaveLength(3);
    expect(dump(open.file).notes).toHaveLength(2);
    expect(observed).toEqual([["read_only", "ran"]]);
  });

  it("asked under escalate: the user's yes runs it (judged again first), a no refuses it", async () => {
    const observed: Array<[string, string]> = [];
    const answers = [false, true];
    const asked: string[] = [];
    open = await sqlGateway({ ontology: ONTOLOGY, policy: "escalate", dispatchers: new Map([["query", stub(observed)]]), elicit: (m) => {
      asked.push(m);
      return { action: "accept", content: { approve: answers.shift()! } };
    } });
    const no = await open.call("query", { sql: "DELETE FROM orders WHERE qty > 2" });
    expect(textOf(no)).toContain("The user declined.");
    expect(dump(open.file).orders).toHaveLength(3);
    const yes = await open.call("query", { sql: "DELETE FROM orders WHERE qty > 2" });
    expect(yes.isError).toBeFalsy();
    expect(yes._meta?.[DECISION_META_KEY]).toMatchObject({ action: "ask", consented: true });
    expect(dump(open.file).orders).toEqual([{ id: 2, item: "pear", qty: 1 }]);
    expect(asked[0]).toContain("DELETE FROM orders WHERE qty > 2");
    expect(observed).toEqual([["over_bound", "ran"]]);
  });

  it("fails closed: a judge that throws, cannot be made, answers in a wrong shape, or a call without its string", async () => {
    const cases: Array<[DispatcherTool, Record<string, unknown>, RegExp]> = [
      [stub([], { judge: () => { throw new Error("boom"); } }), { sql: "SELECT 1" }, /the sql guard failed \(boom\)/],
      [stub([], { create: () => { throw new Error("no database"); } }), { sql: "SELECT 1" }, /the sql guard is not available \(no database\)/],
      [stub([], { judge: { action: "maybe", reason: "x", message: "y" } as unknown as DispatchVerdict }), { sql: "SELECT 1" }, /wrong shape/],
      [stub([]), { statement: "SELECT 1" }, /`sql` is missing/],
      [stub([]), { sql: 42 }, /`sql` is not a string/],
    ];
    for (const [tool, args, why] of cases) {
      const tmp = tempDir("sql-fc");
      const file = join(tmp.dir, "app.db");
      seed(file);
      const h = await sqlGateway({ ontology: ONTOLOGY, dispatchers: new Map([["query", tool]]), file });
      try {
        const r = await h.call("query", args);
        expect(r.isError, why.source).toBe(true);
        expect(textOf(r)).toMatch(why);
        expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ action: "deny" });
      } finally {
        await h.close();
        tmp.cleanup();
      }
    }
  });
});

describe("the gateway's dispatcher tools: after the statement ran", () => {
  it("a journal that cannot be written is said in the result's _meta (the statement ran; nothing is lost silently)", async () => {
    const tool: DispatcherTool = { kind: "sql", argument: "sql", create: () => ({
      judge: () => ({ action: "allow", reason: "restore_point", message: "ok" }),
      observe: () => { throw new Error("disk full"); },
    }) };
    open = await sqlGateway({ ontology: "read_only(list_tables).\n", dispatchers: new Map([["query", tool]]) });
    const r = await open.call("query", { sql: "DELETE FROM notes WHERE id = 1" });
    expect(r.isError).toBeFalsy();
    expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ action: "allow", journal: expect.stringContaining("not journalled: disk full") });
    expect(dump(open.file).notes).toEqual([{ id: 2, body: "b" }]);
  });
});

describe("polar mcp start-up with dispatcher tools", () => {
  it("refuses to start when a read step before judging would call a dispatcher tool", async () => {
    const { startGateway } = await import("../../src/mcp/node.js");
    const r = compile("read_only(query).\ntool(delete_order, acts_on = order, key = order_id).\nslot_definition(order, state, object).\n", { name: "x.polar" });
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
    const rules = { format: "polar-projection/1", domain: "x", entities: { order: {} }, reads: { delete_order: { steps: [{ tool: "query", arguments: { sql: "SELECT 1" }, effects: [] }] } } };
    const judge: DispatcherTool = { kind: "sql", argument: "sql", create: () => ({ judge: () => ({ action: "allow", reason: "read_only", message: "" }) }) };
    await expect(startGateway({ ontology: r.blob, rules, command: [process.execPath, "-e", "process.exit(1)"], dispatchers: new Map([["query", judge]]), log: () => {} })).rejects.toMatchObject({ code: "unsafe-reads", message: expect.stringContaining("`delete_order → query`") });
  });
});
