// One decision as a function of its inputs. The guard calls it with the live Layer B; the audit
// replay calls it with a view built from a record's reads. Both get the same answer from the same
// inputs, which is what makes a decision log replayable.
import type { ExecutedCall, StateView, Verdict } from "../core/types.js";
import { VerifierError, type Verifier } from "../core/verifier.js";
import { toHex } from "../util/sha256.js";
import type { ConsentDetector, ConsentResult } from "../policies/consent.js";
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
import { tauFixed, type EffectiveConfig } from "./config.js";
import type { TargetEvaluation } from "./decision.js";
import { describeError } from "./errors.js";
import { OverlayView, RecordingView, readsDigest, type Read } from "./reads.js";

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
  model: ModelAnswers;
  /** The state a candidate target is searched against; default: its assertions over `state`. The
   * replay answers from the target's recorded reads instead. */
  targetView?: (index: number, target: TargetState) => StateView;
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
  stateDigest: string;
  /** The backend threw (a trap, a bad status): the guard should build a fresh one. */
  backendFailed: boolean;
}

const APPROVING: ReadonlySet<Route> = new Set<Route>(["Approved", "ConsentApproved", "AdvisoryPassthrough"]);

export function verdictRecord(v: Verdict): VerdictRecord {
  return {
    reason: v.reason,
    complete: v.complete,
    phi: v.phi,
    loss: v.loss,
    steps: v.steps,
    bottleneck: v.bottleneck,
    nodes: v.nodes,
    bytes: toHex(v.bytes),
  };
}

interface Searched {
  verdict: VerdictRecord | null;
  admissible: boolean;
  reason: GuardReason;
  detail: string | null;
  backendFailed: boolean;
}

function search(input: EvaluateInput, forward: ExecutedCall[], view: StateView): Searched {
  const c = input.config;
  try {
    const v = input.verifier.verdict(forward, view, {
      tau: c.tau,
      now: c.now,
      tiers: c.tiers,
      failClosed: c.failClosed,
      maxDepth: c.maxDepth,
      maxNodes: c.maxNodes,
    });
    const admissible = v.complete && v.reason === "ok";
    return { verdict: verdictRecord(v), admissible, reason: admissible ? "ok" : v.reason, detail: null, backendFailed: false };
  } catch (e) {
    const malformed = e instanceof VerifierError && e.code === "malformed-call";
    const known = e instanceof VerifierError && e.code !== "internal-error";
    return {
      verdict: null,
      admissible: false,
      reason: malformed ? "malformed_call" : "internal_error",
      detail: describeError(e),
      backendFailed: !known,
    };
  }
}

