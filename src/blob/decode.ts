// The validating loader. The WebAssembly core reads tools, edges, programs and constants straight from
// the blob bytes without bounds checks, so everything the core or the host could trip over is proven
// here first: every index in range, every enum known, CSR rows consistent, weights and stored φ what the
// tier formula gives, every program sound. The format is canonical — a blob is accepted only if it is
// exactly what encodeBlob writes for the tables it decodes to — so reserved fields, padding, ordering and
// the string pool are checked as strictly as the values.
import {
  ARGMAP_ENTRY_SIZE,
  ARGMAP_SIZE,
  ArgSource,
  CONST_SIZE,
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
  EDGE_PAD,
  EDGE_PHI,
  EDGE_AMOUNT,
  EDGE_PROGRAM,
  EDGE_SINK,
  EDGE_SIZE,
  EDGE_SLOT,
  EDGE_TIER,
  EDGE_WEIGHT,
  ENTITY_SIZE,
  FIXED_ONE,
  HDR_BLOB_DIGEST,
  HDR_COMPILER_VERSION,
  Identity,
  Lifecycle,
  LOSS_SIZE,
  MAX_OPERANDS,
  OPERAND_KEY,
  OPERAND_KIND,
  OPERAND_REF,
  OPERAND_SIZE,
  OPERAND_TYPE,
  OperandKind,
  PROGRAM_SIZE,
  Section,
  SINK_SIZE,
  SLOT_SIZE,
  SlotType,
  Tier,
  TOOL_ACTS_ON,
  TOOL_CREATES,
  TOOL_FLAGS,
  TOOL_KEY_ARG,
  TOOL_NAME,
  TOOL_NEW_KEY,
  TOOL_OPERAND_COUNT,
  TOOL_OPERAND_START,
  TOOL_KEY_CONST,
  TOOL_SIZE,
  TOOL_TARGET,
  ToolFlag,
  ValueTag,
} from "../abi.js";
import type {
  ArgMapEntry,
  ConstantTable,
  EdgeTable,
  EntityTable,
  LossClassTable,
  OntologyTables,
  OperandTable,
  ProgramTable,
  SinkTable,
  SlotTable,
  ToolTable,
} from "../ontology/tables.js";
import { isSlotOperand } from "../ontology/tables.js";
import { BlobError, type BlobErrorCode } from "./errors.js";
import { blobDigest, LE, readHeader, readSectionTable, type SectionRef, viewOf } from "./layout.js";
import { checkProgram, type ProgramCheck } from "./program.js";

/** A synchronous SHA-256: the 32-byte digest of `data` (a string stands for its UTF-8 bytes). Default:
 * src/util/sha256.ts (JavaScript, every runtime). Node can pass its native one, ~20× faster:
 * `(data) => createHash("sha256").update(data).digest()` (a Buffer is a Uint8Array). */
export type Sha256 = (data: Uint8Array | string) => Uint8Array;

export interface DecodeOptions {
  /** Check the header's digest (SHA-256 of every byte but the digest field). Default true. */
  verifyDigest?: boolean;
  /** The SHA-256 for the digest check; default the JavaScript one. */
  sha256?: Sha256;
}

/** Validates a blob completely and returns its tables; throws BlobError on the first problem found. */
export function decodeBlob(bytes: Uint8Array, options: DecodeOptions = {}): OntologyTables {
  const header = readHeader(bytes);
  if (options.verifyDigest !== false) checkDigest(bytes, header.totalLength, header.storedDigest, options.sha256);
  const sections = readSectionTable(bytes, header);
  const c: Ctx = { bytes, view: viewOf(bytes), sections, strings: [] };
  c.strings = readStrings(c);
  const compilerVersion = stringAt(c, header.compilerVersionIndex, HDR_COMPILER_VERSION, "compiler version");
  const entities = readEntities(c);
  const slots = readSlots(c, entities.length);
  const lossClasses = readLossClasses(c);
  const sinks = readSinks(c);
  const operands = readOperands(c, slots.length);
  const tools = readTools(c, entities.length, operands);
  const constants = readConstants(c);
  const programs = readPrograms(c, constants.length);
  const edgeOffsets = readEdgeOffsets(c, tools.length);
  const counts: EdgeCounts = {
    tools,
    slots: slots.length,
    lossClasses,
    sinks: sinks.length,
    programs,
  };
  const raw = readEdges(c, counts, edgeOffsets);
  const argMaps = readArgMaps(c, raw.argMapCount);
  const edges = raw.edges.map((e, i) => ({ ...e, argMap: raw.argMapIndex[i] < 0 ? null : argMaps[raw.argMapIndex[i]] }));
  const { sourceName, meta } = readMeta(c);
  return {
    sourceName,
    sourceSha256: header.sourceSha256,
    compilerVersion,
    strings: c.strings,
    entities,
    slots,
    lossClasses,
    sinks,
    tools,
    edgeOffsets,
    edges,
    programs: programs.map((p) => p.table),
    constants,
    meta,
  };
}

