// Drafting an ontology from a tool list (the authoring loop of docs/mcp.md, "Drafting"): an MCP
// tools/list result or an OpenAI tools list → a starting `.polar` source in which every guess is
// provisional (never part of a verdict until a curator promotes it), each with a comment saying what
// it was guessed from. `promote` makes one guess live; `provisionalItems` lists what is still a guess.
// Pure text functions, no I/O.
import { Lifecycle } from "../abi.js";
import type { OntologyTables } from "../ontology/tables.js";

export interface ToolInfo {
  name: string;
  description: string;
  /** Parameter names, required ones first, from the JSON Schema. */
  params: string[];
  required: string[];
  /** Each parameter's schema description and type, where the schema gives them. */
  paramInfo?: Record<string, { type?: string; description?: string }>;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export class DraftError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(["call", "new", "result", "now", "true", "false", "null", "and", "or", "not", "in"]);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The tools of an MCP `tools/list` result (`{ tools: [...] }` or the bare list) or an OpenAI tools
 * list (Chat Completions `{ type: "function", function: {...} }` or Responses `{ type: "function", name }`). */
export function parseToolList(json: unknown): ToolInfo[] {
  const list = Array.isArray(json) ? json : isObj(json) && Array.isArray(json.tools) ? json.tools : null;
  if (list === null) throw new DraftError("bad-tools", "expected an MCP tools/list result (`{ \"tools\": [...] }`) or a list of tools");
  const seen = new Set<string>();
  return list.map((t: unknown, i: number) => {
    if (!isObj(t)) throw new DraftError("bad-tools", `tool ${i} is not an object`);
    const fn = isObj(t.function) ? t.function : t;
    const name = fn.name;
    if (typeof name !== "string" || !NAME.test(name)) throw new DraftError("bad-tools", `tool ${i}: name \`${String(name)}\` is not an identifier the ontology language accepts`);
    if (seen.has(name)) throw new DraftError("bad-tools", `tool \`${name}\` is listed twice`);
    seen.add(name);
    const schema = isObj(fn.inputSchema) ? fn.inputSchema : isObj(fn.parameters) ? fn.parameters : {};
    const props = isObj(schema.properties) ? Object.keys(schema.properties) : [];
    const paramInfo: Record<string, { type?: string; description?: string }> = {};
    for (const p of props) {
      const ps = (schema.properties as Record<string, unknown>)[p];
      if (!isObj(ps)) continue;
      paramInfo[p] = { type: typeof ps.type === "string" ? ps.type : undefined, description: typeof ps.description === "string" ? ps.description : undefined };
    }
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
    const ann = isObj(t.annotations) ? t.annotations : {};
    const bool = (k: string): boolean | undefined => (typeof ann[k] === "boolean" ? (ann[k] as boolean) : undefined);
    return {
      name,
      description: typeof fn.description === "string" ? fn.description : "",
      params: [...required.filter((r) => props.includes(r)), ...props.filter((p) => !required.includes(p))],
      required,
      paramInfo,
      annotations: { readOnlyHint: bool("readOnlyHint"), destructiveHint: bool("destructiveHint"), idempotentHint: bool("idempotentHint"), openWorldHint: bool("openWorldHint") },
    };
  });
}

/** Verbs that name a read in every API seen. Not `open` or `check`: `open_account`, `open_ticket`,
 * `check_in`, `check_out` write (and `open_` pairs with `close_` below); a tool not guessed read-only
 * is refused until reviewed, the safe side of a wrong guess. */
const READ_VERBS = /^(get|list|read|search|find|fetch|lookup|query|describe|show|view|count|validate|calculate|directory)(_|$)/;
/** Create/delete-like pairs of name prefixes: `create_x` is undone by `delete_x` (the first pair whose
 * other tool exists). */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["create_", "delete_"], ["add_", "remove_"], ["add_", "delete_"], ["insert_", "delete_"],
  ["book_", "cancel_"], ["place_", "cancel_"], ["enable_", "disable_"], ["open_", "close_"],
  ["lock_", "unlock_"], ["attach_", "detach_"], ["link_", "unlink_"], ["start_", "stop_"],
];
/** A tool that takes an SQL statement or a shell command as a string argument does whatever that
 * string says: its name (`read_query`, `query`), its description and its hints (a server's
 * `readOnlyHint` is not a check of the statement) say nothing about one call. Such a tool is never
 * guessed read-only: it is a dispatcher (each call's string judged, docs/sql.md) or unknown. */
