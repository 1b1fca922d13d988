// ownExecuted / freezeParsed (src/guard/call.ts, issue 27 §1): observe keeps a parsed tool result in the
// session's forward sequence frozen in place instead of copying it again. What it keeps must be exactly
// what the copy (safeExecuted(entry, true)) made: the same data, frozen all the way down; a value the
// copy would change (-0, too deep, not plain) is copied as before.
import { describe, expect, it } from "vitest";
import { freezeParsed, frozenJsonSafe, ownExecuted, safeExecuted } from "../../src/guard/call.js";

function deepFrozen(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(deepFrozen);
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const call = Object.freeze({ name: "t", arguments: Object.freeze({ id: "R1", n: Object.freeze([1, 2]) }) });
const before = Object.freeze({ status: "confirmed" });

describe("freezeParsed", () => {
  it.each<[string, () => unknown]>([
    ["an object", () => JSON.parse('{"a":1,"b":[true,null,"x",{"c":2.5}]}')],
    ["an array", () => JSON.parse("[1,2,3]")],
    ["a __proto__ key", () => JSON.parse('{"__proto__":{"x":1},"y":2}')],
    ["a -0", () => JSON.parse('{"a":[-0]}')],
    ["a scalar", () => "text"],
    ["-0 alone", () => -0],
    ["deep nesting", () => JSON.parse(JSON.stringify(nested(80)))],
    ["nesting just inside the bound", () => JSON.parse(JSON.stringify(nested(62)))],
    ["a null-prototype object", () => Object.assign(Object.create(null), { a: 1 })],
    ["a part already frozen", () => ({ a: Object.freeze({ b: 1 }), c: [2] })],
    ["a large array", () => Array.from({ length: 100_001 }, (_, i) => i)],
  ])("%s: the same as the frozen copy, frozen all the way down", (_what, make) => {
    const expected = frozenJsonSafe(make());
    const got = freezeParsed(make());
    expect(got).toStrictEqual(expected);
    expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
    expect(deepFrozen(got)).toBe(true);
  });

  it("plain parsed JSON is kept, not copied; what the copy would change is copied", () => {
    const v = JSON.parse('{"a":{"b":[1]}}');
    expect(freezeParsed(v)).toBe(v);
    const z = JSON.parse('{"a":-0}');
    const c = freezeParsed(z) as { a: number };
    expect(c).not.toBe(z);
    expect(Object.is(c.a, 0)).toBe(true);
  });
});

describe("ownExecuted", () => {
  it.each<[string, boolean, unknown, Record<string, unknown> | undefined]>([
    ["a result and before", true, JSON.parse('{"r":[1,{"s":"x"}]}'), before],
    ["no result (an unknown outcome)", false, undefined, before],
    ["a result that is not JSON (undefined): the marker", true, undefined, before],
    ["no before", true, "ok", undefined],
    ["a null result", true, null, undefined],
  ])("%s: what safeExecuted(entry, true) made", (_what, hasResult, result, b) => {
    const entry: Record<string, unknown> = { name: call.name, arguments: call.arguments };
    if (hasResult) entry.result = structuredClone(result);
    if (b !== undefined) entry.before = b;
    const expected = safeExecuted(entry, true);
    const got = ownExecuted(call, hasResult, structuredClone(result), b);
    expect(got).toStrictEqual(expected);
    expect(Object.keys(got)).toEqual(Object.keys(expected as object));
    expect(deepFrozen(got)).toBe(true);
  });
});
