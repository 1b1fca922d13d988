// Projection rules: declarative JSON data shipped with a domain (ontologies/<domain>/projection.json)
// that says how a document (τ²-bench db.json, db.toml, user_db.toml) and tool results become Layer B.
// The format is in docs/projection.md; parseProjectionRules validates a rules document completely
// (every problem, with a JSON pointer) and compiles its expressions once.
import { compileExpr, sharedSubexpressions, type Evaluator } from "./expr.js";
import { ProjectionError, type RuleIssue } from "./errors.js";

export const PROJECTION_FORMAT = "polar-projection/1";

export interface EntityRule {
  name: string;
  /** Record fields copied as slots of the same name: every own field (`"*"`) or the listed ones. */
  fields: "*" | string[];
  exclude: ReadonlySet<string>;
  /** Derived slots, in declaration order (a slot may read earlier ones through `$slots`). */
  slots: ReadonlyArray<readonly [string, Evaluator]>;
}

export interface SourceRule {
  entity: string;
  /** `from` split on dots; `*` matches every key (captured as `$1`, `$2`, …). Empty: the document. */
  from: string[];
  single: boolean;
  id: Evaluator;
  where: Evaluator | undefined;
  /** Extra slots for records of this source (e.g. the owner's id of a nested collection). */
  slots: ReadonlyArray<readonly [string, Evaluator]>;
  /** Add to an entity already projected (e.g. from another document) instead of replacing it. */
  merge: boolean;
  /** With `merge`: to an entity that exists, only these derived slots of the entity rule are derived
   * again (in the rule's order; its fields are not read again). A second pass over the same records
   * names the slots that look at entities projected after the first (airline `new_ids_free`). */
  derive: ReadonlyArray<readonly [string, Evaluator]> | undefined;
}

export type EffectOp = "upsert" | "create" | "delete";

export interface EffectRule {
  op: EffectOp;
  entity: string;
  id: Evaluator;
  /** The full record the result describes; the entity is re-projected from it (its slots replaced). */
  record: Evaluator | undefined;
  /** Slots set from expressions (`undefined` leaves a slot unchanged). */
  set: ReadonlyArray<readonly [string, Evaluator]>;
  when: Evaluator | undefined;
  forEach: Evaluator | undefined;
}

export interface ProjectionRules {
  readonly format: typeof PROJECTION_FORMAT;
  readonly domain: string;
  readonly entities: ReadonlyMap<string, EntityRule>;
  readonly documents: ReadonlyMap<string, readonly SourceRule[]>;
  readonly tools: ReadonlyMap<string, readonly EffectRule[]>;
  /** Environment functions that are not tools (τ²-bench's `initialization_actions`), by function name. */
  readonly actions: ReadonlyMap<string, readonly EffectRule[]>;
  /** The rules document as given (for hashing and display). */
  readonly source: unknown;
}

export type ParseRulesResult = { ok: true; rules: ProjectionRules } | { ok: false; issues: RuleIssue[] };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export const escapePtr = (k: string): string => k.replace(/~/g, "~0").replace(/\//g, "~1");

export class Checker {
  readonly issues: RuleIssue[] = [];

  add(code: string, path: string, message: string, help?: string): void {
    this.issues.push(help === undefined ? { code, message, path } : { code, message, path, help });
  }

  keys(o: Obj, path: string, allowed: string[]): void {
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k)) this.add("unknown-key", `${path}/${escapePtr(k)}`, `unknown key \`${k}\``, `allowed here: ${allowed.join(", ")}`);
    }
  }

  name(v: unknown, path: string, what: string): v is string {
    if (typeof v === "string" && NAME.test(v)) return true;
    this.add("bad-name", path, `${what} must be an identifier, got \`${JSON.stringify(v)}\``, "identifiers match [A-Za-z_][A-Za-z0-9_]*");
    return false;
  }

  expr(v: unknown, path: string): Evaluator {
    return compileExpr(v, path, this.issues);
  }

  slotMap(v: unknown, path: string): Array<readonly [string, Evaluator]> {
    if (v === undefined) return [];
    if (!isObj(v)) {
      this.add("bad-type", path, "`slots` must be an object from slot name to expression");
      return [];
    }
    const out: Array<readonly [string, Evaluator]> = [];
    for (const k of Object.keys(v)) {
      const p = `${path}/${escapePtr(k)}`;
      if (this.name(k, p, "a slot name")) out.push([k, this.expr(v[k], p)]);
    }
    return out;
  }
}

