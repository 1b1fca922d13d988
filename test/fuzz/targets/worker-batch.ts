// Worker batches with a failing operation: the Worker example's journal (examples/worker/src/journal.ts,
// the code its Durable Object runs) over an in-memory store, driven by random requests — batches of
// checks, observes and checkpoints, some with an operation that throws part-way (an observe the guard
// refuses), some whose storage commit fails, evictions between requests. Every request must be atomic:
// the stored log and the live Layer B equal a guard that ran only the requests that succeeded, in
// order; no log key is ever written twice; the log is one hash chain. Evicted, the journal resumes
// from its stored snapshot and Layer B deltas (the journal's guard is the built package's, on the
// Worker's TrackedLayerB; the reference is the source guard).
import fc from "fast-check";
import { createGuard as createBuiltGuard, type GuardSnapshot } from "polar-guard";
import { createChain, verifyAuditLog } from "../../../src/audit/index.js";
import { createGuard, type Guard } from "../../../src/guard/index.js";
import type { LayerB } from "../../../src/projection/layer-b.js";
import { SessionJournal, type JournalStore, type LoggedDecision, type Op, type Resume } from "../../../examples/worker/src/journal.js";
import { TrackedLayerB } from "../../../examples/worker/src/layer.js";
import { airlineRules, airlineState, NOW, referenceFactory } from "../../guard/helpers.js";
import { caseBudgetMs, fail, type FuzzTarget } from "../support.js";
import { AIRLINE, checkPreparedPath, ONTOLOGIES, sha256 } from "./lifecycle-session.js";

const CALLS = [
  { name: "update_reservation_cabin", arguments: { reservation_id: "R1", cabin: "business" } },
  { name: "update_reservation_cabin", arguments: { reservation_id: "R2", cabin: "economy" } },
  { name: "cancel_reservation", arguments: { reservation_id: "R1" } },
  { name: "cancel_reservation", arguments: { reservation_id: "R2" } },
  { name: "get_reservation_details", arguments: { reservation_id: "R1" } },
  { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } },
  { name: "update_reservation_flights", arguments: { reservation_id: "R2", flights: [{ flight_number: "HAT001", date: "2024-05-20" }] } },
];

/** Arguments nested past the guard's JSON copy depth: observe() throws `invalid-call` on them. */
function deepArguments(): Record<string, unknown> {
  let v: unknown = "x";
  for (let i = 0; i < 80; i++) v = { d: v };
  return { reservation_id: "R1", deep: v };
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ call: fc.constantFrom(...CALLS), yes: fc.boolean() }).map(({ call, yes }): Op => ({ op: "check", call, context: { userMessages: yes ? ["yes, go ahead"] : ["hello"] } })), weight: 4 },
  { arbitrary: fc.record({ call: fc.constantFrom(...CALLS), failed: fc.boolean() }).map(({ call, failed }): Op => ({ op: "observe", call, result: JSON.stringify({ ok: true }), failed })), weight: 2 },
  { arbitrary: fc.constant<Op>({ op: "checkpoint" }), weight: 1 },
);

interface Request {
  ops: Op[];
  /** Insert a throwing operation at this position (modulo the batch length + 1). */
  throwAt: number | null;
  failCommit: boolean;
  evictBefore: boolean;
}

const requestArb: fc.Arbitrary<Request> = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 6 }),
  throwAt: fc.option(fc.nat(), { freq: 3 }),
  failCommit: fc.boolean(),
  evictBefore: fc.boolean(),
});

/** A guard whose log sink gets each decision; `chained` links them itself (the reference's log), else
 * the journal does. Prepared once per process (lifecycle-session.ts): the decoded blob, native SHA-256. */
function newGuard(log: (d: LoggedDecision) => void, chained: boolean): Guard {
  const chain = createChain({ sha256 });
  return createGuard({
    ontology: AIRLINE,
    backend: referenceFactory,
    state: airlineState(),
    policy: "escalate",
    scope: "session",
    config: { now: NOW, projection: airlineRules, log: { append: (d) => log(chained ? (chain.link(d).record as LoggedDecision) : (d as LoggedDecision)) }, sha256 },
  });
}

/** The journal's guard, as the Worker builds it: the built package on a TrackedLayerB, resumed from
 * storage when the journal asks. */
