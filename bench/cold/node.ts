// One cold-start sample in a fresh Node process: import the library, instantiate the core, load the
// compiled airline ontology, and answer the first verdict (then import the guard, create it and answer
// the first guard.check). Prints one JSON
// line (argv: repository root, library bundle, optional "trusted"). performance.now() counts from the process's time origin, so `boot` is Node's own start-up.
import * as crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] ?? ".";
const libPath = process.argv[3] ?? "./cold-lib.mjs";
const guardPath = libPath.replace(/cold-lib\.mjs$/, "cold-guard.mjs");
// "trusted": skip the blob's SHA-256 check (pure JavaScript, slow before the JIT warms up); shows what
// a native digest would leave.
const trusted = process.argv[4] === "trusted";

// CPU time of the process too (all its threads): on a shared machine the wall clock also counts the
// time other processes held the cores; CPU time is what an idle machine would show.
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const c0 = cpuMs();
const t0 = performance.now();
const lib = (await import(libPath)) as typeof import("./lib.js");
const t1 = performance.now();
// As the Node entry does (node-platform.ts): a synchronous compile of the small core.
const core = lib.instantiateCoreSync(readFileSync(join(root, "build", "polar-core.wasm")));
const t2 = performance.now();
const blob = new Uint8Array(readFileSync(join(root, "ontologies", "airline", "airline.blob")));
// As the Node entry does: the digest check uses node:crypto's native SHA-256.
// (the one-shot crypto.hash where Node has it, as src/runtimes/node-platform.ts does).
const sha256 = (data: Uint8Array | string): Uint8Array => {
  if (typeof crypto.hash === "function") {
    const d: unknown = crypto.hash("sha256", data, "buffer");
    if (d instanceof Uint8Array) return d;
  }
  return crypto.createHash("sha256").update(data).digest();
};
const tables = lib.decodeBlob(blob, trusted ? { verifyDigest: false } : { sha256 });
const backend = core.load(blob);
const verifier = lib.createVerifier(tables, backend, { now: "2024-05-15T15:00:00" });
const t3 = performance.now();
// A small Layer B: the one reservation the call names.
const state = new lib.LayerB();
for (const [slot, value] of Object.entries({ user_id: "u1", cabin: "economy", status: null, flown: false, nonfree_baggages: 1, total_baggages: 1 })) state.set("reservation", "R1", slot, value);
const call = { name: "update_reservation_baggages", arguments: { reservation_id: "R1", total_baggages: 2, nonfree_baggages: 1, payment_id: "credit_card_1" } };
const v = verifier.verdict([call], state);
const t4 = performance.now();
const c4 = cpuMs();
const { createGuard } = (await import(guardPath)) as typeof import("./guard.js");
const ontology = trusted ? { tables, hash: "trusted", blob } : blob;
const guard = createGuard({ ontology, backend: () => backend, state, policy: "veto", config: { now: "2024-05-15T15:00:00", sha256 } });
const d = guard.check(call);
const t5 = performance.now();
const c5 = cpuMs();
process.stdout.write(
  `${JSON.stringify({ boot: t0, import: t1 - t0, instantiate: t2 - t1, load: t3 - t2, firstVerdict: t4 - t3, toFirstVerdict: t4 - t0, firstCheck: t5 - t4, cpuToFirstVerdict: c4 - c0, cpuFirstCheck: c5 - c4, reason: v.reason, route: d.route })}\n`,
);