export type SafeDecodeResult = { ok: true; tables: OntologyTables } | { ok: false; error: BlobError };

/** decodeBlob as a tagged result: never throws. */
export function safeDecodeBlob(bytes: Uint8Array, options: DecodeOptions = {}): SafeDecodeResult {
  try {
    return { ok: true, tables: decodeBlob(bytes, options) };
  } catch (e) {
    if (e instanceof BlobError) return { ok: false, error: e };
    // A loader bug must still fail closed: the blob is refused, with the cause kept in the message.
    return { ok: false, error: new BlobError("internal-error", `blob loader failed: ${String(e)}`) };
  }
}

export function checkDigest(bytes: Uint8Array, total: number, stored: Uint8Array, hash?: Sha256): void {
  const actual = hash === undefined ? blobDigest(bytes, total) : blobDigest(bytes, total, hash);
  if (!(actual instanceof Uint8Array) || actual.length !== 32) throw digestMismatch();
  for (let i = 0; i < 32; i++) {
    if (actual[i] !== stored[i]) throw digestMismatch();
  }
}

export function digestMismatch(): BlobError {
  return new BlobError(
    "digest-mismatch",
    "blob digest does not match its contents",
    HDR_BLOB_DIGEST,
    "the file was altered or damaged after it was compiled; recompile the ontology source",
  );
}

// ---------------------------------------------------------------------------------------------------

interface Ctx {
  bytes: Uint8Array;
  view: DataView;
  sections: SectionRef[];
  strings: string[];
}

function fail(code: BlobErrorCode, message: string, offset: number, help?: string): never {
  throw new BlobError(code, message, offset, help);
}

function u32(c: Ctx, at: number): number {
  return c.view.getUint32(at, LE);
}

function i32(c: Ctx, at: number): number {
  return c.view.getInt32(at, LE);
}

/** A required index: in [0, count). */
function index(v: number, count: number, at: number, what: string): number {
  if (v < 0 || v >= count) fail("index-out-of-range", `${what} is ${v}, out of range (${count} available)`, at);
  return v;
}

/** An optional index: -1 for none, otherwise in [0, count). */
function optIndex(v: number, count: number, at: number, what: string): number {
  return v === -1 ? -1 : index(v, count, at, what);
}

function stringAt(c: Ctx, v: number, at: number, what: string): string {
  return c.strings[index(v, c.strings.length, at, `${what} string`)];
}

function optString(c: Ctx, v: number, at: number, what: string): string | null {
  return v === -1 ? null : stringAt(c, v, at, what);
}

function enumValue(v: number, min: number, max: number, at: number, what: string): number {
  if (v < min || v > max) fail("bad-enum", `${what} ${v} is not a known value (${min}..${max})`, at);
  return v;
}

function recordCount(s: SectionRef, size: number): number {
  if (s.length % size !== 0) {
    fail(
      "bad-record-size",
      `section ${Section[s.id]} is ${s.length} bytes, not a whole number of ${size}-byte records`,
      s.offset,
    );
  }
  return s.length / size;
}

/** Display form of a blob string inside a message: backticked and shortened. */
function quote(s: string): string {
  return "`" + (s.length > 40 ? s.slice(0, 40) + "…" : s) + "`";
}

// ---------------------------------------------------------------------------------------------------
// Strings: u32 count, u32 offsets[count + 1] relative to the byte area, then the UTF-8 bytes.

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function readStrings(c: Ctx): string[] {
  const s = c.sections[Section.Strings];
  if (s.length < 4) fail("bad-string-pool", "string pool is shorter than its count field", s.offset);
  const count = u32(c, s.offset);
  const head = 4 + 4 * (count + 1);
  if (head > s.length) {
    fail("bad-string-pool", `string pool declares ${count} strings but holds only ${s.length} bytes`, s.offset);
  }
  const area = s.offset + head;
  const areaLength = s.length - head;
  const strings: string[] = new Array(count);
  const ids = new Map<string, number>();
  // One decode of the whole area when it is ASCII (each byte one UTF-16 unit, so the byte offsets index
  // the text): a cold start then pays one decoder call instead of one per string. Anything else (or a
  // decoding failure) goes string by string, which also names the string that is not UTF-8.
  const whole = asciiText(c.bytes.subarray(area, area + areaLength));
  let prev = u32(c, s.offset + 4);
  if (prev !== 0) fail("bad-string-pool", `string pool's first offset is ${prev}, expected 0`, s.offset + 4);
  for (let i = 0; i < count; i++) {
    const at = s.offset + 8 + 4 * i;
    const next = u32(c, at);
    if (next < prev || next > areaLength) {
      fail("bad-string-pool", `string ${i} ends at ${next}: offsets must rise within the ${areaLength}-byte area`, at);
    }
    const str = whole !== null ? whole.slice(prev, next) : decodeUtf8(c.bytes.subarray(area + prev, area + next), area + prev, i);
    const dup = ids.get(str);
    if (dup !== undefined) fail("bad-string-pool", `string pool holds ${quote(str)} twice (${dup} and ${i})`, area + prev);
    ids.set(str, i);
    strings[i] = str;
    prev = next;
  }
  if (prev !== areaLength) {
    fail("bad-string-pool", `string pool's last offset is ${prev}, its byte area is ${areaLength} bytes`, s.offset + 4 + 4 * count);
  }
  return strings;
}

