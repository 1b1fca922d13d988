// The call-shape gate: what a call (or a forward entry) from a model is copied into, and which shapes
// it refuses, with the detail that names the problem and where it is. A copy is plain JSON with a
// `{ "$nonjson": kind }` marker wherever the input was not JSON, so the record shows what was judged.
import { describe, expect, it } from "vitest";
import { checkCallShape, checkExecuted, define, frozenJsonSafe, jsonSafe, NON_JSON, safeExecuted } from "../../src/guard/call.js";
import { createGuard } from "../../src/guard/index.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

const marker = (kind: string) => ({ [NON_JSON]: kind });

describe("jsonSafe", () => {
  class Point {
    x = 1;
  }
  it.each<[string, unknown, unknown]>([
    ["null", null, null],
    ["a string", "s", "s"],
    ["a boolean", false, false],
    ["a number", 1.5, 1.5],
    ["NaN", NaN, marker("non-finite number")],
    ["-Infinity", -Infinity, marker("non-finite number")],
    ["undefined", undefined, marker("undefined")],
    ["a function", () => 1, marker("function")],
    ["a symbol", Symbol("s"), marker("symbol")],
    ["a bigint", 1n, marker("bigint")],
    ["a Date", new Date(0), marker("object of class Date")],
    ["a Map", new Map(), marker("object of class Map")],
    ["a class instance", new Point(), marker("object of class Point")],
    ["an object whose prototype has no constructor", Object.create(Object.create(null)), marker("object of class unknown")],
    ["a prototype-free object", Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
    ["a nested value", { a: [1, { b: NaN }], c: "d" }, { a: [1, { b: marker("non-finite number") }], c: "d" }],
    ["a list with a hole", [1, , 3], [1, marker("array hole"), 3]],
    ["a nested Infinity in a list", [[Infinity]], [[marker("non-finite number")]]],
  ])("%s", (_what, value, copy) => {
    expect(jsonSafe(value)).toEqual(copy);
  });

  it("-0 becomes 0, alone and nested", () => {
    expect(Object.is(jsonSafe(-0), 0)).toBe(true);
    expect(Object.is((jsonSafe([-0]) as number[])[0], 0)).toBe(true);
  });

  it("a cycle is marked where it closes; a subtree shared twice is copied twice", () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    expect(jsonSafe(a)).toEqual({ n: 1, self: marker("cycle") });
    const shared = { k: 1 };
    expect(jsonSafe({ x: shared, y: [shared] })).toEqual({ x: { k: 1 }, y: [{ k: 1 }] });
  });

  it("marks depth 64 as too deep", () => {
    const root: Record<string, unknown> = {};
    let at = root;
    for (let i = 0; i < 70; i++) at = (at.d = {}) as Record<string, unknown>;
    let copy = jsonSafe(root) as Record<string, unknown>;
    for (let i = 0; i < 64; i++) copy = copy.d as Record<string, unknown>;
    expect(copy).toEqual(marker("too deep"));
  });

  it("stops at 100,000 nodes, holes counted, with a marker where it stopped", () => {
    const big = new Array(200_000);
    const copy = jsonSafe(big) as unknown[];
    expect(copy.length).toBe(100_000);
    expect(copy.at(-1)).toEqual(marker("too large"));
    expect(copy[0]).toEqual(marker("array hole"));
    // Containers count: the object and the list are 2 of the 100,000 nodes.
    const list = (jsonSafe({ a: new Array(100_000).fill(0) }) as { a: unknown[] }).a;
    expect(list.length).toBe(99_999);
    expect(list[99_997]).toBe(0);
    expect(list[99_998]).toEqual(marker("too large"));
    expect((jsonSafe(new Array(99_999).fill(0)) as unknown[]).at(-1)).toBe(0);
    // Strings, booleans and nulls cost a node each too.
    for (const leaf of ["s", true, null]) {
      const leaves = (jsonSafe({ a: new Array(100_000).fill(leaf) }) as { a: unknown[] }).a;
      expect(leaves.length).toBe(99_999);
      expect(leaves[99_997]).toBe(leaf);
      expect(leaves[99_998]).toEqual(marker("too large"));
    }
  });

  it("marks depth 64 as too deep through lists too", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    let copy = jsonSafe(deep) as unknown[];
    for (let i = 0; i < 64; i++) copy = copy[0] as unknown[];
    expect(copy).toEqual(marker("too deep"));
  });

  it("a wide object stops at the budget with one marker, frozen in a frozen copy", () => {
    const wide = Object.fromEntries(Array.from({ length: 100_005 }, (_, i) => [`k${i}`, 0]));
    const copy = frozenJsonSafe(wide) as Record<string, unknown>;
    const keys = Object.keys(copy);
    expect(keys.length).toBe(100_000);
    expect(copy[keys[keys.length - 1]]).toEqual(marker("too large"));
    expect(copy.k99998).toBe(0);
    expect(Object.isFrozen(copy[keys[keys.length - 1]])).toBe(true);
  });

  it("an object with a getter that throws is unreadable, and its siblings are kept", () => {
    const bad = { get x(): never { throw new Error("boom"); } };
    expect(jsonSafe({ ok: 1, bad })).toEqual({ ok: 1, bad: marker("unreadable") });
  });

  it("a list whose length changes while it is copied is read as a loop reads it: length once per test", () => {
    // A proxy answering 1, then 2: the copy takes two elements and asks for the length three times,
    // as `for (i = 0; i < list.length; i++)` does (a copy made at the first answer still follows it).
    for (const copy of [jsonSafe, frozenJsonSafe]) {
      let reads = 0;
      const list = new Proxy(["a", "b"], {
        get(t, k, r) {
          if (k === "length") return ++reads === 1 ? 1 : 2;
          return Reflect.get(t, k, r);
        },
      });
      expect(copy({ list })).toEqual({ list: ["a", "b"] });
      expect(reads).toBe(3);
    }
  });

  it("`__proto__`, `constructor` and `toString` keys are copied as own data, prototypes untouched", () => {
    const copy = jsonSafe(JSON.parse('{"__proto__":{"polluted":true},"constructor":1,"toString":"x"}')) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const o: Record<string, unknown> = {};
    define(o, "__proto__", 1);
    define(o, "plain", 2);
    expect(Object.keys(o)).toEqual(["__proto__", "plain"]);
    expect(Object.getOwnPropertyDescriptor(o, "__proto__")).toMatchObject({ value: 1, enumerable: true, writable: true, configurable: true });
  });

  it("copies: fresh and not frozen; frozenJsonSafe freezes all the way down, markers too", () => {
    const v = { a: [{ b: 1 }], c: NaN };
    const copy = jsonSafe(v) as typeof v;
    expect(copy).not.toBe(v);
    expect(copy.a).not.toBe(v.a);
    expect(Object.isFrozen(copy)).toBe(false);
    const frozen = frozenJsonSafe(v) as Record<string, any>;
    expect(frozen).toEqual({ a: [{ b: 1 }], c: marker("non-finite number") });
    for (const part of [frozen, frozen.a, frozen.a[0], frozen.c]) expect(Object.isFrozen(part)).toBe(true);
    expect(frozenJsonSafe("s")).toBe("s");
    expect(frozenJsonSafe(false)).toBe(false);
    expect(frozenJsonSafe(true)).toBe(true);
    expect(frozenJsonSafe(null)).toBe(null);
    expect(Object.is(frozenJsonSafe(-0), 0)).toBe(true);
    expect(frozenJsonSafe(NaN)).toEqual(marker("non-finite number"));
    expect(Object.isFrozen(frozenJsonSafe(NaN))).toBe(true);
    expect(Object.isFrozen(frozenJsonSafe(undefined))).toBe(true);
  });
});

