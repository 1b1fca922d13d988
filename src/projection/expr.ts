// Value expressions of the projection rules (docs/projection.md#expressions): JSON data compiled once,
// at parse time, into closures, so projecting a 7 MB document walks no rule JSON. Evaluation is total on
// well-typed data and yields `undefined` for a missing value; it throws `eval-error` only when the data
// contradicts the rule (a number where a list is required, a regex on a non-string is not an error: it
// is simply missing).
import type { RuleIssue } from "./errors.js";
import { ProjectionError } from "./errors.js";
import { judgeRegex } from "./regex-safety.js";

/** What an expression can see. Iteration operators set `item`/`index` and restore them afterwards. */
export interface EvalContext {
  self: unknown; // `$`
  key: unknown; // `$key`: map key or array index of the record
  doc: unknown; // `$doc`: the whole document
  parent: unknown; // `$parent`: the record the collection sits in (nested `from` paths)
  captures: string[]; // `$1`…`$9`: keys matched by `*` in a `from` path
  slots: Record<string, unknown> | undefined; // `$slots`: slots computed so far for this entity
  item: unknown; // `$item`
  index: unknown; // `$index`
  args: unknown; // `$args`: the tool call's arguments
  result: unknown; // `$result`: the tool result (parsed JSON when it parses)
  text: unknown; // `$text`: the tool result as text
  before: Record<string, unknown> | undefined; // `$before`: the target entity's slots before the effect
  beforeOf?: () => Record<string, unknown> | undefined; // makes `before` when `$before` is first read
  tool: unknown; // `$tool`: the tool name
  state: EntityLookup | undefined;
  /** Non-zero while one record's derived slots are evaluated (memoEpoch): a sub-expression several
   * slots share remembers its values until it changes (sharedSubexpressions). */
  memo: number;
}

export interface EntityLookup {
  entity(entity: string, id: string): Readonly<Record<string, unknown>> | undefined;
  slot(entity: string, id: string, slot: string): unknown;
  /** Whether the entity exists, without reading (or copying) its record: what `exists` of an entity
   * asks. Optional: without it, `entity(…) !== undefined`. */
  hasEntity?(entity: string, id: string): boolean;
}

/** For the evaluator of an `{ "entity", "id" }` expression without `slot`: whether that entity exists,
 * so that `exists` of it asks the lookup's hasEntity instead of copying the record (the airline rules'
 * `new_ids_free` asks it three times per reservation). */
const ENTITY_PRESENCE = new WeakMap<Evaluator, Evaluator>();

export type Evaluator = (ctx: EvalContext) => unknown;

export function emptyContext(state?: EntityLookup): EvalContext {
  return {
    self: undefined, key: undefined, doc: undefined, parent: undefined, captures: [], slots: undefined,
    item: undefined, index: undefined, args: undefined, result: undefined, text: undefined,
    // `beforeOf` too, though optional: a context that gains it later changes shape, and every
    // expression reading the context would then see two.
    before: undefined, beforeOf: undefined, tool: undefined, state, memo: 0,
  };
}

const VARIABLES: Record<string, (c: EvalContext) => unknown> = {
  $: (c) => c.self,
  $key: (c) => c.key,
  $doc: (c) => c.doc,
  $parent: (c) => c.parent,
  $slots: (c) => c.slots,
  $item: (c) => c.item,
  $index: (c) => c.index,
  $args: (c) => c.args,
  $result: (c) => c.result,
  $text: (c) => c.text,
  $before: (c) => c.before ?? (c.before = c.beforeOf?.()),
  $tool: (c) => c.tool,
};
for (let i = 1; i <= 9; i++) VARIABLES[`$${i}`] = (c) => c.captures[i - 1];