/** The bytes as text when they are valid UTF-8 and all ASCII (decoded length = byte length only
 * then: a longer sequence gives fewer UTF-16 units than bytes); otherwise null. */
function asciiText(b: Uint8Array): string | null {
  try {
    const text = utf8.decode(b);
    return text.length === b.length ? text : null;
  } catch {
    return null;
  }
}

function decodeUtf8(b: Uint8Array, at: number, i: number): string {
  try {
    return utf8.decode(b);
  } catch {
    return fail("bad-string-pool", `string ${i} is not valid UTF-8`, at);
  }
}

// ---------------------------------------------------------------------------------------------------
// Entities, slots, loss classes, sinks.

function readEntities(c: Ctx): EntityTable[] {
  const s = c.sections[Section.Entities];
  const n = recordCount(s, ENTITY_SIZE);
  const out: EntityTable[] = new Array(n);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * ENTITY_SIZE;
    const nameId = u32(c, at);
    const name = stringAt(c, nameId, at, `entity ${i} name`);
    unique(seen, nameId, at, `entity ${quote(name)}`);
    out[i] = { name };
  }
  return out;
}

function readSlots(c: Ctx, entityCount: number): SlotTable[] {
  const s = c.sections[Section.Slots];
  const n = recordCount(s, SLOT_SIZE);
  const out: SlotTable[] = new Array(n);
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * SLOT_SIZE;
    const nameId = u32(c, at);
    const name = stringAt(c, nameId, at, `slot ${i} name`);
    const entity = index(u32(c, at + 4), entityCount, at + 4, `slot ${i} entity`);
    const type = enumValue(u32(c, at + 8), SlotType.String, SlotType.Object, at + 8, `slot ${i} type`);
    unique(seen, `${entity}:${nameId}`, at, `slot ${quote(name)} of entity ${entity}`);
    out[i] = { name, entity, type };
  }
  return out;
}

function readLossClasses(c: Ctx): LossClassTable[] {
  const s = c.sections[Section.LossClasses];
  const n = recordCount(s, LOSS_SIZE);
  const out: LossClassTable[] = new Array(n);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * LOSS_SIZE;
    const nameId = u32(c, at);
    const name = stringAt(c, nameId, at, `loss class ${i} name`);
    const weight = i32(c, at + 4);
    if (weight < 0 || weight >= FIXED_ONE) {
      fail("bad-weight", `loss class ${quote(name)} has weight ${weight}, outside [0, ${FIXED_ONE})`, at + 4);
    }
    unique(seen, nameId, at, `loss class ${quote(name)}`);
    out[i] = { name, weight };
  }
  return out;
}

function readSinks(c: Ctx): SinkTable[] {
  const s = c.sections[Section.Sinks];
  const n = recordCount(s, SINK_SIZE);
  const out: SinkTable[] = new Array(n);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * SINK_SIZE;
    const nameId = u32(c, at);
    const name = stringAt(c, nameId, at, `sink ${i} name`);
    const external = enumValue(u32(c, at + 4), 0, 1, at + 4, `sink ${quote(name)} external flag`);
    unique(seen, nameId, at, `sink ${quote(name)}`);
    out[i] = { name, external: external === 1 };
  }
  return out;
}

function unique<T>(seen: Set<T>, key: T, at: number, what: string): void {
  if (seen.has(key)) fail("duplicate-name", `${what} is defined twice`, at);
  seen.add(key);
}

// ---------------------------------------------------------------------------------------------------
// Operands and tools.

