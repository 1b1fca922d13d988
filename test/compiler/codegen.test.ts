// What the compiler writes into the tables: fixed-point weights and per-step phi, CSR edge grouping,
// tools, ids, options, inverse-argument maps, operands, bound bytecode (run through the reference
// interpreter), the string pool and the blob.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ArgSource, FIXED_ONE, Identity, Lifecycle, Op, OperandKind, SlotType, Tier, ValueTag,
} from "../../src/abi.js";
import { decodeBlob } from "../../src/blob/index.js";
import { compile, DEFAULT_LIMITS } from "../../src/compiler/index.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { boundHolds } from "../../src/reference/bound.js";
import type { Value } from "../../src/reference/input.js";
import { sha256 } from "../../src/util/sha256.js";
import { VERSION } from "../../src/version.js";
import { PRELUDE, tablesOf } from "./helpers.js";

const ONE = BigInt(FIXED_ONE);
const edgeById = (t: OntologyTables, id: string) => {
  const e = t.edges.find((x) => x.id === id);
  if (e === undefined) throw new Error(`no edge ${id}`);
  return e;
};

describe("weights and per-step phi", () => {
  it("computes T3 phi in integers: 0.95 with loss 0.10 is exactly 855000", () => {
    const t = tablesOf(PRELUDE + "compensates(cancel_order, place_order, order.status, fee, 0.95).\n");
    const e = t.edges[0];
    expect([e.weight, e.phi, e.lossWeight]).toEqual([950000, 855000, 100000]);
  });

  it("gives each tier its phi and loss (docs/semantics.md)", () => {
    const t = tablesOf(PRELUDE + `
inverse_of(cancel_order, place_order, order.status, 0.7).
bounded_reversibility(update_order, true, fee, 0.99).
irreversibly_consumes(cancel_order, order.total, fee, 0.5).
external_side_effect(notify, email, 0.3).
`);
    const row = (tier: Tier) => {
      const e = t.edges.find((x) => x.tier === tier)!;
      return [e.weight, e.phi, e.lossWeight, e.lossClass];
    };
    expect(row(Tier.T1)).toEqual([700000, 700000, 0, -1]);
    expect(row(Tier.T2)).toEqual([990000, 990000, 100000, 1]);
    expect(row(Tier.T4)).toEqual([500000, 0, 100000, 1]);
    expect(row(Tier.T5)).toEqual([300000, 0, 0, -1]);
  });

  it("reads every 6-decimal weight exactly, with no floating point on the way", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: FIXED_ONE }), fc.integer({ min: 0, max: FIXED_ONE - 1 }), (w, l) => {
      const dec = (n: number) => `${Math.floor(n / FIXED_ONE)}.${String(n % FIXED_ONE).padStart(6, "0")}`;
      const t = tablesOf(`slot_definition(e, s, string).
loss_class_definition(l, weight = ${dec(l)}).
tool(a, acts_on = e). tool(b, acts_on = e).
compensates(a, b, e.s, l, ${dec(w)}).
bounded_reversibility(a, true, none, 1).`);
      const e = t.edges.find((x) => x.tier === Tier.T3)!;
      expect(e.weight).toBe(w);
      expect(t.lossClasses[1].weight).toBe(l);
      expect(e.phi).toBe(Number((BigInt(w) * (ONE - BigInt(l))) / ONE));
    }), { numRuns: 200, seed: 42 });
  });

  it("accepts the edges of the ranges: w = 0.000001 and 1, loss 0 and 0.999999", () => {
    const t = tablesOf(`slot_definition(e, s, string).
loss_class_definition(l, weight = 0.999999).
loss_class_definition(z, weight = 0).
tool(a, acts_on = e).
@id("w") compensates(a, a, e.s, l, 1).
@id("x") compensates(a, a, e.s, z, 0.000001).`);
    expect(t.edges.map((e) => [e.weight, e.phi])).toEqual([[1000000, 1], [1, 1]]);
  });
});