export interface StringDispatch {
  kind: "sql" | "shell";
  /** The argument holding the string. */
  argument: string;
}

const SQL_PARAM = /^(sql|sql_?query|query_?sql|sql_?statement|sql_?text|statements?|stmts?|query|queries|raw_?query)$/i;
const SQL_CONTEXT = /\bsql\b|sql_|_sql|\bselect\b|\binsert\b|\bupdate\b|\bdelete\b|\bddl\b|\bdml\b|\bdatabase\b|\bstatements?\b|\btables?\b|sqlite|postgres|mysql/i;
const SHELL_PARAM = /^(command|commands|cmd|cmdline|command_?line|script|shell|shell_?command|bash|bash_?command|sh)$/i;
const SHELL_CONTEXT = /\bshell\b|\bbash\b|\bzsh\b|\bterminal\b|\bcommand\b|\bexec(ute)?\b|\brun\b|\bprocess\b/i;
/** A tool name that says it runs commands (`cmd`, `run_script`): tested on the name itself. */
const SHELL_NAME = /^(run|exec|execute|shell|bash|cmd|terminal)(_|$)/i;

/** The SQL or shell string argument of a tool, when it takes one (see StringDispatch). */
export function dispatchArgument(t: ToolInfo): StringDispatch | null {
  const info = t.paramInfo ?? {};
  const context = `${t.name.replace(/_/g, " ")} ${t.name} ${t.description}`;
  for (const p of t.params) {
    const { type, description = "" } = info[p] ?? {};
    if (type !== undefined && type !== "string") continue;
    if (/\bsql\b/i.test(description) || /(^|_)sql($|_)/i.test(p)) return { kind: "sql", argument: p };
    if (SQL_PARAM.test(p) && SQL_CONTEXT.test(`${context} ${description}`)) return { kind: "sql", argument: p };
    if (/\b(shell|bash) command\b|\bcommand line\b/i.test(description)) return { kind: "shell", argument: p };
    if (SHELL_PARAM.test(p) && (SHELL_NAME.test(t.name) || SHELL_CONTEXT.test(`${context} ${description}`))) return { kind: "shell", argument: p };
  }
  return null;
}

const SELF_UNDO = /^(update|set|edit|modify|change|rename|move|toggle)_/;

/** An entity named after `raw` (letters, digits and `_`, from a tool or argument name) that the ontology
 * language accepts: a reserved word, an empty name or one that starts with a digit gets `_entity`
 * (and a leading `_` before a digit). */
function entityName(raw: string): string {
  if (NAME.test(raw) && !RESERVED.has(raw)) return raw;
  return NAME.test(`${raw}_entity`) ? `${raw}_entity` : `_${raw}_entity`;
}

function entityOf(t: ToolInfo): { entity: string; key: string } | null {
  const key = t.required.find((p) => /_id$/.test(p) && NAME.test(p)) ?? t.required.find((p) => ["id", "path", "name"].includes(p));
  if (key === undefined) return null;
  return { entity: entityName(key === "id" || key === "name" ? t.name.replace(/^[a-z]+_/, "") : key.replace(/_id$/, "")), key };
}