/** Validates and compiles a rules document; never throws. Anything the checks below did not foresee
 * (a stack overflow on a shape no bound covers, a getter that throws) is an issue, never an exception. */
export function safeParseProjectionRules(json: unknown): ParseRulesResult {
  try {
    return parseRulesChecked(json);
  } catch (err) {
    return { ok: false, issues: [{ code: "too-complex", message: `the rules could not be checked: ${String(err)}`, path: "" }] };
  }
}

/** How deep a rules document may nest (JSON levels; the shipped rules use fewer than 20). Compiling,
 * evaluating and comparing recurse once per level, so a document nested thousands deep is refused
 * here, before any of that (issue `too-deep`), instead of overflowing the stack. */
export const MAX_RULES_DEPTH = 100;

function parseRulesChecked(json: unknown): ParseRulesResult {
  const c = new Checker();
  for (const stack: [unknown, string, number][] = [[json, "", 0]]; stack.length > 0; ) {
    const [v, at, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (d === MAX_RULES_DEPTH) {
      c.add("too-deep", at, `the rules nest more than ${MAX_RULES_DEPTH} levels deep here`);
      return { ok: false, issues: c.issues };
    }
    for (const k of Object.keys(v)) stack.push([(v as Record<string, unknown>)[k], `${at}/${escapePtr(k)}`, d + 1]);
  }
  if (!isObj(json)) {
    c.add("bad-type", "", "projection rules must be a JSON object");
    return { ok: false, issues: c.issues };
  }
  c.keys(json, "", ["format", "domain", "comment", "entities", "documents", "tools", "actions", "reads"]);
  if (json.format !== PROJECTION_FORMAT) {
    c.add("bad-format", "/format", `\`format\` must be \`${PROJECTION_FORMAT}\`, got \`${JSON.stringify(json.format)}\``);
  }
  if (typeof json.domain !== "string" || json.domain === "") c.add("bad-type", "/domain", "`domain` must be a non-empty string");

  const entities = new Map<string, EntityRule>();
  if (!isObj(json.entities)) c.add("bad-type", "/entities", "`entities` must be an object from entity type to entity rule");
  else {
    for (const name of Object.keys(json.entities)) {
      const p = `/entities/${escapePtr(name)}`;
      if (!c.name(name, p, "an entity type")) continue;
      const r = parseEntity(c, json.entities[name], p, name);
      if (r) entities.set(name, r);
    }
  }

  const documents = new Map<string, SourceRule[]>();
  if (json.documents !== undefined) {
    if (!isObj(json.documents)) c.add("bad-type", "/documents", "`documents` must be an object from document name to a list of sources");
    else {
      for (const doc of Object.keys(json.documents)) {
        const p = `/documents/${escapePtr(doc)}`;
        const list = json.documents[doc];
        if (!Array.isArray(list)) {
          c.add("bad-type", p, `sources of document \`${doc}\` must be a list`);
          continue;
        }
        documents.set(doc, list.flatMap((s, i) => parseSource(c, s, `${p}/${i}`, entities) ?? []));
      }
    }
  }

  const tools = parseEffectTable(c, json.tools, "tools", entities);
  const actions = parseEffectTable(c, json.actions, "actions", entities);
  // `reads` (state read from the environment before judging) is for hosts that can call tools (the MCP
  // gateway): parseReadRules (reads.ts) validates it, so the runtime bundle does not carry that code.
  if (json.reads !== undefined && !isObj(json.reads)) c.add("bad-type", "/reads", "`reads` must be an object from tool name to a read rule");

  if (c.issues.length > 0) return { ok: false, issues: c.issues };
  return {
    ok: true,
    rules: { format: PROJECTION_FORMAT, domain: json.domain as string, entities, documents, tools, actions, source: json },
  };
}

/** Validates and compiles a rules document; throws `ProjectionError` (`invalid-rules`) listing every issue. */
export function parseProjectionRules(json: unknown): ProjectionRules {
  const r = safeParseProjectionRules(json);
  if (r.ok) return r.rules;
  const first = r.issues[0];
  throw new ProjectionError(
    "invalid-rules",
    `invalid projection rules: ${first.message} at \`${first.path || "/"}\`${r.issues.length > 1 ? ` (and ${r.issues.length - 1} more)` : ""}`,
    { issues: r.issues, help: r.issues.map((i) => `${i.path || "/"}: ${i.message}`).join("\n") },
  );
}

function parseEffectTable(c: Checker, v: unknown, key: string, entities: Map<string, EntityRule>): Map<string, EffectRule[]> {
  const out = new Map<string, EffectRule[]>();
  if (v === undefined) return out;
  if (!isObj(v)) {
    c.add("bad-type", `/${key}`, `\`${key}\` must be an object from name to a list of effects`);
    return out;
  }
  for (const name of Object.keys(v)) {
    const p = `/${key}/${escapePtr(name)}`;
    if (!c.name(name, p, key === "tools" ? "a tool name" : "an action name")) continue;
    const e = v[name];
    const list = Array.isArray(e) ? e : [e];
    out.set(name, list.flatMap((x, i) => parseEffect(c, x, Array.isArray(e) ? `${p}/${i}` : p, entities) ?? []));
  }
  return out;
}

function parseEntity(c: Checker, v: unknown, p: string, name: string): EntityRule | undefined {
  if (!isObj(v)) {
    c.add("bad-type", p, `entity rule \`${name}\` must be an object`);
    return undefined;
  }
  c.keys(v, p, ["comment", "fields", "exclude", "slots"]);
  let fields: "*" | string[] = [];
  if (v.fields === "*") fields = "*";
  else if (Array.isArray(v.fields) && v.fields.every((f) => typeof f === "string")) fields = v.fields as string[];
  else if (v.fields !== undefined) c.add("bad-type", `${p}/fields`, "`fields` must be `\"*\"` or a list of field names");
  if (Array.isArray(fields)) fields.forEach((f, i) => c.name(f, `${p}/fields/${i}`, "a field copied as a slot"));
  let exclude: string[] = [];
  if (Array.isArray(v.exclude) && v.exclude.every((f) => typeof f === "string")) exclude = v.exclude as string[];
  else if (v.exclude !== undefined) c.add("bad-type", `${p}/exclude`, "`exclude` must be a list of field names");
  // A record's derived slots are derived together (projectRecord): what several of them compute alike
  // is compiled once and computed once per record.
  const slots = sharedSubexpressions(v.slots, () => c.slotMap(v.slots, `${p}/slots`));
  return { name, fields, exclude: new Set(exclude), slots };
}

function knownEntity(c: Checker, v: unknown, p: string, entities: Map<string, EntityRule>): v is string {
  if (!c.name(v, p, "`entity`")) return false;
  if (!entities.has(v)) {
    c.add("unknown-entity", p, `entity type \`${v}\` is not declared in \`entities\``);
    return false;
  }
  return true;
}

function parseSource(c: Checker, v: unknown, p: string, entities: Map<string, EntityRule>): SourceRule | undefined {
  if (!isObj(v)) {
    c.add("bad-type", p, "a source must be an object");
    return undefined;
  }
  c.keys(v, p, ["comment", "entity", "from", "single", "id", "where", "slots", "merge", "derive"]);
  const okEntity = knownEntity(c, v.entity, `${p}/entity`, entities);
  let from: string[] = [];
  if (typeof v.from === "string") {
    from = v.from === "" ? [] : v.from.split(".");
    if (from.some((s) => s === "")) c.add("bad-path", `${p}/from`, `\`from\` path \`${v.from}\` has an empty segment`);
  } else if (Array.isArray(v.from) && v.from.every((s) => typeof s === "string")) from = v.from as string[];
  else c.add("bad-type", `${p}/from`, "`from` must be a dotted path (use `*` for every key) or a list of keys");
  for (const k of ["single", "merge"]) {
    if (v[k] !== undefined && typeof v[k] !== "boolean") c.add("bad-type", `${p}/${k}`, `\`${k}\` must be a boolean`);
  }
  if (v.id === undefined) c.add("missing-key", p, "a source needs `id` (an expression; `\"$key\"` for the map key)");
  const id = c.expr(v.id ?? { const: "" }, `${p}/id`);
  const where = v.where === undefined ? undefined : c.expr(v.where, `${p}/where`);
  const slots = c.slotMap(v.slots, `${p}/slots`);
  if (!okEntity) return undefined;
  let derive: SourceRule["derive"];
  if (v.derive !== undefined) {
    const rule = entities.get(v.entity as string)!;
    if (v.merge !== true) c.add("bad-type", `${p}/derive`, "`derive` needs `merge: true` (it re-derives slots of an entity that exists)");
    else if (!Array.isArray(v.derive) || v.derive.length === 0 || !v.derive.every((n) => typeof n === "string")) c.add("bad-type", `${p}/derive`, "`derive` must be a non-empty list of slot names");
    else {
      const unknown = v.derive.filter((n) => !rule.slots.some(([k]) => k === n));
      if (unknown.length > 0) c.add("bad-name", `${p}/derive`, `\`derive\` names ${unknown.map((n) => `\`${n}\``).join(", ")}, not a derived slot of \`${v.entity as string}\``);
      else derive = rule.slots.filter(([k]) => (v.derive as string[]).includes(k));
    }
  }
  return { entity: v.entity as string, from, single: v.single === true, id, where, slots, merge: v.merge === true, derive };
}

