// "One write, one vote": an agent that repeats an identical call in a run (the same tool with the same
// arguments, e.g. a retry after a refusal it could not see, or a loop) must not outweigh another model.
// Deduplicated figures count such repeats once: the first effective occurrence in the run, the one a
// guarded agent would have been stopped at (its later repeats would not have happened as they did).
import { canonicalJson } from "../projection/canonical.js";
import type { CallRow } from "./collect.js";
import { normalizeJsonStrings } from "./label.js";

/** Identity of a call for deduplication: run (results file and simulation), tool and canonical
 * arguments (keys sorted; strings holding JSON compared as that JSON, as the labels compare them). */
export function dedupKey(row: Pick<CallRow, "file" | "simulation" | "tool" | "arguments">): string {
  return `${row.file}\u0000${row.simulation}\u0000${row.tool}\u0000${canonicalArgs(row.arguments)}`;
}

function canonicalArgs(args: Record<string, unknown>): string {
  try {
    return canonicalJson(normalizeJsonStrings(args));
  } catch {
    // A value canonical JSON refuses (a JSON string holding 1e400 parses to Infinity): compare the text.
    return JSON.stringify(args);
  }
}

/** The rows with every repeat of an earlier identical row (same key) left out, order kept. */
export function dedupRows<T extends Pick<CallRow, "file" | "simulation" | "tool" | "arguments">>(rows: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of rows) {
    const k = dedupKey(r);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}
