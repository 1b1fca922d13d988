// The reverse search of docs/semantics.md over the loaded blob and the input record, written straight
// into the output record. Phase 1 walks the forward sequence most-recent-first and lists each mutating
// call's admissible candidates; phase 2 is an iterative depth-first branch and bound over those lists
// that tracks the lost-entity set, counts nodes against the budget, keeps the best leaf and prunes a
// subtree whose optimistic completion (suffix bounds SUF_PHI/SUF_LOSS) cannot beat it. Everything lives
// in static regions (assembly/memory.ts); nothing is allocated and nothing throws on this path.
import {
  AmountState,
  CALL_GROUNDED,
  CALL_OPERAND_START,
  CALL_SIZE,
  CALL_TARGET_KEY,
  CALL_TOOL,
  EDGE_AMOUNT,
  EDGE_IDENTITY,
  EDGE_LIFECYCLE,
  EDGE_LOSS_W,
  EDGE_PHI,
  EDGE_PROGRAM,
  EDGE_SIZE,
  EDGE_TIER,
  FIXED_ONE,
  FLAG_FAIL_CLOSED_OFF,
  Identity,
  IN_CALLS,
  IN_FLAGS,
  IN_MAX_DEPTH,
  IN_MAX_NODES,
  IN_N_CALLS,
  IN_N_OPERANDS,
  IN_NOW,
  IN_OPERANDS,
  IN_TAU,
  Lifecycle,
  MAX_CALLS,
  MAX_CANDIDATES,
  MAX_OPERANDS,
  OPERAND_VALUE_SIZE,
  OUT_AMOUNT,
  OUT_AMOUNT_PAD,
  OUT_AMOUNT_STATE,
  OUT_B_CALL,
  OUT_B_EDGE,
  OUT_B_TOOL,
  OUT_COMPLETE,
  OUT_LOSS,
  OUT_N_STEPS,
  OUT_NODES,
  OUT_PHI,
  OUT_REASON,
  OUT_STATUS,
  OUT_STEPS,
  Reason,
  Status,
  STEP_AMOUNT,
  STEP_AMOUNT_PAD,
  STEP_AMOUNT_STATE,
  STEP_CALL,
  STEP_EDGE,
  STEP_LOSS,
  STEP_PHI,
  STEP_SIZE,
  Tier,
  TOOL_FLAGS,
  TOOL_OPERAND_COUNT,
  TOOL_SIZE,
  TOOL_TARGET,
  ToolFlag,
  ValueTag,
} from "../src/abi";
import {
  BEST_CAND,
  CAND_EDGE,
  CAND_PHI,
  DFS_CHOICE,
  DFS_LOSS,
  DFS_LOST,
  DFS_PHI,
  edgeOffsetsBase,
  edgesBase,
  INPUT,
  LEVEL_CALL,
  LEVEL_COUNT,
  LEVEL_KEY,
  LEVEL_START,
  LEVEL_TYPE,
  loaded,
  LOST_KEY,
  LOST_TYPE,
  OUTPUT,
  SUF_LOSS,
  SUF_PHI,
  toolCount,
  toolsBase,
} from "./memory";
import { COND_FALSE, COND_TRUE, conditionValue, programValue, valueTag, valueVal } from "./program";

// ---------------------------------------------------------------------------------------------------
// Test hook for the fault build only. Nothing in the release build writes trapAt, so the optimizer
// folds it to -1 and drops the check (assembly/fault.ts is the only caller of armTrap).
let trapAt: i32 = -1;

export function armTrap(afterCalls: i32): void {
  trapAt = afterCalls;
}

/** Traps once, when an armed verdict's walk has looked at `trapAt` calls, or, for a verdict that ends
 * sooner, while it writes its output record (atEnd): every armed verdict traps part-way. */
@inline function faultPoint(walked: i32, atEnd: bool): void {
  if (trapAt >= 0 && (walked >= trapAt || atEnd)) {
    trapAt = -1;
    unreachable();
  }
}

