// The interpreter of projection rules: a document → Layer B, and an executed tool call's result →
// updates of the entities it describes.
import { emptyContext, getKey, memoEpoch, type EvalContext } from "./expr.js";
import { ProjectionError } from "./errors.js";
import { LayerB } from "./layer-b.js";
import { sameOwnedJson } from "../util/owned-json.js";
import type { EffectRule, EntityRule, ProjectionRules, SourceRule } from "./rules.js";
import type { ToolCall } from "../core/types.js";

export interface ProjectDocumentOptions {
  /** Which of the rules' `documents` this is (default `db`). */
  document?: string;
}

/** Projects `doc` with the sources of one document of the rules into `into` (a new Layer B if absent). */
export function projectDocument(
  rules: ProjectionRules,
  doc: unknown,
  into: LayerB = new LayerB(),
  options: ProjectDocumentOptions = {},
): LayerB {
  const name = options.document ?? "db";
  const sources = rules.documents.get(name);
  if (sources === undefined) {
    throw new ProjectionError("bad-document", `the rules of \`${rules.domain}\` have no document \`${name}\``, {
      help: `documents: ${[...rules.documents.keys()].join(", ") || "none"}`,
    });
  }
  const ctx = emptyContext(into);
  ctx.doc = doc;
  for (const src of sources) projectSource(rules, src, doc, into, ctx);
  return into;
}

/** What a JSON value is, for an error message. */
function kindOf(v: unknown): string {
  if (v === null) return "`null`";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return "a string";
  return `${typeof v} \`${String(v)}\``;
}

function isObjectLike(v: unknown): v is object {
  return typeof v === "object" && v !== null;
}

function isRecordObject(v: unknown): v is Record<string, unknown> {
  return isObjectLike(v) && !Array.isArray(v);
}

// A collection path of the rules that is absent from the document is an empty collection; one that is
// there with the wrong type is an error naming what was expected: `{"reservations": 5}` is not an
// empty state. (Records themselves may be any value; a wildcard over a scalar matches nothing.)
function projectSource(rules: ProjectionRules, src: SourceRule, doc: unknown, into: LayerB, ctx: EvalContext): void {
  const entity = rules.entities.get(src.entity)!;
  const wrong = (where: string, v: unknown, expected: string): never => {
    throw new ProjectionError("bad-document", `\`${where}\` in the document is ${kindOf(v)}, expected ${expected}`, {
      help: `the rules of \`${rules.domain}\` read ${src.entity} records from \`${src.from.join(".") || "(document)"}\``,
    });
  };
  if (src.from.length > 0 && !isRecordObject(doc)) wrong("(document)", doc, "an object");
  const visit = (container: unknown, parent: unknown, depth: number, captures: string[], path: string[]): void => {
    const where = path.join(".") || "(document)";
    if (depth === src.from.length && src.single) {
      // `single`: the path names one record, not a collection.
      emit(container, src.from[src.from.length - 1] ?? "", parent, captures);
      return;
    }
    if (depth === src.from.length) {
      // The collection itself: every element of a list or every value of a map is a record.
      if (!isObjectLike(container)) wrong(where, container, `a collection of ${src.entity} records (an object or an array)`);
      // A record that is not an object is allowed (it copies no fields; derived slots still apply).
      if (Array.isArray(container)) container.forEach((rec, i) => emit(rec, i, parent, captures));
      else for (const k of Object.keys(container as object)) emit((container as Record<string, unknown>)[k], k, parent, captures);
      return;
    }
    const seg = src.from[depth];
    if (seg === "*") {
      // A wildcard over a scalar matches nothing: only the collection the records live in is checked.
      if (!isObjectLike(container)) return;
      const keys = Array.isArray(container) ? container.map((_, i) => String(i)) : Object.keys(container as object);
      for (const k of keys) visit(getKey(container, k), getKey(container, k), depth + 1, [...captures, k], [...path, k]);
      return;
    }
    const next = getKey(container, seg);
    if (next !== undefined) visit(next, container, depth + 1, captures, [...path, seg]);
  };
  const emit = (rec: unknown, key: unknown, parent: unknown, captures: string[]): void => {
    ctx.self = rec;
    ctx.key = key;
    ctx.parent = parent;
    ctx.captures = captures;
    ctx.slots = undefined;
    if (src.where !== undefined && src.where(ctx) !== true) return;
    const id = entityId(src.id(ctx), `${src.entity} in \`${src.from.join(".") || "(document)"}\` at key \`${String(key)}\``);
    if (src.derive !== undefined && into.hasEntity(src.entity, id)) {
      // Only the named slots, derived again over the entity's slots as they are (`$slots`: the record
      // Layer B keeps unchanged, not copied; read again after a write).
      for (const rules of [src.derive, src.slots]) {
        for (const [name, ev] of rules) {
          const slots = (ctx.slots = into.keptRecord(src.entity, id) as Record<string, unknown>);
          const v = ev(ctx);
          if (v !== undefined && !sameOwnedJson(slots[name], v)) into.set(src.entity, id, name, v);
        }
      }
      return;
    }
    const slots = projectRecord(entity, ctx);
    for (const [name, ev] of src.slots) {
      ctx.slots = slots;
      const v = ev(ctx);
      if (v !== undefined) slots[name] = v;
    }
    if (src.merge && into.hasEntity(src.entity, id)) {
      // A slot that already holds this very JSON is left as it is (Layer B would only make another
      // copy of the same value): a second pass over the same records re-derives mostly equal slots.
      for (const k of Object.keys(slots)) if (!sameOwnedJson(into.slot(src.entity, id, k), slots[k])) into.set(src.entity, id, k, slots[k]);
    } else into.adoptEntity(src.entity, id, slots);
  };
  visit(doc, undefined, 0, [], []);
}

