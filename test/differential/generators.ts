// fast-check generators for the differential tests: random but well-formed OntologyTables (what the
// compiler could emit and decodeBlob accepts) and random input records over them. Values come from
// small pools so that equalities, ties, bound outcomes and key overlaps actually happen.
import fc from "fast-check";
import {
  ArgSource,
  FIXED_ONE,
  FLAG_FAIL_CLOSED_OFF,
  Identity,
  Lifecycle,
  MAX_CALLS,
  Op,
  OperandKind,
  SlotType,
  Tier,
  ValueTag,
} from "../../src/abi.js";
import { isSlotOperand } from "../../src/ontology/tables.js";
import type {
  ArgMapEntry,
  ConstantTable,
  EdgeTable,
  OntologyTables,
  OperandTable,
  ProgramTable,
  ToolTable,
} from "../../src/ontology/tables.js";

const ONE = FIXED_ONE;

// ---------------------------------------------------------------------------------------------------
// Value pools shared by constants, operands and `now`.

const LITERALS = ["v0", "v1", "v2", "v3"]; // string pool ids 0..3
const NUMBERS: bigint[] = [0n, 1n, BigInt(ONE), 2n * BigInt(ONE), -BigInt(ONE), 5n * BigInt(ONE), 9_223_372_036_854_775_807n, -9_223_372_036_854_775_808n];

const numberArb = fc.oneof(fc.constantFrom(...NUMBERS), fc.bigInt({ min: -3n * BigInt(ONE), max: 6n * BigInt(ONE) }));
const stringIdArb = fc.integer({ min: 0, max: 5 }); // 4, 5: scratch ids outside the pool

// Mostly the payloads a host writes (0 for Missing/Null, 0/1 for Bool), sometimes odd ones: the core
// and the reference must still agree on them.
const oddPayload = fc.constantFrom(0n, 0n, 0n, 0n, 0n, 0n, 1n, 2n, -1n);
export const taggedArb = fc.oneof(
  { weight: 1, arbitrary: oddPayload.map((value) => ({ tag: ValueTag.Missing, value })) },
  { weight: 1, arbitrary: oddPayload.map((value) => ({ tag: ValueTag.Null, value })) },
  { weight: 2, arbitrary: fc.constantFrom(0n, 1n, 0n, 1n, 0n, 1n, 0n, 1n, 2n).map((value) => ({ tag: ValueTag.Bool, value })) },
  { weight: 3, arbitrary: numberArb.map((v) => ({ tag: ValueTag.Number, value: v })) },
  { weight: 2, arbitrary: stringIdArb.map((v) => ({ tag: ValueTag.String, value: BigInt(v) })) },
);

const constantArb: fc.Arbitrary<ConstantTable> = fc.oneof(
  fc.constant({ tag: ValueTag.Null, value: 0n }),
  fc.integer({ min: 0, max: 1 }).map((b) => ({ tag: ValueTag.Bool, value: BigInt(b) })),
  numberArb.map((v) => ({ tag: ValueTag.Number, value: v })),
  fc.integer({ min: 0, max: LITERALS.length - 1 }).map((v) => ({ tag: ValueTag.String, value: BigInt(v) })),
);

const fixedArb = fc.oneof(fc.constantFrom(1, 250_000, 500_000, 800_000, 855_000, 900_000, 999_999, ONE), fc.integer({ min: 1, max: ONE }));
const lossWeightArb = fc.oneof(fc.constantFrom(0, 1, 100_000, 500_000, 999_999), fc.integer({ min: 0, max: ONE - 1 }));

// ---------------------------------------------------------------------------------------------------
// Bound expressions: a tree compiled to stack code in post-order.

type Expr =
  | { k: "const"; i: number }
  | { k: "operand"; i: number }
  | { k: "now" }
  | { k: "not"; a: Expr }
  | { k: "bin"; op: Op; a: Expr; b: Expr };

