// The head of a log as its text says: the last record's index and hash, to anchor elsewhere (a
// second system, a ticket, a signed note) so a later verify can tell that the tail was not cut or
// rewritten. It trusts the records before the last: it is `verifyAuditLog` that checks the chain up to
// this head. The last line itself must be a decision record at its place in the chain (its format, and
// `chain.index` equal to its position): a log whose tail is something else (a truncated write, a
// stray line, another file) has no head to anchor, and anchoring it would vouch for nothing.
import type { Sha256 } from "../blob/index.js";
import { DECISION_FORMAT } from "../guard/decision.js";
import { EMPTY_HEAD, recordHash, type ChainHead } from "./chain.js";
import { splitJsonl } from "./jsonl.js";

/** The log's last line is not a decision record at its place in the chain. */
export class AuditHeadError extends Error {
  override readonly name = "AuditHeadError";
  readonly code = "not-a-decision-record";
  constructor(
    message: string,
    /** 1-based line number of the offending line. */
    readonly line: number,
  ) {
    super(message);
  }
}

export function chainHead(text: string, sha256?: Sha256): ChainHead {
  const lines = splitJsonl(text);
  if (lines.length === 0) return { ...EMPTY_HEAD };
  const last = lines[lines.length - 1];
  let record: unknown;
  try {
    record = JSON.parse(last.text);
  } catch (err) {
    throw new AuditHeadError(`line ${last.line}, the last record, is not JSON: ${err instanceof Error ? err.message : String(err)}`, last.line);
  }
  const r = record as { format?: unknown; chain?: { index?: unknown; prev?: unknown } } | null;
  if (typeof r !== "object" || r === null || Array.isArray(r) || r.format !== DECISION_FORMAT) {
    throw new AuditHeadError(`line ${last.line}, the last record, is not a decision record (format ${DECISION_FORMAT})`, last.line);
  }
  const link = r.chain;
  if (typeof link !== "object" || link === null || link.index !== lines.length || typeof link.prev !== "string" || !/^[0-9a-f]{64}$/u.test(link.prev)) {
    throw new AuditHeadError(`line ${last.line}, the last record, does not link into the chain at record ${lines.length}`, last.line);
  }
  return { index: lines.length, hash: recordHash(record, sha256) };
}
