// Shared by the compiler tests: compiling with a throw on failure, and the corpus loader.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile, formatDiagnostic, type CompileLimits } from "../../src/compiler/index.js";
import type { OntologyTables } from "../../src/ontology/tables.js";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CORPUS_DIR = join(REPO, "test", "corpus", "diagnostics");

/** The tables of a source that must compile without errors (warnings allowed). */
export function tablesOf(source: string): OntologyTables {
  const r = compile(source);
  if (!r.ok) {
    throw new Error(r.diagnostics.map((d) => formatDiagnostic(d, source, "test.polar")).join("\n"));
  }
  return r.tables;
}

/** Codes and positions of a source's diagnostics, as the corpus writes them. */
export function codesOf(source: string | Uint8Array, limits?: Partial<CompileLimits>): { code: string; line: number; col: number }[] {
  return compile(source, { limits }).diagnostics.map((d) => ({ code: d.code, line: d.span.line, col: d.span.col }));
}

export interface CorpusCase {
  file: string;
  name: string;
  source: string | Uint8Array;
  limits?: Partial<CompileLimits>;
  expected: { code: string; line: number; col: number }[];
}

export function loadCorpus(): CorpusCase[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(CORPUS_DIR, file), "utf8"));
      const source = typeof raw.sourceBase64 === "string" ? new Uint8Array(Buffer.from(raw.sourceBase64, "base64")) : raw.source;
      return { file, name: raw.name, source, limits: raw.limits, expected: raw.expected };
    });
}

/** A small ontology with one of everything, used by several unit tests. */
export const PRELUDE = `slot_definition(order, status, string).
slot_definition(order, total, number).
slot_definition(order, items, list).
slot_definition(order, placed_at, datetime).
slot_definition(order, paid, bool).
slot_definition(order, due, date).
slot_definition(user, name, string).
loss_class_definition(fee, weight = 0.10).
sink_definition(email, external = true).
tool(place_order, acts_on = user, key = user_id, creates = order, new_key = order_id).
tool(cancel_order, acts_on = order, key = order_id).
tool(update_order, acts_on = order, key = order_id).
tool(notify).
read_only(get_order).
`;
