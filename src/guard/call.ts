// Tool calls come from a model: anything may arrive. A call is first copied into plain JSON (so the
// decision record holds exactly what was judged, and later mutation by the caller changes nothing),
// then checked. Values that are not JSON become `{ "$nonjson": kind }` markers in the copy, and the
// check reads only the copy, so the audit replay re-derives the same problem from the record alone.
import type { ExecutedCall, ToolCall } from "../core/types.js";
import { canonicalJsonFast } from "./canonical-fast.js";
import { defineLazyBefore } from "./lazy.js";

export const NON_JSON = "$nonjson";
const MAX_DEPTH = 64;
const MAX_NODES = 100_000;

export function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  // `__proto__` and friends stay plain data keys: names Object.prototype has are defined (assigning
  // them could hit a setter or a frozen prototype); every other key is assigned, which is much faster.
  if (key in Object.prototype) Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** What a value that is not JSON is (`typeof` names undefined, functions, symbols and bigints). */
function kindOf(v: unknown): string {
  if (typeof v === "number") return "non-finite number";
  if (typeof v === "object" && v !== null) return `object of class ${(v as object).constructor?.name ?? "unknown"}`;
  return typeof v;
}

/** The running count of one copy (and its ancestors, for cycles): one small object per copy. */
interface Walk {
  nodes: number;
  stack: object[];
  /** Freeze every array and object of the copy as it is made (one walk instead of copy + freeze). */
  freeze: boolean;
  /** The copy holds a `$nonjson` key: a marker, or a key of that name copied from the value. */
  marked: boolean;
}

/** A JSON-only deep copy; what is not JSON is replaced by a `{ "$nonjson": kind }` marker. */
export function jsonSafe(value: unknown): unknown {
  return root(value, { nodes: 0, stack: [], freeze: false, marked: false });
}

/** A marker for what is not JSON; frozen in a frozen copy like every other part of it. */
function mark(kind: string, w: Walk): Record<string, string> {
  w.marked = true;
  const m = { [NON_JSON]: kind };
  return w.freeze ? Object.freeze(m) : m;
}

/** A number as JSON has it: finite, `-0` written as 0; anything else a marker. */
function jsonNumber(v: number, w: Walk): unknown {
  return Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : mark(kindOf(v), w);
}

/** The value a copy starts from: a JSON scalar is itself (the common case for Layer B slots), the
 * rest goes to walk. Scalars are taken here and in `child` only, so walk never sees one. */
function root(v: unknown, w: Walk): unknown {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return jsonNumber(v, w);
  return walk(v, 0, w);
}

/** One element or property value of a container: JSON scalars (most of a call) here, counted as a
 * node each (the container's loop checked the budget, so the node stays within it); the rest walked. */
function child(x: unknown, depth: number, w: Walk): unknown {
  if (x === null || typeof x === "string" || typeof x === "boolean") {
    w.nodes++;
    return x;
  }
  if (typeof x === "number") {
    w.nodes++;
    return jsonNumber(x, w);
  }
  return walk(x, depth + 1, w);
}

/** What is not a JSON scalar: an array or plain object is copied, anything else marked. */
function walk(v: unknown, depth: number, w: Walk): unknown {
  // Never past the budget here: the first node of a copy, or a container's child after its loop found
  // the budget not spent (the loop marks where it stops).
  w.nodes++;
  if (typeof v !== "object") return mark(kindOf(v), w);
  if (depth >= MAX_DEPTH) return mark("too deep", w);
  const o = v as object; // never null: root and child take it
  // Ancestors only (a shared subtree is copied twice, not a cycle); at most MAX_DEPTH of them.
  if (w.stack.includes(o)) return mark("cycle", w);
  w.stack.push(o);
  let out: unknown;
  try {
    if (Array.isArray(v)) {
      const arr: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        // A hole costs a node too: `length` alone can claim 2^32 - 1 elements that hold nothing.
        if (w.nodes >= MAX_NODES) {
          arr.push(mark("too large", w));
          break;
        }
        if (i in v) arr.push(child(v[i], depth, w));
        else {
          w.nodes++;
          arr.push(mark("array hole", w));
        }
      }
      out = arr;
    } else {
      const proto = Object.getPrototypeOf(o);
      if (proto !== Object.prototype && proto !== null) {
        w.marked = true;
        out = { [NON_JSON]: kindOf(o) }; // frozen below, with the containers
      } else {
        const obj: Record<string, unknown> = {};
        const keys = Object.keys(o);
        for (let i = 0; i < keys.length; i++) {
          // As for arrays: past the budget, one marker and stop (a 2M-key object costs its key list,
          // not 2M copies of the marker).
          if (w.nodes >= MAX_NODES) {
            define(obj, keys[i], mark("too large", w));
            break;
          }
          if (keys[i] === NON_JSON) w.marked = true;
          define(obj, keys[i], child((v as Record<string, unknown>)[keys[i]], depth, w));
        }
        out = obj;
      }
    }
  } catch {
    // A getter that throws, a revoked proxy: not data.
    w.marked = true;
    out = { [NON_JSON]: "unreadable" };
  }
  w.stack.pop();
  if (w.freeze) Object.freeze(out);
  return out;
}

