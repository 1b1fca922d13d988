// Hand-built compiled tables for the blob tests: a small fluent builder that fills in what the compiler
// would derive (φ and loss weight from the tier formula, CSR row pointers, targets), a realistic sample
// ontology that uses every construct, and a seeded random generator of valid tables.
import {
  ArgSource,
  FIXED_ONE,
  Identity,
  Lifecycle,
  Op,
  OperandKind,
  SECTION_ENTRY_SIZE,
  BLOB_HEADER_SIZE,
  SlotType,
  Tier,
  ValueTag,
} from "../../src/abi.js";
import type {
  ArgMapEntry,
  EdgeTable,
  OntologyTables,
  OperandTable,
  Span,
  ToolTable,
} from "../../src/ontology/tables.js";
import { sha256 } from "../../src/util/sha256.js";
import { decodeBlob, encodeBlob } from "../../src/blob/index.js";

export const ins = (op: Op, arg = 0): number => (op | (arg << 8)) >>> 0;

export interface ToolOptions {
  readOnly?: boolean;
  actsOn?: number;
  keyArg?: string | null;
  creates?: number;
  newKey?: string | null;
  operands?: OperandTable[];
}

export interface EdgeOptions {
  inverse?: number;
  slot?: number;
  lossClass?: number;
  sink?: number;
  weight?: number;
  lifecycle?: Lifecycle;
  identity?: Identity;
  program?: number;
  amount?: number;
  id?: string;
  span?: Span;
  argMap?: ArgMapEntry[] | null;
}

export function tierScore(tier: Tier, w: number, wl: number): { phi: number; loss: number } {
  switch (tier) {
    case Tier.T1:
      return { phi: w, loss: 0 };
    case Tier.T2:
      return { phi: w, loss: wl };
    case Tier.T3:
      return { phi: Math.floor((w * (FIXED_ONE - wl)) / FIXED_ONE), loss: wl };
    case Tier.T4:
      return { phi: 0, loss: wl };
    default:
      return { phi: 0, loss: 0 };
  }
}

export class TablesBuilder {
  readonly t: OntologyTables;
  private edgeList: EdgeTable[] = [];
  private line = 1;

  constructor(sourceName = "test.polar", source = "% test") {
    this.t = {
      sourceName,
      sourceSha256: sha256(new TextEncoder().encode(source)),
      compilerVersion: "polar-guard/test",
      strings: [],
      entities: [],
      slots: [],
      lossClasses: [],
      sinks: [],
      tools: [],
      edgeOffsets: [],
      edges: [],
      programs: [],
      constants: [],
      meta: {},
    };
  }

  str(s: string): number {
    const i = this.t.strings.indexOf(s);
    if (i >= 0) return i;
    this.t.strings.push(s);
    return this.t.strings.length - 1;
  }

  entity(name: string): number {
    this.t.entities.push({ name });
    return this.t.entities.length - 1;
  }

  slot(entity: number, name: string, type: SlotType): number {
    this.t.slots.push({ name, entity, type });
    return this.t.slots.length - 1;
  }

  loss(name: string, weight: number): number {
    this.t.lossClasses.push({ name, weight });
    return this.t.lossClasses.length - 1;
  }

  sink(name: string, external: boolean): number {
    this.t.sinks.push({ name, external });
    return this.t.sinks.length - 1;
  }

  tool(name: string, o: ToolOptions = {}): number {
    const actsOn = o.actsOn ?? -1;
    const creates = o.creates ?? -1;
    const tool: ToolTable = {
      name,
      readOnly: o.readOnly ?? false,
      actsOn,
      keyArg: o.keyArg ?? null,
      creates,
      target: creates >= 0 ? creates : actsOn,
      newKey: o.newKey ?? null,
      keyConst: null,
      operands: o.operands ?? [],
    };
    this.t.tools.push(tool);
    return this.t.tools.length - 1;
  }

  constant(tag: ValueTag, value: bigint): number {
    this.t.constants.push({ tag, value });
    return this.t.constants.length - 1;
  }

  stringConstant(s: string): number {
    return this.constant(ValueTag.String, BigInt(this.str(s)));
  }

  program(code: number[], maxStack: number): number {
    this.t.programs.push({ code, maxStack });
    return this.t.programs.length - 1;
  }

