// canonicalJsonFast writes canonicalJson's bytes and refuses what it refuses, with the same error.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJsonFast } from "../../src/guard/canonical-fast.js";
import { canonicalJson } from "../../src/projection/canonical.js";

function outcome(f: (v: unknown) => string, v: unknown): string {
  try {
    return `ok ${f(v)}`;
  } catch (e) {
    return `error ${(e as { code?: string }).code ?? ""} ${(e as Error).message}`;
  }
}

const oddString = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("\ud800", "a\udc00b", "\u2028", "\"\\", "__proto__", "\u0000\u001f\u007f", "😀"));
// Finite doubles: non-finite numbers are not JSON; the refusal test below covers them through `odd`.
const scalar = fc.oneof(oddString, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(-0));
const odd = fc.constantFrom<unknown>(undefined, Number.NaN, Infinity, new Date(0), new Map(), () => 1, 10n, Symbol("s"));

describe("canonicalJsonFast", () => {
  it("equals canonicalJson on JSON values (odd strings, -0, prototype-free objects, __proto__ keys)", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("value"), { maxLength: 5 }), fc.dictionary(oddString, tie("value"), { maxKeys: 5 })),
    })).value;
    fc.assert(
      fc.property(json, fc.boolean(), (v, nullProto) => {
        const value = nullProto && typeof v === "object" && v !== null && !Array.isArray(v) ? Object.assign(Object.create(null), v) : v;
        expect(canonicalJsonFast(value)).toBe(canonicalJson(value));
      }),
      { numRuns: 400, seed: 7 },
    );
    const proto = JSON.parse('{"__proto__": {"b": 1}, "a": [1, -0, "x"]}');
    expect(canonicalJsonFast(proto)).toBe(canonicalJson(proto));
  });

  it("refuses exactly what canonicalJson refuses, with the same error", () => {
    const withOdd = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, scalar, odd, fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 })),
    })).value;
    fc.assert(
      fc.property(withOdd, (v) => {
        expect(outcome(canonicalJsonFast, v)).toBe(outcome(canonicalJson, v));
      }),
      { numRuns: 400, seed: 7 },
    );
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    const holey = [1, , 3]; // eslint-disable-line no-sparse-arrays
    let deep: unknown = "leaf";
    for (let i = 0; i < 300; i++) deep = { d: [deep] };
    for (const v of [cyclic, holey, deep, { a: [1, { b: new Date(0) }] }]) expect(outcome(canonicalJsonFast, v)).toBe(outcome(canonicalJson, v));
  });
});
