// wrapTools: put a guard in front of a plain map of tool functions, so integrating an agent is a
// configuration change. Each wrapped function checks first; a call that may not run returns
// `{ polar: route, message }` (the refusal or the consent question) instead of running; a call that
// runs has its result observed (Layer B and, in session scope, the forward sequence), as the
// execution the check approved, so parallel calls (Promise.all) are judged with each other pending.
// A tool that throws is observed with an unknown outcome unless its error says it changed nothing.
import type { Route } from "../policies/types.js";
import type { Decision } from "./decision.js";
import type { CheckContext, Guard, ObserveReport } from "./types.js";

export type ToolFunction = (args: Record<string, unknown>) => Promise<unknown> | unknown;

/** What a wrapped tool returns instead of running. */
export interface GuardRefusal {
  polar: Route;
  message: string;
  reason: Decision["reason"];
  seq: number;
}

export interface WrapOptions {
  /** The conversation as it is when a call arrives (user messages for consent; turn-scope calls). */
  context?: () => CheckContext;
  /** Sees every decision (logging, metrics, UI). */
  onDecision?: (decision: Decision) => void;
  /** Sees what observe() made of each result: `report.unknown` lists what a result that could not
   * be projected made unknown (later decisions on it fail closed until `guard.markKnown`). */
  onObserve?: (report: ObserveReport, decision: Decision) => void;
}

/**
 * What a tool throws when it failed before changing anything (a validation error, a refused request):
 * the guard releases the call. Any other error is a failure with an unknown outcome: the call may have
 * written before it threw, so what it acts on is unknown to later decisions until it is read again.
 * An error of another class with an own `changedNothing: true` property counts the same.
 */
export class NothingChangedError extends Error {
  readonly changedNothing = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NothingChangedError";
  }
}

/** Whether a tool's error says the tool changed nothing (NothingChangedError, or `changedNothing: true`). */
export function changedNothing(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { changedNothing?: unknown }).changedNothing === true;
}

export function isGuardRefusal(x: unknown): x is GuardRefusal {
  return typeof x === "object" && x !== null && typeof (x as GuardRefusal).polar === "string" && typeof (x as GuardRefusal).message === "string";
}

/** The same keys; each function may now also resolve to a GuardRefusal instead of running. */
export type WrappedTools<T> = { [K in keyof T]: (args: Record<string, unknown>) => Promise<unknown> };

export function wrapTools<T extends Record<string, ToolFunction>>(guard: Guard, tools: T, options: WrapOptions = {}): WrappedTools<T> {
  const out: Record<string, ToolFunction> = {};
  for (const name of Object.keys(tools)) {
    const run = tools[name];
    out[name] = async (args: Record<string, unknown>): Promise<unknown> => {
      const call = { name, arguments: args };
      const decision = await guard.checkAsync(call, options.context?.());
      options.onDecision?.(decision);
      if (!decision.approved) {
        return { polar: decision.route, message: decision.message ?? "", reason: decision.reason, seq: decision.seq } satisfies GuardRefusal;
      }
      // The tool runs on a copy of what was judged, never on `args` itself: a getter or a proxy could
      // answer the guard with one value and the tool with another.
      const judged = decision.call as { name: string; arguments: Record<string, unknown> };
      const runArgs = structuredClone(judged.arguments);
      const execution = decision.execution ?? undefined;
      let result: unknown;
      try {
        result = await run(runArgs);
      } catch (e) {
        // The tool failed. Only a failure it says changed nothing releases the call; any other may have
        // written before it threw (a timeout after the write), so what it acts on becomes unknown.
        const report = guard.observe(judged, undefined, changedNothing(e) ? { failed: true, execution } : { outcome: "unknown", execution });
        options.onObserve?.(report, decision);
        throw e;
      }
      const report = guard.observe(judged, result, { execution });
      options.onObserve?.(report, decision);
      return result;
    };
  }
  return out as WrappedTools<T>;
}
