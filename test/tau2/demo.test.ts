import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { loadDomainOntology, loadDomainRules, packageRoot, runDemo, SAMPLE_DIR } from "../../src/cli/commands/demo.js";
import { advisoryGuardFactory, projectAll, replayAll } from "../../src/tau2/index.js";
import { readTau2Data } from "../../src/tau2/data.js";
import { REPO_ROOT, itTau2, tau2Dir } from "./data-dir.js";

function capture(options: Omit<Parameters<typeof runDemo>[0], "out">): string {
  const out: string[] = [];
  runDemo({ ...options, out: (s) => out.push(s) });
  return out.join("\n");
}

describe("polar demo", () => {
  it("finds the package root and its sample with τ²-bench's license", () => {
    expect(packageRoot()).toBe(REPO_ROOT);
    const license = readFileSync(join(REPO_ROOT, SAMPLE_DIR, "LICENSE"), "utf8");
    expect(license).toMatch(/MIT License/);
    expect(license).toBe(readFileSync(join(REPO_ROOT, "ontologies/airline/LICENSE.tau2-bench"), "utf8"));
    expect(readFileSync(join(REPO_ROOT, "test/fixtures/tau2/LICENSE"), "utf8")).toBe(license);
  });

  it("prints one row per call and both scopes for every mutating call of the sample", { timeout: 60_000 }, () => {
    const text = capture({ backend: "reference" });
    expect(text).toContain("built-in sample samples/tau2-airline");
    expect(text).toContain("τ²-bench airline · task 22 · trial 0 · reward 0 · 25 messages\n  agent gpt-4.1\n");
    expect(text).toContain("τ²-bench airline · task 35");
    expect(text).toMatch(/#\s+tool call\s+scope\s+route\s+reason\s+φ\n/);
    expect(text).toMatch(/\n\s+bottleneck {2}cancel_reservation \[airline\.cancel\.rebook\]\n\s+π {11}none\n/);
    const data = readTau2Data(join(REPO_ROOT, SAMPLE_DIR));
    for (const f of data.resultsFiles()) {
      for (const t of data.readResultsFile(f)) {
        for (const m of t.messages) if (m.role === "assistant") for (const c of m.toolCalls) expect(text).toContain(`${c.name}(`);
      }
    }
    const mutatingRows = text.split("\n").filter((l) => /\s(turn|session)\s+(Approved|AdvisoryPassthrough)\s/.test(l));
    expect(mutatingRows.length).toBeGreaterThanOrEqual(12);
    expect(mutatingRows.filter((l) => /\sturn\s/.test(l)).length).toBe(mutatingRows.filter((l) => /\ssession\s/.test(l)).length);
    expect(text).toMatch(/the guard would have stopped \d+ of them under veto/);
  });

  it("emits JSON lines with --json and honours --task and --scope", () => {
    const text = capture({ backend: "reference", json: true, task: "22", scopes: ["session"] });
    const lines = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(8);
    for (const l of lines) {
      expect(l.task).toBe("22");
      expect(Object.keys(l.decisions)).toEqual(["session"]);
    }
  });

  it("fails with a typed error for unknown tasks and folders", () => {
    expect(() => capture({ task: "nope" })).toThrow(/no airline trajectories for task `nope`/);
    expect(() => capture({ data: "/nonexistent-tau2" })).toThrow(/is not a τ²-bench data folder/);
    expect(() => capture({ domain: "retail" })).toThrow(/has no domain `retail`/);
  });

  itTau2("decides exactly as on the full τ²-bench airline db (the excerpt holds everything the runs read)", () => {
    const rules = loadDomainRules(REPO_ROOT, "airline");
    const { ontology } = loadDomainOntology(REPO_ROOT, "airline");
    const guard = advisoryGuardFactory({ ontology, rules });
    const sample = readTau2Data(join(REPO_ROOT, SAMPLE_DIR));
    const full = readTau2Data(tau2Dir());
    const fullBase = projectAll(rules, full.domain("airline").documents);
    let compared = 0;
    for (const f of sample.resultsFiles()) {
      for (const t of sample.readResultsFile(f)) {
        const a = replayAll(t, { rules, documents: sample.domain("airline").documents, guard }).records;
        const b = replayAll(t, { rules, documents: full.domain("airline").documents, base: fullBase, guard }).records;
        expect(a.length).toBe(b.length);
        a.forEach((r, i) => {
          for (const s of ["turn", "session"] as const) {
            const x = r.decisions[s]!;
            const y = b[i].decisions[s]!;
            expect({ route: x.route, reason: x.reason, verdict: x.verdict, reads: x.reads, digest: x.stateDigest }).toEqual({
              route: y.route, reason: y.reason, verdict: y.verdict, reads: y.reads, digest: y.stateDigest,
            });
            compared++;
          }
        });
      }
    }
    expect(compared).toBeGreaterThan(30);
  }, 120_000);

  it("runs as `polar demo` from the command line", { timeout: 120_000 }, () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "src/cli/index.ts"), "demo", "--task", "22", "--scope", "turn"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(out).toContain("τ²-bench airline · task 22");
    expect(out).toContain("update_reservation_flights(");
  });
});
