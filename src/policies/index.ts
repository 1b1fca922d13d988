// Decision policies (SPEC §5) and the consent detector the Escalate policy uses.
import { advisoryPolicy } from "./advisory.js";
import { escalatePolicy } from "./escalate.js";
import { vetoPolicy } from "./veto.js";
import type { DecisionPolicy } from "./types.js";

export { vetoPolicy, escalatePolicy, advisoryPolicy };
export * from "./types.js";
export * from "./consent.js";
export * from "./classifier.js";
export { refusalText, consentQuestion, formatFixed } from "./text.js";

export type PolicyName = "veto" | "escalate" | "advisory";

export const BUILTIN_POLICIES: Readonly<Record<PolicyName, DecisionPolicy>> = Object.freeze({
  veto: vetoPolicy,
  escalate: escalatePolicy,
  advisory: advisoryPolicy,
});

/** A policy by name or the policy itself; null for an unknown name. */
export function resolvePolicy(policy: PolicyName | DecisionPolicy | undefined): DecisionPolicy | null {
  if (policy === undefined) return vetoPolicy;
  if (typeof policy === "string") return Object.prototype.hasOwnProperty.call(BUILTIN_POLICIES, policy) ? BUILTIN_POLICIES[policy as PolicyName] : null;
  if (typeof policy === "object" && policy !== null && typeof policy.name === "string" && typeof policy.decide === "function") return policy;
  return null;
}
