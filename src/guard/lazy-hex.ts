// A verdict record's `bytes` (the canonical verdict bytes as hex) written when first read: a check keeps
// the verifier's byte copy and only a serialised record (the audit log, a replay, JSON) pays for the
// hex text. The field is an own enumerable accessor, in its place among the fields: JSON.stringify,
// canonicalJson, spreads, structuredClone and deep equality see a plain string; the bytes are held in a
// private field, out of every serialisation (the same device as the record's stateDigest, ./reads.ts).
import { toHex } from "../util/sha256.js";

/** A base whose constructor returns the object it is given, so a subclass's private fields land on it. */
class Returning {
  constructor(target: object) {
    return target as Returning;
  }
}

class HexHolder extends Returning {
  #bytes: Uint8Array | null;
  #hex: string | null = null;
  constructor(target: object, bytes: Uint8Array) {
    super(target);
    this.#bytes = bytes;
  }

  /** The hex text, made once (a private field may be written on a frozen record). */
  static hexOf(record: object): string {
    const h = record as HexHolder;
    if (h.#hex === null) {
      h.#hex = toHex(h.#bytes!);
      h.#bytes = null;
    }
    return h.#hex;
  }
}

// One getter for every record (a getter literal per record would give each its own hidden class).
function getBytes(this: object): string {
  return HexHolder.hexOf(this);
}

const BYTES: PropertyDescriptor = { get: getBytes, enumerable: true, configurable: false };

/** Gives `record` its `bytes` field: the hex of `bytes` (which the record then owns), made when read. */
export function defineLazyHex(record: object, bytes: Uint8Array): void {
  new HexHolder(record, bytes);
  Object.defineProperty(record, "bytes", BYTES);
}
