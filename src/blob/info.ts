// What `polar inspect` shows about a blob: its versions, hashes, section sizes and record counts, and
// whether it passes validation. Readable even for a blob the loader refuses, as long as it has a header.
import {
  EDGE_SIZE,
  ENTITY_SIZE,
  LOSS_SIZE,
  OPERAND_SIZE,
  PROGRAM_SIZE,
  SINK_SIZE,
  SLOT_SIZE,
  TOOL_SIZE,
  CONST_SIZE,
  Section,
} from "../abi.js";
import { sha256, toHex } from "../util/sha256.js";
import { digestMismatch, safeDecodeBlob, type Sha256 } from "./decode.js";
import type { BlobError } from "./errors.js";
import { blobDigest, readHeader, readSectionTable, sectionName, type SectionRef } from "./layout.js";

export interface BlobInfo {
  abiVersion: number;
  formatVersion: number;
  totalLength: number;
  /** SHA-256 of the whole blob: the ontology hash recorded in audit records (= `sha256sum FILE`). */
  blobSha256: string;
  /** The header's digest (every byte but its own field), and whether it matches. */
  storedDigest: string;
  digestOk: boolean;
  sourceSha256: string;
  compilerVersion: string | null;
  sourceName: string | null;
  sections: { id: number; name: string; offset: number; length: number }[] | null;
  counts: BlobCounts | null;
  /** null when the blob passes full validation. */
  error: BlobError | null;
}

export interface BlobCounts {
  strings: number;
  entities: number;
  slots: number;
  lossClasses: number;
  sinks: number;
  tools: number;
  edges: number;
  operands: number;
  programs: number;
  instructions: number;
  constants: number;
  argMaps: number;
  meta: number;
}

/** The hash that identifies an ontology: SHA-256 of the blob's bytes, lower-case hex. */
export function blobDigestHex(bytes: Uint8Array, hash?: Sha256): string {
  return toHex(hash === undefined ? sha256(bytes) : hash(bytes));
}

/** Summarises a blob. Throws BlobError only when there is no readable header (not a blob at all);
 * any other problem is reported in `error`, with whatever could still be read. */
export function blobInfo(bytes: Uint8Array): BlobInfo {
  const header = readHeader(bytes);
  const digest = blobDigest(bytes, header.totalLength);
  const stored = toHex(header.storedDigest);
  // Structure is checked even when the digest fails, so a damaged blob still shows what it holds.
  const decoded = safeDecodeBlob(bytes, { verifyDigest: false });
  const digestOk = toHex(digest) === stored;
  const info: BlobInfo = {
    abiVersion: header.abiVersion,
    formatVersion: header.formatVersion,
    totalLength: header.totalLength,
    blobSha256: blobDigestHex(bytes),
    storedDigest: stored,
    digestOk,
    sourceSha256: toHex(header.sourceSha256),
    compilerVersion: null,
    sourceName: null,
    sections: sectionList(bytes, header),
    counts: null,
    error: digestOk ? (decoded.ok ? null : decoded.error) : digestMismatch(),
  };
  if (!decoded.ok) return info;
  const t = decoded.tables;
  info.compilerVersion = t.compilerVersion;
  info.sourceName = t.sourceName;
  info.counts = countsOf(info.sections!, t.strings.length, t.edges.filter((e) => e.argMap !== null).length, Object.keys(t.meta).length);
  return info;
}

function sectionList(bytes: Uint8Array, header: ReturnType<typeof readHeader>): BlobInfo["sections"] {
  try {
    const refs = readSectionTable(bytes, header);
    return refs.filter((s): s is SectionRef => s !== undefined).map((s) => ({ ...s, name: sectionName(s.id) }));
  } catch {
    return null;
  }
}

function countsOf(sections: NonNullable<BlobInfo["sections"]>, strings: number, argMaps: number, meta: number): BlobCounts {
  const len = (id: Section) => sections.find((s) => s.id === id)!.length;
  return {
    strings,
    entities: len(Section.Entities) / ENTITY_SIZE,
    slots: len(Section.Slots) / SLOT_SIZE,
    lossClasses: len(Section.LossClasses) / LOSS_SIZE,
    sinks: len(Section.Sinks) / SINK_SIZE,
    tools: len(Section.Tools) / TOOL_SIZE,
    edges: len(Section.Edges) / EDGE_SIZE,
    operands: len(Section.Operands) / OPERAND_SIZE,
    programs: len(Section.Programs) / PROGRAM_SIZE,
    instructions: len(Section.Code) / 4,
    constants: len(Section.Constants) / CONST_SIZE,
    argMaps,
    meta,
  };
}