export function parseEffect(c: Checker, v: unknown, p: string, entities: Map<string, EntityRule>): EffectRule | undefined {
  if (!isObj(v)) {
    c.add("bad-type", p, "an effect must be an object");
    return undefined;
  }
  c.keys(v, p, ["comment", "op", "entity", "id", "record", "set", "when", "forEach"]);
  const op = v.op ?? "upsert";
  if (op !== "upsert" && op !== "create" && op !== "delete") {
    c.add("bad-op", `${p}/op`, `\`op\` must be \`upsert\`, \`create\` or \`delete\`, got \`${JSON.stringify(op)}\``);
  }
  const okEntity = knownEntity(c, v.entity, `${p}/entity`, entities);
  if (v.id === undefined) c.add("missing-key", p, "an effect needs `id` (an expression over `$args` / `$result`)");
  const id = c.expr(v.id ?? { const: "" }, `${p}/id`);
  const record = v.record === undefined ? undefined : c.expr(v.record, `${p}/record`);
  const set = c.slotMap(v.set, `${p}/set`);
  if (op === "delete" && (record !== undefined || set.length > 0)) {
    c.add("bad-effect", p, "a `delete` effect takes no `record` or `set`");
  }
  if (op !== "delete" && record === undefined && set.length === 0) {
    c.add("bad-effect", p, `${op === "upsert" ? "an" : "a"} \`${String(op)}\` effect needs \`record\` or \`set\``);
  }
  const when = v.when === undefined ? undefined : c.expr(v.when, `${p}/when`);
  const forEach = v.forEach === undefined ? undefined : c.expr(v.forEach, `${p}/forEach`);
  if (!okEntity) return undefined;
  return { op: op as EffectOp, entity: v.entity as string, id, record, set, when, forEach };
}
