// The Layer B reads a decision records and replays: recorded in canonical order without repeats,
// hashed into the state digest, answered back from the record alone (a read it does not hold is
// reported), and overlaid by a candidate target state.
import { describe, expect, it } from "vitest";
import { defineStateDigest, stateDigestGetter, LazyDigest, OverlayView, ownCanonicalReads, ownReads, readsDigest, RecordingView, ReplayView, sortReads, type Read } from "../../src/guard/reads.js";
import type { StateView } from "../../src/core/types.js";
import { canonicalJson } from "../../src/projection/canonical.js";
import { sha256Hex } from "../../src/util/sha256.js";

/** A state with two reservations; `seat` is never set. */
const state: StateView = {
  hasEntity: (entity, id) => entity === "reservation" && (id === "R1" || id === "R2"),
  slot: (entity, id, slot) => (entity === "reservation" && slot === "status" ? (id === "R1" ? "confirmed" : "cancelled") : undefined),
};

describe("RecordingView", () => {
  it("answers from the state and records each read: existence, a slot with its value, a slot without one", () => {
    const v = new RecordingView(state);
    expect(v.hasEntity("reservation", "R1")).toBe(true);
    expect(v.hasEntity("reservation", "R9")).toBe(false);
    expect(v.slot("reservation", "R1", "status")).toBe("confirmed");
    expect(v.slot("reservation", "R1", "seat")).toBeUndefined();
    expect(v.reads()).toEqual([
      ["reservation", "R1", null, true],
      ["reservation", "R1", "seat"],
      ["reservation", "R1", "status", "confirmed"],
      ["reservation", "R9", null, false],
    ]);
    expect(v.reads()[1]).toHaveLength(3);
  });

  it("a state that answers existence with something other than true records false", () => {
    const v = new RecordingView({ hasEntity: () => 1 as unknown as boolean, slot: () => undefined });
    expect(v.hasEntity("a", "b")).toBe(false);
    expect(v.reads()).toEqual([["a", "b", null, false]]);
  });

  it("sorts by entity, id, existence before slots, slot name; keeps the first of repeated reads", () => {
    let n = 0;
    const changing: StateView = { hasEntity: () => true, slot: () => ++n };
    const v = new RecordingView(changing);
    v.slot("user", "u", "b");
    v.slot("order", "o", "a");
    v.slot("user", "u", "b");
    v.hasEntity("user", "u");
    v.slot("order", "a", "z");
    expect(v.reads()).toEqual([
      ["order", "a", "z", 4],
      ["order", "o", "a", 2],
      ["user", "u", null, true],
      ["user", "u", "b", 1],
    ]);
  });

  it("a long read list (past the small-list sort) is ordered and deduplicated the same way", () => {
    const v = new RecordingView(state);
    const small = new RecordingView(state);
    for (let i = 29; i >= 0; i--) v.slot("reservation", `R${i % 15}`, "status");
    for (let i = 14; i >= 0; i--) small.slot("reservation", `R${i}`, "status");
    expect(v.reads()).toHaveLength(15);
    expect(v.reads()).toEqual(small.reads());
    expect(v.reads().map((r) => r[1])).toEqual([...Array.from({ length: 15 }, (_, i) => `R${i}`)].sort());
  });

  it("reads of the same id and slot of two entity types are two reads", () => {
    const v = new RecordingView(state);
    v.slot("order", "X", "status");
    v.slot("user", "X", "status");
    expect(v.reads().map((r) => r[0])).toEqual(["order", "user"]);
  });

  it("of repeated existence reads the first is kept, in a long list too", () => {
    let n = 0;
    const flipping: StateView = { hasEntity: () => n++ % 2 === 0, slot: () => 1 };
    for (const count of [4, 40]) {
      const v = new RecordingView(flipping);
      n = 0;
      for (let i = 0; i < count; i++) v.hasEntity("user", "u");
      expect(v.reads()).toEqual([["user", "u", null, true]]);
    }
  });

  it("sortReads orders in place the same way", () => {
    const reads: Read[] = [["b", "1", "s", 1], ["a", "2", null, true], ["a", "1", "t", 2], ["a", "1", null, false], ["a", "1", "s", 3]];
    expect(sortReads(reads)).toBe(reads);
    expect(reads.map((r) => `${r[0]}${r[1]}${r[2] ?? "?"}`)).toEqual(["a1?", "a1s", "a1t", "a2?", "b1s"]);
  });
});