// ---------------------------------------------------------------------------------------------------
// Pointer helpers: each names the record it addresses.

@inline function i32At(base: usize, index: i32): i32 {
  return load<i32>(base + (<usize>index << 2)); // base[index], i32 elements
}

@inline function setI32At(base: usize, index: i32, value: i32): void {
  store<i32>(base + (<usize>index << 2), value); // base[index] = value
}

@inline function callRec(i: i32): usize {
  return INPUT + IN_CALLS + <usize>i * CALL_SIZE; // calls[i]
}

@inline function toolRec(tool: i32): usize {
  return toolsBase + <usize>tool * TOOL_SIZE; // Tools[tool]
}

@inline function edgeRec(edge: i32): usize {
  return edgesBase + <usize>edge * EDGE_SIZE; // Edges[edge]
}

@inline function edgeTier(edge: i32): i32 {
  return <i32>load<u8>(edgeRec(edge) + EDGE_TIER);
}

@inline function isReadOnly(tool: i32): bool {
  return (load<u32>(toolRec(tool) + TOOL_FLAGS) & ToolFlag.ReadOnly) != 0;
}

@inline function toolOf(call: i32): i32 {
  return load<i32>(callRec(call) + CALL_TOOL);
}

// ---------------------------------------------------------------------------------------------------
// Output record.

function writeHead(status: i32, reason: i32, bCall: i32, bEdge: i32, bTool: i32, nodes: u32): i32 {
  store<i32>(OUTPUT + OUT_STATUS, status);
  faultPoint(0, true);
  store<i32>(OUTPUT + OUT_REASON, reason);
  store<i32>(OUTPUT + OUT_COMPLETE, 0);
  store<i32>(OUTPUT + OUT_PHI, 0);
  store<i32>(OUTPUT + OUT_LOSS, 0);
  store<i32>(OUTPUT + OUT_B_CALL, bCall);
  store<i32>(OUTPUT + OUT_B_EDGE, bEdge);
  store<i32>(OUTPUT + OUT_B_TOOL, bTool);
  store<u32>(OUTPUT + OUT_N_STEPS, 0);
  store<u32>(OUTPUT + OUT_NODES, nodes);
  store<i32>(OUTPUT + OUT_AMOUNT_STATE, AmountState.None);
  store<i32>(OUTPUT + OUT_AMOUNT_PAD, 0);
  store<i64>(OUTPUT + OUT_AMOUNT, 0);
  return status;
}

/** The core could not answer: the status, every other field zero (as the reference writes it). */
@inline function fail(status: i32): i32 {
  return writeHead(status, 0, 0, 0, 0, 0);
}

/** The search ended without a sequence: complete = 0, phi = 0, loss = 0, no steps. */
@inline function stop(reason: i32, bCall: i32, bEdge: i32, bTool: i32, nodes: u32): i32 {
  return writeHead(Status.Ok, reason, bCall, bEdge, bTool, nodes);
}

// ---------------------------------------------------------------------------------------------------
// Input checks (docs/semantics.md "Status": a tool, operand or count out of range is bad_input).

/** Status.Ok when every count, operand tag, tool index and operand range of the record is in range. */
function checkInput(nCalls: u32, nOperands: u32): i32 {
  if (nCalls > <u32>MAX_CALLS || nOperands > <u32>MAX_OPERANDS) return Status.BadInput;
  for (let i: u32 = 0; i < nOperands; i++) {
    const tag = load<i32>(INPUT + IN_OPERANDS + <usize>i * OPERAND_VALUE_SIZE); // operands[i].tag
    if (<u32>tag > <u32>ValueTag.String) return Status.BadInput;
  }
  for (let i: i32 = 0; i < <i32>nCalls; i++) {
    const tool = toolOf(i);
    if (tool == -1) continue;
    if (tool < -1 || <u32>tool >= toolCount) return Status.BadInput;
    const start = load<u32>(callRec(i) + CALL_OPERAND_START);
    const count = load<u32>(toolRec(tool) + TOOL_OPERAND_COUNT);
    if (<u64>start + <u64>count > <u64>nOperands) return Status.BadInput;
  }
  return Status.Ok;
}

