// The reverse search of docs/semantics.md, written to be read beside it: phase 1 walks the forward
// sequence most-recent-first and lists each call's admissible edges; phase 2 is a depth-first search
// over those lists that tracks lost entities (overlap) and keeps the best complete sequence by the
// selection rule, pruning a subtree when even its optimistic completion (suffix bounds Φ and Λ) could
// not beat the best so far; `nodes` counts every visit the doc describes, pruned ones included. This is
// the oracle the WebAssembly core is held to, so clarity beats speed here.
import { AmountState, FIXED_ONE, Identity, Lifecycle, MAX_CANDIDATES, Reason, Tier, ValueTag } from "../abi.js";
import type { EdgeTable, OntologyTables } from "../ontology/tables.js";
import { boundHolds, conditionValue, programValue } from "./bound.js";
import type { Input, InputCall } from "./input.js";

export interface Step {
  call: number; // forward index
  edge: number;
  phi: number;
  loss: number;
}

/** A step's amount (docs/semantics.md, "Amounts"): state and value (fixed point, 0 unless known). */
export interface StepAmount {
  state: AmountState;
  value: bigint;
}

/** Everything the output record says besides `status`. */
export interface Outcome {
  reason: Reason;
  complete: boolean;
  phi: number;
  loss: number;
  bottleneckCall: number;
  bottleneckEdge: number;
  bottleneckTool: number;
  steps: Step[]; // inverse order: u_n first
  nodes: number;
  amounts: StepAmount[]; // one per step
  amountState: AmountState; // of the total
  amount: bigint; // sum of the known step amounts (0 when a step's is unknown)
}

/** One entry of a call's candidate list: an admissible edge and the step it would contribute. */
interface Candidate {
  edge: number;
  phi: number;
  loss: number;
  positive: boolean; // T1-T3: has an inverse, so takes part in overlap
  restoresUnderNewId: boolean; // identity = new
}

/** A call of M (the mutating calls) with its candidates, in walk order. */
interface Level {
  call: number; // forward index
  tool: number;
  targetEntity: number; // -1: the tool restores no entity
  targetKey: number;
  candidates: Candidate[];
}

function stop(reason: Reason, bottleneckCall: number, bottleneckEdge: number, bottleneckTool: number, nodes = 0): Outcome {
  return { reason, complete: false, phi: 0, loss: 0, bottleneckCall, bottleneckEdge, bottleneckTool, steps: [], nodes,
    amounts: [], amountState: AmountState.None, amount: 0n };
}

export function isReadOnly(tables: OntologyTables, call: InputCall): boolean {
  return call.tool >= 0 && tables.tools[call.tool].readOnly;
}

const isFailClosedTier = (tier: Tier): boolean => tier === Tier.T4 || tier === Tier.T5;

/** "T1–T3 by the tier mask; T4 and T5 are always enabled" (Admissibility). */
function tierEnabled(input: Input, tier: Tier): boolean {
  if (isFailClosedTier(tier)) return true;
  return (input.enabledTiers & (1 << (tier - 1))) !== 0;
}

/** The operand values the call's bound programs read: its slice of the operand array. */
function callOperands(tables: OntologyTables, input: Input, call: InputCall) {
  const count = tables.tools[call.tool].operands.length;
  return input.operands.slice(call.operandStart, call.operandStart + count);
}

/** Admissibility of an edge for a call: live, tier enabled, call grounded, and its condition (if any):
 * TRUE for a positive edge; for a fail-closed edge anything but FALSE (UNKNOWN fails closed). */
function admissible(tables: OntologyTables, input: Input, call: InputCall, edge: EdgeTable): boolean {
  if (edge.lifecycle !== Lifecycle.Live) return false;
  if (!tierEnabled(input, edge.tier)) return false;
  if (!call.grounded) return false;
  if (edge.program < 0) return true;
  const value = conditionValue(tables, edge.program, callOperands(tables, input, call), input.now);
  return isFailClosedTier(edge.tier) ? value !== "false" : value === "true";
}

/** A positive edge that would have been admissible but for its condition: the cause of `bound_violated`. */
function failedBound(tables: OntologyTables, input: Input, call: InputCall, edge: EdgeTable): boolean {
  return (
    !isFailClosedTier(edge.tier) &&
    edge.lifecycle === Live &&
    tierEnabled(input, edge.tier) &&
    call.grounded &&
    edge.program >= 0 &&
    !boundHolds(tables, edge.program, callOperands(tables, input, call), input.now)
  );
}
const Live = Lifecycle.Live;

function edgeIndices(tables: OntologyTables, tool: number): number[] {
  const out: number[] = [];
  for (let e = tables.edgeOffsets[tool]; e < tables.edgeOffsets[tool + 1]; e++) out.push(e);
  return out;
}