function readOperands(c: Ctx, slotCount: number): OperandTable[] {
  const s = c.sections[Section.Operands];
  const n = recordCount(s, OPERAND_SIZE);
  const out: OperandTable[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * OPERAND_SIZE;
    const kind = enumValue(u32(c, at + OPERAND_KIND), OperandKind.SlotValue, OperandKind.SlotLookup, at, `operand ${i} kind`);
    const ref = u32(c, at + OPERAND_REF);
    const type = enumValue(u32(c, at + OPERAND_TYPE), SlotType.String, SlotType.Object, at + OPERAND_TYPE, `operand ${i} type`);
    const isSlot = isSlotOperand(kind);
    const slot = isSlot ? index(ref, slotCount, at + OPERAND_REF, `operand ${i} slot`) : -1;
    const path = isSlot ? null : stringAt(c, ref, at + OPERAND_REF, `operand ${i} path`);
    const keyRef = i32(c, at + OPERAND_KEY);
    if ((kind === OperandKind.SlotLookup) !== (keyRef >= 0) || keyRef < -1) {
      fail("bad-enum", `operand ${i} key ${keyRef}: a lookup operand names its key argument, no other operand does`, at + OPERAND_KEY);
    }
    const key = keyRef >= 0 ? stringAt(c, keyRef, at + OPERAND_KEY, `operand ${i} key`) : null;
    out[i] = kind === OperandKind.SlotLookup ? { kind, slot, path, type, key } : { kind, slot, path, type };
  }
  return out;
}

function readTools(c: Ctx, entityCount: number, operands: OperandTable[]): ToolTable[] {
  const s = c.sections[Section.Tools];
  const n = recordCount(s, TOOL_SIZE);
  const out: ToolTable[] = new Array(n);
  const seen = new Set<number>();
  let nextOperand = 0;
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * TOOL_SIZE;
    const nameId = u32(c, at + TOOL_NAME);
    const name = stringAt(c, nameId, at + TOOL_NAME, `tool ${i} name`);
    const what = `tool ${quote(name)}`;
    unique(seen, nameId, at, what);
    const flags = u32(c, at + TOOL_FLAGS);
    if ((flags & ~(ToolFlag.ReadOnly | ToolFlag.Declared)) !== 0 || (flags & ToolFlag.Declared) === 0) {
      fail("bad-tool", `${what} has flags ${flags}: only ReadOnly may vary and Declared must be set`, at + TOOL_FLAGS);
    }
    const actsOn = optIndex(i32(c, at + TOOL_ACTS_ON), entityCount, at + TOOL_ACTS_ON, `${what} acts_on entity`);
    const keyArg = optString(c, i32(c, at + TOOL_KEY_ARG), at + TOOL_KEY_ARG, `${what} key argument`);
    const creates = optIndex(i32(c, at + TOOL_CREATES), entityCount, at + TOOL_CREATES, `${what} created entity`);
    const target = optIndex(i32(c, at + TOOL_TARGET), entityCount, at + TOOL_TARGET, `${what} target entity`);
    if (target !== (creates >= 0 ? creates : actsOn)) {
      fail("bad-tool", `${what} has target entity ${target}, expected its created entity or else its acts_on entity`, at + TOOL_TARGET);
    }
    const start = u32(c, at + TOOL_OPERAND_START);
    const count = u32(c, at + TOOL_OPERAND_COUNT);
    if (start > operands.length || count > operands.length - start) {
      fail("index-out-of-range", `${what} operands ${start}..${start + count} run past the ${operands.length} operands`, at + TOOL_OPERAND_START);
    }
    if (start !== nextOperand) {
      fail("bad-tool", `${what} operands start at ${start}, expected ${nextOperand}`, at + TOOL_OPERAND_START, "operands are grouped by tool, in tool order");
    }
    if (count > MAX_OPERANDS) fail("bad-tool", `${what} has ${count} operands, at most ${MAX_OPERANDS} allowed`, at + TOOL_OPERAND_COUNT);
    nextOperand += count;
    const newKey = optString(c, i32(c, at + TOOL_NEW_KEY), at + TOOL_NEW_KEY, `${what} new key`);
    const keyConst = optString(c, i32(c, at + TOOL_KEY_CONST), at + TOOL_KEY_CONST, `${what} constant key`);
    if (keyConst !== null && (actsOn < 0 || keyArg !== null)) {
      fail("bad-tool", `${what} has a constant key but ${actsOn < 0 ? "acts on no entity" : "also a key argument"}`, at + TOOL_KEY_CONST,
        "a constant key names the one entity a tool acts on, instead of a key argument");
    }
    out[i] = {
      name,
      readOnly: (flags & ToolFlag.ReadOnly) !== 0,
      actsOn,
      keyArg,
      keyConst,
      creates,
      target,
      newKey,
      operands: operands.slice(start, start + count),
    };
  }
  if (nextOperand !== operands.length) {
    fail("bad-tool", `tools use ${nextOperand} operands but the section holds ${operands.length}`, s.offset);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Constants, programs and code.

function readConstants(c: Ctx): ConstantTable[] {
  const s = c.sections[Section.Constants];
  const n = recordCount(s, CONST_SIZE);
  const out: ConstantTable[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * CONST_SIZE;
    const tag = enumValue(i32(c, at), ValueTag.Missing, ValueTag.String, at, `constant ${i} tag`);
    if (i32(c, at + 4) !== 0) fail("bad-reserved", `constant ${i} padding is not zero`, at + 4);
    const value = c.view.getBigInt64(at + 8, LE);
    checkConstant(tag, value, c.strings.length, at + 8, i);
    out[i] = { tag, value };
  }
  return out;
}

function checkConstant(tag: ValueTag, value: bigint, stringCount: number, at: number, i: number): void {
  switch (tag) {
    case ValueTag.Missing:
    case ValueTag.Null:
      if (value !== 0n) fail("bad-constant", `constant ${i} (${ValueTag[tag]}) has value ${value}, expected 0`, at);
      return;
    case ValueTag.Bool:
      if (value !== 0n && value !== 1n) fail("bad-constant", `constant ${i} (Bool) has value ${value}, expected 0 or 1`, at);
      return;
    case ValueTag.String:
      if (value < 0n || value >= BigInt(stringCount)) {
        fail("index-out-of-range", `constant ${i} string is ${value}, out of range (${stringCount} available)`, at);
      }
      return;
    default:
      return; // Number: any i64
  }
}

interface CheckedProgram {
  table: ProgramTable;
  maxOperand: number;
}

function readPrograms(c: Ctx, constantCount: number): CheckedProgram[] {
  const code = readCode(c);
  const s = c.sections[Section.Programs];
  const n = recordCount(s, PROGRAM_SIZE);
  const out: CheckedProgram[] = new Array(n);
  const check: ProgramCheck = { maxOperand: -1, depth: 0 };
  let next = 0;
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * PROGRAM_SIZE;
    const start = u32(c, at);
    const length = u32(c, at + 4);
    const maxStack = u32(c, at + 8);
    if (start > code.length || length > code.length - start) {
      fail("index-out-of-range", `program ${i} code ${start}..${start + length} runs past the ${code.length} instructions`, at);
    }
    if (start !== next) fail("bad-program", `program ${i} starts at instruction ${start}, expected ${next}`, at, "programs follow each other in the code section");
    const problem = checkProgram(code, start, length, maxStack, constantCount, check);
    if (problem !== null) fail("bad-program", `program ${i}: ${problem}`, at);
    next = start + length;
    out[i] = { table: { code: Array.from(code.subarray(start, next)), maxStack }, maxOperand: check.maxOperand };
  }
  if (next !== code.length) fail("bad-program", `code section holds ${code.length} instructions, programs use ${next}`, c.sections[Section.Code].offset);
  return out;
}