const { bool: boolExprArb, atom: atomExprArb } = fc.letrec<{ atom: Expr; bool: Expr }>((tie) => ({
  atom: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 3, arbitrary: fc.nat(63).map((i): Expr => ({ k: "const", i })) },
    { weight: 3, arbitrary: fc.nat(63).map((i): Expr => ({ k: "operand", i })) },
    { weight: 1, arbitrary: fc.constant<Expr>({ k: "now" }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constantFrom(Op.Add, Op.Sub), a: tie("atom"), b: tie("atom") }).map((r): Expr => ({ k: "bin", ...r })) },
    { weight: 1, arbitrary: fc.record({ op: fc.constantFrom(Op.Mul, Op.Max, Op.Min, Op.Coalesce), a: tie("atom"), b: tie("atom") }).map((r): Expr => ({ k: "bin", ...r })) },
  ),
  bool: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: fc.record({ op: fc.constantFrom(Op.Eq, Op.Ne, Op.Lt, Op.Le, Op.Gt, Op.Ge), a: tie("atom"), b: tie("atom") }).map((r): Expr => ({ k: "bin", ...r })) },
    { weight: 2, arbitrary: fc.record({ op: fc.constantFrom(Op.And, Op.Or), a: tie("bool"), b: tie("bool") }).map((r): Expr => ({ k: "bin", ...r })) },
    { weight: 1, arbitrary: tie("bool").map((a): Expr => ({ k: "not", a })) },
    { weight: 1, arbitrary: tie("atom") },
  ),
}));

/** Post-order code for `e`; operand and constant references are folded into range. */
function compileExpr(e: Expr, nOperands: number, nConstants: number, code: number[]): void {
  switch (e.k) {
    case "const":
      code.push(Op.Const | ((e.i % nConstants) << 8));
      return;
    case "operand":
      if (nOperands === 0) code.push(Op.Const | ((e.i % nConstants) << 8));
      else code.push(Op.Operand | ((e.i % nOperands) << 8));
      return;
    case "now":
      code.push(Op.Now);
      return;
    case "not":
      compileExpr(e.a, nOperands, nConstants, code);
      code.push(Op.Not);
      return;
    case "bin":
      compileExpr(e.a, nOperands, nConstants, code);
      compileExpr(e.b, nOperands, nConstants, code);
      code.push(e.op);
      return;
  }
}

function maxStackOf(code: number[]): number {
  let depth = 0;
  let deepest = 0;
  for (const w of code) {
    const op = w & 0xff;
    if (op === Op.Const || op === Op.Operand || op === Op.Now) depth++;
    else if (op !== Op.Not) depth--;
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

// ---------------------------------------------------------------------------------------------------
// Raw shapes: indices are folded into range when the tables are built, so any draw is well-formed.

interface RawEdge {
  tier: Tier;
  lifecycle: Lifecycle;
  identity: Identity;
  inverse: number;
  slot: number;
  lossClass: number;
  sink: number;
  weight: number;
  bound: Expr | null;
  /** A `when` condition on a non-T2 tier (T2's is folded into its bound). */
  when: Expr | null;
  /** An amount program (`amount = <expr>`), any tier. */
  amount: Expr | null;
  args: { source: ArgSource; ref: number }[] | null;
}

interface RawTool {
  actsOn: number; // -1 or an entity
  creates: number;
  operands: { kind: OperandKind; ref: number; type: SlotType }[];
  edges: RawEdge[];
}

const rawEdgeArb: fc.Arbitrary<RawEdge> = fc.record({
  tier: fc.constantFrom(Tier.T1, Tier.T2, Tier.T2, Tier.T3, Tier.T3, Tier.T4, Tier.T5),
  lifecycle: fc.constantFrom(Lifecycle.Live, Lifecycle.Live, Lifecycle.Live, Lifecycle.Live, Lifecycle.Provisional, Lifecycle.Revoked, Lifecycle.Disputed),
  identity: fc.constantFrom(Identity.Same, Identity.New),
  inverse: fc.nat(15),
  slot: fc.integer({ min: -1, max: 15 }),
  lossClass: fc.integer({ min: -1, max: 15 }),
  sink: fc.nat(15),
  weight: fixedArb,
  bound: fc.option(boolExprArb, { freq: 4 }),
  when: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: boolExprArb }),
  amount: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: atomExprArb }),
  args: fc.option(fc.array(fc.record({ source: fc.constantFrom(ArgSource.CallArg, ArgSource.PreSlot, ArgSource.Literal, ArgSource.NewId, ArgSource.Result), ref: fc.nat(3) }), { maxLength: 3 }), { freq: 3 }),
});