describe("checkCallShape", () => {
  it.each<[string, unknown, string]>([
    ["a marker", marker("cycle"), "the call is not an object"],
    ["a list", [], "the call is not an object"],
    ["no name", { arguments: {} }, "the call has no tool name (`name` is not a non-empty string)"],
    ["arguments that are a marker", { name: "t", arguments: marker("object of class Map") }, "the call (`t`): `arguments` is not a plain object"],
    ["arguments that are null", { name: "t", arguments: null }, "the call (`t`): `arguments` is not a plain object"],
    ["a marker deep in the arguments", { name: "t", arguments: { a: { b: [0, marker("function")] } } }, "the call (`t`): `arguments.a.b[1]` is not JSON (function)"],
    ["a marker whose kind has spaces", { name: "t", arguments: { at: marker("object of class Date") } }, "the call (`t`): `arguments.at` is not JSON (object of class Date)"],
  ])("refuses %s", (_what, safe, problem) => {
    expect(checkCallShape(safe)).toEqual({ ok: false, problem });
  });

  it("accepts a well-formed call as name and arguments only", () => {
    const args = { a: [1, { b: null }] };
    const c = checkCallShape({ name: "t", arguments: args, extra: 1 });
    expect(c).toEqual({ ok: true, call: { name: "t", arguments: args } });
    expect(checkCallShape({ name: "t", arguments: {} }, "forward call 3")).toEqual({ ok: true, call: { name: "t", arguments: {} } });
  });
});

