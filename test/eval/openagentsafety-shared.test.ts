// `polar eval openagentsafety` on the real runs in ../shared/openagentsafety (both models, every run):
// everything is replayed or listed with a reason, every task with runs is classified, and the figures
// docs/openagentsafety.md quotes hold. Skipped by name when the folder is absent; CI sets
// POLAR_REQUIRE_OPENAGENTSAFETY=1 and then a missing folder fails instead. Cost: about 40-60 s of one
// core (≈600 runs, each in its own temp container, two shell guards per run).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTaskTable, runOasEval, writeOasReports, type OasEvalReport } from "../../src/eval/openagentsafety/index.js";
import { skipByName } from "../skip.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const DIR = resolve(ROOT, process.env.POLAR_OPENAGENTSAFETY_DIR ?? "../shared/openagentsafety");
const HAS = existsSync(join(DIR, "runs")) && existsSync(join(DIR, "tasks"));
const NAME = "polar eval openagentsafety on the OpenAgentSafety runs";
if (!HAS && process.env.POLAR_REQUIRE_OPENAGENTSAFETY === "1") throw new Error(`OpenAgentSafety runs not found at ${DIR} (POLAR_REQUIRE_OPENAGENTSAFETY=1): set POLAR_OPENAGENTSAFETY_DIR`);

if (!HAS) {
  skipByName(NAME, `needs ${DIR} (tasks/, runs/<model>/); set POLAR_OPENAGENTSAFETY_DIR`);
} else {
  describe(NAME, () => {
    let report: OasEvalReport;
    const out = mkdtempSync(join(tmpdir(), "polar-oas-shared-"));
    beforeAll(async () => {
      report = await runOasEval({ data: DIR, root: ROOT, resamples: 500 });
    }, 600_000);
    afterAll(() => rmSync(out, { recursive: true, force: true }));

    it("replays every trajectory or lists it with a reason", () => {
      for (const m of readdirSync(join(DIR, "runs"))) {
        const files = readdirSync(join(DIR, "runs", m)).filter((f) => f.startsWith("traj_") && f.endsWith(".json"));
        const replayed = report.replays.filter((r) => r.model === m).length;
        const listed = report.unusable.filter((u) => u.file.startsWith(join(DIR, "runs", m, "traj_"))).length;
        expect(replayed + listed).toBe(files.length);
      }
      expect(report.unusable.filter((u) => u.reason.startsWith("replay failed"))).toEqual([]);
      expect(report.inventory.reduce((s, i) => s + i.commands, 0)).toBeGreaterThan(1000);
    });

    it("the task table decides every task that has a task.md or checkpoints.md", () => {
      const table = readTaskTable(join(ROOT, "data/openagentsafety/tasks.json"));
      for (const t of readdirSync(join(DIR, "tasks"))) {
        const c = table.tasks.get(t);
        expect(c, t).toBeDefined();
        const readable = existsSync(join(DIR, "tasks", t, "task.md")) || existsSync(join(DIR, "tasks", t, "checkpoints.md"));
        expect(c!.irreversible === null, t).toBe(!readable);
      }
      expect(report.unclassified.every((u) => u.why.startsWith("undecidable"))).toBe(true);
    });

    it("POLAR snapshot protects every label-2 run the table protects and asks less on safe runs", () => {
      const all = report.cells[report.cells.length - 1]!;
      const p = all.policies["polar-snapshot"];
      const t = all.policies["static-table"];
      expect(p.harm2.n).toBeGreaterThan(10);
      expect(p.harm2.hits).toBeGreaterThanOrEqual(t.harm2.hits);
      expect(p.frictionPerRun.n).toBeGreaterThan(100);
      expect(p.frictionPerRun.hits).toBeLessThan(t.frictionPerRun.hits);
      expect(all.policies["allow-all"].harm2.hits).toBe(0);
      // Every difference is explained: where POLAR asks and the table does not, it is state the run did not show.
      console.log(`[openagentsafety eval] disagreements ${JSON.stringify(all.disagreements)}`);
      for (const k of Object.keys(all.disagreements.polarStopsTableAllows)) expect(["state not shown by the run", "unknown_state"]).toContain(k);
    });

    it("writes the three report files", () => {
      const files = writeOasReports(report, out);
      const md = readFileSync(files.markdown, "utf8");
      expect(md).toMatch(/runs of 2 model\(s\)/);
      expect(md).toContain("| all models (pooled) | POLAR snapshot |");
      console.log(`[openagentsafety eval] ${md.split("\n\n")[1]}`);
    });
  });
}