  edge(tier: Tier, forward: number, o: EdgeOptions = {}): this {
    const weight = o.weight ?? FIXED_ONE;
    const lossClass = o.lossClass ?? -1;
    const wl = lossClass >= 0 ? this.t.lossClasses[lossClass].weight : 0;
    const { phi, loss } = tierScore(tier, weight, wl);
    const line = this.line++;
    this.edgeList.push({
      tier,
      lifecycle: o.lifecycle ?? Lifecycle.Live,
      identity: o.identity ?? Identity.Same,
      forward,
      inverse: o.inverse ?? (tier === Tier.T2 ? forward : -1),
      slot: o.slot ?? -1,
      lossClass,
      sink: o.sink ?? -1,
      weight,
      phi,
      lossWeight: loss,
      program: o.program ?? -1,
      amount: o.amount ?? -1,
      id: o.id ?? `e${this.edgeList.length}`,
      span: o.span ?? { line, col: 1, endLine: line, endCol: 20 },
      argMap: o.argMap ?? null,
    });
    return this;
  }

  meta(key: string, value: string): this {
    this.t.meta[key] = value;
    return this;
  }

  /** Groups the edges by forward tool (stable: source order within a tool) and sets the CSR rows. */
  build(): OntologyTables {
    const edges = [...this.edgeList].sort((a, b) => a.forward - b.forward);
    const offsets = new Array(this.t.tools.length + 1).fill(0);
    for (const e of edges) offsets[e.forward + 1]++;
    for (let i = 0; i < this.t.tools.length; i++) offsets[i + 1] += offsets[i];
    return structuredClone({ ...this.t, edges, edgeOffsets: offsets });
  }
}

/** A small airline-like ontology that uses every tier, lifecycle, operand kind, argument source, a
 * bound program over slots, arguments, constants and `now`, and the meta section. */
export function sampleTables(): OntologyTables {
  const b = new TablesBuilder("airline.polar", "% airline sample\n");
  b.str("cancelled"); // a literal interned by the compiler before any name
  const user = b.entity("user");
  const reservation = b.entity("reservation");
  const status = b.slot(reservation, "status", SlotType.String);
  const flights = b.slot(reservation, "flights", SlotType.List);
  const departure = b.slot(reservation, "first_departure", SlotType.Datetime);
  const balance = b.slot(user, "balance", SlotType.Number);
  const none = b.loss("none", 0);
  const fee = b.loss("cancellation_fee", 100_000);
  const odd = b.loss("odd_fee", 333_333);
  const email = b.sink("email", true);
  b.sink("log", false);

  b.tool("get_reservation_details", { readOnly: true });
  const book = b.tool("book_reservation", {
    actsOn: user,
    keyArg: "user_id",
    creates: reservation,
    newKey: "reservation_id",
  });
  const cancel = b.tool("cancel_reservation", { actsOn: reservation, keyArg: "reservation_id" });
  const update = b.tool("update_reservation_baggages", {
    actsOn: reservation,
    keyArg: "reservation_id",
    operands: [
      { kind: OperandKind.SlotValue, slot: status, path: null, type: SlotType.String },
      { kind: OperandKind.SlotValue, slot: departure, path: null, type: SlotType.Datetime },
      { kind: OperandKind.SlotSize, slot: flights, path: null, type: SlotType.List },
      { kind: OperandKind.ArgValue, slot: -1, path: "total_baggages", type: SlotType.Number },
      { kind: OperandKind.ArgSize, slot: -1, path: "passengers", type: SlotType.List },
    ],
  });
  const email_ = b.tool("send_email");
  const del = b.tool("delete_user", { actsOn: user, keyArg: "user_id" });
  const pay = b.tool("pay", { actsOn: user, keyArg: "user_id" });

  const cancelled = b.stringConstant("cancelled");
  const zero = b.constant(ValueTag.Number, 0n);
  b.constant(ValueTag.Bool, 1n);
  b.constant(ValueTag.Null, 0n);
  b.constant(ValueTag.Number, -1_500_000n);
  const bound = b.program(
    [
      ins(Op.Operand, 0),
      ins(Op.Const, cancelled),
      ins(Op.Ne),
      ins(Op.Now),
      ins(Op.Operand, 1),
      ins(Op.Lt),
      ins(Op.And),
      ins(Op.Operand, 3),
      ins(Op.Const, zero),
      ins(Op.Ge),
      ins(Op.Not),
      ins(Op.Not),
      ins(Op.Or),
    ],
    3,
  );

  b.edge(Tier.T1, book, {
    inverse: cancel,
    slot: status,
    weight: 950_000,
    id: "t1.book.cancel",
    argMap: [{ param: "reservation_id", source: ArgSource.NewId, ref: "" }],
  });
  b.edge(Tier.T3, cancel, {
    inverse: book,
    slot: status,
    lossClass: fee,
    weight: 900_000,
    identity: Identity.New,
    id: "t3.cancel.book",
    argMap: [
      { param: "user_id", source: ArgSource.PreSlot, ref: "reservation.user_id" },
      { param: "flights", source: ArgSource.PreSlot, ref: "reservation.flights" },
      { param: "insurance", source: ArgSource.Literal, ref: '"no"' },
      { param: "payment", source: ArgSource.CallArg, ref: "payment.id" },
    ],
  });
  b.edge(Tier.T3, cancel, { inverse: book, slot: status, lossClass: odd, weight: 777_777, lifecycle: Lifecycle.Provisional, id: "t3.odd" });
  b.edge(Tier.T2, update, {
    lossClass: none,
    weight: 990_000,
    program: bound,
    id: "t2.update",
    span: { line: 40, col: 3, endLine: 44, endCol: 2 },
    argMap: [
      { param: "reservation_id", source: ArgSource.CallArg, ref: "reservation_id" },
      { param: "total_baggages", source: ArgSource.PreSlot, ref: "reservation.total_baggages" },
      { param: "result", source: ArgSource.Result, ref: "receipt.id" },
    ],
  });
  b.edge(Tier.T2, update, { weight: 500_000, id: "t2.update.always", lifecycle: Lifecycle.Disputed, argMap: [] });
  b.edge(Tier.T4, del, { slot: balance, lossClass: fee, weight: FIXED_ONE, id: "t4.delete" });
  b.edge(Tier.T5, email_, { sink: email, weight: 1, id: "t5.email", lifecycle: Lifecycle.Revoked });
  b.edge(Tier.T1, pay, { inverse: pay, slot: balance, weight: 1, id: "t1.pay.self", identity: Identity.New });
  b.meta("domain", "airline").meta("compiled_from", "airline.polar").meta("ünïcode ключ", "値 ✓");
  return b.build();
}

