// TOML documents (τ²-bench telecom's db.toml and user_db.toml) as plain JSON values, so the same
// projection rules apply. smol-toml is dependency-free and runtime-neutral.
import { parse } from "smol-toml";
import { ProjectionError } from "./errors.js";

export function parseTomlDocument(text: string): unknown {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new ProjectionError("bad-document", "document is not valid toml", { help: err instanceof Error ? err.message : String(err) });
  }
  return toJson(raw);
}

// TOML dates/times become strings (their TOML text form) so Layer B holds only JSON values. TOML's
// `inf` and `nan` (and integers past 2^1024) have no JSON form: the document is refused.
function toJson(v: unknown, path = "$"): unknown {
  if (v instanceof Date) return (v as Date & { toISOString(): string }).toISOString();
  if (Array.isArray(v)) return v.map((x, i) => toJson(x, `${path}[${i}]`));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: toJson((v as Record<string, unknown>)[k], `${path}.${k}`), enumerable: true, writable: true, configurable: true });
    return out;
  }
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n === "number" && !Number.isFinite(n)) {
    throw new ProjectionError("bad-document", `toml value at \`${path}\` is not a finite number`, { help: "json, and so layer b, has no inf or nan" });
  }
  return n;
}