function readCode(c: Ctx): Uint32Array {
  const s = c.sections[Section.Code];
  const n = recordCount(s, 4);
  const code = new Uint32Array(n);
  for (let i = 0; i < n; i++) code[i] = u32(c, s.offset + 4 * i);
  return code;
}

// ---------------------------------------------------------------------------------------------------
// CSR row pointers and edges.

function readEdgeOffsets(c: Ctx, toolCount: number): number[] {
  const s = c.sections[Section.EdgeOffsets];
  const edgeSection = c.sections[Section.Edges];
  const edgeCount = recordCount(edgeSection, EDGE_SIZE);
  if (s.length !== 4 * (toolCount + 1)) {
    fail("bad-record-size", `edge offsets section is ${s.length} bytes, expected ${4 * (toolCount + 1)} for ${toolCount} tools`, s.offset);
  }
  const out: number[] = new Array(toolCount + 1);
  for (let t = 0; t <= toolCount; t++) {
    const at = s.offset + 4 * t;
    const v = u32(c, at);
    if (t === 0 && v !== 0) fail("bad-csr", `edge offsets start at ${v}, expected 0`, at);
    if (t > 0 && v < out[t - 1]) fail("bad-csr", `edge offset of tool ${t} is ${v}, below the previous ${out[t - 1]}`, at);
    if (v > edgeCount) fail("bad-csr", `edge offset of tool ${t} is ${v}, past the ${edgeCount} edges`, at);
    out[t] = v;
  }
  if (out[toolCount] !== edgeCount) fail("bad-csr", `edge offsets end at ${out[toolCount]}, expected the edge count ${edgeCount}`, s.offset + 4 * toolCount);
  return out;
}

