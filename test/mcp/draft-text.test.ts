// `polar draft` text by text (src/mcp/draft.ts): the whole draft of a tool list that reaches every guess
// (test/mcp/fixtures/draft-tools.json → draft-tools.polar, read and checked line by line: every guess
// provisional, each with what it was guessed from), the name pairs, the entity names the ontology
// language accepts, reading a tool list, which string argument makes a tool a dispatcher, and what is
// still provisional. The real servers' lists and promoting through the guard: draft.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { Lifecycle } from "../../src/abi.js";
import { compile } from "../../src/compiler/index.js";
import { dispatchArgument, draftOntology, DraftError, parseToolList, promote, provisionalItems, type StringDispatch, type ToolInfo } from "../../src/mcp/draft.js";
import { ROOT } from "./helpers.js";

const FIXTURES = join(ROOT, "test/mcp/fixtures");

function compiled(text: string) {
  const r = compile(text, { name: "draft.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return r;
}

const tool = (name: string, over: Partial<ToolInfo> = {}): ToolInfo => ({ name, description: "", params: [], required: [], paramInfo: {}, annotations: {}, ...over });
const draftOf = (tools: ToolInfo[]): string => draftOntology(tools, "t");

function error(f: () => unknown, code: string): DraftError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DraftError);
    expect((e as DraftError).code).toBe(code);
    return e as DraftError;
  }
  throw new Error("expected a DraftError");
}

