// The blob writer: compiled tables in, the exact bytes of src/abi.ts out. Equal tables give equal bytes
// (no timestamps, no map iteration order, meta keys sorted), and the output is validated by the loader
// before it is returned, so the compiler can never emit a blob the loader would refuse.
import {
  ABI_VERSION,
  ARGMAP_ENTRY_SIZE,
  ARGMAP_SIZE,
  BLOB_FORMAT_VERSION,
  BLOB_MAGIC,
  CONST_SIZE,
  EDGE_AMOUNT,
  EDGE_ARGMAP,
  EDGE_COL,
  EDGE_END_COL,
  EDGE_END_LINE,
  EDGE_FORWARD,
  EDGE_ID,
  EDGE_IDENTITY,
  EDGE_INVERSE,
  EDGE_LIFECYCLE,
  EDGE_LINE,
  EDGE_LOSS,
  EDGE_LOSS_W,
  EDGE_PHI,
  EDGE_PROGRAM,
  EDGE_SINK,
  EDGE_SIZE,
  EDGE_SLOT,
  EDGE_TIER,
  EDGE_WEIGHT,
  ENTITY_SIZE,
  HDR_ABI_VERSION,
  HDR_BLOB_DIGEST,
  HDR_COMPILER_VERSION,
  HDR_FORMAT_VERSION,
  HDR_MAGIC,
  HDR_SECTION_COUNT,
  HDR_SOURCE_SHA256,
  HDR_TOTAL_LEN,
  LOSS_SIZE,
  OPERAND_KIND,
  OPERAND_REF,
  OPERAND_KEY,
  OPERAND_SIZE,
  OPERAND_TYPE,
  OperandKind,
  PROGRAM_SIZE,
  SECTION_COUNT,
  SECTION_ENTRY_SIZE,
  Section,
  SINK_SIZE,
  SLOT_SIZE,
  TOOL_ACTS_ON,
  TOOL_CREATES,
  TOOL_FLAGS,
  TOOL_KEY_ARG,
  TOOL_NAME,
  TOOL_NEW_KEY,
  TOOL_KEY_CONST,
  TOOL_OPERAND_COUNT,
  TOOL_OPERAND_START,
  TOOL_SIZE,
  TOOL_TARGET,
  ToolFlag,
  BLOB_HEADER_SIZE,
} from "../abi.js";
import { isSlotOperand, type OntologyTables } from "../ontology/tables.js";
import { decodeBlob } from "./decode.js";
import { BlobError } from "./errors.js";
import { FIRST_SECTION_OFFSET, LE, align, blobDigest } from "./layout.js";

export interface EncodeOptions {
  /** Run the loader over the result and throw its BlobError if it refuses it. Default true; tests turn
   * it off to build deliberately inconsistent blobs. */
  validate?: boolean;
}

/**
 * Encodes compiled tables. The string pool starts with `tables.strings` in order (interned ids of
 * literals keep their index) and appends every other string the tables name, in section order, so a
 * decoded blob's `strings` holds the whole pool and re-encodes to the same bytes.
 */
export function encodeBlob(tables: OntologyTables, options: EncodeOptions = {}): Uint8Array {
  const src = tables.sourceSha256;
  if (!(src instanceof Uint8Array) || src.length !== 32) {
    throw new BlobError("unencodable", "source hash is not 32 bytes of SHA-256");
  }
  const pool = new StringPool(tables.strings);
  const compilerVersion = pool.id(tables.compilerVersion);
  const bodies: Uint8Array[] = new Array(SECTION_COUNT + 1);
  bodies[Section.Entities] = entitiesSection(tables, pool);
  bodies[Section.Slots] = slotsSection(tables, pool);
  bodies[Section.LossClasses] = lossClassesSection(tables, pool);
  bodies[Section.Sinks] = sinksSection(tables, pool);
  bodies[Section.Tools] = toolsSection(tables, pool);
  bodies[Section.EdgeOffsets] = edgeOffsetsSection(tables);
  bodies[Section.Edges] = edgesSection(tables, pool);
  bodies[Section.Operands] = operandsSection(tables, pool);
  bodies[Section.Programs] = programsSection(tables);
  bodies[Section.Code] = codeSection(tables);
  bodies[Section.Constants] = constantsSection(tables);
  bodies[Section.ArgMaps] = argMapsSection(tables, pool);
  bodies[Section.Meta] = metaSection(tables, pool);
  bodies[Section.Strings] = stringsSection(pool); // last: every other section has interned its strings
  const bytes = assemble(bodies, src, compilerVersion);
  if (options.validate !== false) decodeBlob(bytes, { verifyDigest: false });
  return bytes;
}

