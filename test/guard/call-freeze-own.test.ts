// freezeOwn (src/guard/call.ts): a value in the guard's hands made immutable. A frozen value was frozen
// all the way down by its maker (a copy of the guard's or Layer B's own) and is left unwalked; an
// unfrozen one is fresh and the guard's (a verdict's literal or `$pending` marker, a resumed `before`)
// and is frozen all the way down, in place.
import { describe, expect, it } from "vitest";
import { freezeOwn } from "../../src/guard/call.js";

const allFrozen = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(allFrozen);
};

describe("freezeOwn", () => {
  it("freezes a fresh value all the way down, through objects and lists, and returns it", () => {
    const v = { a: { b: { c: 1 } }, list: [{ d: [2, { e: 3 }] }, [4]], s: "x", n: null };
    expect(freezeOwn(v)).toBe(v);
    expect(allFrozen(v)).toBe(true);
    expect(v).toEqual({ a: { b: { c: 1 } }, list: [{ d: [2, { e: 3 }] }, [4]], s: "x", n: null });
    const list = [{ a: { b: 1 } }, [[{ c: 2 }]], 3];
    expect(freezeOwn(list)).toBe(list);
    expect(allFrozen(list)).toBe(true);
  });

  it("returns scalars, null and undefined as they are", () => {
    for (const s of [null, undefined, 0, -1.5, "s", "", true, false]) expect(freezeOwn(s)).toBe(s);
  });

  it("leaves a frozen value as it is, unwalked (its maker froze it all the way down)", () => {
    const inner = { b: 1 };
    const v = Object.freeze({ inner });
    expect(freezeOwn(v)).toBe(v);
    expect(Object.isFrozen(inner)).toBe(false);
  });

  it("a fresh value holding a frozen part: the fresh parts are frozen, the frozen part is not walked into", () => {
    const inside = { n: 1 };
    const shared = Object.freeze({ inside });
    const fresh = { shared, own: { u: [{ v: 1 }] } };
    freezeOwn(fresh);
    expect(Object.isFrozen(fresh)).toBe(true);
    expect(allFrozen(fresh.own)).toBe(true);
    expect(Object.isFrozen(inside)).toBe(false);
  });

  it("a frozen value cannot be changed through any path", () => {
    const v = { flights: [{ flight_number: "HAT001" }] };
    freezeOwn(v);
    expect(() => {
      v.flights[0].flight_number = "HAT666";
    }).toThrow(TypeError);
    expect(() => v.flights.push({ flight_number: "X" })).toThrow(TypeError);
    expect(v.flights).toEqual([{ flight_number: "HAT001" }]);
  });
});
