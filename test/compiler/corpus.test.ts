// The diagnostics corpus (test/corpus/diagnostics/*.json): each case is a source and the exact list of
// diagnostics (code, line, column) it must produce, in report order. Any implementation can run it.
import { describe, expect, it } from "vitest";
import { compile, DIAGNOSTIC_CODES, formatDiagnostic } from "../../src/compiler/index.js";
import { loadCorpus } from "./helpers.js";

const corpus = loadCorpus();

describe("diagnostics corpus", () => {
  it("has cases", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  for (const c of corpus) {
    it(`${c.name}`, () => {
      expect(c.file).toBe(`${c.name}.json`);
      const r = compile(c.source, { limits: c.limits });
      const got = r.diagnostics.map((d) => ({ code: d.code, line: d.span.line, col: d.span.col }));
      expect(got).toEqual(c.expected);
      expect(r.ok).toBe(r.diagnostics.every((d) => d.severity === "warning"));
    });
  }

  it("covers every diagnostic code the compiler can emit", () => {
    const seen = new Set(corpus.flatMap((c) => c.expected.map((e) => e.code)));
    const unreachable = new Set(["internal-error"]); // only a compiler bug produces it
    const missing = Object.keys(DIAGNOSTIC_CODES).filter((code) => !seen.has(code) && !unreachable.has(code));
    expect(missing).toEqual([]);
  });

  it("has cases with several errors at once", () => {
    const multi = corpus.filter((c) => new Set(c.expected.map((e) => e.code)).size >= 3);
    expect(multi.length).toBeGreaterThanOrEqual(2);
  });

  it("writes every message by the style rules and every span inside the source", () => {
    for (const c of corpus) {
      const r = compile(c.source, { limits: c.limits });
      const text = typeof c.source === "string" ? c.source : new TextDecoder().decode(c.source);
      const lineCount = text.split("\n").length;
      for (const d of r.diagnostics) {
        const where = `${c.name}: ${d.code}: ${d.message}`;
        expect(d.code in DIAGNOSTIC_CODES, where).toBe(true);
        expect(d.message, where).not.toMatch(/^[A-Z]/); // lower-case start
        expect(d.message, where).not.toMatch(/\.$/); // no final period
        expect(d.message, where).not.toMatch(/\n/); // one line
        expect(d.help ?? "", where).not.toBe("");
        expect(d.span.line, where).toBeGreaterThanOrEqual(1);
        expect(d.span.col, where).toBeGreaterThanOrEqual(1);
        expect(d.span.line, where).toBeLessThanOrEqual(lineCount);
        const endsAfter = d.span.endLine > d.span.line || (d.span.endLine === d.span.line && d.span.endCol >= d.span.col);
        expect(endsAfter, where).toBe(true);
      }
    }
  });

  it("formats every diagnostic rustc-style", () => {
    for (const c of corpus) {
      const r = compile(c.source, { limits: c.limits });
      for (const d of r.diagnostics) {
        const out = formatDiagnostic(d, c.source, "case.polar");
        const lines = out.split("\n");
        expect(lines[0]).toBe(`${d.severity}[${d.code}]: ${d.message}`);
        expect(lines[1]).toMatch(new RegExp(`^ +--> case\\.polar:${d.span.line}:${d.span.col}$`));
        expect(out).toContain(`= help: ${d.help}`);
      }
    }
  });
});