describe("the state digest", () => {
  const reads: Read[] = [["reservation", "R1", null, true], ["reservation", "R1", "status", "confirmed"]];

  it("is the SHA-256 of the reads' canonical JSON, with an injected hash when given", () => {
    expect(readsDigest(reads)).toBe(sha256Hex(canonicalJson(reads)));
    const hash = (text: Uint8Array | string) => new TextEncoder().encode(String(text).slice(0, 2));
    expect(readsDigest(reads, hash)).toBe("5b5b");
  });

  it("LazyDigest computes once", () => {
    let calls = 0;
    const counting = (text: Uint8Array | string) => {
      calls++;
      return new TextEncoder().encode(String(text).slice(0, 1));
    };
    const d = new LazyDigest(reads, counting);
    expect(d.get()).toBe("5b");
    expect(d.get()).toBe("5b");
    expect(calls).toBe(1);
  });

  it("defineStateDigest gives a (then frozen) record a plain, enumerable, read-only stateDigest and nothing else", () => {
    const record: Record<string, unknown> = { route: "Approved", reads };
    defineStateDigest(record as { reads: Read[] }, stateDigestGetter(undefined));
    Object.freeze(record);
    expect(JSON.parse(JSON.stringify(record))).toEqual({ route: "Approved", reads, stateDigest: readsDigest(reads) });
    expect({ ...record }).toEqual({ route: "Approved", reads, stateDigest: readsDigest(reads) });
    expect(structuredClone(record)).toEqual({ route: "Approved", reads, stateDigest: readsDigest(reads) });
    expect(Object.keys(record)).toEqual(["route", "reads", "stateDigest"]);
    expect(Object.getOwnPropertyDescriptor(record, "stateDigest")).toMatchObject({ enumerable: true, configurable: false });
    expect(() => {
      record.stateDigest = "x";
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(record, "stateDigest", { value: "x" })).toThrow(TypeError);
    expect(record.stateDigest).toBe(readsDigest(reads));
  });

  it("stateDigestGetter: each record's digest is of its own reads, with the guard's SHA-256, taken once per reads", () => {
    const short = (text: string | Uint8Array) => new Uint8Array([text.length & 255]);
    const wantA = readsDigest(reads, short);
    const wantB = readsDigest([], short);
    expect(wantA).not.toBe(wantB);
    let calls = 0;
    const counting = (text: string | Uint8Array) => {
      calls++;
      return short(text);
    };
    const get = stateDigestGetter(counting);
    const a: Record<string, unknown> = { reads };
    const b: Record<string, unknown> = { reads: [] };
    defineStateDigest(a as { reads: Read[] }, get);
    defineStateDigest(b as { reads: Read[] }, get);
    expect(calls).toBe(0);
    expect([a.stateDigest, a.stateDigest, b.stateDigest, b.stateDigest]).toEqual([wantA, wantA, wantB, wantB]);
    expect(calls).toBe(2); // each record's reads digested once
    const plain: Record<string, unknown> = { reads };
    defineStateDigest(plain as { reads: Read[] }, stateDigestGetter(undefined));
    expect(plain.stateDigest).toBe(sha256Hex(canonicalJson(reads)));
  });

  it("ownReads: the tuples frozen, each value replaced by a frozen copy; the caller's value is never frozen or changed", () => {
    const value = { city: "Austin", tags: ["a"] };
    const reads: Read[] = [["user", "u", "address", value], ["user", "u", null, true], ["user", "u", "name", "Ann"], ["user", "u", "gone"]];
    const own = ownReads(reads);
    expect(own).toBe(reads);
    expect(Object.isFrozen(own)).toBe(true);
    for (const r of own) expect(Object.isFrozen(r)).toBe(true);
    expect(own[0][3]).not.toBe(value);
    expect(own[0][3]).toEqual(value);
    expect(Object.isFrozen(own[0][3])).toBe(true);
    expect(Object.isFrozen((own[0][3] as { tags: unknown }).tags)).toBe(true);
    expect(Object.isFrozen(value)).toBe(false);
    expect(Object.isFrozen(value.tags)).toBe(false);
    expect(own[3]).toHaveLength(3);
    value.city = "Reno";
    expect(own[0][3]).toEqual({ city: "Austin", tags: ["a"] });
    // A host's shallow freeze: the copy is frozen all the way down, the host's inside is left alone.
    const shallow = Object.freeze({ inner: { n: 1 } });
    const copied = ownReads([["user", "u", "x", shallow]]);
    expect(Object.isFrozen(shallow.inner)).toBe(false);
    expect(Object.isFrozen((copied[0][3] as { inner: object }).inner)).toBe(true);
  });

  it("ownReads keeps a frozen read (Layer B's shared tuple, its value Layer B's own) as it is, beside reads it copies", () => {
    const shared = Object.freeze(["user", "u", "tier", Object.freeze({ level: 2 })]) as unknown as Read;
    const sharedExists = Object.freeze(["user", "u", null, true]) as unknown as Read;
    const fresh: Read = ["user", "v", "tier", { level: 3 }];
    const own = ownReads([sharedExists, shared, fresh]);
    expect(own[0]).toBe(sharedExists);
    expect(own[1]).toBe(shared);
    expect(own[1][3]).toBe(shared[3]);
    expect(own[2]).toEqual(["user", "v", "tier", { level: 3 }]);
    expect(Object.isFrozen(own[2][3])).toBe(true);
  });
});

describe("ownCanonicalReads", () => {
  it("freezes canonical reads' tuples and list; the values are left as they are (the recorder's copies)", () => {
    const value = { city: "Austin", tags: ["a", { n: 1 }] };
    const reads: Read[] = [["user", "u", "address", value], ["user", "u", null, true], ["user", "u", "gone"]];
    const own = ownCanonicalReads(reads, true);
    expect(own).toBe(reads);
    expect(Object.isFrozen(reads)).toBe(true);
    for (const r of reads) expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(value)).toBe(false);
    expect(Object.isFrozen(value.tags[1])).toBe(false);
    // A recorder that saw a value that is not canonical JSON says so: null, nothing frozen.
    const other: Read[] = [["user", "u", "address", value]];
    expect(ownCanonicalReads(other, false)).toBeNull();
    expect(Object.isFrozen(other[0])).toBe(false);
  });

  it("a RecordingView hands out and records a frozen copy of an object value that is not Layer B's own, never the state's object", () => {
    const address = { city: "Austin", tags: ["a", { n: 1 }] };
    const v = new RecordingView({ hasEntity: () => true, slot: () => address });
    const seen = v.slot("user", "u", "address") as typeof address;
    expect(seen).toEqual(address);
    expect(seen).not.toBe(address);
    expect(Object.isFrozen(seen.tags[1])).toBe(true);
    expect(Object.isFrozen(address)).toBe(false);
    expect(Object.isFrozen(address.tags[1])).toBe(false);
    expect(v.canonical).toBe(true);
    const own = ownCanonicalReads(v.reads(), v.canonical)!;
    expect(own[0][3]).toBe(seen);
    address.city = "Reno";
    expect(readsDigest(own)).toBe(readsDigest([["user", "u", "address", { city: "Austin", tags: ["a", { n: 1 }] }]]));
  });

  it("a RecordingView records a value that is not JSON as it is, untouched, and says the reads are not canonical", () => {
    const bad = { when: new Date(0) };
    const v = new RecordingView({ hasEntity: () => true, slot: () => bad });
    expect(v.slot("user", "u", "x")).toBe(bad);
    expect(v.canonical).toBe(false);
    expect(Object.isFrozen(bad)).toBe(false);
    expect(() => readsDigest(v.reads())).toThrow(/not JSON/);
  });

  it.each<[string, unknown]>([
    ["a Date", new Date(0)],
    ["NaN deep inside", { a: [1, NaN] }],
    ["a cycle", (() => { const c: Record<string, unknown> = {}; c.self = c; return c; })()],
    ["an array with a hole", [1, , 3]],
    ["a class instance inside", { m: new Map() }],
  ])("refuses %s and freezes nothing (canonicalJson then decides)", (_, v) => {
    const view = new RecordingView({ hasEntity: () => true, slot: (_e, _i, s) => (s === "ok" ? { fine: true } : v) });
    view.slot("user", "u", "ok");
    view.slot("user", "u", "x");
    const reads = view.reads();
    expect(ownCanonicalReads(reads, view.canonical)).toBeNull();
    expect(Object.isFrozen(reads)).toBe(false);
    expect(reads.some((r) => Object.isFrozen(r))).toBe(false);
    expect(Object.isFrozen(v)).toBe(false);
    expect(() => readsDigest(reads)).toThrow();
  });
});

