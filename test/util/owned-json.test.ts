// ownedJson (src/util/owned-json.ts): a caller's JSON value as a library-owned, deep-frozen copy; the
// caller's value is never frozen or changed; what canonicalJson refuses is NOT_JSON.
import { describe, expect, it } from "vitest";
import { isOwnedJson, NOT_JSON, ownedJson } from "../../src/util/owned-json.js";
import { canonicalJson } from "../../src/projection/canonical.js";

const allFrozen = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(allFrozen);
};

describe("ownedJson", () => {
  it("copies an object or list all the way down, frozen; the source stays unfrozen and independent", () => {
    const src = { flights: [{ flight_number: "HAT001", price: 10.5 }], meta: { tags: ["a", null, true] }, n: null };
    const c = ownedJson(src, false) as typeof src;
    expect(c).toEqual(src);
    expect(c).not.toBe(src);
    expect(c.flights).not.toBe(src.flights);
    expect(allFrozen(c)).toBe(true);
    expect(Object.isFrozen(src)).toBe(false);
    expect(Object.isFrozen(src.flights[0])).toBe(false);
    src.flights[0].price = 1;
    src.flights.push({ flight_number: "X", price: 0 });
    expect(c.flights).toEqual([{ flight_number: "HAT001", price: 10.5 }]);
    expect(isOwnedJson(c)).toBe(false);
  });

  it("returns JSON scalars as they are", () => {
    for (const s of [null, 0, -1.5, "s", "", true, false]) expect(ownedJson(s, true)).toBe(s);
  });

  it("a remembered copy is shared, as a whole and as a part of a later copy", () => {
    const c = ownedJson({ a: [1, { b: 2 }] }, true) as object;
    expect(isOwnedJson(c)).toBe(true);
    expect(ownedJson(c, false)).toBe(c);
    const outer = ownedJson({ inner: c, own: { x: 1 } }, false) as { inner: unknown; own: unknown };
    expect(outer.inner).toBe(c);
    expect(Object.isFrozen(outer.own)).toBe(true);
  });

  it("keeps the prototype (plain or none) and keeps `__proto__` a data key", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = 1;
    const c = ownedJson(bare, false) as object;
    expect(Object.getPrototypeOf(c)).toBeNull();
    const tricky = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}') as object;
    const t = ownedJson(tricky, false) as Record<string, unknown>;
    expect(Object.getPrototypeOf(t)).toBe(Object.prototype);
    expect(Object.keys(t)).toEqual(["__proto__", "constructor"]);
    expect(canonicalJson(t)).toBe(canonicalJson(tricky));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ["NaN", NaN],
    ["Infinity deep inside", { a: [1, Infinity] }],
    ["undefined inside", { a: undefined }],
    ["a function inside", [() => 1]],
    ["a symbol", Symbol("s")],
    ["a bigint inside", { n: 1n }],
    ["a Date", new Date(0)],
    ["a Map inside", { m: new Map() }],
    ["a hole", [1, , 3]],
    ["a cycle", (() => { const o: Record<string, unknown> = { k: [] }; (o.k as unknown[]).push(o); return o; })()],
    ["a getter that throws", Object.defineProperty({}, "x", { enumerable: true, get: () => { throw new Error("no"); } })],
  ])("%s is NOT_JSON, and nothing of it is frozen", (_what, v) => {
    expect(ownedJson(v, true)).toBe(NOT_JSON);
    if (typeof v === "object" && v !== null) expect(Object.isFrozen(v)).toBe(false);
    expect(() => canonicalJson(v)).toThrow();
  });

  it("a value shared twice (not a cycle) is copied", () => {
    const s = { k: 1 };
    const c = ownedJson({ a: s, b: [s] }, false) as { a: unknown; b: unknown[] };
    expect(c.a).toEqual(s);
    expect(c.b[0]).toEqual(s);
  });
});

import { adoptOwnJson } from "../../src/util/owned-json.js";

describe("adoptOwnJson", () => {
  it("freezes the library's own fresh value in place, all the way down, and remembers it", () => {
    const v = JSON.parse('{"flights":[{"n":"HAT001"}],"tags":["a"]}') as { flights: { n: string }[] };
    expect(adoptOwnJson(v)).toBe(v);
    expect(allFrozen(v)).toBe(true);
    expect(isOwnedJson(v)).toBe(true);
    expect(ownedJson(v, false)).toBe(v);
  });

  it("a value that is not JSON is NOT_JSON, its container left unfrozen and unremembered", () => {
    const v = { ok: { n: 1 }, bad: [new Date(0)] };
    expect(adoptOwnJson(v)).toBe(NOT_JSON);
    expect(Object.isFrozen(v)).toBe(false);
    expect(Object.isFrozen(v.bad)).toBe(false);
    expect(isOwnedJson(v)).toBe(false);
    expect(adoptOwnJson(NaN)).toBe(NOT_JSON);
    expect(adoptOwnJson("s")).toBe("s");
  });
});
