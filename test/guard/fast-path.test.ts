// The guard's fast path keeps every decision as it was: the reads digest is taken on first read, the
// session's executed calls are copied once (frozen) at observe, and a native SHA-256 can be injected.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { blobDigestHex, decodeBlob, type Sha256 } from "../../src/blob/index.js";
import { createJsonlSink, decisionLine, verifyAuditLog } from "../../src/audit/index.js";
import { createGuard, readsDigest, type Decision } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory, wasmFactory } from "./helpers.js";

const nodeSha256: Sha256 = (data) => createHash("sha256").update(data).digest();

const updateFlights = { name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [{ flight_number: "HAT099", date: "2024-05-21" }] } };
const cabin = { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } };
const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };

function session(sha256?: Sha256, log?: { append(d: Decision): void }) {
  const state = airlineState();
  const g = createGuard({ ontology: airline.blob, backend: wasmFactory, state, scope: "session", config: { now: NOW, projection: airlineRules, sha256, log } });
  return { g, state };
}

/** One short session: check, observe, check again (the second check's forward holds the first call). */
function run(sha256?: Sha256): string[] {
  const lines: string[] = [];
  const { g, state } = session(sha256, createJsonlSink((l) => lines.push(l)));
  g.check(updateFlights);
  g.observe(updateFlights, JSON.stringify({ ...state.entity("reservation", "R1"), flights: updateFlights.arguments.flights }));
  g.check(cabin);
  g.check(cancel);
  return lines;
}

describe("guard fast path", () => {
  it("serialises stateDigest in its place and equal to the digest of the reads", () => {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW } });
    const d = g.check(updateFlights);
    const keys = Object.keys(d);
    expect(keys.indexOf("stateDigest")).toBe(keys.indexOf("reads") + 1);
    expect(keys.slice(-5)).toEqual(["ontologyHash", "config", "configHash", "engineVersion", "scope"]);
    const plain = JSON.parse(JSON.stringify(d)) as Record<string, unknown>;
    expect(plain.stateDigest).toBe(readsDigest(d.reads));
    expect(plain.stateDigest).toMatch(/^[0-9a-f]{64}$/u);
    expect(JSON.parse(decisionLine(d)).stateDigest).toBe(plain.stateDigest);
    expect({ ...d }.stateDigest).toBe(plain.stateDigest);
    expect(structuredClone(d).stateDigest).toBe(plain.stateDigest);
  });

  it("a decision is frozen: stateDigest and every other field refuse an assignment", () => {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW } });
    const d = g.check(updateFlights);
    expect(() => {
      (d as { stateDigest: string }).stateDigest = "edited";
    }).toThrow(TypeError);
    expect(() => {
      (d as { route: string }).route = "Vetoed";
    }).toThrow(TypeError);
    expect(d.stateDigest).toBe(readsDigest(d.reads));
  });

  it("fails closed at check time, not at serialisation, on a Layer B value that is not JSON", () => {
    const state = airlineState();
    state.set("reservation", "R1", "status", new Date(0));
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, config: { now: NOW } });
    const d = g.check(updateFlights);
    expect(d.route).toBe("Vetoed");
    expect(d.reason).toBe("internal_error");
    expect(d.detail).toMatch(/^layer b value is not json: not-json: value at `\$\[\d+\]\[3\]` is not JSON: object of class Date$/u);
    expect(d.reads).toEqual([]);
    expect(d.stateDigest).toBe(readsDigest([]));
  });

  it("a native SHA-256 gives the same records, and the log verifies with either", () => {
    const js = run();
    const native = run(nodeSha256);
    expect(native).toEqual(js);
    expect(js.length).toBe(3);
    expect(verifyAuditLog(js.join(""), { ontologies: [airline.blob], sha256: nodeSha256 }).ok).toBe(true);
    expect(verifyAuditLog(native.join(""), { ontologies: [airline.blob] }).ok).toBe(true);
  });

  it("session records share the executed calls, frozen, so no holder can change a later decision", () => {
    const { g, state } = session();
    g.check(updateFlights);
    g.observe(updateFlights, JSON.stringify({ ...state.entity("reservation", "R1"), flights: updateFlights.arguments.flights }));
    const a = g.check(cancel);
    const b = g.check(cancel);
    expect(a.forward).toHaveLength(1);
    expect(a.forward).not.toBe(b.forward);
    expect(a.forward[0]).toBe(b.forward[0]);
    const entry = a.forward[0] as { arguments: { flights: unknown[] }; before: Record<string, unknown> };
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry.arguments.flights[0])).toBe(true);
    expect(() => {
      entry.arguments.flights.push({ flight_number: "X", date: "2024-01-01" });
    }).toThrow(TypeError);
    expect(decisionLine(g.check(cancel))).toBe(decisionLine({ ...b, seq: b.seq + 1 }));
    // The sequence() copies are the recorded calls.
    expect(g.sequence()).toEqual([entry]);
  });

  it("the before snapshot holds Layer B's values as they were when the call was checked", () => {
    const state = new LayerB();
    for (const [k, v] of Object.entries(airlineState().entity("reservation", "R1") ?? {})) state.set("reservation", "R1", k, v);
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state, scope: "session", config: { now: NOW } });
    const flightsBefore = state.slot("reservation", "R1", "flights");
    expect(g.check(updateFlights).approved).toBe(true);
    // The state changes between check and observe (another writer): the snapshot is from the check.
    state.set("reservation", "R1", "flights", [{ flight_number: "ZZZ", date: "2024-06-01" }]);
    g.observe(updateFlights, "{}");
    expect(g.sequence()[0].before?.flights).toEqual(flightsBefore);
  });
});

describe("blob digest with an injected SHA-256", () => {
  it("decodes with the native hash and refuses a damaged blob or a hash of the wrong size", () => {
    expect(decodeBlob(airline.blob, { sha256: nodeSha256 })).toEqual(decodeBlob(airline.blob));
    expect(blobDigestHex(airline.blob, nodeSha256)).toBe(blobDigestHex(airline.blob));
    const damaged = airline.blob.slice();
    damaged[damaged.length - 1] ^= 1;
    expect(() => decodeBlob(damaged, { sha256: nodeSha256 })).toThrow(expect.objectContaining({ code: "digest-mismatch" }));
    expect(() => decodeBlob(airline.blob, { sha256: () => new Uint8Array(16) })).toThrow(expect.objectContaining({ code: "digest-mismatch" }));
  });

  it("a guard built from the blob with config.sha256 has the same ontology hash", () => {
    const a = createGuard({ ontology: airline.blob, state: airlineState(), config: { now: NOW, sha256: nodeSha256 } });
    const b = createGuard({ ontology: airline.blob, state: airlineState(), config: { now: NOW } });
    expect(a.ontologyHash).toBe(b.ontologyHash);
    expect(a.configHash).toBe(b.configHash);
    expect(() => createGuard({ ontology: airline.blob, state: airlineState(), config: { sha256: "sha256" as unknown as Sha256 } })).toThrow(/`config.sha256` is not a function/u);
  });
});
