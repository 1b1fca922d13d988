// Per-call verdict latency on the airline ontology with the full τ²-bench state, for one engine:
//   core      — record write + one search (the input records captured from the verifier, replayed);
//   verifier  — createVerifier(...).verdict(forward, state): resolve, write, search, decode;
//   guard     — guard.check(call) in session scope: JSON-safe copies, grounding, search, policy,
//               reads digest, decision object, audit sink.
//   decision  — the guard's decision function alone (src/guard/evaluate.ts, as guard.check calls it,
//               with the same resolved options, Layer B and forward sequence): grounding, the search
//               through the recording view, the reads' ownership, the policy and its text; none of
//               the host work around it (the call's copy, the context, the record and its freezes,
//               the lifecycle). guard.check minus this is what the host adds (issue 27 §1).
// Sequences: the candidate follows n-1 executed mutating calls ("mixed" history includes baggage edits
// with two admissible edges each; "single-edge" has one per call).
import { blobDigestHex } from "../../src/blob/index.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { createVerifier } from "../../src/core/verifier.js";
import { frozenJsonSafe } from "../../src/guard/call.js";
import { tauFixed } from "../../src/guard/config.js";
import { Engine } from "../../src/guard/engine.js";
import { evaluate, NO_MODEL } from "../../src/guard/evaluate.js";
import { resolveOptions } from "../../src/guard/options.js";
import { AIRLINE_NOW, lengthsFor, loadAirline, sequence, type HistoryKind } from "../lib/airline.js";
import { params, progress, report, fail } from "../lib/child.js";
import { backendOf, countingSink, guardOf, guardOptions, type BackendKind } from "../lib/engines.js";
import { captureRecords, replay } from "../lib/records.js";
import { consume, measure, type Figure } from "../lib/stats.js";

interface Params {
  engine: "core" | "verifier" | "guard" | "decision";
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
      } else if (p.engine === "decision") {
        // The same setup as the guard's below; the forward sequence is the guard's own (its observed
        // entries), the candidates copied as guard.check copies them, once, outside the measurement.
        const setup = { kind: p.backend, tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state: f.state.clone(), rules: f.rules, now: AIRLINE_NOW, log: countingSink() };
        const g = guardOf(setup);
        for (const c of seqs[0].slice(0, n - 1)) g.observe({ name: c.name, arguments: c.arguments }, JSON.stringify(c.result));
        const forward = g.sequence();
        if (forward.length !== n - 1) throw new Error(`the guard recorded ${forward.length} calls, expected ${n - 1}`);
        const o = resolveOptions(guardOptions(setup));
        const verifier = new Engine(o.tables, o.blob, o.backend).verifier;
        const tau = tauFixed(o.config);
        const candidates = seqs.map((s) => frozenJsonSafe({ name: s[s.length - 1].name, arguments: s[s.length - 1].arguments }));
        const noMessages: string[] = [];
        fig = measure((i) => {
          const ev = evaluate({
            tables: o.tables, verifier, config: o.config, policy: o.policy, detector: o.detector, call: candidates[i & (SEQUENCES - 1)], forward,
            state: o.state, userMessages: noMessages, consentContext: null, model: NO_MODEL, tau, sha256: o.sha256, unknown: null,
          });
          consume(ev.reads.length ^ (ev.approved ? 1 : 0));
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
      if (p.engine !== "guard" && p.engine !== "decision") outcomes[`${kind}/${n}`] = reasonCounts(f, p.backend, kind, n);
    }
  }
  report({ variant: `${p.engine}-${p.backend}`, engine: p.engine, backend: p.backend, dbSource: f.dbSource, sequences: SEQUENCES, skipped, figures, outcomes });
}

try {
  main();
} catch (e) {
  fail(e);
}