function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, " ").trim().replace(/"/g, "'");
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

function hints(t: ToolInfo): string {
  const a = t.annotations;
  const parts = (["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const).filter((k) => a[k] !== undefined).map((k) => `${k} ${a[k]}`);
  return parts.length > 0 ? parts.join(", ") : "no annotations";
}

/** A draft ontology: every guess provisional. `source` names where the tool list came from. */
export function draftOntology(tools: readonly ToolInfo[], source: string): string {
  const out: string[] = [
    `% DRAFT ontology, guessed by \`polar draft\` from ${source}. Every guess below is provisional: it takes`,
    "% no part in a verdict until a curator reviews it and runs `polar promote FILE --id ID` (or edits it).",
    "% `polar lint --ontology FILE` lists what is still provisional. A mutating tool with no live annotation",
    "% is refused on every call; a tool that is not declared at all is unknown and refused too.",
    "% Guessed read-only tools are commented out (`%provisional(ID) read_only(...)`), because a live",
    "% `read_only` would let the tool through unjudged: promoting uncomments the line.",
    "",
    "loss_class_definition(draft_unreviewed_residue, weight = 0.5). % placeholder: name the real residue",
    "sink_definition(draft_unreviewed_sink, external = true).        % placeholder: name the real sink",
    "",
  ];
  const byName = new Map(tools.map((t) => [t.name, t]));
  /** The entities guessed, in the order they were met. */
  const entities = new Set<string>();
  const decls: string[] = [];
  const annots: string[] = [];
  const pairedInverse = new Set<string>();
  for (const t of tools) {
    const dispatch = dispatchArgument(t);
    if (dispatch !== null) {
      // Never read-only, never an annotation guessed from the name: every call is refused until the
      // tool is configured as a dispatcher (the string judged) or annotated by hand.
      const what = dispatch.kind === "sql" ? "an SQL statement" : "a shell command";
      decls.push(
        `% \`${t.name}\`: "${oneLine(t.description)}" (${hints(t)})`,
        `% takes ${what} in \`${dispatch.argument}\`: it does whatever that string says, so neither its name nor its hints make it read-only.`,
        `% A dispatcher tool: judge each call's string (\`polar mcp --dispatch ${t.name}=${dispatch.kind}:${dispatch.argument}\`, docs/sql.md); until then every call is refused (unknown).`,
        `tool(${t.name}).`,
        "",
      );
      continue;
    }
    const readOnly = t.annotations.readOnlyHint === true || (t.annotations.readOnlyHint === undefined && t.annotations.destructiveHint !== true && READ_VERBS.test(t.name));
    const what = `\`${t.name}\`: "${oneLine(t.description)}" (${hints(t)})`;
    if (readOnly) {
      const from = t.annotations.readOnlyHint === true ? "readOnlyHint true" : `the name (a reading verb) with no readOnlyHint`;
      decls.push(`% ${what}`, `% guessed read-only from ${from}`, `%provisional(draft.${t.name}.read_only) read_only(${t.name}).`, "");
      continue;
    }
    const ent = entityOf(t);
    if (ent !== null) entities.add(ent.entity);
    const decl = ent === null ? `tool(${t.name}).` : `tool(${t.name}, acts_on = ${ent.entity}, key = ${ent.key}).`;
    const keyNote = ent === null ? "acts on no entity (no required `*_id`, `id`, `path` or `name` argument): always grounded" : `acts on \`${ent.entity}\`, named by the required argument \`${ent.key}\``;
    decls.push(`% ${what}`, `% ${keyNote}`, decl, "");
    const slot = ent === null ? null : `${ent.entity}.state`;
    // A create/delete-like pair: the second undoes the first exactly; re-doing the first after the second only partly.
    for (const [prefix, inverse] of PAIRS) {
      if (!t.name.startsWith(prefix) || t.name.length === prefix.length) continue;
      const noun = t.name.slice(prefix.length);
      const other = inverse + noun;
      const o = byName.get(other);
      if (o === undefined || o.annotations.readOnlyHint === true) continue;
      // Without a key argument on either side, the pair's own noun (`create_entities` → `entities`)
      // names a placeholder entity the curator replaces.
      let pairEntity = ent?.entity ?? entityOf(o)?.entity;
      if (pairEntity === undefined) {
        pairEntity = entityName(noun);
        entities.add(pairEntity);
      }
      // The call's own entity when it has a key (then pairEntity is that entity), else the placeholder.
      const s = `${pairEntity}.state`;
      annots.push(
        `% guessed from the pair of names \`${t.name}\` / \`${other}\`: \`${other}\` undoes \`${t.name}\`; add \`args = { … }\` so the inverse call can run`,
        `@id("draft.${t.name}.inverse") inverse_of(${other}, ${t.name}, ${s}, 0.9, status = provisional).`,
        `% guessed from the same pair: \`${t.name}\` again only compensates \`${other}\` (what was lost is unknown)`,
        `@id("draft.${other}.compensation") compensates(${t.name}, ${other}, ${s}, draft_unreviewed_residue, 0.9, status = provisional).`,
        "",
      );
      pairedInverse.add(t.name).add(other);
      break;
    }
    if (pairedInverse.has(t.name)) continue;
    if (t.annotations.destructiveHint === true || t.annotations.openWorldHint === true) {
      const from = t.annotations.openWorldHint === true ? "openWorldHint true (it reaches outside the server)" : "destructiveHint true";
      if (slot !== null && t.annotations.openWorldHint !== true) {
        annots.push(`% guessed fail-closed from ${from}`, `@id("draft.${t.name}.fail_closed") irreversibly_consumes(${t.name}, ${slot}, draft_unreviewed_residue, 1.0, status = provisional).`, "");
      } else {
        annots.push(`% guessed fail-closed from ${from}`, `@id("draft.${t.name}.fail_closed") external_side_effect(${t.name}, draft_unreviewed_sink, 1.0, status = provisional).`, "");
      }
    } else if (SELF_UNDO.test(t.name) && slot !== null) {
      annots.push(
        `% guessed from the name (\`${t.name.split("_")[0]}_…\`): calling it again with the old values undoes it; write the bound and \`args\``,
        `@id("draft.${t.name}.self_undo") bounded_reversibility(${t.name}, true, draft_unreviewed_residue, 0.9, status = provisional).`,
        "",
      );
    } else {
      annots.push(`% \`${t.name}\`: no guess (neither a hint nor a name says how to undo it): every call is refused until annotated`, "");
    }
  }
  if (entities.size > 0) {
    out.push("% Entities guessed from the tools' key arguments; `state` is a placeholder slot to replace with real ones.");
    for (const e of entities) out.push(`slot_definition(${e}, state, object).`);
    out.push("");
  }
  out.push(...decls, ...annots);
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

/** What is still provisional: compiled annotations with that status, and commented `%provisional` lines. */
export function provisionalItems(tables: OntologyTables | null, source: string | null): Array<{ id: string; kind: string; line: number }> {
  const out: Array<{ id: string; kind: string; line: number }> = [];
  if (tables !== null) for (const e of tables.edges) if (e.lifecycle === Lifecycle.Provisional) out.push({ id: e.id, kind: "annotation", line: e.span.line });
  (source ?? "").split("\n").forEach((l, i) => {
    const m = /^%provisional\(([^)\s]+)\)\s/.exec(l);
    if (m) out.push({ id: m[1], kind: "declaration", line: i + 1 });
  });
  return out.sort((a, b) => a.line - b.line);
}

/** The source with the provisional item `id` made live: its `status = provisional` removed, or its
 * `%provisional(id)` line uncommented. Throws DraftError when there is no such provisional item. */
export function promote(source: string, id: string, tables: OntologyTables): string {
  const lines = source.split("\n");
  const decl = lines.findIndex((l) => l.startsWith(`%provisional(${id}) `));
  if (decl >= 0) {
    lines[decl] = lines[decl].slice(`%provisional(${id}) `.length);
    return lines.join("\n");
  }
  const edge = tables.edges.find((e) => e.id === id);
  if (edge === undefined) throw new DraftError("unknown-id", `no annotation or provisional declaration has the id \`${id}\``);
  if (edge.lifecycle !== Lifecycle.Provisional) throw new DraftError("not-provisional", `\`${id}\` is not provisional`);
  const { line, endLine } = edge.span;
  const stmt = lines.slice(line - 1, endLine).join("\n");
  const edited = stmt.replace(/,\s*status\s*=\s*provisional\b/, "");
  if (edited === stmt) throw new DraftError("not-editable", `\`${id}\` is provisional but its status is not written as \`, status = provisional\`: edit it by hand`);
  return [...lines.slice(0, line - 1), ...edited.split("\n"), ...lines.slice(endLine)].join("\n");
}
