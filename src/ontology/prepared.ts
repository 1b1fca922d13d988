// A compiled ontology validated once per process (or Worker isolate) and reused by every guard made on
// it. Validating a blob (every index, every bound program, its digest) and hashing it cost more than a
// verdict, and cold JavaScript makes the first time the dearest: a Worker pays it at module scope
// (its 1 s startup budget) instead of inside the first request (its 10 ms CPU budget), and a Durable
// Object woken from storage finds the work already done by its isolate.
import { blobDigestHex, decodeBlob, type Sha256 } from "../blob/index.js";
import { blobDigest, readHeader } from "../blob/layout.js";
import { sha256 as jsSha256 } from "../util/sha256.js";
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
  return cached(bytes) ?? prepareCopy(bytes, bytes.slice(), options.sha256);
}

/** An asynchronous digest, e.g. WebCrypto's: `(data) => crypto.subtle.digest("SHA-256", data)`. */
export type AsyncDigest = (data: Uint8Array) => Promise<ArrayBuffer | Uint8Array>;

/**
 * prepareOntology, with the blob's two SHA-256 digests (the digest check's and the ontology hash)
 * taken by an asynchronous native digest, by default WebCrypto's where the runtime has it. Where no
 * synchronous native hash exists (browsers, workerd), the JavaScript one runs in a cold interpreter and
 * costs several milliseconds per digest; WebCrypto takes a fraction of one. A Worker can await this at
 * module scope. Without any native digest it is prepareOntology.
 */
export async function prepareOntologyAsync(source: OntologyBytes, options: { digest?: AsyncDigest } = {}): Promise<PreparedOntology> {
  const bytes = asBytes(source);
  const hit = cached(bytes);
  if (hit !== undefined) return hit;
  const digest = options.digest ?? webCryptoDigest();
  const blob = bytes.slice();
  const sha256 = digest === undefined ? undefined : await precomputed(blob, digest);
  return cached(bytes) ?? prepareCopy(bytes, blob, sha256);
}

function webCryptoDigest(): AsyncDigest | undefined {
  const subtle = (globalThis as { crypto?: { subtle?: { digest?: unknown } } }).crypto?.subtle;
  if (typeof subtle?.digest !== "function") return undefined;
  return (data) => (subtle as { digest(alg: string, data: Uint8Array): Promise<ArrayBuffer> }).digest("SHA-256", data);
}

/** A synchronous SHA-256 that answers from digests taken ahead of time for exactly the bytes the blob
 * check and the ontology hash will ask for (compared byte for byte), and computes anything else. */
async function precomputed(blob: Uint8Array, digest: AsyncDigest): Promise<Sha256 | undefined> {
  let covered: Uint8Array | undefined;
  try {
    blobDigest(blob, readHeader(blob).totalLength, (d) => {
      covered = d;
      return new Uint8Array(32);
    });
  } catch {
    return undefined; // not a readable blob: decodeBlob will say why
  }
  const inputs = [covered!, blob];
  const digests = (await Promise.all(inputs.map((d) => digest(d)))).map((d) => (d instanceof Uint8Array ? d : new Uint8Array(d)));
  return (data) => {
    if (typeof data !== "string") {
      for (let i = 0; i < inputs.length; i++) if (digests[i].length === 32 && equalBytes(inputs[i], data)) return digests[i].slice();
    }
    return jsSha256(typeof data === "string" ? new TextEncoder().encode(data) : data);
  };
}

function cached(bytes: Uint8Array): PreparedOntology | undefined {
  return cache.get(bytes.buffer)?.find((e) => e.offset === bytes.byteOffset && equalBytes(e.copy, bytes))?.prepared;
}

/** Validates `blob` (a copy of `bytes`) and remembers it for `bytes` and for itself. */
function prepareCopy(bytes: Uint8Array, blob: Uint8Array, sha256: Sha256 | undefined): PreparedOntology {
  // Two copies: the one validated and handed out, and a private one the cache compares against.
  const copy = blob.slice();
  const prepared: PreparedOntology = Object.freeze({
    tables: decodeBlob(blob, { sha256 }),
    hash: blobDigestHex(blob, sha256),
    blob,
  });
  let entries = cache.get(bytes.buffer);
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
