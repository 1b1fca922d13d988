// The decision log as a hash chain. Every record the log writer emits carries `chain: { index, prev }`:
// its 1-based position in the log and the hash of the record before it (GENESIS for the first). A
// record's hash is the SHA-256 of its canonical JSON, chain field included, so each record commits to
// every record before it: an edit, a deletion, a duplicate or a reordering anywhere but at the tail
// breaks the next record's `prev`. The tail is anchored by storing the last hash elsewhere
// (`chainHead`, `polar audit head`). docs/security.md, "The audit log", says what this cannot catch.
import type { Sha256 } from "../blob/index.js";
import type { Decision } from "../guard/decision.js";
import { canonicalJsonFast } from "../guard/canonical-fast.js";
import { sha256Hex, toHex } from "../util/sha256.js";

/** `prev` of a log's first record: no record hashes to it. */
export const CHAIN_GENESIS = "0".repeat(64);

export interface ChainLink {
  /** 1-based position in the log, contiguous from the log's start. */
  index: number;
  /** The hash of the record at `index - 1`, or CHAIN_GENESIS. */
  prev: string;
}

/** The end of a chain: the last record's index and hash (index 0 and GENESIS for an empty log). */
export interface ChainHead {
  index: number;
  hash: string;
}

export type ChainedDecision = Decision & { chain: ChainLink };

export const EMPTY_HEAD: ChainHead = Object.freeze({ index: 0, hash: CHAIN_GENESIS });

/** SHA-256 (hex) of a text's UTF-8 bytes with the given function, or the JavaScript one. */
export function hashText(text: string, sha256?: Sha256): string {
  return sha256 === undefined ? sha256Hex(text) : toHex(sha256(new TextEncoder().encode(text)));
}

export interface Chain {
  /** The record with its chain link, its canonical line (no newline) and the line's hash. */
  link(decision: Decision): { record: ChainedDecision; line: string; hash: string };
  head(): ChainHead;
}

/** A chain writer; `from` continues an existing log (its head), e.g. when appending to a file. */
export function createChain(options: { sha256?: Sha256; from?: ChainHead } = {}): Chain {
  const from = options.from ?? EMPTY_HEAD;
  if (!Number.isInteger(from.index) || from.index < 0 || !/^[0-9a-f]{64}$/u.test(from.hash)) {
    throw new TypeError("a chain head is `{ index, hash }`: a non-negative integer and 64 lower-case hex digits");
  }
  let head: ChainHead = { index: from.index, hash: from.hash };
  return {
    link(decision) {
      // A spread reads the lazy stateDigest (src/guard/reads.ts) like any other field.
      const record = { ...decision, chain: { index: head.index + 1, prev: head.hash } } as ChainedDecision;
      const line = canonicalJsonFast(record);
      const hash = hashText(line, options.sha256);
      head = { index: record.chain.index, hash };
      return { record, line, hash };
    },
    head: () => ({ ...head }),
  };
}

/** The hash of a parsed record as the chain defines it (SHA-256 of its canonical JSON). */
export function recordHash(record: unknown, sha256?: Sha256): string {
  return hashText(canonicalJsonFast(record), sha256);
}
