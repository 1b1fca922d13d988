// Escalate: when the call cannot be safely undone, look for the user's consent in the last three user
// messages; consent approves it, otherwise the call is dropped and the user is asked a deterministic,
// sink-aware question. A call the guard could not judge (malformed, unknown tool, missing entity,
// internal error) is never put to the user: it is refused like Veto does.
import { consentQuestion, refusalText } from "./text.js";
import { HARD_FAIL_REASONS, type DecisionPolicy, type PolicyInput, type PolicyOutcome } from "./types.js";

export const escalatePolicy: DecisionPolicy = Object.freeze({
  name: "escalate",
  decide(input: PolicyInput): PolicyOutcome {
    if (input.admissible) return { route: "Approved", message: null, consent: null };
    if (HARD_FAIL_REASONS.has(input.reason)) return { route: "Vetoed", message: refusalText(input), consent: null };
    const consent = input.consent.detect(input.userMessages, input.consentContext ?? null);
    if (consent.consent) return { route: "ConsentApproved", message: null, consent };
    return { route: "ConsentEscalated", message: consentQuestion(input), consent };
  },
});
