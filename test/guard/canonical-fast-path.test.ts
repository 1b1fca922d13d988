// canonicalJsonFast (src/guard/canonical-fast.ts) writes a JSON value itself and hands to canonicalJson
// only what it does not write (a value canonicalJson refuses, a hole, a cycle, nesting past 128): which
// values take which path is its contract on the guard's hot paths (the reads digest, the audit line).
// The bytes and refusals equal canonicalJson's: canonical-fast.test.ts.
import { beforeEach, describe, expect, it, vi } from "vitest";

const handed = vi.hoisted(() => ({ values: [] as unknown[] }));
vi.mock("../../src/projection/canonical.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/projection/canonical.js")>();
  return { ...real, canonicalJson: (v: unknown) => (handed.values.push(v), real.canonicalJson(v)) };
});

const { canonicalJsonFast } = await import("../../src/guard/canonical-fast.js");
const { canonicalJson } = await import("../../src/projection/canonical.js");

/** `n` arrays, one inside the other, around `leaf`. */
function nested(n: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

beforeEach(() => {
  handed.values.length = 0;
});

describe("what canonicalJsonFast writes itself", () => {
  it("JSON values: scalars, arrays, plain and prototype-free objects, -0, odd strings", () => {
    const bare = Object.assign(Object.create(null) as object, { b: [true, false, null], a: -0 });
    for (const v of [null, true, false, 0, -0, 1.5, "x", "\"\\\n\ud800", [], {}, [1, "a", [null]], { b: 1, a: { c: [2] } }, bare, nested(128), nested(64, { k: nested(63) })]) {
      expect(canonicalJsonFast(v)).toBe(canonicalJson(v));
    }
    handed.values.length = 0;
    for (const v of [null, -0, "x", [1, [2]], { b: 1, a: {} }, bare, nested(128)]) canonicalJsonFast(v);
    expect(handed.values).toEqual([]);
  });
});

describe("what it hands to canonicalJson, whole", () => {
  it.each([
    ["nesting past 128", nested(129)],
    ["an object nested past 128", nested(128, { a: 1 })],
    ["undefined in an array", [1, undefined]],
    ["a hole", [1, , 3]], // eslint-disable-line no-sparse-arrays
    ["NaN in an object", { a: Number.NaN }],
    ["a Date", { a: new Date(0) }],
    ["a Map", new Map()],
    ["a function", () => 1],
  ])("%s", (_what, v) => {
    try {
      canonicalJsonFast(v);
    } catch {
      // canonicalJson's refusal: canonical-fast.test.ts checks it is the same.
    }
    expect(handed.values).toEqual([v]);
  });
});
