// The order of a decision's reads (issue 27 §1): reads made in canonical order are kept as made, others
// sorted by insertion (up to 64) or by the general sort (src/guard/reads.ts). Whatever the path, the
// reads are the same list: sorted by entity, id, existence before slots, slot name, the first of
// repeated reads kept — what a stable sort with the string comparison gives.
import { describe, expect, it } from "vitest";
import { RecordingView, sortReads, type Read } from "../../src/guard/reads.js";
import type { StateView } from "../../src/core/types.js";

/** Each read answers a fresh number, so which of two repeated reads was kept shows in the value. */
function counting(): StateView {
  let n = 0;
  return { hasEntity: () => ++n % 3 !== 0, slot: (_e, _i, s) => (s.startsWith("none") ? undefined : ++n) };
}

/** What the reads must be: the log sorted stably by the string comparison, repeats dropped (first kept). */
function expected(log: Read[]): Read[] {
  const sorted = sortReads(log.slice());
  return sorted.filter((r, i) => i === 0 || !(r[0] === sorted[i - 1][0] && r[1] === sorted[i - 1][1] && r[2] === sorted[i - 1][2]));
}

/** A deterministic pseudo-random sequence. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

function replayInto(view: RecordingView, log: Read[], ops: [string, string, string | null][]): void {
  for (const [e, id, slot] of ops) {
    if (slot === null) {
      const exists = view.hasEntity(e, id);
      log.push([e, id, null, exists]);
    } else {
      const v = view.slot(e, id, slot);
      log.push(v === undefined ? [e, id, slot] : [e, id, slot, v]);
    }
  }
}

describe("a check's reads, in canonical order", () => {
  it("one entity: existence first, then slots by name, the first of repeats kept", () => {
    const view = new RecordingView(counting());
    const log: Read[] = [];
    replayInto(view, log, [
      ["reservation", "R1", null],
      ["reservation", "R1", "status"],
      ["reservation", "R1", "cabin"],
      ["reservation", "R1", null],
      ["reservation", "R1", "status"],
      ["reservation", "R1", "none_seat"],
      ["reservation", "R1", "Zeta"],
      ["reservation", "R1", "_under"],
      ["reservation", "R1", "cabin_class"],
    ]);
    const reads = view.reads();
    expect(reads.map((r) => r[2])).toEqual([null, "Zeta", "_under", "cabin", "cabin_class", "none_seat", "status"]);
    expect(reads).toEqual(expected(log));
  });

  it("any mix of entities, ids, names never seen before and repeats: the same list as the string sort", () => {
    const next = rng(27);
    const names = ["status", "cabin", "flights", "passengers", "total_baggages", "nonfree_baggages", "a", "B", "é", "\u{1F600}x", "z9", "Z9", "payment_history"];
    for (let round = 0; round < 300; round++) {
      const oneEntity = round % 3 !== 0;
      const n = 1 + Math.floor(next() * (round % 5 === 0 ? 90 : 36));
      const ops: [string, string, string | null][] = [];
      for (let i = 0; i < n; i++) {
        const entity = oneEntity ? "reservation" : ["reservation", "user", "flight"][Math.floor(next() * 3)];
        const id = oneEntity ? "R1" : ["R1", "R2", "mia"][Math.floor(next() * 3)];
        const fresh = next() < 0.1 ? `fresh_${round}_${i}` : null;
        const slot = next() < 0.15 ? null : (fresh ?? names[Math.floor(next() * names.length)]);
        ops.push([entity, id, slot]);
      }
      const view = new RecordingView(counting());
      const log: Read[] = [];
      replayInto(view, log, ops);
      expect(view.reads()).toEqual(expected(log));
    }
  });

  it("many slot names (more than any ontology has, past the insertion sort's 64): the general sort, the same list", () => {
    for (let round = 0; round < 3; round++) {
      const ops: [string, string, string | null][] = [];
      for (let i = 0; i < 2500; i++) ops.push(["reservation", "R1", `n${(i * 7919 + round) % 2500}_${round}`]);
      const view = new RecordingView(counting());
      const log: Read[] = [];
      replayInto(view, log, ops.slice(0, 40));
      expect(view.reads()).toEqual(expected(log));
      const big = new RecordingView(counting());
      const bigLog: Read[] = [];
      replayInto(big, bigLog, ops);
      expect(big.reads()).toEqual(expected(bigLog));
    }
    const view = new RecordingView(counting());
    const log: Read[] = [];
    replayInto(view, log, [["reservation", "R1", "late_b"], ["reservation", "R1", null], ["reservation", "R1", "late_a"]]);
    expect(view.reads()).toEqual(expected(log));
  });

  it("no reads: an empty list", () => {
    expect(new RecordingView(counting()).reads()).toEqual([]);
  });
});
