// The checked ontology before layout: declarations by name with their table index, and annotations
// (edges) in source order. Codegen turns this into OntologyTables.
import type { ArgMapEntry, OperandTable, ProgramTable, Span } from "../ontology/tables.js";
import type { Identity, Lifecycle, SlotType, Tier } from "../abi.js";
import type { Node } from "./ast.js";

export interface EntityDecl { name: string; index: number; node: Node }
export interface SlotDecl { name: string; entity: number; type: SlotType; index: number; node: Node }
/** One item of a loss class's declared residue: a slot of an entity (null: any slot), or an entity of
 * that type the compensating step creates. */
export interface ResidueItem { entity: string; slot: string | null; created: boolean }
export interface LossDecl { name: string; weight: number; index: number; node: Node | null; residue: ResidueItem[] }
export interface SinkDecl { name: string; external: boolean; index: number; node: Node }

/** A declared parameter of a tool (`params = [...]`, `optional_params = [...]`). */
export interface ToolParam { name: string; required: boolean }

export interface ToolDecl {
  name: string;
  /** Declared parameters, or null when the tool declares none (nothing is checked then). */
  params: ToolParam[] | null;
  index: number;
  readOnly: boolean;
  actsOn: number;
  keyArg: string | null;
  /** `key = "phone"`: the constant id of the one entity the tool acts on (then keyArg is null). */
  keyConst: string | null;
  creates: number;
  newKey: string | null;
  node: Node;
  operands: OperandTable[];
  /** Operand index by kind and reference, so a bound reading `call.x` twice reads one operand. */
  operandIndex: Map<string, number>;
  /** Argument operands whose type no bound has fixed yet (defaults to string). */
  untypedArgs: Set<number>;
}

export interface EdgeDecl {
  tier: Tier;
  lifecycle: Lifecycle;
  identity: Identity;
  forward: number;
  inverse: number;
  slot: number;
  lossClass: number;
  sink: number;
  weight: number;
  phi: number;
  lossWeight: number;
  program: ProgramTable | null;
  /** `amount = <expr>`: the money the step leaves different (docs/semantics.md, "Amounts"); null none. */
  amount: ProgramTable | null;
  /** The annotation has a `when` condition (it applies only in some states). */
  conditional: boolean;
  id: string;
  explicitId: boolean;
  span: Span;
  node: Node;
  argMap: ArgMapEntry[] | null;
}

export class Model {
  readonly entities = new Map<string, EntityDecl>();
  readonly slots = new Map<string, SlotDecl>(); // key: "entity.slot"
  readonly lossClasses = new Map<string, LossDecl>();
  readonly sinks = new Map<string, SinkDecl>();
  readonly tools = new Map<string, ToolDecl>();
  readonly edges: EdgeDecl[] = [];

  private arrays: { entities: EntityDecl[]; slots: SlotDecl[]; sinks: SinkDecl[] } | null = null;

  entityList(): EntityDecl[] { return [...this.entities.values()]; }
  slotList(): SlotDecl[] { return [...this.slots.values()]; }
  lossList(): LossDecl[] { return [...this.lossClasses.values()]; }
  sinkList(): SinkDecl[] { return [...this.sinks.values()]; }
  /** Tools with a table index (a tool past the tool limit has none). */
  toolList(): ToolDecl[] { return [...this.tools.values()].filter((t) => t.index >= 0); }

  /** Indexed access once the declarations are complete (pass 2 onwards). */
  entityAt(i: number): EntityDecl { return this.indexed().entities[i]; }
  slotAt(i: number): SlotDecl { return this.indexed().slots[i]; }
  sinkAt(i: number): SinkDecl { return this.indexed().sinks[i]; }

  private indexed(): { entities: EntityDecl[]; slots: SlotDecl[]; sinks: SinkDecl[] } {
    this.arrays ??= { entities: this.entityList(), slots: this.slotList(), sinks: this.sinkList() };
    return this.arrays;
  }
}