/** |M|: calls that are not read-only (an unknown tool counts as mutating). */
function mutatingCount(nCalls: i32): u32 {
  let m: u32 = 0;
  for (let i = 0; i < nCalls; i++) {
    const tool = toolOf(i);
    if (tool < 0 || !isReadOnly(tool)) m++;
  }
  return m;
}

// ---------------------------------------------------------------------------------------------------
// Phase 1: admissibility and candidate lists.

/** T1-T3 by the tier mask; T4 and T5 are always enabled (their mask bits are not consulted). */
@inline function tierEnabled(tier: i32, flags: u32): bool {
  return tier >= Tier.T4 || (flags & (1 << (<u32>tier - 1))) != 0;
}

/** Live, tier enabled, call grounded, and its condition: a positive edge needs no condition or one
 * that is TRUE; a fail-closed edge applies unless its condition is definitely FALSE. */
function admissible(edge: i32, flags: u32, grounded: bool, operands: usize, nOps: u32, now: i64): bool {
  const rec = edgeRec(edge);
  if (!grounded || <i32>load<u8>(rec + EDGE_LIFECYCLE) != Lifecycle.Live) return false;
  const tier = <i32>load<u8>(rec + EDGE_TIER);
  if (!tierEnabled(tier, flags)) return false;
  const program = load<i32>(rec + EDGE_PROGRAM);
  if (program < 0) return true;
  const value = conditionValue(program, operands, nOps, now);
  return tier >= Tier.T4 ? value != COND_FALSE : value == COND_TRUE;
}

// Candidates listed so far across calls. The walk stops as soon as a call takes it past
// MAX_CANDIDATES; until then only the first MAX_CANDIDATES are stored.
let candTotal: u32 = 0;

@inline function addCandidate(edge: i32, phi: i32): void {
  if (candTotal < <u32>MAX_CANDIDATES) {
    setI32At(CAND_EDGE, <i32>candTotal, edge);
    setI32At(CAND_PHI, <i32>candTotal, phi);
  }
  candTotal++;
}

// The first positive edge that was live, enabled and grounded but whose condition was not TRUE (-1 none).
let failedBound: i32 = -1;

