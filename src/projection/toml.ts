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

// TOML dates/times become strings (their TOML text form) so Layer B holds only JSON values.
function toJson(v: unknown): unknown {
  if (v instanceof Date) return (v as Date & { toISOString(): string }).toISOString();
  if (Array.isArray(v)) return v.map(toJson);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: toJson((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  if (typeof v === "bigint") return Number(v);
  return v;
}
