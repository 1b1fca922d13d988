// Veto (the default, the paper's VetoPolicy): refuse a mutating call that has no complete undo path
// with φ ≥ τ, with a static refusal naming the reason and the bottleneck.
import { refusalText } from "./text.js";
import type { DecisionPolicy, PolicyInput, PolicyOutcome } from "./types.js";

export const vetoPolicy: DecisionPolicy = Object.freeze({
  name: "veto",
  decide(input: PolicyInput): PolicyOutcome {
    if (input.admissible) return { route: "Approved", message: null, consent: null };
    return { route: "Vetoed", message: refusalText(input), consent: null };
  },
});
