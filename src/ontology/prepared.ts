// A compiled ontology validated once per process (or Worker isolate) and reused by every guard made on
// it. Validating a blob (every index, every bound program, its digest) and hashing it cost more than a
// verdict, and cold JavaScript makes the first time the dearest: a Worker pays it at module scope
// (its 1 s startup budget) instead of inside the first request (its 10 ms CPU budget), and a Durable
// Object woken from storage finds the work already done by its isolate.
import { blobDigestHex, decodeBlob, type Sha256 } from "../blob/index.js";
import type { OntologyTables } from "./tables.js";

/** Validated tables, the blob's hash, and a private copy of the bytes they were read from. */
export interface PreparedOntology {
  readonly tables: OntologyTables;
  readonly hash: string;
  /** The bytes that were validated: a copy, so a caller's later write to its own buffer cannot reach
   * them. Read-only by contract (a typed array cannot be frozen). */
  readonly blob: Uint8Array;
}

/** Bytes of a compiled ontology: a Uint8Array, another typed array, or an ArrayBuffer (a Data module). */
export type OntologyBytes = ArrayBuffer | ArrayBufferView;

interface Entry {
  offset: number;
  copy: Uint8Array;
  prepared: PreparedOntology;
}

/** Prepared ontologies by the buffer the caller's bytes live in. A hit is checked byte for byte
 * against the copy that was validated, so bytes changed in place are validated again, never trusted. */
const cache = new WeakMap<ArrayBufferLike, Entry[]>();

function asBytes(source: OntologyBytes): Uint8Array {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  throw new TypeError("an ontology blob is an ArrayBuffer or a typed array");
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Validates `source` (decodeBlob: a corrupt blob throws BlobError) and hashes it, once: the same bytes
 * passed again, e.g. the same imported Data module in every request of an isolate, return the same
 * frozen PreparedOntology without validating again. createGuard and the runtime loaders accept it.
 */
export function prepareOntology(source: OntologyBytes, options: { sha256?: Sha256 } = {}): PreparedOntology {
  const bytes = asBytes(source);
  let entries = cache.get(bytes.buffer);
  const hit = entries?.find((e) => e.offset === bytes.byteOffset && equalBytes(e.copy, bytes));
  if (hit !== undefined) return hit.prepared;
  // Two copies: the one validated and handed out, and a private one the cache compares against.
  const blob = bytes.slice();
  const copy = blob.slice();
  const prepared: PreparedOntology = Object.freeze({
    tables: decodeBlob(blob, { sha256: options.sha256 }),
    hash: blobDigestHex(blob, options.sha256),
    blob,
  });
  if (entries === undefined) {
    entries = [];
    cache.set(bytes.buffer, entries);
  }
  // One entry per offset: a buffer rewritten in place replaces its entry instead of growing the list.
  const at = entries.findIndex((e) => e.offset === bytes.byteOffset);
  const entry = { offset: bytes.byteOffset, copy, prepared };
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  // The copy handed out is known too, so passing `prepared.blob` on (loadGuard({ blob })) is a hit.
  cache.set(blob.buffer, [{ offset: 0, copy, prepared }]);
  return prepared;
}
