// The model components (docs/guard.md, "Model components"): the request classifier's and the intent
// parser's answers for a call, checked against their contracts. Any failure becomes `error`, and the
// decision then fails closed. Read-only and unknown calls skip the models.
import { REQUEST_CLASSES, type TargetState } from "../policies/classifier.js";
import { checkCallShape, jsonSafe } from "./call.js";
import { readContext } from "./context.js";
import type { Engine } from "./engine.js";
import { describeError } from "./errors.js";
import { NO_MODEL, type ModelAnswers } from "./evaluate.js";
import type { CheckContext, GuardConfig } from "./types.js";

export function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof (x as { then?: unknown } | null)?.then === "function";
}

/** The classifier's and the intent parser's answers, checked against their contracts. Any failure
 * becomes `error` (the decision then fails closed). Read-only and unknown calls skip the models. */
export function askModels(cfg: GuardConfig, engine: Engine, rawCall: unknown, context: CheckContext | undefined, sync: boolean): ModelAnswers | Promise<ModelAnswers> {
  const checked = checkCallShape(jsonSafe(rawCall));
  if (!checked.ok) return NO_MODEL;
  const info = engine.verifier.tool(checked.call.name);
  if (!info.known || info.readOnly) return NO_MODEL;
  const ctx = readContext(context);
  if (ctx.error !== null) return NO_MODEL; // the decision fails closed on the context itself
  const input = { userMessages: ctx.users, call: checked.call };
  let cls: unknown;
  let tgt: unknown;
  try {
    cls = cfg.requestClassifier?.classify(input) ?? null;
    tgt = cfg.intentParser?.parse(input) ?? null;
  } catch (e) {
    return { ...NO_MODEL, error: `model: component failed: ${describeError(e)}` };
  }
  if (sync && (isThenable(cls) || isThenable(tgt))) {
    // Silence the rejection of a promise nobody will await; check() throws async-required.
    for (const p of [cls, tgt]) if (isThenable(p)) Promise.resolve(p).catch(() => {});
    return Promise.resolve(NO_MODEL);
  }
  const finish = (c: unknown, t: unknown): ModelAnswers => {
    if (c !== null && !REQUEST_CLASSES.includes(c as never)) return { ...NO_MODEL, error: `model: the request classifier answered \`${String(c)}\`` };
    const targets = t === null ? null : validTargets(t);
    if (targets === undefined) return { ...NO_MODEL, error: "model: the intent parser answered something other than target states" };
    return { classification: c as ModelAnswers["classification"], targets, error: null };
  };
  if (isThenable(cls) || isThenable(tgt)) {
    return Promise.all([cls, tgt]).then(
      ([c, t]) => finish(c, t),
      (e) => ({ ...NO_MODEL, error: `model: component failed: ${describeError(e)}` }),
    );
  }
  return finish(cls, tgt);
}

function validTargets(t: unknown): TargetState[] | undefined {
  if (!Array.isArray(t)) return undefined;
  const out: TargetState[] = [];
  for (const x of t) {
    const s = jsonSafe(x) as Record<string, unknown> | null;
    if (typeof s !== "object" || s === null || !Array.isArray(s.assertions)) return undefined;
    for (const a of s.assertions as Record<string, unknown>[]) {
      if (typeof a?.entity !== "string" || typeof a.id !== "string" || typeof a.slot !== "string" || !("value" in a)) return undefined;
    }
    out.push({ label: typeof s.label === "string" ? s.label : `target ${out.length}`, assertions: s.assertions as TargetState["assertions"] });
  }
  return out;
}
