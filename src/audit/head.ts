// The head of a log as its text says: the last record's index and hash, to anchor elsewhere (a
// second system, a ticket, a signed note) so a later verify can tell that the tail was not cut or
// rewritten. It trusts the text: it is `verifyAuditLog` that checks the chain up to this head.
import type { Sha256 } from "../blob/index.js";
import { EMPTY_HEAD, recordHash, type ChainHead } from "./chain.js";
import { splitJsonl } from "./jsonl.js";

export function chainHead(text: string, sha256?: Sha256): ChainHead {
  const lines = splitJsonl(text);
  if (lines.length === 0) return { ...EMPTY_HEAD };
  const last = lines[lines.length - 1];
  return { index: lines.length, hash: recordHash(JSON.parse(last.text), sha256) };
}
