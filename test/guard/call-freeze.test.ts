// sharedFrozen (src/guard/call.ts): a Layer B value a decision holds is frozen in place, all the way
// down, instead of copied (Layer B never mutates a value in place), so no holder of a decision can
// change the guard's state through it. Each value is walked once.
import { describe, expect, it } from "vitest";
import { sharedFrozen } from "../../src/guard/call.js";

const allFrozen = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(allFrozen);
};

describe("sharedFrozen", () => {
  it("freezes an object in place through nested objects and lists, and returns the same value", () => {
    const v = { a: { b: { c: 1 } }, list: [{ d: [2, { e: 3 }] }, [4]], s: "x" };
    expect(sharedFrozen(v)).toBe(v);
    expect(allFrozen(v)).toBe(true);
    expect(v).toEqual({ a: { b: { c: 1 } }, list: [{ d: [2, { e: 3 }] }, [4]], s: "x" });
  });

  it("freezes a list in place through the objects and lists in it", () => {
    const v = [{ a: { b: 1 } }, [[{ c: 2 }]], 3];
    expect(sharedFrozen(v)).toBe(v);
    expect(allFrozen(v)).toBe(true);
  });

  it("JSON nulls and scalars inside are left as they are", () => {
    const v = { n: null, list: [null, 1, "s", true, { m: null }] };
    expect(sharedFrozen(v)).toBe(v);
    expect(allFrozen(v)).toBe(true);
    expect(v).toEqual({ n: null, list: [null, 1, "s", true, { m: null }] });
  });

  it("returns scalars and null unchanged", () => {
    for (const s of [null, 0, -1.5, "s", "", true, false]) expect(sharedFrozen(s)).toBe(s);
  });

  it("a value shallow-frozen by the host is still frozen all the way down", () => {
    const inner = { b: 1 };
    const v = Object.freeze({ a: inner, list: Object.freeze([{ c: 2 }]) });
    sharedFrozen(v);
    expect(Object.isFrozen(inner)).toBe(true);
    expect(Object.isFrozen(v.list[0])).toBe(true);
  });

  it("a value that holds one frozen before is frozen all the way down too (the shared part is skipped, not the rest)", () => {
    const shared = { s: { t: 1 } };
    sharedFrozen(shared);
    const fresh = { shared, own: { u: [{ v: 1 }] } };
    const list = [shared, { w: { x: 1 } }];
    sharedFrozen(fresh);
    sharedFrozen(list);
    expect(allFrozen(fresh)).toBe(true);
    expect(allFrozen(list)).toBe(true);
  });

  it("a value the host froze that holds nulls and scalars is walked through them", () => {
    const list = Object.freeze([null, 1, "s", true, Object.freeze({ a: null, b: { c: [null] } })]);
    expect(sharedFrozen(list)).toBe(list);
    expect(allFrozen(list)).toBe(true);
    const obj = Object.freeze({ n: null, s: "x", inner: { m: null, list: [1, null] } });
    expect(sharedFrozen(obj)).toBe(obj);
    expect(allFrozen(obj)).toBe(true);
  });

  it("a frozen value cannot be changed through any path", () => {
    const v = { flights: [{ flight_number: "HAT001" }] };
    sharedFrozen(v);
    expect(() => {
      v.flights[0].flight_number = "HAT666";
    }).toThrow(TypeError);
    expect(() => v.flights.push({ flight_number: "X" })).toThrow(TypeError);
    expect(v.flights).toEqual([{ flight_number: "HAT001" }]);
  });
});
