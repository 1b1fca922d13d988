// The fault build: a verdict that traps part-way (arm_trap) surfaces as a typed core-trap error, and
// the same instance then answers every later verdict exactly like a fresh one. The release build
// carries none of it.
import { describe, expect, it } from "vitest";
import { Identity, Op, Reason, Tier } from "../../src/abi.js";
import { outputBytes } from "../../src/core/record.js";
import { CoreError, type CoreExports } from "../../src/core/wasm.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { coreModule, encodeCoreBlob, newCore, num, ROOT, run, TablesBuilder, wasmBytes, type CallSpec } from "./fixtures.js";

function domain() {
  const b = new TablesBuilder();
  const edit = b.tool("edit", { actsOn: 1 });
  b.edge(edit, { tier: Tier.T1, weight: 950000 });
  const cancel = b.tool("cancel", { actsOn: 1 });
  b.edge(cancel, { tier: Tier.T1, weight: 900000, identity: Identity.New });
  b.edge(cancel, { tier: Tier.T3, weight: 900000, lossWeight: 100000 });
  const bounded = b.tool("bounded", { actsOn: 1, operands: 1 });
  b.edge(bounded, { tier: Tier.T2, program: b.program([[Op.Operand, 0], [Op.Const, b.constant(num(10))], [Op.Lt]]) });
  return { tables: b.build(), edit, cancel, bounded };
}
const d = domain();
const blob = encodeCoreBlob(d.tables);

const sequences: CallSpec[][] = [
  [{ tool: d.edit, key: 7 }, { tool: d.cancel, key: 7 }],
  [{ tool: d.bounded, operands: [num(3)] }, { tool: d.edit, key: 1 }, { tool: d.cancel, key: 2 }],
  [{ tool: d.bounded, operands: [num(30)] }],
  [{ tool: -1 }, { tool: d.edit }],
  [],
];

type FaultExports = CoreExports & { arm_trap(afterCalls: number): void };

describe("fault build", () => {
  it("traps when armed, as a typed error, and keeps serving identically afterwards", () => {
    const fresh = newCore("release").load(blob);
    const expected = sequences.map((calls) => {
      run(fresh, calls);
      return outputBytes(fresh.run());
    });

    const core = newCore("fault");
    const ex = core.exports as FaultExports;
    const backend = core.load(blob);
    for (let afterCalls = 0; afterCalls <= 4; afterCalls++) {
      for (const calls of sequences) {
        ex.arm_trap(afterCalls);
        let error: unknown;
        try {
          run(backend, calls);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(CoreError);
        expect((error as CoreError).code).toBe("core-trap");
        expect((error as CoreError).cause).toBeInstanceOf(WebAssembly.RuntimeError);
        // Every later verdict, on any input, is what a fresh instance answers.
        sequences.forEach((next, k) => {
          run(backend, next);
          expect(outputBytes(backend.run())).toEqual(expected[k]);
        });
      }
    }
  });

  it("an unarmed fault build answers like the release build", () => {
    const core = newCore("fault");
    const out = run(core.load(blob), [{ tool: d.edit, key: 7 }, { tool: d.cancel, key: 7 }], { tau: 0 });
    expect(out).toMatchObject({ reason: Reason.Ok, phi: 810000, nodes: 4 });
  });

  it("the release build exports no fault hook and contains no unreachable", () => {
    const names = WebAssembly.Module.exports(coreModule("release")).map((e) => e.name).sort();
    expect(names).toEqual(["abi_version", "blob_ptr", "input_ptr", "load", "memory", "output_ptr", "verdict"]);
    expect(WebAssembly.Module.imports(coreModule("release"))).toEqual([]);
    wasmBytes("release"); // rebuilds when stale; the text file comes from the same asc run
    const text = readFileSync(join(ROOT, "build/polar-core.wat"), "utf8");
    expect(text).toContain("(export \"verdict\"");
    expect(text).not.toContain("unreachable");
    expect(WebAssembly.Module.exports(coreModule("fault")).map((e) => e.name)).toContain("arm_trap");
  });
});
