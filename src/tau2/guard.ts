// The replay guard built on src/guard: advisory policy (never blocks: the trajectory is what it was),
// Layer B updated by the guard's own observe() through the domain's projection rules.
import { createGuard, type BackendFactory, type Decision, type GuardConfig, type OntologyInput } from "../guard/index.js";
import { blobDigestHex, decodeBlob } from "../blob/index.js";
import type { PolicyName } from "../policies/index.js";
import type { DecisionPolicy } from "../policies/types.js";
import type { ProjectionRules } from "../projection/rules.js";
import type { ReplayGuardFactory } from "./replay.js";
import { scopedConsentDetector } from "../policies/consent-scoped.js";

export interface AdvisoryGuardOptions {
  ontology: OntologyInput;
  rules: ProjectionRules;
  /** Default: the TypeScript reference backend (the guard's default). */
  backend?: BackendFactory;
  /** Default `advisory`; the evaluation can replay the same calls under veto or escalate to see what
   * they would have decided (the run still continues as it did). */
  policy?: PolicyName | DecisionPolicy;
  config?: Omit<GuardConfig, "projection">;
}

export function advisoryGuardFactory(options: AdvisoryGuardOptions): ReplayGuardFactory<Decision> {
  // Decode (and verify) a blob once, not once per trajectory and scope.
  const ontology: OntologyInput =
    options.ontology instanceof Uint8Array
      ? { tables: decodeBlob(options.ontology), hash: blobDigestHex(options.ontology), blob: options.ontology }
      : options.ontology;
  return (state, scope) => {
    const guard = createGuard({
      ontology,
      backend: options.backend,
      state,
      policy: options.policy ?? "advisory",
      scope,
      // The offline replay cannot ask the user the guard's question (the run is what it was): consent is
      // the paper's, a yes among the recent user messages that answers a message naming the call.
      // Read with the scoped detector (src/policies/consent-scoped.ts), unless the caller chose one.
      config: { consent: "recent-messages", consentDetector: scopedConsentDetector, ...options.config, projection: options.rules },
    });
    return {
      updatesState: true,
      check: (call, context) => guard.check(call, { userMessages: context.userMessages, turnCalls: context.turnCalls, messages: context.messages }),
      observe: (call, content, info) => guard.observe(call, content, { failed: info.error }).applied,
    };
  };
}
