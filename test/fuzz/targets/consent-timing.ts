// Consent timing: in the default `question` mode a call is ConsentApproved only by a user message that
// came after the guard asked about that exact call (canonical JSON), and one answer approves one
// execution; a yes from before the question, or to another call's question, never counts.
import fc from "fast-check";
import { createGuard, type Decision } from "../../../src/guard/index.js";
import { fail, type FuzzTarget } from "../support.js";
import { AIRLINE, airlineState, CALLS, checkLog, checkPreparedPath, newLog, keyOf, NOW, referenceFactory, sha256 } from "./lifecycle-session.js";

const SAYINGS = ["yes", "yes please", "ok go ahead", "no", "hmm maybe", "네, 진행해 주세요", "아니요", "sure", "wait", "my id is R1", "do it"];

type Op = { kind: "say"; text: number } | { kind: "check"; call: number; run: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("say" as const), text: fc.nat(SAYINGS.length - 1) }),
  fc.record({ kind: fc.constant("check" as const), call: fc.nat(CALLS.length - 1), run: fc.boolean() }),
);

export function checkConsentTiming(ops: Op[], scope: "turn" | "session"): void {
  const records = newLog();
  const g = createGuard({ ontology: AIRLINE, backend: referenceFactory, state: airlineState(), scope, policy: "escalate", config: { now: NOW, log: records, sha256 } });
  const messages: string[] = [];
  /** Per call key: the user-message count when the guard last asked, until an answer spends it. */
  const asked = new Map<string, number>();
  for (const op of ops) {
    if (op.kind === "say") {
      messages.push(SAYINGS[op.text]);
      continue;
    }
    const call = CALLS[op.call];
    const key = keyOf(call);
    const d = g.check(call, { userMessages: messages.slice() });
    if (d.route === "ConsentApproved") {
      const at = asked.get(key);
      if (at === undefined) fail(`\`${call.name}\` was ConsentApproved without a question about it`);
      if (messages.length <= at) fail(`\`${call.name}\` was ConsentApproved with no user message after the question`);
      const after = messages.slice(at);
      for (const m of d.userMessages) if (!after.includes(m)) fail(`consent read \`${m}\`, which came before the question`);
      asked.delete(key);
    }
    if (d.route === "ConsentEscalated") asked.set(key, messages.length);
    if (d.execution !== null) {
      if (op.run) g.observe(call, { ok: true }, { execution: d.execution });
      else g.release(d.execution);
    }
  }
  checkLog(records);
}

export const consentTimingTarget: FuzzTarget = {
  name: "consent-timing",
  claim: "ConsentApproved only by a user message after the guard's question about that exact call, one answer per execution; the log replays",
  ciRuns: 500,
  property() {
    checkPreparedPath();
    return fc.property(fc.array(opArb, { maxLength: 16 }), fc.constantFrom("turn" as const, "session" as const), checkConsentTiming);
  },
};
