// The host binding: instantiation from every source kind, the ABI handshake, blob loading and memory
// growth, bad blobs and bad input records answered with a status (never a trap), stale backends.
import { describe, expect, it } from "vitest";
import {
  ABI_VERSION,
  BLOB_HEADER_SIZE,
  EDGE_PROGRAM,
  EDGE_SIZE,
  Identity,
  INPUT_SIZE,
  IN_OPERANDS,
  MAX_CALLS,
  MAX_OPERANDS,
  OUTPUT_SIZE,
  OUT_STATUS,
  Op,
  Reason,
  SECTION_ENTRY_SIZE,
  Section,
  Status,
  Tier,
} from "../../src/abi.js";
import { outputBytes, readOutput, tierFlags, writeCall, writeHeader, writeOperand } from "../../src/core/record.js";
import { CoreError, instantiateCore, instantiateCoreSync, type CoreInstance } from "../../src/core/wasm.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { coreModule, encodeCoreBlob, newCore, num, run, TablesBuilder, wasmBytes } from "./fixtures.js";

function small() {
  const b = new TablesBuilder();
  const t1 = b.tool("set_address", { actsOn: 0 });
  b.edge(t1, { tier: Tier.T1, weight: 950000 });
  const t2 = b.tool("with_operands", { actsOn: 0, operands: 2 });
  b.edge(t2, { tier: Tier.T3, weight: 900000, lossWeight: 100000 });
  return { tables: b.build(), t1, t2 };
}
const s = small();
const blob = encodeCoreBlob(s.tables);

/** A hand-assembled module exporting `memory` and functions that each return a constant:
 * `[name, arity (0 or 2), result]`. Enough to impersonate a core in the handshake. */
function fakeCore(functions: [string, 0 | 2, number][]): Uint8Array<ArrayBuffer> {
  const sleb = (n: number): number[] => {
    const out: number[] = [];
    for (;;) {
      const byte = n & 0x7f;
      n >>= 7;
      const done = (n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0);
      out.push(done ? byte : byte | 0x80);
      if (done) return out;
    }
  };
  const name = (s: string): number[] => [s.length, ...new TextEncoder().encode(s)];
  const section = (id: number, items: number[][]): number[] => {
    const body = [items.length, ...items.flat()];
    return [id, body.length, ...body];
  };
  const types = [[0x60, 0x00, 0x01, 0x7f], [0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]];
  const funcs = functions.map(([, arity]) => [arity === 0 ? 0 : 1]);
  const memory = [[0x00, 0x01]];
  const exports = [[...name("memory"), 0x02, 0], ...functions.map(([n], i) => [...name(n), 0x00, i])];
  const code = functions.map(([, , result]) => {
    const body = [0x00, 0x41, ...sleb(result), 0x0b];
    return [body.length, ...body];
  });
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, types), ...section(3, funcs), ...section(5, memory), ...section(7, exports), ...section(10, code),
  ]);
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CoreError);
    return (e as CoreError).code;
  }
  return undefined;
}

async function asyncCodeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(CoreError);
    return (e as CoreError).code;
  }
  return undefined;
}

function expectWorks(core: CoreInstance): void {
  const out = run(core.load(blob), [{ tool: s.t1 }]);
  expect(out).toMatchObject({ status: Status.Ok, reason: Reason.Ok, phi: 950000 });
}

describe("instantiation and the ABI handshake", () => {
  it("exports the host's ABI version", () => {
    expect(newCore().exports.abi_version()).toBe(ABI_VERSION);
  });

  it("instantiates from a module, bytes, a Response and a promised Response", async () => {
    const bytes = wasmBytes("release");
    expectWorks(await instantiateCore(coreModule("release")));
    expectWorks(await instantiateCore(bytes));
    expectWorks(await instantiateCore(bytes.buffer));
    expectWorks(await instantiateCore(new Response(bytes, { headers: { "content-type": "application/wasm" } })));
    expectWorks(await instantiateCore(Promise.resolve(new Response(bytes))));
    expectWorks(instantiateCoreSync(bytes));
  });

  it("refuses a module with another ABI version", async () => {
    const other = fakeCore([
      ["abi_version", 0, ABI_VERSION + 1],
      ["input_ptr", 0, 0],
      ["output_ptr", 0, 0],
      ["blob_ptr", 0, 0],
      ["load", 2, 0],
      ["verdict", 0, 0],
    ]);
    expect(new WebAssembly.Instance(new WebAssembly.Module(other)).exports.abi_version).toBeTypeOf("function");
    expect(codeOf(() => instantiateCoreSync(other))).toBe("core-abi-mismatch");
    expect(await asyncCodeOf(instantiateCore(other))).toBe("core-abi-mismatch");
  });

  it("refuses a module that is not a core", () => {
    expect(codeOf(() => instantiateCoreSync(fakeCore([["abi_version", 0, ABI_VERSION]])))).toBe("core-missing-export");
  });
});

