// Canonical JSON: the byte-stable text of a JSON value, used for digests of Layer B values and for
// config hashes. Keys are sorted by UTF-16 code units (as Array.prototype.sort does, and as RFC 8785
// does), no whitespace, numbers in ECMAScript's shortest round-trip form (the same in every runtime),
// -0 written as 0. Anything that is not plain JSON is refused, never silently dropped.
import { sha256Hex } from "../util/sha256.js";
import { ProjectionError } from "./errors.js";

export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, [], new Set());
  return parts.join("");
}

/** SHA-256 (lower-case hex) of `canonicalJson(value)`. */
export function digestHex(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The `$`, `$.key`, `$[0]` path of the value being written, built only for an error (a string per
 * value was allocated otherwise, and digests run on every guard check). */
function pathOf(segments: readonly (string | number)[]): string {
  let path = "$";
  for (const s of segments) path += typeof s === "number" ? `[${s}]` : `.${s}`;
  return path;
}

function notJson(segments: readonly (string | number)[], what: string): ProjectionError {
  const path = pathOf(segments);
  return new ProjectionError("not-json", `value at \`${path}\` is not JSON: ${what}`, {
    help: "canonical JSON accepts null, booleans, finite numbers, strings, arrays and plain objects",
  });
}

function write(value: unknown, out: string[], path: (string | number)[], stack: Set<object>): void {
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(value)) throw notJson(path, `non-finite number ${String(value)}`);
      out.push(Object.is(value, -0) ? "0" : String(value));
      return;
    case "object":
      break;
    default:
      throw notJson(path, typeof value);
  }
  if (value === null) {
    out.push("null");
    return;
  }
  if (stack.has(value)) throw notJson(path, "cycle");
  stack.add(value);
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      // Holes are not JSON: refuse rather than invent null.
      path.push(i);
      if (!(i in value)) throw notJson(path, "array hole");
      write(value[i], out, path, stack);
      path.pop();
    }
    out.push("]");
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw notJson(path, `object of class ${(value as object).constructor?.name ?? "unknown"}`);
    }
    const keys = Object.keys(value).sort();
    out.push("{");
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) out.push(",");
      const k = keys[i];
      out.push(JSON.stringify(k), ":");
      path.push(k);
      write((value as Record<string, unknown>)[k], out, path, stack);
      path.pop();
    }
    out.push("}");
  }
  stack.delete(value);
}
