// Real blobs: each ontology source in ontologies/, compiled by the compiler and accepted by
// decodeBlob, loads into the core, and every tool's verdict, alone and after another tool, matches
// the reference on the decoded tables byte for byte.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Status } from "../../src/abi.js";
import { decodeBlob } from "../../src/blob/index.js";
import { compile } from "../../src/compiler/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { missing, newCore, ROOT, run, type CallSpec } from "./fixtures.js";
import { outputBytes } from "../../src/core/record.js";

const dir = join(ROOT, "ontologies");
const sources = readdirSync(dir)
  .map((d) => join(dir, d, `${d}.polar`))
  .filter((f) => existsSync(f));

function compiled(file: string): Uint8Array {
  const result = compile(readFileSync(file, "utf8"), { name: file.slice(dir.length + 1) });
  if (!result.ok) throw new Error(`${file} does not compile: ${result.diagnostics.map((d) => d.message).join("; ")}`);
  return result.blob;
}

describe("compiled ontologies", () => {
  it("there is at least one", () => {
    expect(sources.length).toBeGreaterThan(0);
  });

  for (const file of sources) {
    it(`${file.slice(dir.length + 1)} loads and agrees with the reference`, () => {
      const bytes = compiled(file);
      const tables = decodeBlob(bytes);
      const wasm = newCore().load(bytes);
      const reference = createReferenceBackend(tables);
      const callOf = (tool: number, grounded: boolean, key: number): CallSpec => ({
        tool,
        grounded,
        key,
        operands: tables.tools[tool].operands.map(() => missing),
      });
      const sequences: CallSpec[][] = [];
      tables.tools.forEach((_, t) => {
        sequences.push([callOf(t, true, 1)], [callOf(t, false, 1)]);
        if (t > 0) sequences.push([callOf(t - 1, true, 1), callOf(t, true, 1)], [callOf(t, true, 2), callOf(t - 1, true, 2)]);
      });
      const reasons = new Set<number>();
      for (const calls of sequences) {
        const out = run(wasm, calls, { tau: 500000 });
        expect(out.status).toBe(Status.Ok);
        reasons.add(out.reason);
        run(reference, calls, { tau: 500000 });
        expect(outputBytes(wasm.run())).toEqual(outputBytes(reference.run()));
      }
      // The sequences reach more than one outcome (ungrounded calls alone give no_candidate; grounded
      // ones an answer of the ontology's own), so the agreement above is not over one trivial path.
      // Two is the floor every ontology must reach; the SQL ontology's probes reach exactly two
      // (every SQL call with missing operands answers alike), the others three or more.
      expect(reasons.size).toBeGreaterThanOrEqual(file.endsWith("sql.polar") ? 2 : 3);
    });
  }
});
