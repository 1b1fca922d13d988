// The decision log: one JSON object per line (JSONL), each a Decision (src/guard/decision.ts) written
// as canonical JSON so equal decisions are equal lines. The sinks chain their lines (./chain.ts): each
// carries its position in the log and the hash of the line before it.
import type { Sha256 } from "../blob/index.js";
import type { Decision } from "../guard/decision.js";
import type { AuditSink } from "../guard/guard.js";
import { canonicalJsonFast } from "../guard/canonical-fast.js";
import { createChain, type ChainHead } from "./chain.js";
import type { OutcomeRecord, OutcomeSink } from "./outcome.js";

export function decisionLine(decision: Decision): string {
  // canonicalJson's bytes, written faster (src/guard/canonical-fast.ts).
  return canonicalJsonFast(decision);
}

export interface SinkOptions {
  /** A synchronous SHA-256 for the chain (Node: node:crypto's); default the JavaScript one. */
  sha256?: Sha256;
  /** Continue an existing log: its head (`chainHead` of its text). Default: a new log. */
  from?: ChainHead;
}

/** A sink that keeps the records in memory (tests, short sessions); `lines()` is the chained log. */
export function createMemorySink(options: SinkOptions = {}): AuditSink & OutcomeSink & { records: Decision[]; lines(): string[]; head(): ChainHead } {
  const records: Decision[] = [];
  const chain = createChain(options);
  const lines: string[] = [];
  return {
    records,
    append(d: Decision): void {
      records.push(d);
      lines.push(chain.link(d).line);
    },
    outcome(o: OutcomeRecord): void {
      lines.push(chain.link(o as unknown as Decision).line);
    },
    lines: () => lines.slice(),
    head: () => chain.head(),
  };
}

/** A sink that hands each record as one chained JSONL line (with its newline) to `write`, e.g. a file
 * append in Node or a Durable Object storage put in Workers. `head()` is the hash to anchor elsewhere. */
export function createJsonlSink(write: (line: string) => void, options: SinkOptions = {}): AuditSink & OutcomeSink & { head(): ChainHead } {
  let chain = createChain(options);
  const put = (r: Decision | OutcomeRecord): void => {
    // The chain advances only once the line is handed over, so a failing write leaves no hole.
    const before = chain.head();
    const { line } = chain.link(r as Decision);
    try {
      write(`${line}\n`);
    } catch (e) {
      chain = createChain({ ...options, from: before });
      throw e;
    }
  };
  return {
    append: (d: Decision) => put(d),
    outcome: (o: OutcomeRecord) => put(o),
    head: () => chain.head(),
  };
}

/** The non-empty lines of a JSONL text, with their 1-based line numbers. */
export function splitJsonl(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  text.split("\n").forEach((t, i) => {
    if (t.trim() !== "") out.push({ line: i + 1, text: t.replace(/\r$/u, "") });
  });
  return out;
}
