// Parallel checks: a batch of calls checked before any of them is observed (Promise.all over wrapped
// tools, a Worker batch) is judged with the earlier approved ones pending, exactly as a fresh guard
// judges each call with those calls as earlier calls of the same message; then observed or released in
// any order, the session stays consistent and its log replays.
import fc from "fast-check";
import { createGuard, type Decision } from "../../../src/guard/index.js";
import { fail, type FuzzTarget } from "../support.js";
import { AIRLINE, airlineRules, airlineState, CALLS, checkLog, checkPreparedPath, newLog, NOW, referenceFactory, sha256 } from "./lifecycle-session.js";

interface Case {
  policy: "veto" | "advisory";
  batch: number[];
  /** Per approved call: observe (true) or release (false), and in which order. */
  ran: boolean[];
  order: number[];
  after: number;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  policy: fc.constantFrom("veto" as const, "advisory" as const),
  batch: fc.array(fc.nat(CALLS.length - 1), { minLength: 1, maxLength: 6 }),
  ran: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 6, maxLength: 6 }),
  after: fc.nat(CALLS.length - 1),
});

function essence(d: Decision): string {
  return JSON.stringify({ route: d.route, reason: d.reason, bytes: d.verdict?.bytes ?? null });
}

/** The twin's answers by (policy, earlier approved calls, call): a fresh guard is a pure function of
 * them, so each is computed once per process (bounded; cleared when full). */
const twinAnswers = new Map<string, string>();
const MAX_TWIN_ANSWERS = 200_000;

function twinEssence(policy: Case["policy"], earlier: readonly number[], call: number): string {
  const key = `${policy}|${earlier.join(",")}|${call}`;
  let e = twinAnswers.get(key);
  if (e === undefined) {
    // A fresh guard, turn scope, the batch's earlier approved calls as the message's calls.
    const twin = createGuard({ ontology: AIRLINE, backend: referenceFactory, state: airlineState(), scope: "turn", policy, config: { now: NOW, sha256 } });
    e = essence(twin.check(CALLS[call], { turnCalls: earlier.map((i) => CALLS[i]) }));
    if (twinAnswers.size >= MAX_TWIN_ANSWERS) twinAnswers.clear();
    twinAnswers.set(key, e);
  }
  return e;
}

export function checkParallel(c: Case): void {
  const state = airlineState();
  const records = newLog();
  const g = createGuard({ ontology: AIRLINE, backend: referenceFactory, state, scope: "session", policy: c.policy, config: { now: NOW, projection: airlineRules, log: records, sha256 } });
  const decisions = c.batch.map((i) => g.check(CALLS[i]));
  const approved: { call: (typeof CALLS)[number]; index: number; d: Decision }[] = [];
  decisions.forEach((d, k) => {
    const expected = twinEssence(c.policy, approved.map((a) => a.index), c.batch[k]);
    if (essence(d) !== expected) fail(`batch call ${k}: judged ${essence(d)} with the earlier calls pending, ${expected} in sequence`);
    const pendingBefore = d.forward.filter((f) => (f as { pending?: boolean }).pending === true).length;
    if (pendingBefore !== approved.length) fail(`batch call ${k}: ${pendingBefore} pending calls in its forward, ${approved.length} approved before it`);
    if (d.approved && d.reason !== "read_only") {
      if (d.execution !== `x${d.seq}`) fail(`an approval without its execution id (${String(d.execution)})`);
      approved.push({ call: CALLS[c.batch[k]], index: c.batch[k], d });
    } else if (d.execution !== null) fail(`a refusal or read-only call has an execution (${d.execution})`);
  });
  for (const i of c.order) {
    const a = approved[i];
    if (a === undefined) continue;
    if (c.ran[i]) g.observe(a.call, JSON.stringify(state.entity("reservation", String(a.call.arguments.reservation_id)) ?? { ok: true }), { execution: a.d.execution! });
    else if (!g.release(a.d.execution!)) fail(`release of a pending execution answered false`);
  }
  if (g.pending().length !== 0) fail(`${g.pending().length} executions still pending after every one was observed or released`);
  const last = g.check(CALLS[c.after]);
  if (last.forward.some((f) => (f as { pending?: boolean }).pending === true)) fail("a released or observed execution is still pending in the forward sequence");
  checkLog(records);
}

export const guardParallelTarget: FuzzTarget = {
  name: "guard-parallel",
  claim: "a batch checked before any call is observed is judged as the same calls in sequence; observe/release in any order leaves nothing pending; frozen records, contiguous seqs, a log that replays",
  ciRuns: 500,
  property() {
    checkPreparedPath();
    return fc.property(caseArb, (c) => checkParallel(c));
  },
};