const rawToolArb: fc.Arbitrary<RawTool> = fc.record({
  actsOn: fc.integer({ min: -1, max: 2 }),
  creates: fc.constantFrom(-1, -1, -1, 0, 1, 2),
  operands: fc.array(
    fc.record({ kind: fc.constantFrom(OperandKind.SlotValue, OperandKind.SlotSize, OperandKind.ArgValue, OperandKind.ArgSize, OperandKind.SlotPresent, OperandKind.ArgPresent), ref: fc.nat(15), type: fc.integer({ min: 0, max: 6 }) as fc.Arbitrary<SlotType> }),
    { maxLength: 4 },
  ),
  edges: fc.oneof({ weight: 1, arbitrary: fc.constant<RawEdge[]>([]) }, { weight: 9, arbitrary: fc.array(rawEdgeArb, { minLength: 1, maxLength: 4 }) }),
});

const rawTablesArb = fc.record({
  nEntities: fc.integer({ min: 1, max: 3 }),
  slots: fc.array(fc.record({ entity: fc.nat(2), type: fc.integer({ min: 0, max: 6 }) as fc.Arbitrary<SlotType> }), { minLength: 1, maxLength: 5 }),
  lossWeights: fc.array(lossWeightArb, { minLength: 1, maxLength: 3 }),
  sinks: fc.array(fc.boolean(), { minLength: 1, maxLength: 2 }),
  tools: fc.array(fc.record({ tool: rawToolArb, readOnly: fc.nat(5) }), { minLength: 1, maxLength: 6 }),
  constants: fc.array(constantArb, { minLength: 1, maxLength: 8 }),
});

const PATHS = ["a", "b.c", "list", "x.0.y"];
const LITERAL_JSON = ['"v1"', "3", "[1,2]", '{"k":null}'];

