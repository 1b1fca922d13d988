// In `recent-messages` consent mode the guard tells the policy (and so the consent detector) what the
// latest message answers: the assistant's question and the words naming the call (`consentContext`). A
// detector that reads it decides on it; the decision records the same context, so an audit re-derives
// the answer. In question mode there is no context: the detector is given null.
import { describe, expect, it } from "vitest";
import { createGuard, type GuardOptions } from "../../src/guard/index.js";
import type { ConsentContext, ConsentDetector } from "../../src/policies/consent.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

const certificate = { name: "send_certificate", arguments: { user_id: "mia", amount: 50 } };

/** Consents only to a `yes` answering a question about a certificate; remembers what it was given. */
function namingDetector(): ConsentDetector & { seen: (ConsentContext | null | undefined)[] } {
  const seen: (ConsentContext | null | undefined)[] = [];
  return {
    id: "test-naming@1",
    seen,
    detect(messages, context) {
      seen.push(context);
      const yes = messages.length > 0 && /^yes/u.test(messages[messages.length - 1]);
      const named = context != null && context.question.includes("certificate");
      return { consent: yes && named, message: yes && named ? messages.length - 1 : -1, evidence: yes && named ? "yes" : null };
    },
  };
}

function guard(detector: ConsentDetector, consent: "question" | "recent-messages") {
  return createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "escalate", config: { now: NOW, consent, consentDetector: detector } } as GuardOptions);
}

describe("the consent context reaches the detector", () => {
  it("recent-messages: the detector decides on the question the answer answered: `yes` to the certificate question is consent, to another question it is not", () => {
    const detector = namingDetector();
    const g = guard(detector, "recent-messages");
    const named = g.check(certificate, { messages: [{ role: "assistant", content: "Shall I send the certificate to mia?" }, { role: "user", content: "yes" }] });
    expect(named.route).toBe("ConsentApproved");
    expect(named.consentContext?.question).toBe("Shall I send the certificate to mia?");
    expect(detector.seen.at(-1)).toEqual(named.consentContext);

    const other = g.check(certificate, { messages: [{ role: "assistant", content: "Shall I cancel reservation R1?" }, { role: "user", content: "yes" }] });
    expect(other.route).toBe("ConsentEscalated");
    expect(detector.seen.at(-1)).toEqual(other.consentContext ?? null);
  });

  it("question mode: the detector is given no context", () => {
    const detector = namingDetector();
    const d = guard(detector, "question").check(certificate, { userMessages: ["yes"] });
    expect(d.route).toBe("ConsentEscalated");
    expect(detector.seen).toEqual([null]);
  });
});
