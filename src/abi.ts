// The one description of the boundary between the host (src/) and the WebAssembly core (assembly/).
// Both sides import this file; nothing here may be written twice. It is written in the subset of
// TypeScript that AssemblyScript also compiles: untyped integer constants (i32 in AssemblyScript) and
// plain enums. Layouts are little-endian; every offset is in bytes. docs/abi.md explains each field.

/** Bumped whenever a layout, an opcode or a meaning below changes. The host refuses a core or a blob
 * whose ABI version differs from its own. */
export const ABI_VERSION = 3;

// ---------------------------------------------------------------------------------------------------
// Fixed-point arithmetic. Weights, scores, losses and numeric Layer B values are integers scaled by
// FIXED_ONE (1.0 == 1_000_000). Products are floored: phi(T3) = floor(w * (ONE - w_loss) / ONE).
// Numbers in bound programs are i64 with the same scale; times are seconds since the Unix epoch, scaled.
export const FIXED_ONE = 1000000;

// ---------------------------------------------------------------------------------------------------
// Blob: header, then a section table, then sections. All section offsets are from the blob start and
// 8-byte aligned. The digest covers every byte of the blob except the digest field itself (so the
// source hash is covered too): SHA-256 of bytes [0, HDR_BLOB_DIGEST) followed by [BLOB_DIGEST_FROM, total_len).
export const BLOB_MAGIC = 0x4f524c50; // "PLRO" read as a little-endian u32
export const BLOB_FORMAT_VERSION = 3;
export const BLOB_HEADER_SIZE = 96;
export const HDR_MAGIC = 0; //         u32
export const HDR_ABI_VERSION = 4; //   u16
export const HDR_FORMAT_VERSION = 6; // u16
export const HDR_TOTAL_LEN = 8; //     u32 whole blob length in bytes
export const HDR_SECTION_COUNT = 12; // u32
export const HDR_SOURCE_SHA256 = 16; // 32 bytes: SHA-256 of the ontology source text (UTF-8)
export const HDR_BLOB_DIGEST = 48; //  32 bytes: SHA-256 of [0, 48) ++ [BLOB_DIGEST_FROM, total_len)
export const BLOB_DIGEST_FROM = 80;
export const HDR_COMPILER_VERSION = 80; // u32 string index
export const HDR_FLAGS = 84; //        u32 reserved, 0
export const HDR_RESERVED = 88; //     8 bytes, 0
export const SECTION_ENTRY_SIZE = 12; // u32 id, u32 offset, u32 length; the table follows the header

export enum Section {
  Strings = 1, //    u32 count, u32 offsets[count + 1] (relative to the byte area), then UTF-8 bytes
  Entities = 2, //   ENTITY_SIZE each
  Slots = 3, //      SLOT_SIZE each
  LossClasses = 4, // LOSS_SIZE each
  Sinks = 5, //      SINK_SIZE each
  Tools = 6, //      TOOL_SIZE each
  EdgeOffsets = 7, // u32[tool_count + 1]: CSR row pointers into Edges, by forward tool
  Edges = 8, //      EDGE_SIZE each, grouped by forward tool in source order
  Operands = 9, //   OPERAND_SIZE each, grouped by tool (Tool.operand_start, Tool.operand_count)
  Programs = 10, //  PROGRAM_SIZE each
  Code = 11, //      u32 instructions: opcode in the low 8 bits, argument in the high 24
  Constants = 12, // CONST_SIZE each: i32 tag, i32 0, i64 value
  ArgMaps = 13, //   ARGMAP_SIZE each: inverse-argument templates (host only)
  Meta = 14, //      u32 source_name string, u32 entry count, then (u32 key, u32 value) string pairs
}
export const SECTION_COUNT = 14;

// Entities: u32 name.
export const ENTITY_SIZE = 4;
// Slots: u32 name, u32 entity, u32 type (SlotType).
export const SLOT_SIZE = 12;
export enum SlotType { String = 0, Number = 1, Bool = 2, Datetime = 3, Date = 4, List = 5, Object = 6 }
// Loss classes: u32 name, i32 weight (fixed, [0, ONE)).
export const LOSS_SIZE = 8;
// Sinks: u32 name, u32 external (0/1).
export const SINK_SIZE = 8;