/** Phase 1, steps 2–3: the call's candidate list (possibly empty). */
function candidatesOf(tables: OntologyTables, input: Input, call: InputCall): Candidate[] {
  const edges = edgeIndices(tables, call.tool).filter((e) => admissible(tables, input, call, tables.edges[e]));
  const failClosedEdges = edges.filter((e) => isFailClosedTier(tables.edges[e].tier));
  const positiveEdges = edges.filter((e) => !isFailClosedTier(tables.edges[e].tier));

  const failClosedStep = (e: number, phi: number): Candidate => ({
    edge: e,
    phi,
    loss: tables.edges[e].lossWeight,
    positive: false,
    restoresUnderNewId: false,
  });

  // Step 2: an admissible T4/T5 edge decides the call on its own, with phi = 0.
  if (input.failClosed && failClosedEdges.length > 0) return [failClosedStep(failClosedEdges[0], 0)];

  // Step 3: positive edges in edge order; with fail-closed off, T4/T5 follow with phi = ONE.
  const out: Candidate[] = positiveEdges.map((e) => ({
    edge: e,
    phi: tables.edges[e].phi,
    loss: tables.edges[e].lossWeight,
    positive: true,
    restoresUnderNewId: tables.edges[e].identity === Identity.New,
  }));
  if (!input.failClosed) for (const e of failClosedEdges) out.push(failClosedStep(e, FIXED_ONE));
  return out;
}

/** Phase 1 ("The walk"): the levels of the search, or the stop that ends the verdict early. */
function walk(tables: OntologyTables, input: Input): Level[] | Outcome {
  const mutating: number[] = [];
  for (let i = 0; i < input.calls.length; i++) if (!isReadOnly(tables, input.calls[i])) mutating.push(i);
  if (mutating.length > input.maxDepth) return stop(Reason.DepthExceeded, -1, -1, -1);

  const levels: Level[] = [];
  let totalCandidates = 0;
  for (const i of mutating.reverse()) {
    const call = input.calls[i];
    // 1. A tool the ontology does not know fails closed.
    if (call.tool === -1) return stop(Reason.UnknownTool, i, -1, -1);
    const candidates = candidatesOf(tables, input, call);
    // 4. No candidate: a failed T2 bound explains it if there is one.
    if (candidates.length === 0) {
      const edge = edgeIndices(tables, call.tool).find((e) => failedBound(tables, input, call, tables.edges[e]));
      if (edge !== undefined) return stop(Reason.BoundViolated, i, edge, call.tool);
      return stop(Reason.NoCandidate, i, -1, call.tool);
    }
    totalCandidates += candidates.length;
    const tool = tables.tools[call.tool];
    levels.push({ call: i, tool: call.tool, targetEntity: tool.target, targetKey: call.targetKey, candidates });
  }
  // The candidate bound is checked once the walk is done, so a stop found by the walk takes precedence.
  if (totalCandidates > MAX_CANDIDATES) return stop(Reason.DepthExceeded, -1, -1, -1);
  return levels;
}

interface Leaf {
  steps: Step[];
  phi: number;
  loss: number;
}

/** A (φ, loss) pair: a leaf's score, or the best score any completion of a partial path could reach. */
interface Score {
  phi: number;
  loss: number;
}

/** "Selection": does a beat the best so far b? Ties keep b (the earlier leaf in DFS order). */
function beats(a: Score, b: Score, tau: number): boolean {
  const aq = a.phi >= tau;
  const bq = b.phi >= tau;
  if (aq && !bq) return true;
  if (aq && bq) return a.loss < b.loss || (a.loss === b.loss && a.phi > b.phi);
  if (!aq && !bq) return a.phi > b.phi || (a.phi === b.phi && a.loss < b.loss);
  return false;
}

/** "Suffix bounds": Φ[i] = min over levels ≥ i of their greatest candidate φ (ONE past the end) and
 * Λ[i] = sum over levels ≥ i of their least candidate loss (0 past the end). */
function suffixBounds(levels: Level[]): { phi: number[]; loss: number[] } {
  const phi = new Array<number>(levels.length + 1);
  const loss = new Array<number>(levels.length + 1);
  phi[levels.length] = FIXED_ONE;
  loss[levels.length] = 0;
  for (let i = levels.length - 1; i >= 0; i--) {
    let maxPhi = levels[i].candidates[0].phi;
    let minLoss = levels[i].candidates[0].loss;
    for (const c of levels[i].candidates) {
      if (c.phi > maxPhi) maxPhi = c.phi;
      if (c.loss < minLoss) minLoss = c.loss;
    }
    phi[i] = Math.min(maxPhi, phi[i + 1]);
    loss[i] = (minLoss + loss[i + 1]) | 0;
  }
  return { phi, loss };
}

interface Leaf extends Score {
  steps: Step[];
}

