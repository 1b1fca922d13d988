// Small facts about the blob layout shared by the encoder, the loader and the summary: section names,
// alignment, and the header and section table read without interpreting any section.
import {
  ABI_VERSION,
  BLOB_DIGEST_FROM,
  BLOB_FORMAT_VERSION,
  BLOB_HEADER_SIZE,
  BLOB_MAGIC,
  HDR_ABI_VERSION,
  HDR_BLOB_DIGEST,
  HDR_COMPILER_VERSION,
  HDR_FLAGS,
  HDR_FORMAT_VERSION,
  HDR_MAGIC,
  HDR_RESERVED,
  HDR_SECTION_COUNT,
  HDR_SOURCE_SHA256,
  HDR_TOTAL_LEN,
  SECTION_COUNT,
  SECTION_ENTRY_SIZE,
  Section,
} from "../abi.js";
import { sha256 } from "../util/sha256.js";
import { BlobError } from "./errors.js";

export const LE = true;
export const ALIGN = 8;
/** Where the first section starts: the header and the section table, rounded up to the alignment. */
export const FIRST_SECTION_OFFSET = align(BLOB_HEADER_SIZE + SECTION_COUNT * SECTION_ENTRY_SIZE);

export function align(n: number): number {
  return Math.ceil(n / ALIGN) * ALIGN;
}

export function sectionName(id: number): string {
  const name = (Section as unknown as Record<number, string | undefined>)[id];
  return name === undefined ? `#${id}` : name;
}

/** The header digest: SHA-256 of every byte of [0, total) except the digest field itself. */
export function blobDigest(bytes: Uint8Array, total: number, hash: (data: Uint8Array) => Uint8Array = sha256): Uint8Array {
  const covered = new Uint8Array(total - (BLOB_DIGEST_FROM - HDR_BLOB_DIGEST));
  covered.set(bytes.subarray(0, HDR_BLOB_DIGEST));
  covered.set(bytes.subarray(BLOB_DIGEST_FROM, total), HDR_BLOB_DIGEST);
  return hash(covered);
}

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export interface BlobHeader {
  abiVersion: number;
  formatVersion: number;
  totalLength: number;
  sectionCount: number;
  sourceSha256: Uint8Array;
  storedDigest: Uint8Array;
  compilerVersionIndex: number;
}

export interface SectionRef {
  id: number;
  offset: number;
  length: number;
}

/** Reads and checks the fixed header: magic, versions, length, reserved fields. Sections are not read. */
export function readHeader(bytes: Uint8Array): BlobHeader {
  const view = viewOf(bytes);
  if (bytes.length < 4) {
    throw new BlobError(
      "blob-truncated",
      `blob is truncated: ${bytes.length} bytes, the header alone needs ${BLOB_HEADER_SIZE}`,
      bytes.length,
    );
  }
  const magic = view.getUint32(HDR_MAGIC, LE);
  if (magic !== BLOB_MAGIC) {
    throw new BlobError(
      "bad-magic",
      `not a polar ontology blob: magic is 0x${hex32(magic)}, expected 0x${hex32(BLOB_MAGIC)}`,
      HDR_MAGIC,
      "compile the ontology source with `polar compile FILE -o OUT.blob`",
    );
  }
  if (bytes.length < BLOB_HEADER_SIZE) {
    throw new BlobError(
      "blob-truncated",
      `blob is truncated: ${bytes.length} bytes, the header alone needs ${BLOB_HEADER_SIZE}`,
      bytes.length,
    );
  }
  const abiVersion = view.getUint16(HDR_ABI_VERSION, LE);
  if (abiVersion !== ABI_VERSION) {
    throw new BlobError(
      "abi-version-mismatch",
      `blob has ABI version ${abiVersion}, this engine reads ABI version ${ABI_VERSION}`,
      HDR_ABI_VERSION,
      "recompile the ontology source with this version of polar-guard",
    );
  }
  const formatVersion = view.getUint16(HDR_FORMAT_VERSION, LE);
  if (formatVersion !== BLOB_FORMAT_VERSION) {
    throw new BlobError(
      "format-version-mismatch",
      `blob has format version ${formatVersion}, this engine reads format version ${BLOB_FORMAT_VERSION}`,
      HDR_FORMAT_VERSION,
      "recompile the ontology source with this version of polar-guard",
    );
  }
  const totalLength = view.getUint32(HDR_TOTAL_LEN, LE);
  if (totalLength > bytes.length) {
    throw new BlobError(
      "blob-truncated",
      `blob is truncated: its header says ${totalLength} bytes, got ${bytes.length}`,
      bytes.length,
    );
  }
  if (totalLength < bytes.length) {
    throw new BlobError(
      "length-mismatch",
      `blob is ${bytes.length} bytes but its header says ${totalLength}`,
      HDR_TOTAL_LEN,
      "the file has trailing bytes: it was altered or concatenated",
    );
  }
  if (view.getUint32(HDR_FLAGS, LE) !== 0) {
    throw new BlobError("bad-reserved", "header flags are not zero", HDR_FLAGS);
  }
  for (let at = HDR_RESERVED; at < BLOB_HEADER_SIZE; at++) {
    if (bytes[at] !== 0) throw new BlobError("bad-reserved", "reserved header bytes are not zero", at);
  }
  return {
    abiVersion,
    formatVersion,
    totalLength,
    sectionCount: view.getUint32(HDR_SECTION_COUNT, LE),
    sourceSha256: bytes.slice(HDR_SOURCE_SHA256, HDR_SOURCE_SHA256 + 32),
    storedDigest: bytes.slice(HDR_BLOB_DIGEST, HDR_BLOB_DIGEST + 32),
    compilerVersionIndex: view.getUint32(HDR_COMPILER_VERSION, LE),
  };
}

