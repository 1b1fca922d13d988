// Memory at steady state: the core's linear memory (wasm pages) and the host heap after forced GCs,
// sampled every tenth of the run, over N single-call verdicts (verifier on the wasm core) and N/10
// guard checks. Needs --expose-gc (the harness passes it).
import { blobDigestHex } from "../../src/blob/index.js";
import { createVerifier } from "../../src/core/verifier.js";
import { AIRLINE_NOW, loadAirline } from "../lib/airline.js";
import { params, progress, report, fail } from "../lib/child.js";
import { countingSink, guardOf, newCore } from "../lib/engines.js";
import { consume } from "../lib/stats.js";

const gc = (globalThis as { gc?: () => void }).gc;

function heapMB(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function main(): void {
  const p = params<{ verdicts?: number }>();
  const total = p.verdicts ?? (p.quick ? 100_000 : 1_000_000);
  progress("loading the airline state");
  const f = loadAirline();
  const core = newCore();
  const v = createVerifier(f.tables, core.load(f.blob), { now: AIRLINE_NOW });
  const pages = () => core.exports.memory.buffer.byteLength / 65536;
  const points: Array<{ verdicts: number; pages: number; heapMB: number; rssMB: number }> = [];
  const step = total / 10;
  const t0 = performance.now();
  for (let done = 0; done <= total; done += step) {
    if (done > 0) {
      for (let i = 0; i < step; i++) {
        const r = v.verdict([f.calls[i & 63]], f.state);
        consume(r.phi);
      }
    }
    points.push({ verdicts: done, pages: pages(), heapMB: heapMB(), rssMB: process.memoryUsage().rss / 2 ** 20 });
    progress(`memory: ${done} verdicts`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const guardChecks = total / 10;
  const g = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state: f.state, now: AIRLINE_NOW, log: countingSink() });
  const guardPoints: Array<{ checks: number; heapMB: number }> = [];
  for (let done = 0; done <= guardChecks; done += guardChecks / 5) {
    if (done > 0) {
      for (let i = 0; i < guardChecks / 5; i++) {
        const d = g.check(f.calls[i & 63]);
        if (d.execution !== null) g.release(d.execution); // not run: nothing stays pending
        consume(d.seq);
      }
    }
    guardPoints.push({ checks: done, heapMB: heapMB() });
  }
  const first = points[1];
  const last = points[points.length - 1];
  report({
    variant: "memory",
    verdicts: total,
    seconds,
    gcExposed: gc !== undefined,
    points,
    guardPoints,
    pagesGrowth: last.pages - points[0].pages,
    heapGrowthMB: last.heapMB - first.heapMB,
    guardHeapGrowthMB: guardPoints[guardPoints.length - 1].heapMB - guardPoints[1].heapMB,
  });
}

try {
  main();
} catch (e) {
  fail(e);
}