interface EdgeCounts {
  tools: ToolTable[];
  slots: number;
  lossClasses: LossClassTable[];
  sinks: number;
  programs: CheckedProgram[];
}

interface RawEdges {
  edges: Omit<EdgeTable, "argMap">[];
  argMapIndex: Int32Array;
  argMapCount: number;
}

function readEdges(c: Ctx, k: EdgeCounts, edgeOffsets: number[]): RawEdges {
  const s = c.sections[Section.Edges];
  const n = recordCount(s, EDGE_SIZE);
  const edges: Omit<EdgeTable, "argMap">[] = new Array(n);
  const argMapIndex = new Int32Array(n);
  // ArgMaps records are one per edge that has one, numbered in edge order; count them first so an
  // index can be range-checked before the section is read.
  let argMapCount = 0;
  for (let i = 0; i < n; i++) if (i32(c, s.offset + i * EDGE_SIZE + EDGE_ARGMAP) !== -1) argMapCount++;
  const ids = new Set<number>();
  let row = 0;
  let nextArgMap = 0;
  for (let i = 0; i < n; i++) {
    const at = s.offset + i * EDGE_SIZE;
    while (edgeOffsets[row + 1] <= i) row++;
    const e = readEdge(c, k, at, i);
    if (e.forward !== row) fail("bad-csr", `edge ${i} answers tool ${e.forward} but sits in the row of tool ${row}`, at + EDGE_FORWARD);
    if (k.tools[e.forward].readOnly) fail("bad-tool", `edge ${i} annotates read-only tool ${quote(k.tools[e.forward].name)}`, at + EDGE_FORWARD);
    unique(ids, u32(c, at + EDGE_ID), at + EDGE_ID, `annotation id ${quote(e.id)}`);
    const am = optIndex(i32(c, at + EDGE_ARGMAP), argMapCount, at + EDGE_ARGMAP, `edge ${i} argument map`);
    if (am >= 0 && am !== nextArgMap++) {
      fail("bad-argmap", `edge ${i} uses argument map ${am}, expected ${nextArgMap - 1}`, at + EDGE_ARGMAP, "argument maps are numbered in edge order");
    }
    const tierProblem = tierFieldProblem(e, am);
    if (tierProblem !== null) fail("bad-tier-fields", `edge ${i} (${Tier[e.tier]}): ${tierProblem}`, at);
    checkScore(e, k.lossClasses, at, i);
    checkProgramOperands(e, k, at, i);
    edges[i] = e;
    argMapIndex[i] = am;
  }
  return { edges, argMapIndex, argMapCount };
}

function readEdge(c: Ctx, k: EdgeCounts, at: number, i: number): Omit<EdgeTable, "argMap"> {
  const what = `edge ${i}`;
  const tier = enumValue(c.bytes[at + EDGE_TIER], Tier.T1, Tier.T5, at + EDGE_TIER, `${what} tier`);
  const lifecycle = enumValue(c.bytes[at + EDGE_LIFECYCLE], Lifecycle.Live, Lifecycle.Disputed, at + EDGE_LIFECYCLE, `${what} lifecycle`);
  const identity = enumValue(c.bytes[at + EDGE_IDENTITY], Identity.Same, Identity.New, at + EDGE_IDENTITY, `${what} identity`);
  if (c.bytes[at + EDGE_PAD] !== 0) fail("bad-reserved", `${what} padding byte is not zero`, at + EDGE_PAD);
  const forward = index(u32(c, at + EDGE_FORWARD), k.tools.length, at + EDGE_FORWARD, `${what} forward tool`);
  const inverse = optIndex(i32(c, at + EDGE_INVERSE), k.tools.length, at + EDGE_INVERSE, `${what} inverse tool`);
  const slot = optIndex(i32(c, at + EDGE_SLOT), k.slots, at + EDGE_SLOT, `${what} slot`);
  const lossClass = optIndex(i32(c, at + EDGE_LOSS), k.lossClasses.length, at + EDGE_LOSS, `${what} loss class`);
  const sink = optIndex(i32(c, at + EDGE_SINK), k.sinks, at + EDGE_SINK, `${what} sink`);
  const weight = i32(c, at + EDGE_WEIGHT);
  const program = optIndex(i32(c, at + EDGE_PROGRAM), k.programs.length, at + EDGE_PROGRAM, `${what} program`);
  const amount = optIndex(i32(c, at + EDGE_AMOUNT), k.programs.length, at + EDGE_AMOUNT, `${what} amount program`);
  const id = stringAt(c, u32(c, at + EDGE_ID), at + EDGE_ID, `${what} id`);
  const span = {
    line: u32(c, at + EDGE_LINE),
    col: u32(c, at + EDGE_COL),
    endLine: u32(c, at + EDGE_END_LINE),
    endCol: u32(c, at + EDGE_END_COL),
  };
  const spanOk =
    span.line >= 1 && span.col >= 1 && (span.endLine > span.line || (span.endLine === span.line && span.endCol >= span.col));
  if (!spanOk) {
    fail("bad-span", `${what} span ${span.line}:${span.col}-${span.endLine}:${span.endCol} is not a 1-based forward range`, at + EDGE_LINE);
  }
  return {
    tier,
    lifecycle,
    identity,
    forward,
    inverse,
    slot,
    lossClass,
    sink,
    weight,
    phi: i32(c, at + EDGE_PHI),
    lossWeight: i32(c, at + EDGE_LOSS_W),
    program,
    amount,
    id,
    span,
  };
}