/** Builds consistent tables from a raw draw: every rule decodeBlob checks holds by construction. */
function buildTables(raw: typeof rawTablesArb extends fc.Arbitrary<infer T> ? T : never): OntologyTables {
  const strings: string[] = [...LITERALS];
  const intern = (s: string) => {
    if (!strings.includes(s)) strings.push(s);
    return s;
  };
  const entities = Array.from({ length: raw.nEntities }, (_, i) => ({ name: intern(`entity${i}`) }));
  const slots = raw.slots.map((s, i) => ({ name: intern(`slot${i}`), entity: s.entity % raw.nEntities, type: s.type }));
  const lossClasses = raw.lossWeights.map((weight, i) => ({ name: intern(`loss${i}`), weight }));
  const sinks = raw.sinks.map((external, i) => ({ name: intern(`sink${i}`), external }));
  const nTools = raw.tools.length;
  const tools: ToolTable[] = [];
  const edges: EdgeTable[] = [];
  const edgeOffsets: number[] = [0];
  const programs: ProgramTable[] = [];
  const constants = raw.constants;

  raw.tools.forEach(({ tool: t, readOnly: ro }, ti) => {
    const readOnly = ro === 0; // one tool in six is read-only
    const actsOn = t.actsOn >= 0 ? t.actsOn % raw.nEntities : -1;
    const creates = !readOnly && t.creates >= 0 ? t.creates % raw.nEntities : -1;
    const operands: OperandTable[] = readOnly
      ? []
      : t.operands.map((o) => {
          const isSlot = isSlotOperand(o.kind);
          const presence = o.kind === OperandKind.SlotPresent || o.kind === OperandKind.ArgPresent;
          return {
            kind: o.kind,
            slot: isSlot ? o.ref % slots.length : -1,
            path: isSlot ? null : intern(PATHS[o.ref % PATHS.length]),
            type: presence ? SlotType.Bool : isSlot ? slots[o.ref % slots.length].type : o.type,
          };
        });
    tools.push({
      name: intern(`tool${ti}`),
      readOnly,
      actsOn,
      keyArg: actsOn >= 0 ? intern("key") : null,
      creates,
      target: creates >= 0 ? creates : actsOn,
      newKey: creates >= 0 ? intern("id") : null,
      keyConst: null,
      operands,
    });
    if (!readOnly) {
      for (const e of t.edges) edges.push(buildEdge(e, ti, edges.length, operands.length));
    }
    edgeOffsets.push(edges.length);
  });

  function buildEdge(e: RawEdge, forward: number, index: number, nOperands: number): EdgeTable {
    const positive = e.tier <= Tier.T3;
    const inverse = e.tier === Tier.T2 ? forward : positive ? e.inverse % nTools : -1;
    const needsSlot = e.tier === Tier.T1 || e.tier === Tier.T3 || e.tier === Tier.T4;
    const slot = needsSlot ? Math.max(0, e.slot) % slots.length : e.slot >= 0 ? e.slot % slots.length : -1;
    const needsLoss = e.tier === Tier.T3 || e.tier === Tier.T4;
    const lossClass = needsLoss ? Math.max(0, e.lossClass) % lossClasses.length : e.tier === Tier.T2 && e.lossClass >= 0 ? e.lossClass % lossClasses.length : -1;
    const sink = e.tier === Tier.T5 ? e.sink % sinks.length : -1;
    const wl = lossClass >= 0 ? lossClasses[lossClass].weight : 0;
    const { phi, loss } = score(e.tier, e.weight, wl);
    let program = -1;
    // A condition on any tier (issue 12): positive edges need it TRUE, fail-closed ones apply unless FALSE.
    const condition = e.tier === Tier.T2 ? e.bound : e.when;
    if (condition !== null) {
      const code: number[] = [];
      compileExpr(condition, nOperands, constants.length, code);
      program = programs.length;
      programs.push({ code, maxStack: maxStackOf(code) });
    }
    let amount = -1;
    if (e.amount !== null) {
      const code: number[] = [];
      compileExpr(e.amount, nOperands, constants.length, code);
      amount = programs.length;
      programs.push({ code, maxStack: maxStackOf(code) });
    }
    let argMap: ArgMapEntry[] | null = null;
    if (positive && e.args !== null) {
      argMap = e.args.map((a, j) => ({ param: intern(`param${j}`), source: a.source, ref: intern(argRef(a.source, a.ref)) }));
    }
    return {
      tier: e.tier,
      lifecycle: e.lifecycle,
      identity: e.identity,
      forward,
      inverse,
      slot,
      lossClass,
      sink,
      weight: e.weight,
      phi,
      lossWeight: loss,
      program,
      amount,
      id: intern(`annotation${index}`),
      span: { line: index + 1, col: 1, endLine: index + 1, endCol: 10 },
      argMap,
    };
  }

  intern("generated.polar");
  intern("test-generator");
  return {
    sourceName: "generated.polar",
    sourceSha256: new Uint8Array(32),
    compilerVersion: "test-generator",
    strings,
    entities,
    slots,
    lossClasses,
    sinks,
    tools,
    edgeOffsets,
    edges,
    programs,
    constants,
    meta: {},
  };
}

function argRef(source: ArgSource, r: number): string {
  switch (source) {
    case ArgSource.CallArg:
    case ArgSource.Result:
      return PATHS[r % PATHS.length];
    case ArgSource.PreSlot:
      return `slot${r}`;
    case ArgSource.Literal:
      return LITERAL_JSON[r % LITERAL_JSON.length];
    default:
      return "";
  }
}

/** docs/semantics.md "Fixed point": the per-step φ and loss a compiler stores. */
export function score(tier: Tier, w: number, wl: number): { phi: number; loss: number } {
  switch (tier) {
    case Tier.T1: return { phi: w, loss: 0 };
    case Tier.T2: return { phi: w, loss: wl };
    case Tier.T3: return { phi: Number((BigInt(w) * BigInt(ONE - wl)) / BigInt(ONE)), loss: wl };
    case Tier.T4: return { phi: 0, loss: wl };
    default: return { phi: 0, loss: 0 };
  }
}

export const tablesArb: fc.Arbitrary<OntologyTables> = rawTablesArb.map(buildTables);

// ---------------------------------------------------------------------------------------------------
// Input records.

