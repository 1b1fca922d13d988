// The benchmark's workloads measure verdicts, not only refusals: every generated sequence family has
// admissible members. The airline histories (bench/lib/airline.ts, buildHistory) are calls that were
// admissible when they ran, so a sequence's verdict is its candidate's: if a history call were refused
// (as the flight edits were once the airline amounts landed: same-itinerary rewrites at fares that have
// all moved since booking), every sequence of two calls or more would be `bound_violated` and the
// sequence rows would time refusals only. Run on the vendored sample always, on τ²-bench's full db when
// present. The generated scaling workload (bench/lib/generate.ts) likewise has admissible calls.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { createVerifier } from "../../src/core/verifier.js";
import { AIRLINE_NOW, lengthsFor, loadAirline, sequence, type AirlineFixture, type HistoryKind } from "../../bench/lib/airline.js";
import { backendOf, countingSink, guardOf } from "../../bench/lib/engines.js";
import { generateCalls, generateOntology, generateState } from "../../bench/lib/generate.js";
import { SAMPLE_DIR } from "../../bench/lib/paths.js";
import { describeTau2, TAU2_DIR } from "../tau2/data-dir.js";

/** The lengths and histories the benchmark's full run measures (bench/run.ts). */
const LENGTHS = [1, 2, 4, 8, 16, 32, 64];
const KINDS: HistoryKind[] = ["mixed", "single-edge"];
const CANDIDATES = 64;

function statesSequences(f: AirlineFixture): void {
  const v = createVerifier(f.tables, backendOf("wasm", f.tables, f.blob), { now: AIRLINE_NOW });
  const reason = (calls: ExecutedCall[]) => v.verdict(calls, f.state).reason;

  it("builds a history of every edit kind, each call admissible alone and the history as a whole", () => {
    for (const kind of KINDS) {
      const history = kind === "mixed" ? f.history : f.singleEdgeHistory;
      const names = new Set(history.map((c) => c.name));
      expect([...names].sort()).toEqual(kind === "mixed"
        ? ["update_reservation_baggages", "update_reservation_flights", "update_reservation_passengers"]
        : ["update_reservation_flights", "update_reservation_passengers"]);
      for (const c of history) expect({ call: c.name, id: c.arguments.reservation_id, reason: reason([{ name: c.name, arguments: c.arguments }]) }).toMatchObject({ reason: "ok" });
      expect(reason(history)).toBe("ok");
    }
  });

  it("no sequence family is all refusals: every length's verdicts are its candidates' verdicts alone", () => {
    const alone = Array.from({ length: CANDIDATES }, (_, k) => reason(sequence(f, 1, k)));
    expect(alone.filter((r) => r === "ok").length).toBeGreaterThan(0);
    expect(alone.filter((r) => r !== "ok").length).toBeGreaterThan(0);
    for (const kind of KINDS) {
      const { lengths } = lengthsFor(f, LENGTHS, kind);
      expect(lengths.length).toBeGreaterThan(2);
      for (const n of lengths) {
        const got = Array.from({ length: CANDIDATES }, (_, k) => reason(sequence(f, n, k, kind)));
        expect({ kind, n, got }).toEqual({ kind, n, got: alone });
      }
    }
  });

  // On the full db the history's reservations are not the candidates' (it edits them, and the guard
  // projects its results); the vendored sample has too few reservations to keep them apart.
  const touched = new Set(f.history.concat(f.singleEdgeHistory).map((c) => c.arguments.reservation_id));
  const apart = f.calls.every((c) => !touched.has(c.arguments.reservation_id));
  it(`the guard, after observing the longest history, approves ${apart ? "the candidates it approves alone" : "some candidates"}`, () => {
    const approvals = (n: number, kind: HistoryKind): boolean[] => {
      const g = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: createHash("sha256").update(f.blob).digest("hex"), state: f.state.clone(), rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
      const seqs = Array.from({ length: CANDIDATES }, (_, k) => sequence(f, n, k, kind));
      for (const c of seqs[0].slice(0, n - 1)) g.observe({ name: c.name, arguments: c.arguments }, JSON.stringify(c.result));
      expect(g.sequence().length).toBe(n - 1);
      return seqs.map((s) => {
        const d = g.check(s[s.length - 1]);
        if (d.execution !== null) g.release(d.execution);
        return d.approved;
      });
    };
    const alone = approvals(1, "mixed");
    expect(alone.filter(Boolean).length).toBeGreaterThan(0);
    for (const kind of KINDS) {
      const { lengths } = lengthsFor(f, LENGTHS, kind);
      const n = lengths[lengths.length - 1];
      const approved = approvals(n, kind);
      if (apart) expect({ kind, n, approved }).toEqual({ kind, n, approved: alone });
      expect(approved.filter(Boolean).length).toBeGreaterThan(0);
    }
  });
}

describe("the benchmark's airline sequences on the vendored sample", () => {
  statesSequences(loadAirline({ path: join(SAMPLE_DIR, "domains", "airline", "db.json"), source: "sample" }));
});

describeTau2("the benchmark's airline sequences on τ²-bench's full airline db", () => {
  const f = loadAirline({ path: join(TAU2_DIR, "domains", "airline", "db.json"), source: "tau2" });
  it("builds every length the benchmark measures", () => {
    for (const kind of KINDS) expect(lengthsFor(f, LENGTHS, kind).lengths).toEqual(LENGTHS);
  });
  statesSequences(f);
});

describe("the generated scaling workload", () => {
  it("has admissible calls and refused ones over every tier", () => {
    const r = compile(generateOntology(100), { name: "generated-100.polar" });
    if (!r.ok) throw new Error(r.diagnostics[0]?.message);
    const state = generateState(8000);
    const v = createVerifier(r.tables, backendOf("wasm", r.tables, r.blob), { now: AIRLINE_NOW });
    const counts: Record<string, number> = {};
    for (const c of generateCalls(100, 1000, 1024)) {
      const reason = v.verdict([c], state).reason;
      counts[reason] = (counts[reason] ?? 0) + 1;
    }
    expect(counts.ok).toBeGreaterThan(256);
    expect(Object.keys(counts).length).toBeGreaterThan(1);
  });
});