/** Phase 2 ("Combination and overlap", a branch and bound) and the output rules. */
function combine(tables: OntologyTables, input: Input, levels: Level[], prune: boolean): Outcome {
  const bound = suffixBounds(levels);
  let nodes = 0;
  let best: Leaf | null = null;
  let firstConflict: { call: number; edge: number; tool: number } | null = null;
  let budgetStop: Outcome | null = null;
  const chosen: Step[] = [];
  const lostKey = (entity: number, key: number) => `${entity}:${key}`;

  // `prefix` is the score of the steps chosen so far (φ_p, loss_p). Returns false once the node budget
  // is spent, which ends the whole search.
  function visit(depth: number, lost: ReadonlySet<string>, prefix: Score): boolean {
    if (depth === levels.length) {
      const leaf: Leaf = { phi: prefix.phi, loss: prefix.loss, steps: chosen.slice() };
      if (best === null || beats(leaf, best, input.tau)) best = leaf;
      return true;
    }
    const level = levels[depth];
    for (const c of level.candidates) {
      if (nodes + 1 > input.maxNodes) {
        budgetStop = stop(Reason.DepthExceeded, level.call, -1, level.tool, nodes);
        return false;
      }
      nodes++;
      // 1. Conflict: the entity this inverse would act on was lost to a later call's inverse.
      const hasTarget = level.targetEntity >= 0;
      if (c.positive && hasTarget && lost.has(lostKey(level.targetEntity, level.targetKey))) {
        firstConflict ??= { call: level.call, edge: c.edge, tool: level.tool };
        continue;
      }
      // 2. Prune when even the optimistic completion of this path cannot beat the best leaf.
      const next: Score = { phi: Math.min(prefix.phi, c.phi), loss: (prefix.loss + c.loss) | 0 };
      const optimistic: Score = { phi: Math.min(next.phi, bound.phi[depth + 1]), loss: (next.loss + bound.loss[depth + 1]) | 0 };
      if (prune && best !== null && !beats(optimistic, best, input.tau)) continue;
      // 3. Descend.
      let nextLost = lost;
      if (c.positive && c.restoresUnderNewId && hasTarget) {
        nextLost = new Set(lost).add(lostKey(level.targetEntity, level.targetKey));
      }
      chosen.push({ call: level.call, edge: c.edge, phi: c.phi, loss: c.loss });
      const more = visit(depth + 1, nextLost, next);
      chosen.pop();
      if (!more) return false;
    }
    return true;
  }

  visit(0, new Set(), { phi: FIXED_ONE, loss: 0 });
  if (budgetStop !== null) return budgetStop;
  if (best === null) {
    const conflict = firstConflict as { call: number; edge: number; tool: number } | null;
    // Every level has a candidate, so a search without a leaf must have skipped one for a conflict.
    if (conflict === null) throw new Error("search ended without a leaf or a conflict");
    return stop(Reason.OverlapConflict, conflict.call, conflict.edge, conflict.tool, nodes);
  }
  return selected(tables, input, levels, best, nodes);
}

/** "Output": the selected π with its bottleneck and reason. */
function selected(tables: OntologyTables, input: Input, levels: Level[], leaf: Leaf, nodes: number): Outcome {
  const bottleneck = leaf.steps.find((s) => s.phi === leaf.phi);
  let reason = Reason.Ok;
  if (leaf.phi < input.tau) {
    const tier = bottleneck === undefined ? null : tables.edges[bottleneck.edge].tier;
    reason = tier === Tier.T4 ? Reason.IrreversiblyConsumes : tier === Tier.T5 ? Reason.ExternalSideEffect : Reason.BelowThreshold;
  }
  const toolOf = (call: number) => levels.find((l) => l.call === call)!.tool;
  const amounts = leaf.steps.map((s) => stepAmount(tables, input, s));
  let amountState = AmountState.None;
  let amount = 0n;
  for (const a of amounts) {
    if (a.state === AmountState.Known) {
      if (amountState === AmountState.None) amountState = AmountState.Known;
      amount = BigInt.asIntN(64, amount + a.value);
    } else if (a.state === AmountState.Unknown) {
      amountState = AmountState.Unknown;
    }
  }
  if (amountState === AmountState.Unknown) amount = 0n;
  return {
    amounts,
    amountState,
    amount,
    reason,
    complete: true,
    phi: leaf.phi,
    loss: leaf.loss,
    bottleneckCall: bottleneck?.call ?? -1,
    bottleneckEdge: bottleneck?.edge ?? -1,
    bottleneckTool: bottleneck === undefined ? -1 : toolOf(bottleneck.call),
    steps: leaf.steps,
    nodes,
  };
}

/** "Amounts": the edge's amount program on the step's call operands; Known when it leaves a Number. */
function stepAmount(tables: OntologyTables, input: Input, s: Step): StepAmount {
  const program = tables.edges[s.edge].amount;
  if (program < 0) return { state: AmountState.None, value: 0n };
  const v = programValue(tables, program, callOperands(tables, input, input.calls[s.call]), input.now);
  return v.tag === ValueTag.Number ? { state: AmountState.Known, value: v.value } : { state: AmountState.Unknown, value: 0n };
}

export interface SearchOptions {
  /** false: the exhaustive DFS without step 2's pruning — the selection the branch and bound must
   * reproduce (tests compare the two); only `nodes` may differ. Default true (docs/semantics.md). */
  prune?: boolean;
}

/** The whole verdict for a decoded input record. */
export function search(tables: OntologyTables, input: Input, options: SearchOptions = {}): Outcome {
  const levels = walk(tables, input);
  if (!Array.isArray(levels)) return levels;
  return combine(tables, input, levels, options.prune ?? true);
}