export interface RecordSpec {
  nCalls: number; // as written in the header (may exceed the calls given, for bad input)
  tau: number;
  flags: number;
  maxNodes: number;
  now: bigint;
  maxDepth: number;
  calls: { tool: number; grounded: number; targetKey: number; operandStart: number }[];
  nOperands: number;
  operands: { tag: number; value: bigint }[];
}

const tauArb = fc.oneof(fc.constantFrom(0, 1, 500_000, 800_000, 855_000, 999_999, ONE, ONE + 1, -1), fc.integer({ min: 0, max: ONE }));
const nowArb = fc.constantFrom(...NUMBERS.slice(0, 6));
/** Tier bits T1–T3 random (mostly all on); T4/T5 as the host sets them, rarely cleared; fail-closed off a quarter of the time. */
const flagsArb = fc
  .record({ positive: fc.oneof({ weight: 3, arbitrary: fc.constant(7) }, { weight: 1, arbitrary: fc.nat(7) }), failClosedBits: fc.constantFrom(24, 24, 24, 24, 24, 24, 24, 0, 8, 16), off: fc.nat(3) })
  .map(({ positive, failClosedBits, off }) => positive | failClosedBits | (off === 0 ? FLAG_FAIL_CLOSED_OFF : 0));
const maxNodesArb = fc.oneof({ weight: 6, arbitrary: fc.constant(5000) }, { weight: 2, arbitrary: fc.nat(12) }, { weight: 1, arbitrary: fc.integer({ min: 13, max: 400 }) });
const maxDepthArb = fc.oneof({ weight: 6, arbitrary: fc.constant(64) }, { weight: 2, arbitrary: fc.nat(8) }, { weight: 1, arbitrary: fc.constant(MAX_CALLS) });

/** A record over `tables`: mostly well-formed (tools in range, operand ranges laid out), sometimes bad. */
export function recordArb(tables: OntologyTables): fc.Arbitrary<RecordSpec> {
  const nTools = tables.tools.length;
  const callArb = fc.record({
    tool: fc.oneof({ weight: 12, arbitrary: fc.nat(nTools - 1) }, { weight: 1, arbitrary: fc.constant(-1) }),
    grounded: fc.oneof({ weight: 10, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(0) }),
    targetKey: fc.nat(2),
  });
  const badArb = fc.oneof(
    { weight: 40, arbitrary: fc.constant("none" as const) },
    { weight: 1, arbitrary: fc.constantFrom("tool" as const, "tag" as const, "start" as const, "count" as const) },
  );
  return fc
    .record({
      calls: fc.array(callArb, { maxLength: 7 }),
      tau: tauArb,
      flags: flagsArb,
      maxNodes: maxNodesArb,
      now: nowArb,
      maxDepth: maxDepthArb,
      values: fc.array(taggedArb, { minLength: 24, maxLength: 24 }),
      bad: badArb,
      badPick: fc.nat(1000),
    })
    .map(({ calls, tau, flags, maxNodes, now, maxDepth, values, bad, badPick }) => {
      let next = 0;
      const laid = calls.map((c) => {
        const start = next;
        if (c.tool >= 0) next += tables.tools[c.tool].operands.length;
        return { ...c, operandStart: start };
      });
      const operands = Array.from({ length: next }, (_, i) => values[i % values.length]);
      const spec: RecordSpec = { nCalls: laid.length, tau, flags, maxNodes, now, maxDepth, calls: laid, nOperands: next, operands };
      if (bad !== "none") corrupt(spec, bad, badPick, nTools);
      return spec;
    });
}

function corrupt(spec: RecordSpec, bad: "tool" | "tag" | "start" | "count", pick: number, nTools: number): void {
  if (bad === "tool" && spec.calls.length > 0) spec.calls[pick % spec.calls.length].tool = pick % 2 === 0 ? nTools : -2 - (pick % 3);
  else if (bad === "tag" && spec.operands.length > 0) spec.operands[pick % spec.operands.length] = { tag: 5 + (pick % 3), value: 0n };
  else if (bad === "start" && spec.calls.length > 0) spec.calls[pick % spec.calls.length].operandStart = spec.nOperands + 1 + (pick % 4);
  else if (bad === "count") spec.nCalls = MAX_CALLS + 1;
}

export const caseArb = tablesArb.chain((tables) => recordArb(tables).map((record) => ({ tables, record })));