// Tools.
export const TOOL_SIZE = 40;
export const TOOL_NAME = 0; //          u32 string
export const TOOL_FLAGS = 4; //         u32 ToolFlag bits
export const TOOL_ACTS_ON = 8; //       i32 entity, -1: acts on no entity (always grounded)
export const TOOL_KEY_ARG = 12; //      i32 string: the call argument naming the entity id, -1 none
export const TOOL_CREATES = 16; //      i32 entity created by the call, -1 none
export const TOOL_TARGET = 20; //       i32 entity an inverse restores: creates if set, else acts_on
export const TOOL_OPERAND_START = 24; // u32 index into Operands
export const TOOL_OPERAND_COUNT = 28; // u32
export const TOOL_NEW_KEY = 32; //      i32 string: the result field holding a created entity's id, -1 none
export const TOOL_KEY_CONST = 36; //    i32 string: the constant id of the acts_on entity (`key = "phone"`), -1 none
export enum ToolFlag { ReadOnly = 1, Declared = 2 }

// Edges (annotations).
export const EDGE_SIZE = 68;
export const EDGE_TIER = 0; //        u8 Tier
export const EDGE_LIFECYCLE = 1; //   u8 Lifecycle
export const EDGE_IDENTITY = 2; //    u8 Identity
export const EDGE_PAD = 3; //         u8 0
export const EDGE_FORWARD = 4; //     u32 tool whose call this edge answers
export const EDGE_INVERSE = 8; //     i32 tool of the inverse step (T1/T3: a, T2: the tool itself), -1 for T4/T5
export const EDGE_SLOT = 12; //       i32 slot, -1 none
export const EDGE_LOSS = 16; //       i32 loss class, -1 none
export const EDGE_SINK = 20; //       i32 sink, -1 none
export const EDGE_WEIGHT = 24; //     i32 curator weight w (fixed, (0, ONE])
export const EDGE_PHI = 28; //        i32 per-step phi when admissible (T1: w, T2: w, T3: floor(w*(ONE-wl)/ONE), T4/T5: 0)
export const EDGE_LOSS_W = 32; //     i32 loss weight added to the cumulative loss (0 when no loss class)
export const EDGE_PROGRAM = 36; //    i32 condition program (T2 bound, `when`, required-argument presence, conjoined), -1 none
export const EDGE_ID = 40; //         u32 string: stable annotation id
export const EDGE_LINE = 44; //       u32 1-based source line of the annotation
export const EDGE_COL = 48; //        u32 1-based source column
export const EDGE_ARGMAP = 52; //     i32 ArgMaps index, -1 none
export const EDGE_END_LINE = 56; //   u32
export const EDGE_END_COL = 60; //    u32
export const EDGE_AMOUNT = 64; //     i32 amount program (`amount = <expr>`: the money the step leaves different), -1 none
export enum Tier { T1 = 1, T2 = 2, T3 = 3, T4 = 4, T5 = 5 }
export enum Lifecycle { Live = 0, Provisional = 1, Revoked = 2, Disputed = 3 }
export enum Identity { Same = 0, New = 1 }

// Operands: what the host must supply, per call, for the tool's bound programs.
export const OPERAND_SIZE = 16;
export const OPERAND_KIND = 0; // u32 OperandKind
export const OPERAND_REF = 4; //  u32 slot index (slot kinds) or string index of a dotted argument path (arg kinds)
export const OPERAND_TYPE = 8; // u32 SlotType expected (arg kinds: declared or inferred)
export const OPERAND_KEY = 12; // i32 string index of the argument path whose value is the key (SlotLookup), -1 otherwise
// SlotLookup: `lookup(entity.slot, call.path)`, the entry of an object slot at the key the argument names.
export enum OperandKind { SlotValue = 0, SlotSize = 1, ArgValue = 2, ArgSize = 3, SlotPresent = 4, ArgPresent = 5, SlotLookup = 6 }

// Programs: u32 code start (instruction index), u32 code length, u32 max stack depth.
export const PROGRAM_SIZE = 12;
export const MAX_STACK = 64;
export const MAX_PROGRAM_LEN = 4096;
export enum Op {
  Const = 1, //   push Constants[arg]
  Operand = 2, // push operands[call.operand_start + arg]
  Now = 3, //     push the input's now
  Eq = 4, Ne = 5, Lt = 6, Le = 7, Gt = 8, Ge = 9,
  And = 10, Or = 11, Not = 12,
  Add = 13, Sub = 14,
  Mul = 15, //    fixed-point product, floored: floor(a * b / ONE) (i64, wrapping)
  Max = 16, Min = 17, // of two Numbers
  Coalesce = 18, // the left value unless it is Missing or Null, else the right one
}
export const CONST_SIZE = 16;
export enum ValueTag { Missing = 0, Null = 1, Bool = 2, Number = 3, String = 4 }