describe("the draft of a tool list", () => {
  it("is the reviewed text: dispatchers, read-only guesses commented out, entities, pairs, fail-closed, self-undo, no guess", () => {
    const tools = parseToolList(JSON.parse(readFileSync(join(FIXTURES, "draft-tools.json"), "utf8")));
    const text = draftOntology(tools, "draft-tools.json");
    expect(text).toBe(readFileSync(join(FIXTURES, "draft-tools.polar"), "utf8"));
    const r = compiled(text);
    expect(r.tables.edges.length).toBeGreaterThan(0);
    for (const e of r.tables.edges) expect(e.lifecycle, e.id).toBe(Lifecycle.Provisional);
    expect(r.tables.tools.filter((t) => t.readOnly)).toEqual([]);
  });

  it("ends with one newline and never has two blank lines in a row", () => {
    for (const tools of [[], [tool("frobnicate")], [tool("get_x"), tool("create_y"), tool("delete_y")]]) {
      const text = draftOf(tools);
      expect(text.endsWith("\n") && !text.endsWith("\n\n")).toBe(true);
      expect(text).not.toMatch(/\n\n\n/u);
    }
    expect(draftOf([])).toBe(readFileSync(join(FIXTURES, "draft-tools.polar"), "utf8").split("\n").slice(0, 9).join("\n").replace("draft-tools.json", "t") + "\n");
  });

  it.each([
    ["create_note", "delete_note"], ["add_tag", "remove_tag"], ["add_role", "delete_role"], ["insert_row", "delete_row"],
    ["book_trip", "cancel_trip"], ["place_order", "cancel_order"], ["enable_alarm", "disable_alarm"], ["open_door", "close_door"],
    ["lock_file", "unlock_file"], ["attach_disk", "detach_disk"], ["link_card", "unlink_card"], ["start_job", "stop_job"],
  ])("%s is undone by %s (a pair of names), and is what compensates it", (forward, inverse) => {
    const text = draftOf([tool(forward), tool(inverse)]);
    const noun = forward.slice(forward.indexOf("_") + 1);
    expect(text).toContain(`@id("draft.${forward}.inverse") inverse_of(${inverse}, ${forward}, ${noun}.state, 0.9, status = provisional).`);
    expect(text).toContain(`@id("draft.${inverse}.compensation") compensates(${forward}, ${inverse}, ${noun}.state, draft_unreviewed_residue, 0.9, status = provisional).`);
    expect(text).toContain(`slot_definition(${noun}, state, object).`);
    compiled(text);
  });

  it.each(["open_account", "open_ticket", "open_pull_request", "check_in", "check_out", "open", "check"])("`%s` is not guessed read-only from its verb: opening and checking in or out write", (name) => {
    const text = draftOf([tool(name, { params: ["account_id"], required: ["account_id"] })]);
    expect(text).not.toContain(`read_only(${name})`);
    expect(text).toContain(`tool(${name}, acts_on = account, key = account_id).`);
    expect(compiled(text).tables.tools.filter((t) => t.readOnly)).toEqual([]);
  });

  it.each(["get_x", "list_x", "count_rows", "validate_input", "calculate", "show_x", "view_x", "directory_tree"])("`%s` is guessed read-only from its verb (provisional, commented out)", (name) => {
    expect(draftOf([tool(name)])).toContain(`%provisional(draft.${name}.read_only) read_only(${name}).`);
  });

  it("a pair is two names with the same noun after the prefixes; the first pair whose other tool exists wins", () => {
    for (const tools of [[tool("precreate_x"), tool("predelete_x")], [tool("create_"), tool("delete_")], [tool("create_x"), tool("delete_y")], [tool("delete_x"), tool("create_x", { annotations: { readOnlyHint: true } })]]) {
      expect(draftOf(tools)).not.toContain("inverse_of(");
    }
    const both = draftOf([tool("add_tag"), tool("remove_tag"), tool("delete_tag")]);
    expect(both).toContain("inverse_of(remove_tag, add_tag,");
    expect(both).not.toContain("inverse_of(delete_tag,");
    // A key argument on either side names the pair's entity.
    const keyed = draftOf([tool("create_note", { params: ["nid"], required: ["nid"] }), tool("delete_note", { params: ["note_id"], required: ["note_id"] })]);
    expect(keyed).toContain("inverse_of(delete_note, create_note, note.state,");
  });

  it("entity names the ontology language accepts: a reserved word, or one that starts with a digit, gets `_entity`", () => {
    const text = draftOf([
      tool("book_new"), tool("cancel_new"),
      tool("create_2fa_code"), tool("delete_2fa_code"),
      tool("revoke_2fa", { params: ["id"], required: ["id"] }),
      tool("store_result", { params: ["result_id"], required: ["result_id"] }),
      tool("wipe", { params: ["_id"], required: ["_id"] }),
      tool("touch", { params: ["path"], required: ["path"] }),
      tool("rename", { params: ["name"], required: ["name"] }),
      tool("drop_it", { params: ["x-y_id", "id"], required: ["x-y_id", "id"] }),
    ]);
    for (const e of ["new_entity", "_2fa_code_entity", "_2fa_entity", "result_entity", "_entity", "path", "rename", "it"]) expect(text).toContain(`slot_definition(${e}, state, object).`);
    expect(text).toContain("tool(drop_it, acts_on = it, key = id).");
    compiled(text);
  });

  it.each(["call", "new", "result", "now", "true", "false", "null", "and", "or", "not", "in"])("a noun that is the reserved word `%s` names the entity `%s_entity`", (word) => {
    const text = draftOf([tool(`create_${word}`), tool(`delete_${word}`)]);
    expect(text).toContain(`slot_definition(${word}_entity, state, object).`);
    expect(text).toContain(`inverse_of(delete_${word}, create_${word}, ${word}_entity.state,`);
    compiled(text);
  });

  it("which argument is the key, and the entity it names", () => {
    const text = draftOf([
      tool("scan", { params: ["user_identity"], required: ["user_identity"] }),
      tool("pause", { params: ["session_idle_id"], required: ["session_idle_id"] }),
      tool("Delete_note", { params: ["id"], required: ["id"] }),
      tool("create_note", { params: ["doc_id"], required: ["doc_id"] }),
      tool("delete_note"),
      tool("update_settings"),
    ]);
    expect(text).toContain("% `scan`: \"\" (no annotations)\n% acts on no entity");
    expect(text).toContain("tool(pause, acts_on = session_idle, key = session_idle_id).");
    expect(text).toContain("tool(Delete_note, acts_on = Delete_note, key = id).");
    // The pair's slot is the keyed call's entity; the noun names no entity of its own then.
    expect(text).toContain("inverse_of(delete_note, create_note, doc.state,");
    expect(text).not.toContain("slot_definition(note,");
    expect(text).toContain("% `update_settings`: no guess");
    compiled(text);
  });

  it("what a guess is made from: hints first, then the name", () => {
    const text = draftOf([
      tool("list_and_purge", { annotations: { destructiveHint: true } }),
      tool("remove_row", { params: ["row_id"], required: ["row_id"], annotations: { destructiveHint: true } }),
      tool("send_mail", { params: ["mail_id"], required: ["mail_id"], annotations: { openWorldHint: true, destructiveHint: true } }),
      tool("fetch_report", { annotations: { readOnlyHint: false } }),
      tool("getter"),
      tool("list"),
      tool("rename_file", { params: ["path"], required: ["path"] }),
      tool("reset_all", { params: ["path"], required: ["path"] }),
      tool("toggle"),
      tool("forget_me"),
    ]);
    expect(text).toContain("% guessed fail-closed from destructiveHint true\n@id(\"draft.list_and_purge.fail_closed\") external_side_effect(list_and_purge, draft_unreviewed_sink, 1.0, status = provisional).");
    expect(text).toContain("% guessed fail-closed from destructiveHint true\n@id(\"draft.remove_row.fail_closed\") irreversibly_consumes(remove_row, row.state, draft_unreviewed_residue, 1.0, status = provisional).");
    expect(text).toContain("% guessed fail-closed from openWorldHint true (it reaches outside the server)\n@id(\"draft.send_mail.fail_closed\") external_side_effect(send_mail, draft_unreviewed_sink, 1.0, status = provisional).");
    expect(text).toContain("% `fetch_report`: no guess");
    expect(text).toContain("% `getter`: no guess");
    expect(text).toContain("% guessed read-only from the name (a reading verb) with no readOnlyHint\n%provisional(draft.list.read_only) read_only(list).");
    expect(text).toContain("% guessed from the name (`rename_…`): calling it again with the old values undoes it; write the bound and `args`\n@id(\"draft.rename_file.self_undo\") bounded_reversibility(rename_file, true, draft_unreviewed_residue, 0.9, status = provisional).");
    expect(text).toContain("% `reset_all`: no guess");
    expect(text).toContain("% `toggle`: no guess");
    expect(text).toContain("% `forget_me`: no guess");
    compiled(text);
  });

  it("a description on one line, quotes made single, at most 160 characters", () => {
    const text = draftOf([tool("frob", { description: `  Says "hi"\n\tthen   ${"x".repeat(200)}` })]);
    expect(text).toContain(`% \`frob\`: "Says 'hi' then ${"x".repeat(157 - 15)}..." (no annotations)`);
    expect(draftOf([tool("frob", { description: "y".repeat(160) })])).toContain(`"${"y".repeat(160)}"`);
  });
});

