// Advisory: never blocks, only records. A call the verdict admits is Approved; any other call passes
// through (AdvisoryPassthrough) and its decision still says what the verdict was and why.
import type { DecisionPolicy, PolicyInput, PolicyOutcome } from "./types.js";

export const advisoryPolicy: DecisionPolicy = Object.freeze({
  name: "advisory",
  decide(input: PolicyInput): PolicyOutcome {
    return { route: input.admissible ? "Approved" : "AdvisoryPassthrough", message: null, consent: null };
  },
});
