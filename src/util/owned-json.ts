// JSON values the library owns. What a caller hands over (a database it projects, a value it sets in
// Layer B, a StateView's answer) stays the caller's: the library never freezes or changes it. Where the
// library keeps such a value it keeps a copy of its own, frozen all the way down, so nothing the
// library hands out (a decision, a verdict) can be used to change its state, and the caller can go on
// changing its own objects (a tool updating its database in place).
//
// A copy's root is remembered (a WeakSet) when it is long-lived (Layer B's values): a reader then shares
// it instead of copying it again. Short-lived copies (one check's) are not remembered: a WeakSet entry is
// paid for in every garbage collection.

/** Roots of copies made here, frozen all the way down (every part of them is a copy made here, or a
 * part of another such root). */
const owned = new WeakSet<object>();

/** What ownedJson answers for a value that is not canonical JSON. */
export const NOT_JSON: unique symbol = Symbol("not canonical JSON");

/** A copy made by ownedJson with `remember` (or a part of one that was itself remembered). */
export function isOwnedJson(value: unknown): boolean {
  return typeof value === "object" && value !== null && owned.has(value);
}

/**
 * `value` as a library-owned canonical JSON value: a JSON scalar as it is, a remembered copy as it is,
 * any other array or plain (or prototype-free) object copied, frozen all the way down (remembered parts
 * shared). NOT_JSON, with nothing copied or changed, for what canonicalJson (src/projection/canonical.ts)
 * refuses: a non-finite number, undefined, a function, a symbol, a bigint, an array hole, an object of
 * a class, a cycle; also for a value whose reading throws (a getter, a revoked proxy). The copy keeps
 * the source's prototype (Object.prototype or none) and defines keys such as `__proto__` as data.
 * `remember`: register the copy's root, for a copy that lives long (Layer B's).
 */
export function ownedJson(value: unknown, remember: boolean): unknown {
  if (typeof value !== "object" || value === null) return scalarOk(value) ? value : NOT_JSON;
  if (owned.has(value)) return value;
  let out: unknown;
  try {
    out = copy(value, []);
  } catch {
    return NOT_JSON;
  }
  if (out !== NOT_JSON && remember) owned.add(out as object);
  return out;
}

/** Whether a slot of Layer B holding `held` would hold the same after `set(…, value)`: `held` is a JSON
 * scalar or Layer B's own frozen copy (never a value it keeps as given because it was not JSON), and
 * `value` is that very value or the same JSON written the same way (JSON scalars equal, -0 not 0, arrays
 * of the same values, objects of the same prototype, plain or none, with the same keys in the same
 * order): `set` would keep another frozen copy of the same tree. */
export function sameOwnedJson(held: unknown, value: unknown): boolean {
  if (typeof held === "object" && held !== null) return owned.has(held) && (held === value || sameTree(held, value, 0));
  return Object.is(held, value) && scalarOk(held);
}

// `a` is a part of Layer B's own JSON (no holes: copies and adoptions refuse arrays with holes); `b`
// may be anything. A scalar part is compared in the loops themselves: a call per leaf otherwise (the
// recursion is never inlined), and a re-projected record compares some thirty leaves per observe.
function sameTree(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a !== "object" || a === null) return Object.is(a, b) && scalarOk(a);
  if (typeof b !== "object" || b === null || depth > 1000) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!(i in b)) return false;
      const x = a[i];
      if (typeof x !== "object" || x === null ? !Object.is(x, b[i]) || !scalarOk(x) : !sameTree(x, b[i], depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const pa = Object.getPrototypeOf(a);
  if ((pa !== Object.prototype && pa !== null) || Object.getPrototypeOf(b) !== pa) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (k !== kb[i]) return false;
    const x = (a as Record<string, unknown>)[k];
    const y = (b as Record<string, unknown>)[k];
    if (typeof x !== "object" || x === null ? !Object.is(x, y) || !scalarOk(x) : !sameTree(x, y, depth + 1)) return false;
  }
  return true;
}

function scalarOk(v: unknown): boolean {
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

/** A frozen copy of an object (never null), or NOT_JSON. `ancestors`: the objects being copied above it. */
function copy(v: object, ancestors: object[]): unknown {
  if (owned.has(v)) return v;
  if (ancestors.includes(v)) return NOT_JSON;
  ancestors.push(v);
  let out: object;
  if (Array.isArray(v)) {
    const arr: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return NOT_JSON;
      const x = v[i];
      const c = typeof x === "object" && x !== null ? copy(x, ancestors) : scalarOk(x) ? x : NOT_JSON;
      if (c === NOT_JSON) return NOT_JSON;
      arr[i] = c;
    }
    out = arr;
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return NOT_JSON;
    const obj = (proto === null ? Object.create(null) : {}) as Record<string, unknown>;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const x = (v as Record<string, unknown>)[k];
      const c = typeof x === "object" && x !== null ? copy(x, ancestors) : scalarOk(x) ? x : NOT_JSON;
      if (c === NOT_JSON) return NOT_JSON;
      // Names Object.prototype has (`__proto__`, …) are defined, so they stay plain data keys.
      if (proto !== null && k in Object.prototype) Object.defineProperty(obj, k, { value: c, enumerable: true, writable: true, configurable: true });
      else obj[k] = c;
    }
    out = obj;
  }
  ancestors.pop();
  return Object.freeze(out);
}

/**
 * A value the library made itself and shares with no caller (the parts of a tool result it parsed, of
 * the guard's copy of a call, of Layer B's own values, or new objects built from them), made owned in
 * place: frozen all the way down (a frozen part is the library's and frozen already) and its root
 * remembered. Never given a caller's value. NOT_JSON, with nothing frozen, when it is not canonical JSON.
 */
export function adoptOwnJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return scalarOk(value) ? value : NOT_JSON;
  if (owned.has(value)) return value;
  // One walk checks and freezes; on a refusal what it froze stays frozen (it is the library's own).
  if (!adoptWalk(value, [])) return NOT_JSON;
  owned.add(value);
  return value;
}

/** Freezes a library-owned value all the way down while checking it is canonical JSON (a part frozen
 * already is the library's and was checked when it was frozen). */
function adoptWalk(v: object, ancestors: object[]): boolean {
  // (A frozen part that is not remembered is checked by copying it: rare, and the same test.)
  if (Object.isFrozen(v)) return copy(v, ancestors) !== NOT_JSON;
  if (ancestors.includes(v)) return false;
  ancestors.push(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return false;
      const x = v[i];
      if (typeof x === "object" && x !== null ? !adoptWalk(x, ancestors) : !scalarOk(x)) return false;
    }
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const x = (v as Record<string, unknown>)[keys[i]];
      if (typeof x === "object" && x !== null ? !adoptWalk(x, ancestors) : !scalarOk(x)) return false;
    }
  }
  ancestors.pop();
  Object.freeze(v);
  return true;
}
