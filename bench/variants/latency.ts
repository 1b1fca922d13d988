// Per-call verdict latency on the airline ontology with the full τ²-bench state, for one engine:
//   core      — record write + one search (the input records captured from the verifier, replayed);
//   verifier  — createVerifier(...).verdict(forward, state): resolve, write, search, decode;
//   guard     — guard.check(call) in session scope: JSON-safe copies, grounding, search, policy,
//               reads digest, decision object, audit sink.
// Sequences: the candidate follows n-1 executed mutating calls ("mixed" history includes baggage edits
// with two admissible edges each; "single-edge" has one per call).
import { blobDigestHex } from "../../src/blob/index.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { createVerifier } from "../../src/core/verifier.js";
import { AIRLINE_NOW, lengthsFor, loadAirline, sequence, type HistoryKind } from "../lib/airline.js";
import { params, progress, report, fail } from "../lib/child.js";
import { backendOf, countingSink, guardOf, type BackendKind } from "../lib/engines.js";
import { captureRecords, replay } from "../lib/records.js";
import { consume, measure, type Figure } from "../lib/stats.js";

interface Params {
  engine: "core" | "verifier" | "guard";
  backend: BackendKind;
  lengths: number[];
  histories: HistoryKind[];
}

const SEQUENCES = 64;

function reasonCounts(f: ReturnType<typeof loadAirline>, backend: BackendKind, kind: HistoryKind, n: number): Record<string, number> {
  const v = createVerifier(f.tables, backendOf(backend, f.tables, f.blob), { now: AIRLINE_NOW });
  const counts: Record<string, number> = {};
  for (let k = 0; k < SEQUENCES; k++) {
    const r = v.verdict(sequence(f, n, k, kind), f.state);
    counts[r.reason] = (counts[r.reason] ?? 0) + 1;
  }
  return counts;
}

function main(): void {
  const p = params<Params>();
  progress("loading the airline state");
  const f = loadAirline();
  const figures: Record<string, Record<string, Figure>> = {};
  /** Lengths the db cannot build, with the reason (never silently shorter sequences). */
  const skipped: string[] = [];
  const outcomes: Record<string, Record<string, number>> = {};
  for (const kind of p.histories) {
    figures[kind] = {};
    const usable = lengthsFor(f, p.lengths, kind);
    skipped.push(...usable.skipped);
    for (const n of usable.lengths) {
      progress(`${p.engine}/${p.backend} ${kind} n=${n}`);
      const seqs: ExecutedCall[][] = [];
      for (let k = 0; k < SEQUENCES; k++) seqs.push(sequence(f, n, k, kind));
      let fig: Figure;
      if (p.engine === "core") {
        const records = captureRecords(f.tables, seqs, f.state, { now: AIRLINE_NOW });
        const backend = backendOf(p.backend, f.tables, f.blob);
        fig = measure((i) => consume(replay(backend, records[i & (SEQUENCES - 1)])), p.timing);
      } else if (p.engine === "verifier") {
        const v = createVerifier(f.tables, backendOf(p.backend, f.tables, f.blob), { now: AIRLINE_NOW });
        fig = measure((i) => {
          const r = v.verdict(seqs[i & (SEQUENCES - 1)], f.state);
          consume(r.phi ^ r.nodes);
        }, p.timing);
      } else {
        // One guard per length: observe the n-1 history calls, then check the candidates.
        const state = f.state.clone();
        const g = guardOf({ kind: p.backend, tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state, rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
        for (const c of seqs[0].slice(0, n - 1)) g.observe({ name: c.name, arguments: c.arguments }, JSON.stringify(c.result));
        if (g.sequence().length !== n - 1) throw new Error(`the guard recorded ${g.sequence().length} calls, expected ${n - 1}`);
        const candidates = seqs.map((s) => s[s.length - 1]);
        fig = measure((i) => {
          const d = g.check(candidates[i & (SEQUENCES - 1)]);
          // The candidate does not run: release its execution, or it would join every later forward
          // sequence (docs/semantics.md, "In-flight calls"). Included in the time.
          if (d.execution !== null) g.release(d.execution);
          consume(d.seq ^ (d.approved ? 1 : 0));
        }, p.timing);
      }
      figures[kind][String(n)] = fig;
      if (p.engine !== "guard") outcomes[`${kind}/${n}`] = reasonCounts(f, p.backend, kind, n);
    }
  }
  report({ variant: `${p.engine}-${p.backend}`, engine: p.engine, backend: p.backend, dbSource: f.dbSource, sequences: SEQUENCES, skipped, figures, outcomes });
}

try {
  main();
} catch (e) {
  fail(e);
}
