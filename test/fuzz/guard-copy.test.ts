// The guard's JSON copy of a proposed call (src/guard/call.ts jsonSafe) costs bounded time and memory
// whatever the call claims to hold: an array's `length` is not a promise of content.
import { describe, expect, it } from "vitest";
import { cpuTime } from "../cpu-time.js";
import { jsonSafe } from "../../src/guard/call.js";
import { readFileSync } from "node:fs";
import { createGuard } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/index.js";

function sparse(length: number): unknown[] {
  const a: unknown[] = [];
  a.length = length;
  return a;
}

describe("jsonSafe bounds", () => {
  it("copies a sparse array of length 2^32 - 1 quickly, ending in a `too large` marker", () => {
    const { value, ms } = cpuTime(() => jsonSafe({ a: sparse(2 ** 32 - 1) }));
    const out = value as { a: unknown[] };
    expect(ms).toBeLessThan(2000);
    expect(out.a.length).toBeLessThanOrEqual(100_001);
    expect(out.a[0]).toEqual({ $nonjson: "array hole" });
    expect(out.a[out.a.length - 1]).toEqual({ $nonjson: "too large" });
  });

  it("stops a long dense array at the node budget", () => {
    const out = jsonSafe(new Array(300_000).fill(1)) as unknown[];
    expect(out.length).toBeLessThanOrEqual(100_001);
    expect(out[out.length - 1]).toEqual({ $nonjson: "too large" });
  });

  it("keeps small arrays, holes marked", () => {
    expect(jsonSafe([1, , 3])).toEqual([1, { $nonjson: "array hole" }, 3]);
  });

  it("a call whose argument is a huge sparse array is vetoed as malformed, fast", () => {
    const blob = new Uint8Array(readFileSync(new URL("../../ontologies/airline/airline.blob", import.meta.url)));
    const guard = createGuard({ ontology: blob, state: new LayerB(), policy: "veto" });
    const { value: d, ms } = cpuTime(() =>
      guard.check({ name: "cancel_reservation", arguments: { reservation_id: sparse(2 ** 32 - 1) } }),
    );
    expect(ms).toBeLessThan(3000);
    expect(d).toMatchObject({ approved: false, route: "Vetoed", reason: "malformed_call" });
  });
});
