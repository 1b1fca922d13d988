// The hot path, top to bottom: check → decide (seq, audit log, the lifecycle, the consent book) → judge
// (the call copied, the context read, the forward sequence, the consent messages, evaluate) → record
// (the Decision, frozen, its digest taken when first read). A check never throws for an expected
// outcome: whatever fails inside judge becomes a vetoed record (fallback).
import type { ExecutedCall, ToolCall } from "../core/types.js";
import type { ConsentContext } from "../policies/consent.js";
import { refusalText } from "../policies/text.js";
import type { VerdictRecord } from "../policies/types.js";
import { ENGINE_VERSION } from "../version.js";
import type { BeforeReader } from "./before.js";
import { callKey, checkCallShape, freezeOwn, frozenJsonSafe, safeExecuted } from "./call.js";
import { tauFixed } from "./config.js";
import { LazyCall, type ConsentBook } from "./consent-book.js";
import { readContext, type ContextData } from "./context.js";
import { DECISION_FORMAT, type Decision } from "./decision.js";
import type { Engine } from "./engine.js";
import { describeError, GuardError } from "./errors.js";
import { evaluate, NO_MODEL, type Evaluation, type ModelAnswers } from "./evaluate.js";
import type { Before, Lifecycle } from "./lifecycle.js";
import { askModels, isThenable } from "./models.js";
import type { ResolvedOptions } from "./options.js";
import { defineStateDigest, stateDigestGetter, type Read, type StateDigestGetter } from "./reads.js";
import type { CheckContext } from "./types.js";
import type { UnknownMarks } from "./unknown.js";

/** What a judged call changes in the guard once its record is written. */
interface Judged {
  decision: Decision;
  approve: { call: ToolCall; before: Before; admitted: boolean } | null;
  question: { hash: string; asked: number } | null;
  answered: string | null;
}

const NO_FORWARD: unknown[] = Object.freeze([]) as unknown as unknown[];

/** What a record takes of an evaluation (the fallback makes its own). */
type Recorded = Omit<Evaluation, "digest" | "backendFailed" | "call">;

export class Judge {
  /** The last decision's seq (the next check is seq + 1). */
  seq = 0;
  /** Every record's `stateDigest`: the digest of its reads with this guard's SHA-256, made when read. */
  private readonly stateDigest: StateDigestGetter;
  /** τ of the guard's (frozen) configuration in fixed point. */
  private readonly tau: number;

  constructor(
    private readonly o: ResolvedOptions,
    private readonly engine: Engine,
    private readonly lifecycle: Lifecycle,
    private readonly unknown: UnknownMarks,
    private readonly book: ConsentBook,
    private readonly before: BeforeReader,
  ) {
    this.stateDigest = stateDigestGetter(o.sha256);
    this.tau = tauFixed(o.config);
  }

  check(call: unknown, context?: CheckContext): Decision {
    const cfg = this.o.cfg;
    if (cfg.requestClassifier === undefined && cfg.intentParser === undefined) return this.decide(call, context, NO_MODEL);
    // Synchronous components are allowed here; a model client that returns a promise needs checkAsync.
    const answers = askModels(cfg, this.engine, call, context, true);
    if (isThenable(answers)) {
      throw new GuardError("async-required", "the request classifier or intent parser is asynchronous", "use `guard.checkAsync(call, context)`");
    }
    return this.decide(call, context, answers as ModelAnswers);
  }

  async checkAsync(call: unknown, context?: CheckContext): Promise<Decision> {
    const answers = await askModels(this.o.cfg, this.engine, call, context, false);
    return this.decide(call, context, answers);
  }

  private decide(rawCall: unknown, context: unknown, model: ModelAnswers): Decision {
    const s = this.seq + 1;
    let j: Judged;
    try {
      j = this.judge(s, rawCall, context, model);
    } catch (e) {
      j = { decision: this.fallback(s, rawCall, e), approve: null, question: null, answered: null };
    }
    // A record that could not be written was never decided: no seq, no pending execution, no question.
    this.o.cfg.log?.append(j.decision);
    this.seq = s;
    if (j.approve !== null) this.lifecycle.approve(s, j.approve.call, j.approve.before, j.approve.admitted, j.decision.execution as string);
    if (j.question !== null) this.book.ask(j.question.hash, j.question.asked);
    if (j.answered !== null) this.book.answered(j.answered); // an answer approves one execution
    return j.decision;
  }

