// projectDocument refuses a document whose collections exist with the wrong type: an empty Layer B
// from `{"reservations": 5}` would make every later call `missing_entity`-free nonsense, silently.
import { describe, expect, it } from "vitest";
import { projectDocument } from "../../src/projection/project.js";
import { ProjectionError } from "../../src/projection/errors.js";
import { readFileSync } from "node:fs";
import { parseProjectionRules } from "../../src/projection/rules.js";

const airlineRules = parseProjectionRules(JSON.parse(readFileSync(new URL("../../ontologies/airline/projection.json", import.meta.url), "utf8")));

function refusal(doc: unknown): ProjectionError {
  try {
    projectDocument(airlineRules, doc);
  } catch (e) {
    if (e instanceof ProjectionError) return e;
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(doc)}`);
}

describe("projectDocument shape checks", () => {
  it("refuses a collection path that exists with the wrong type, saying what was expected", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ reservations: 5 }, /^`reservations` in the document is number `5`, expected a collection of reservation records \(an object or an array\)$/u],
      [{ reservations: "R1" }, /^`reservations` in the document is a string, expected a collection/u],
      [{ reservations: null }, /^`reservations` in the document is `null`, expected a collection/u],
      [{ users: true }, /^`users` in the document is boolean `true`/u],
      [{ flights: { HAT001: { flight_number: "HAT001", origin: "SFO", destination: "JFK", dates: "2024-05-01" } } }, /^`flights.HAT001.dates` in the document is a string, expected a collection of flight_date records/u],
      [5, /^`\(document\)` in the document is number `5`, expected an object$/u],
      [[], /^`\(document\)` in the document is an array, expected an object$/u],
      [null, /^`\(document\)` in the document is `null`/u],
    ];
    for (const [doc, message] of cases) {
      const e = refusal(doc);
      expect(e.code, JSON.stringify(doc)).toBe("bad-document");
      expect(e.message, JSON.stringify(doc)).toMatch(message);
    }
  });

  it("an absent collection is empty, and a well-shaped document projects", () => {
    expect(projectDocument(airlineRules, {}).size()).toBe(0);
    const b = projectDocument(airlineRules, { reservations: { R1: { reservation_id: "R1", user_id: "mia", status: "confirmed", flights: [], passengers: [], payment_history: [] } }, users: {}, flights: {} });
    expect(b.hasEntity("reservation", "R1")).toBe(true);
  });
});