describe("reading a tool list", () => {
  it("an MCP tools/list result or a bare list; each tool's parameters, required first, and its boolean hints", () => {
    const tools = parseToolList({
      tools: [{
        name: "update_user",
        description: "Update",
        annotations: { readOnlyHint: false, destructiveHint: "yes", idempotentHint: true },
        inputSchema: { properties: { bio: { type: "string", description: "about" }, user_id: { type: 5, description: 7 }, extra: "not a schema" }, required: ["user_id", 7, "ghost"] },
      }],
    });
    expect(tools).toEqual([{
      name: "update_user",
      description: "Update",
      params: ["user_id", "bio", "extra"],
      required: ["user_id", "ghost"],
      paramInfo: { bio: { type: "string", description: "about" }, user_id: { type: undefined, description: undefined } },
      annotations: { readOnlyHint: false, destructiveHint: undefined, idempotentHint: true, openWorldHint: undefined },
    }]);
    expect(parseToolList([{ name: "x", description: 5, inputSchema: [] }])).toEqual([{ name: "x", description: "", params: [], required: [], paramInfo: {}, annotations: { readOnlyHint: undefined, destructiveHint: undefined, idempotentHint: undefined, openWorldHint: undefined } }]);
  });

  it("OpenAI's shapes: the function's name, description and parameters; the MCP schema first when both are there", () => {
    const [a, b] = parseToolList([
      { type: "function", function: { name: "get_x", description: "Get", parameters: { properties: { x_id: {} }, required: ["x_id"] } } },
      { type: "function", name: "put_x", inputSchema: { properties: { a: {} } }, parameters: { properties: { b: {} } } },
    ]);
    expect([a.name, a.description, a.params]).toEqual(["get_x", "Get", ["x_id"]]);
    expect([b.name, b.params]).toEqual(["put_x", ["a"]]);
  });

  it("refuses what it cannot read, saying what", () => {
    expect(error(() => parseToolList({ tools: {} }), "bad-tools").message).toBe("expected an MCP tools/list result (`{ \"tools\": [...] }`) or a list of tools");
    expect(error(() => parseToolList(null), "bad-tools").code).toBe("bad-tools");
    expect(error(() => parseToolList([{ name: "a" }, []]), "bad-tools").message).toBe("tool 1 is not an object");
    expect(error(() => parseToolList([{ name: "a" }, null]), "bad-tools").message).toBe("tool 1 is not an object");
    expect(error(() => parseToolList([{ name: "a" }, 5]), "bad-tools").message).toBe("tool 1 is not an object");
    for (const name of ["has space", "2x", "", "x-y", " x"]) expect(error(() => parseToolList([{ name }]), "bad-tools").message).toBe(`tool 0: name \`${name}\` is not an identifier the ontology language accepts`);
    expect(error(() => parseToolList([{}]), "bad-tools").message).toBe("tool 0: name `undefined` is not an identifier the ontology language accepts");
    expect(error(() => parseToolList([{ name: "a" }, { name: "b" }, { name: "a" }]), "bad-tools").message).toBe("tool `a` is listed twice");
  });
});

