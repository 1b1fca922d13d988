// The workload of bench/cpu.ts as a module, so two builds of the guard (this checkout's and another
// commit's, each an esbuild bundle of this file) can be measured in one process, alternating
// (`npx tsx bench/cpu.ts --ab OLD.mjs NEW.mjs`): on a loaded machine process-against-process CPU
// figures drift ±30%, two bundles in one process much less.
import { blobDigestHex } from "../../src/blob/index.js";
import { AIRLINE_NOW, loadAirline, sequence } from "./airline.js";
import { countingSink, guardOf } from "./engines.js";

export interface CpuWorkload {
  /** One guard.check of the airline mix (session scope, approvals released); answers a fold of the decision. */
  check(i: number): number;
  /** One guard.observe of a reservation's tool result (the layerb variant's workload). */
  observe(i: number): number;
}

export function cpuWorkload(): CpuWorkload {
  const f = loadAirline();
  const g = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state: f.state.clone(), rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
  const cands = Array.from({ length: 64 }, (_, k) => sequence(f, 1, k, "mixed")[0]);
  const ids = Object.keys(f.db.reservations).sort().slice(0, 64);
  const obs = ids.map((id) => ({ call: { name: "update_reservation_baggages", arguments: { reservation_id: id, total_baggages: f.db.reservations[id].total_baggages, nonfree_baggages: f.db.reservations[id].nonfree_baggages, payment_id: "credit_card_1" } }, result: JSON.stringify(f.db.reservations[id]) }));
  const g2 = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state: f.state.clone(), rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
  return {
    check(i) {
      const d = g.check(cands[i & 63]);
      if (d.execution !== null) g.release(d.execution);
      return d.seq;
    },
    observe(i) {
      const r = obs[i & 63];
      const rep = g2.observe(r.call, r.result);
      if ((i & 63) === 63) g2.checkpoint();
      return rep.sequenceLength;
    },
  };
}
