// sharedFrozen: a Layer B value (or a fresh value of a verdict) made immutable in place, all the way
// down, whether the guard or the host froze any part of it before (a host's freeze may be shallow).
import { describe, expect, it } from "vitest";
import { sharedFrozen } from "../../src/guard/call.js";

function allFrozen(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(allFrozen);
}

describe("sharedFrozen", () => {
  it("freezes an unfrozen value all the way down, in place", () => {
    const v = { a: [1, { b: "x" }], c: { d: [[2]] } };
    expect(sharedFrozen(v)).toBe(v);
    expect(allFrozen(v)).toBe(true);
  });

  it("walks into a value the host froze shallowly", () => {
    const v = Object.freeze({ inner: { n: 1, list: [1] } });
    sharedFrozen(v);
    expect(allFrozen(v)).toBe(true);
  });

  it("walks into a shallowly frozen part of an unfrozen value", () => {
    const deep = { n: 1 };
    const v = { part: Object.freeze({ deep }), list: [Object.freeze([deep])] };
    sharedFrozen(v);
    expect(Object.isFrozen(deep)).toBe(true);
    expect(allFrozen(v)).toBe(true);
  });

  it("a value frozen once stays frozen when it comes again (also inside another value)", () => {
    const shared = { k: [1, 2] };
    sharedFrozen(Object.freeze({ shared }));
    const later = { again: shared, fresh: { m: [3] } };
    sharedFrozen(later);
    expect(allFrozen(later)).toBe(true);
    expect(() => {
      (shared.k as number[]).push(3);
    }).toThrow(TypeError);
  });

  it("returns scalars as they are", () => {
    for (const s of ["s", 1, true, null, undefined]) expect(sharedFrozen(s)).toBe(s);
  });
});