describe("memory and loading", () => {
  it("lays out input, output and blob without overlap; the blob is 8-aligned", () => {
    const ex = newCore().exports;
    const input = ex.input_ptr();
    const output = ex.output_ptr();
    const blobAt = ex.blob_ptr();
    expect(input + INPUT_SIZE <= output || output + OUTPUT_SIZE <= input).toBe(true);
    expect(blobAt).toBeGreaterThanOrEqual(Math.max(input + INPUT_SIZE, output + OUTPUT_SIZE));
    expect(blobAt % 8).toBe(0);
  });

  it("the records are views into the core's memory, cached across verdicts", () => {
    const core = newCore();
    const backend = core.load(blob);
    const view = backend.inputView();
    expect(view.buffer).toBe(core.exports.memory.buffer);
    expect(view.byteOffset).toBe(core.exports.input_ptr());
    run(backend, [{ tool: s.t1 }]);
    expect(backend.inputView()).toBe(view);
    expect(backend.run().byteOffset).toBe(core.exports.output_ptr());
  });

  it("verdict before load answers not_loaded", () => {
    const ex = newCore().exports;
    expect(ex.verdict()).toBe(Status.NotLoaded);
    expect(new DataView(ex.memory.buffer).getInt32(ex.output_ptr() + OUT_STATUS, true)).toBe(Status.NotLoaded);
  });

  it("a second load replaces the blob and retires the earlier backend", () => {
    const core = newCore();
    const first = core.load(blob);
    const second = core.load(blob);
    expect(codeOf(() => first.run())).toBe("core-stale-backend");
    expect(run(second, [{ tool: s.t1 }]).reason).toBe(Reason.Ok);
  });
});

describe("bad blobs are refused with core-bad-blob and leave the core unloaded", () => {
  const corrupt = (edit: (v: DataView, bytes: Uint8Array) => void): Uint8Array => {
    const bytes = blob.slice();
    edit(new DataView(bytes.buffer), bytes);
    return bytes;
  };
  const sectionEntry = (v: DataView, id: number): number => {
    for (let i = 0; ; i++) {
      const at = BLOB_HEADER_SIZE + i * SECTION_ENTRY_SIZE;
      if (v.getUint32(at, true) === id) return at;
    }
  };
  const cases: [string, Uint8Array][] = [
    ["bad magic", corrupt((v) => v.setUint32(0, 0x12345678, true))],
    ["other ABI version", corrupt((v) => v.setUint16(4, ABI_VERSION + 1, true))],
    ["truncated", blob.slice(0, blob.length - 8)],
    ["shorter than a header", blob.slice(0, 40)],
    ["section past the end", corrupt((v) => v.setUint32(sectionEntry(v, Section.Edges) + 8, 1 << 20, true))],
    ["missing section", corrupt((v) => v.setUint32(sectionEntry(v, Section.Code), 99, true))],
    ["edge program out of range", corrupt((v) => {
      const edges = v.getUint32(sectionEntry(v, Section.Edges) + 4, true);
      v.setInt32(edges + EDGE_PROGRAM, 5, true);
    })],
    ["edge tier out of range", corrupt((v) => v.setUint8(v.getUint32(sectionEntry(v, Section.Edges) + 4, true) + EDGE_SIZE, 9))],
    ["CSR rows decreasing", corrupt((v) => v.setUint32(v.getUint32(sectionEntry(v, Section.EdgeOffsets) + 4, true) + 4, 7, true))],
  ];
  for (const [name, bytes] of cases) {
    it(name, () => {
      const core = newCore();
      core.load(blob);
      expect(codeOf(() => core.load(bytes))).toBe("core-bad-blob");
      expect(core.exports.verdict()).toBe(Status.NotLoaded);
    });
  }
});