describe("layout", () => {
  it("groups edges by forward tool in source order, with CSR offsets", () => {
    const t = tablesOf(PRELUDE + `
external_side_effect(notify, email, 1, id = "n1").
inverse_of(cancel_order, place_order, order.status, 1, id = "p1").
bounded_reversibility(update_order, true, none, 1, id = "u1").
compensates(update_order, place_order, order.total, fee, 0.9, id = "p2").
irreversibly_consumes(cancel_order, order.items, fee, 1, id = "c1").
`);
    expect(t.tools.map((x) => x.name)).toEqual(["place_order", "cancel_order", "update_order", "notify", "get_order"]);
    expect(t.edges.map((e) => e.id)).toEqual(["p1", "p2", "c1", "u1", "n1"]);
    expect(t.edgeOffsets).toEqual([0, 2, 3, 4, 5, 5]);
    for (let i = 0; i < t.tools.length; i++) {
      for (let k = t.edgeOffsets[i]; k < t.edgeOffsets[i + 1]; k++) expect(t.edges[k].forward).toBe(i);
    }
  });

  it("fills tools: acts_on, key (default `<entity>_id`), creates, target, new_key (default `id`)", () => {
    const t = tablesOf(`slot_definition(order, s, string). slot_definition(user, s, string).
tool(a, acts_on = order).
tool(b, acts_on = user, key = profile.id, creates = order).
tool(c, creates = order, new_key = data.order_id).
tool(d).
read_only(r).
bounded_reversibility(a, true, none, 1). bounded_reversibility(b, true, none, 1).
bounded_reversibility(c, true, none, 1). bounded_reversibility(d, true, none, 1).`);
    const rows = t.tools.map((x) => [x.name, x.readOnly, x.actsOn, x.keyArg, x.creates, x.target, x.newKey]);
    expect(rows).toEqual([
      ["a", false, 0, "order_id", -1, 0, null],
      ["b", false, 1, "profile.id", 0, 0, "id"],
      ["c", false, -1, null, 0, 0, "data.order_id"],
      ["d", false, -1, null, -1, -1, null],
      ["r", true, -1, null, -1, -1, null],
    ]);
  });

  it("declares entities in order of first slot, slots with their types, `none` as loss class 0", () => {
    const t = tablesOf(PRELUDE + "bounded_reversibility(update_order, true, none, 1).");
    expect(t.entities.map((e) => e.name)).toEqual(["order", "user"]);
    expect(t.slots.map((s) => [s.name, s.entity, s.type])).toEqual([
      ["status", 0, SlotType.String], ["total", 0, SlotType.Number], ["items", 0, SlotType.List],
      ["placed_at", 0, SlotType.Datetime], ["paid", 0, SlotType.Bool], ["due", 0, SlotType.Date], ["name", 1, SlotType.String],
    ]);
    expect(t.lossClasses).toEqual([{ name: "none", weight: 0 }, { name: "fee", weight: 100000 }]);
    expect(t.sinks).toEqual([{ name: "email", external: true }]);
  });

  it("derives stable ids and spans, and takes explicit ones from `id =` or `@id`", () => {
    const src = PRELUDE + `inverse_of(cancel_order, place_order, order.status, 1).
bounded_reversibility(update_order, true, none, 1).
irreversibly_consumes(cancel_order, order.total, fee, 1).
external_side_effect(notify, email, 1).
@id("mine") compensates(update_order, place_order, order.total, fee, 0.9).
compensates(cancel_order, update_order, order.total, fee, 0.9, id = "other").
`;
    const t = tablesOf(src);
    expect(t.edges.map((e) => e.id)).toEqual([
      "T1.place_order.cancel_order.order.status", "mine", "T4.cancel_order.order.total",
      "T2.update_order.update_order", "other", "T5.notify.email",
    ]);
    expect(edgeById(t, "mine").span).toEqual({ line: 19, col: 1, endLine: 19, endCol: 75 });
    expect(edgeById(t, "T1.place_order.cancel_order.order.status").span).toEqual({ line: 15, col: 1, endLine: 15, endCol: 56 });
  });

  it("maps lifecycle and identity options", () => {
    const t = tablesOf(PRELUDE + `
bounded_reversibility(update_order, true, none, 1, id = "a").
bounded_reversibility(update_order, true, none, 1, id = "b", status = provisional).
bounded_reversibility(update_order, true, none, 1, id = "c", status = revoked, identity = same).
bounded_reversibility(update_order, true, none, 1, id = "d", status = disputed, identity = new).
bounded_reversibility(update_order, true, none, 1, id = "e", status = live).
external_side_effect(notify, email, 1).
`);
    expect(t.edges.filter((e) => e.tier === Tier.T2).map((e) => [e.lifecycle, e.identity])).toEqual([
      [Lifecycle.Live, Identity.Same], [Lifecycle.Provisional, Identity.Same], [Lifecycle.Revoked, Identity.Same],
      [Lifecycle.Disputed, Identity.New], [Lifecycle.Live, Identity.Same],
    ]);
  });

  it("builds inverse-argument maps from every source", () => {
    const t = tablesOf(PRELUDE + `
compensates(cancel_order, place_order, order.status, fee, 0.9, args = {
  order_id: new.id, user: call.user_id, deep: call.a.b.c, receipt: result.receipt.number,
  s: "x\\"y", n: 007.50, neg: -3, b: false, z: null, l: [1, "a", [true]], o: { k: 1, "j k": {} } }).
bounded_reversibility(update_order, true, none, 1, args = { status: order.status, items: order.items }).
inverse_of(update_order, cancel_order, order.paid, 1, args = {}).
external_side_effect(notify, email, 1).
`);
    const byTier = (tier: Tier) => t.edges.find((e) => e.tier === tier)!.argMap;
    expect(byTier(Tier.T3)).toEqual([
      { param: "order_id", source: ArgSource.NewId, ref: "" },
      { param: "user", source: ArgSource.CallArg, ref: "user_id" },
      { param: "deep", source: ArgSource.CallArg, ref: "a.b.c" },
      { param: "receipt", source: ArgSource.Result, ref: "receipt.number" },
      { param: "s", source: ArgSource.Literal, ref: '"x\\"y"' },
      { param: "n", source: ArgSource.Literal, ref: "7.50" },
      { param: "neg", source: ArgSource.Literal, ref: "-3" },
      { param: "b", source: ArgSource.Literal, ref: "false" },
      { param: "z", source: ArgSource.Literal, ref: "null" },
      { param: "l", source: ArgSource.Literal, ref: '[1,"a",[true]]' },
      { param: "o", source: ArgSource.Literal, ref: '{"k":1,"j k":{}}' },
    ]);
    for (const a of byTier(Tier.T3)!) if (a.source === ArgSource.Literal) expect(() => JSON.parse(a.ref)).not.toThrow();
    expect(byTier(Tier.T2)).toEqual([
      { param: "status", source: ArgSource.PreSlot, ref: "status" },
      { param: "items", source: ArgSource.PreSlot, ref: "items" },
    ]);
    expect(byTier(Tier.T1)).toEqual([]);
    expect(t.edges.find((e) => e.tier === Tier.T5)!.argMap).toBeNull();
  });

  it("records the compiler version, the source name and the source's SHA-256", () => {
    const src = PRELUDE + "bounded_reversibility(update_order, true, none, 1).";
    const named = compile(src, { name: "shop.polar" });
    const unnamed = compile(src);
    if (!named.ok || !unnamed.ok) throw new Error("must compile");
    expect(named.tables.compilerVersion).toBe(VERSION);
    expect(named.tables.sourceName).toBe("shop.polar");
    expect(unnamed.tables.sourceName).toBe("ontology.polar");
    expect(named.tables.sourceSha256).toEqual(sha256(new TextEncoder().encode(src)));
  });
});