/** Operators: the key that names each, and the other keys it accepts. */
const OPERATORS: Record<string, { optional?: string[]; required?: string[] }> = {
  path: {},
  const: {},
  size: {},
  min: { optional: ["by"] },
  max: { optional: ["by"] },
  first: { optional: ["by", "where"] },
  last: { optional: ["by", "where"] },
  sum: { optional: ["by"] },
  count: { optional: ["where"] },
  filter: { required: ["where"] },
  map: { required: ["to"] },
  index_by: { required: ["key", "value"] },
  any: { required: ["where"] },
  all: { required: ["where"] },
  keys: {},
  values: {},
  get: {},
  assoc: { required: ["keys", "value"] },
  object: {},
  append: { required: ["value"] },
  without: { required: ["value"] },
  entity: { required: ["id"], optional: ["slot"] },
  template: {},
  concat: {},
  regex: { required: ["pattern"], optional: ["group", "flags"] },
  switch: { required: ["cases"], optional: ["default"] },
  if: { required: ["then"], optional: ["else"] },
  eq: {}, ne: {}, lt: {}, le: {}, gt: {}, ge: {},
  in: { required: ["values"] },
  not: {},
  and: {},
  or: {},
  exists: {},
  coalesce: {},
  number: {},
  string: {},
  add: {},
  sub: {},
  date: {},
};

export const OPERATOR_NAMES = Object.keys(OPERATORS);

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Compiles a value expression; problems are pushed to `issues` (and a placeholder is returned).
 * Recursion is bounded by the rules document's depth (MAX_RULES_DEPTH, checked before compiling). */
export function compileExpr(src: unknown, at: string, issues: RuleIssue[]): Evaluator {
  if (typeof src === "string") return compilePath(src, at, issues);
  const text = typeof src === "object" && src !== null ? sharing?.get(src) : undefined;
  if (text !== undefined) return sharedExpr(text, src as object, at, issues);
  return compileObject(src, at, issues);
}

function compileObject(src: unknown, at: string, issues: RuleIssue[]): Evaluator {
  if (typeof src !== "object" || src === null || Array.isArray(src)) {
    issues.push({
      code: "bad-expression",
      message: `expression at \`${at}\` must be a path string or an operator object`,
      path: at,
      help: 'write a constant as `{ "const": value }`',
    });
    return missing;
  }
  const obj = src as Record<string, unknown>;
  const keys = Object.keys(obj);
  const ops = keys.filter((k) => hasOwn(OPERATORS, k) && !isModifierOfAnother(k, keys));
  if (ops.length !== 1) {
    issues.push({
      code: "bad-expression",
      message: ops.length === 0
        ? `expression at \`${at}\` has no operator (keys: ${keys.map((k) => `\`${k}\``).join(", ") || "none"})`
        : `expression at \`${at}\` has several operators: ${ops.map((k) => `\`${k}\``).join(", ")}`,
      path: at,
      help: `operators: ${OPERATOR_NAMES.join(", ")}`,
    });
    return missing;
  }
  const op = ops[0];
  const spec = OPERATORS[op];
  const allowed = new Set([op, ...(spec.optional ?? []), ...(spec.required ?? [])]);
  for (const k of keys) {
    if (!allowed.has(k)) {
      issues.push({ code: "unknown-key", message: `operator \`${op}\` does not take \`${k}\``, path: `${at}/${k}`, help: `it takes: ${[...allowed].join(", ")}` });
    }
  }
  for (const k of spec.required ?? []) {
    if (!hasOwn(obj, k)) issues.push({ code: "missing-key", message: `operator \`${op}\` needs \`${k}\``, path: at });
  }
  return compileOperator(op, obj, at, issues);
}

// A few modifier names are also operators (`in`'s `values`, `assoc`'s `keys`): in an object that has
// the operator they modify, they are modifiers.
function isModifierOfAnother(k: string, keys: string[]): boolean {
  return keys.some((o) => {
    if (o === k || !hasOwn(OPERATORS, o)) return false;
    const spec = OPERATORS[o];
    return (spec.optional ?? []).includes(k) || (spec.required ?? []).includes(k);
  });
}

const missing: Evaluator = () => undefined;

/** While the derived slots of one entity rule compile (sharedSubexpressions): its shared operator
 * objects, each to its JSON text. */
let sharing: Map<object, string> | undefined;

/** The evaluator of each shared text, compiled at its first place. */
let sharedEvaluators = new Map<string, Evaluator>();

/** A JSON value whose JSON text says all a compilation reads of it: -0, a non-finite number, a hole,
 * `undefined`, a function, a bigint, an object of a class (an array's too) or with a toJSON, and a
 * property JSON.stringify does not write (not enumerable, a symbol) make it not. */