/** The entity key a call names, or null when its key argument is absent or not a string/number. */
function keyArgument(args: Record<string, unknown>, keyArg: string): string | null {
  if (!Object.prototype.hasOwnProperty.call(args, keyArg)) return null;
  const v = args[keyArg];
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

type Gate = Searched & { targets: TargetEvaluation[] | null; classification: RequestClass | null };

function gate(input: EvaluateInput, recorder: RecordingView): Gate {
  const fail = (reason: GuardReason, detail: string | null = null): Gate => ({
    verdict: null, admissible: false, reason, detail, backendFailed: false, targets: null, classification: null,
  });
  const checked = checkCallShape(input.call);
  if (!checked.ok) return fail("malformed_call", checked.problem);
  const call = checked.call;
  const forward: ExecutedCall[] = [];
  for (let i = 0; i < input.forward.length; i++) {
    const f = checkExecuted(input.forward[i], i);
    if (!f.ok) return fail("malformed_call", f.problem);
    forward.push(f.call);
  }
  const tool = input.verifier.tool(call.name);
  if (!tool.known) return fail("unknown_tool", null);
  if (tool.readOnly) return { ...fail("read_only"), admissible: true };
  if (input.model.error !== null) return fail("internal_error", input.model.error);
  const classification = input.model.classification;
  if (classification !== null && classification !== "Mutating") return { ...fail("unrequested_mutation"), classification };
  if (tool.actsOn !== null && tool.keyArg !== null) {
    const key = keyArgument(call.arguments, tool.keyArg);
    if (key === null) return { ...fail("malformed_call", `\`${call.name}\`: argument \`${tool.keyArg}\` naming the \`${tool.actsOn}\` is missing or not a string`), classification };
    if (!recorder.hasEntity(tool.actsOn, key)) return { ...fail("missing_entity", `\`${tool.actsOn}\` \`${key}\` is not in Layer B`), classification };
  }
  forward.push(call);
  const targets = input.model.targets;
  if (targets === null || targets.length === 0) {
    return { ...search(input, forward, recorder), targets: null, classification };
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
    const s = search(input, forward, view);
    failed ||= s.backendFailed;
    const reads = view.reads();
    evaluations.push({ label: t.label, assertions: t.assertions, admissible: s.admissible, reason: s.reason, verdict: s.verdict, reads, stateDigest: readsDigest(reads) });
    const k = evaluations.length - 1;
    if (s.admissible && chosen < 0) chosen = k;
    if (best < 0 || (s.verdict?.phi ?? -1) > (evaluations[best].verdict?.phi ?? -1)) best = k;
  }
  const pick = evaluations[chosen >= 0 ? chosen : best];
  const hard = evaluations.find((e) => HARD_FAIL_REASONS.has(e.reason));
  // A target whose search failed internally must not be outvoted into an approval by another.
  if (hard !== undefined) return { verdict: hard.verdict, admissible: false, reason: hard.reason, detail: `target \`${hard.label}\`: ${hard.reason}`, backendFailed: failed, targets: evaluations, classification };
  return { verdict: pick.verdict, admissible: pick.admissible, reason: pick.reason, detail: null, backendFailed: failed, targets: evaluations, classification };
}

function isApproving(route: Route): boolean {
  return APPROVING.has(route);
}

export function evaluate(input: EvaluateInput): Evaluation {
  const recorder = new RecordingView(input.state);
  let g: Gate;
  try {
    g = gate(input, recorder);
  } catch (e) {
    // A StateView that throws, or anything unforeseen: never an approval.
    g = { verdict: null, admissible: false, reason: "internal_error", detail: describeError(e), backendFailed: false, targets: null, classification: null };
  }
  let reads: Read[];
  let stateDigest: string;
  try {
    reads = recorder.reads();
    stateDigest = readsDigest(reads);
  } catch (e) {
    // Layer B handed back a value that is not JSON: the decision cannot be recorded faithfully.
    reads = [];
    stateDigest = readsDigest(reads);
    g = { ...g, verdict: null, admissible: false, reason: "internal_error", detail: `layer b value is not json: ${describeError(e)}` };
  }
  const base = {
    admissible: g.admissible,
    reason: g.reason,
    detail: g.detail,
    verdict: g.verdict,
    targets: g.targets,
    classification: g.classification,
    reads,
    stateDigest,
    backendFailed: g.backendFailed,
  };
  if (g.reason === "read_only") {
    return { ...base, route: "Approved", approved: true, message: null, refusal: null, question: null, consent: null };
  }
  const checked = checkCallShape(input.call);
  const policyInput: PolicyInput = {
    call: checked.ok ? checked.call : { name: "", arguments: {} },
    admissible: g.admissible,
    reason: g.reason,
    verdict: g.verdict,
    tau: tauFixed(input.config),
    userMessages: input.userMessages,
    consent: input.detector,
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
    // policy may approve a call the guard could not judge at all.
    const hard = HARD_FAIL_REASONS.has(g.reason);
    if ((route === "Approved" && !g.admissible) || (hard && route === "ConsentApproved")) {
      detail = `policy \`${input.policy.name}\` returned \`${route}\` for reason \`${g.reason}\`; vetoed`;
      route = "Vetoed";
      message = refusalText(policyInput);
      consent = null;
    }
  } catch (e) {
    route = "Vetoed";
    message = refusalText({ ...policyInput, reason: "internal_error" });
    consent = null;
    detail = describeError(e);
    return { ...base, reason: "internal_error", detail, admissible: false, route, approved: false, message, refusal: message, question: null, consent };
  }
  return {
    ...base,
    detail,
    route,
    approved: isApproving(route),
    message,
    refusal: route === "Vetoed" ? message : null,
    question: route === "ConsentEscalated" ? message : null,
    consent,
  };
}
