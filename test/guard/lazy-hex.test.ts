// A verdict record's `bytes` made when first read (src/guard/lazy-hex.ts, issue 27 §1): to every reader
// it is the hex string it was — in its place among the fields, enumerable, in JSON, copies and deep
// equality — and it cannot be assigned.
import { describe, expect, it } from "vitest";
import { createVerifier } from "../../src/core/verifier.js";
import { verdictRecord } from "../../src/guard/evaluate.js";
import { defineLazyHex } from "../../src/guard/lazy-hex.js";
import { createGuard } from "../../src/guard/index.js";
import { toHex } from "../../src/util/sha256.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

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
