// What RecordingView.reads() hands out (src/guard/reads.ts): the canonical order (entity, id, existence
// before slots, slot name; the first of repeated reads) also for entity types that share an id, and
// however many slot names a process has seen; and a list of the caller's own, which the view never
// touches again.
import { describe, expect, it } from "vitest";
import { RecordingView, sortReads, type Read } from "../../src/guard/reads.js";
import type { StateView } from "../../src/core/types.js";

const state: StateView = { hasEntity: () => true, slot: (_e, _i, s) => `${s}!` };

/** The view's reads after `ops`, and what they must be: the reads sorted by the string comparison. */
function record(ops: [string, string, string | null][]): { view: RecordingView; want: Read[] } {
  const view = new RecordingView(state);
  const log: Read[] = [];
  for (const [e, id, slot] of ops) {
    if (slot === null) log.push([e, id, null, view.hasEntity(e, id)]);
    else log.push([e, id, slot, view.slot(e, id, slot)]);
  }
  const sorted = sortReads(log.slice());
  const want = sorted.filter((r, i) => i === 0 || !(r[0] === sorted[i - 1][0] && r[1] === sorted[i - 1][1] && r[2] === sorted[i - 1][2]));
  return { view, want };
}

describe("RecordingView.reads()", () => {
  it.each([
    ["already in order", [["a", "1", null], ["a", "1", "x"], ["a", "1", "y"], ["a", "2", null], ["b", "1", "x"]]],
    ["a repeat right after", [["a", "1", null], ["a", "1", "x"], ["a", "1", "x"], ["a", "1", "y"]]],
    ["a repeat later", [["a", "1", "x"], ["a", "1", "y"], ["a", "1", "x"]]],
    ["a slot before its entity's existence", [["a", "1", "x"], ["a", "1", null]]],
    ["an id out of order", [["a", "2", "x"], ["a", "1", "x"]]],
    ["an id out of order, its slot named after the last read's", [["a", "2", "x"], ["a", "1", "y"]]],
    ["a slot named like a negative number before its entity's existence", [["a", "1", "-1"], ["a", "1", null]]],
    ["an entity out of order", [["b", "1", "x"], ["a", "1", "x"]]],
    ["a slot name out of order", [["a", "1", "y"], ["a", "1", "x"]]],
  ] as [string, [string, string, string | null][]][])("in canonical order, repeats dropped, when the reads came %s", (_what, ops) => {
    const { view, want } = record(ops);
    expect(view.reads()).toEqual(want);
  });

  it("two entity types under one id: each entity's reads together, existence first", () => {
    const { view, want } = record([
      ["user", "mia", "payment_methods"],
      ["reservation", "mia", null],
      ["user", "mia", null],
      ["reservation", "mia", "cabin"],
      ["user", "mia", "membership"],
    ]);
    const reads = view.reads();
    expect(reads.map((r) => `${r[0]} ${r[2]}`)).toEqual(["reservation null", "reservation cabin", "user null", "user membership", "user payment_methods"]);
    expect(reads).toEqual(want);
  });

  it("existence before every slot, whatever the slot's name (one that reads as a negative number too)", () => {
    const { view, want } = record([
      ["user", "mia", "b"],
      ["reservation", "R1", "-1"],
      ["reservation", "R1", null],
      ["reservation", "R1", " -2"],
      ["user", "mia", null],
    ]);
    const reads = view.reads();
    expect(reads.map((r) => `${r[0]} ${r[2]}`)).toEqual(["reservation null", "reservation  -2", "reservation -1", "user null", "user b"]);
    expect(reads).toEqual(want);
  });

  it("however many slot names a process sees (more than any ontology has), each view's reads are in order", () => {
    for (let i = 0; i < 4_200; i++) {
      const name = `s${String(i).padStart(5, "0")}`;
      const { view, want } = record([
        ["reservation", "R1", "status"],
        ["reservation", "R1", name],
        ["reservation", "R1", null],
      ]);
      expect(view.reads()).toEqual(want);
    }
  });

  it("hands out a list of the caller's own: freezing it leaves the view recording, and the next list has every read", () => {
    // Reads out of order (two entities in turn, names descending) and reads made in canonical order.
    for (const [n, inOrder] of [[3, false], [40, false], [100, false], [3, true], [40, true]] as const) {
      const ops: [string, string, string | null][] = [];
      for (let i = 0; i < n; i++) ops.push(inOrder ? ["user", "R1", `slot${String(i).padStart(3, "0")}`] : [i % 2 === 0 ? "user" : "reservation", "R1", `slot${n - i}`]);
      const { view, want } = record(ops);
      const first = Object.freeze(view.reads());
      expect(first).toEqual(want);
      view.hasEntity("flight", "HAT001");
      const again = view.reads();
      expect(again).not.toBe(first);
      expect(again).toHaveLength(n + 1);
      expect(again.at(0)).toEqual(["flight", "HAT001", null, true]);
    }
  });
});
