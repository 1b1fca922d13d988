// One decision as a function of its inputs. The guard calls it with the live Layer B; the audit
// replay calls it with a view built from a record's reads. Both get the same answer from the same
// inputs, which is what makes a decision log replayable.
import { FIXED_ONE } from "../abi.js";
import type { ExecutedCall, StateView, Verdict } from "../core/types.js";
import { entityKey, VerifierError, type Verifier, type VerdictWords } from "../core/verifier.js";
import { defineLazyHexToFreeze } from "./lazy.js";
import type { ConsentContext, ConsentDetector, ConsentResult } from "../policies/consent.js";
import type { RequestClass, TargetState } from "../policies/classifier.js";
import { refusalText } from "../policies/text.js";
import {
  HARD_FAIL_REASONS,
  ROUTES,
  type DecisionPolicy,
  type GuardReason,
  type PolicyInput,
  type Route,
  type VerdictRecord,
} from "../policies/types.js";
import type { OntologyTables } from "../ontology/tables.js";
import { checkCallShape, checkExecuted } from "./call.js";
import type { ToolCall } from "../core/types.js";
import { tauFixed, type EffectiveConfig } from "./config.js";
import type { TargetEvaluation } from "./decision.js";
import { describeError } from "./errors.js";
import { LazyDigest, OverlayView, ownCanonicalReads, ownReads, RecordingView, readsDigest, type Read } from "./reads.js";
import { UnknownMarks, type UnknownMark } from "./unknown.js";
import { advisoryPolicy } from "../policies/advisory.js";
import type { Sha256 } from "../blob/decode.js";
import type { VerdictOptions } from "../core/types.js";

export interface ModelAnswers {
  classification: RequestClass | null;
  targets: TargetState[] | null;
  /** A model component failed or answered out of contract: the decision fails closed. */
  error: string | null;
}

export const NO_MODEL: ModelAnswers = { classification: null, targets: null, error: null };

export interface EvaluateInput {
  tables: OntologyTables;
  verifier: Verifier;
  config: EffectiveConfig;
  policy: DecisionPolicy;
  detector: ConsentDetector;
  /** JSON-safe copies (src/guard/call.ts). */
  call: unknown;
  forward: unknown[];
  state: StateView;
  userMessages: string[];
  /** What the latest user message answers (`recent-messages` mode), for the consent detector. */
  consentContext?: ConsentContext | null;
  model: ModelAnswers;
  /** The state a candidate target is searched against; default: its assertions over `state`. The
   * replay answers from the target's recorded reads instead. */
  targetView?: (index: number, target: TargetState) => StateView;
  /** SHA-256 for the reads digests; default the JavaScript one. */
  sha256?: Sha256;
  /** Entities whose Layer B values are unknown (src/guard/unknown.ts); a decision reading one fails
   * closed. The replay passes the marks the record hit. */
  unknown?: readonly UnknownMark[] | null;
  /** tauFixed(config), when the caller holds it (the guard does: its configuration is fixed). */
  tau?: number;
}

export interface Evaluation {
  route: Route;
  approved: boolean;
  admissible: boolean;
  reason: GuardReason;
  detail: string | null;
  verdict: VerdictRecord | null;
  targets: TargetEvaluation[] | null;
  classification: RequestClass | null;
  message: string | null;
  refusal: string | null;
  question: string | null;
  consent: ConsentResult | null;
  reads: Read[];
  /** The digest of `reads` (the record's `stateDigest`), computed when first asked for. */
  digest: LazyDigest;
  /** The backend threw (a trap, a bad status): the guard should build a fresh one. */
  backendFailed: boolean;
  /** The call as checked (null when it failed the shape check). */
  call: ToolCall | null;
  /** The unknown marks the decision's reads hit (null when none). */
  unknown: UnknownMark[] | null;
}

const APPROVING: ReadonlySet<Route> = new Set<Route>(["Approved", "ConsentApproved", "AdvisoryPassthrough"]);

