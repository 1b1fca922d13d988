// ownCanonicalReads (src/guard/reads.ts): a check's reads kept as they are (frozen in place) only when
// the recorder found every value canonical JSON; otherwise null, nothing frozen, so the caller lets
// canonicalJson decide and name the problem. A read is [entity, id, slot | null, value?].
import { describe, expect, it } from "vitest";
import { ownCanonicalReads, RecordingView } from "../../src/guard/reads.js";

/** A recorder that read `value` from reservation R1's slot `s`, and its existence. */
function recorded(value: unknown): RecordingView {
  const view = new RecordingView({ hasEntity: () => true, slot: () => value });
  view.slot("reservation", "R1", "s");
  view.hasEntity("reservation", "R1");
  return view;
}

describe("ownCanonicalReads", () => {
  it.each([["null", null], ["a string", "x"], ["an empty string", ""], ["true", true], ["false", false], ["a number", 1.5], ["zero", 0], ["an object", { a: [1, null] }]])(
    "keeps the reads of a recorder that read %s, frozen",
    (_what, value) => {
      const view = recorded(value);
      const reads = view.reads();
      const out = ownCanonicalReads(reads, view.canonical);
      expect(out).toBe(reads);
      expect(Object.isFrozen(out)).toBe(true);
      expect(Object.isFrozen(out![1])).toBe(true);
      expect(out![1][3]).toEqual(value);
    },
  );

  it.each([["NaN", NaN], ["Infinity", Infinity], ["a function", () => 1], ["a symbol", Symbol("s")], ["a bigint", 1n], ["an object holding NaN", { a: NaN }]])(
    "gives null for the reads of a recorder that read %s, freezing no read",
    (_what, value) => {
      const view = recorded(value);
      const reads = view.reads();
      expect(view.canonical).toBe(false);
      expect(ownCanonicalReads(reads, view.canonical)).toBeNull();
      expect(Object.isFrozen(reads)).toBe(false);
      expect(reads.some((r) => Object.isFrozen(r))).toBe(false);
    },
  );

  it("an existence read (three fields, slot null) and a slot read without a value are kept", () => {
    const view = new RecordingView({ hasEntity: () => false, slot: () => undefined });
    view.hasEntity("reservation", "R1");
    view.slot("reservation", "R1", "gone");
    const reads = view.reads();
    expect(ownCanonicalReads(reads, view.canonical)).toEqual([["reservation", "R1", null, false], ["reservation", "R1", "gone"]]);
  });
});