function plainJson(v: unknown): boolean {
  if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== "object" || v === null) return v === null || typeof v === "string" || typeof v === "boolean";
  const proto = Object.getPrototypeOf(v);
  const own = Reflect.ownKeys(v).length;
  if (Array.isArray(v) ? proto !== Array.prototype || own !== v.length + 1 : (proto !== Object.prototype && proto !== null) || own !== Object.keys(v).length) return false;
  return Object.values(v).every(plainJson);
}

/**
 * Compiles the derived slots of one entity rule (`fn`, which compiles `slots`, the rule's map from slot
 * name to expression) with their common sub-expressions shared. An operator object whose JSON text
 * occurs twice or more among them, that reads Layer B (`entity`) or builds an id (`template`), reads
 * neither `$slots` (which grows while a record's slots are derived) nor `$before` (read when first
 * needed), and holds no operator whose evaluation error names its place (`sum`, `min`, `max`,
 * `append`, `without`), is compiled once; while one record's slots are derived (EvalContext.memo) its
 * value for a given `$`, `$item` and `$index` is computed once. The airline's flight-date of a segment,
 * which six slots read eight times through a template-built id, is then read three times (status,
 * seats, the cabin's price) through one id string, built once. The rules, and what they derive, are
 * unchanged. Slots that are not plain JSON share nothing.
 */
export function sharedSubexpressions<T>(slots: unknown, fn: () => T): T {
  const texts = new Map<object, string>();
  const count = new Map<string, number>();
  const walk = (v: unknown): void => {
    if (typeof v !== "object" || v === null) return;
    if (!Array.isArray(v)) {
      const t = JSON.stringify(v);
      // (A string holding such a name only shares less.)
      if ((t.includes('"entity":') || t.includes('"template":')) && !/\$slots|\$before|"(sum|min|max|append|without)":/.test(t)) {
        texts.set(v, t);
        count.set(t, (count.get(t) ?? 0) + 1);
      }
    }
    Object.values(v).forEach(walk);
  };
  if (plainJson(slots)) walk(slots);
  for (const [o, t] of texts) if (count.get(t)! < 2) texts.delete(o);
  const was = sharing;
  sharing = texts;
  sharedEvaluators = new Map();
  try {
    return fn();
  } finally {
    sharing = was;
  }
}

/** The evaluator shared by every place of `text`. A first compilation with issues is not shared (each
 * place then compiles, and reports, its own). */
function sharedExpr(text: string, src: object, at: string, issues: RuleIssue[]): Evaluator {
  let ev = sharedEvaluators.get(text);
  if (ev !== undefined) return ev;
  const known = issues.length;
  const own = compileObject(src, at, issues);
  if (issues.length > known) return own;
  ev = remembered(own);
  const presence = ENTITY_PRESENCE.get(own);
  if (presence !== undefined) ENTITY_PRESENCE.set(ev, presence);
  sharedEvaluators.set(text, ev);
  return ev;
}

let memoEpochs = 0;

/** A new memo epoch: while a context carries it (EvalContext.memo), the state it reads and its
 * variables other than `$slots`, `$before`, `$item` and `$index` do not change. */
export function memoEpoch(): number {
  return ++memoEpochs;
}

/** `ev` remembering, within one memo epoch, its values for the first 8 values of `$item`, `$index` and
 * `$` it meets (by identity: a number `$` or `$item` is not remembered, as 0 and -0 are one to `===`). */
function remembered(ev: Evaluator): Evaluator {
  // A new list per epoch: the last record's values are let go, and the list is young like them (no
  // old-to-young write barrier).
  let m: unknown[] = [];
  let epoch = 0;
  return (c) => {
    const { memo, self, item, index } = c;
    if (memo === 0 || typeof self === "number" || typeof item === "number") return ev(c);
    if (memo !== epoch) {
      epoch = memo;
      m = [];
    }
    const n = m.length;
    for (let k = 0; k < n; k += 4) if (m[k] === item && m[k + 1] === index && m[k + 2] === self) return m[k + 3];
    const v = ev(c);
    if (n < 32) m.push(item, index, self, v);
    return v;
  };
}

function issue(issues: RuleIssue[], at: string, message: string, help?: string): void {
  issues.push({ code: "bad-expression", message, path: at, help });
}

