// ownCanonicalReads (src/guard/reads.ts): a check's reads kept as they are (frozen in place) only when
// every one is canonical JSON; any other read gives null, so the caller lets canonicalJson decide and
// name the problem. A read is [entity, id, slot | null, value?].
import { describe, expect, it } from "vitest";
import { ownCanonicalReads, type Read } from "../../src/guard/reads.js";

const read = (value: unknown, slot: unknown = "s"): Read => ["reservation", "R1", slot, value] as unknown as Read;

describe("ownCanonicalReads", () => {
  it.each([["null", null], ["a string", "x"], ["an empty string", ""], ["true", true], ["false", false], ["a number", 1.5], ["zero", 0], ["an object", { a: [1, null] }]])(
    "keeps a read whose value is %s, frozen",
    (_what, value) => {
      const reads = [read(value), ["reservation", "R1", null, true] as unknown as Read];
      const out = ownCanonicalReads(reads);
      expect(out).toBe(reads);
      expect(Object.isFrozen(out)).toBe(true);
      expect(Object.isFrozen(out![0])).toBe(true);
      expect(out![0][3]).toEqual(value);
    },
  );

  it.each([["NaN", NaN], ["Infinity", Infinity], ["undefined", undefined], ["a function", () => 1], ["a symbol", Symbol("s")], ["a bigint", 1n], ["an object holding NaN", { a: NaN }]])(
    "gives null for a read whose value is %s, freezing no read",
    (_what, value) => {
      const ok = read("fine");
      expect(ownCanonicalReads([ok, read(value)])).toBeNull();
      expect(Object.isFrozen(ok)).toBe(false);
    },
  );

  it.each([
    ["entity", [5, "R1", "s", 1]],
    ["id", ["reservation", 5, "s", 1]],
    ["slot", ["reservation", "R1", 5, 1]],
  ])("gives null for a read whose %s is not a string", (_what, r) => {
    expect(ownCanonicalReads([r as unknown as Read])).toBeNull();
  });

  it("an existence read (three fields, slot null) is kept", () => {
    const r = ["reservation", "R1", null] as unknown as Read;
    expect(ownCanonicalReads([r])).toEqual([r]);
  });
});