type EdgeFields = Pick<EdgeTable, "tier" | "forward" | "inverse" | "slot" | "lossClass" | "sink" | "program">;

/** Which fields each tier must and must not have (docs/abi.md, "Edges"); null when they fit. */
export function tierFieldProblem(e: EdgeFields, argMap: number): string | null {
  const positive = e.tier === Tier.T1 || e.tier === Tier.T2 || e.tier === Tier.T3;
  if (positive && e.inverse < 0) return "a positive edge needs an inverse tool";
  if (!positive && e.inverse >= 0) return "a fail-closed edge has no inverse tool";
  if (e.tier === Tier.T2 && e.inverse !== e.forward) return "a bounded-reversibility edge is its own inverse";
  if ((e.tier === Tier.T5) !== (e.sink >= 0)) return e.tier === Tier.T5 ? "an external side effect needs a sink" : "only an external side effect has a sink";
  if ((e.tier === Tier.T3 || e.tier === Tier.T4) && e.lossClass < 0) return "needs a loss class";
  if ((e.tier === Tier.T1 || e.tier === Tier.T5) && e.lossClass >= 0) return "has no loss class";
  if ((e.tier === Tier.T1 || e.tier === Tier.T3 || e.tier === Tier.T4) && e.slot < 0) return "needs a slot";
  if (!positive && argMap >= 0) return "a fail-closed edge has no inverse arguments";
  return null;
}

/** The per-step φ and loss the compiler must have stored (docs/semantics.md, "Fixed point"). */
export function tierScore(tier: Tier, weight: number, lossWeight: number): { phi: number; loss: number } {
  switch (tier) {
    case Tier.T1:
      return { phi: weight, loss: 0 };
    case Tier.T2:
      return { phi: weight, loss: lossWeight };
    case Tier.T3: {
      // Exact in doubles: the product is at most ONE * ONE = 1e12 < 2^53, and the remainder is exact.
      const p = weight * (FIXED_ONE - lossWeight);
      return { phi: (p - (p % FIXED_ONE)) / FIXED_ONE, loss: lossWeight };
    }
    case Tier.T4:
      return { phi: 0, loss: lossWeight };
    default:
      return { phi: 0, loss: 0 };
  }
}

function checkScore(e: Omit<EdgeTable, "argMap">, lossClasses: LossClassTable[], at: number, i: number): void {
  if (e.weight <= 0 || e.weight > FIXED_ONE) {
    fail("bad-weight", `edge ${i} has weight ${e.weight}, outside (0, ${FIXED_ONE}]`, at + EDGE_WEIGHT);
  }
  const wl = e.lossClass >= 0 ? lossClasses[e.lossClass].weight : 0;
  const want = tierScore(e.tier, e.weight, wl);
  if (e.phi !== want.phi) {
    fail("phi-mismatch", `edge ${i} stores phi ${e.phi}, its tier and weights give ${want.phi}`, at + EDGE_PHI);
  }
  if (e.lossWeight !== want.loss) {
    fail("phi-mismatch", `edge ${i} stores loss weight ${e.lossWeight}, its tier and loss class give ${want.loss}`, at + EDGE_LOSS_W);
  }
}