function entityId(v: unknown, where: string): string {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  throw new ProjectionError("missing-id", `no entity id for ${where}: got \`${shown(v)}\``, {
    help: "the `id` expression must yield a non-empty string or a number",
  });
}

/** A value as an error shows it: its JSON, but a non-finite number as itself (JSON would say `null`). */
function shown(v: unknown): string {
  return typeof v === "number" ? String(v) : (JSON.stringify(v) ?? "undefined");
}

/** The slots of one record under an entity rule: copied fields, then derived slots in order. */
function projectRecord(rule: EntityRule, ctx: EvalContext): Record<string, unknown> {
  const slots = Object.create(null) as Record<string, unknown>;
  const rec = ctx.self;
  if (rec !== null && typeof rec === "object" && !Array.isArray(rec)) {
    const r = rec as Record<string, unknown>;
    const names = rule.fields === "*" ? Object.keys(r) : rule.fields;
    for (const f of names) {
      if (rule.exclude.has(f)) continue;
      const v = getKey(r, f);
      if (v !== undefined) slots[f] = v;
    }
  }
  ctx.slots = slots;
  // One memo epoch for the derived slots (sharedSubexpressions): meanwhile nothing writes Layer B or
  // changes `$`. It ends here (a throw leaves it on a context nothing uses again).
  ctx.memo = memoEpoch();
  for (const [name, ev] of rule.slots) {
    const v = ev(ctx);
    if (v !== undefined) slots[name] = v;
  }
  ctx.memo = 0;
  return slots;
}

export interface ToolResultChange {
  op: "upsert" | "create" | "delete";
  entity: string;
  id: string;
  /** For `create`: the entity did not exist before. For `delete`: it existed. */
  effective: boolean;
}

export interface ApplyReport {
  tool: string;
  /** The rules have effects for this tool. */
  matched: boolean;
  changes: ToolResultChange[];
  /** Effects that could not apply, with why (e.g. the result holds no record). */
  skipped: string[];
}

export interface ApplyOptions {
  /** The call failed: it changed nothing, so nothing is applied. */
  error?: boolean;
  /** The call is the library's own copy (the guard's observe): every value an effect writes is then
   * the library's (the parsed result, the copy's arguments, Layer B's values, new objects built from
   * them) and Layer B keeps it without copying. Default: the call's arguments are the caller's, and
   * what comes from them is copied. */
  ownCall?: boolean;
  /** `parseToolResult(result)`, when the caller parsed it already (the guard's observe, which keeps
   * the value too): not parsed again. */
  parsed?: { value: unknown; text: string | undefined };
}

/** Parses a tool result: τ²-bench results are JSON text; anything that is not JSON stays a string. */
export function parseToolResult(result: unknown): { value: unknown; text: string | undefined } {
  if (typeof result !== "string") return { value: jsonValueOf(result), text: undefined };
  const t = result.trim();
  if (t === "") return { value: result, text: result };
  const c = t[0];
  if (c === "{" || c === "[" || c === '"' || c === "-" || (c >= "0" && c <= "9") || t === "true" || t === "false" || t === "null") {
    try {
      const value: unknown = JSON.parse(t);
      // A number literal past ±1.8e308 parses to ±Infinity, which Layer B cannot hold: such text is
      // not JSON we can use, so it stays text (effects that need a record then skip, with a reason).
      if (!hasNonFinite(value)) return { value, text: result };
    } catch {
      // Not JSON after all (e.g. "2 GB added"): the text is the result.
    }
  }
  return { value: result, text: result };
}

/** A tool's result as JSON, the only values Layer B holds: what a JavaScript tool returns may carry
 * dates (kept as their JSON text), functions or `undefined` (dropped), or be unserialisable (a cycle, a
 * bigint), which counts as no result at all (effects needing one skip, with a reason). */
