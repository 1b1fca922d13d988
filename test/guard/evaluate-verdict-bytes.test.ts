// A verdict record's `bytes` (src/guard/evaluate.ts verdictRecord, issue 27 §1): the hex of the
// verifier's canonical bytes, in its place among the fields, whether it is made when first read (the
// first time the process sees these bytes) or taken from the bytes it has seen before (a plain field).
import { describe, expect, it } from "vitest";
import { createVerifier } from "../../src/core/verifier.js";
import { verdictRecord } from "../../src/guard/evaluate.js";
import { toHex } from "../../src/util/sha256.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

const FIELDS = ["reason", "complete", "phi", "loss", "steps", "bottleneck", "nodes", "bytes"];

describe("verdict record bytes", () => {
  const verifier = createVerifier(airline.tables, referenceFactory(airline.tables, airline.blob), { now: NOW });
  const hexOf = (call: { name: string; arguments: Record<string, unknown> }) => toHex(verifier.verdict([call], airlineState()).bytes);
  const recordOf = (call: { name: string; arguments: Record<string, unknown> }) => verdictRecord(verifier.verdictWords!([call], airlineState()));

  it("the same verdict again and again: the same hex in the same place, the later ones as a plain field", () => {
    const call = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
    const hex = hexOf(call);
    const records = [0, 1, 2, 3].map(() => recordOf(call));
    for (const r of records) {
      expect(Object.keys(r)).toEqual(FIELDS);
      expect(r.bytes).toBe(hex);
      expect(JSON.stringify(r)).toBe(JSON.stringify(records[0]));
      expect({ ...r }.bytes).toBe(hex);
    }
    expect(Object.getOwnPropertyDescriptor(records[3], "bytes")).toMatchObject({ value: hex, enumerable: true });
  });

  it("verdicts of other calls, interleaved, each keep their own bytes", () => {
    const calls = [
      { name: "cancel_reservation", arguments: { reservation_id: "R1" } },
      { name: "update_reservation_baggages", arguments: { reservation_id: "R1", total_baggages: 2, nonfree_baggages: 1, payment_id: "credit_card_1" } },
      { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } },
    ];
    const hexes = calls.map(hexOf);
    expect(new Set(hexes).size).toBe(calls.length);
    for (let round = 0; round < 4; round++) {
      calls.forEach((c, i) => expect(recordOf(c).bytes).toBe(hexes[i]));
    }
  });

  it("many distinct verdicts (more than the memo keeps) and then the first again: every record right", () => {
    // Each record against the verifier's own bytes of the same call (how many of the 300 differ
    // depends on the ontology's amounts; the memo keeps 256 and is emptied when full).
    const call = (n: number) => ({ name: "update_reservation_baggages", arguments: { reservation_id: "R1", total_baggages: n, nonfree_baggages: n % 7, payment_id: "credit_card_1" } });
    const seen = new Map<number, string>();
    for (let round = 0; round < 2; round++) {
      for (let n = 0; n < 300; n++) {
        const hex = seen.get(n) ?? hexOf(call(n));
        seen.set(n, hex);
        expect(recordOf(call(n)).bytes).toBe(hex);
      }
    }
  });
});
