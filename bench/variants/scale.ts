// Scaling: single-call latency against ontology size (generated ontologies of N tools, Layer B of 8,000
// slots) or against Layer B size (S slots, a generated ontology of 100 tools). Calls pick random tools
// and random entities across the whole state, so lookups are not all cache hits.
import { createHash } from "node:crypto";
import type { ExecutedCall } from "../../src/core/types.js";
import { createVerifier } from "../../src/core/verifier.js";
import { compile } from "../../src/compiler/index.js";
import { params, progress, report, fail } from "../lib/child.js";
import { backendOf, countingSink, guardOf } from "../lib/engines.js";
import { generateCalls, generateOntology, generateState, SLOTS_PER_ENTITY } from "../lib/generate.js";
import { captureRecords, replay } from "../lib/records.js";
import { consume, measure, timeOnce, type Figure } from "../lib/stats.js";

interface Params {
  tools: number;
  slots: number;
}

const NOW = "2024-05-15T15:00:00";
const CALLS = 1024;

function main(): void {
  const p = params<Params>();
  progress(`generating ${p.tools} tools, ${p.slots} slots`);
  const source = generateOntology(p.tools);
  let compiled: ReturnType<typeof compile> | null = null;
  const compileNs = timeOnce(() => {
    compiled = compile(source, { name: `generated-${p.tools}.polar` });
  });
  const r = compiled as unknown as ReturnType<typeof compile>;
  if (!r.ok) throw new Error(`generated ontology does not compile: ${r.diagnostics[0]?.message}`);
  let stateNs = 0;
  let state = generateState(1);
  stateNs = timeOnce(() => {
    state = generateState(p.slots);
  });
  const items = Math.max(1, Math.floor(p.slots / SLOTS_PER_ENTITY));
  const calls = generateCalls(p.tools, items, CALLS);
  const seqs: ExecutedCall[][] = calls.map((c) => [c]);
  const figures: Record<string, Figure> = {};

  progress(`core ${p.tools} tools, ${p.slots} slots`);
  const records = captureRecords(r.tables, seqs, state, { now: NOW });
  const core = backendOf("wasm", r.tables, r.blob);
  figures.core = measure((i) => consume(replay(core, records[i & (CALLS - 1)])), p.timing);

  progress(`verifier ${p.tools} tools, ${p.slots} slots`);
  const v = createVerifier(r.tables, backendOf("wasm", r.tables, r.blob), { now: NOW });
  figures.verifier = measure((i) => {
    const out = v.verdict(seqs[i & (CALLS - 1)], state);
    consume(out.phi ^ out.nodes);
  }, p.timing);

  // The same verifier with calls over only 8 tools (of the N): tells a cost that grows with N apart from
  // cache misses over per-tool host data touched at random.
  const hot = generateCalls(Math.min(8, p.tools), items, CALLS, 2).map((c) => [c]);
  figures.verifierHot = measure((i) => {
    const out = v.verdict(hot[i & (CALLS - 1)], state);
    consume(out.phi ^ out.nodes);
  }, p.timing);

  progress(`guard ${p.tools} tools, ${p.slots} slots`);
  const hash = createHash("sha256").update(r.blob).digest("hex");
  const g = guardOf({ kind: "wasm", tables: r.tables, blob: r.blob, hash, state, now: NOW, log: countingSink() });
  figures.guard = measure((i) => {
    const d = g.check(calls[i & (CALLS - 1)]);
    if (d.execution !== null) g.release(d.execution); // not run: judged alone next time
    consume(d.seq ^ (d.approved ? 1 : 0));
  }, p.timing);

  report({
    variant: `scale-${p.tools}t-${p.slots}s`,
    tools: p.tools,
    slots: p.slots,
    entities: items,
    blobBytes: r.blob.byteLength,
    compileMs: compileNs / 1e6,
    stateBuildMs: stateNs / 1e6,
    heapUsedMB: process.memoryUsage().heapUsed / 2 ** 20,
    figures,
  });
}

try {
  main();
} catch (e) {
  fail(e);
}
