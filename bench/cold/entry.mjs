// One cold-start sample of the package as a user imports it: a fresh Node process imports the real
// Node entry (`dist/node.js`, the whole neutral API), loads the airline ontology with `loadVerifier`
// (packaged core, blob read and validated with the native digest) and answers the first verdict; then
// `loadGuard` and the first `guard.check`. Not bundled: it measures the files that ship. With "builtins"
// it first imports the Node built-ins the entry needs (node:crypto, node:fs, node:url) before its
// clock, as an application that already uses them has: the difference is Node's own share.
// argv: repository root, optional "builtins". Prints one JSON line.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.argv[2] ?? ".";
if (process.argv[3] === "builtins") {
  await import("node:crypto");
  await import("node:fs");
  await import("node:url");
}
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const c0 = cpuMs();
const t0 = performance.now();
const lib = await import(pathToFileURL(join(root, "dist", "node.js")).href);
const t1 = performance.now();
const c1 = cpuMs();
const ontologyPath = join(root, "ontologies", "airline", "airline.blob");
const now = "2024-05-15T15:00:00";
const verifier = await lib.loadVerifier({ ontologyPath, verifier: { now } });
const state = new lib.LayerB();
for (const [slot, value] of Object.entries({ user_id: "u1", cabin: "economy", status: null, flown: false, nonfree_baggages: 1, total_baggages: 1 })) state.set("reservation", "R1", slot, value);
const call = { name: "update_reservation_baggages", arguments: { reservation_id: "R1", total_baggages: 2, nonfree_baggages: 1, payment_id: "credit_card_1" } };
const v = verifier.verdict([call], state);
const t2 = performance.now();
const c2 = cpuMs();
const guard = await lib.loadGuard({ ontologyPath, state, policy: "veto", config: { now } });
const d = guard.check(call);
const t3 = performance.now();
const c3 = cpuMs();
process.stdout.write(
  `${JSON.stringify({ boot: t0, import: t1 - t0, toFirstVerdict: t2 - t0, firstCheck: t3 - t2, cpuImport: c1 - c0, cpuToFirstVerdict: c2 - c0, cpuFirstCheck: c3 - c2, reason: v.reason, route: d.route })}\n`,
);
