// Bad and extreme input: the compiler answers with diagnostics, never a crash, in bounded time; and the
// same source always gives the same bytes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cpuTime } from "../cpu-time.js";
import { compile, DEFAULT_LIMITS } from "../../src/compiler/index.js";
import { resolveLimits } from "../../src/compiler/limits.js";
import { codesOf, REPO } from "./helpers.js";

const EXAMPLE = readFileSync(join(REPO, "ontologies", "example", "library.polar"), "utf8");

function mustCompile(source: string | Uint8Array) {
  const r = compile(source, { name: "library.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.span.line}:${d.span.col} ${d.message}`).join("\n"));
  return r;
}

/** Never throws; an error-free result carries a blob, a failed one at least one error. */
function answers(source: string | Uint8Array): void {
  const r = compile(source);
  if (r.ok) expect(r.blob.length).toBeGreaterThan(0);
  else expect(r.diagnostics.some((d) => d.severity === "error")).toBe(true);
}

/** A generated ontology: `n` tools on `n / 10` entities, each with one annotation of a rotating tier. */
function generated(n: number): string {
  const lines: string[] = ["loss_class_definition(fee, weight = 0.05).", "sink_definition(email)."];
  const entities = Math.max(1, n / 10);
  for (let e = 0; e < entities; e++) {
    lines.push(`slot_definition(e${e}, status, string).`, `slot_definition(e${e}, count, number).`);
  }
  for (let i = 0; i < n; i++) lines.push(`tool(t${i}, acts_on = e${i % entities}, key = id${i % 7}).`);
  for (let i = 0; i < n; i++) {
    const e = `e${i % entities}`;
    const other = `t${(i + 1) % n}`;
    switch (i % 5) {
      case 0: lines.push(`inverse_of(${other}, t${i}, ${e}.status, 1).`); break;
      case 1: lines.push(`bounded_reversibility(t${i}, ${e}.status != "closed" and ${e}.count < ${i}, none, 0.99, args = { id: call.id }).`); break;
      case 2: lines.push(`compensates(${other}, t${i}, ${e}.status, fee, 0.9).`); break;
      case 3: lines.push(`irreversibly_consumes(t${i}, ${e}.count, fee, 1).`); break;
      default: lines.push(`external_side_effect(t${i}, email, 1).`); break;
    }
  }
  return lines.join("\n") + "\n";
}

describe("determinism", () => {
  it("gives byte-identical blobs for the same source, as a string or as bytes", () => {
    const a = mustCompile(EXAMPLE);
    const b = mustCompile(EXAMPLE);
    const c = mustCompile(new TextEncoder().encode(EXAMPLE));
    expect(b.blob).toEqual(a.blob);
    expect(c.blob).toEqual(a.blob);
    expect(b.tables).toEqual(a.tables);
  });

  it("gives identical diagnostics for the same broken source", () => {
    const broken = EXAMPLE.replace(/0\.9/g, "1.9").replace(/tool\(cancel_hold/, "tool(cancel_hold, kee = x");
    expect(compile(broken).diagnostics).toEqual(compile(broken).diagnostics);
    expect(compile(broken).ok).toBe(false);
  });

  it("changes the blob when only the source name changes, and not otherwise", () => {
    const a = compile(EXAMPLE, { name: "a.polar" });
    const b = compile(EXAMPLE, { name: "b.polar" });
    if (!a.ok || !b.ok) throw new Error("must compile");
    expect(a.blob).not.toEqual(b.blob);
  });
});

describe("size", () => {
  it("compiles a generated 10,000-tool ontology in reasonable time", () => {
    const source = generated(10_000);
    const { value: r, ms } = cpuTime(() => mustCompile(source));
    expect(r.tables.tools.length).toBe(10_000);
    expect(r.tables.edges.length).toBe(10_000);
    expect(r.tables.edgeOffsets[10_000]).toBe(10_000);
    expect(ms).toBeLessThan(15_000); // typically well under a second; generous for a shared machine
  });

  it("refuses more tools than the limit with one diagnostic", () => {
    const r = compile(generated(200), { limits: { tools: 150 } });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.filter((d) => d.code === "limit-exceeded")).toHaveLength(1);
  });
});

describe("bad input", () => {
  it("reports an empty source, as a string or as bytes", () => {
    expect(codesOf("")).toEqual([{ code: "empty-source", line: 1, col: 1 }]);
    expect(codesOf(new Uint8Array(0))).toEqual([{ code: "empty-source", line: 1, col: 1 }]);
    expect(codesOf(" \n\t\r\n% only a comment")).toEqual([{ code: "empty-source", line: 1, col: 1 }]);
  });

  it("reports the first non-UTF-8 byte at its line and column", () => {
    const bytes = new Uint8Array([...new TextEncoder().encode("tool(a).\n  é"), 0x80, 0x41]);
    expect(codesOf(bytes)).toEqual([{ code: "invalid-utf8", line: 2, col: 4 }]);
  });

  it("accepts and ignores a byte-order mark", () => {
    const withBom = mustCompile("\uFEFF" + EXAMPLE);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(EXAMPLE)]);
    expect(mustCompile(bytes).tables.edges).toEqual(withBom.tables.edges);
  });

  it("refuses an enormous source before reading it", () => {
    const huge = "% padding\n".repeat(500_000); // 5 MB
    const { ms } = cpuTime(() => {
      expect(codesOf(huge)).toEqual([{ code: "source-too-large", line: 1, col: 1 }]);
      expect(codesOf(new TextEncoder().encode(huge))).toEqual([{ code: "source-too-large", line: 1, col: 1 }]);
      expect(codesOf("tool(é).", { sourceBytes: 8 })).toEqual([{ code: "source-too-large", line: 1, col: 1 }]);
    });
    expect(ms).toBeLessThan(5000);
  });

  it("caps the diagnostics of a source made of nothing but errors", () => {
    const garbage = "x(1, 2.\n".repeat(400_000); // just under 4 MiB, one error per line
    const { value: r, ms } = cpuTime(() => compile(garbage));
    expect(r.ok).toBe(false);
    expect(r.diagnostics.length).toBe(1001);
    expect(r.diagnostics[0]).toMatchObject({ code: "limit-exceeded" });
    expect(ms).toBeLessThan(20_000);
  });

  it("never throws on arbitrary bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => answers(bytes)), { numRuns: 300, seed: 7 });
  });

  it("never throws on token soup", () => {
    const token = fc.constantFrom(
      "tool", "inverse_of", "bounded_reversibility", "compensates", "irreversibly_consumes", "external_side_effect",
      "slot_definition", "loss_class_definition", "sink_definition", "read_only", "(", ")", ",", ".", "=", "{", "}",
      "[", "]", ":", "@id", "a", "order.status", "call.x", "new.id", "result.x", "\"s\"", "0.5", "1", "-", "+", "==",
      "<", "and", "or", "not", "in", "now", "size(", "hours(", "true", "null", "\n", " ", "%", "\"", "\\",
    );
    fc.assert(fc.property(fc.array(token, { maxLength: 80 }), (parts) => answers(parts.join(" "))), { numRuns: 500, seed: 11 });
  });

  it("never throws on the example with a slice cut out", () => {
    fc.assert(fc.property(fc.nat(EXAMPLE.length), fc.nat(40), (at, len) => answers(EXAMPLE.slice(0, at) + EXAMPLE.slice(at + len))),
      { numRuns: 300, seed: 3 });
  });
});

describe("limits", () => {
  it("ignores limit values that are not non-negative integers and never exceeds the core's program cap", () => {
    const r = resolveLimits({ tools: Number.NaN, edges: -1, strings: 1.5, programInstructions: 1e9, sourceBytes: 10 });
    expect(r).toEqual({ ...DEFAULT_LIMITS, sourceBytes: 10 });
  });
});