function checkProgramOperands(e: Omit<EdgeTable, "argMap">, k: EdgeCounts, at: number, i: number): void {
  if (e.amount >= 0 && k.programs[e.amount].maxOperand >= k.tools[e.forward].operands.length) {
    fail("bad-program", `edge ${i}'s amount program ${e.amount} reads an operand its tool does not supply`, at + EDGE_AMOUNT);
  }
  if (e.program < 0) return;
  const supplied = k.tools[e.forward].operands.length;
  const used = k.programs[e.program].maxOperand;
  if (used >= supplied) {
    fail(
      "bad-program",
      `edge ${i} runs program ${e.program}, which reads operand ${used}, but its tool supplies ${supplied}`,
      at + EDGE_PROGRAM,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Argument maps: `count` records (u32 entry start, u32 entry count), then the entries.

function readArgMaps(c: Ctx, count: number): ArgMapEntry[][] {
  const s = c.sections[Section.ArgMaps];
  const head = count * ARGMAP_SIZE;
  if (s.length < head || (s.length - head) % ARGMAP_ENTRY_SIZE !== 0) {
    fail("bad-record-size", `argument maps section is ${s.length} bytes, not ${count} records and whole entries`, s.offset);
  }
  const entryCount = (s.length - head) / ARGMAP_ENTRY_SIZE;
  const entriesAt = s.offset + head;
  const out: ArgMapEntry[][] = new Array(count);
  let next = 0;
  for (let m = 0; m < count; m++) {
    const at = s.offset + m * ARGMAP_SIZE;
    const start = u32(c, at);
    const n = u32(c, at + 4);
    if (start > entryCount || n > entryCount - start) {
      fail("index-out-of-range", `argument map ${m} entries ${start}..${start + n} run past the ${entryCount} entries`, at);
    }
    if (start !== next) fail("bad-argmap", `argument map ${m} starts at entry ${start}, expected ${next}`, at);
    next = start + n;
    out[m] = readArgMapEntries(c, entriesAt, start, n, m);
  }
  if (next !== entryCount) fail("bad-argmap", `argument maps use ${next} entries, the section holds ${entryCount}`, entriesAt);
  return out;
}

function readArgMapEntries(c: Ctx, entriesAt: number, start: number, n: number, m: number): ArgMapEntry[] {
  const out: ArgMapEntry[] = new Array(n);
  const params = new Set<string>();
  for (let j = 0; j < n; j++) {
    const at = entriesAt + (start + j) * ARGMAP_ENTRY_SIZE;
    const param = stringAt(c, u32(c, at), at, `argument map ${m} parameter`);
    const source = enumValue(u32(c, at + 4), ArgSource.CallArg, ArgSource.Result, at + 4, `argument map ${m} source`);
    const ref = stringAt(c, u32(c, at + 8), at + 8, `argument map ${m} reference`);
    if (u32(c, at + 12) !== 0) fail("bad-reserved", `argument map ${m} entry ${j} reserved field is not zero`, at + 12);
    if (params.has(param)) fail("bad-argmap", `argument map ${m} sets parameter ${quote(param)} twice`, at);
    params.add(param);
    const problem = argRefProblem(source, ref);
    if (problem !== null) fail("bad-argmap", `argument map ${m} parameter ${quote(param)}: ${problem}`, at + 8);
    out[j] = { param, source, ref };
  }
  return out;
}

function argRefProblem(source: ArgSource, ref: string): string | null {
  if (source === ArgSource.NewId) return ref === "" ? null : "a new-id source takes no reference";
  if (source === ArgSource.Literal) {
    try {
      JSON.parse(ref);
      return null;
    } catch {
      return `literal ${quote(ref)} is not JSON`;
    }
  }
  return ref === "" ? "reference is empty" : null;
}

// ---------------------------------------------------------------------------------------------------
// Meta: u32 source name, u32 entry count, then (u32 key, u32 value) pairs with keys strictly ascending.

function readMeta(c: Ctx): { sourceName: string; meta: Record<string, string> } {
  const s = c.sections[Section.Meta];
  if (s.length < 8) fail("bad-record-size", `meta section is ${s.length} bytes, shorter than its 8-byte head`, s.offset);
  const sourceName = stringAt(c, u32(c, s.offset), s.offset, "source name");
  const count = u32(c, s.offset + 4);
  if (s.length !== 8 + 8 * count) {
    fail("bad-record-size", `meta section is ${s.length} bytes, expected ${8 + 8 * count} for ${count} entries`, s.offset + 4);
  }
  const meta: Record<string, string> = {};
  let prev: string | null = null;
  for (let i = 0; i < count; i++) {
    const at = s.offset + 8 + 8 * i;
    const key = stringAt(c, u32(c, at), at, `meta entry ${i} key`);
    const value = stringAt(c, u32(c, at + 4), at + 4, `meta entry ${i} value`);
    if (prev !== null && !(prev < key)) fail("bad-meta", `meta key ${quote(key)} is not after ${quote(prev)}: keys are unique and sorted`, at);
    prev = key;
    // defineProperty, not assignment: a key such as `__proto__` must stay an ordinary entry.
    Object.defineProperty(meta, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { sourceName, meta };
}
