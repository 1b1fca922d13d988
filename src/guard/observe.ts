// observe: an executed call's result fed back into the guard. The call is matched to its pending
// execution (by id, or the oldest pending execution of the same call), its result projected into Layer
// B by the projection rules, and the call recorded in the lifecycle (session scope: the forward
// sequence). A result that cannot be projected, or an unknown outcome, marks what the call acts on
// unknown (src/guard/unknown.ts). A wrong call or options is a GuardError `invalid-call`.
import type { ExecutedCall, ToolCall } from "../core/types.js";
import { fieldAt } from "../core/values.js";
import type { LayerB } from "../projection/layer-b.js";
import { applyToolResult, parseToolResult, type ApplyReport } from "../projection/project.js";
import type { BeforeReader } from "./before.js";
import { callKey, checkCallShape, frozenJsonSafe, ownExecuted, setBefore, type LazyBefore } from "./call.js";
import type { Engine } from "./engine.js";
import { describeError, GuardError } from "./errors.js";
import type { Execution, Lifecycle } from "./lifecycle.js";
import type { ResolvedOptions } from "./options.js";
import type { ObserveOptions, ObserveReport } from "./types.js";
import type { UnknownMark, UnknownMarks } from "./unknown.js";

export class Observer {
  constructor(
    private readonly o: ResolvedOptions,
    private readonly engine: Engine,
    private readonly lifecycle: Lifecycle,
    private readonly unknown: UnknownMarks,
    private readonly before: BeforeReader,
  ) {}

  observe(call: ToolCall, result: unknown, opts: ObserveOptions = {}): ObserveReport {
    const { lifecycle, unknown } = this;
    const scope = this.o.scope;
    const cfg = this.o.cfg;
    if (typeof opts !== "object" || opts === null) throw new GuardError("invalid-call", "observe: the options are not an object");
    if (opts.failed !== undefined && typeof opts.failed !== "boolean") throw new GuardError("invalid-call", "observe: `failed` is not a boolean");
    if (opts.execution !== undefined && typeof opts.execution !== "string") throw new GuardError("invalid-call", "observe: `execution` is not a string");
    if (opts.outcome !== undefined && opts.outcome !== "unknown") throw new GuardError("invalid-call", "observe: `outcome` is not `\"unknown\"`");
    if (opts.outcome === "unknown" && opts.failed === true) throw new GuardError("invalid-call", "observe: a call cannot be both `failed` (nothing changed) and of `unknown` outcome", "a call whose outcome is unknown may have changed something: pass only `outcome`");
    const safe = frozenJsonSafe(call);
    const checked = checkCallShape(safe);
    if (!checked.ok) throw new GuardError("invalid-call", `observe: ${checked.problem}`);
    const key = callKey(checked.call);
    let x: Execution | undefined;
    if (opts.execution !== undefined) {
      x = lifecycle.get(opts.execution);
      if (x === undefined || x.state !== "pending") throw new GuardError("invalid-call", `observe: execution \`${opts.execution}\` is not pending`, "pass the `execution` of an approved decision, once");
      if (x.key !== key) throw new GuardError("invalid-call", `observe: execution \`${opts.execution}\` approved another call (\`${x.call.name}\`)`);
    } else x = lifecycle.match(key);
    if (opts.failed === true) {
      if (x !== undefined) lifecycle.release(x);
      return { applied: null, sequenceLength: lifecycle.sequence().length, execution: x?.id ?? null, unknown: null };
    }
    // The entity before the call ran: the approved execution's (kept at its check), or Layer B's now,
    // before the projection changes it. With a LayerB it is made when first read (most entries are
    // committed unread): from the record Layer B keeps unchanged for it.
    const before = x !== undefined ? x.lazyBefore() : (this.before.keep(checked.call) as LazyBefore);
    const info = this.engine.verifier.tool(checked.call.name);
    const mutating = !info.known || !info.readOnly;
    const markActed = (): UnknownMark => {
      const k = info.keyArg === null ? undefined : fieldAt(checked.call.arguments, info.keyArg);
      const id = info.actsOn !== null && (typeof k === "string" || typeof k === "number") ? String(k) : null;
      const m: UnknownMark = { entity: info.actsOn ?? "*", id, tool: checked.call.name, execution: x?.id ?? null };
      unknown.mark(m);
      return m;
    };
    if (opts.outcome === "unknown") {
      // Nothing to project; the call stays in the forward sequence (it may have run) and what it acts
      // on is unknown (a read-only call changed nothing: it is observed as run).
      const marks = mutating ? [markActed()] : null;
      lifecycle.observe(x, key, this.entry(checked.call, false, undefined, before, scope === "session" && mutating), mutating);
      return { applied: null, sequenceLength: lifecycle.sequence().length, execution: x?.id ?? null, unknown: marks };
    }
    let applied: ApplyReport | null = null;
    let marks: UnknownMark[] | null = null;
    // Parsed once: the projection and the session record share the value (the guard's own).
    const parsed = parseToolResult(result);
    if (cfg.projection !== undefined) {
      try {
        applied = applyToolResult(cfg.projection, this.o.state as LayerB, checked.call, result, { ownCall: true, parsed });
      } catch (e) {
        applied = { tool: checked.call.name, matched: true, changes: [], skipped: [`the projection failed: ${describeError(e)}`] };
      }
      // A write whose result the rules could not project (an effect skipped: no record, no entity id):
      // what it touched is unknown from now on. Effects that apply to nothing (a `when` that does not
      // hold, an empty `forEach`) are the rules' answer, not a failure.
      if (mutating && applied.matched && applied.skipped.length > 0) marks = [markActed()];
    }
    lifecycle.observe(x, key, this.entry(checked.call, true, parsed.value, before, scope === "session" && mutating), mutating);
    return { applied, sequenceLength: lifecycle.sequence().length, execution: x?.id ?? null, unknown: marks };
  }

  /** The call as the lifecycle records it. Kept in the session's forward sequence, it is frozen all the
   * way down: its arguments and `before` are the guard's frozen copies already, its result the value
   * the guard parsed (frozen in place, not copied again: ownExecuted). Otherwise only its call and
   * `before` are read (turn scope's history), and the result is kept as parsed. */
  private entry(call: ToolCall, hasResult: boolean, result: unknown, before: LazyBefore, kept: boolean): ExecutedCall {
    if (kept) return ownExecuted(call, hasResult, result, before);
    const entry: ExecutedCall = { name: call.name, arguments: call.arguments };
    if (hasResult) entry.result = result;
    setBefore(entry, before);
    return entry;
  }
}