export function verdictRecord(v: Verdict | VerdictWords): VerdictRecord {
  const r = {
    reason: v.reason,
    complete: v.complete,
    phi: v.phi,
    loss: v.loss,
    steps: v.steps,
    bottleneck: v.bottleneck,
    nodes: v.nodes,
  } as VerdictRecord;
  // `bytes` is the hex of the verdict bytes, written when first read (./lazy.ts): most checks are
  // never serialised in the process that made them. The guard freezes the record (judge.ts ownVerdict)
  // before handing it out; the audit replay only compares it.
  defineLazyHexToFreeze(r, "words" in v ? v.words : v.bytes);
  // The stated amount (docs/semantics.md, "Amounts"), only when some step declares one.
  if (v.amount !== undefined) r.amount = v.amount;
  return r;
}

/** What the gate found: the verdict (or a fail-closed reason) before the policy. The same object becomes
 * the check's Evaluation (finish adds the policy's fields to it): one object per check. */
type Gate = Pick<Evaluation, "verdict" | "admissible" | "reason" | "detail" | "backendFailed" | "targets" | "classification" | "call">;

function gateResult(
  reason: GuardReason,
  detail: string | null,
  classification: RequestClass | null,
  call: ToolCall | null,
  admissible = false,
): Gate {
  return { verdict: null, admissible, reason, detail, backendFailed: false, targets: null, classification, call };
}

const optionsCache = new WeakMap<EffectiveConfig, VerdictOptions>();

/** The verifier's options for a configuration; the guard's configuration is frozen, so one object. */
function verdictOptions(c: EffectiveConfig): VerdictOptions {
  let o = optionsCache.get(c);
  if (o === undefined) {
    o = { tau: c.tau, now: c.now, tiers: c.tiers, failClosed: c.failClosed, maxDepth: c.maxDepth, maxNodes: c.maxNodes };
    if (Object.isFrozen(c)) optionsCache.set(c, o);
  }
  return o;
}

/**
 * docs/semantics.md, "Amounts": with `maxAmount`, an admitted π is refused when a step states an amount
 * it could not evaluate (null), or a step's or the total's |amount| exceeds maxAmount. Returns why, or
 * null when the amounts are within it.
 */
export function amountOver(v: Pick<Verdict, "steps" | "amount">, maxAmount: number): string | null {
  const limit = Math.round(maxAmount * FIXED_ONE);
  const text = (a: number) => (Math.abs(a) / FIXED_ONE).toFixed(2);
  for (const s of v.steps) {
    if (s.amount === undefined) continue;
    const what = `the step undoing \`${s.forwardTool}\` (${s.annotation})`;
    if (s.amount === null) return `${what} states an amount it cannot evaluate for this call`;
    if (Math.abs(s.amount) > limit) return `${what} leaves ${text(s.amount)} different, above maxAmount ${maxAmount}`;
  }
  if (v.amount !== undefined && v.amount !== null && Math.abs(v.amount) > limit) return `π leaves ${text(v.amount)} different in total, above maxAmount ${maxAmount}`;
  return null;
}

/** One search into `g`'s verdict fields (a target's search passes a scratch object). */
function search(input: EvaluateInput, forward: ExecutedCall[], view: StateView, g: Gate): Gate {
  try {
    // The verifier's words path when it has one (no byte copy of the output record).
    const verifier = input.verifier;
    const v = verifier.verdictWords !== undefined ? verifier.verdictWords(forward, view, verdictOptions(input.config)) : verifier.verdict(forward, view, verdictOptions(input.config));
    const admissible = v.complete && v.reason === "ok";
    g.verdict = verdictRecord(v);
    g.admissible = admissible;
    g.reason = admissible ? "ok" : v.reason;
    g.detail = null;
    g.backendFailed = false;
    const over = admissible && input.config.maxAmount !== undefined ? amountOver(v, input.config.maxAmount) : null;
    if (over !== null) {
      g.admissible = false;
      g.reason = "amount_exceeded";
      g.detail = over;
    }
  } catch (e) {
    const malformed = e instanceof VerifierError && e.code === "malformed-call";
    const known = e instanceof VerifierError && e.code !== "internal-error";
    g.verdict = null;
    g.admissible = false;
    g.reason = malformed ? "malformed_call" : "internal_error";
    g.detail = describeError(e);
    g.backendFailed = !known;
  }
  return g;
}


