// `polar eval tau2 --execute` end to end on three real results files (one per domain), and the
// property that every admitted exact inverse (T1/T2 steps without a loss class) restores the
// environment's state exactly, over runs drawn from the dev results with a fixed seed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { evalTau2Execute } from "../../src/cli/commands/eval.js";
import { packageRoot } from "../../src/cli/commands/demo.js";
import { executionBlocks, runExecution } from "../../src/eval/execute-run.js";
import type { ExecFigures, ExecutionReport } from "../../src/eval/execute.js";
import { REPORT_FILES } from "../../src/eval/write.js";
import { readTau2Data } from "../../src/tau2/data.js";
import { TAU2_DIR } from "../tau2/data-dir.js";
import { TAU2_SRC, describePython } from "../tau2/python-env.js";

const SUBSET = [
  "gpt-4.1_airline_default_user-gpt-4.1_1trial.json",
  "gpt-4.1_retail_default_user-gpt-4.1_1trial.json",
  "gpt-4.1_telecom_no-user_4trials_5tasks.json",
];

const FIGURES = ["admitted", "restored", "withinResidue", "wrong", "missingArguments", "refusals", "fidelity", "replay"];

function figureKeys(f: ExecFigures, exact = true): void {
  if (!exact) for (const k of FIGURES) expect(f).toHaveProperty(k);
  else expect(Object.keys(f).sort()).toEqual(["admitted", "amounts", "fidelity", "missingArguments", "refusals", "replay", "residue", "restored", "withinResidue", "wrong"]);
  expect(Object.keys(f.refusals).sort()).toEqual(["confirmed", "conservative"]);
  expect(Object.keys(f.fidelity).sort()).toEqual(["mismatches", "reads"]);
  expect(Object.keys(f.replay).sort()).toEqual(["calls", "outputMismatches"]);
  expect(f.admitted).toBe(f.restored + f.withinResidue + f.wrong + f.missingArguments);
}

it("without an execution the report has no execution section", () => {
  expect(executionBlocks(undefined)).toEqual([]);
});

describePython("polar eval tau2 --execute on three real results files", () => {
  let out: string;
  let x: ExecutionReport;
  let md: string;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "polar-exec-"));
    const { report } = await evalTau2Execute({ data: TAU2_DIR, results: SUBSET, out, resamples: 50, progress: false, execute: { tau2Src: TAU2_SRC } });
    x = JSON.parse(readFileSync(join(out, REPORT_FILES.json), "utf8")).execution;
    expect(report.execution).toBeDefined();
    md = readFileSync(join(out, REPORT_FILES.markdown), "utf8");
  }, 300_000);
  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it("writes the execution object with the issue's field names, overall and per domain", () => {
    figureKeys(x, false);
    expect(Object.keys(x.byDomain).sort()).toEqual(["airline", "retail", "telecom"]);
    for (const d of Object.values(x.byDomain)) figureKeys(d);
    expect(x.replay.calls).toBeGreaterThan(500);
    expect(x.fidelity.reads).toBeGreaterThan(100);
    expect(x.admitted).toBeGreaterThan(20);
  });

  it("replays every recorded output and reads Layer B as the environment has it", () => {
    expect(x.replay.outputMismatches).toBe(0);
    expect(x.fidelity.mismatches).toBe(0);
  });

  it("no admitted verdict is wrong or lacks an argument", () => {
    for (const [d, f] of Object.entries(x.byDomain)) {
      expect({ d, wrong: f.wrong, missing: f.missingArguments, examples: [...(x.examples.wrong ?? []), ...(x.examples.missingArguments ?? [])].filter((e) => e.domain === d).slice(0, 3) }).toMatchObject({ wrong: 0, missing: 0 });
    }
  });

  it("confirms refusals only where a positive edge can be tried, and none is conservative", () => {
    expect(x.refusals.conservative).toBe(0);
    // retail's order tools have no positive edge (T4/T5 only): nothing to run, so never counted.
    const retailOnlyFailClosed = ["cancel_pending_order", "modify_pending_order_items", "modify_pending_order_payment", "return_delivered_order_items", "exchange_delivered_order_items"];
    for (const t of x.byTool.filter((g) => retailOnlyFailClosed.includes(g.key))) expect({ tool: t.key, confirmed: t.confirmed, conservative: t.conservative }).toEqual({ tool: t.key, confirmed: 0, conservative: 0 });
    expect(x.byDomain.retail?.refusals).toEqual({ confirmed: 0, conservative: 0 });
    // A conditional T4 beside positive edges (airline's cancellations) is tried and borne out.
    expect(x.byTool.find((g) => g.key === "cancel_reservation")?.confirmed).toBeGreaterThan(0);
  });

  it("puts the figures by tool and by edge id in the Markdown report", () => {
    expect(md).toContain("## Executed verdicts");
    expect(md).toContain("### By tool");
    expect(md).toContain("### By edge id");
    expect(x.byTool.length).toBeGreaterThan(3);
  });
});

describePython("every admitted exact inverse restores the environment's state (property, fixed seed)", () => {
  it("over runs drawn from the dev results", async () => {
    const data = readTau2Data(TAU2_DIR);
    const files = data.resultsFiles();
    // Draw (file, simulation) pairs with a fixed seed; run only those.
    const picks = fc.sample(fc.tuple(fc.nat(files.length - 1), fc.nat(1000)), { seed: 6793, numRuns: 24 });
    const chosen = new Map<string, Set<number>>();
    for (const [f, s] of picks) {
      const set = chosen.get(files[f]) ?? new Set<number>();
      set.add(s);
      chosen.set(files[f], set);
    }
    const report = await runExecution({
      data: TAU2_DIR,
      results: [...chosen.keys()],
      root: packageRoot(),
      tau2Src: TAU2_SRC,
      keepVerdicts: true,
      only: (file, simulation, count) => [...(chosen.get(file) ?? [])].some((s) => s % count === simulation),
    });
    const exact = report.verdicts!.filter((v) => v.tiers.every((t) => t === "T1" || t === "T2") && v.lossClasses.every((l) => l === null || l === "none"));
    expect(exact.length).toBeGreaterThan(5);
    const notRestored = exact.filter((v) => v.class !== "restored");
    expect(notRestored).toEqual([]);
  }, 600_000);
});

