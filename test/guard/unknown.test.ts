// The guard's unknown marks (src/guard/unknown.ts): an entity whose Layer B values may be stale after a
// result that could not be projected. What a set of marks holds, which marks a decision's reads and
// forward sequence hit, what `markKnown` clears, and what the replay reads back from a record. Through
// the guard: test/guard/lifecycle.test.ts, outcome-unknown.test.ts, guard-api.test.ts.
import { describe, expect, it } from "vitest";
import type { Read } from "../../src/guard/reads.js";
import { MAX_MARKS, recordedMarks, type UnknownMark, UnknownMarks } from "../../src/guard/unknown.js";

const mark = (entity: string, id: string | null, tool = "t", execution: string | null = "x1"): UnknownMark => ({ entity, id, tool, execution });
const read = (entity: string, id: string, field: string | null = "status"): Read => [entity, id, field, "v"];

function filled(...ms: UnknownMark[]): UnknownMarks {
  const u = new UnknownMarks();
  for (const m of ms) u.mark(m);
  return u;
}

describe("a set of unknown marks", () => {
  it("starts empty: no list, nothing hit", () => {
    const u = new UnknownMarks();
    expect(u.empty).toBe(true);
    expect(u.list()).toBeNull();
  });

  it("keeps one mark per entity and id (the latest), frozen copies of what it was given", () => {
    const given = mark("reservation", "R1", "cancel_reservation", "x1");
    const u = filled(given, mark("reservation", "R2"), mark("user", "R1"), mark("reservation", "R1", "update_reservation_flights", "x3"));
    expect(u.empty).toBe(false);
    expect(u.list()).toEqual([mark("reservation", "R1", "update_reservation_flights", "x3"), mark("reservation", "R2"), mark("user", "R1")]);
    given.tool = "changed by the caller";
    expect(u.list()!.every((m) => Object.isFrozen(m) && m.tool !== "changed by the caller")).toBe(true);
  });

  it("a mark that names no entity stands for everything; the first one stays", () => {
    const u = filled(mark("reservation", "R1"), mark("*", null, "book", "x2"), mark("*", null, "other", "x9"));
    expect(u.empty).toBe(false);
    expect(u.list()).toEqual([mark("reservation", "R1"), mark("*", null, "book", "x2")]);
    expect(Object.isFrozen(u.list()!.at(-1))).toBe(true);
    expect(filled(mark("*", null)).empty).toBe(false);
  });

  it(`past ${MAX_MARKS} marked entities the next mark stands for everything (named by its tool), and the entity marks stay`, () => {
    const u = new UnknownMarks();
    for (let i = 0; i < MAX_MARKS; i++) u.mark(mark("reservation", `R${i}`));
    expect(u.list()).toHaveLength(MAX_MARKS);
    expect(u.list()!.some((m) => m.id === null)).toBe(false);
    u.mark(mark("reservation", "R-overflow", "update_reservation_flights", "x7"));
    const all = u.list()!;
    expect(all).toHaveLength(MAX_MARKS + 1);
    expect(all.at(-1)).toEqual({ entity: "reservation", id: null, tool: "update_reservation_flights", execution: "x7" });
    expect(Object.isFrozen(all.at(-1))).toBe(true);
    // A decision on an entity never marked is hit by it.
    expect(UnknownMarks.hits(all, [read("user", "mia")], [])).toEqual([all.at(-1)]);
  });

  it("markKnown: an entity and id clears that mark only; an entity alone clears every id of it; nothing clears all", () => {
    const u = filled(mark("reservation", "R1"), mark("reservation", "R2"), mark("user", "R1"), mark("*", null));
    u.clear("reservation", "R1");
    expect(u.list()).toEqual([mark("reservation", "R2"), mark("user", "R1"), mark("*", null)]);
    u.clear("reservation");
    expect(u.list()).toEqual([mark("user", "R1"), mark("*", null)]);
    u.clear("flight", "R1");
    expect(u.list()).toEqual([mark("user", "R1"), mark("*", null)]);
    u.clear();
    expect(u.empty).toBe(true);
    expect(u.list()).toBeNull();
  });

  it("restores a snapshot's marks, the mark on everything among them", () => {
    const u = new UnknownMarks();
    u.restore([mark("reservation", "R1"), mark("*", null, "book"), mark("user", "mia")]);
    expect(u.empty).toBe(false);
    expect(u.list()).toEqual([mark("reservation", "R1"), mark("user", "mia"), mark("*", null, "book")]);
    const only = new UnknownMarks();
    only.restore([mark("*", null, "book")]);
    expect(only.empty).toBe(false);
    expect(UnknownMarks.hits(only.list()!, [], [])).toEqual([mark("*", null, "book")]);
  });
});

describe("the marks a decision hits", () => {
  const marks = [mark("reservation", "R1", "a"), mark("user", "mia", "b"), mark("reservation", "R2", "c")];

  it("a mark is hit by a read of its entity and id (any field, or the entity's existence), once", () => {
    expect(UnknownMarks.hits(marks, [read("reservation", "R1"), read("reservation", "R1", "flights"), read("reservation", "R1", null)], [])).toEqual([marks[0]]);
    expect(UnknownMarks.hits(marks, [read("reservation", "R3"), read("user", "R1"), read("flight", "mia")], [])).toEqual([]);
  });

  it("or by an earlier call of the forward sequence that acts on it; in that order, each once", () => {
    expect(UnknownMarks.hits(marks, [read("user", "mia"), read("reservation", "R2")], [["reservation", "R2"], ["reservation", "R2"]])).toEqual([marks[2], marks[1]]);
    expect(UnknownMarks.hits(marks, [], [["user", "mia"]])).toEqual([marks[1]]);
  });

  it("a mark on everything is hit by every decision, even one that reads nothing, and comes first", () => {
    const everything = mark("*", null, "book");
    expect(UnknownMarks.hits([...marks, everything], [], [])).toEqual([everything]);
    expect(UnknownMarks.hits([...marks, everything], [read("user", "mia")], [])).toEqual([everything, marks[1]]);
  });

  it("an entity and id are told apart whatever characters they hold", () => {
    const m = mark("a", "b:c");
    expect(UnknownMarks.hits([m], [read("a:b", "c"), read("a", "b"), read("a", "b:")], [])).toEqual([]);
    expect(UnknownMarks.hits([m], [read("a", "b:c")], [])).toEqual([m]);
  });
});

describe("the marks the replay reads back from a record", () => {
  it("keeps the well-formed marks, with their execution or null", () => {
    expect(recordedMarks([mark("reservation", "R1"), mark("*", null, "book", null), { entity: "user", id: "mia", tool: "b" }, { ...mark("user", "x"), execution: 7 }])).toEqual([
      mark("reservation", "R1"),
      mark("*", null, "book", null),
      mark("user", "mia", "b", null),
      mark("user", "x", "t", null),
    ]);
  });

  it("drops a mark of another shape, and reads no list at all as null", () => {
    const bad = [null, 3, "mark", {}, { entity: 1, id: "R1", tool: "t" }, { entity: "r", id: 1, tool: "t" }, { entity: "r", tool: "t" }, { entity: "r", id: "R1" }, { entity: "r", id: "R1", tool: 5 }];
    expect(recordedMarks([...bad, mark("reservation", "R1")])).toEqual([mark("reservation", "R1")]);
    expect(recordedMarks([])).toEqual([]);
    for (const v of [undefined, null, {}, "[]", { length: 1, 0: mark("r", "1") }]) expect(recordedMarks(v)).toBeNull();
  });
});
