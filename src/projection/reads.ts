// Reads before judging: a domain's rules may say, per mutating tool, which read-only tools of the
// environment to call so Layer B holds the state the call touches when it is judged (the MCP gateway
// calls them on the real server). The reads' results become Layer B through effects, as tool results
// do; the model's words never do. Pure functions: whoever can call the tools runs the steps.
import { emptyContext } from "./expr.js";
import type { LayerB } from "./layer-b.js";
import { runEffects, type ApplyReport } from "./project.js";
import type { ProjectionRules, ReadRule, ReadStep } from "./rules.js";
import type { ToolCall } from "../core/types.js";

export type DeriveResult = { ok: true; call: ToolCall } | { ok: false; problem: string };

/** The call as the guard judges it: its own arguments plus the rule's derived ones. A derived name
 * the call already uses is refused (the model must not be able to choose what the guard reads). */
export function judgedCall(rule: ReadRule | undefined, call: ToolCall): DeriveResult {
  if (rule === undefined || rule.derive.length === 0) return { ok: true, call };
  const ctx = emptyContext();
  ctx.args = call.arguments;
  ctx.tool = call.name;
  const args: Record<string, unknown> = { ...call.arguments };
  for (const [name, ev] of rule.derive) {
    if (Object.prototype.hasOwnProperty.call(call.arguments, name)) {
      return { ok: false, problem: `\`${call.name}\`: argument \`${name}\` is reserved for the guard (derived from the others)` };
    }
    let v: unknown;
    try {
      v = ev(ctx);
    } catch (e) {
      return { ok: false, problem: `\`${call.name}\`: derived argument \`${name}\`: ${e instanceof Error ? e.message : String(e)}` };
    }
    // No value: the argument is left out, and the guard sees what is missing (e.g. no key).
    if (v !== undefined) Object.defineProperty(args, name, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, call: { name: call.name, arguments: args } };
}

/** The arguments of one read step for a judged call, or null when its `when` is not `true`. `state`
 * is Layer B as the earlier steps left it. */
export function readArguments(step: ReadStep, call: ToolCall, state: LayerB): Record<string, unknown> | null {
  const ctx = emptyContext(state);
  ctx.args = call.arguments;
  ctx.tool = call.name;
  if (step.when !== undefined && step.when(ctx) !== true) return null;
  const out: Record<string, unknown> = {};
  for (const [name, ev] of step.arguments) {
    const v = ev(ctx);
    if (v !== undefined) Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Applies one read's result to Layer B by the step's effects (`$args`: the judged call's arguments,
 * `$result`: what the read returned, errors included: "not found" is state too). */
export function applyReadResult(rules: ProjectionRules, state: LayerB, step: ReadStep, call: ToolCall, result: unknown): ApplyReport {
  return runEffects(rules, step.effects, state, call, result, {});
}

/** Applies the rule's `finally` effects, after every step ran (or was skipped). */
export function applyReadsFinally(rules: ProjectionRules, state: LayerB, rule: ReadRule, call: ToolCall): ApplyReport {
  return runEffects(rules, rule.finally, state, call, undefined, {});
}

export function readRuleOf(rules: ProjectionRules, tool: string): ReadRule | undefined {
  return rules.reads?.get(tool);
}
