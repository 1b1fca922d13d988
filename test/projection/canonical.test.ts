import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { canonicalJson, digestHex, ProjectionError } from "../../src/projection/index.js";

describe("canonicalJson", () => {
  it("sorts keys, drops whitespace, writes numbers stably", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], c: { z: 0.1, y: -0 } })).toBe('{"a":[true,null,"x"],"b":1,"c":{"y":0,"z":0.1}}');
    expect(canonicalJson(1e21)).toBe("1e+21");
    expect(canonicalJson(1.5e-7)).toBe("1.5e-7");
    expect(canonicalJson("é\u2028\"")).toBe('"é\u2028\\""');
    // UTF-16 code unit order: uppercase before lowercase, "10" before "9".
    expect(canonicalJson({ b: 1, B: 2, "10": 3, "9": 4 })).toBe('{"10":3,"9":4,"B":2,"b":1}');
  });

  it("keeps `__proto__` keys as data", () => {
    const v = JSON.parse('{"__proto__":{"x":1},"a":2}');
    expect(canonicalJson(v)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it("refuses values that are not JSON with a typed error", () => {
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    const bad: unknown[] = [undefined, () => 1, Symbol("s"), 1n, NaN, Infinity, new Date(0), new Map(), { a: undefined }, [1, , 2], cyc];
    for (const v of bad) {
      let err: unknown;
      try {
        canonicalJson(v);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ProjectionError);
      expect((err as ProjectionError).code).toBe("not-json");
      expect((err as ProjectionError).message).toMatch(/^value at `\$[^`]*` is not JSON: /);
    }
  });

  it("accepts repeated (non-cyclic) references", () => {
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  it("is invariant under key order and parses back to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        const back = JSON.parse(text);
        expect(canonicalJson(back)).toBe(text);
        const shuffled = JSON.parse(JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x)));
        expect(canonicalJson(shuffled)).toBe(text);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe("digestHex", () => {
  it("is sha256 of the canonical text, stable across key order", () => {
    // sha256("{}") and sha256("null"), known values.
    expect(digestHex({})).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    expect(digestHex(null)).toBe("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
    expect(digestHex({ a: 1, b: [2] })).toBe(digestHex({ b: [2], a: 1 }));
    expect(digestHex({ a: 1 })).not.toBe(digestHex({ a: 1.5 }));
    expect(digestHex({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