/**
 * A value in the guard's hands made immutable, in place. A frozen value was frozen all the way down by
 * whoever made it — a copy of the guard's (frozenJsonSafe) or Layer B's own (src/util/owned-json.ts) —
 * and is left as it is, unwalked. An unfrozen one is fresh and the guard's (a verdict's literal or
 * `$pending` marker, a `before` of a resumed snapshot's plain copy) and is frozen here, all the way
 * down. Never given a caller's object: those are copied where they come in (the call, the context,
 * every StateView read), so the guard never freezes what it does not own.
 */
export function freezeOwn<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freezeOwn(value[i]);
  } else {
    for (const k of Object.keys(value)) freezeOwn((value as Record<string, unknown>)[k]);
  }
  return Object.freeze(value);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first non-JSON marker inside a JSON-safe value, as `path (kind)`, or null. */
function firstMarker(v: unknown, path: string): string | null {
  // The path of a child is built only on the way back from a marker: a call without one (the common
  // case) costs no strings.
  const found = markerAt(v);
  return found === null ? null : `${path}${found}`;
}

/** The path below `v` of its first marker, with ` (kind)`, or null. */
function markerAt(v: unknown): string | null {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== "object" || x === null) continue;
      const p = markerAt(x);
      if (p !== null) return `[${i}]${p}`;
    }
    return null;
  }
  if (!isPlainObject(v)) return null;
  if (Object.prototype.hasOwnProperty.call(v, NON_JSON)) return ` (${String(v[NON_JSON])})`;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const x = v[keys[i]];
    if (typeof x !== "object" || x === null) continue;
    const p = markerAt(x);
    if (p !== null) return `.${keys[i]}${p}`;
  }
  return null;
}

export type CallCheck = { ok: true; call: ToolCall } | { ok: false; problem: string };

/** Checks a JSON-safe copy of a call: an object with a non-empty string `name` and a plain-object
 * `arguments` holding only JSON. */
export function checkCallShape(safe: unknown, what = "the call"): CallCheck {
  if (!isPlainObject(safe) || Object.prototype.hasOwnProperty.call(safe, NON_JSON)) return { ok: false, problem: `${what} is not an object` };
  if (typeof safe.name !== "string" || safe.name === "") return { ok: false, problem: `${what} has no tool name (\`name\` is not a non-empty string)` };
  const args = safe.arguments;
  if (!isPlainObject(args) || Object.prototype.hasOwnProperty.call(args, NON_JSON)) {
    return { ok: false, problem: `${what} (\`${safe.name}\`): \`arguments\` is not a plain object` };
  }
  const marker = safe === cleanCopy ? null : firstMarker(args, "arguments");
  if (marker !== null) return { ok: false, problem: `${what} (\`${safe.name}\`): \`${marker.split(" ")[0]}\` is not JSON ${marker.slice(marker.indexOf(" ") + 1)}` };
  return { ok: true, call: { name: safe.name, arguments: args } };
}

/** An executed call as the forward sequence records it: name, arguments, and result/before if known.
 * `frozen`: the copy is frozen all the way down (markers and containers; the guard shares it). */
export function safeExecuted(raw: unknown, frozen = false): unknown {
  const safe = frozen ? frozenJsonSafe(raw) : jsonSafe(raw);
  // A marker stays the marker (the check then says "is not an object", not "has no tool name").
  if (!isPlainObject(safe) || Object.prototype.hasOwnProperty.call(safe, NON_JSON)) return safe;
  // Only what the copy holds: an entry without `name` or `arguments` has no such key (an own key whose
  // value is undefined is not JSON, and the record's audit line could not be written).
  const out: Record<string, unknown> = {};
  if (safe.name !== undefined) out.name = safe.name;
  if (safe.arguments !== undefined) out.arguments = safe.arguments;
  if (safe.result !== undefined) out.result = safe.result;
  if (safe.before !== undefined) out.before = safe.before;
  return frozen ? Object.freeze(out) : out;
}

/** jsonSafe(value), with the copy frozen all the way down (a scalar is returned as it is, a marker
 * frozen: walk does both, so there is one path). */
