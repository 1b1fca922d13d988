// A verdict record's `bytes` made when first read (src/guard/lazy.ts, issue 27 §1): to every reader
// it is the hex string it was — in its place among the fields, enumerable, in JSON, copies and deep
// equality — and it cannot be assigned.
import { describe, expect, it } from "vitest";
import { createVerifier } from "../../src/core/verifier.js";
import { verdictRecord } from "../../src/guard/evaluate.js";
import { defineLazyBefore, defineLazyHex, defineLazyHexToFreeze } from "../../src/guard/lazy.js";
import { createGuard } from "../../src/guard/index.js";
import { toHex } from "../../src/util/sha256.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const flights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };

describe("lazy verdict bytes", () => {
  it("a verdict record's bytes are the hex of the verifier's bytes, in their place, in JSON and copies", () => {
    const v = createVerifier(airline.tables, referenceFactory(airline.tables, airline.blob), { now: NOW }).verdict([flights], airlineState());
    const hex = toHex(v.bytes);
    const r = verdictRecord(v);
    expect(Object.keys(r)).toEqual(["reason", "complete", "phi", "loss", "steps", "bottleneck", "nodes", "bytes"]);
    expect(r.bytes).toBe(hex);
    expect(r.bytes).toBe(hex);
    expect(JSON.parse(JSON.stringify(r)).bytes).toBe(hex);
    expect({ ...r }.bytes).toBe(hex);
    expect(structuredClone(r).bytes).toBe(hex);
    expect(r).toEqual({ ...r });
  });

  it("in a decision: frozen, not assignable, the same in the log line", () => {
    const lines: string[] = [];
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW, log: { append: (d) => lines.push(JSON.stringify(d)) } } });
    const d = g.check(flights);
    expect(Object.isFrozen(d.verdict)).toBe(true);
    expect(() => {
      (d.verdict as { bytes: string }).bytes = "00";
    }).toThrow(TypeError);
    expect(d.verdict!.bytes).toMatch(/^[0-9a-f]+$/);
    expect(JSON.parse(lines[0]).verdict.bytes).toBe(d.verdict!.bytes);
  });

  it("each record keeps its own bytes", () => {
    const a = {};
    const b = {};
    defineLazyHex(a, new Uint8Array([1, 2]));
    defineLazyHex(b, new Uint8Array([255]));
    expect((b as { bytes: string }).bytes).toBe("ff");
    expect((a as { bytes: string }).bytes).toBe("0102");
    expect(Object.getOwnPropertyDescriptor(a, "bytes")).toMatchObject({ enumerable: true, configurable: false });
  });
});

describe("lazy before of an observed call", () => {
  const cabin = (c: string) => ({ name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: c } });
  const result = (c: string) => JSON.stringify({ status: "confirmed", flights: [{ flight_number: "HAT001", date: "2024-05-20" }], cabin: c, first_departure: "2024-05-20T08:00:00", user_id: "mia" });

  it("is the entity as it was before the call ran, however much later it is read", () => {
    const state = airlineState();
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", config: { now: NOW, projection: airlineRules } });
    g.observe(cabin("business"), result("business"));
    g.observe(cabin("first"), result("first"));
    expect(state.slot("reservation", "R1", "cabin")).toBe("first");
    const [a, b] = g.sequence();
    expect(Object.keys(a)).toEqual(["name", "arguments", "result", "before"]);
    expect(a.before).toMatchObject({ cabin: "economy" });
    expect(b.before).toMatchObject({ cabin: "business" });
    const snap = g.snapshot();
    expect(snap.sequence.map((e) => (e.call.before as { cabin: string }).cabin)).toEqual(["economy", "business"]);
    // The next check's forward sequence carries them, frozen, and its record serialises them.
    const d = g.check(cabin("economy"));
    expect(d.forward.map((e) => (e as { before: { cabin: string } }).before.cabin)).toEqual(["economy", "business"]);
    expect(Object.isFrozen(d.forward[0])).toBe(true);
    expect(Object.isFrozen((d.forward[0] as { before: object }).before)).toBe(true);
    expect(JSON.parse(JSON.stringify(d)).forward[1].before.cabin).toBe("business");
  });

  it("an approved execution observed by id keeps the before of its check", () => {
    const state = airlineState();
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", config: { now: NOW, projection: airlineRules, tau: 0.5 } });
    const d = g.check(cabin("business"));
    state.set("reservation", "R1", "status", "changed-after-check");
    g.observe(cabin("business"), result("business"), { execution: d.execution! });
    expect(g.sequence()[0].before).toMatchObject({ cabin: "economy", status: "confirmed" });
  });
});

describe("the fields themselves", () => {
  it("bytes given as the verifier's 32-bit words are their little-endian bytes", () => {
    const r = {};
    defineLazyHex(r, [0x04030201, -1]);
    expect((r as { bytes: string }).bytes).toBe("01020304ffffffff");
    const frozen = {};
    defineLazyHexToFreeze(frozen, [0x0a0b0c0d]);
    Object.freeze(frozen);
    expect((frozen as { bytes: string }).bytes).toBe("0d0c0b0a");
    expect((frozen as { bytes: string }).bytes).toBe("0d0c0b0a");
    expect(Object.getOwnPropertyDescriptor(frozen, "bytes")).toMatchObject({ enumerable: true, configurable: false });
  });

  it("before: made once, on first read, an own enumerable field that cannot be redefined or assigned", () => {
    let made = 0;
    const entry: { name: string; before?: object } = { name: "x" };
    defineLazyBefore(entry, () => {
      made++;
      return Object.freeze({ cabin: "economy" });
    });
    expect(made).toBe(0);
    expect(Object.keys(entry)).toEqual(["name", "before"]);
    const first = entry.before;
    expect(entry.before).toBe(first);
    expect(JSON.parse(JSON.stringify(entry))).toEqual({ name: "x", before: { cabin: "economy" } });
    expect(made).toBe(1);
    expect(Object.getOwnPropertyDescriptor(entry, "before")).toMatchObject({ enumerable: true, configurable: false });
    expect(() => Object.defineProperty(entry, "before", { value: {} })).toThrow(TypeError);
  });
});