  private judge(s: number, rawCall: unknown, context: unknown, model: ModelAnswers): Judged {
    const o = this.o;
    const call = frozenJsonSafe(rawCall);
    const ctx = readContext(context);
    // The call's shape and hash only when consent needs them (the evaluation checks the shape anyway).
    const lazy = new LazyCall(call);
    const forward = ctx.error === null ? this.forwardFor(ctx) : NO_FORWARD;
    const consentInput = this.book.messages(ctx, lazy); // a context that could not be read has no messages
    const userMessages = consentInput.messages;
    const consentContext = consentInput.context;
    const ev = evaluate({
      tables: o.tables,
      verifier: this.engine.verifier,
      config: o.config,
      policy: o.policy,
      detector: o.detector,
      call,
      forward,
      state: o.state,
      userMessages,
      consentContext,
      model: ctx.error === null ? model : { ...NO_MODEL, error: ctx.error },
      tau: this.tau,
      sha256: o.sha256,
      unknown: this.unknown.empty ? null : this.unknown.list(),
    });
    // After a trap the instance's memory is suspect: serve the next call from a fresh backend.
    if (ev.backendFailed) this.engine.backendFailed();
    let approve: Judged["approve"] = null;
    if (ev.approved && ev.reason !== "read_only" && ev.call !== null) {
      let before: Before;
      try {
        before = this.before.keep(ev.call);
      } catch {
        // A StateView that throws here already made the decision fail closed above.
      }
      approve = { call: ev.call, before, admitted: ev.admissible };
    }
    let question: Judged["question"] = null;
    let answered: string | null = null;
    if (this.book.mode === "question" && (ev.route === "ConsentEscalated" || ev.route === "ConsentApproved")) {
      if (ev.route === "ConsentEscalated") question = { hash: lazy.hash(), asked: ctx.userCount };
      else answered = lazy.hash();
    }
    const decision = this.record(s, ev, call, forward, userMessages, approve !== null ? `x${s}` : null, consentContext);
    return { decision, approve, question, answered };
  }

  /** The forward sequence of this check: session scope's from the lifecycle; turn scope's from the
   * caller's `turnCalls` (each copied, with its `before`). */
  private forwardFor(ctx: ContextData): unknown[] {
    if (this.o.scope === "session") return this.lifecycle.sessionForward();
    const raw = ctx.turnCalls ?? [];
    const calls = raw.map((c) => {
      const copy = safeExecuted(c, true);
      const checked = checkCallShape(copy);
      if (!checked.ok) return { copy, key: null };
      const key = callKey(checked.call);
      return { copy: this.withBefore(copy as ExecutedCall, key, checked.call), key };
    });
    return this.lifecycle.turnForward(calls, this.isMutating);
  }

  /** Turn scope: an earlier call of the message is searched on its entity as it was before it ran
   * (docs/semantics.md, "Operands of earlier calls"). The guard's Layer B changes only at observe(), so
   * that is the snapshot taken then or, for a call this guard has not observed, the state now. */
  private withBefore(copy: ExecutedCall, key: string, call: ToolCall): ExecutedCall {
    if (copy.before !== undefined) return copy;
    // A snapshot is frozen (BeforeReader), so the record is frozen all the way down.
    const before = this.lifecycle.observedBefore(key) ?? this.before.now(call);
    return before === undefined ? copy : Object.freeze({ ...copy, before });
  }

  private readonly isMutating = (copy: unknown): boolean => {
    // A name that is not a string names no tool (the verifier's tools are keyed by name): unknown,
    // so mutating.
    const info = this.engine.verifier.tool((copy as { name?: unknown } | null)?.name as string);
    return !info.known || !info.readOnly;
  };