describe("the string pool", () => {
  it("holds every name once, in a fixed order, and bound literals index it", () => {
    const t = tablesOf(PRELUDE + 'bounded_reversibility(update_order, order.status != "cancelled", none, 1).');
    expect(new Set(t.strings).size).toBe(t.strings.length);
    expect(t.strings.slice(0, 2)).toEqual([VERSION, "ontology.polar"]);
    const names = [
      ...t.entities.map((e) => e.name), ...t.slots.map((s) => s.name), ...t.lossClasses.map((l) => l.name),
      ...t.sinks.map((s) => s.name), ...t.tools.map((x) => x.name), ...t.edges.map((e) => e.id),
      ...t.tools.flatMap((x) => [x.keyArg, x.newKey]).filter((s): s is string => s !== null),
    ];
    for (const n of names) expect(t.strings).toContain(n);
    const str = t.constants.find((c) => c.tag === ValueTag.String)!;
    expect(t.strings[Number(str.value)]).toBe("cancelled");
  });
});

describe("bound programs", () => {
  const op = (o: Op, arg = 0) => (o | (arg << 8)) >>> 0;

  it("compiles a comparison to operand, constant, opcode with its max stack", () => {
    const t = tablesOf(PRELUDE + 'bounded_reversibility(update_order, order.status != "cancelled", none, 1).');
    const p = t.programs[t.edges[0].program];
    expect(p.code).toEqual([op(Op.Operand, 0), op(Op.Const, 0), op(Op.Ne)]);
    expect(p.maxStack).toBe(2);
    expect(t.tools[2].operands).toEqual([{ kind: OperandKind.SlotValue, slot: 0, path: null, type: SlotType.String }]);
  });

  it("compiles the unconditional bound `true` to no program", () => {
    const t = tablesOf(PRELUDE + "bounded_reversibility(update_order, true, none, 1).");
    expect(t.edges[0].program).toBe(-1);
    expect(t.programs).toEqual([]);
  });

  it("expands `in` to equalities joined by `or`, and `not in` to its negation", () => {
    const t = tablesOf(PRELUDE + 'bounded_reversibility(update_order, order.status not in ["a", "b"], none, 1).');
    const p = t.programs[0];
    expect(p.code.map((w) => w & 0xff)).toEqual([Op.Operand, Op.Const, Op.Eq, Op.Operand, Op.Const, Op.Eq, Op.Or, Op.Not]);
    expect(p.maxStack).toBe(3);
  });

  it("shares operands per tool and infers argument types from their use", () => {
    const t = tablesOf(PRELUDE + `
@id("a") bounded_reversibility(update_order, call.n > 1 and call.when < now and call.flag and call.tag == "x", none, 1).
@id("b") bounded_reversibility(update_order, call.n <= 5 and size(call.items) > 0 and call.other == call.more and order.total > 0, none, 1).
`);
    const ops = t.tools[2].operands.map((o) => [o.kind, o.path ?? o.slot, o.type]);
    expect(ops).toEqual([
      [OperandKind.ArgValue, "n", SlotType.Number],
      [OperandKind.ArgValue, "when", SlotType.Datetime],
      [OperandKind.ArgValue, "flag", SlotType.Bool],
      [OperandKind.ArgValue, "tag", SlotType.String],
      [OperandKind.ArgSize, "items", SlotType.List],
      [OperandKind.ArgValue, "other", SlotType.String],
      [OperandKind.ArgValue, "more", SlotType.String],
      [OperandKind.SlotValue, 1, SlotType.Number],
    ]);
  });

  it("writes times and durations as seconds since the epoch, fixed point", () => {
    const t = tablesOf(PRELUDE + `bounded_reversibility(update_order,
      order.placed_at > datetime("2024-05-15T15:00:00") - hours(1.5) + minutes(2) - days(1)
      and order.due >= date("1970-01-02"), none, 1).`);
    const numbers = t.constants.filter((c) => c.tag === ValueTag.Number).map((c) => c.value);
    expect(numbers).toEqual([1715785200n * ONE, 5400n * ONE, 120n * ONE, 86400n * ONE]);
  });

  // Each case: a bound on update_order (acts on `order`), operand values in operand order, now, expected.
  const S = (v: bigint): Value => ({ tag: ValueTag.String, value: v });
  const N = (v: bigint): Value => ({ tag: ValueTag.Number, value: v * ONE });
  const MISSING: Value = { tag: ValueTag.Missing, value: 0n };
  const T0 = 1715785200n; // 2024-05-15T15:00:00Z

  function holds(boundText: string, operands: (t: OntologyTables) => Value[], nowSeconds: bigint): boolean {
    const t = tablesOf(PRELUDE + `bounded_reversibility(update_order, ${boundText}, none, 1).`);
    return boundHolds(t, t.edges[0].program, operands(t), nowSeconds * ONE);
  }
  const str = (t: OntologyTables, s: string) => S(BigInt(t.strings.indexOf(s)));

  it("evaluates compiled bounds as docs/semantics.md says (reference interpreter)", () => {
    const status = 'order.status in ["pending", "processing"]';
    expect(holds(status, (t) => [str(t, "pending")], T0)).toBe(true);
    expect(holds(status, (t) => [str(t, "processing")], T0)).toBe(true);
    expect(holds(status, () => [S(999n)], T0)).toBe(false);
    expect(holds(status, () => [MISSING], T0)).toBe(false); // UNKNOWN fails closed
    expect(holds('order.status not in ["shipped"]', (t) => [str(t, "shipped")], T0)).toBe(false);

    const window = "now < order.placed_at + hours(24)";
    expect(holds(window, () => [N(T0)], T0 + 3600n)).toBe(true);
    expect(holds(window, () => [N(T0)], T0 + 86400n)).toBe(false);

    const both = "order.total >= 10 and not (order.total > 100 or order.total == 50)";
    expect(holds(both, () => [N(10n)], T0)).toBe(true);
    expect(holds(both, () => [N(50n)], T0)).toBe(false);
    expect(holds(both, () => [N(101n)], T0)).toBe(false);
    expect(holds(both, () => [N(9n)], T0)).toBe(false);

    expect(holds("order.status == null", () => [{ tag: ValueTag.Null, value: 0n }], T0)).toBe(true);
    expect(holds("size(order.items) <= 2", () => [N(2n)], T0)).toBe(true);
    expect(holds("order.paid != true", () => [{ tag: ValueTag.Bool, value: 0n }], T0)).toBe(true);
    expect(holds("order.total > -1.5", () => [{ tag: ValueTag.Number, value: -1_000_000n }], T0)).toBe(true);
  });

  it("keeps every program within the core's limits", () => {
    const t = tablesOf(PRELUDE + `bounded_reversibility(update_order, ${Array.from({ length: 1000 }, (_, i) => `order.total != ${i}`).join(" and ")}, none, 1).`);
    expect(t.programs[0].code.length).toBeLessThanOrEqual(DEFAULT_LIMITS.programInstructions);
    expect(t.programs[0].maxStack).toBe(3); // the chain so far, then one comparison's two operands
  });
});

describe("blob", () => {
  it("decodes to the compiled tables", () => {
    const r = compile(PRELUDE + `
compensates(cancel_order, place_order, order.status, fee, 0.95, args = { order_id: new.id }).
bounded_reversibility(update_order, order.status == "open" and call.n > 1, none, 0.99).
external_side_effect(notify, email, 1).
`, { name: "shop.polar" });
    if (!r.ok) throw new Error("must compile");
    const decoded = decodeBlob(r.blob);
    expect(decoded.strings.slice(0, r.tables.strings.length)).toEqual(r.tables.strings);
    expect({ ...decoded, strings: [] }).toEqual({ ...r.tables, strings: [] });
  });
});
