// End to end: `polar eval tau2` on the τ²-bench data (POLAR_TAU2_DIR, default ../shared/tau2). To stay
// well inside CI's time it runs on three results files (one per domain, one of them multi-trial);
// docs/tau2.md has the full run's command and results.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalTau2 } from "../../src/cli/commands/eval.js";
import { ALL, POLICIES } from "../../src/eval/analyze.js";
import { REPORT_FILES } from "../../src/eval/write.js";
import { runTau2Eval, type Tau2EvalReport } from "../../src/eval/tau2.js";
import { HAS_TAU2, REPO_ROOT, describeTau2, tau2Dir } from "../tau2/data-dir.js";

const SUBSET = [
  "gpt-4.1_airline_default_user-gpt-4.1_1trial.json",
  "gpt-4.1_retail_default_user-gpt-4.1_1trial.json",
  "gpt-4.1_telecom_no-user_4trials_5tasks.json",
];

let out: string;
let report: Tau2EvalReport;

beforeAll(() => {
  if (!HAS_TAU2) return; // the suite below is skipped by name
  out = mkdtempSync(join(tmpdir(), "polar-eval-"));
  report = evalTau2({ data: tau2Dir(), results: SUBSET, out, resamples: 500, progress: false }).report;
}, 120_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describeTau2("polar eval tau2 on three real results files", () => {
  it("writes the JSON, Markdown and HTML reports", () => {
    for (const f of Object.values(REPORT_FILES)) expect(existsSync(join(out, f)), f).toBe(true);
    const json = JSON.parse(readFileSync(join(out, REPORT_FILES.json), "utf8")) as Tau2EvalReport;
    expect(json.format).toBe("polar-eval-tau2/1");
    expect(json.meta.files.map((f) => f.file)).toEqual(SUBSET);
    expect(json.meta.domains).toEqual(["airline", "retail", "telecom"]);
    expect(json.meta.scopes).toEqual(["turn", "session"]);
    const md = readFileSync(join(out, REPORT_FILES.markdown), "utf8");
    // The answer comes first: the headline before any detail section.
    expect(md.indexOf("## The answer")).toBeGreaterThan(0);
    expect(md.indexOf("## The answer")).toBeLessThan(md.indexOf("## Details"));
    for (const h of ["## The runs", "### Glossary", "### POLAR against its static baseline in detail — turn", "### Labeled evaluation — turn", "### Labeled evaluation — session", "(the paper's Table 8)", "(the paper's Table 4)", "(the paper's Table 5, as block rates)", "## How far to trust the labels"]) {
      expect(md).toContain(h);
    }
  });

  it("the HTML is one self-contained page with inline SVG charts and no external reference", () => {
    const html = readFileSync(join(out, REPORT_FILES.html), "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(10);
    expect(html).not.toMatch(/\s(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    // Every href is an in-page anchor, except the one relative link to docs/tau2.md.
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.filter((h) => !h.startsWith("#"))).toEqual([expect.stringMatching(/^(?:\.\.\/)+.*docs\/tau2\.md$/)]);
  });

  it("counts the runs as the files have them", () => {
    const inv = report.inventory;
    expect(inv.map((i) => [i.domain, i.model, i.trajectories])).toEqual([
      ["airline", "gpt-4.1", 20],
      ["retail", "gpt-4.1", 40],
      ["telecom", "gpt-4.1 (solo)", 20],
    ]);
    expect(inv.find((i) => i.domain === "telecom")!.tasks).toBe(5);
    for (const i of inv) {
      expect(i.writes).toBeGreaterThan(0);
      expect(i.effectiveWrites + i.erroredWrites).toBe(i.ranWrites);
      expect(i.authorized + i.unauthorized + i.unlabeled).toBeGreaterThanOrEqual(i.effectiveWrites - i.unlabeled);
    }
    // The rows are every agent write call, labeled when effective.
    expect(report.writes.every((r) => r.write)).toBe(true);
    expect(report.writes.length).toBe(inv.reduce((n, i) => n + i.writes, 0));
  });

  it("allow-all stops 0% and block-every-write 100% of effective writes; every share sits in its interval", () => {
    for (const scope of ["turn", "session"] as const) {
      for (const c of report.scopes[scope]!.labeled) {
        for (const k of ["unauthorizedStopped", "authorizedStopped"] as const) {
          if (c.policies["allow-all"][k].n === 0) continue;
          expect(c.policies["allow-all"][k].share).toBe(0);
          expect(c.policies["block-every-write"][k].share).toBe(1);
          for (const p of POLICIES) {
            const e = c.policies[p.id][k];
            expect(e.share!).toBeGreaterThanOrEqual(0);
            expect(e.share!).toBeLessThanOrEqual(1);
            expect(e.lo!).toBeLessThanOrEqual(e.share! + 1e-12);
            expect(e.hi!).toBeGreaterThanOrEqual(e.share! - 1e-12);
          }
        }
      }
    }
  });

  it("the paper's tables are consistent with each other and with the guard's design", () => {
    for (const scope of ["turn", "session"] as const) {
      const p = report.scopes[scope]!.paper;
      expect(p.blocked + p.admitted).toBe(p.decisions);
      expect(p.blockedByReason.reduce((n, r) => n + r.count, 0)).toBe(p.blocked);
      expect(p.blockedByDomain.reduce((n, r) => n + r.blocked, 0)).toBe(p.blocked);
      expect(p.phiBuckets.reduce((n, b) => n + b.count, 0)).toBe(p.admitted);
      // The shipped ontologies use exactly the paper's four φ values.
      for (const b of p.phiBuckets) expect(["1.000", "0.990", "0.855", "0.810"]).toContain(b.phi);
      // Retail's order tools are T4/T5: the veto blocks most of its writes, and disabling fail-closed admits them.
      const retail = p.blockedByDomain.find((d) => d.domain === "retail")!;
      expect(retail.blockRate).toBeGreaterThan(0.5);
      const abl = (id: string) => p.ablations.find((a) => a.id === id)!.cells[ALL];
      expect(abl("no-fail-closed").blocked).toBeLessThan(abl("full").blocked);
      // Removing tiers can only remove inverse edges: the block rate never falls.
      expect(abl("no-t3").blocked).toBeGreaterThanOrEqual(abl("full").blocked);
      expect(abl("t1").blocked).toBeGreaterThanOrEqual(abl("no-t3").blocked);
      expect(abl("t1").blocked).toBeGreaterThanOrEqual(abl("t1-t3").blocked);
      // Airline has no T1 edge (the paper's design): T1 only blocks every airline write.
      const airlineT1 = p.ablations.find((a) => a.id === "t1")!.cells.airline;
      expect(airlineT1.blocked).toBe(airlineT1.decisions);
      // Raising τ never admits more.
      const all = p.tauSweep.find((r) => r.domain === ALL)!;
      const shares = Object.values(all.pass).map((x) => x ?? 0);
      for (let i = 1; i < shares.length; i++) expect(shares[i]).toBeLessThanOrEqual(shares[i - 1]);
      expect(all.poolPass["0.50"]).toBe(1);
    }
  });

  it("the CLI runs the same evaluation and refuses bad usage with exit code 2", () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-eval-cli-"));
    try {
      const stdout = execFileSync(
        process.execPath,
        ["--import", "tsx", join(REPO_ROOT, "src/cli/index.ts"), "eval", "tau2", "--data", tau2Dir(), "--results", SUBSET[1], "--out", dir, "--resamples", "100", "--scope", "turn", "--no-progress"],
        { cwd: REPO_ROOT, encoding: "utf8" },
      );
      expect(stdout).toMatch(/polar eval tau2: 40 runs, \d+ agent write calls, domains retail/);
      expect(stdout).toMatch(/turn\s+polar-veto\s+stops/);
      const json = JSON.parse(readFileSync(join(dir, REPORT_FILES.json), "utf8")) as Tau2EvalReport;
      expect(json.meta.scopes).toEqual(["turn"]);
      expect(json.meta.bootstrap.resamples).toBe(100);
      const bad = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "src/cli/index.ts"), "eval", "nope", "--data", tau2Dir(), "--out", dir], { cwd: REPO_ROOT, encoding: "utf8" });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("error[bad-option]: unknown evaluation suite `nope`");
      const missing = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "src/cli/index.ts"), "eval", "tau2", "--data", tau2Dir(), "--results", "no-such.json", "--out", dir], { cwd: REPO_ROOT, encoding: "utf8" });
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain("error[no-such-file]: results file `no-such.json` not found");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a file whose name and info do not say its domain gets it from its tasks and tools; an ambiguous one is skipped with the reason", () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-eval-infer-"));
    try {
      const real = JSON.parse(readFileSync(join(tau2Dir(), "results", SUBSET[1]), "utf8")) as { info: Record<string, unknown>; tasks: unknown[]; simulations: unknown[] };
      delete real.info.environment_info;
      delete real.info.agent_info;
      real.simulations = real.simulations.slice(0, 3);
      writeFileSync(join(dir, "mystery-run.json"), JSON.stringify(real));
      // Task 0 exists in airline and retail, and both have a transfer tool: no way to tell.
      const ambiguous = { simulations: [{ task_id: "0", messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", name: "transfer_to_human_agents", arguments: { summary: "x" } }] }] }] };
      writeFileSync(join(dir, "unclear.json"), JSON.stringify(ambiguous));
      const r = runTau2Eval({ data: tau2Dir(), results: [join(dir, "mystery-run.json"), join(dir, "unclear.json")], root: REPO_ROOT, scopes: ["turn"], resamples: 50 });
      const [mystery, unclear] = r.meta.files;
      expect(mystery).toMatchObject({ file: "mystery-run.json", domain: "retail", used: true, trajectories: 3 });
      expect(mystery.domainFrom).toMatch(/^inferred: its task ids .* fit airline, retail; its tools .* fit retail$/);
      expect(unclear).toMatchObject({ file: "unclear.json", domain: null, used: false });
      expect(unclear.note).toContain("ambiguous between airline, retail");
      expect(r.meta.notes.some((n) => n.startsWith("skipped `unclear.json`: domain unknown") && n.includes("`transfer_to_human_agents`"))).toBe(true);
      // The inferred file's runs are labeled against the tasks it embeds.
      expect(r.writes.length).toBeGreaterThan(0);
      expect(r.writes.every((w) => w.domain === "retail" && w.label !== null)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("every write records static-escalate's route, the labeled cells come deduplicated and over every call, and dominance has every (scope, domain, pair)", () => {
    for (const wr of report.writes) for (const s of ["turn", "session"] as const) expect(["Approved", "Vetoed", "ConsentApproved", "ConsentEscalated"]).toContain(wr.scopes[s]!.staticEscalate);
    // The replay cannot ask the guard's own question, so consent is read the paper's way (a yes that
    // answers an assistant message naming the call): both escalate policies see some consent.
    const consented = (k: "escalate" | "staticEscalate") => report.writes.filter((wr) => wr.scopes.turn![k] === "ConsentApproved").length;
    expect(consented("escalate")).toBeGreaterThan(0);
    expect(consented("staticEscalate")).toBeGreaterThan(0);
    const labeled = report.scopes.turn!.labeled;
    expect(labeled.filter((c) => c.dedup).length).toBe(labeled.filter((c) => !c.dedup).length);
    const pooled = (dedup: boolean) => labeled.find((c) => c.dedup === dedup && c.domain === ALL && c.model === ALL)!;
    expect(pooled(true).effectiveWrites).toBeLessThanOrEqual(pooled(false).effectiveWrites);
    expect(pooled(true).policies["static-escalate"].unauthorizedStopped.n).toBe(pooled(true).unauthorized);
    const keys = report.dominance.map((d) => `${d.scope} ${d.dedup} ${d.domain} ${d.pair}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const scope of ["turn", "session"]) for (const dedup of [true, false]) for (const domain of [ALL, "airline", "retail", "telecom"]) for (const pair of ["veto", "escalate"]) expect(keys).toContain(`${scope} ${dedup} ${domain} ${pair}`);
    for (const d of report.dominance) {
      for (const k of ["unauthorized", "authorized"] as const) {
        const x = d[k];
        if (x.diff === null) continue;
        expect(x.lo!).toBeLessThanOrEqual(x.diff + 1e-12);
        expect(x.hi!).toBeGreaterThanOrEqual(x.diff - 1e-12);
      }
    }
  });
});