/** `a.b.0` relative to `$`; `$var.a.b`; `$` alone. A segment of digits also indexes arrays. */
export function compilePath(src: string | unknown[], at: string, issues: RuleIssue[]): Evaluator {
  const segs: string[] = typeof src === "string" ? src.split(".") : src.map(String);
  if (segs.length === 0 || segs.some((s) => s === "")) {
    issue(issues, at, `path \`${String(src)}\` has an empty segment`);
    return missing;
  }
  let root: (c: EvalContext) => unknown = VARIABLES.$;
  let rest = segs;
  if (segs[0].startsWith("$")) {
    const v = VARIABLES[segs[0]];
    if (v === undefined) {
      issue(issues, at, `unknown variable \`${segs[0]}\``, `variables: ${Object.keys(VARIABLES).join(", ")}`);
      return missing;
    }
    root = v;
    rest = segs.slice(1);
  }
  if (rest.length === 0) return root;
  if (rest.length === 1) {
    const k = rest[0];
    // One key below the variables most paths start from, read from the context directly: the call
    // through `root` is one call site shared by every compiled path (megamorphic, never inlined).
    switch (root) {
      case VARIABLES.$:
        return (c) => getKey(c.self, k);
      case VARIABLES.$item:
        return (c) => getKey(c.item, k);
      case VARIABLES.$args:
        return (c) => getKey(c.args, k);
      case VARIABLES.$result:
        return (c) => getKey(c.result, k);
    }
    return (c) => getKey(root(c), k);
  }
  return (c) => {
    let v = root(c);
    for (let i = 0; i < rest.length && v !== undefined; i++) v = getKey(v, rest[i]);
    return v;
  };
}

/** Own-property (or array index) access; anything else is missing. */
export function getKey(v: unknown, k: string | number): unknown {
  if (v === null || typeof v !== "object") return undefined;
  if (Array.isArray(v)) {
    const i = typeof k === "number" ? k : /^-?\d+$/.test(k) ? Number(k) : NaN;
    if (!Number.isInteger(i)) return undefined;
    return v[i < 0 ? v.length + i : i];
  }
  // A string key as it is (most are): `String` of one is itself, through a builtin call.
  const key = typeof k === "string" ? k : String(k);
  return hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
}

function listOf(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === "object") return Object.values(v);
  return undefined;
}

function evalError(message: string): ProjectionError {
  return new ProjectionError("eval-error", message);
}

/** Runs `fn` once per element with `$item`/`$index` bound, restoring them afterwards. */
function eachItem(c: EvalContext, list: unknown[], fn: (i: number) => boolean | void): void {
  const saveItem = c.item, saveIndex = c.index;
  try {
    for (let i = 0; i < list.length; i++) {
      c.item = list[i];
      c.index = i;
      if (fn(i) === false) break;
    }
  } finally {
    c.item = saveItem;
    c.index = saveIndex;
  }
}

function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function truthy(v: unknown): boolean {
  return v === true;
}

function compileList(src: unknown, at: string, issues: RuleIssue[], min = 1, max = Infinity): Evaluator[] {
  if (!Array.isArray(src) || src.length < min || src.length > max) {
    issue(issues, at, `\`${at.split("/").pop()}\` must be a list of ${min === max ? min : `${min}${max === Infinity ? " or more" : `–${max}`}`} expressions`);
    return [];
  }
  return src.map((e, i) => compileExpr(e, `${at}/${i}`, issues));
}

/** Key lists of `get`/`assoc`: literal strings/numbers, or expression objects for computed keys. */
function compileKeys(src: unknown, at: string, issues: RuleIssue[]): Evaluator[] {
  if (!Array.isArray(src)) {
    issue(issues, at, `keys at \`${at}\` must be a list`);
    return [];
  }
  return src.map((k, i) => {
    if (typeof k === "string" || typeof k === "number") return () => k;
    return compileExpr(k, `${at}/${i}`, issues);
  });
}