/** A deterministic PRNG (mulberry32): random tables must be reproducible from their seed. */
export function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) >>> 0;
  };
}

/** Valid random tables: every tier, random programs, strings with non-ASCII text. */
export function randomTables(seed: number, size = 8): OntologyTables {
  const r = rng(seed);
  const b = new TablesBuilder(`rand-${seed}.polar`, `seed ${seed}`);
  const alphabet = ["a", "b", "é", "ж", "😀", "_", "1", " ", '"'];
  const word = (prefix: string) => {
    let s = prefix;
    for (let i = r(6); i > 0; i--) s += alphabet[r(alphabet.length)];
    return s;
  };
  for (let i = r(4); i > 0; i--) b.str(word(`lit${i}.`));
  const nEnt = 1 + r(3);
  for (let i = 0; i < nEnt; i++) b.entity(word(`ent${i}.`));
  const nSlot = 1 + r(size);
  for (let i = 0; i < nSlot; i++) b.slot(r(nEnt), word(`slot${i}.`), r(7));
  const nLoss = 1 + r(3);
  for (let i = 0; i < nLoss; i++) b.loss(word(`loss${i}.`), r(FIXED_ONE));
  const nSink = 1 + r(2);
  for (let i = 0; i < nSink; i++) b.sink(word(`sink${i}.`), r(2) === 1);
  for (let i = r(5); i > 0; i--) {
    const tag = r(5) as ValueTag;
    if (tag === ValueTag.String) b.stringConstant(word("c"));
    else if (tag === ValueTag.Bool) b.constant(tag, BigInt(r(2)));
    else if (tag === ValueTag.Number) b.constant(tag, BigInt(r(2_000_000_000)) * 7919n - 3_000_000_000n);
    else b.constant(tag, 0n);
  }
  const nTool = 1 + r(size);
  for (let i = 0; i < nTool; i++) {
    const actsOn = r(3) === 0 ? -1 : r(nEnt);
    const creates = r(4) === 0 ? r(nEnt) : -1;
    const operands: OperandTable[] = [];
    for (let k = r(4); k > 0; k--) {
      const kind = r(4) as OperandKind;
      const bySlot = kind === OperandKind.SlotValue || kind === OperandKind.SlotSize;
      operands.push({ kind, slot: bySlot ? r(nSlot) : -1, path: bySlot ? null : word("arg."), type: r(7) });
    }
    b.tool(word(`tool${i}.`), {
      readOnly: r(6) === 0,
      actsOn,
      keyArg: actsOn >= 0 ? word("key") : null,
      creates,
      newKey: creates >= 0 ? "id" : null,
      operands,
    });
  }
  const tools = b.t.tools;
  const mutating = tools.map((_, i) => i).filter((i) => !tools[i].readOnly);
  for (let i = mutating.length > 0 ? r(size * 2) : 0; i > 0; i--) {
    const forward = mutating[r(mutating.length)];
    const tier = (1 + r(5)) as Tier;
    const weight = 1 + r(FIXED_ONE);
    const common: EdgeOptions = {
      weight,
      lifecycle: r(4) as Lifecycle,
      identity: r(2) as Identity,
      id: word(`edge${i}.`),
      span: { line: 1 + r(100), col: 1 + r(80), endLine: 101 + r(5), endCol: 1 + r(80) },
    };
    const argMap = r(3) === 0 ? null : randomArgMap(r, word);
    if (tier === Tier.T1) b.edge(tier, forward, { ...common, inverse: r(tools.length), slot: r(nSlot), argMap });
    else if (tier === Tier.T2) {
      const program = tools[forward].operands.length > 0 || r(2) === 0 ? randomProgram(b, r, tools[forward].operands.length) : -1;
      b.edge(tier, forward, { ...common, program, lossClass: r(2) === 0 ? -1 : r(nLoss), slot: r(3) === 0 ? r(nSlot) : -1, argMap });
    } else if (tier === Tier.T3) b.edge(tier, forward, { ...common, inverse: r(tools.length), slot: r(nSlot), lossClass: r(nLoss), argMap });
    else if (tier === Tier.T4) b.edge(tier, forward, { ...common, slot: r(nSlot), lossClass: r(nLoss) });
    else b.edge(tier, forward, { ...common, sink: r(nSink) });
  }
  for (let i = r(4); i > 0; i--) b.meta(word("k"), word("v"));
  return b.build();
}

