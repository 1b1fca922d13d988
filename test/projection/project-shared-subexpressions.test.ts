// An entity rule's derived slots that compute the same sub-expression (the same JSON text, reading
// Layer B) share one evaluator, which remembers its value while one record's slots are derived
// (src/projection/expr.ts sharedSubexpressions): fewer Layer B reads, the same slots.
import { describe, expect, it } from "vitest";
import { LayerB, parseProjectionRules, projectDocument, safeParseProjectionRules } from "../../src/projection/index.js";

/** A Layer B that counts what the projection asks it. */
class CountingLayerB extends LayerB {
  slotCalls = 0;
  entityCalls = 0;
  hasCalls = 0;
  override slot(entity: string, id: string, slot: string): unknown {
    this.slotCalls++;
    return super.slot(entity, id, slot);
  }
  override entity(entity: string, id: string): Readonly<Record<string, unknown>> | undefined {
    this.entityCalls++;
    return super.entity(entity, id);
  }
  override hasEntity(entity: string, id: string): boolean {
    this.hasCalls++;
    return super.hasEntity(entity, id);
  }
}

function rulesOf(slots: Record<string, unknown>): ReturnType<typeof parseProjectionRules> {
  return parseProjectionRules({
    format: "polar-projection/1",
    domain: "d",
    entities: { f: { fields: "*" }, r: { fields: [], slots } },
    documents: { db: [{ entity: "r", from: "recs", id: "$key" }] },
  });
}

/** Layer B with flight-like entities `f/<n>`: `p` a price per cabin, `s` a status. */
function fares(): CountingLayerB {
  const b = new CountingLayerB();
  for (let n = 0; n < 20; n++) {
    b.set("f", `F${n}`, "p", { eco: 100 + n, biz: 500 + n });
    b.set("f", `F${n}`, "s", n % 5 === 0 ? "landed" : "available");
  }
  return b;
}

// The cabin's price of a segment's `f`, written the same way in every slot below (one text), and the
// same meaning written otherwise (keys in another order: another text, so not shared).
const price = { get: [{ entity: "f", id: { template: "F{$item.n}" }, slot: "p" }, { path: "$.cabin" }] };
const priceAgain = { get: [{ slot: "p", id: { template: "F{$item.n}" }, entity: "f" }, { path: "$.cabin" }] };
const slotsWith = (a: unknown, b: unknown, c: unknown) => ({
  total: { map: "segs", to: a },
  plus: { map: "segs", to: { add: [b, { const: 1 }] } },
  cheap: { all: "segs", where: { lt: [c, { const: 200 }] } },
});

