// The wasm core's memory is bounded: a blob that would grow it past `maxMemoryPages` is refused with
// a typed CoreError before anything is copied, and the backend loaded before keeps working.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CoreError, DEFAULT_MAX_MEMORY_PAGES, instantiateCore, instantiateCoreSync } from "../../src/core/wasm.js";

const module = new WebAssembly.Module(readFileSync(new URL("../../build/polar-core.wasm", import.meta.url)));
const blob = new Uint8Array(readFileSync(new URL("../../ontologies/airline/airline.blob", import.meta.url)));

function refusal(fn: () => unknown): CoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CoreError);
    return e as CoreError;
  }
  throw new Error("expected a CoreError");
}

describe("core memory limit", () => {
  it("defaults to 64 MiB", () => {
    expect(DEFAULT_MAX_MEMORY_PAGES).toBe(1024);
  });

  it("loads a real blob under the default and under a tight limit", () => {
    expect(instantiateCoreSync(module).load(blob).kind).toBe("wasm");
    const initialPages = new WebAssembly.Instance(module, { env: { abort() {} } }).exports.memory as WebAssembly.Memory;
    const pages = initialPages.buffer.byteLength / 65536 + 1;
    expect(instantiateCoreSync(module, { maxMemoryPages: pages }).load(blob).kind).toBe("wasm");
  });

  it("refuses a blob past the limit with core-out-of-memory and keeps the earlier backend", () => {
    const core = instantiateCoreSync(module, { maxMemoryPages: 4 });
    const backend = core.load(blob);
    const huge = new Uint8Array(4 * 65536);
    const before = core.exports.memory.buffer.byteLength;
    const e = refusal(() => core.load(huge));
    expect(e.code).toBe("core-out-of-memory");
    expect(e.message).toMatch(/^the blob needs `\d+` pages of core memory, more than the limit `4`$/);
    expect(core.exports.memory.buffer.byteLength).toBe(before);
    expect(() => backend.run()).not.toThrow();
  });

  it("refuses a 65 MiB blob under the default limit without growing memory", () => {
    const core = instantiateCoreSync(module);
    const before = core.exports.memory.buffer.byteLength;
    expect(refusal(() => core.load(new Uint8Array(65 * 1024 * 1024))).code).toBe("core-out-of-memory");
    expect(core.exports.memory.buffer.byteLength).toBe(before);
  });

  it("refuses bad options with core-bad-options", async () => {
    for (const bad of [0, -1, 1.5, 65537, Number.NaN]) {
      expect(refusal(() => instantiateCoreSync(module, { maxMemoryPages: bad })).code).toBe("core-bad-options");
    }
    await expect(instantiateCore(module, { maxMemoryPages: 0 })).rejects.toMatchObject({ code: "core-bad-options" });
  });
});
