// The compiled ontology as plain data: what the compiler produces, what the blob encodes, what the
// loader returns after validating a blob, and what the reference search reads. Field meanings are in
// src/abi.ts (the byte layout) and docs/semantics.md (what the search does with them).
import { OperandKind } from "../abi.js";
import type { ArgSource, Identity, Lifecycle, SlotType, Tier, ValueTag } from "../abi.js";

export interface Span {
  line: number; // 1-based
  col: number; // 1-based, in UTF-16 code units of the line
  endLine: number;
  endCol: number;
}

export interface EntityTable { name: string }
export interface SlotTable { name: string; entity: number; type: SlotType }
export interface LossClassTable { name: string; weight: number /* fixed */ }
export interface SinkTable { name: string; external: boolean }

export interface ToolTable {
  name: string;
  readOnly: boolean;
  actsOn: number; // entity index, -1 none
  keyArg: string | null; // argument that names the acts_on entity (null with keyConst)
  keyConst: string | null; // constant id of the acts_on entity (`key = "phone"`), null: named by keyArg
  creates: number; // entity index, -1 none
  target: number; // creates >= 0 ? creates : actsOn
  newKey: string | null; // result field holding the created entity's id (default "id" when creates is set)
  operands: OperandTable[]; // what the host supplies for this tool's bound programs
}

/** Slot operands name a slot (OPERAND_REF is a slot index); the others an argument path. */
export function isSlotOperand(kind: OperandKind): boolean {
  return kind === OperandKind.SlotValue || kind === OperandKind.SlotSize || kind === OperandKind.SlotPresent || kind === OperandKind.SlotLookup;
}

export interface OperandTable {
  kind: OperandKind;
  slot: number; // slot index for the slot kinds (SlotValue/SlotSize/SlotPresent), -1 otherwise
  path: string | null; // dotted argument path for the argument kinds, null otherwise
  type: SlotType;
  key?: string | null; // SlotLookup: the dotted argument path whose value is the key; absent/null otherwise
}

export interface ArgMapEntry {
  param: string;
  source: ArgSource;
  ref: string; // dotted path (CallArg/Result), slot name (PreSlot), JSON text (Literal), "" (NewId)
}

export interface EdgeTable {
  tier: Tier;
  lifecycle: Lifecycle;
  identity: Identity;
  forward: number; // tool
  inverse: number; // tool, -1 for T4/T5
  slot: number; // -1 none
  lossClass: number; // -1 none
  sink: number; // -1 none
  weight: number; // fixed
  phi: number; // fixed, per-step phi when admissible
  lossWeight: number; // fixed
  program: number; // condition program (any tier), -1 none
  amount: number; // amount program (`amount = <expr>`), -1 none
  id: string;
  span: Span;
  argMap: ArgMapEntry[] | null; // null: no args given
}

export interface ProgramTable {
  code: number[]; // u32 instructions: op | arg << 8
  maxStack: number;
}

export interface ConstantTable { tag: ValueTag; value: bigint }

export interface OntologyTables {
  sourceName: string;
  sourceSha256: Uint8Array; // 32 bytes
  compilerVersion: string;
  strings: string[]; // the string pool, in blob order; interned ids of literals index it
  entities: EntityTable[];
  slots: SlotTable[];
  lossClasses: LossClassTable[];
  sinks: SinkTable[];
  tools: ToolTable[]; // edges grouped by forward tool: edgeOffsets[t] .. edgeOffsets[t+1]
  edgeOffsets: number[]; // tools.length + 1
  edges: EdgeTable[];
  programs: ProgramTable[];
  constants: ConstantTable[];
  meta: Record<string, string>;
}