function assocIn(base: unknown, keys: unknown[], value: unknown, depth: number): unknown {
  if (depth === keys.length) return value;
  const k = keys[depth];
  if (Array.isArray(base)) {
    const i = typeof k === "number" ? k : Number(k);
    if (!Number.isInteger(i) || i < 0 || i >= base.length) throw evalError(`assoc index \`${String(k)}\` is out of range`);
    const copy = base.slice();
    copy[i] = assocIn(base[i], keys, value, depth + 1);
    return copy;
  }
  if (typeof k !== "string" && typeof k !== "number") throw evalError(`assoc key must be a string or number`);
  const obj = base !== null && typeof base === "object" ? (base as Record<string, unknown>) : {};
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) define(copy, key, obj[key]);
  // A string key as it is (`String` of one is itself, through a builtin call).
  const key = typeof k === "string" ? k : String(k);
  define(copy, key, assocIn(getKey(obj, key), keys, value, depth + 1));
  return copy;
}

function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  // Plain assignment is much faster; only `__proto__` needs defining to stay an own data property.
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function compileOperator(op: string, o: Record<string, unknown>, at: string, issues: RuleIssue[]): Evaluator {
  const sub = (k: string): Evaluator => compileExpr(o[k], `${at}/${k}`, issues);
  const optSub = (k: string): Evaluator | undefined => (hasOwn(o, k) ? sub(k) : undefined);
  switch (op) {
    case "path": {
      const p = o.path;
      if (typeof p !== "string" && !(Array.isArray(p) && p.every((s) => typeof s === "string"))) {
        issue(issues, `${at}/path`, "`path` must be a string or a list of strings");
        return missing;
      }
      return compilePath(p as string | string[], `${at}/path`, issues);
    }
    case "const": {
      const v = o.const;
      return () => v;
    }
    case "size": {
      const e = sub("size");
      return (c) => {
        const v = e(c);
        if (Array.isArray(v) || typeof v === "string") return v.length;
        if (v !== null && typeof v === "object") return Object.keys(v).length;
        return undefined;
      };
    }
    case "min":
    case "max":
    case "sum": {
      const list = sub(op);
      const by = optSub("by");
      const sign = op === "min" ? -1 : 1;
      if (op === "sum") {
        // eachItem's loop written out (no closure per evaluation): the airline rules sum over every
        // reservation's segments four times.
        return (c) => {
          const l = listOf(list(c));
          if (l === undefined) return undefined;
          let total = 0;
          let any = false;
          const saveItem = c.item, saveIndex = c.index;
          try {
            for (let i = 0; i < l.length; i++) {
              c.item = l[i];
              c.index = i;
              const v = by ? by(c) : l[i];
              if (v === undefined || v === null) continue;
              if (typeof v !== "number") throw evalError(`\`sum\` at \`${at}\` met a ${typeof v}`);
              total += v;
              any = true;
            }
          } finally {
            c.item = saveItem;
            c.index = saveIndex;
          }
          return any || l.length === 0 ? total : undefined;
        };
      }
      return (c) => {
        const l = listOf(list(c));
        if (l === undefined) return undefined;
        let best: unknown = undefined;
        eachItem(c, l, (i) => {
          const v = by ? by(c) : l[i];
          if (v === undefined || v === null) return;
          if (best === undefined) {
            best = v;
            return;
          }
          const cmp = compare(v, best);
          if (cmp === undefined) throw evalError(`\`${op}\` at \`${at}\` compares a ${typeof v} with a ${typeof best}`);
          if (cmp * sign > 0) best = v;
        });
        return best;
      };
    }
    case "first":
    case "last": {
      const list = sub(op);
      const by = optSub("by");
      const where = optSub("where");
      return (c) => {
        const l = listOf(list(c));
        if (l === undefined) return undefined;
        let found = -1;
        eachItem(c, l, (i) => {
          if (where && !truthy(where(c))) return;
          found = i;
          if (op === "first") return false;
        });
        if (found < 0) return undefined;
        if (!by) return l[found];
        let out: unknown;
        eachItem(c, [l[found]], () => {
          c.index = found;
          out = by(c);
        });
        return out;
      };
    }
    case "count":
    case "filter":
    case "any":
    case "all": {
      const list = sub(op);
      const where = optSub("where");
      if (op === "filter") {
        return (c) => {
          const l = listOf(list(c));
          if (l === undefined) return undefined;
          const kept: unknown[] = [];
          eachItem(c, l, (i) => {
            if (!where || truthy(where(c))) kept.push(l[i]);
          });
          return kept;
        };
      }
      // count, any, all: how many items hold, every item asked (an item's error is an error even when
      // an earlier one decided the answer), eachItem's loop written out with no list of the kept ones.
      return (c) => {
        const l = listOf(list(c));
        if (l === undefined) return undefined;
        let held = 0;
        const saveItem = c.item, saveIndex = c.index;
        try {
          for (let i = 0; i < l.length; i++) {
            c.item = l[i];
            c.index = i;
            if (!where || truthy(where(c))) held++;
          }
        } finally {
          c.item = saveItem;
          c.index = saveIndex;
        }
        if (op === "count") return held;
        if (op === "any") return held > 0;
        return held === l.length;
      };
    }
    case "map": {
      const list = sub("map");
      const to = sub("to");
      return (c) => {
        const l = listOf(list(c));
        if (l === undefined) return undefined;
        const out: unknown[] = [];
        eachItem(c, l, () => {
          const v = to(c);
          out.push(v === undefined ? null : v);
        });
        return out;
      };
    }
    case "index_by": {
      // An object built from a list: each item's `key` (a string or number) to its `value` (null when
      // it has none); a later item with the same key wins.
      const list = sub("index_by");
      const key = sub("key");
      const value = sub("value");
      return (c) => {
        const l = listOf(list(c));
        if (l === undefined) return undefined;
        const out: Record<string, unknown> = {};
        eachItem(c, l, () => {
          const k = key(c);
          if (typeof k !== "string" && typeof k !== "number") return;
          const v = value(c);
          define(out, String(k), v === undefined ? null : v);
        });
        return out;
      };
    }
    case "keys":
    case "values": {
      const e = sub(op);
      return (c) => {
        const v = e(c);
        if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
        return op === "keys" ? Object.keys(v) : Object.values(v);
      };
    }
    case "get": {
      const g = o.get;
      if (!Array.isArray(g) || g.length < 1) {
        issue(issues, `${at}/get`, "`get` must be a list: a base expression, then keys");
        return missing;
      }
      const base = compileExpr(g[0], `${at}/get/0`, issues);
      const keys = compileKeys(g.slice(1), `${at}/get`, issues);
      return (c) => {
        let v = base(c);
        for (let i = 0; i < keys.length && v !== undefined; i++) {
          const k = keys[i](c);
          if (typeof k !== "string" && typeof k !== "number") return undefined;
          v = getKey(v, k);
        }
        return v;
      };
    }
    case "assoc": {
      const base = sub("assoc");
      const keys = compileKeys(o.keys, `${at}/keys`, issues);
      const value = sub("value");
      return (c) => {
        // Every key evaluated (as a map would: a later key's error is an error), with no closures or
        // second pass per evaluation (the airline rules build two assocs per flight segment).
        const ks = new Array<unknown>(keys.length);
        let missingKey = false;
        for (let i = 0; i < keys.length; i++) if ((ks[i] = keys[i](c)) === undefined) missingKey = true;
        if (missingKey) return undefined;
        const v = value(c);
        // No value asserts nothing (as in `object`): an `undefined` inside a record is not JSON.
        if (v === undefined) return base(c);
        return assocIn(base(c), ks, v, 0);
      };
    }
    case "object": {
      const spec = o.object;
      if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
        issue(issues, `${at}/object`, "`object` must map field names to expressions");
        return missing;
      }
      const fields = Object.keys(spec).map((k) => [k, compileExpr((spec as Record<string, unknown>)[k], `${at}/object/${k}`, issues)] as const);
      return (c) => {
        const out: Record<string, unknown> = {};
        for (const [k, ev] of fields) {
          const v = ev(c);
          if (v !== undefined) define(out, k, v);
        }
        return out;
      };
    }
    case "append":
    case "without": {
      const list = sub(op);
      const value = sub("value");
      return (c) => {
        const l = list(c);
        const v = value(c);
        const arr = Array.isArray(l) ? l : l === undefined || l === null ? [] : undefined;
        if (arr === undefined) throw evalError(`\`${op}\` at \`${at}\` needs a list`);
        if (v === undefined) return arr;
        return op === "append" ? [...arr, v] : arr.filter((x) => !jsonEqual(x, v));
      };
    }
    case "entity": {
      const type = o.entity;
      if (typeof type !== "string" || type === "") {
        issue(issues, `${at}/entity`, "`entity` must name an entity type");
        return missing;
      }
      const id = sub("id");
      const slot = o.slot;
      if (slot !== undefined && typeof slot !== "string") issue(issues, `${at}/slot`, "`slot` must be a string");
      const ev: Evaluator = (c) => {
        const i = id(c);
        if (c.state === undefined || (typeof i !== "string" && typeof i !== "number")) return undefined;
        const key = typeof i === "string" ? i : String(i);
        return typeof slot === "string" ? c.state.slot(type, key, slot) : c.state.entity(type, key);
      };
      if (slot === undefined) {
        ENTITY_PRESENCE.set(ev, (c) => {
          const i = id(c);
          if (c.state === undefined || (typeof i !== "string" && typeof i !== "number")) return false;
          const s = c.state;
          const key = typeof i === "string" ? i : String(i);
          return s.hasEntity !== undefined ? s.hasEntity(type, key) : s.entity(type, key) !== undefined;
        });
      }
      return ev;
    }
    case "template": {
      const t = o.template;
      if (typeof t !== "string") {
        issue(issues, `${at}/template`, "`template` must be a string");
        return missing;
      }
      const parts: (string | Evaluator)[] = [];
      const re = /\{([^{}]+)\}/g;
      let last = 0;
      for (let m = re.exec(t); m !== null; m = re.exec(t)) {
        if (m.index > last) parts.push(t.slice(last, m.index));
        parts.push(compilePath(m[1].trim(), `${at}/template`, issues));
        last = m.index + m[0].length;
      }
      if (last < t.length) parts.push(t.slice(last));
      return (c) => joinParts(parts, c);
    }
    case "concat": {
      const parts = compileList(o.concat, `${at}/concat`, issues);
      return (c) => joinParts(parts, c);
    }
    case "regex": {
      const e = sub("regex");
      const flags = o.flags ?? "";
      const group = o.group ?? 1;
      let re: RegExp | undefined;
      let maxInput = 0;
      if (typeof o.pattern !== "string" || typeof flags !== "string" || !/^[imsu]*$/.test(flags)) {
        issue(issues, `${at}/pattern`, "`pattern` must be a string and `flags` a subset of `imsu`");
      } else {
        try {
          re = new RegExp(o.pattern, flags);
        } catch (err) {
          issue(issues, `${at}/pattern`, `pattern \`${o.pattern}\` is not a valid regular expression`, String(err));
        }
        if (re !== undefined) {
          // Model-controlled text reaches this pattern: its worst case is bounded (./regex-safety.ts).
          const judged = judgeRegex(o.pattern, flags);
          if (judged.ok) maxInput = judged.maxInput;
          else {
            issues.push({ code: "unsafe-regex", message: `pattern \`${o.pattern}\` is refused: ${judged.reason}`, path: `${at}/pattern` });
            re = undefined;
          }
        }
      }
      if (typeof group !== "number" && typeof group !== "string") issue(issues, `${at}/group`, "`group` must be a number or a group name");
      return (c) => {
        const s = e(c);
        // Text longer than the pattern's bound is not matched: missing, as for a non-string.
        if (typeof s !== "string" || re === undefined || s.length > maxInput) return undefined;
        const m = re.exec(s);
        if (m === null) return undefined;
        return typeof group === "number" ? m[group] : m.groups?.[group as string];
      };
    }
    case "switch": {
      const e = sub("switch");
      const cases = o.cases;
      if (cases === null || typeof cases !== "object" || Array.isArray(cases)) {
        issue(issues, `${at}/cases`, "`cases` must be an object from value to constant");
        return missing;
      }
      const table = new Map<string, unknown>(Object.entries(cases as Record<string, unknown>));
      const hasDefault = hasOwn(o, "default");
      const dflt = o.default;
      return (c) => {
        const v = e(c);
        const k = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" || v === null ? String(v) : undefined;
        if (k !== undefined && table.has(k)) return table.get(k);
        return hasDefault ? dflt : undefined;
      };
    }
    case "if": {
      const cond = sub("if");
      const then = sub("then");
      const els = optSub("else");
      return (c) => (truthy(cond(c)) ? then(c) : els ? els(c) : undefined);
    }
    case "eq":
    case "ne":
    case "lt":
    case "le":
    case "gt":
    case "ge": {
      const [a, b] = compileList(o[op], `${at}/${op}`, issues, 2, 2);
      if (!a || !b) return missing;
      return (c) => {
        const x = a(c), y = b(c);
        if (x === undefined || y === undefined) return undefined;
        if (op === "eq") return jsonEqual(x, y);
        if (op === "ne") return !jsonEqual(x, y);
        const cmp = compare(x, y);
        if (cmp === undefined) return undefined;
        return op === "lt" ? cmp < 0 : op === "le" ? cmp <= 0 : op === "gt" ? cmp > 0 : cmp >= 0;
      };
    }
    case "in": {
      const e = sub("in");
      const values = o.values;
      // A list is constants (as before); an operator object or a path string is an expression
      // giving the list, e.g. a slot read from the server (`$slots.observations`).
      if (!Array.isArray(values)) {
        if (typeof values !== "string" && (values === null || typeof values !== "object")) {
          issue(issues, `${at}/values`, "`values` must be a list of constants or an expression giving a list");
          return missing;
        }
        const list = compileExpr(values, `${at}/values`, issues);
        return (c) => {
          const v = e(c);
          const l = listOf(list(c));
          return v === undefined || l === undefined ? undefined : l.some((x) => jsonEqual(x, v));
        };
      }
      return (c) => {
        const v = e(c);
        return v === undefined ? undefined : values.some((x) => jsonEqual(x, v));
      };
    }
    case "not": {
      const e = sub("not");
      return (c) => {
        const v = e(c);
        return typeof v === "boolean" ? !v : undefined;
      };
    }
    case "and":
    case "or": {
      const parts = compileList(o[op], `${at}/${op}`, issues);
      // Kleene logic, like the bound programs: a missing operand is UNKNOWN (undefined).
      return (c) => {
        let unknown = false;
        for (const p of parts) {
          const v = p(c);
          if (v === (op === "or")) return v;
          if (typeof v !== "boolean") unknown = true;
        }
        return unknown ? undefined : op === "and";
      };
    }
    case "exists": {
      const e = sub("exists");
      const presence = ENTITY_PRESENCE.get(e);
      if (presence !== undefined) return presence;
      return (c) => {
        const v = e(c);
        return v !== undefined && v !== null;
      };
    }
    case "coalesce": {
      const parts = compileList(o.coalesce, `${at}/coalesce`, issues);
      return (c) => {
        for (const p of parts) {
          const v = p(c);
          if (v !== undefined && v !== null) return v;
        }
        return undefined;
      };
    }
    case "number": {
      const e = sub("number");
      return (c) => toNumber(e(c));
    }
    case "string": {
      const e = sub("string");
      return (c) => {
        const v = e(c);
        return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;
      };
    }
    case "add":
    case "sub": {
      const [a, b] = compileList(o[op], `${at}/${op}`, issues, 2, 2);
      if (!a || !b) return missing;
      return (c) => {
        const x = toNumber(a(c)), y = toNumber(b(c));
        if (x === undefined || y === undefined) return undefined;
        return op === "add" ? x + y : x - y;
      };
    }
    case "date": {
      // Normalizes `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` and `YYYY-MM-DDTHH:MM[:SS]` to
      // `YYYY-MM-DDTHH:MM:SS` so dates from different fields compare as strings.
      const e = sub("date");
      return (c) => {
        const v = e(c);
        if (typeof v !== "string") return undefined;
        const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(v);
        if (m === null) return undefined;
        return `${m[1]}T${m[2] ?? "00"}:${m[3] ?? "00"}:${m[4] ?? "00"}`;
      };
    }
  }
  issue(issues, at, `unknown operator \`${op}\``);
  return missing;
}

function joinParts(parts: (string | Evaluator)[], c: EvalContext): string | undefined {
  let s = "";
  for (const p of parts) {
    if (typeof p === "string") {
      s += p;
      continue;
    }
    const v = p(c);
    if (typeof v === "string") s += v;
    else if (typeof v === "number" || typeof v === "boolean") s += String(v);
    else return undefined;
  }
  return s;
}
