// src/guard/engine.ts on its own: the verifier over one backend; a factory's backend is rebuilt after a
// failed search, a given backend is kept; a wrong backend is a GuardError `invalid-backend`.
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/guard/engine.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { airline } from "./helpers.js";

describe("Engine", () => {
  it("defaults to the reference backend", () => {
    const e = new Engine(airline.tables, airline.blob, undefined);
    expect(e.verifier.tool("cancel_reservation").known).toBe(true);
  });

  it("a factory is called with the tables and blob, and again after a failed search", () => {
    const seen: unknown[] = [];
    const e = new Engine(airline.tables, airline.blob, (t, b) => {
      seen.push([t, b]);
      return createReferenceBackend(t);
    });
    expect(seen).toEqual([[airline.tables, airline.blob]]);
    const first = e.verifier;
    e.backendFailed();
    expect(seen).toHaveLength(2);
    expect(e.verifier).not.toBe(first);
  });

  it("a given backend is kept after a failed search; a failing rebuild keeps the old verifier", () => {
    const e = new Engine(airline.tables, airline.blob, createReferenceBackend(airline.tables));
    const v = e.verifier;
    e.backendFailed();
    expect(e.verifier).toBe(v);
    let n = 0;
    const f = new Engine(airline.tables, null, (t) => {
      if (n++ > 0) throw new Error("no more");
      return createReferenceBackend(t);
    });
    const w = f.verifier;
    f.backendFailed();
    expect(f.verifier).toBe(w);
  });

  it.each<[string, unknown, RegExp]>([
    ["neither a backend nor a factory", { run: 1 }, /neither a SearchBackend nor a factory/],
    ["a factory returning something else", () => ({}), /did not return a SearchBackend/],
    ["a factory that throws", () => { throw new Error("no wasm"); }, /could not be built: .*no wasm/],
  ])("refuses %s", (_what, backend, message) => {
    expect(() => new Engine(airline.tables, null, backend as never)).toThrow(expect.objectContaining({ code: "invalid-backend", message: expect.stringMatching(message) }));
  });
});