describe("ReplayView", () => {
  const reads: Read[] = [["reservation", "R1", null, true], ["reservation", "R2", null, false], ["reservation", "R1", "status", "confirmed"], ["reservation", "R1", "seat"]];

  it("answers the recorded reads, a slot recorded without value as undefined", () => {
    const v = new ReplayView(reads);
    expect(v.hasEntity("reservation", "R1")).toBe(true);
    expect(v.hasEntity("reservation", "R2")).toBe(false);
    expect(v.slot("reservation", "R1", "status")).toBe("confirmed");
    expect(v.slot("reservation", "R1", "seat")).toBeUndefined();
    expect(v.unrecorded).toEqual([]);
  });

  it("notes every read the record does not hold, and answers it as absent", () => {
    const v = new ReplayView(reads);
    expect(v.hasEntity("reservation", "R3")).toBe(false);
    expect(v.slot("reservation", "R2", "status")).toBeUndefined();
    expect(v.slot("reservation", "R1", "status ")).toBeUndefined();
    expect(v.unrecorded).toEqual(["exists reservation R3", "reservation R2 status", "reservation R1 status "]);
  });

  it("keeps an existence read apart from a slot read of the same name", () => {
    const v = new ReplayView([["a", "b", null, true]]);
    expect(v.slot("a", "b", "")).toBeUndefined();
    expect(v.unrecorded).toEqual(["a b "]);
  });
});

describe("OverlayView", () => {
  it("asserted slots win, their entities exist; everything else is the state's", () => {
    const v = new OverlayView(state, [{ entity: "reservation", id: "R9", slot: "status", value: "confirmed" }, { entity: "reservation", id: "R1", slot: "status", value: "cancelled" }]);
    expect(v.hasEntity("reservation", "R9")).toBe(true);
    expect(v.hasEntity("reservation", "R2")).toBe(true);
    expect(v.hasEntity("reservation", "R7")).toBe(false);
    expect(v.slot("reservation", "R1", "status")).toBe("cancelled");
    expect(v.slot("reservation", "R2", "status")).toBe("cancelled");
    expect(v.slot("reservation", "R9", "seat")).toBeUndefined();
  });

  it("an assertion of an undefined value still overrides the state", () => {
    const v = new OverlayView(state, [{ entity: "reservation", id: "R1", slot: "status", value: undefined }]);
    expect(v.slot("reservation", "R1", "status")).toBeUndefined();
  });
});
