// `--audit-log FILE` for the replaying commands (`polar demo`, `polar eval tau2`): the decision log of
// every guard the replay ran, one JSONL record per decision, which `polar audit verify FILE --ontology …`
// then re-derives. A replay runs several guards (one per trajectory and scope, interleaved call by
// call); each guard's records are written as one contiguous block in its own order (`seq` 1…n), so
// every block reads as the log of one guard.
import { writeFileSync } from "node:fs";
import { createMemorySink } from "../../audit/index.js";
import type { AuditSink } from "../../guard/index.js";

export interface AuditLogFile {
  /** A sink for one more guard. */
  sink(): AuditSink;
  /** Writes every guard's records to the file (replacing it); returns how many. */
  write(): number;
}

export function auditLogFile(path: string): AuditLogFile {
  const sinks: ReturnType<typeof createMemorySink>[] = [];
  return {
    sink() {
      const s = createMemorySink();
      sinks.push(s);
      return s;
    },
    write() {
      const lines = sinks.flatMap((s) => s.lines());
      writeFileSync(path, lines.length === 0 ? "" : lines.join("\n") + "\n");
      return lines.length;
    },
  };
}
