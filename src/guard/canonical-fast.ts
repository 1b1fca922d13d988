// canonicalJson (src/projection/canonical.ts) for the guard's hot paths: the reads digest and the audit
// line. Same bytes, written as one string instead of a parts array, with no path bookkeeping and no
// ancestor set. Anything it does not write itself (a value canonicalJson refuses, a cycle, a very deep
// value) is handed to canonicalJson, which then writes it or throws its exact refusal.
import { canonicalJson } from "../projection/canonical.js";

/** Characters JSON.stringify escapes: quote, backslash, controls, and (lone) surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/u;

/** Nesting past this is left to canonicalJson (which also detects cycles). */
const MAX_FAST_DEPTH = 128;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** canonicalJson(value), byte for byte. */
export function canonicalJsonFast(value: unknown): string {
  const text = write(value, 0);
  return text === null ? canonicalJson(value) : text;
}

/** The canonical text, or null where canonicalJson must decide (refusal, cycle, depth). */
function write(v: unknown, depth: number): string | null {
  switch (typeof v) {
    case "string":
      return quote(v);
    case "boolean":
      return v ? "true" : "false";
    case "number":
      return Number.isFinite(v) ? (Object.is(v, -0) ? "0" : String(v)) : null;
    case "object":
      break;
    default:
      return null;
  }
  if (v === null) return "null";
  if (depth >= MAX_FAST_DEPTH) return null;
  if (Array.isArray(v)) {
    let s = "[";
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return null;
      const x = write(v[i], depth + 1);
      if (x === null) return null;
      s += i === 0 ? x : `,${x}`;
    }
    return `${s}]`;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return null;
  const keys = Object.keys(v).sort();
  let s = "{";
  for (let i = 0; i < keys.length; i++) {
    const x = write((v as Record<string, unknown>)[keys[i]], depth + 1);
    if (x === null) return null;
    s += `${i === 0 ? "" : ","}${quote(keys[i])}:${x}`;
  }
  return `${s}}`;
}
