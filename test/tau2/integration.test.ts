// The adapter and the replay on every results file of the τ²-bench data (POLAR_TAU2_DIR, default
// ../shared/tau2; skipped by name where it is absent, and CI requires it: see ./data-dir.ts).
import { describe, expect, it } from "vitest";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { parseProjectionRules, projectDocument, type ProjectionRules } from "../../src/projection/index.js";
import { advisoryGuardFactory, callsWithResults, projectAll, replayAll, type Trajectory } from "../../src/tau2/index.js";
import { readTau2Data } from "../../src/tau2/data.js";
import { loadDomainOntology } from "../../src/cli/commands/demo.js";
import { instantiateCoreSync } from "../../src/core/wasm.js";
import type { BackendFactory } from "../../src/guard/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { HAS_TAU2, REPO_ROOT, TAU2_DIR, describeTau2 } from "./data-dir.js";

// Read only where the data exists; every suite below is describeTau2 (skipped, by name, elsewhere).
const data = HAS_TAU2 ? readTau2Data(TAU2_DIR) : (null as never);
const files = HAS_TAU2 ? data.resultsFiles() : [];
const byFile = new Map<string, Trajectory[]>(files.map((f) => [f, data.readResultsFile(f)]));

function backend(): BackendFactory {
  const wasm = join(REPO_ROOT, "build", "polar-core.wasm");
  if (!existsSync(wasm)) return (t) => createReferenceBackend(t);
  const module = new WebAssembly.Module(readFileSync(wasm));
  return (t, blob) => (blob ? instantiateCoreSync(module).load(blob) : createReferenceBackend(t));
}

describeTau2("τ²-bench results files", () => {
  it("finds every results file and reads each into trajectories", () => {
    expect(files.length).toBeGreaterThanOrEqual(11);
    let sims = 0;
    for (const [f, trajs] of byFile) {
      const raw = JSON.parse(readFileSync(f, "utf8")) as { simulations: unknown[] };
      expect(trajs.length, f).toBe(raw.simulations.length);
      sims += trajs.length;
      for (const t of trajs) {
        expect(["airline", "retail", "telecom"], f).toContain(t.domain);
        expect(t.model, f).toBeTruthy();
        expect(t.task?.id, `${f} task ${t.taskId}`).toBe(t.taskId);
        expect(typeof t.reward, f).toBe("number");
        const calls = callsWithResults(t);
        // Every call but possibly the very last one (a run can stop after it) has its result.
        expect(calls.slice(0, -1).every((c) => c.result !== null), `${f} task ${t.taskId}`).toBe(true);
        const results = t.messages.filter((m) => m.role === "tool").length;
        expect(results, `${f} task ${t.taskId}`).toBe(calls.filter((c) => c.result !== null).length);
      }
    }
    expect(sims).toBe(351);
  });

  // 31 ms of CPU before issue 21 item 2 and issue 22 (2026-12-06, idle machine); 140 ms after (Layer B
  // keeps copies of the caller's values, and the airline rules derive balances, re-fares and free ids
  // and projected every reservation twice); issue 27: ≈ 85-90 ms idle (the second pass derives only
  // new_ids_free, `exists` of an entity copies no record, a merge keeps a slot holding the same JSON).
  // CPU time still stretches under heavy contention of the 2 shared cores: at a load of 19, 154-224 ms
  // here and 287-292 ms for the code before issue 27. A bound on a blow-up, not a speed figure (bench/
  // has those: the layerb variant's projectCpu).
  it("projects the full airline db well under 250 ms of CPU after JSON.parse", () => {
    const rules = parseProjectionRules(JSON.parse(readFileSync(join(REPO_ROOT, "ontologies/airline/projection.json"), "utf8")));
    const db = data.domain("airline").documents.db;
    // CPU time, not wall time: the machine is shared, and contention should not fail this test.
    let best = Infinity;
    let size = 0;
    for (let i = 0; i < 5; i++) {
      const c0 = process.cpuUsage();
      size = projectDocument(rules, db).size();
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / 1000);
    }
    expect(size).toBeGreaterThan(2000 + 500 + 300);
    expect(best).toBeLessThan(250);
  });
});

for (const domain of ["airline", "retail", "telecom"]) describeTau2(`advisory replay of every ${domain} run`, () => {
  it("decides every agent call in turn and session scope and never blocks", { timeout: 120_000 }, () => {
    const rules: ProjectionRules = parseProjectionRules(JSON.parse(readFileSync(join(REPO_ROOT, "ontologies", domain, "projection.json"), "utf8")));
    const { ontology } = loadDomainOntology(REPO_ROOT, domain);
    const guard = advisoryGuardFactory({ ontology, rules, backend: backend() });
    const dom = data.domain(domain);
    const base = projectAll(rules, dom.documents);
    let guarded = 0;
    let mutating = 0;
    const reasons = new Map<string, number>();
    for (const trajs of byFile.values()) {
      for (const t of trajs.filter((x) => x.domain === domain)) {
        const { records } = replayAll(t, { rules, documents: dom.documents, base, guard });
        expect(records.length).toBe(callsWithResults(t).length);
        for (const r of records) {
          if (r.call.requestor !== "assistant") {
            expect(r.decisions).toEqual({});
            continue;
          }
          guarded++;
          for (const s of ["turn", "session"] as const) {
            const d = r.decisions[s]!;
            expect(d.scope).toBe(s);
            expect(d.approved).toBe(true);
            expect(["Approved", "AdvisoryPassthrough"]).toContain(d.route);
            reasons.set(d.reason, (reasons.get(d.reason) ?? 0) + 1);
          }
          if (r.decisions.turn!.reason !== "read_only") mutating++;
        }
      }
    }
    expect(guarded).toBeGreaterThan(100);
    expect(mutating).toBeGreaterThan(10);
    // Advisory replays are for measuring: an internal error would be a bug, not a verdict.
    expect(reasons.get("internal_error") ?? 0).toBe(0);
    expect(reasons.get("malformed_call") ?? 0).toBe(0);
  });
});
