// The decision log: one JSON object per line (JSONL), each a Decision (src/guard/decision.ts) written
// as canonical JSON so equal decisions are equal lines.
import type { Decision } from "../guard/decision.js";
import type { AuditSink } from "../guard/guard.js";
import { canonicalJsonFast } from "../guard/canonical-fast.js";

export function decisionLine(decision: Decision): string {
  // canonicalJson's bytes, written faster (src/guard/canonical-fast.ts).
  return canonicalJsonFast(decision);
}

/** A sink that keeps the records in memory (tests, short sessions). */
export function createMemorySink(): AuditSink & { records: Decision[]; lines(): string[] } {
  const records: Decision[] = [];
  return {
    records,
    append(d: Decision): void {
      records.push(d);
    },
    lines: () => records.map(decisionLine),
  };
}

/** A sink that hands each record as one JSONL line (with its newline) to `write`, e.g. a file append
 * in Node or a Durable Object storage put in Workers. */
export function createJsonlSink(write: (line: string) => void): AuditSink {
  return { append: (d: Decision) => write(`${decisionLine(d)}\n`) };
}

/** The non-empty lines of a JSONL text, with their 1-based line numbers. */
export function splitJsonl(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  text.split("\n").forEach((t, i) => {
    if (t.trim() !== "") out.push({ line: i + 1, text: t.replace(/\r$/u, "") });
  });
  return out;
}