// ArgMaps: u32 entry start, u32 entry count into the ArgMap entries that follow the ArgMaps records in
// the same section. Entries are ARGMAP_ENTRY_SIZE: u32 param name string, u32 ArgSource, u32 ref string
// (dotted path, slot name, or JSON literal text), u32 0.
export const ARGMAP_SIZE = 8;
export const ARGMAP_ENTRY_SIZE = 16;
export enum ArgSource { CallArg = 0, PreSlot = 1, Literal = 2, NewId = 3, Result = 4 }

// ---------------------------------------------------------------------------------------------------
// Core memory: the host writes one input record, calls verdict(), reads one output record.
export const MAX_CALLS = 256; //    capacity of the input record
export const MAX_OPERANDS = 4096;
export const MAX_STEPS = 256;
export const MAX_CANDIDATES = 4096; // total admissible edges held for one search

export const IN_N_CALLS = 0; //       u32
export const IN_TAU = 4; //           i32 fixed
export const IN_FLAGS = 8; //         u32: bit (t-1) enables tier t (T1..T5); FLAG_FAIL_CLOSED_OFF
export const IN_MAX_NODES = 12; //    u32 search budget (candidate visits)
export const IN_NOW = 16; //          i64 fixed (seconds since the epoch, scaled)
export const IN_MAX_DEPTH = 24; //    u32 most mutating calls searched
export const IN_N_OPERANDS = 28; //   u32
export const IN_CALLS = 32; //        CALL_SIZE each, forward order c1..cn (cn is the candidate)
export const CALL_SIZE = 16;
export const CALL_TOOL = 0; //          i32 tool index, -1 unknown to the ontology
export const CALL_GROUNDED = 4; //      u32 1 when the acts_on entity exists in Layer B (or the tool has none)
export const CALL_TARGET_KEY = 8; //    i32 interned id of the entity an inverse restores
export const CALL_OPERAND_START = 12; // u32 index into the operand array
export const IN_OPERANDS = 32 + 16 * 256; // OPERAND_VALUE_SIZE each
export const OPERAND_VALUE_SIZE = 16; // i32 tag, i32 0, i64 value
export const INPUT_SIZE = 32 + 16 * 256 + 16 * 4096;
export const FLAG_FAIL_CLOSED_OFF = 256;
export const ALL_TIERS = 31;

export const OUT_STATUS = 0; //   i32 Status
export const OUT_REASON = 4; //   i32 Reason
export const OUT_COMPLETE = 8; // i32 1 when a complete inverse sequence was found
export const OUT_PHI = 12; //     i32 fixed
export const OUT_LOSS = 16; //    i32 fixed, cumulative
export const OUT_B_CALL = 20; //  i32 bottleneck call index (forward order), -1 none
export const OUT_B_EDGE = 24; //  i32 bottleneck edge, -1 none
export const OUT_B_TOOL = 28; //  i32 bottleneck tool, -1 none
export const OUT_N_STEPS = 32; // u32
export const OUT_NODES = 36; //   u32 candidate visits spent
export const OUT_AMOUNT_STATE = 40; // i32 AmountState of the total: None (no step declares one), Known, Unknown (a step's is)
export const OUT_AMOUNT_PAD = 44; //   i32 0
export const OUT_AMOUNT = 48; //  i64 fixed: sum of the steps' known amounts
export const OUT_STEPS = 56; //   STEP_SIZE each, inverse order u_n .. u_1
export const STEP_SIZE = 32;
export const STEP_CALL = 0; //    i32 index of the forward call this step undoes
export const STEP_EDGE = 4; //    i32 edge
export const STEP_PHI = 8; //     i32 fixed
export const STEP_LOSS = 12; //   i32 fixed
export const STEP_AMOUNT_STATE = 16; // i32 AmountState: None (the edge declares no amount), Known, Unknown (it evaluated to no Number)
export const STEP_AMOUNT_PAD = 20; //   i32 0
export const STEP_AMOUNT = 24; // i64 fixed: the edge's amount program's value on the call's operands (0 unless Known)
export const OUTPUT_SIZE = 56 + 32 * 256;
export enum AmountState { None = 0, Known = 1, Unknown = 2 }

export enum Status { Ok = 0, NotLoaded = 1, BadInput = 2, BadBlob = 3, Internal = 4 }

export enum Reason {
  Ok = 0,
  NoCandidate = 1,
  ExternalSideEffect = 2,
  IrreversiblyConsumes = 3,
  BoundViolated = 4,
  UnknownTool = 5,
  OverlapConflict = 6,
  DepthExceeded = 7,
  BelowThreshold = 8,
}