describe("a tool that takes an SQL statement or a shell command", () => {
  const withParam = (name: string, description: string, param: string, info: { type?: string; description?: string } = { type: "string" }) => tool(name, { description, params: [param], paramInfo: { [param]: info } });
  it.each<[string, ToolInfo, StringDispatch]>([
    ["an argument said to be SQL", withParam("do", "", "text", { type: "string", description: "The SQL to run" }), { kind: "sql", argument: "text" }],
    ["an argument named sql", withParam("do", "", "raw_sql"), { kind: "sql", argument: "raw_sql" }],
    ["an argument named sql_…", withParam("do", "", "sql_text"), { kind: "sql", argument: "sql_text" }],
    ["`query` of a tool about tables", withParam("run", "Query the tables", "query"), { kind: "sql", argument: "query" }],
    ["`statement` of a database tool", withParam("go", "Talk to the database", "statement"), { kind: "sql", argument: "statement" }],
    ["`stmts` of a postgres tool", withParam("pg_exec", "Runs on postgres", "stmts"), { kind: "sql", argument: "stmts" }],
    ["an argument said to be a bash command", withParam("do", "", "line", { description: "the bash command" }), { kind: "shell", argument: "line" }],
    ["an argument said to be a command line", withParam("do", "", "line", { description: "a command line" }), { kind: "shell", argument: "line" }],
    ["`cmd` of a run_ tool", withParam("run_it", "", "cmd"), { kind: "shell", argument: "cmd" }],
    ["`script` of a terminal tool", withParam("do", "Use the terminal", "script"), { kind: "shell", argument: "script" }],
    ["`command_line` of a tool that executes what it is given", withParam("go", "Execute what it is given", "command_line"), { kind: "shell", argument: "command_line" }],
    ...(["sqlquery", "query_sql", "querysql", "sqlstatement", "sqltext", "statement", "statements", "stmt", "stmts", "queries", "rawquery", "raw_query"] as const).map((p) => [`\`${p}\` of a tool about a table`, withParam("go", "Works on a table", p), { kind: "sql", argument: p }] as [string, ToolInfo, StringDispatch]),
    ["`query` of a tool that runs one statement", withParam("go", "Runs one statement", "query"), { kind: "sql", argument: "query" }],
    ...(["command", "commands", "cmd", "cmdline", "commandline", "command_line", "script", "shell", "shellcommand", "shell_command", "bash", "bashcommand", "bash_command", "sh"] as const).map((p) => [`\`${p}\` of a tool that can exec`, withParam("go", "exec a program", p), { kind: "shell", argument: p }] as [string, ToolInfo, StringDispatch]),
    // Before the fix the name rule was tested against the whole context, where it never matched.
    ["`cmd` of a tool named `cmd` (read-only hint and all)", tool("cmd", { description: "Executes a line", params: ["cmd"], paramInfo: { cmd: { type: "string" } }, annotations: { readOnlyHint: true } }), { kind: "shell", argument: "cmd" }],
    ["`script` of a tool named `run_…`", withParam("run_it", "Starts it", "script"), { kind: "shell", argument: "script" }],
    ["`query` of a tool whose name says table", withParam("apply_table_change", "", "query"), { kind: "sql", argument: "query" }],
  ])("%s: a dispatcher", (_what, t, expected) => {
    expect(dispatchArgument(t)).toEqual(expected);
  });

  it.each([
    ["`query` of a search tool", withParam("search_nodes", "Search nodes by a query", "query")],
    ["a non-string argument said to be SQL", withParam("do", "", "sql", { type: "object", description: "The SQL" })],
    ["`mysql` (sql inside a word)", withParam("do", "", "mysql")],
    ["`sqlish`", withParam("do", "", "sqlish")],
    ["`command` of a tool about nothing shell-like", withParam("send", "Send a message", "commands_list")],
    ["`cmd` of a tool that is not about commands", withParam("note", "Take a note", "cmd")],
    ["a tool with no parameters", tool("run_all", { description: "Run the bash shell" })],
    ["an argument whose name only starts like one (`querying`)", withParam("go", "Works on a table", "querying")],
    ["an argument whose name only ends like one (`myquery`)", withParam("go", "Works on a table", "myquery")],
    ["`cmdx` of a tool that can exec", withParam("go", "exec a program", "cmdx")],
    ["`mycmd` of a tool that can exec", withParam("go", "exec a program", "mycmd")],
    ["`cmd` of a tool whose name only contains a runner's (`precmd`)", withParam("precmd", "Starts it", "cmd")],
  ])("%s: not a dispatcher", (_what, t) => {
    expect(dispatchArgument(t)).toBeNull();
  });

  it("the first argument that is one decides; an argument without a schema counts as a string", () => {
    expect(dispatchArgument(tool("do", { params: ["a", "sql", "cmd"], paramInfo: { a: { type: "string" }, cmd: { description: "the shell command" } } }))).toEqual({ kind: "sql", argument: "sql" });
    expect(dispatchArgument(tool("do", { params: ["sql"] }))).toEqual({ kind: "sql", argument: "sql" });
  });
});

