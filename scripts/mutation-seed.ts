// One incremental report for a whole-module Stryker run, made of the incremental reports of range runs
// (`npm run mutate -- --module M --lines A-B`, reports/mutation/M/lines-A-B/incremental.json). Stryker's
// incremental mode then reuses every range result whose code and covering tests did not change and
// runs only the rest, so a module too large for one sitting on a shared machine is measured in ranges
// (in parallel, or across days) and still gets a whole-module row that Stryker itself computes.
//
// Stryker identifies a mutant by file, mutator, replacement and location, and a test by file, name and
// start position, each relative to the source stored beside it; ids are per report. So reports merge
// only when they stored the same source for every file they share (the module and the test files):
// otherwise a location of one would be read against the other's source. A report that differs from the
// first one (the newest) is left out, and said so: its mutants are simply run again.
//
// A static mutant (module-level code, run once at import) has no per-test coverage, so Stryker would
// reuse its Survived or NoCoverage result even when tests were added since: those results are dropped,
// and the mutants run again. Its Killed and Timeout results stay (reused only while the killing test is
// unchanged).
import type { schema } from "@stryker-mutator/api/core";

type Report = schema.MutationTestResult;
type Mutant = schema.MutantResult;
type TestDefinition = schema.TestDefinition;

export interface SeedResult {
  report: Report;
  /** Names of the reports merged, in order. */
  used: string[];
  /** Names of the reports left out, each with the reason. */
  skipped: { name: string; reason: string }[];
  /** Undetected static results dropped (run again). */
  staticDropped: number;
}

const testKey = (file: string, t: TestDefinition): string => {
  const at = t.location?.start ?? { line: 0, column: 0 };
  return `${file}@${at.line}:${at.column}\n${t.name}`;
};
const mutantKey = (file: string, m: Mutant): string =>
  `${file}@${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column}\n${m.mutatorName}: ${m.replacement ?? ""}`;

/** Why `r` cannot join `base`, or null when every shared file has the same source in both. */
function conflict(base: Report, r: Report): string | null {
  for (const [f, file] of Object.entries(r.files)) {
    const b = base.files[f];
    if (b !== undefined && b.source !== file.source) return `${f} differs`;
  }
  for (const [f, file] of Object.entries(r.testFiles ?? {})) {
    const b = base.testFiles?.[f];
    if (b !== undefined && b.source !== file.source) return `${f} differs`;
  }
  return null;
}

/** Merges `reports` (newest first) into one incremental report with fresh ids. Throws on none. */
export function mergeIncrementalReports(reports: readonly { name: string; report: Report }[]): SeedResult {
  if (reports.length === 0) throw new Error("no incremental report to seed from");
  const [first] = reports;
  const used: string[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const files: Report["files"] = {};
  const testFiles: NonNullable<Report["testFiles"]> = {};
  const testIds = new Map<string, string>();
  const mutantKeys = new Set<string>();
  let mutantCount = 0;
  let staticDropped = 0;
  for (const { name, report } of reports) {
    const why = conflict(first.report, report);
    if (why !== null) {
      skipped.push({ name, reason: why });
      continue;
    }
    used.push(name);
    // This report's test ids → the merged ids (one id per test key across all reports).
    const local = new Map<string, string>();
    for (const [f, file] of Object.entries(report.testFiles ?? {})) {
      const into = (testFiles[f] ??= { ...(file.source === undefined ? {} : { source: file.source }), tests: [] });
      for (const t of file.tests) {
        const key = testKey(f, t);
        let id = testIds.get(key);
        if (id === undefined) {
          id = String(testIds.size);
          testIds.set(key, id);
          into.tests.push({ ...t, id });
        }
        local.set(t.id, id);
      }
    }
    const remap = (ids: string[] | undefined): string[] | undefined =>
      ids?.map((id) => local.get(id)).filter((id): id is string => id !== undefined);
    for (const [f, file] of Object.entries(report.files)) {
      const into = (files[f] ??= { language: file.language, source: file.source, mutants: [] });
      for (const m of file.mutants) {
        const key = mutantKey(f, m);
        if (mutantKeys.has(key)) continue;
        mutantKeys.add(key);
        if (m.static === true && m.status !== "Killed" && m.status !== "Timeout") {
          staticDropped++;
          continue;
        }
        const killedBy = remap(m.killedBy);
        const coveredBy = remap(m.coveredBy);
        into.mutants.push({
          ...m,
          id: String(mutantCount++),
          ...(killedBy === undefined ? {} : { killedBy }),
          ...(coveredBy === undefined ? {} : { coveredBy }),
        });
      }
    }
  }
  return { report: { ...first.report, files, testFiles }, used, skipped, staticDropped };
}
