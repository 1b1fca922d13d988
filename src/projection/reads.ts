// Reads before judging: a domain's rules may say, per mutating tool, which read-only tools of the
// environment to call so Layer B holds the state the call touches when it is judged (the MCP gateway
// calls them on the real server). The reads' results become Layer B through effects, as tool results
// do; the model's words never do. Pure functions: whoever can call the tools runs the steps.
import { emptyContext, type Evaluator } from "./expr.js";
import type { LayerB } from "./layer-b.js";
import { runEffects, type ApplyReport } from "./project.js";
import { Checker, escapePtr, isObj, parseEffect, type EffectRule, type EntityRule, type ProjectionRules } from "./rules.js";
import { ProjectionError, type RuleIssue } from "./errors.js";
import type { ToolCall } from "../core/types.js";

/** One read-only call made before a mutating call is judged (docs/projection.md, "Reads"). */
export interface ReadStep {
  /** The read-only tool of the server to call. */
  tool: string;
  /** Its arguments, each an expression over the mutating call's `$args`. */
  arguments: ReadonlyArray<readonly [string, Evaluator]>;
  /** Make this read only when `true` (it may look at what earlier steps put in Layer B). */
  when: Evaluator | undefined;
  /** How the read's result (`$result`) becomes Layer B; `$args` is the mutating call's. */
  effects: readonly EffectRule[];
}

/** How to read, from the environment itself, the state a mutating call touches before judging it. */
export interface ReadRule {
  /** Arguments added to the call as the guard judges it (never sent to the tool), e.g. the one
   * entity a batch argument names: the ontology's `key` can then name it. */
  derive: ReadonlyArray<readonly [string, Evaluator]>;
  steps: readonly ReadStep[];
  /** Effects applied after the last step (no `$result`), e.g. to retract an entity whose inverse is
   * not complete after all the reads. */
  finally: readonly EffectRule[];
  /** Said to the model when, after the reads, the entity the call acts on is not in Layer B. */
  ungrounded: string | undefined;
}

/** Read rules by mutating tool name. */
export type ReadRules = ReadonlyMap<string, ReadRule>;

export type ParseReadsResult = { ok: true; reads: ReadRules } | { ok: false; issues: RuleIssue[] };

/** Validates and compiles the `reads` of a rules document (its entity types come from `rules`); an
 * absent `reads` is an empty table. Never throws. */
export function safeParseReadRules(rules: ProjectionRules): ParseReadsResult {
  const c = new Checker();
  const json = rules.source as Record<string, unknown>;
  const reads = parseReadTable(c, json.reads, rules.entities as Map<string, EntityRule>);
  return c.issues.length > 0 ? { ok: false, issues: c.issues } : { ok: true, reads };
}

/** safeParseReadRules, throwing `ProjectionError` (`invalid-rules`) with every issue. */
export function parseReadRules(rules: ProjectionRules): ReadRules {
  const r = safeParseReadRules(rules);
  if (r.ok) return r.reads;
  const first = r.issues[0];
  throw new ProjectionError("invalid-rules", `invalid read rules: ${first.message} at \`${first.path}\`${r.issues.length > 1 ? ` (and ${r.issues.length - 1} more)` : ""}`, {
    issues: r.issues,
    help: r.issues.map((i) => `${i.path}: ${i.message}`).join("\n"),
  });
}


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


function parseArgMap(c: Checker, v: unknown, p: string, what: string): Array<readonly [string, Evaluator]> {
  if (v === undefined) return [];
  if (!isObj(v)) {
    c.add("bad-type", p, `\`${what}\` must be an object from argument name to expression`);
    return [];
  }
  return Object.keys(v).map((k) => [k, c.expr(v[k], `${p}/${escapePtr(k)}`)] as const);
}

function parseReadTable(c: Checker, v: unknown, entities: Map<string, EntityRule>): Map<string, ReadRule> {
  const out = new Map<string, ReadRule>();
  if (v === undefined) return out;
  if (!isObj(v)) {
    c.add("bad-type", "/reads", "`reads` must be an object from tool name to a read rule");
    return out;
  }
  for (const name of Object.keys(v)) {
    const p = `/reads/${escapePtr(name)}`;
    if (!c.name(name, p, "a tool name")) continue;
    const r = v[name];
    if (!isObj(r)) {
      c.add("bad-type", p, `the read rule of \`${name}\` must be an object`);
      continue;
    }
    c.keys(r, p, ["comment", "derive", "steps", "finally", "ungrounded"]);
    const derive = parseArgMap(c, r.derive, `${p}/derive`, "derive");
    if (r.ungrounded !== undefined && typeof r.ungrounded !== "string") c.add("bad-type", `${p}/ungrounded`, "`ungrounded` must be a string");
    const steps: ReadStep[] = [];
    if (r.steps !== undefined && !Array.isArray(r.steps)) c.add("bad-type", `${p}/steps`, "`steps` must be a list of read steps");
    else {
      (r.steps ?? []).forEach((s: unknown, i: number) => {
        const sp = `${p}/steps/${i}`;
        if (!isObj(s)) {
          c.add("bad-type", sp, "a read step must be an object");
          return;
        }
        c.keys(s, sp, ["comment", "tool", "arguments", "when", "effects"]);
        const okTool = c.name(s.tool, `${sp}/tool`, "`tool`");
        const args = parseArgMap(c, s.arguments, `${sp}/arguments`, "arguments");
        const when = s.when === undefined ? undefined : c.expr(s.when, `${sp}/when`);
        if (!Array.isArray(s.effects)) {
          c.add("missing-key", sp, "a read step needs `effects` (a list: how its result becomes Layer B)");
          return;
        }
        const effects = s.effects.flatMap((e: unknown, j: number) => parseEffect(c, e, `${sp}/effects/${j}`, entities) ?? []);
        if (okTool) steps.push({ tool: s.tool as string, arguments: args, when, effects });
      });
    }
    let fin: EffectRule[] = [];
    if (r.finally !== undefined && !Array.isArray(r.finally)) c.add("bad-type", `${p}/finally`, "`finally` must be a list of effects");
    else if (Array.isArray(r.finally)) fin = r.finally.flatMap((e: unknown, j: number) => parseEffect(c, e, `${p}/finally/${j}`, entities) ?? []);
    if (derive.length === 0 && steps.length === 0) c.add("bad-effect", p, "a read rule needs `derive` or `steps`");
    out.set(name, { derive, steps, finally: fin, ungrounded: typeof r.ungrounded === "string" ? r.ungrounded : undefined });
  }
  return out;
}