function randomArgMap(r: (n: number) => number, word: (p: string) => string): ArgMapEntry[] {
  const out: ArgMapEntry[] = [];
  for (let i = r(4); i > 0; i--) {
    const source = r(5) as ArgSource;
    const ref = source === ArgSource.NewId ? "" : source === ArgSource.Literal ? JSON.stringify(word("lit")) : word("p.");
    out.push({ param: `param${i}`, source, ref });
  }
  return out;
}

/** A random straight-line program that is sound by construction: push while shallow, combine while deep. */
function randomProgram(b: TablesBuilder, r: (n: number) => number, operandCount: number): number {
  const code: number[] = [];
  let depth = 0;
  let deepest = 0;
  const steps = 1 + r(12);
  const constants = b.t.constants.length;
  const binary = [Op.Eq, Op.Ne, Op.Lt, Op.Le, Op.Gt, Op.Ge, Op.And, Op.Or, Op.Add, Op.Sub];
  for (let i = 0; i < steps || depth !== 1; i++) {
    const push = depth === 0 || (i < steps && depth < 6 && r(2) === 0);
    if (push) {
      const choice = r(3);
      if (choice === 0 && constants > 0) code.push(ins(Op.Const, r(constants)));
      else if (choice === 1 && operandCount > 0) code.push(ins(Op.Operand, r(operandCount)));
      else code.push(ins(Op.Now));
      depth++;
    } else if (depth >= 2 && r(4) !== 0) {
      code.push(ins(binary[r(binary.length)]));
      depth--;
    } else code.push(ins(Op.Not));
    deepest = Math.max(deepest, depth);
  }
  return b.program(code, deepest + r(3));
}

/** Offset and length of section `id`, read from a blob's section table. */
export function sectionOf(bytes: Uint8Array, id: number): { offset: number; length: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = BLOB_HEADER_SIZE + (id - 1) * SECTION_ENTRY_SIZE;
  return { offset: view.getUint32(at + 4, true), length: view.getUint32(at + 8, true) };
}

/** The sample tables as the decoder gives them back (the form the blob tests edit). */
export const canonical = (): OntologyTables => decodeBlob(encodeBlob(sampleTables()));
export const viewOf = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
export const edgeById = (t: OntologyTables, id: string): EdgeTable => t.edges.find((e) => e.id === id)!;
export const toolIndex = (t: OntologyTables, name: string): number => t.tools.findIndex((x) => x.name === name);
