import { describe, expect, it } from "vitest";
import { LayerB, ProjectionError } from "../../src/projection/index.js";

describe("LayerB", () => {
  it("asserts, reads and retracts slots", () => {
    const b = new LayerB();
    expect(b.hasEntity("reservation", "R1")).toBe(false);
    b.set("reservation", "R1", "status", "active");
    expect(b.hasEntity("reservation", "R1")).toBe(true);
    expect(b.slot("reservation", "R1", "status")).toBe("active");
    expect(b.slot("reservation", "R1", "cabin")).toBeUndefined();
    expect(b.slot("reservation", "R2", "status")).toBeUndefined();
    b.set("reservation", "R1", "status", undefined);
    expect(b.slot("reservation", "R1", "status")).toBeUndefined();
    expect(b.hasEntity("reservation", "R1")).toBe(true);
  });

  it("keeps `__proto__`, `constructor` and `toString` as plain data", () => {
    const b = new LayerB();
    b.set("t", "__proto__", "__proto__", { polluted: true });
    b.set("t", "x", "constructor", 1);
    expect(b.slot("t", "__proto__", "__proto__")).toEqual({ polluted: true });
    expect(b.slot("t", "x", "toString")).toBeUndefined();
    expect(b.slot("t", "x", "constructor")).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const json = b.toJSON();
    const back = LayerB.fromJSON(JSON.parse(JSON.stringify(json)));
    expect(back.slot("t", "__proto__", "__proto__")).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(json.entities.t)).toBe(Object.prototype);
  });

  it("ensures, replaces, deletes and counts entities", () => {
    const b = new LayerB();
    b.ensureEntity("user", "u1");
    b.ensureEntity("user", "u1");
    b.replaceEntity("user", "u2", { name: "A", skip: undefined });
    expect(b.size()).toBe(2);
    expect(b.size("user")).toBe(2);
    expect(b.ids("user")).toEqual(["u1", "u2"]);
    expect(b.entity("user", "u2")).toEqual(Object.assign(Object.create(null), { name: "A" }));
    expect(b.deleteEntity("user", "u1")).toBe(true);
    expect(b.deleteEntity("user", "u1")).toBe(false);
    expect(b.deleteEntity("none", "x")).toBe(false);
    expect(b.entity("user", "u1")).toBeUndefined();
    b.deleteEntity("user", "u2");
    expect(b.entityTypes()).toEqual([]);
  });

  it("entity() returns a copy", () => {
    const b = new LayerB();
    b.set("t", "a", "s", 1);
    const e = b.entity("t", "a") as Record<string, unknown>;
    e.s = 2;
    expect(b.slot("t", "a", "s")).toBe(1);
  });

  it("clone is independent in both directions (copy-on-write)", () => {
    const a = new LayerB();
    a.set("t", "x", "v", 1);
    a.set("t", "y", "v", 1);
    const b = a.clone();
    b.set("t", "x", "v", 2);
    a.set("t", "y", "v", 3);
    a.set("t", "x", "w", 9);
    expect(a.slot("t", "x", "v")).toBe(1);
    expect(b.slot("t", "x", "v")).toBe(2);
    expect(b.slot("t", "x", "w")).toBeUndefined();
    expect(b.slot("t", "y", "v")).toBe(1);
    b.deleteEntity("t", "y");
    expect(a.hasEntity("t", "y")).toBe(true);
    const c = b.clone();
    c.set("t", "x", "v", 5);
    expect(b.slot("t", "x", "v")).toBe(2);
  });

  it("serializes sorted and round-trips", () => {
    const b = new LayerB();
    b.set("z", "2", "b", [1, { c: true }]);
    b.set("z", "1", "a", null);
    b.set("a", "k", "s", "v");
    const json = b.toJSON();
    expect(JSON.stringify(json)).toBe('{"entities":{"a":{"k":{"s":"v"}},"z":{"1":{"a":null},"2":{"b":[1,{"c":true}]}}}}');
    expect(LayerB.fromJSON(json).toJSON()).toEqual(json);
  });

  it("refuses malformed json with bad-state", () => {
    for (const bad of [null, [], { entities: [] }, { entities: { t: 1 } }, { entities: { t: { x: [] } } }]) {
      expect(() => LayerB.fromJSON(bad)).toThrow(ProjectionError);
      try {
        LayerB.fromJSON(bad);
      } catch (e) {
        expect((e as ProjectionError).code).toBe("bad-state");
      }
    }
  });
});
