// LayerB remembers the last records looked up (a check reads one entity in a row; derived slots read a
// few entities in turn); every write forgets them, so a read after any write sees the write.
import { describe, expect, it } from "vitest";
import { LayerB } from "../../src/projection/layer-b.js";

describe("LayerB's last-record lookup", () => {
  it("a read after set, replaceEntity, adoptEntity, ensureEntity and deleteEntity sees the write", () => {
    const b = new LayerB();
    expect(b.hasEntity("r", "1")).toBe(false);
    b.ensureEntity("r", "1");
    expect(b.hasEntity("r", "1")).toBe(true);
    expect(b.slot("r", "1", "s")).toBeUndefined();
    b.set("r", "1", "s", "a");
    expect(b.slot("r", "1", "s")).toBe("a");
    b.replaceEntity("r", "1", { s: "b" });
    expect(b.slot("r", "1", "s")).toBe("b");
    const rec = Object.create(null) as Record<string, unknown>;
    rec.s = "c";
    b.adoptEntity("r", "1", rec);
    expect(b.slot("r", "1", "s")).toBe("c");
    b.deleteEntity("r", "1");
    expect(b.hasEntity("r", "1")).toBe(false);
    expect(b.slot("r", "1", "s")).toBeUndefined();
  });

  it("a clone's writes do not reach the original's remembered record, nor a record kept for a snapshot", () => {
    const b = new LayerB();
    b.replaceEntity("r", "1", { s: "a" });
    expect(b.slot("r", "1", "s")).toBe("a");
    const kept = b.keptRecord("r", "1");
    b.set("r", "1", "s", "b");
    expect(kept?.s).toBe("a");
    expect(b.slot("r", "1", "s")).toBe("b");
    const c = b.clone();
    c.set("r", "1", "s", "c");
    expect(b.slot("r", "1", "s")).toBe("b");
    expect(c.slot("r", "1", "s")).toBe("c");
  });

  it("after a clone, the original's own writes reach neither the clone nor a record kept earlier; a record is written in place only while no one else holds it", () => {
    const b = new LayerB();
    b.replaceEntity("r", "1", { s: "a", t: 1 });
    b.replaceEntity("r", "2", { s: "a" });
    const c = b.clone();
    b.set("r", "1", "s", "b");
    b.set("r", "1", "t", 2);
    expect([b.slot("r", "1", "s"), b.slot("r", "1", "t"), c.slot("r", "1", "s"), c.slot("r", "1", "t")]).toEqual(["b", 2, "a", 1]);
    const d = c.clone();
    c.set("r", "2", "s", "c");
    expect([b.slot("r", "2", "s"), c.slot("r", "2", "s"), d.slot("r", "2", "s")]).toEqual(["a", "c", "a"]);
    // Kept twice in a row, with a write in between: each snapshot stays as it was.
    const k1 = b.keptRecord("r", "1");
    b.set("r", "1", "s", "x");
    const k2 = b.keptRecord("r", "1");
    b.set("r", "1", "s", "y");
    b.set("r", "1", "s", "z");
    expect([k1?.s, k2?.s, b.slot("r", "1", "s"), c.slot("r", "1", "s")]).toEqual(["b", "x", "z", "a"]);
    expect(b.keptRecord("r", "9")).toBeUndefined();
  });

  it("reads of many entities in turn, absent ones among them, each answer their own entity, before and after writes", () => {
    const b = new LayerB();
    for (let i = 0; i < 12; i += 2) b.replaceEntity("d", `f/${i}`, { n: i });
    const read = () => Array.from({ length: 12 }, (_, i) => [b.hasEntity("d", `f/${i}`), b.slot("d", `f/${i}`, "n")]);
    const want = (extra: number[]) => Array.from({ length: 12 }, (_, i) => (i % 2 === 0 || extra.includes(i) ? [true, i] : [false, undefined]));
    for (let round = 0; round < 3; round++) expect(read()).toEqual(want([]));
    // Same ids, other types; then an absent entity remembered as absent appears, and one disappears.
    expect(b.slot("e", "f/2", "n")).toBeUndefined();
    expect(b.slot("d", "f/3", "n")).toBeUndefined();
    b.set("d", "f/3", "n", 3);
    expect(read()).toEqual(want([3]));
    expect(b.slot("d", "f/4", "n")).toBe(4);
    b.deleteEntity("d", "f/4");
    expect(b.slot("d", "f/4", "n")).toBeUndefined();
    expect(b.hasEntity("d", "f/5")).toBe(false);
    b.ensureEntity("d", "f/5");
    expect(b.hasEntity("d", "f/5")).toBe(true);
    expect(b.slot("d", "f/7", "n")).toBeUndefined();
    b.adoptEntity("d", "f/7", Object.assign(Object.create(null) as Record<string, unknown>, { n: 7 }));
    expect(b.slot("d", "f/7", "n")).toBe(7);
  });
});