function gate(input: EvaluateInput, recorder: RecordingView): Gate {
  const checked = checkCallShape(input.call);
  if (!checked.ok) return gateResult("malformed_call", checked.problem, null, null);
  const call = checked.call;
  const forward: ExecutedCall[] = [];
  for (let i = 0; i < input.forward.length; i++) {
    const f = checkExecuted(input.forward[i], i);
    if (!f.ok) return gateResult("malformed_call", f.problem, null, call);
    forward.push(f.call);
  }
  const tool = input.verifier.tool(call.name);
  if (!tool.known) return gateResult("unknown_tool", null, null, call);
  if (tool.readOnly) return gateResult("read_only", null, null, call, true);
  if (input.model.error !== null) return gateResult("internal_error", input.model.error, null, call);
  const classification = input.model.classification;
  if (classification !== null && classification !== "Mutating") return gateResult("unrequested_mutation", null, classification, call);
  if (tool.actsOn !== null) {
    // Grounding: the entity the call acts on, named by its key argument or by the tool's constant key.
    const key = entityKey(tool, call.arguments);
    if (key === null) return gateResult("malformed_call", `\`${call.name}\`: argument \`${tool.keyArg}\` naming the \`${tool.actsOn}\` is missing or not a string`, classification, call);
    if (!recorder.hasEntity(tool.actsOn, key)) return gateResult("missing_entity", `\`${tool.actsOn}\` \`${key}\` is not in Layer B`, classification, call);
  }
  forward.push(call);
  const targets = input.model.targets;
  if (targets === null || targets.length === 0) {
    return search(input, forward, recorder, gateResult("internal_error", null, classification, call));
  }
  // One search per candidate target; the gate admits when one is admissible (the first such), and
  // otherwise reports the candidate with the best φ (the first on ties).
  const evaluations: TargetEvaluation[] = [];
  let chosen = -1;
  let best = -1;
  let failed = false;
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    const view = new RecordingView(input.targetView !== undefined ? input.targetView(i, t) : new OverlayView(input.state, t.assertions));
    const s = search(input, forward, view, gateResult("internal_error", null, classification, call));
    failed ||= s.backendFailed;
    const reads = view.reads();
    evaluations.push({ label: t.label, assertions: t.assertions, admissible: s.admissible, reason: s.reason, verdict: s.verdict, reads, stateDigest: readsDigest(reads, input.sha256) });
    const k = evaluations.length - 1;
    if (s.admissible && chosen < 0) chosen = k;
    if (best < 0 || (s.verdict?.phi ?? -1) > (evaluations[best].verdict?.phi ?? -1)) best = k;
  }
  const pick = evaluations[chosen >= 0 ? chosen : best];
  const hard = evaluations.find((e) => HARD_FAIL_REASONS.has(e.reason));
  const out = gateResult(pick.reason, null, classification, call, pick.admissible);
  out.verdict = pick.verdict;
  out.backendFailed = failed;
  out.targets = evaluations;
  // A target whose search failed internally must not be outvoted into an approval by another.
  if (hard !== undefined) {
    out.verdict = hard.verdict;
    out.admissible = false;
    out.reason = hard.reason;
    out.detail = `target \`${hard.label}\`: ${hard.reason}`;
  }
  return out;
}

function isApproving(route: Route): boolean {
  return APPROVING.has(route);
}

/** The entities the forward sequence's earlier calls act on (their acts_on entity and key). */
function actedOn(input: EvaluateInput): [string, string][] {
  const out: [string, string][] = [];
  for (const f of input.forward) {
    const c = f as { name?: unknown; arguments?: unknown } | null;
    if (typeof c?.name !== "string" || typeof c.arguments !== "object" || c.arguments === null) continue;
    const t = input.verifier.tool(c.name);
    if (!t.known || t.actsOn === null) continue;
    const key = entityKey(t, c.arguments as Record<string, unknown>);
    if (key !== null) out.push([t.actsOn, key]);
  }
  return out;
}

const NO_CALL: ToolCall = Object.freeze({ name: "", arguments: Object.freeze({}) }) as ToolCall;

