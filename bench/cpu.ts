// CPU time (user + system, all of it: GC included) per guard.check on the airline mix (64 candidates, one
// call each, session scope, released) and per guard.observe of one tool result (the layerb variant's
// workload): a loaded machine stretches wall time, much less a process's own CPU time. Compare two
// checkouts by running this in each, interleaved: `npx tsx bench/cpu.ts [calls]`. Prints min and median
// of five rounds.
import { blobDigestHex } from "../src/blob/index.js";
import { AIRLINE_NOW, loadAirline, sequence } from "./lib/airline.js";
import { countingSink, guardOf } from "./lib/engines.js";
const f = loadAirline();
const state = f.state.clone();
const g = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state, rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
const cands = Array.from({ length: 64 }, (_, k) => sequence(f, 1, k, "mixed")[0]);
let sink = 0;
const one = (i: number) => { const d = g.check(cands[i & 63]); if (d.execution !== null) g.release(d.execution); sink ^= d.seq; };
for (let i = 0; i < 100000; i++) one(i);
const N = Number(process.argv[2] ?? 300000);
const out: number[] = [];
for (let rep = 0; rep < 5; rep++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) one(i);
  const c = process.cpuUsage(c0);
  out.push(((c.user + c.system) * 1000) / N);
}
out.sort((a, b) => a - b);
// observe: the layerb variant's workload (a reservation as JSON text, re-projected)
const ids = Object.keys(f.db.reservations).sort().slice(0, 64);
const obs = ids.map((id) => ({ call: { name: "update_reservation_baggages", arguments: { reservation_id: id, total_baggages: f.db.reservations[id].total_baggages, nonfree_baggages: f.db.reservations[id].nonfree_baggages, payment_id: "credit_card_1" } }, result: JSON.stringify(f.db.reservations[id]) }));
const g2 = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state: f.state.clone(), rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
const o = (i: number) => { const r = obs[i & 63]; const rep = g2.observe(r.call, r.result); sink ^= rep.sequenceLength; if ((i & 63) === 63) g2.checkpoint(); };
for (let i = 0; i < 20000; i++) o(i);
const M = Math.round(N / 6);
const oo: number[] = [];
for (let rep = 0; rep < 5; rep++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < M; i++) o(i);
  const c = process.cpuUsage(c0);
  oo.push(((c.user + c.system) * 1000) / M);
}
oo.sort((a, b) => a - b);
console.log(`check cpu ns/call min ${out[0].toFixed(0)} med ${out[2].toFixed(0)} | observe min ${oo[0].toFixed(0)} med ${oo[2].toFixed(0)}`, sink & 1);
