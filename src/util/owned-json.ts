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
  if (Object.isFrozen(v)) return owned.has(v) || isCanonicalTree(v, ancestors);
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

function isCanonicalTree(v: unknown, ancestors: object[]): boolean {
  if (typeof v !== "object" || v === null) return scalarOk(v);
  if (owned.has(v)) return true;
  if (ancestors.includes(v)) return false;
  ancestors.push(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !isCanonicalTree(v[i], ancestors)) return false;
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) if (!isCanonicalTree((v as Record<string, unknown>)[keys[i]], ancestors)) return false;
  }
  ancestors.pop();
  return true;
}