  private record(
    s: number, ev: Recorded, call: unknown, forward: unknown[], userMessages: string[], execution: string | null, consentContext: ConsentContext | null = null,
  ): Decision {
    const o = this.o;
    // Empty lists are one shared frozen array (a session check with nothing pending has no forward
    // sequence and no consent messages): freezing a fresh array is a runtime call on every check.
    const forwardOut = forward.length === 0 ? NO_FORWARD : Object.freeze(forward);
    const verdict = ev.verdict === null ? null : ownVerdict(ev.verdict);
    const targets = ev.targets === null ? null : frozenJsonSafe(ev.targets);
    const messages = userMessages.length === 0 ? (NO_FORWARD as string[]) : Object.freeze(userMessages);
    const consent = ev.consent === null ? null : frozenJsonSafe(ev.consent);
    // Two literals (with and without `consentContext`) rather than a spread in one: each is built from
    // its own boilerplate, in one field order.
    const decision = (consentContext === null
      ? {
        format: DECISION_FORMAT, seq: s, route: ev.route, approved: ev.approved, execution, admissible: ev.admissible, reason: ev.reason,
        detail: ev.detail, call, forward: forwardOut, verdict, targets, classification: ev.classification, policy: o.policy.name,
        tau: this.tau, message: ev.message, refusal: ev.refusal, question: ev.question, userMessages: messages, consent,
        unknown: ev.unknown, reads: ev.reads,
      }
      : {
        format: DECISION_FORMAT, seq: s, route: ev.route, approved: ev.approved, execution, admissible: ev.admissible, reason: ev.reason,
        detail: ev.detail, call, forward: forwardOut, verdict, targets, classification: ev.classification, policy: o.policy.name,
        tau: this.tau, message: ev.message, refusal: ev.refusal, question: ev.question, userMessages: messages, consent,
        consentContext: frozenJsonSafe(consentContext), unknown: ev.unknown, reads: ev.reads,
      }) as unknown as Decision;
    // The digest is computed on first read (serialising the record reads it), in its place among the
    // fields; the rest are assigned after it so every record keeps one field order.
    defineStateDigest(decision, this.stateDigest);
    decision.ontologyHash = o.ontologyHash;
    decision.config = o.config;
    decision.configHash = o.configHash;
    decision.engineVersion = ENGINE_VERSION;
    decision.scope = o.scope;
    return Object.freeze(decision);
  }

  /** A record for a check that failed in a way nothing above foresaw: vetoed, never thrown. Made here
   * without the evaluation (which is what failed, or what read the state that threw): no
   * classification, nothing read, the refusal naming the call and the reason. */
  private fallback(s: number, rawCall: unknown, e: unknown): Decision {
    const o = this.o;
    const call = frozenJsonSafe(rawCall);
    const shape = checkCallShape(call);
    const refusal = refusalText({ call: shape.ok ? shape.call : { name: "", arguments: {} }, admissible: false, reason: "internal_error", verdict: null, tau: this.tau, userMessages: [], consent: o.detector, tables: o.tables });
    const vetoed: Recorded = {
      route: "Vetoed", approved: false, admissible: false, reason: "internal_error", detail: `guard: ${describeError(e)}`, verdict: null, targets: null,
      classification: null, message: refusal, refusal, question: null, consent: null, reads: NO_FORWARD as Read[], unknown: null,
    };
    return this.record(s, vetoed, call, NO_FORWARD, NO_FORWARD as string[], null);
  }
}

/** The verdict frozen in place (the verifier builds it fresh per verdict). */
function ownVerdict(v: VerdictRecord): VerdictRecord {
  const steps = v.steps;
  // No steps (a refusal): the shared frozen empty array.
  if (steps.length === 0) {
    (v as { steps: unknown }).steps = NO_FORWARD;
    Object.freeze(v.bottleneck);
    return Object.freeze(v);
  }
  for (let i = 0; i < steps.length; i++) {
    // A fresh object per step. Its values are frozen copies the guard owns (the call's, the forward
    // sequence's, the values read through the RecordingView: Layer B's own or copied on read), shared
    // as they are, or fresh values of the verdict (a literal, a `$pending` marker), frozen here.
    // An inverse's arguments: an object, or null for a fail-closed step (VerdictStep).
    const args = steps[i].arguments;
    if (args !== null) {
      for (const k of Object.keys(args)) freezeOwn(args[k]);
      Object.freeze(args);
    }
    Object.freeze(steps[i]);
  }
  Object.freeze(steps);
  Object.freeze(v.bottleneck);
  return Object.freeze(v);
}
