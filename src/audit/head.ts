// The head of a log as its text says: the last record's index and hash, to anchor elsewhere (a
// second system, a ticket, a signed note) so a later verify can tell that the tail was not cut or
// rewritten. It trusts the records before the last: it is `verifyAuditLog` that checks the chain up to
// this head. The last line itself must be a record of the chain at its place (a decision, a gateway's
// outcome or a hook's answer: its format, and `chain.index` equal to its position): a log whose tail is
// something else (a truncated write, a stray line, another file) has no head to anchor, and anchoring
// it would vouch for nothing.
import type { Sha256 } from "../blob/index.js";
import { DECISION_FORMAT } from "../guard/decision.js";
import { EMPTY_HEAD, recordHash, type ChainHead } from "./chain.js";
import { HOOK_RECORD_FORMAT } from "./hook-record.js";
import { splitJsonl } from "./jsonl.js";
import { OUTCOME_FORMAT } from "./outcome.js";

/** The formats of the records a chain holds (verifyAuditLog checks each kind). */
const CHAINED_FORMATS: ReadonlySet<unknown> = new Set([DECISION_FORMAT, OUTCOME_FORMAT, HOOK_RECORD_FORMAT]);

/** The log's last line is not a record of the chain at its place. */
export class AuditHeadError extends Error {
  readonly code = "not-a-decision-record";
}

export function chainHead(text: string, sha256?: Sha256): ChainHead {
  const lines = splitJsonl(text);
  if (lines.length === 0) return { ...EMPTY_HEAD };
  const last = lines[lines.length - 1];
  let r: { format?: unknown; chain?: { index?: unknown; prev?: unknown } } | null = null;
  try {
    r = JSON.parse(last.text);
  } catch {
    // below
  }
  const link = r?.chain;
  if (!CHAINED_FORMATS.has(r?.format) || link?.index !== lines.length || !/^[0-9a-f]{64}$/u.test(String(link.prev))) {
    throw new AuditHeadError(`line ${last.line}, the last, is not a record of the chain (decision, outcome or hook answer) at place ${lines.length} of the chain`);
  }
  return { index: lines.length, hash: recordHash(r, sha256) };
}