describe("LayerB's read tuples (what a recording reader shares between checks)", () => {
  const tuples = (b: LayerB, names: string[]) => {
    const out: (readonly [string, string, string | null, unknown?])[] = [];
    const values: unknown[] = [];
    if (!b.readTuples("r", "1", names, out, values)) return null;
    // Each value as its tuple holds it.
    expect(values).toEqual(out.map((t) => t[3]));
    return out;
  };

  it("one frozen tuple per slot, shared while the record is unchanged; a write in place gives the new value", () => {
    const b = new LayerB();
    b.replaceEntity("r", "1", { s: "a", o: { k: [1] } });
    const first = tuples(b, ["o", "s", "none"])!;
    expect(first).toEqual([["r", "1", "o", { k: [1] }], ["r", "1", "s", "a"], ["r", "1", "none"]]);
    expect(first.every((t) => Object.isFrozen(t))).toBe(true);
    expect(Object.isFrozen(first[0][3])).toBe(true);
    const again = tuples(b, ["s", "o"])!;
    expect(again[0]).toBe(first[1]);
    expect(again[1]).toBe(first[0]);
    b.set("r", "1", "s", "b");
    expect(tuples(b, ["s"])![0]).toEqual(["r", "1", "s", "b"]);
    b.set("r", "1", "none", 3);
    expect(tuples(b, ["none"])![0]).toEqual(["r", "1", "none", 3]);
    b.set("r", "1", "s", undefined);
    expect(tuples(b, ["s"])![0]).toEqual(["r", "1", "s"]);
    b.replaceEntity("r", "1", { s: "c" });
    expect(tuples(b, ["s", "o"])).toEqual([["r", "1", "s", "c"], ["r", "1", "o"]]);
    expect(b.existsTuple("r", "1")).toEqual(["r", "1", null, true]);
    expect(b.existsTuple("r", "1")).toBe(b.existsTuple("r", "1"));
    b.deleteEntity("r", "1");
    expect(tuples(b, ["s"])).toBeNull();
    expect(b.existsTuple("r", "1")).toBeNull();
  });

  it("a clone's write leaves the original's tuples as they are, and its own are of its record", () => {
    const b = new LayerB();
    b.replaceEntity("r", "1", { s: "a" });
    const before = tuples(b, ["s"])![0];
    const c = b.clone();
    c.set("r", "1", "s", "z");
    expect(tuples(c, ["s"])![0]).toEqual(["r", "1", "s", "z"]);
    expect(tuples(b, ["s"])![0]).toBe(before);
    b.set("r", "1", "s", "y");
    expect(tuples(b, ["s"])![0]).toEqual(["r", "1", "s", "y"]);
    expect(tuples(c, ["s"])![0]).toEqual(["r", "1", "s", "z"]);
  });

  it("no tuples for a value that is not JSON (the reader then reads it slot by slot)", () => {
    const b = new LayerB();
    b.set("r", "1", "bad", NaN);
    b.set("r", "1", "ok", 1);
    expect(tuples(b, ["ok", "bad"])).toBeNull();
    expect(tuples(b, ["ok"])).toEqual([["r", "1", "ok", 1]]);
  });
});