/** Lists call i's candidates (steps 2 and 3 of the walk). */
function listCandidates(i: i32, tool: i32, flags: u32, now: i64): void {
  const call = callRec(i);
  const grounded = load<u32>(call + CALL_GROUNDED) != 0;
  const operands = INPUT + IN_OPERANDS + <usize>load<u32>(call + CALL_OPERAND_START) * OPERAND_VALUE_SIZE; // operands[call.operand_start]
  const nOps = load<u32>(toolRec(tool) + TOOL_OPERAND_COUNT);
  const from = load<i32>(edgeOffsetsBase + (<usize>tool << 2)); //   EdgeOffsets[tool]
  const to = load<i32>(edgeOffsetsBase + (<usize>(tool + 1) << 2)); // EdgeOffsets[tool + 1]
  const failClosed = (flags & FLAG_FAIL_CLOSED_OFF) == 0;
  failedBound = -1;

  if (failClosed) {
    for (let e = from; e < to; e++) {
      if (edgeTier(e) >= Tier.T4 && admissible(e, flags, grounded, operands, nOps, now)) {
        addCandidate(e, 0);
        return;
      }
    }
  }
  for (let e = from; e < to; e++) {
    const tier = edgeTier(e);
    if (tier >= Tier.T4) continue;
    if (admissible(e, flags, grounded, operands, nOps, now)) {
      addCandidate(e, load<i32>(edgeRec(e) + EDGE_PHI));
    } else if (failedBound < 0 && grounded) {
      // Not admissible although grounded: it failed here when live, enabled and its condition not TRUE.
      const rec = edgeRec(e);
      const live = <i32>load<u8>(rec + EDGE_LIFECYCLE) == Lifecycle.Live;
      if (live && tierEnabled(tier, flags) && load<i32>(rec + EDGE_PROGRAM) >= 0) failedBound = e;
    }
  }
  if (!failClosed) {
    for (let e = from; e < to; e++) {
      if (edgeTier(e) >= Tier.T4 && admissible(e, flags, grounded, operands, nOps, now)) addCandidate(e, FIXED_ONE);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Phase 2: selection.

/** Leaf a beats the current best b (docs/semantics.md, "Selection"). */
@inline function beats(phiA: i32, lossA: i32, phiB: i32, lossB: i32, tau: i32): bool {
  const qa = phiA >= tau;
  const qb = phiB >= tau;
  if (qa != qb) return qa;
  if (qa) return lossA < lossB || (lossA == lossB && phiA > phiB);
  return phiA > phiB || (phiA == phiB && lossA < lossB);
}

/** (type, key) is in the first `size` entries of L. */
function isLost(type: i32, key: i32, size: i32): bool {
  for (let k = 0; k < size; k++) {
    if (i32At(LOST_KEY, k) == key && i32At(LOST_TYPE, k) == type) return true;
  }
  return false;
}

/** The amount state of edge `edge` on call `call`'s operands (docs/semantics.md, "Amounts"); when
 * Known, its value is in valueVal. */
function stepAmount(call: i32, edge: i32): i32 {
  const program = load<i32>(edgeRec(edge) + EDGE_AMOUNT);
  if (program < 0) return AmountState.None;
  const rec = callRec(call);
  const operands = INPUT + IN_OPERANDS + <usize>load<u32>(rec + CALL_OPERAND_START) * OPERAND_VALUE_SIZE; // operands[call.operand_start]
  const nOps = load<u32>(toolRec(load<i32>(rec + CALL_TOOL)) + TOOL_OPERAND_COUNT);
  programValue(program, operands, nOps, load<i64>(INPUT + IN_NOW));
  return valueTag == ValueTag.Number ? AmountState.Known : AmountState.Unknown;
}

/** Writes the selected sequence of m steps, its bottleneck and its reason. */
function writeSequence(m: i32, phi: i32, loss: i32, tau: i32, nodes: u32): i32 {
  let bCall = -1, bEdge = -1, bTool = -1;
  let reason: i32 = phi >= tau ? Reason.Ok : Reason.BelowThreshold;
  let totalState: i32 = AmountState.None;
  let total: i64 = 0;
  for (let k = 0; k < m; k++) {
    const cand = i32At(BEST_CAND, k);
    const edge = i32At(CAND_EDGE, cand);
    const stepPhi = i32At(CAND_PHI, cand);
    const call = i32At(LEVEL_CALL, k);
    const step = OUTPUT + OUT_STEPS + <usize>k * STEP_SIZE; // steps[k]
    store<i32>(step + STEP_CALL, call);
    store<i32>(step + STEP_EDGE, edge);
    store<i32>(step + STEP_PHI, stepPhi);
    store<i32>(step + STEP_LOSS, load<i32>(edgeRec(edge) + EDGE_LOSS_W));
    const state = stepAmount(call, edge);
    store<i32>(step + STEP_AMOUNT_STATE, state);
    store<i32>(step + STEP_AMOUNT_PAD, 0);
    store<i64>(step + STEP_AMOUNT, state == AmountState.Known ? valueVal : 0);
    if (state == AmountState.Known) {
      if (totalState == AmountState.None) totalState = AmountState.Known;
      total += valueVal;
    } else if (state == AmountState.Unknown) {
      totalState = AmountState.Unknown;
    }
    if (bCall < 0 && stepPhi == phi) {
      bCall = call;
      bEdge = edge;
      bTool = toolOf(call);
      if (phi < tau) {
        const tier = edgeTier(edge);
        if (tier == Tier.T4) reason = Reason.IrreversiblyConsumes;
        else if (tier == Tier.T5) reason = Reason.ExternalSideEffect;
      }
    }
  }
  writeHead(Status.Ok, reason, bCall, bEdge, bTool, nodes);
  store<i32>(OUTPUT + OUT_COMPLETE, 1);
  store<i32>(OUTPUT + OUT_PHI, phi);
  store<i32>(OUTPUT + OUT_LOSS, loss);
  store<u32>(OUTPUT + OUT_N_STEPS, <u32>m);
  store<i32>(OUTPUT + OUT_AMOUNT_STATE, totalState);
  store<i64>(OUTPUT + OUT_AMOUNT, totalState == AmountState.Unknown ? 0 : total);
  return Status.Ok;
}

/** Suffix bounds of the m levels (docs/semantics.md "Suffix bounds"): SUF_PHI[i] is the min over
 * levels >= i of their greatest candidate phi, SUF_LOSS[i] the sum of their least candidate loss. */
function suffixBounds(m: i32): void {
  setI32At(SUF_PHI, m, FIXED_ONE);
  setI32At(SUF_LOSS, m, 0);
  for (let i = m - 1; i >= 0; i--) {
    const start = i32At(LEVEL_START, i);
    const end = start + i32At(LEVEL_COUNT, i);
    let maxPhi = i32At(CAND_PHI, start);
    let minLoss = load<i32>(edgeRec(i32At(CAND_EDGE, start)) + EDGE_LOSS_W);
    for (let c = start + 1; c < end; c++) {
      const phi = i32At(CAND_PHI, c);
      const loss = load<i32>(edgeRec(i32At(CAND_EDGE, c)) + EDGE_LOSS_W);
      if (phi > maxPhi) maxPhi = phi;
      if (loss < minLoss) minLoss = loss;
    }
    const after = i32At(SUF_PHI, i + 1);
    setI32At(SUF_PHI, i, maxPhi < after ? maxPhi : after);
    setI32At(SUF_LOSS, i, minLoss + i32At(SUF_LOSS, i + 1));
  }
}

/** Depth-first branch and bound over the m levels; writes the verdict. */
function search(m: i32, tau: i32, maxNodes: u32): i32 {
  suffixBounds(m);
  let nodes: u32 = 0;
  let haveBest = false;
  let bestPhi: i32 = 0, bestLoss: i32 = 0;
  let conflictCall = -1, conflictEdge = -1;
  setI32At(DFS_PHI, 0, FIXED_ONE);
  setI32At(DFS_LOSS, 0, 0);
  setI32At(DFS_LOST, 0, 0);
  setI32At(DFS_CHOICE, 0, -1);
  let depth = 0;
  while (true) {
    if (depth == m) {
      const phi = i32At(DFS_PHI, m);
      const loss = i32At(DFS_LOSS, m);
      if (!haveBest || beats(phi, loss, bestPhi, bestLoss, tau)) {
        haveBest = true;
        bestPhi = phi;
        bestLoss = loss;
        for (let k = 0; k < m; k++) setI32At(BEST_CAND, k, i32At(LEVEL_START, k) + i32At(DFS_CHOICE, k));
      }
      if (depth == 0) break;
      depth--;
      continue;
    }
    const choice = i32At(DFS_CHOICE, depth) + 1;
    if (choice >= i32At(LEVEL_COUNT, depth)) {
      if (depth == 0) break;
      depth--;
      continue;
    }
    setI32At(DFS_CHOICE, depth, choice);
    const call = i32At(LEVEL_CALL, depth);
    if (nodes >= maxNodes) return stop(Reason.DepthExceeded, call, -1, toolOf(call), nodes);
    nodes++;
    const cand = i32At(LEVEL_START, depth) + choice;
    const edge = i32At(CAND_EDGE, cand);
    let lost = i32At(DFS_LOST, depth);
    const type = i32At(LEVEL_TYPE, depth);
    const restores = type >= 0 && edgeTier(edge) <= Tier.T3; // a positive step on a target entity
    const key = i32At(LEVEL_KEY, depth);
    // 1. Conflict: this inverse needs an entity a later call's inverse re-creates under a new id.
    if (restores && isLost(type, key, lost)) {
      if (conflictCall < 0) {
        conflictCall = call;
        conflictEdge = edge;
      }
      continue;
    }
    // 2. Prune when the optimistic completion of this path does not beat the best leaf.
    const prefixPhi = i32At(DFS_PHI, depth);
    const stepPhi = i32At(CAND_PHI, cand);
    const phi = stepPhi < prefixPhi ? stepPhi : prefixPhi;
    const loss = i32At(DFS_LOSS, depth) + load<i32>(edgeRec(edge) + EDGE_LOSS_W);
    if (haveBest) {
      const suffixPhi = i32At(SUF_PHI, depth + 1);
      const optimisticPhi = suffixPhi < phi ? suffixPhi : phi;
      const optimisticLoss = loss + i32At(SUF_LOSS, depth + 1);
      if (!beats(optimisticPhi, optimisticLoss, bestPhi, bestLoss, tau)) continue;
    }
    // 3. Descend.
    if (restores && <i32>load<u8>(edgeRec(edge) + EDGE_IDENTITY) == Identity.New) {
      setI32At(LOST_TYPE, lost, type);
      setI32At(LOST_KEY, lost, key);
      lost++;
    }
    setI32At(DFS_PHI, depth + 1, phi);
    setI32At(DFS_LOSS, depth + 1, loss);
    setI32At(DFS_LOST, depth + 1, lost);
    depth++;
    if (depth < m) setI32At(DFS_CHOICE, depth, -1);
  }
  if (haveBest) return writeSequence(m, bestPhi, bestLoss, tau, nodes);
  if (conflictCall >= 0) return stop(Reason.OverlapConflict, conflictCall, conflictEdge, toolOf(conflictCall), nodes);
  return fail(Status.Internal); // every level has a candidate, so only conflicts can leave no leaf
}

// ---------------------------------------------------------------------------------------------------

/** One verdict over the input record; returns (and writes) the status. */
export function runVerdict(): i32 {
  if (!loaded) return fail(Status.NotLoaded);
  const nCalls = load<u32>(INPUT + IN_N_CALLS);
  const nOperands = load<u32>(INPUT + IN_N_OPERANDS);
  const status = checkInput(nCalls, nOperands);
  if (status != Status.Ok) return fail(status);

  const n = <i32>nCalls;
  if (mutatingCount(n) > load<u32>(INPUT + IN_MAX_DEPTH)) return stop(Reason.DepthExceeded, -1, -1, -1, 0);

  const flags = load<u32>(INPUT + IN_FLAGS);
  const now = load<i64>(INPUT + IN_NOW);
  candTotal = 0;
  let m = 0;
  for (let i = n - 1; i >= 0; i--) {
    faultPoint(n - 1 - i, false);
    const tool = toolOf(i);
    if (tool >= 0 && isReadOnly(tool)) continue;
    if (tool < 0) return stop(Reason.UnknownTool, i, -1, -1, 0);
    const start = candTotal;
    listCandidates(i, tool, flags, now);
    if (candTotal == start) {
      return failedBound >= 0
        ? stop(Reason.BoundViolated, i, failedBound, tool, 0)
        : stop(Reason.NoCandidate, i, -1, tool, 0);
    }
    if (candTotal > <u32>MAX_CANDIDATES) return stop(Reason.DepthExceeded, -1, -1, -1, 0);
    setI32At(LEVEL_CALL, m, i);
    setI32At(LEVEL_START, m, <i32>start);
    setI32At(LEVEL_COUNT, m, <i32>(candTotal - start));
    setI32At(LEVEL_TYPE, m, load<i32>(toolRec(tool) + TOOL_TARGET));
    setI32At(LEVEL_KEY, m, load<i32>(callRec(i) + CALL_TARGET_KEY));
    m++;
  }
  return search(m, load<i32>(INPUT + IN_TAU), load<u32>(INPUT + IN_MAX_NODES));
}
