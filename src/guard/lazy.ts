// Fields made when first read (issue 27 §1): a verdict record's `bytes` (the canonical verdict bytes as
// hex: a check keeps the verifier's byte copy and only a serialised record pays for the text) and an
// observed call's `before` (the entity as it was before the call ran: made from the record Layer B keeps
// unchanged for it, when a later check, a snapshot or a record reads it; most are committed unread).
// Each field is an own enumerable accessor, in its place among the fields: JSON.stringify,
// canonicalJson, spreads, structuredClone and deep equality see plain data; what makes it is held in a
// private field, out of every serialisation (the same device as the record's stateDigest, ./reads.ts).
// A private field may be written on a frozen object, so the value is made once and kept.
import { wordsToBytes } from "../core/record.js";
import { toHex } from "../util/sha256.js";

/** A base whose constructor returns the object it is given, so a subclass's private fields land on it. */
class Returning {
  constructor(target: object) {
    return target as Returning;
  }
}

class HexHolder extends Returning {
  #bytes: Uint8Array | number[] | null;
  #hex: string | null = null;
  constructor(target: object, bytes: Uint8Array | number[]) {
    super(target);
    this.#bytes = bytes;
  }

  /** The hex text, made once (a private field may be written on a frozen record). */
  static hexOf(record: object): string {
    const h = record as HexHolder;
    if (h.#hex === null) {
      const b = h.#bytes!;
      h.#hex = toHex(Array.isArray(b) ? wordsToBytes(b) : b);
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

/** Gives `record` its `bytes` field: the hex of `bytes` (which the record then owns; or the bytes'
 * little-endian 32-bit words, src/core/record.ts outputWords), made when read. */
export function defineLazyHex(record: object, bytes: Uint8Array | number[]): void {
  new HexHolder(record, bytes);
  Object.defineProperty(record, "bytes", BYTES);
}

/** defineLazyHex for a record that is frozen before it is handed out (the guard's verdicts: the freeze
 * makes the field non-configurable, as defineLazyHex defines it). `__defineGetter__` reads no
 * descriptor object: the cheaper of the two runtime calls, on every check. */
export function defineLazyHexToFreeze(record: object, bytes: Uint8Array | number[]): void {
  new HexHolder(record, bytes);
  (record as { __defineGetter__(name: string, get: () => unknown): void }).__defineGetter__("bytes", getBytes);
}

class BeforeHolder extends Returning {
  #make: (() => Record<string, unknown>) | null;
  #value: Record<string, unknown> | undefined = undefined;
  constructor(target: object, make: () => Record<string, unknown>) {
    super(target);
    this.#make = make;
  }

  static made(entry: object): Record<string, unknown> {
    const h = entry as BeforeHolder;
    if (h.#make !== null) {
      h.#value = h.#make();
      h.#make = null;
    }
    return h.#value!;
  }
}

function getBefore(this: object): Record<string, unknown> {
  return BeforeHolder.made(this);
}

const BEFORE: PropertyDescriptor = { get: getBefore, enumerable: true, configurable: false };

/** Gives `entry` its `before` field, made by `make` when first read. `make` is called once and must
 * answer a frozen object of the guard's own (src/guard/before.ts). */
export function defineLazyBefore(entry: object, make: () => Record<string, unknown>): void {
  new BeforeHolder(entry, make);
  Object.defineProperty(entry, "before", BEFORE);
}