function journalGuard(log: (d: LoggedDecision) => void, resume: Resume | undefined): unknown {
  const initial = (): TrackedLayerB => TrackedLayerB.from(airlineState().toJSON());
  return createBuiltGuard({
    ontology: AIRLINE as never,
    backend: referenceFactory as never,
    state: resume === undefined ? initial() : resume.state(initial),
    policy: "escalate",
    scope: "session",
    config: { now: NOW, projection: airlineRules as never, log: { append: (d) => log(d as LoggedDecision) }, sha256 },
    resume: resume?.snapshot as GuardSnapshot | undefined,
  });
}

function apply(guard: Guard, op: Op): void {
  if (op.op === "check") guard.check(op.call, op.context as never);
  else if (op.op === "observe") guard.observe(op.call, op.result, { failed: op.failed });
  else guard.checkpoint();
}

const REWRITTEN = ["head", "snapshot", "base"];

export async function checkRequests(requests: Request[]): Promise<void> {
  const stored = new Map<string, unknown>();
  let failNextCommit = false;
  const store: JournalStore = {
    get: async (key) => structuredClone(stored.get(key)),
    list: async (prefix, start = "") => new Map([...stored.entries()].filter(([k]) => k.startsWith(prefix) && k >= start).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    commit: async (entries) => {
      if (failNextCommit) {
        failNextCommit = false;
        throw new Error("storage refused the write");
      }
      // The log head, the snapshot and the Layer B base are rewritten; journal, log and delta keys never are.
      for (const k of Object.keys(entries)) if (!REWRITTEN.includes(k) && stored.has(k)) fail(`the key \`${k}\` was written twice`);
      for (const [k, v] of Object.entries(entries)) stored.set(k, structuredClone(v));
    },
  };
  const journal = new SessionJournal(store, async (log, resume) => journalGuard(log as never, resume) as never);
  await journal.start();
  // The reference: a guard that runs exactly the requests that succeeded.
  const expectedLog: LoggedDecision[] = [];
  const reference = newGuard((d) => expectedLog.push(JSON.parse(JSON.stringify(d))), true);
  const t0 = performance.now();
  for (const r of requests) {
    if (r.evictBefore) journal.forget();
    const ops = [...r.ops];
    const throws = r.throwAt !== null;
    if (throws) ops.splice(r.throwAt! % (ops.length + 1), 0, { op: "observe", call: { name: "cancel_reservation", arguments: deepArguments() }, result: null, failed: false });
    failNextCommit = r.failCommit;
    let ok = true;
    try {
      await journal.run(ops);
    } catch {
      ok = false;
    }
    failNextCommit = false;
    if (ok && (throws || r.failCommit)) fail("a request with a throwing operation or a failed commit succeeded");
    if (!ok && !throws && !r.failCommit) fail("a plain request failed");
    if (ok) for (const op of ops) apply(reference, op);
  }
  const spent = performance.now() - t0;
  if (spent > caseBudgetMs(5000)) fail(`the requests took ${spent.toFixed(0)} ms`);
  for (const k of stored.keys()) if (!REWRITTEN.includes(k) && !k.startsWith("op:") && !k.startsWith("log:") && !k.startsWith("delta:")) fail(`an unexpected key \`${k}\` was stored`);
  const logKeys = [...stored.keys()].filter((k) => k.startsWith("log:")).sort();
  const got = logKeys.map((k) => stored.get(k));
  if (JSON.stringify(got) !== JSON.stringify(expectedLog)) {
    fail(`the stored log (${got.length} records) is not the log of the requests that succeeded (${expectedLog.length})`);
  }
  const live = await journal.ready();
  if (JSON.stringify((live.state as LayerB).toJSON()) !== JSON.stringify((reference.state as LayerB).toJSON())) fail("the live Layer B differs from the successful requests'");
  if (JSON.stringify(live.sequence()) !== JSON.stringify(reference.sequence())) fail("the live forward sequence differs from the successful requests'");
  if (got.length > 0) {
    const report = verifyAuditLog(got.map((d) => JSON.stringify(d)), { ontologies: ONTOLOGIES, sha256 });
    if (!report.ok) fail(`the stored log does not verify: ${JSON.stringify(report.mismatches.slice(0, 3))}`);
  }
}

export const workerBatchTarget: FuzzTarget = {
  name: "worker-batch",
  claim: "Worker requests are atomic: with throwing operations, failed commits and evictions, the stored log and Layer B equal a guard that ran only the successful requests, no log key is written twice, and the log verifies",
  ciRuns: 120,
  property() {
    checkPreparedPath();
    return fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 6 }), (requests) => checkRequests(requests));
  },
};
