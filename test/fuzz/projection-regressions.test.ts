// Failures the projection fuzz target found (test/fuzz/targets/projection.ts), kept as fixed cases.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { applyToolResult, canonicalJson, parseProjectionRules, projectDocument } from "../../src/projection/index.js";

const airline = parseProjectionRules(JSON.parse(readFileSync(new URL("../../ontologies/airline/projection.json", import.meta.url), "utf8")));

const reservation = {
  reservation_id: "RES001", user_id: "ada_lee_1", origin: "JFK", destination: "SFO", flight_type: "one_way", cabin: "economy",
  flights: [{ origin: "JFK", destination: "SFO", flight_number: "HAT100", date: "2024-05-20", price: 180 }],
  passengers: [{ first_name: "Ada", last_name: "Lee", dob: "1990-01-01" }],
  payment_history: [{ payment_id: "credit_card_1", amount: 180 }],
  created_at: "2024-05-14T10:00:00", total_baggages: 0, nonfree_baggages: 0, insurance: "no",
};

describe("assoc with a missing value", () => {
  it("a flight without `flight_number` in a tool result leaves Layer B plain JSON", () => {
    const lb = projectDocument(airline, { flights: {}, users: {}, reservations: { RES001: reservation } });
    const damaged = { ...reservation, status: "cancelled", flights: [{ origin: "JFK", destination: "SFO", date: "2024-05-20", price: 180 }] };
    applyToolResult(airline, lb, { name: "cancel_reservation", arguments: { reservation_id: "RES001" } }, JSON.stringify(damaged));
    expect(() => canonicalJson(lb.toJSON())).not.toThrow();
    expect(lb.slot("reservation", "RES001", "flight_refs")).toEqual([{ date: "2024-05-20" }]);
  });

  it("the same record in a document", () => {
    const doc = { flights: {}, users: {}, reservations: { RES001: { ...reservation, flights: [{ date: "2024-05-20" }, { flight_number: "HAT100" }] } } };
    const lb = projectDocument(airline, doc);
    expect(() => canonicalJson(lb.toJSON())).not.toThrow();
    expect(lb.slot("reservation", "RES001", "flight_refs")).toEqual([{ date: "2024-05-20" }, { flight_number: "HAT100" }]);
  });
});

describe("TOML numbers without a JSON form", () => {
  it("refuses inf, -inf and nan with a typed bad-document error naming the value", async () => {
    const { parseTomlDocument, ProjectionError } = await import("../../src/projection/index.js");
    for (const [text, path] of [
      ["[[plans]]\nplan_id = \"P1\"\ndata_limit_gb = inf\n", "$.plans[0].data_limit_gb"],
      ["x = -inf\n", "$.x"],
      ["[a]\nb = [1, nan]\n", "$.a.b[1]"],
    ]) {
      let error: unknown;
      try {
        parseTomlDocument(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ProjectionError);
      expect((error as InstanceType<typeof ProjectionError>).code).toBe("bad-document");
      expect((error as Error).message).toBe(`toml value at \`${path}\` is not a finite number`);
    }
    expect(parseTomlDocument("x = 1.5\ny = 42\n")).toEqual({ x: 1.5, y: 42 });
  });
});

describe("tool results whose numbers overflow", () => {
  it("a result text with 1e999 stays text: Layer B never holds Infinity", async () => {
    const { parseToolResult } = await import("../../src/projection/index.js");
    expect(parseToolResult('{"amount": 1e999}')).toEqual({ value: '{"amount": 1e999}', text: '{"amount": 1e999}' });
    expect(parseToolResult("[1, [-1e400]]").value).toBe("[1, [-1e400]]");
    expect(parseToolResult('{"amount": 1e308}').value).toEqual({ amount: 1e308 });
    const lb = projectDocument(airline, { flights: {}, users: {}, reservations: { RES001: reservation } });
    const text = JSON.stringify({ ...reservation, status: "cancelled" }).replace('"one_way"', "1e3081");
    const report = applyToolResult(airline, lb, { name: "cancel_reservation", arguments: { reservation_id: "RES001" } }, text);
    expect(() => canonicalJson(lb.toJSON())).not.toThrow();
    expect(report.skipped.length).toBeGreaterThan(0);
  });
});

describe("tool results that are JavaScript values, not JSON", () => {
  it("dates become their JSON text, functions and undefined are dropped, unserialisable results count as none", async () => {
    const { parseToolResult } = await import("../../src/projection/index.js");
    expect(parseToolResult({ a: new Date(0), f: () => 1, u: undefined, n: [1, Infinity] }).value).toEqual({ a: "1970-01-01T00:00:00.000Z", n: [1, null] });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(parseToolResult(cyclic).value).toBeUndefined();
    expect(parseToolResult({ big: 10n }).value).toBeUndefined();
    expect(parseToolResult(NaN).value).toBeUndefined();
    const lb = projectDocument(airline, { flights: {}, users: {}, reservations: { RES001: reservation } });
    applyToolResult(airline, lb, { name: "cancel_reservation", arguments: { reservation_id: "RES001" } },
      { ...reservation, status: "cancelled", created_at: new Date(0), insurance: () => "yes" });
    expect(() => canonicalJson(lb.toJSON())).not.toThrow();
    expect(lb.slot("reservation", "RES001", "created_at")).toBe("1970-01-01T00:00:00.000Z");
    expect(lb.slot("reservation", "RES001", "insurance")).toBeUndefined();
  });
});