function jsonValueOf(result: unknown): unknown {
  if (result === null || typeof result === "boolean" || typeof result === "string") return result;
  if (typeof result === "number") return Number.isFinite(result) ? result : undefined;
  if (typeof result !== "object") return undefined;
  try {
    const text = JSON.stringify(result);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function hasNonFinite(root: unknown): boolean {
  // Iterative (a parsed value may nest deeper than the call stack); containers only on the stack, their
  // numbers tested in place, no spread copies.
  if (typeof root === "number") return !Number.isFinite(root);
  if (typeof root !== "object" || root === null) return false;
  const stack: object[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const values: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (let i = 0; i < values.length; i++) {
      const x = values[i];
      if (typeof x === "number") {
        if (!Number.isFinite(x)) return true;
      } else if (typeof x === "object" && x !== null) stack.push(x);
    }
  }
  return false;
}

/** Updates Layer B with the result of an executed call, following the tool's effects in the rules. */
export function applyToolResult(
  rules: ProjectionRules,
  layerB: LayerB,
  call: ToolCall,
  result: unknown,
  options: ApplyOptions = {},
): ApplyReport {
  return runEffects(rules, rules.tools.get(call.name), layerB, call, result, options);
}

/** Applies an environment function that is not a tool (τ²-bench `initialization_actions`) by its
 * `actions` entry; a name with no `actions` entry falls back to a `tools` entry (with no result). */
export function applyAction(rules: ProjectionRules, layerB: LayerB, action: ToolCall): ApplyReport {
  const effects = rules.actions.get(action.name) ?? rules.tools.get(action.name);
  return runEffects(rules, effects, layerB, action, undefined, {});
}

export function runEffects(
  rules: ProjectionRules,
  effects: readonly EffectRule[] | undefined,
  layerB: LayerB,
  call: ToolCall,
  result: unknown,
  options: ApplyOptions,
): ApplyReport {
  const report: ApplyReport = { tool: call.name, matched: effects !== undefined, changes: [], skipped: [] };
  if (effects === undefined || options.error === true) return report;
  // The guard's own call copy and its own parse: Layer B keeps what the effects write without copying.
  if (options.ownCall === true) return layerB.withOwnValues(() => applyEffects(rules, effects, layerB, call, result, options, report));
  return applyEffects(rules, effects, layerB, call, result, options, report);
}

function applyEffects(
  rules: ProjectionRules,
  effects: readonly EffectRule[],
  layerB: LayerB,
  call: ToolCall,
  result: unknown,
  options: ApplyOptions,
  report: ApplyReport,
): ApplyReport {
  const { value, text } = options.parsed ?? parseToolResult(result);
  const ctx = emptyContext(layerB);
  ctx.args = call.arguments;
  ctx.result = value;
  ctx.text = text ?? (typeof value === "string" ? value : undefined);
  ctx.tool = call.name;
  effects.forEach((eff, n) => {
    ctx.self = value;
    ctx.slots = undefined;
    ctx.before = ctx.beforeOf = undefined;
    let items: unknown[] = [undefined];
    if (eff.forEach !== undefined) {
      const l = eff.forEach(ctx);
      items = Array.isArray(l) ? l : l !== null && typeof l === "object" ? Object.values(l) : [];
    }
    items.forEach((item, i) => {
      ctx.item = item;
      ctx.index = eff.forEach === undefined ? undefined : i;
      ctx.self = value;
      ctx.slots = undefined;
      ctx.before = ctx.beforeOf = undefined;
      // `when` is checked per item, so a `forEach` can pick the items it applies to.
      if (eff.when !== undefined && eff.when(ctx) !== true) return;
      const rawId = eff.id(ctx);
      if ((typeof rawId !== "string" || rawId === "") && (typeof rawId !== "number" || !Number.isFinite(rawId))) {
        report.skipped.push(`effect ${n} of \`${call.name}\`: no entity id (got \`${shown(rawId)}\`)`);
        return;
      }
      const id = String(rawId);
      const existed = layerB.hasEntity(eff.entity, id);
      if (eff.op === "delete") {
        layerB.deleteEntity(eff.entity, id);
        report.changes.push({ op: "delete", entity: eff.entity, id, effective: existed });
        return;
      }
      // The entity as it is, read when an expression reads `$before`: the record Layer B keeps
      // unchanged (a write after it copies the record first), not a copy.
      ctx.beforeOf = () => layerB.keptRecord(eff.entity, id) as Record<string, unknown> | undefined;
      let slots: Record<string, unknown> | undefined;
      if (eff.record !== undefined) {
        const rec = eff.record(ctx);
        if (rec === null || typeof rec !== "object" || Array.isArray(rec)) {
          report.skipped.push(`effect ${n} of \`${call.name}\`: \`record\` is not an object`);
          return;
        }
        ctx.self = rec;
        slots = projectRecord(rules.entities.get(eff.entity)!, ctx);
        ctx.self = value;
      }
      // `set` expressions see the result as `$`; undefined leaves a slot as it was.
      const updates: Array<[string, unknown]> = [];
      for (const [name, ev] of eff.set) {
        ctx.slots = slots;
        const v = ev(ctx);
        if (v !== undefined) updates.push([name, v]);
      }
      if (slots !== undefined) {
        for (const [k, v] of updates) slots[k] = v;
        layerB.replaceEntity(eff.entity, id, slots);
      } else {
        layerB.ensureEntity(eff.entity, id);
        for (const [k, v] of updates) layerB.set(eff.entity, id, k, v);
      }
      report.changes.push({ op: eff.op, entity: eff.entity, id, effective: eff.op === "create" ? !existed : true });
    });
    ctx.item = undefined;
    ctx.index = undefined;
  });
  return report;
}
