// The executed corpus in CI: 520 generated cases (fixed seed) on real git repositories. Every approved
// call is run with bash and undone, and the workspace's full manifest must equal the one before; 0
// wrong. More cases: `npm run fuzz:shell` (scripts/fuzz-shell.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBashParser } from "../../src/shell/index.js";
import { buildTemplates, emptyReport, removeTemplates, runCase, sampleCases, type Templates } from "./corpus.js";

const CASES = Number(process.env.POLAR_SHELL_CORPUS ?? 520);
const SEED = 20260423;
let t: Templates;

beforeAll(async () => {
  await loadBashParser();
  t = buildTemplates();
});
afterAll(() => removeTemplates(t));

describe("executed corpus: approved → run → undo → identical manifest", () => {
  const cases = sampleCases(SEED, CASES);
  const report = emptyReport();
  const SHARDS = 8;
  for (let s = 0; s < SHARDS; s++) {
    it(`shard ${s + 1}/${SHARDS}`, { timeout: 600_000 }, async () => {
      for (let i = s; i < cases.length; i += SHARDS) await runCase(t, cases[i]!, report);
      expect(report.wrong).toEqual([]);
    });
  }
  it("reports 0 wrong and covers both outcomes", () => {
    console.log(`[shell corpus] ${JSON.stringify({ ...report, wrong: report.wrong.length })}`);
    expect(report.cases).toBe(CASES);
    expect(report.wrong).toEqual([]);
    expect(report.approvedWithRestorePoint).toBeGreaterThan(0);
    expect(report.refused).toBeGreaterThan(0);
    expect(report.undoneExactly).toBe(report.approved);
  });
});
