// What a dispatcher (polar-guard/shell, polar-guard/sql) reads off the core's Decision for the typed
// calls it made from a command line or a statement: the inverse steps, the worst tier, and the core's
// reason in the dispatchers' words. One place, so both dispatchers say the same thing.
import type { TierName } from "../core/types.js";
import type { Decision } from "./decision.js";

/** One step of π as a dispatcher journals and shows it. */
export interface DispatchedStep {
  tool: string;
  arguments: Record<string, unknown>;
  forwardTool: string;
  tier: string;
  annotation: string;
}

/** "T0" → 0, "T3" → 3. */
export function tierRank(t: string): number {
  return Number(t.slice(1));
}

export function inverseOf(d: Decision): DispatchedStep[] {
  const v = d.verdict;
  if (v === null) return [];
  return v.steps.map((s) => ({ tool: s.tool ?? "", arguments: (s.arguments ?? {}) as Record<string, unknown>, forwardTool: s.forwardTool, tier: s.tier, annotation: s.annotation }));
}

/** The worst tier of π's steps, or null when there is no step. */
export function tierOf(d: Decision): TierName | null {
  const v = d.verdict;
  if (v === null || v.steps.length === 0) return null;
  return `T${Math.max(...v.steps.map((s) => tierRank(s.tier)))}` as TierName;
}

/** The core's reason as the dispatchers name it. */
export function coreReason(d: Decision): string {
  switch (d.reason) {
    case "irreversibly_consumes":
      return "irreversible";
    case "external_side_effect":
      return "external_effect";
    case "missing_entity":
      return "unknown_state";
    default:
      return d.reason;
  }
}