/**
 * Reads the section table and checks it describes the one layout the encoder writes: every section id
 * once, in id order, each starting at the next 8-byte boundary after the previous one, zero padding
 * between them, and the blob ending at the boundary after the last. Returns the sections indexed by id.
 */
export function readSectionTable(bytes: Uint8Array, header: BlobHeader): SectionRef[] {
  const view = viewOf(bytes);
  const total = header.totalLength;
  if (header.sectionCount !== SECTION_COUNT) {
    throw new BlobError(
      "bad-section-table",
      `section table has ${header.sectionCount} entries, expected ${SECTION_COUNT}`,
      HDR_SECTION_COUNT,
    );
  }
  const tableEnd = BLOB_HEADER_SIZE + SECTION_COUNT * SECTION_ENTRY_SIZE;
  if (tableEnd > total) {
    throw new BlobError(
      "blob-truncated",
      `blob is truncated: the section table ends at byte ${tableEnd}, the blob at ${total}`,
      total,
    );
  }
  const sections: SectionRef[] = new Array(SECTION_COUNT + 1);
  const seen = new Set<number>();
  let cursor = FIRST_SECTION_OFFSET;
  checkZero(bytes, tableEnd, cursor);
  for (let i = 0; i < SECTION_COUNT; i++) {
    const at = BLOB_HEADER_SIZE + i * SECTION_ENTRY_SIZE;
    const id = view.getUint32(at, LE);
    const offset = view.getUint32(at + 4, LE);
    const length = view.getUint32(at + 8, LE);
    checkSectionId(id, i + 1, seen, at);
    seen.add(id);
    const name = sectionName(id);
    if (offset + length > total) {
      throw new BlobError(
        "section-out-of-range",
        `section ${name} (bytes ${offset}..${offset + length}) runs past the end of the blob (${total} bytes)`,
        at + 4,
      );
    }
    if (offset % ALIGN !== 0) {
      throw new BlobError("bad-section-table", `section ${name} at byte ${offset} is not 8-byte aligned`, at + 4);
    }
    if (offset < cursor) {
      throw new BlobError(
        "bad-section-table",
        `section ${name} at byte ${offset} overlaps the section table or the previous section (free from byte ${cursor})`,
        at + 4,
      );
    }
    if (offset > cursor) {
      throw new BlobError(
        "bad-section-table",
        `section ${name} starts at byte ${offset}, expected ${cursor}`,
        at + 4,
        "sections follow each other in id order, each at the next 8-byte boundary",
      );
    }
    sections[id] = { id, offset, length };
    cursor = align(offset + length);
    checkZero(bytes, offset + length, Math.min(cursor, total));
  }
  if (cursor !== total) {
    throw new BlobError(
      "length-mismatch",
      `blob is ${total} bytes but its last section ends at byte ${cursor}`,
      HDR_TOTAL_LEN,
    );
  }
  return sections;
}

function checkSectionId(id: number, expected: number, seen: Set<number>, at: number): void {
  if (id === expected) return;
  if (id < 1 || id > SECTION_COUNT) {
    throw new BlobError("bad-section-table", `section table entry ${expected - 1} has unknown id ${id}`, at);
  }
  if (seen.has(id)) {
    throw new BlobError("bad-section-table", `section ${sectionName(id)} appears twice in the section table`, at);
  }
  throw new BlobError(
    "bad-section-table",
    `section table entry ${expected - 1} is ${sectionName(id)}, expected ${sectionName(expected)}`,
    at,
    "the table lists every section once, in id order",
  );
}

function checkZero(bytes: Uint8Array, from: number, to: number): void {
  for (let at = from; at < to; at++) {
    if (bytes[at] !== 0) throw new BlobError("bad-padding", `padding byte ${at} is not zero`, at);
  }
}

function hex32(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}