export function evaluate(input: EvaluateInput): Evaluation {
  const recorder = new RecordingView(input.state);
  let g: Gate;
  try {
    g = gate(input, recorder);
  } catch (e) {
    // A StateView that throws, or anything unforeseen: never an approval.
    g = gateResult("internal_error", describeError(e), null, null);
    // The policy still sees the call as checked (the shape check is pure and did not throw).
    const checked = checkCallShape(input.call);
    g.call = checked.ok ? checked.call : null;
  }
  let reads: Read[];
  let digest: LazyDigest;
  try {
    reads = recorder.reads();
    // The digest itself is taken later (LazyDigest); whether it can be taken is decided now. A refusal
    // is re-derived by canonicalJson, which throws it with the path of the offending value.
    const owned = ownCanonicalReads(reads, recorder.canonical, recorder.sharedOnly);
    if (owned === null) {
      readsDigest(reads, input.sha256);
      reads = ownReads(reads);
    } else reads = owned;
    digest = new LazyDigest(reads, input.sha256);
  } catch (e) {
    // Layer B handed back a value that is not JSON: the decision cannot be recorded faithfully.
    reads = [];
    digest = new LazyDigest(reads, input.sha256);
    g.verdict = null;
    g.admissible = false;
    g.reason = "internal_error";
    g.detail = `layer b value is not json: ${describeError(e)}`;
  }
  if (g.reason === "read_only") {
    return finish(g, reads, digest, "Approved", g.detail, null, null, null);
  }
  let unknown: UnknownMark[] | null = null;
  if (input.unknown != null && input.unknown.length > 0) {
    const hits = UnknownMarks.hits(input.unknown, reads, actedOn(input));
    if (hits.length > 0) {
      // Frozen here, where the list is made (the record hands it out as it is).
      unknown = Object.freeze(hits) as UnknownMark[];
      if (!HARD_FAIL_REASONS.has(g.reason)) {
        const m = hits[0];
        const what = m.id === null ? "Layer B" : `\`${m.entity}\` \`${m.id}\``;
        g.admissible = false;
        g.reason = "unknown_state";
        g.detail = `${what} is unknown: the result of \`${m.tool}\`${m.execution !== null ? ` (${m.execution})` : ""} could not be projected; re-read the state`;
      }
    }
  }
  const policyInput: PolicyInput = {
    call: g.call ?? NO_CALL,
    admissible: g.admissible,
    reason: g.reason,
    verdict: g.verdict,
    tau: input.tau ?? tauFixed(input.config),
    userMessages: input.userMessages,
    consent: input.detector,
    consentContext: input.consentContext ?? null,
    tables: input.tables,
  };
  let route: Route;
  let message: string | null;
  let consent: ConsentResult | null;
  let detail = g.detail;
  try {
    const out = input.policy.decide(policyInput);
    route = out.route;
    message = out.message ?? null;
    consent = out.consent ?? null;
    if (!ROUTES.includes(route)) throw new Error(`policy \`${input.policy.name}\` returned route \`${String(route)}\``);
    // A policy may let an inadmissible call pass only as ConsentApproved or AdvisoryPassthrough, and no
    // policy may approve a call the guard could not judge at all; only the built-in advisory policy,
    // which by definition blocks nothing, passes such a call through (recorded).
    const hard = HARD_FAIL_REASONS.has(g.reason);
    if ((route === "Approved" && !g.admissible) || (hard && (route === "ConsentApproved" || (route === "AdvisoryPassthrough" && input.policy !== advisoryPolicy)))) {
      detail = `policy \`${input.policy.name}\` returned \`${route}\` for reason \`${g.reason}\`; vetoed`;
      route = "Vetoed";
      message = refusalText(policyInput);
      consent = null;
    }
  } catch (e) {
    message = refusalText({ ...policyInput, reason: "internal_error" });
    g.reason = "internal_error";
    g.admissible = false;
    return finish(g, reads, digest, "Vetoed", describeError(e), message, null, unknown);
  }
  return finish(g, reads, digest, route, detail, message, consent, unknown);
}

/** The gate's object completed into the Evaluation: refusal and question are the message by route. */
function finish(
  g: Gate,
  reads: Read[],
  digest: LazyDigest,
  route: Route,
  detail: string | null,
  message: string | null,
  consent: ConsentResult | null,
  unknown: UnknownMark[] | null,
): Evaluation {
  const ev = g as Evaluation;
  ev.route = route;
  ev.approved = isApproving(route);
  ev.detail = detail;
  ev.message = message;
  ev.refusal = route === "Vetoed" ? message : null;
  ev.question = route === "ConsentEscalated" ? message : null;
  ev.consent = consent;
  ev.reads = reads;
  ev.digest = digest;
  ev.unknown = unknown;
  return ev;
}
