// JS values (Layer B slots, call arguments) → the core's tagged values (docs/semantics.md, "Bound
// programs"): numbers become fixed-point i64 without going through floating-point products, strings
// become interned ids, times become seconds since the epoch. Anything that does not fit the expected
// type becomes Missing, which bound logic treats as UNKNOWN (fail closed).
import { FIXED_ONE, SlotType, ValueTag } from "../abi.js";
import type { Interner } from "./interner.js";

/** A reusable holder so the hot path converts without allocating a result object per operand. */
export interface TaggedValue {
  tag: ValueTag;
  value: bigint;
}

const ONE = BigInt(FIXED_ONE);
const SCALE_DIGITS = 6;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const DECIMAL_NO_INT = /^([+-]?)()\.(\d+)(?:[eE]([+-]?\d+))?$/;

function set(out: TaggedValue, tag: ValueTag, value: bigint): TaggedValue {
  out.tag = tag;
  out.value = value;
  return out;
}

const missing = (out: TaggedValue) => set(out, ValueTag.Missing, 0n);

/**
 * A decimal text (`12`, `-0.1`, `1e-7`, `2.5E3`) as fixed point, floored to 1e-6, or null when it is not
 * a decimal or does not fit in an i64. Exact: digits are shifted, never multiplied as floats.
 */
export function parseFixed(text: string): bigint | null {
  const m = DECIMAL.exec(text) ?? DECIMAL_NO_INT.exec(text);
  if (m === null) return null;
  const [, sign, intPart, fracPart = "", expPart] = m;
  const exp = expPart === undefined ? 0 : Number(expPart);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return null;
  // value = 0.digits × 10^(point), so scaled = digits × 10^(SCALE + exp - frac.length)
  const digits = BigInt((intPart || "0") + fracPart);
  const shift = SCALE_DIGITS + exp - fracPart.length;
  let magnitude: bigint;
  let inexact = false;
  if (shift >= 0) {
    magnitude = digits * 10n ** BigInt(shift);
  } else {
    const div = 10n ** BigInt(-shift);
    magnitude = digits / div;
    inexact = digits % div !== 0n;
  }
  // Floor: a negative value with dropped digits rounds away from zero.
  const scaled = sign === "-" ? -magnitude - (inexact ? 1n : 0n) : magnitude;
  if (scaled < I64_MIN || scaled > I64_MAX) return null;
  return scaled;
}

/** A finite JS number as fixed point, from its shortest decimal form (0.1 → 100000 exactly). */
export function numberToFixed(n: number): bigint | null {
  if (!Number.isFinite(n)) return null;
  // Integers (counts, ids, prices in whole units) are the common case: scaling them is exact, and
  // below 2^53 / 10^6 the product always fits an i64. Same result as the decimal path, without it.
  if (Number.isInteger(n) && n <= MAX_FAST_INT && n >= -MAX_FAST_INT) return BigInt(n) * ONE;
  return parseFixed(String(n));
}

const MAX_FAST_INT = 9_007_199_254;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Seconds since the epoch for an ISO-8601 date or date-time; a text without a zone is UTC (τ²-bench
 * writes `2024-05-15T15:00:00`). Null when it does not parse or names an impossible date.
 */
export function isoSeconds(text: string): number | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", , zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null; // e.g. 02-30
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== "Z") {
    const digits = zone.replace(":", "");
    const sign = digits[0] === "-" ? -1 : 1;
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return Math.floor(ms / 1000) - offsetMinutes * 60;
}

/** A time as fixed-point seconds: an ISO string, a Date or epoch milliseconds. Null when invalid. */
export function timeToFixed(t: string | number | Date): bigint | null {
  let seconds: number | null;
  if (typeof t === "string") seconds = isoSeconds(t);
  else if (t instanceof Date) seconds = Number.isFinite(t.getTime()) ? Math.floor(t.getTime() / 1000) : null;
  else seconds = Number.isFinite(t) ? Math.floor(t / 1000) : null;
  return seconds === null ? null : BigInt(seconds) * ONE;
}

/** A value read for an operand of type `type` (SlotValue / ArgValue). */
export function toTagged(v: unknown, type: SlotType, interner: Interner, out: TaggedValue): TaggedValue {
  if (v === undefined) return missing(out);
  if (v === null) return set(out, ValueTag.Null, 0n);
  switch (type) {
    case SlotType.String:
      if (typeof v === "string") return set(out, ValueTag.String, BigInt(interner.id(v)));
      // Ids are sometimes numbers in call arguments; their decimal text is the string they stand for.
      if (typeof v === "number" && Number.isFinite(v)) return set(out, ValueTag.String, BigInt(interner.id(String(v))));
      return missing(out);
    case SlotType.Number: {
      const fixed = typeof v === "number" ? numberToFixed(v) : typeof v === "string" ? parseFixed(v.trim()) : null;
      return fixed === null ? missing(out) : set(out, ValueTag.Number, fixed);
    }
    case SlotType.Bool:
      return typeof v === "boolean" ? set(out, ValueTag.Bool, v ? 1n : 0n) : missing(out);
    case SlotType.Datetime:
    case SlotType.Date: {
      const fixed = typeof v === "string" ? timeToFixed(v) : null;
      return fixed === null ? missing(out) : set(out, ValueTag.Number, fixed);
    }
    default:
      // Lists and objects have no scalar value; only their size is comparable.
      return missing(out);
  }
}

/** `size(ref)` (SlotSize / ArgSize): a list's length or an object's own key count, as a Number. */
export function toSize(v: unknown, out: TaggedValue): TaggedValue {
  if (Array.isArray(v)) return set(out, ValueTag.Number, BigInt(v.length) * ONE);
  if (isPlainObject(v)) return set(out, ValueTag.Number, BigInt(Object.keys(v).length) * ONE);
  return missing(out);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Pre-split dotted path (`passengers.0.first_name`). */
export function splitPath(path: string): string[] {
  return path.split(".");
}

/** A call argument or result field named as the ontology names it: a plain name, or a dotted path
 * (`key = target.id`, `new_key = booking.id`) followed through own properties. The common plain name
 * costs one own-property lookup. */
export function fieldAt(root: unknown, name: string): unknown {
  if (name.indexOf(".") < 0) {
    if (typeof root !== "object" || root === null || !Object.prototype.hasOwnProperty.call(root, name)) return undefined;
    return (root as Record<string, unknown>)[name];
  }
  return getPath(root, name.split("."));
}

/** Follows a pre-split path through own properties only: `__proto__` or `constructor` are just keys. */
export function getPath(root: unknown, parts: readonly string[]): unknown {
  let v = root;
  for (const key of parts) {
    if (typeof v !== "object" || v === null) return undefined;
    if (!Object.prototype.hasOwnProperty.call(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}
