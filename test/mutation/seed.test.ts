// scripts/mutation-seed.ts: range runs' incremental reports merged into one for a whole-module run.
import { describe, expect, it } from "vitest";
import type { schema } from "@stryker-mutator/api/core";
import { mergeIncrementalReports } from "../../scripts/mutation-seed.js";

const SRC = "export const a = 1;\nexport const b = 2;\n";
const TESTS = "it('a', ...)\nit('b', ...)\n";

function mutant(id: string, line: number, status: schema.MutantStatus, killedBy: string[], coveredBy: string[]): schema.MutantResult {
  return {
    id,
    mutatorName: "NumericLiteral",
    replacement: "0",
    location: { start: { line, column: 17 }, end: { line, column: 18 } },
    status,
    killedBy,
    coveredBy,
  };
}

function report(mutants: schema.MutantResult[], tests: schema.TestDefinition[], source = SRC, testSource = TESTS): schema.MutationTestResult {
  return {
    schemaVersion: "2",
    thresholds: { high: 90, low: 80 },
    files: { "src/m.ts": { language: "typescript", source, mutants } },
    testFiles: { "test/m.test.ts": { source: testSource, tests } },
  };
}

const testA = (id: string): schema.TestDefinition => ({ id, name: "a", location: { start: { line: 1, column: 0 } } });
const testB = (id: string): schema.TestDefinition => ({ id, name: "b", location: { start: { line: 2, column: 0 } } });

describe("mergeIncrementalReports", () => {
  it("joins the mutants of two ranges and maps each one's test ids onto one numbering", () => {
    // Range 1 numbers test a as "7"; range 2 numbers a as "0" and b as "1".
    const r1 = report([mutant("0", 1, "Killed", ["7"], ["7"])], [testA("7")]);
    const r2 = report([mutant("0", 2, "Survived", [], ["0", "1"])], [testA("0"), testB("1")]);
    const { report: merged, used, skipped } = mergeIncrementalReports([{ name: "r1", report: r1 }, { name: "r2", report: r2 }]);
    expect(used).toEqual(["r1", "r2"]);
    expect(skipped).toEqual([]);
    const tests = merged.testFiles!["test/m.test.ts"].tests;
    expect(tests.map((t) => [t.id, t.name])).toEqual([["0", "a"], ["1", "b"]]);
    const ms = merged.files["src/m.ts"].mutants;
    expect(ms.map((m) => [m.id, m.location.start.line, m.status, m.killedBy, m.coveredBy])).toEqual([
      ["0", 1, "Killed", ["0"], ["0"]],
      ["1", 2, "Survived", [], ["0", "1"]],
    ]);
    expect(merged.files["src/m.ts"].source).toBe(SRC);
  });

  it("keeps the first (newest) report's result of a mutant both ranges hold", () => {
    const newer = report([mutant("0", 1, "Killed", ["0"], ["0"])], [testA("0")]);
    const older = report([mutant("0", 1, "Survived", [], ["0"])], [testA("0")]);
    const ms = mergeIncrementalReports([{ name: "new", report: newer }, { name: "old", report: older }]).report.files["src/m.ts"].mutants;
    expect(ms.map((m) => m.status)).toEqual(["Killed"]);
  });

  it("leaves out a report made on other code or other tests, and says why", () => {
    const base = report([mutant("0", 1, "Killed", ["0"], ["0"])], [testA("0")]);
    const otherCode = report([mutant("0", 2, "Killed", ["0"], ["0"])], [testA("0")], `${SRC}// changed\n`);
    const otherTests = report([mutant("0", 2, "Killed", ["0"], ["0"])], [testA("0")], SRC, `${TESTS}it('c', ...)\n`);
    const r = mergeIncrementalReports([
      { name: "base", report: base },
      { name: "code", report: otherCode },
      { name: "tests", report: otherTests },
    ]);
    expect(r.used).toEqual(["base"]);
    expect(r.skipped).toEqual([
      { name: "code", reason: "src/m.ts differs" },
      { name: "tests", reason: "test/m.test.ts differs" },
    ]);
    expect(r.report.files["src/m.ts"].mutants).toHaveLength(1);
  });

  it("drops undetected results of static mutants (no per-test coverage to see a newer test) and keeps detected ones", () => {
    const st = (id: string, line: number, status: schema.MutantStatus): schema.MutantResult => ({ ...mutant(id, line, status, status === "Killed" ? ["0"] : [], []), static: true });
    const r = report([st("0", 1, "Survived"), st("1", 2, "Killed"), { ...st("2", 1, "NoCoverage"), replacement: "2" }, { ...mutant("3", 2, "Survived", [], ["0"]), replacement: "1" }], [testA("0")]);
    const merged = mergeIncrementalReports([{ name: "r", report: r }]);
    expect(merged.staticDropped).toBe(2);
    expect(merged.report.files["src/m.ts"].mutants.map((m) => [m.status, m.static ?? false])).toEqual([["Killed", true], ["Survived", false]]);
  });

  it("refuses to seed from nothing", () => {
    expect(() => mergeIncrementalReports([])).toThrow("no incremental report to seed from");
  });
});