/** Rewrites the header digest of a blob in place (tests use it to make a structural edit the only fault). */
export function sealBlob(bytes: Uint8Array): Uint8Array {
  bytes.set(blobDigest(bytes, bytes.length), HDR_BLOB_DIGEST);
  return bytes;
}

function assemble(bodies: Uint8Array[], sourceSha256: Uint8Array, compilerVersion: number): Uint8Array {
  const offsets: number[] = new Array(SECTION_COUNT + 1);
  let cursor = FIRST_SECTION_OFFSET;
  for (let id = 1; id <= SECTION_COUNT; id++) {
    offsets[id] = cursor;
    cursor = align(cursor + bodies[id].length);
  }
  const out = new Out(cursor);
  out.u32(HDR_MAGIC, BLOB_MAGIC, "magic");
  out.view.setUint16(HDR_ABI_VERSION, ABI_VERSION, LE);
  out.view.setUint16(HDR_FORMAT_VERSION, BLOB_FORMAT_VERSION, LE);
  out.u32(HDR_TOTAL_LEN, cursor, "blob length");
  out.u32(HDR_SECTION_COUNT, SECTION_COUNT, "section count");
  out.bytes.set(sourceSha256, HDR_SOURCE_SHA256);
  out.u32(HDR_COMPILER_VERSION, compilerVersion, "compiler version");
  for (let id = 1; id <= SECTION_COUNT; id++) {
    const at = BLOB_HEADER_SIZE + (id - 1) * SECTION_ENTRY_SIZE;
    out.u32(at, id, "section id");
    out.u32(at + 4, offsets[id], "section offset");
    out.u32(at + 8, bodies[id].length, "section length");
    out.bytes.set(bodies[id], offsets[id]);
  }
  return sealBlob(out.bytes);
}

// ---------------------------------------------------------------------------------------------------

/** A byte buffer whose setters refuse values that do not fit their field instead of wrapping them. */
class Out {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.view = new DataView(this.bytes.buffer);
  }
  u8(at: number, v: number, what: string): void {
    this.bytes[at] = checkInt(v, 0, 0xff, what);
  }
  u32(at: number, v: number, what: string): void {
    this.view.setUint32(at, checkInt(v, 0, 0xffffffff, what), LE);
  }
  i32(at: number, v: number, what: string): void {
    this.view.setInt32(at, checkInt(v, -0x80000000, 0x7fffffff, what), LE);
  }
  i64(at: number, v: bigint, what: string): void {
    if (typeof v !== "bigint" || v < -(1n << 63n) || v >= 1n << 63n) {
      throw new BlobError("unencodable", `${what} is ${String(v)}, not an i64`);
    }
    this.view.setBigInt64(at, v, LE);
  }
}

function checkInt(v: number, min: number, max: number, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new BlobError("unencodable", `${what} is ${String(v)}, not an integer in [${min}, ${max}]`);
  }
  return v;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

class StringPool {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();

  constructor(initial: readonly string[]) {
    for (const s of initial) {
      if (this.ids.has(s)) throw new BlobError("unencodable", `string pool holds \`${s}\` twice`);
      this.add(s);
    }
  }

  id(s: string): number {
    const known = this.ids.get(s);
    return known === undefined ? this.add(s) : known;
  }

  /** -1 for null: the ABI's "none". */
  opt(s: string | null): number {
    return s === null ? -1 : this.id(s);
  }

  private add(s: string): number {
    // UTF-8 cannot carry a lone surrogate: TextEncoder would silently replace it and break the round trip.
    if (typeof s !== "string" || LONE_SURROGATE.test(s)) {
      throw new BlobError("unencodable", `${JSON.stringify(s)} is not a well-formed string`);
    }
    const id = this.list.length;
    this.list.push(s);
    this.ids.set(s, id);
    return id;
  }
}

// ---------------------------------------------------------------------------------------------------
// Sections, in the order of the Section enum.

function stringsSection(pool: StringPool): Uint8Array {
  const enc = new TextEncoder();
  const encoded = pool.list.map((s) => enc.encode(s));
  const count = encoded.length;
  const head = 4 + 4 * (count + 1);
  let area = 0;
  for (const e of encoded) area += e.length;
  const out = new Out(head + area);
  out.u32(0, count, "string count");
  let at = 0;
  out.u32(4, 0, "string offset");
  for (let i = 0; i < count; i++) {
    out.bytes.set(encoded[i], head + at);
    at += encoded[i].length;
    out.u32(8 + 4 * i, at, "string offset");
  }
  return out.bytes;
}

function entitiesSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const out = new Out(t.entities.length * ENTITY_SIZE);
  t.entities.forEach((e, i) => out.u32(i * ENTITY_SIZE, pool.id(e.name), "entity name"));
  return out.bytes;
}

function slotsSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const out = new Out(t.slots.length * SLOT_SIZE);
  t.slots.forEach((s, i) => {
    const at = i * SLOT_SIZE;
    out.u32(at, pool.id(s.name), "slot name");
    out.u32(at + 4, s.entity, "slot entity");
    out.u32(at + 8, s.type, "slot type");
  });
  return out.bytes;
}

function lossClassesSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const out = new Out(t.lossClasses.length * LOSS_SIZE);
  t.lossClasses.forEach((l, i) => {
    out.u32(i * LOSS_SIZE, pool.id(l.name), "loss class name");
    out.i32(i * LOSS_SIZE + 4, l.weight, "loss class weight");
  });
  return out.bytes;
}

function sinksSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const out = new Out(t.sinks.length * SINK_SIZE);
  t.sinks.forEach((s, i) => {
    out.u32(i * SINK_SIZE, pool.id(s.name), "sink name");
    out.u32(i * SINK_SIZE + 4, s.external ? 1 : 0, "sink external");
  });
  return out.bytes;
}

function toolsSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const out = new Out(t.tools.length * TOOL_SIZE);
  let operandStart = 0;
  t.tools.forEach((tool, i) => {
    const at = i * TOOL_SIZE;
    out.u32(at + TOOL_NAME, pool.id(tool.name), "tool name");
    // Every tool in the tables was declared in the source; Declared is always set (docs/abi.md).
    out.u32(at + TOOL_FLAGS, ToolFlag.Declared | (tool.readOnly ? ToolFlag.ReadOnly : 0), "tool flags");
    out.i32(at + TOOL_ACTS_ON, tool.actsOn, "tool acts_on");
    out.i32(at + TOOL_KEY_ARG, pool.opt(tool.keyArg), "tool key argument");
    out.i32(at + TOOL_CREATES, tool.creates, "tool creates");
    out.i32(at + TOOL_TARGET, tool.target, "tool target");
    out.u32(at + TOOL_OPERAND_START, operandStart, "tool operand start");
    out.u32(at + TOOL_OPERAND_COUNT, tool.operands.length, "tool operand count");
    out.i32(at + TOOL_NEW_KEY, pool.opt(tool.newKey), "tool new key");
    out.i32(at + TOOL_KEY_CONST, pool.opt(tool.keyConst), "tool constant key");
    operandStart += tool.operands.length;
  });
  return out.bytes;
}

function edgeOffsetsSection(t: OntologyTables): Uint8Array {
  const out = new Out(t.edgeOffsets.length * 4);
  t.edgeOffsets.forEach((v, i) => out.u32(i * 4, v, "edge offset"));
  return out.bytes;
}

function edgesSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const out = new Out(t.edges.length * EDGE_SIZE);
  let argMap = 0;
  t.edges.forEach((e, i) => {
    const at = i * EDGE_SIZE;
    out.u8(at + EDGE_TIER, e.tier, "edge tier");
    out.u8(at + EDGE_LIFECYCLE, e.lifecycle, "edge lifecycle");
    out.u8(at + EDGE_IDENTITY, e.identity, "edge identity");
    out.u32(at + EDGE_FORWARD, e.forward, "edge forward tool");
    out.i32(at + EDGE_INVERSE, e.inverse, "edge inverse tool");
    out.i32(at + EDGE_SLOT, e.slot, "edge slot");
    out.i32(at + EDGE_LOSS, e.lossClass, "edge loss class");
    out.i32(at + EDGE_SINK, e.sink, "edge sink");
    out.i32(at + EDGE_WEIGHT, e.weight, "edge weight");
    out.i32(at + EDGE_PHI, e.phi, "edge phi");
    out.i32(at + EDGE_LOSS_W, e.lossWeight, "edge loss weight");
    out.i32(at + EDGE_PROGRAM, e.program, "edge program");
    out.u32(at + EDGE_ID, pool.id(e.id), "edge id");
    out.u32(at + EDGE_LINE, e.span.line, "edge line");
    out.u32(at + EDGE_COL, e.span.col, "edge column");
    // Argument maps are numbered in edge order, one per edge that has one.
    out.i32(at + EDGE_ARGMAP, e.argMap === null ? -1 : argMap++, "edge argument map");
    out.u32(at + EDGE_END_LINE, e.span.endLine, "edge end line");
    out.u32(at + EDGE_END_COL, e.span.endCol, "edge end column");
    out.i32(at + EDGE_AMOUNT, e.amount, "edge amount program");
  });
  return out.bytes;
}

