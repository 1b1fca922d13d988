// `--audit-log FILE` for the replaying commands (`polar demo`, `polar eval tau2`): the decision log of
// every guard the replay ran, one JSONL record per decision, which `polar audit verify FILE --ontology …`
// then re-derives. A replay runs several guards (one per trajectory and scope, interleaved call by
// call); each guard's records are written as one contiguous block in its own order (`seq` 1…n), and
// the whole file is one hash chain over them (src/audit/chain.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createChain } from "../../audit/chain.js";
import type { AuditSink, Decision } from "../../guard/index.js";

export interface AuditLogFile {
  /** A sink for one more guard. */
  sink(): AuditSink;
  /** Writes every guard's records to the file (replacing it); returns how many. */
  write(): number;
}

export function auditLogFile(path: string): AuditLogFile {
  const guards: Decision[][] = [];
  return {
    sink() {
      const records: Decision[] = [];
      guards.push(records);
      return { append: (d: Decision) => void records.push(d) };
    },
    write() {
      const chain = createChain();
      const lines = guards.flat().map((d) => chain.link(d).line);
      // `--audit-log OUT/decisions.jsonl --out OUT`: OUT need not exist yet.
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, lines.length === 0 ? "" : lines.join("\n") + "\n");
      return lines.length;
    },
  };
}