describe("derived slots sharing a sub-expression", () => {
  const rec = (ns: number[], cabin = "eco") => ({ cabin, segs: ns.map((n) => ({ n })) });
  const doc = { recs: { x: rec([1, 2, 3]), y: rec([4, 4, 19], "biz"), z: rec(Array.from({ length: 20 }, (_, i) => (i * 7) % 20)) } };

  it("read Layer B once per item for it, and derive what unshared slots derive", () => {
    const sharedRules = rulesOf(slotsWith(price, price, price));
    const unsharedRules = rulesOf(slotsWith(price, priceAgain, { get: [{ id: { template: "F{$item.n}" }, entity: "f", slot: "p" }, { path: "$.cabin" }] }));
    const reads = (rules: ReturnType<typeof rulesOf>, d: unknown, into: CountingLayerB): number => {
      const before = into.slotCalls;
      projectDocument(rules, d, into);
      return into.slotCalls - before;
    };
    const shared = fares();
    const unshared = fares();
    // x and y: three segments each (y's two `4`s are two items); one read per segment shared, three
    // unshared. z: 20 items, more than a shared expression remembers: some are read again, as often
    // as unshared at most, and never read wrong.
    expect([reads(sharedRules, { recs: { x: doc.recs.x } }, shared), reads(sharedRules, { recs: { y: doc.recs.y } }, shared)]).toEqual([3, 3]);
    expect([reads(unsharedRules, { recs: { x: doc.recs.x } }, unshared), reads(unsharedRules, { recs: { y: doc.recs.y } }, unshared)]).toEqual([9, 9]);
    expect(reads(sharedRules, { recs: { z: doc.recs.z } }, shared)).toBeLessThanOrEqual(reads(unsharedRules, { recs: { z: doc.recs.z } }, unshared));
    for (const id of ["x", "y", "z"]) expect(shared.entity("r", id)).toEqual(unshared.entity("r", id));
    expect(shared.slot("r", "x", "total")).toEqual([101, 102, 103]);
    expect(shared.slot("r", "y", "plus")).toEqual([505, 505, 520]);
    expect(shared.slot("r", "z", "total")).toEqual(Array.from({ length: 20 }, (_, i) => 100 + ((i * 7) % 20)));
    expect(shared.slot("r", "x", "cheap")).toBe(true);
    expect(shared.slot("r", "y", "cheap")).toBe(false);
  });

  it("a record's values are its own: the next record (the same object under another key) and Layer B after a write derive again", () => {
    const byKey = { entity: "f", id: { template: "F{$key}" }, slot: "s" };
    const rules = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { f: { fields: "*" }, r: { fields: [], slots: { s1: byKey, s2: { eq: [byKey, { const: "landed" }] }, s3: { map: "segs", to: price }, s4: { map: "segs", to: price } } } },
      documents: { db: [{ entity: "r", from: "recs", id: "$key" }] },
    });
    const same = rec([0, 5]);
    const b = fares();
    projectDocument(rules, { recs: { 0: same, 1: same } }, b);
    expect([b.slot("r", "0", "s1"), b.slot("r", "0", "s2"), b.slot("r", "1", "s1"), b.slot("r", "1", "s2")]).toEqual(["landed", true, "available", false]);
    expect(b.slot("r", "0", "s3")).toEqual([100, 105]);
    b.set("f", "F0", "s", "available");
    b.set("f", "F5", "p", { eco: 1 });
    projectDocument(rules, { recs: { 0: same } }, b);
    expect([b.slot("r", "0", "s1"), b.slot("r", "0", "s2")]).toEqual(["available", false]);
    expect(b.slot("r", "0", "s3")).toEqual([100, 1]);
    expect(b.slot("r", "0", "s4")).toEqual([100, 1]);
  });

  it("the same place in another list is another item", () => {
    const b = projectDocument(rulesOf({ a: { map: "segs", to: price }, b: { map: "more", to: price }, c: { map: "segs", to: { map: "$.more", to: price } } }), { recs: { x: { cabin: "eco", segs: [{ n: 1 }, { n: 2 }], more: [{ n: 3 }, { n: 4 }] } } }, fares());
    expect([b.slot("r", "x", "a"), b.slot("r", "x", "b"), b.slot("r", "x", "c")]).toEqual([[101, 102], [103, 104], [[103, 104], [103, 104]]]);
  });

  it("the same item at another index is another place", () => {
    const byIndex = { get: [{ entity: "f", id: { template: "F{$index}" }, slot: "p" }, { path: "$.cabin" }] };
    const seg = { n: 9 };
    const b = projectDocument(rulesOf({ a: { map: "segs", to: byIndex }, b: { map: "segs", to: { add: [byIndex, { const: 0 }] } } }), { recs: { x: { cabin: "eco", segs: [seg, seg, seg] } } }, fares());
    expect([b.slot("r", "x", "a"), b.slot("r", "x", "b")]).toEqual([[100, 101, 102], [100, 101, 102]]);
  });

  it("a `derive` pass after the record's own projection derives the shared slots again", () => {
    // y's first projection reads its own `mark` before y exists (nothing); the second pass reads it.
    const mark = { entity: "r", id: "$.other", slot: "mark" };
    const rules = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { r: { fields: "*", slots: { a: mark, b: { eq: [mark, { const: 1 }] } } } },
      documents: { db: [{ entity: "r", from: "recs", id: "$key" }, { entity: "r", from: "recs", id: "$key", merge: true, derive: ["a", "b"] }] },
    });
    const b = projectDocument(rules, { recs: { y: { other: "y", mark: 1 } } }, new LayerB());
    expect([b.slot("r", "y", "a"), b.slot("r", "y", "b")]).toEqual([1, true]);
  });

  it("a number as `$item` is not remembered: 0 and -0 stay apart", () => {
    const pair = { object: { v: "$item", s: { entity: "f", id: { const: "F1" }, slot: "s" } } };
    const rules = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { f: { fields: "*" }, r: { fields: [], slots: { a: { map: { const: [0, -0, 0] }, to: pair }, b: { map: { const: [-0, 0] }, to: pair } } } },
      documents: { db: [{ entity: "r", from: "recs", id: "$key" }] },
    });
    const b = projectDocument(rules, { recs: { x: {} } }, fares());
    const a = b.slot("r", "x", "a") as Array<{ v: number }>;
    const bb = b.slot("r", "x", "b") as Array<{ v: number }>;
    expect(a.map((o) => Object.is(o.v, -0))).toEqual([false, true, false]);
    expect(bb.map((o) => Object.is(o.v, -0))).toEqual([true, false]);
  });

  it("an expression reading `$slots` (which grows slot by slot) is derived at each place", () => {
    const bySlot = { entity: "f", id: { coalesce: ["$slots.k", { const: "F1" }] }, slot: "s" };
    const b = projectDocument(rulesOf({ first: bySlot, k: { const: "F5" }, second: bySlot }), { recs: { x: {} } }, fares());
    expect([b.slot("r", "x", "first"), b.slot("r", "x", "second")]).toEqual(["available", "landed"]);
  });

  it("an evaluation error names the place that failed", () => {
    const failing = { sum: { const: ["$item"] }, by: { entity: "f", id: { const: "F1" }, slot: "s" } };
    const rules = rulesOf({ a: { if: { const: false }, then: failing }, b: failing });
    expect(() => projectDocument(rules, { recs: { x: {} } }, fares())).toThrow("`sum` at `/entities/r/slots/b` met a string");
  });

  it("every place of a faulty expression reports its own issue", () => {
    const bad = { entity: "f", id: { template: 7 }, slot: "s" };
    const r = safeParseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { f: { fields: "*" }, r: { fields: [], slots: { a: bad, b: { not: bad } } } },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toEqual(["/entities/r/slots/a/id/template", "/entities/r/slots/b/not/id/template"]);
  });

  it("an expression whose JSON text does not say all of it is compiled at each place", () => {
    // A property JSON.stringify does not write (not enumerable) is still read by the compilation.
    const whole = { entity: "f", id: { const: "F1" } };
    const hidden = Object.defineProperty({ entity: "f", id: { const: "F1" } }, "slot", { value: "s", enumerable: false });
    // A list of a class of its own, with its own `some`.
    class Always extends Array<unknown> {
      override some(): boolean {
        return true;
      }
    }
    const inPlain = { in: { entity: "f", id: { const: "F1" }, slot: "s" }, values: ["x"] };
    const inClass = { in: { entity: "f", id: { const: "F1" }, slot: "s" }, values: Always.from(["x"]) };
    const b = projectDocument(rulesOf({ a: whole, b: hidden }), { recs: { x: {} } }, fares());
    expect(b.slot("r", "x", "a")).toEqual({ p: { eco: 101, biz: 501 }, s: "available" });
    expect(b.slot("r", "x", "b")).toBe("available");
    const c = projectDocument(rulesOf({ c: inPlain, d: inClass }), { recs: { x: {} } }, fares());
    expect([c.slot("r", "x", "c"), c.slot("r", "x", "d")]).toEqual([false, true]);
  });

  it("`exists` of a shared entity asks whether it exists, without copying its record", () => {
    const e = { entity: "f", id: "$.id" };
    const b = fares();
    projectDocument(rulesOf({ there: { exists: e }, size: { size: e } }), { recs: { x: { id: "F3" }, y: { id: "nope" } } }, b);
    expect([b.slot("r", "x", "there"), b.slot("r", "x", "size"), b.slot("r", "y", "there"), b.slot("r", "y", "size")]).toEqual([true, 2, false, undefined]);
    expect(b.hasCalls).toBeGreaterThanOrEqual(2);
    expect(b.entityCalls).toBe(2);
  });
});