function operandsSection(t: OntologyTables, pool: StringPool): Uint8Array {
  let n = 0;
  for (const tool of t.tools) n += tool.operands.length;
  const out = new Out(n * OPERAND_SIZE);
  let i = 0;
  for (const tool of t.tools) {
    for (const o of tool.operands) {
      const at = i++ * OPERAND_SIZE;
      const bySlot = isSlotOperand(o.kind);
      out.u32(at + OPERAND_KIND, o.kind, "operand kind");
      if (bySlot || (o.path === null && !isArgKind(o.kind))) out.u32(at + OPERAND_REF, o.slot, "operand slot");
      else if (o.path !== null) out.u32(at + OPERAND_REF, pool.id(o.path), "operand path");
      else throw new BlobError("unencodable", `operand of tool \`${tool.name}\` reads an argument but has no path`);
      out.u32(at + OPERAND_TYPE, o.type, "operand type");
      out.i32(at + OPERAND_KEY, o.kind === OperandKind.SlotLookup && o.key != null ? pool.id(o.key) : -1, "operand key");
    }
  }
  return out.bytes;
}

function isArgKind(kind: OperandKind): boolean {
  return kind === OperandKind.ArgValue || kind === OperandKind.ArgSize || kind === OperandKind.ArgPresent;
}

function programsSection(t: OntologyTables): Uint8Array {
  const out = new Out(t.programs.length * PROGRAM_SIZE);
  let start = 0;
  t.programs.forEach((p, i) => {
    const at = i * PROGRAM_SIZE;
    out.u32(at, start, "program start");
    out.u32(at + 4, p.code.length, "program length");
    out.u32(at + 8, p.maxStack, "program stack depth");
    start += p.code.length;
  });
  return out.bytes;
}

function codeSection(t: OntologyTables): Uint8Array {
  let n = 0;
  for (const p of t.programs) n += p.code.length;
  const out = new Out(n * 4);
  let i = 0;
  for (const p of t.programs) for (const word of p.code) out.u32(4 * i++, word, "instruction");
  return out.bytes;
}

function constantsSection(t: OntologyTables): Uint8Array {
  const out = new Out(t.constants.length * CONST_SIZE);
  t.constants.forEach((k, i) => {
    out.i32(i * CONST_SIZE, k.tag, "constant tag");
    out.i64(i * CONST_SIZE + 8, k.value, "constant value");
  });
  return out.bytes;
}

function argMapsSection(t: OntologyTables, pool: StringPool): Uint8Array {
  const maps = t.edges.flatMap((e) => (e.argMap === null ? [] : [e.argMap]));
  let entries = 0;
  for (const m of maps) entries += m.length;
  const head = maps.length * ARGMAP_SIZE;
  const out = new Out(head + entries * ARGMAP_ENTRY_SIZE);
  let j = 0;
  maps.forEach((m, i) => {
    out.u32(i * ARGMAP_SIZE, j, "argument map start");
    out.u32(i * ARGMAP_SIZE + 4, m.length, "argument map length");
    for (const entry of m) {
      const at = head + j++ * ARGMAP_ENTRY_SIZE;
      out.u32(at, pool.id(entry.param), "argument parameter");
      out.u32(at + 4, entry.source, "argument source");
      out.u32(at + 8, pool.id(entry.ref), "argument reference");
    }
  });
  return out.bytes;
}

function metaSection(t: OntologyTables, pool: StringPool): Uint8Array {
  // Sorted keys: the bytes must not depend on the order the compiler happened to insert them.
  const keys = Object.keys(t.meta).sort();
  const out = new Out(8 + 8 * keys.length);
  out.u32(0, pool.id(t.sourceName), "source name");
  out.u32(4, keys.length, "meta count");
  keys.forEach((k, i) => {
    const v = t.meta[k];
    if (typeof v !== "string") throw new BlobError("unencodable", `meta value of \`${k}\` is not a string`);
    out.u32(8 + 8 * i, pool.id(k), "meta key");
    out.u32(12 + 8 * i, pool.id(v), "meta value");
  });
  return out.bytes;
}