export function frozenJsonSafe(value: unknown): unknown {
  const w: Walk = { nodes: 0, stack: [], freeze: true, marked: false };
  const copy = root(value, w);
  if (!w.marked && typeof copy === "object" && copy !== null) cleanCopy = copy;
  return copy;
}

/** The latest frozen copy made with no `$nonjson` key anywhere in it (frozen all the way down, so it
 * stays so): checkCallShape need not search it for a marker. */
let cleanCopy: object | null = null;

export function checkExecuted(safe: unknown, i: number): { ok: true; call: ExecutedCall } | { ok: false; problem: string } {
  const c = checkCallShape(safe, `forward call ${i}`);
  if (!c.ok) return c;
  const s = safe as Record<string, unknown>;
  const call: ExecutedCall = { name: c.call.name, arguments: c.call.arguments };
  if (s.result !== undefined) call.result = s.result;
  if (s.before !== undefined) {
    if (!isPlainObject(s.before)) return { ok: false, problem: `forward call ${i}: \`before\` is not a plain object` };
    call.before = s.before;
  }
  return { ok: true, call };
}

/** The canonical text of a call, which identifies it across copies and key orders (an observe finds
 * its execution by it; a consent question is bound to its SHA-256). */
export function callKey(call: ToolCall): string {
  return canonicalJsonFast({ name: call.name, arguments: call.arguments });
}

/**
 * A value the guard parsed itself (a tool result's JSON.parse, src/projection/project.ts
 * parseToolResult) made what frozenJsonSafe would make of it, without copying it: frozen in place when
 * it is already exactly that copy's data (plain objects and arrays, finite numbers other than -0,
 * within the depth and size bounds); otherwise the frozen copy. Parts frozen already (adopted by
 * Layer B) are checked too (freezing one again changes nothing). Never given a caller's object.
 */
export function freezeParsed(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return frozenJsonSafe(value);
  const budget = { nodes: 0 };
  return parsedIsCopy(value, 0, budget) ? value : frozenJsonSafe(value);
}

/** Checks `v` (an object) is plain JSON as a frozen copy would hold it, freezing it on the way back. */
function parsedIsCopy(v: object, depth: number, budget: { nodes: number }): boolean {
  // Conservative bounds: anything near walk's limits takes the copying path, which marks it.
  if (depth >= MAX_DEPTH - 1 || ++budget.nodes >= MAX_NODES) return false;
  if (Array.isArray(v)) {
    // A hole reads as undefined, which parsedChild refuses (JSON.parse makes none).
    for (let i = 0; i < v.length; i++) if (!parsedChild(v[i], depth, budget)) return false;
  } else {
    if (Object.getPrototypeOf(v) !== Object.prototype) return false;
    // One Object.values, not a keyed load per key (megamorphic: every object of every result).
    const values = Object.values(v);
    for (let i = 0; i < values.length; i++) if (!parsedChild(values[i], depth, budget)) return false;
  }
  Object.freeze(v);
  return true;
}

function parsedChild(x: unknown, depth: number, budget: { nodes: number }): boolean {
  if (typeof x === "object") return x === null ? ++budget.nodes < MAX_NODES : parsedIsCopy(x, depth + 1, budget);
  if (typeof x === "number") return Number.isFinite(x) && !Object.is(x, -0) && ++budget.nodes < MAX_NODES;
  return (typeof x === "string" || typeof x === "boolean") && ++budget.nodes < MAX_NODES;
}

/** An executed call as the session's forward sequence keeps it, frozen: `call` the guard's checked
 * frozen copy, `before` a frozen snapshot of its own, `result` (when `hasResult`) a value it parsed
 * itself (freezeParsed):
 * what safeExecuted(entry, true) makes of them, without copying them again. */
export function ownExecuted(call: ToolCall, hasResult: boolean, result: unknown, before: LazyBefore): ExecutedCall {
  const out: ExecutedCall = { name: call.name, arguments: call.arguments };
  // A result that is not JSON at all (undefined) is the copy's marker, as the copy made it.
  if (hasResult) out.result = freezeParsed(result);
  setBefore(out, before);
  return Object.freeze(out);
}

/** A `before` snapshot (frozen, the guard's own), or a function that makes one when first read. */
export type LazyBefore = Record<string, unknown> | (() => Record<string, unknown>) | undefined;

/** Sets an entry's `before`: a value as it is, a function as a field made when first read (./lazy.ts);
 * nothing for undefined. */
export function setBefore(entry: ExecutedCall, before: LazyBefore): void {
  if (typeof before === "function") defineLazyBefore(entry, before);
  else if (before !== undefined) entry.before = before;
}