describe("what is still provisional, and promoting it", () => {
  // Made inside the tests (a draft made at import that failed would fail the whole file).
  let text = "";
  let r: ReturnType<typeof compiled>;
  beforeEach(() => {
    text = draftOf([tool("get_x"), tool("create_y"), tool("delete_y")]);
    r = compiled(text);
  });

  it("the commented read-only declarations and the provisional annotations, by line", () => {
    const items = provisionalItems(r.tables, text);
    expect(items.map((i) => [i.id, i.kind])).toEqual([
      ["draft.get_x.read_only", "declaration"],
      ["draft.create_y.inverse", "annotation"],
      ["draft.delete_y.compensation", "annotation"],
    ]);
    const lines = text.split("\n");
    for (const i of items) expect(lines[i.line - 1]).toContain(i.id);
    expect(provisionalItems(null, null)).toEqual([]);
    const live = promote(text, "draft.create_y.inverse", r.tables);
    expect(provisionalItems(compiled(live).tables, live).map((i) => i.id)).toEqual(["draft.get_x.read_only", "draft.delete_y.compensation"]);
    expect(provisionalItems(null, "%provisional(a.b) read_only(x).\n %provisional(c) read_only(y).\n%provisional(d)read_only(z).")).toEqual([{ id: "a.b", kind: "declaration", line: 1 }]);
  });

  it("a declaration is uncommented; an annotation loses its status; anything else is refused, saying why", () => {
    expect(promote(text, "draft.get_x.read_only", r.tables).split("\n")).toContain("read_only(get_x).");
    const live = promote(text, "draft.create_y.inverse", r.tables);
    expect(live).toContain('@id("draft.create_y.inverse") inverse_of(delete_y, create_y, y.state, 0.9).');
    expect(live.split("\n")).toHaveLength(text.split("\n").length);
    const r2 = compiled(live);
    expect(error(() => promote(live, "draft.create_y.inverse", r2.tables), "not-provisional").message).toBe("`draft.create_y.inverse` is not provisional");
    expect(error(() => promote(text, "draft.nothing", r.tables), "unknown-id").message).toBe("no annotation or provisional declaration has the id `draft.nothing`");
    const written = text.replace("0.9, status = provisional).\n% guessed from the same", "0.9, status=provisional).\n% guessed from the same");
    expect(promote(written, "draft.create_y.inverse", compiled(written).tables)).toContain("inverse_of(delete_y, create_y, y.state, 0.9).");
    const other = `${text}\n@id("mine") inverse_of(delete_y, create_y, y.state, 0.5,\n  status = provisional).\n`;
    expect(promote("%provisional(first) read_only(x).\nrest\n", "first", r.tables)).toBe("read_only(x).\nrest\n");
    const commented = `${text}\n@id("odd") inverse_of(delete_y, create_y, y.state, 0.5, % reviewed later\n  status = provisional).\n`;
    expect(error(() => promote(commented, "odd", compiled(commented).tables), "not-editable").message).toBe("`odd` is provisional but its status is not written as `, status = provisional`: edit it by hand");
    const twoLines = promote(other, "mine", compiled(other).tables);
    expect(twoLines).toContain('@id("mine") inverse_of(delete_y, create_y, y.state, 0.5).');
    expect(twoLines.endsWith("\n")).toBe(true);
    const ownLine = `${text}\n@id("own")\ninverse_of(delete_y, create_y, y.state, 0.5, status = provisional).\n`;
    expect(promote(ownLine, "own", compiled(ownLine).tables).split("\n").slice(-3)).toEqual(['@id("own")', "inverse_of(delete_y, create_y, y.state, 0.5).", ""]);
  });
});