describe("forward entries", () => {
  it("checkExecuted names the entry and keeps its result and before", () => {
    expect(checkExecuted({ name: 7, arguments: {} }, 2)).toEqual({ ok: false, problem: "forward call 2 has no tool name (`name` is not a non-empty string)" });
    expect(checkExecuted({ name: "t", arguments: {}, before: [1] }, 0)).toEqual({ ok: false, problem: "forward call 0: `before` is not a plain object" });
    expect(checkExecuted({ name: "t", arguments: {}, result: false, before: { s: 1 } }, 0)).toEqual({ ok: true, call: { name: "t", arguments: {}, result: false, before: { s: 1 } } });
    const bare = checkExecuted({ name: "t", arguments: {} }, 0);
    expect(bare.ok && Object.keys(bare.call)).toEqual(["name", "arguments"]);
  });

  it("safeExecuted keeps name, arguments, result and before, nothing else; frozen when asked", () => {
    const raw = { name: "t", arguments: { a: 1 }, result: { ok: NaN }, before: { s: 1 }, extra: "dropped" };
    expect(safeExecuted(raw)).toEqual({ name: "t", arguments: { a: 1 }, result: { ok: marker("non-finite number") }, before: { s: 1 } });
    expect(Object.keys(safeExecuted({ name: "t", arguments: {} }) as object)).toEqual(["name", "arguments"]);
    expect(safeExecuted(null)).toBe(null);
    expect(safeExecuted(() => 1)).toEqual(marker("function"));
    const frozen = safeExecuted(raw, true) as Record<string, any>;
    for (const part of [frozen, frozen.arguments, frozen.result, frozen.before]) expect(Object.isFrozen(part)).toBe(true);
    expect(Object.isFrozen(safeExecuted(raw))).toBe(false);
  });
});

describe("through the guard", () => {
  const cabin = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };
  const guard = () => createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW } });

  it("a malformed turn entry is a malformed call naming the entry, not an internal error", () => {
    expect(guard().check(cabin, { turnCalls: [{ name: 7, arguments: {} }] as never })).toMatchObject({ route: "Vetoed", reason: "malformed_call", detail: "forward call 0 has no tool name (`name` is not a non-empty string)" });
    expect(guard().check(cabin, { turnCalls: [null] as never })).toMatchObject({ reason: "malformed_call", detail: "forward call 0 is not an object" });
  });

  it("a turn entry's result stays in the recorded forward sequence", () => {
    const d = guard().check(cabin, { turnCalls: [{ ...cabin, result: { ok: 1 } }] as never });
    expect(d.forward).toHaveLength(1);
    expect(d.forward[0]).toMatchObject({ name: "update_reservation_cabin", result: { ok: 1 } });
  });

  it("a `__proto__` argument stays in the recorded call, as data", () => {
    const d = guard().check(JSON.parse('{"name":"cancel_reservation","arguments":{"reservation_id":"R1","__proto__":{"polluted":true}}}'));
    const args = (d.call as { arguments: object }).arguments;
    expect(Object.keys(args)).toEqual(["reservation_id", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(args, "__proto__")?.value).toEqual({ polluted: true });
    expect(Object.isFrozen(args)).toBe(true);
  });
});