describe("bad input records answer bad_input, never trap", () => {
  const core = newCore("debug");
  const backend = core.load(blob);
  const reference = createReferenceBackend(s.tables);

  function badInput(name: string, write: (v: DataView) => void): void {
    it(name, () => {
      for (const b of [backend, reference]) {
        const v = b.inputView();
        writeHeader(v, { nCalls: 1, tau: 800000, flags: tierFlags(["T1", "T2", "T3"], true), maxNodes: 1000, now: 0n, maxDepth: 64, nOperands: 2 });
        writeCall(v, 0, s.t2, true, 0, 0);
        writeOperand(v, 0, 3, 1n);
        writeOperand(v, 1, 3, 2n);
        write(v);
        expect(readOutput(b.run()).status).toBe(Status.BadInput);
      }
      expect(outputBytes(backend.run())).toEqual(outputBytes(reference.run()));
      // The instance keeps serving.
      expect(run(backend, [{ tool: s.t1 }]).reason).toBe(Reason.Ok);
    });
  }

  badInput("nCalls > MAX_CALLS", (v) => writeHeader(v, { nCalls: MAX_CALLS + 1, tau: 0, flags: 31, maxNodes: 1, now: 0n, maxDepth: 999, nOperands: 2 }));
  badInput("nOperands > MAX_OPERANDS", (v) => v.setUint32(28, MAX_OPERANDS + 1, true));
  badInput("tool index = tool count", (v) => writeCall(v, 0, s.tables.tools.length, true, 0, 0));
  badInput("tool index -2", (v) => writeCall(v, 0, -2, true, 0, 0));
  badInput("operands past the operand count", (v) => writeCall(v, 0, s.t2, true, 0, 1));
  badInput("operand start near 2^32", (v) => writeCall(v, 0, s.t2, true, 0, 0xffffffff));
  badInput("operand tag out of range", (v) => v.setInt32(IN_OPERANDS + 16, 5, true));
  badInput("negative operand tag", (v) => v.setInt32(IN_OPERANDS, -1, true));

  it("a valid record with the same fields is fine", () => {
    expect(run(backend, [{ tool: s.t2, operands: [num(1), num(2)] }]).status).toBe(Status.Ok);
  });
});

describe("size", () => {
  it("the release core stays well under 16 KiB", () => {
    expect(wasmBytes("release").length).toBeLessThan(16 * 1024);
  });
});

describe("random input records never trap", () => {
  it("2 000 seeded records: a status, and the same bytes as the reference", () => {
    const b = new TablesBuilder();
    const tools = [
      b.tool("t1", { actsOn: 0 }),
      b.tool("t2", { actsOn: 1, operands: 2 }),
      b.tool("ro", { readOnly: true }),
      b.tool("new", { creates: 1 }),
    ];
    b.edge(tools[0], { tier: Tier.T1, weight: 950000 });
    b.edge(tools[0], { tier: Tier.T5 });
    b.edge(tools[1], { tier: Tier.T2, lossWeight: 100000, program: b.program([[Op.Operand, 1], [Op.Operand, 0], [Op.Lt]]) });
    b.edge(tools[3], { tier: Tier.T1, identity: Identity.New });
    b.edge(tools[3], { tier: Tier.T3, weight: 900000, lossWeight: 200000 });
    const tables = b.build();
    const wasm = newCore("debug").load(encodeCoreBlob(tables));
    const reference = createReferenceBackend(tables);
    let seed = 12345;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const statuses = new Set<number>();
    for (let k = 0; k < 2000; k++) {
      const nCalls = next(10) === 0 ? MAX_CALLS + next(3) : next(8);
      const nOperands = next(12) === 0 ? MAX_OPERANDS + next(2) : next(16);
      const calls = Array.from({ length: Math.min(nCalls, MAX_CALLS) }, () => [next(7) - 2, next(3), next(4), next(20) === 0 ? 0xffffffff : next(18)]);
      const operands = Array.from({ length: Math.min(nOperands, MAX_OPERANDS) }, () => [next(40) === 0 ? 6 : next(5), BigInt(next(200)) - 100n]);
      const header = { nCalls, tau: next(3) * 500000, flags: next(2) ? 31 : next(512), maxNodes: next(30), now: 0n, maxDepth: next(10), nOperands };
      const outputs = [wasm, reference].map((be) => {
        const v = be.inputView();
        writeHeader(v, header);
        calls.forEach(([tool, grounded, key, start], i) => writeCall(v, i, tool, grounded, key, start));
        operands.forEach(([tag, value], i) => writeOperand(v, i, tag as number, value as bigint));
        return outputBytes(be.run());
      });
      expect(outputs[0]).toEqual(outputs[1]);
      statuses.add(new DataView(outputs[0].buffer).getInt32(OUT_STATUS, true));
    }
    expect([...statuses].sort()).toEqual([Status.Ok, Status.BadInput]);
  });
});
