// The verifier: the host engine between the guard and a search backend. It turns one forward sequence
// of tool calls plus a view of Layer B into the ABI input record (tool indices, grounding, target keys,
// operand values), makes ONE backend run, and decodes the output record into a Verdict with names,
// annotation ids, spans and executable inverse arguments. The search itself is docs/semantics.md.
import {
  AmountState,
  ArgSource,
  FIXED_ONE,
  MAX_CALLS,
  MAX_OPERANDS,
  OperandKind,
  OUT_B_CALL,
  OUT_B_EDGE,
  OUT_AMOUNT,
  OUT_AMOUNT_STATE,
  OUT_B_TOOL,
  OUT_COMPLETE,
  OUT_LOSS,
  OUT_NODES,
  OUT_PHI,
  OUT_REASON,
  OUT_STATUS,
  OUT_STEPS,
  OUTPUT_SIZE,
  STEP_AMOUNT,
  STEP_AMOUNT_STATE,
  STEP_CALL,
  STEP_EDGE,
  STEP_LOSS,
  STEP_PHI,
  STEP_SIZE,
  Reason,
  SlotType,
  Status,
  Tier,
  ValueTag,
} from "../abi.js";
import type { ArgMapEntry, EdgeTable, OntologyTables, OperandTable } from "../ontology/tables.js";
import type { SearchBackend } from "./backend.js";
import { Interner } from "./interner.js";
import { outputBytes, outputWords, stepCount, tierFlags, writeCall, writeHeader, writeOperand, writeOperandInt } from "./record.js";
import type {
  Bottleneck,
  ExecutedCall,
  ReasonName,
  StateView,
  TierName,
  ToolCall,
  Verdict,
  VerdictOptions,
  VerdictStep,
} from "./types.js";
import {
  fieldAt,
  getPath,
  isPlainObject,
  numberToFixed,
  splitPath,
  timeToFixed,
  toTagged,
  type TaggedValue,
} from "./values.js";

export type VerifierErrorCode = "internal-error" | "malformed-call" | "bad-option" | "input-too-large" | "bad-state";

/** A typed failure of the verifier; the guard turns every one of them into a veto. */
export class VerifierError extends Error {
  readonly code: VerifierErrorCode;
  readonly help: string | undefined;
  constructor(code: VerifierErrorCode, message: string, help?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "VerifierError";
    this.code = code;
    this.help = help;
  }
}

/** Receives every Layer B read a verdict makes (the guard digests them for its audit record). `slot` is
 * null for an existence check (grounding), whose `value` is then the boolean answer. */
export interface ReadCollector {
  read(entity: string, id: string, slot: string | null, value: unknown): void;
}

export interface ToolInfo {
  known: boolean;
  readOnly: boolean;
  actsOn: string | null;
  keyArg: string | null;
  /** The constant id of the one entity the tool acts on (`key = "phone"`), null when keyArg names it. */
  keyConst: string | null;
  creates: string | null;
}

/** A verdict whose output record is kept as its little-endian 32-bit words (record.ts outputWords)
 * instead of a byte copy: what the guard records, writing the hex only when it is read. */
export type VerdictWords = Omit<Verdict, "bytes"> & { words: number[] };

export interface Verifier {
  readonly tables: OntologyTables;
  readonly backend: SearchBackend;
  /** The verdict for `forward` (forward order; the last call is the candidate). Throws VerifierError. */
  verdict(forward: readonly ExecutedCall[], state: StateView, options?: VerdictOptions, reads?: ReadCollector): Verdict;
  /** verdict(), with the output record as words (no byte copy). Optional (createVerifier's is not
   * enumerable, so a spread copy lacks it): a caller falls back to verdict() without it. */
  verdictWords?(forward: readonly ExecutedCall[], state: StateView, options?: VerdictOptions, reads?: ReadCollector): VerdictWords;
  tool(name: string): ToolInfo;
}

export type VerifierOptions = VerdictOptions;

export const REASON_NAMES: Record<Reason, ReasonName> = {
  [Reason.Ok]: "ok",
  [Reason.NoCandidate]: "no_candidate",
  [Reason.ExternalSideEffect]: "external_side_effect",
  [Reason.IrreversiblyConsumes]: "irreversibly_consumes",
  [Reason.BoundViolated]: "bound_violated",
  [Reason.UnknownTool]: "unknown_tool",
  [Reason.OverlapConflict]: "overlap_conflict",
  [Reason.DepthExceeded]: "depth_exceeded",
  [Reason.BelowThreshold]: "below_threshold",
};

export const TIER_NAMES: Record<Tier, TierName> = { [Tier.T1]: "T1", [Tier.T2]: "T2", [Tier.T3]: "T3", [Tier.T4]: "T4", [Tier.T5]: "T5" };

const DEFAULTS = {
  tau: 0.8,
  tiers: Object.freeze(["T1", "T2", "T3"]) as TierName[],
  failClosed: true,
  maxDepth: 64,
  maxNodes: 100_000,
  now: 0 as string | number | Date,
};

/** One operand of a tool, with its path or slot resolved once. */
interface OperandPlan {
  kind: OperandKind;
  type: OperandTable["type"];
  slotEntity: string | null; // entity type the slot belongs to
  slotName: string | null;
  slotOnActsOn: boolean; // the slot belongs to the tool's acts_on entity
  slotIndex: number; // index in tables.slots, -1 for an argument operand
  path: string[] | null;
  key: string[] | null; // SlotLookup: the argument path whose value is the key
}

/** Per tool, everything the hot path needs, resolved once at construction. */
interface ToolPlan {
  index: number;
  readOnly: boolean;
  actsOn: string | null;
  keyArg: string | null;
  keyConst: string | null;
  creates: string | null;
  newKey: string | null;
  operands: OperandPlan[];
  /** Argument paths and slot names the tool's conditions check with presence operands. */
  presentArgs: Set<string>;
  presentSlots: Set<string>;
  /** The slots of its acts_on entity its operands read, each once, in name order (a candidate's are
   * read all at once, before its operands are written), their indices in tables.slots, and the scratch
   * their values are read into. */
  ownSlots: string[];
  ownSlotIndex: number[];
  ownValues: unknown[];
}

/** Per edge, the inverse-argument template with literals parsed once. */
interface ArgPlan {
  param: string;
  source: ArgSource;
  path: string[];
  /** `path` joined with dots (how presence operands name argument paths). */
  pathText: string;
  slot: string;
  /** A PreSlot's index in tables.slots (the slot of the forward tool's acts_on entity), -1 if none. */
  slotIndex: number;
  literal: unknown;
}

function planOperand(tables: OntologyTables, actsOn: number, o: OperandTable): OperandPlan {
  const slot = o.slot >= 0 ? tables.slots[o.slot] : undefined;
  return {
    kind: o.kind,
    type: o.type,
    slotEntity: slot === undefined ? null : tables.entities[slot.entity].name,
    slotName: slot === undefined ? null : slot.name,
    slotOnActsOn: slot !== undefined && slot.entity === actsOn,
    slotIndex: slot === undefined ? -1 : o.slot,
    path: o.path === null ? null : splitPath(o.path),
    key: o.kind === OperandKind.SlotLookup && o.key != null ? splitPath(o.key) : null,
  };
}

function planArgs(entries: ArgMapEntry[], slotOf: (name: string) => number): ArgPlan[] {
  return entries.map((a) => {
    let literal: unknown = undefined;
    if (a.source === ArgSource.Literal) {
      try {
        literal = JSON.parse(a.ref);
      } catch {
        literal = a.ref;
      }
    }
    // A PreSlot ref may be written `slot` or `entity.slot`; the slot is the last part.
    const slot = a.ref.includes(".") ? a.ref.slice(a.ref.lastIndexOf(".") + 1) : a.ref;
    const path = a.ref === "" ? [] : splitPath(a.ref);
    return { param: a.param, source: a.source, path, pathText: path.join("."), slot, slotIndex: a.source === ArgSource.PreSlot ? slotOf(slot) : -1, literal };
  });
}

/** A decimal in [0, 1] (τ) as fixed point, exactly. */
function fixedTau(tau: number): number {
  const fixed = typeof tau === "number" && tau >= 0 && tau <= 1 ? numberToFixed(tau) : null;
  if (fixed === null) throw new VerifierError("bad-option", `tau \`${String(tau)}\` is not a number in [0, 1]`);
  return Number(fixed);
}

function fixedNow(now: string | number | Date): bigint {
  const fixed = timeToFixed(now);
  if (fixed === null) throw new VerifierError("bad-option", `now \`${String(now)}\` is not a valid time`, "use an ISO-8601 string, a Date or epoch milliseconds");
  return fixed;
}

function boundedInt(name: string, v: number, max: number): number {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new VerifierError("bad-option", `${name} \`${String(v)}\` is not an integer in [0, ${max}]`);
  return v;
}

/** The entity id a call names through its key argument, or null when it names none. */
function keyOf(args: Record<string, unknown>, keyArg: string | null): string | null {
  if (keyArg === null) return null;
  const v = fieldAt(args, keyArg);
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/** The id of the entity a call of tool `p` acts on: its constant key, or the key argument's value
 * (a string, or a finite number as text); null when it names none. */
export function entityKey(p: { keyArg: string | null; keyConst: string | null }, args: Record<string, unknown>): string | null {
  return p.keyConst ?? keyOf(args, p.keyArg);
}

/** The created entity's id from an executed call's result, or null before the call ran. */
function createdId(call: ExecutedCall, newKey: string | null): string | null {
  if (call.result === undefined || newKey === null) return null;
  return keyOf(isPlainObject(call.result) ? call.result : {}, newKey);
}

function checkCall(call: unknown, i: number): asserts call is ExecutedCall {
  if (typeof call !== "object" || call === null) throw new VerifierError("malformed-call", `call ${i} is not an object`);
  const c = call as Partial<ToolCall>;
  if (typeof c.name !== "string") throw new VerifierError("malformed-call", `call ${i} has no string \`name\``);
  if (!isPlainObject(c.arguments)) throw new VerifierError("malformed-call", `call ${i} (\`${c.name}\`): \`arguments\` is not a plain object`);
}

const NO_READS: ReadCollector = { read() {} };

/** numberToFixed's exact integer bound (src/core/values.ts): below it, |n| × 10^6 < 2^53. */
const MAX_FAST_INT = 9_007_199_254;

/** Where a call's slot operands are read: the current Layer B (the candidate), an earlier call's
 * `before` snapshot, or nowhere (an earlier call without one: its pre-call slots are unknown). */
const CURRENT = 0;
const NO_SNAPSHOT = 1;
type PreState = typeof CURRENT | typeof NO_SNAPSHOT | Record<string, unknown>;

function preStateOf(call: ExecutedCall, candidate: boolean): PreState {
  if (candidate) return CURRENT;
  return isPlainObject(call.before) ? call.before : NO_SNAPSHOT;
}

function ownValue(o: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

function hasOwnKeys(o: Record<string, unknown>): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return true;
  return false;
}

/** The output record a backend would write for a sequence beyond the depth bound: it never runs. */
function depthExceededBytes(): DataView {
  const view = new DataView(new ArrayBuffer(OUTPUT_SIZE));
  view.setInt32(OUT_REASON, Reason.DepthExceeded, true);
  view.setInt32(OUT_B_CALL, -1, true);
  view.setInt32(OUT_B_EDGE, -1, true);
  view.setInt32(OUT_B_TOOL, -1, true);
  return view;
}

export function createVerifier(tables: OntologyTables, backend: SearchBackend, options: VerifierOptions = {}): Verifier {
  const defaults = { ...DEFAULTS, ...stripUndefined(options) };
  const interner = new Interner(tables.strings);
  const byName = new Map<string, ToolPlan>();
  const plans: ToolPlan[] = tables.tools.map((t, index) => {
    const own = new Map<string, number>();
    for (const o of t.operands) if (o.slot >= 0 && tables.slots[o.slot].entity === t.actsOn) own.set(tables.slots[o.slot].name, o.slot);
    const ownSlots = [...own.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const plan: ToolPlan = {
      index,
      readOnly: t.readOnly,
      actsOn: t.actsOn >= 0 ? tables.entities[t.actsOn].name : null,
      keyArg: t.keyArg,
      keyConst: t.keyConst,
      creates: t.creates >= 0 ? tables.entities[t.creates].name : null,
      newKey: t.creates >= 0 ? (t.newKey ?? "id") : null,
      operands: t.operands.map((o) => planOperand(tables, t.actsOn, o)),
      presentArgs: new Set(t.operands.filter((o) => o.kind === OperandKind.ArgPresent && o.path !== null).map((o) => o.path!)),
      presentSlots: new Set(t.operands.filter((o) => o.kind === OperandKind.SlotPresent && o.slot >= 0).map((o) => tables.slots[o.slot].name)),
      ownSlots,
      ownSlotIndex: ownSlots.map((name) => own.get(name)!),
      ownValues: new Array<unknown>(ownSlots.length).fill(undefined),
    };
    byName.set(t.name, plan);
    return plan;
  });
  const argPlans: (ArgPlan[] | null)[] = tables.edges.map((e) => {
    if (e.argMap === null) return null;
    const actsOn = tables.tools[e.forward].actsOn;
    return planArgs(e.argMap, (name) => (actsOn < 0 ? -1 : tables.slots.findIndex((sl) => sl.entity === actsOn && sl.name === name)));
  });
  const scratch: TaggedValue = { tag: ValueTag.Missing, value: 0n };
  // The candidate's slot values read in this verdict, by slot index (`slotStamp[i] === stamp`): only
  // the candidate reads the current state, and several operands often name the same slot, which is
  // read once per verdict.
  const slotStamp = new Float64Array(tables.slots.length);
  const slotValue: unknown[] = new Array<unknown>(tables.slots.length).fill(undefined);
  let stamp = 0;
  /** The plans of the calls of the verdict being written (search), by position. */
  const callPlans: (ToolPlan | undefined)[] = new Array<ToolPlan | undefined>(MAX_CALLS).fill(undefined);

  // Converting τ and now (regular expressions, BigInt) and the tier list was most of a verdict's host
  // time, and callers pass the same values every time: the last conversion is kept. Only immutable
  // inputs are reused (numbers, strings, frozen tier arrays); a Date or a plain array is converted anew.
  let lastTau: number | null = null;
  let lastTauFixed = 0;
  let lastNow: string | number | null = null;
  let lastNowFixed = 0n;
  let lastTiers: readonly TierName[] | null = null;
  let lastFailClosed = true;
  let lastFlags = 0;
  function tauOf(t: number): number {
    if (t !== lastTau) {
      lastTauFixed = fixedTau(t);
      lastTau = t;
    }
    return lastTauFixed;
  }
  function nowOf(t: string | number | Date): bigint {
    if (typeof t === "object") return fixedNow(t);
    if (t !== lastNow) {
      lastNowFixed = fixedNow(t);
      lastNow = t;
    }
    return lastNowFixed;
  }
  function flagsOf(tiers: readonly TierName[], failClosed: boolean): number {
    if (tiers === lastTiers && failClosed === lastFailClosed) return lastFlags;
    const flags = tierFlags(tiers, failClosed);
    if (Object.isFrozen(tiers)) {
      lastTiers = tiers;
      lastFailClosed = failClosed;
      lastFlags = flags;
    }
    return flags;
  }

  function tool(name: string): ToolInfo {
    const p = byName.get(name);
    if (p === undefined) return { known: false, readOnly: false, actsOn: null, keyArg: null, keyConst: null, creates: null };
    return { known: true, readOnly: p.readOnly, actsOn: p.actsOn, keyArg: p.keyArg, keyConst: p.keyConst, creates: p.creates };
  }

  /** The candidate's value of slot operand `o` (on its acts_on entity `key`), read once per verdict. */
  function readSlot(o: OperandPlan, key: string, state: StateView, reads: ReadCollector): unknown {
    if (slotStamp[o.slotIndex] === stamp) return slotValue[o.slotIndex];
    const v = state.slot(o.slotEntity!, key, o.slotName!);
    reads.read(o.slotEntity!, key, o.slotName!, v);
    slotStamp[o.slotIndex] = stamp;
    slotValue[o.slotIndex] = v;
    return v;
  }

  /** The candidate's slots (tool plan `p`, acts_on entity `key`), all read at once in name order into
   * the verdict's slot cache (readSlot then finds them): one entity lookup, and the reads arrive in the
   * order a decision records them. */
  function readOwnSlots(p: ToolPlan, key: string, state: StateView, reads: ReadCollector): void {
    const names = p.ownSlots;
    const values = p.ownValues;
    const entity = p.actsOn!;
    // The view's own `slots` only when it is a method (a class may have a field of that name).
    if (typeof state.slots === "function") {
      for (let i = 0; i < names.length; i++) values[i] = undefined;
      state.slots(entity, key, names, values);
    } else {
      for (let i = 0; i < names.length; i++) values[i] = state.slot(entity, key, names[i]);
    }
    for (let i = 0; i < names.length; i++) {
      const v = values[i];
      values[i] = undefined;
      reads.read(entity, key, names[i], v);
      const at = p.ownSlotIndex[i];
      slotStamp[at] = stamp;
      slotValue[at] = v;
    }
  }

  /** Writes operand value k of the record for one operand of `call`, whose acts_on id is `key`. `pre` is
   * where its slots are read (docs/semantics.md, "Operands of earlier calls"): the candidate's are read
   * in the current Layer B (`pre` = null), an earlier call's in its `before` snapshot — the state as it
   * was before that call ran — and are Missing when it has none (never the state after it). */
  function writeOperandValue(view: DataView, k: number, o: OperandPlan, call: ExecutedCall, key: string | null,
    pre: PreState, state: StateView, reads: ReadCollector): void {
    let v: unknown;
    if (o.slotName !== null) {
      if (o.slotOnActsOn && key !== null) {
        if (pre === CURRENT) v = readSlot(o, key, state, reads);
        else if (pre !== NO_SNAPSHOT) {
          v = ownValue(pre, o.slotName!);
        }
      }
    } else {
      v = getPath(call.arguments, o.path!);
    }
    if (o.kind === OperandKind.SlotLookup) {
      // `lookup(entity.slot, call.key)`: the entry of the (object) slot at the argument's value; absent
      // when the slot is not an object or the key is not a string or a number (docs/semantics.md).
      const k = o.key === null ? undefined : getPath(call.arguments, o.key);
      v = isPlainObject(v) && (typeof k === "string" || typeof k === "number") ? ownValue(v as Record<string, unknown>, String(k)) : undefined;
    }
    if (o.kind === OperandKind.SlotPresent || o.kind === OperandKind.ArgPresent) {
      // Presence (`present(ref)`, required inverse arguments): a value that is neither absent nor null.
      writeOperandInt(view, k, ValueTag.Bool, v === undefined || v === null ? 0 : 1);
      return;
    }
    if (o.kind === OperandKind.SlotSize || o.kind === OperandKind.ArgSize) {
      writeSize(view, k, v);
      return;
    }
    writeTagged(view, k, v, o.type, interner, scratch);
  }

  /** verdict() (`words` false) or verdictWords() (true). */
  function answer(words: boolean, forward: readonly ExecutedCall[], state: StateView, opts: VerdictOptions = {}, reads: ReadCollector = NO_READS): Verdict & VerdictWords {
    const out = search(forward, state, opts, reads);
    const v = decode(forward, out, state) as Verdict & VerdictWords;
    if (words) v.words = outputWords(out);
    else v.bytes = outputBytes(out);
    return v;
  }

  /** Writes the input record, runs the backend once, and answers its output record. */
  function search(forward: readonly ExecutedCall[], state: StateView, opts: VerdictOptions, reads: ReadCollector): DataView {
    if (!Array.isArray(forward)) throw new VerifierError("malformed-call", "the forward sequence is not an array");
    const n = forward.length;
    if (n === 0) throw new VerifierError("malformed-call", "the forward sequence is empty", "the last call is the candidate");
    const tau = tauOf(opts.tau ?? defaults.tau);
    const now = nowOf(opts.now ?? defaults.now);
    const maxDepth = boundedInt("maxDepth", opts.maxDepth ?? defaults.maxDepth, MAX_CALLS);
    const maxNodes = boundedInt("maxNodes", opts.maxNodes ?? defaults.maxNodes, 0xffffffff);
    const flags = flagsOf(opts.tiers ?? defaults.tiers, opts.failClosed ?? defaults.failClosed);

    let mutating = 0;
    for (let i = 0; i < n; i++) {
      const call = forward[i];
      checkCall(call, i);
      const p = byName.get(call.name);
      // Each call's plan, looked up once (the writing loop below reads it back).
      if (i < MAX_CALLS) callPlans[i] = p;
      if (p === undefined || !p.readOnly) mutating++;
    }
    // Beyond the record's capacity the answer is already known: more mutating calls than any depth bound.
    if (n > MAX_CALLS) {
      if (mutating > maxDepth) return depthExceededBytes();
      throw new VerifierError("input-too-large", `the forward sequence has ${n} calls, more than ${MAX_CALLS}`, "drop read-only calls before asking");
    }

    interner.reset();
    stamp++;
    const view = backend.inputView();
    let operandCount = 0;
    for (let i = 0; i < n; i++) {
      const call = forward[i];
      const p = callPlans[i];
      if (p === undefined) {
        writeCall(view, i, -1, false, interner.fresh(), operandCount);
        continue;
      }
      const key = entityKey(p, call.arguments);
      const pre = preStateOf(call, i === n - 1);
      let grounded = true;
      if (p.actsOn !== null) {
        if (typeof pre === "object") {
          // An earlier call's snapshot holds its entity's slots before it ran: it existed then.
          grounded = key !== null && hasOwnKeys(pre);
        } else {
          grounded = key !== null && state.hasEntity(p.actsOn, key);
          if (key !== null) reads.read(p.actsOn, key, null, grounded);
        }
      }
      let targetKey: number;
      if (p.creates !== null) {
        const id = createdId(call, p.newKey);
        targetKey = id === null ? interner.fresh() : interner.id(id);
      } else {
        targetKey = key === null ? interner.fresh() : interner.id(key);
      }
      writeCall(view, i, p.index, grounded, targetKey, operandCount);
      if (operandCount + p.operands.length > MAX_OPERANDS) {
        throw new VerifierError("input-too-large", `the forward sequence needs more than ${MAX_OPERANDS} operand values`);
      }
      if (pre === CURRENT && key !== null && p.ownSlots.length > 0) readOwnSlots(p, key, state, reads);
      for (let k = 0; k < p.operands.length; k++) {
        writeOperandValue(view, operandCount + k, p.operands[k], call, key, pre, state, reads);
      }
      operandCount += p.operands.length;
    }
    writeHeader(view, { nCalls: n, tau, flags, maxNodes, now, maxDepth, nOperands: operandCount });
    // A trap propagates as the backend's own typed error (CoreError `core-trap`): the caller must
    // rebuild the backend, and the guard does.
    return backend.run();
  }

  /** The verdict's fields, in their order, but `bytes` (or `words`), which the caller adds last. The
   * output record is read field by field where it is used (record.ts readOutput's reading, without its
   * intermediate objects). */
  function decode(forward: readonly ExecutedCall[], out: DataView, state: StateView): Omit<Verdict, "bytes"> {
    const status = out.getInt32(OUT_STATUS, true);
    const rawReason = out.getInt32(OUT_REASON, true);
    if (status !== Status.Ok) {
      throw new VerifierError("internal-error", `the ${backend.kind} search answered status ${status}`, "the input record or the loaded ontology is inconsistent");
    }
    const reason = REASON_NAMES[rawReason as Reason];
    if (reason === undefined) throw new VerifierError("internal-error", `the ${backend.kind} search answered reason ${rawReason}`);
    const n = stepCount(out);
    const steps: VerdictStep[] = new Array<VerdictStep>(n);
    for (let k = 0; k < n; k++) {
      const at = OUT_STEPS + k * STEP_SIZE;
      const st = step(forward, out.getInt32(at + STEP_CALL, true), out.getInt32(at + STEP_EDGE, true), out.getInt32(at + STEP_PHI, true), out.getInt32(at + STEP_LOSS, true), state);
      const amountState = out.getInt32(at + STEP_AMOUNT_STATE, true);
      const amount = amountOf(amountState, amountState !== AmountState.None ? out.getBigInt64(at + STEP_AMOUNT, true) : 0n);
      if (amount !== undefined) st.amount = amount;
      steps[k] = st;
    }
    const bCall = out.getInt32(OUT_B_CALL, true);
    const bEdge = out.getInt32(OUT_B_EDGE, true);
    const bTool = out.getInt32(OUT_B_TOOL, true);
    const edge = bEdge >= 0 ? tables.edges[bEdge] : undefined;
    const bottleneck: Bottleneck = {
      call: bCall,
      tool: bTool >= 0 ? tables.tools[bTool].name : bCall >= 0 ? (forward[bCall]?.name ?? null) : null,
      reason,
      annotation: edge?.id ?? null,
      line: edge?.span.line ?? null,
      col: edge?.span.col ?? null,
    };
    const named = steps.find((s) => s.call === bCall && s.annotation === edge?.id);
    if (named !== undefined && named.amount !== undefined) bottleneck.amount = named.amount;
    if (reason === "bound_violated" && edge !== undefined && bCall >= 0 && bCall < forward.length) {
      const missing = missingArguments(bEdge, forward, bCall, state);
      if (missing.length > 0) bottleneck.missingArguments = missing;
    }
    const verdict: Omit<Verdict, "bytes"> = {
      reason,
      complete: out.getInt32(OUT_COMPLETE, true) === 1,
      phi: out.getInt32(OUT_PHI, true),
      loss: out.getInt32(OUT_LOSS, true),
      steps,
      bottleneck,
      nodes: out.getUint32(OUT_NODES, true),
    };
    const totalState = out.getInt32(OUT_AMOUNT_STATE, true);
    const total = amountOf(totalState, totalState !== AmountState.None ? out.getBigInt64(OUT_AMOUNT, true) : 0n);
    if (total !== undefined) verdict.amount = total;
    return verdict;
  }

  /** A decoded amount: undefined when none is declared, null when unknown, else the fixed value. */
  function amountOf(state: number, value: bigint): number | null | undefined {
    if (state === AmountState.None) return undefined;
    if (state === AmountState.Known) return Number(value);
    if (state === AmountState.Unknown) return null;
    throw new VerifierError("internal-error", `the ${backend.kind} search answered amount state ${state}`);
  }

  function step(forward: readonly ExecutedCall[], callIndex: number, edgeIndex: number, phi: number, loss: number, state: StateView): VerdictStep {
    const e: EdgeTable = tables.edges[edgeIndex];
    const call = forward[callIndex];
    const hasInverse = e.inverse >= 0;
    return {
      call: callIndex,
      forwardTool: call.name,
      tool: hasInverse ? tables.tools[e.inverse].name : null,
      arguments: hasInverse ? renderArgs(argPlans[edgeIndex], call, plans[e.forward], state, callIndex === forward.length - 1) : null,
      tier: TIER_NAMES[e.tier],
      annotation: e.id,
      line: e.span.line,
      col: e.span.col,
      phi,
      loss,
      lossClass: e.lossClass >= 0 ? tables.lossClasses[e.lossClass].name : null,
      sink: e.sink >= 0 ? tables.sinks[e.sink].name : null,
    };
  }

  /** The arguments of edge `edgeIndex`'s inverse that its condition checks for presence and that have
   * no value (absent or null) for call `callIndex`: what a user needs to know about a bound_violated
   * caused by an incomplete inverse call. Read as the search read them (operands of earlier calls). */
  function missingArguments(edgeIndex: number, forward: readonly ExecutedCall[], callIndex: number, state: StateView): string[] {
    const plan = argPlans[edgeIndex];
    if (plan === null) return [];
    const e = tables.edges[edgeIndex];
    const p = plans[e.forward];
    const call = forward[callIndex];
    const candidate = callIndex === forward.length - 1;
    const out: string[] = [];
    for (const a of plan) {
      let v: unknown;
      if (a.source === ArgSource.CallArg && p.presentArgs.has(a.pathText)) {
        v = getPath(call.arguments, a.path);
      } else if (a.source === ArgSource.PreSlot && p.presentSlots.has(a.slot)) {
        const key = entityKey(p, call.arguments);
        // As renderArgs: a slot the search read comes from the verdict's slot cache.
        if (candidate) v = p.actsOn !== null && key !== null ? (a.slotIndex >= 0 && slotStamp[a.slotIndex] === stamp ? slotValue[a.slotIndex] : state.slot(p.actsOn, key, a.slot)) : undefined;
        else if (isPlainObject(call.before)) v = ownValue(call.before, a.slot);
      } else {
        continue;
      }
      if (v === undefined || v === null) out.push(a.param);
    }
    return out;
  }

  /** The inverse call's concrete arguments (docs/ontology-language.md, "Argument sources"). */
  function renderArgs(argPlan: ArgPlan[] | null, call: ExecutedCall, p: ToolPlan, state: StateView, candidate: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (argPlan === null) return out;
    const ran = call.result !== undefined;
    for (const a of argPlan) {
      let v: unknown;
      switch (a.source) {
        case ArgSource.CallArg:
          v = getPath(call.arguments, a.path);
          break;
        case ArgSource.PreSlot: {
          // The candidate has not run: the current state is its pre-call state. An earlier call's is its
          // snapshot; without one the value is unknown, so the argument is absent.
          if (candidate) {
            const key = entityKey(p, call.arguments);
            // A slot the search read is answered from the verdict's slot cache (read once per verdict).
            if (p.actsOn !== null && key !== null) v = a.slotIndex >= 0 && slotStamp[a.slotIndex] === stamp ? slotValue[a.slotIndex] : state.slot(p.actsOn, key, a.slot);
          } else if (isPlainObject(call.before)) {
            v = ownValue(call.before, a.slot);
          }
          break;
        }
        case ArgSource.Literal:
          v = structuredClone(a.literal);
          break;
        case ArgSource.NewId:
          v = ran ? (createdId(call, p.newKey) ?? undefined) : { $pending: "new.id" };
          break;
        case ArgSource.Result:
          v = ran ? getPath(call.result, a.path) : { $pending: `result.${a.path.join(".")}` };
          break;
      }
      if (v === undefined) continue;
      // Plain assignment is much faster; names Object.prototype has (`__proto__`, …) are defined so
      // they stay plain data keys.
      if (a.param in Object.prototype) Object.defineProperty(out, a.param, { value: v, enumerable: true, writable: true, configurable: true });
      else out[a.param] = v;
    }
    return out;
  }

  const verifier: Verifier = { tables, backend, verdict: answer.bind(null, false), tool };
  // Not enumerable: a copy that wraps `verdict` ({ ...verifier, verdict }) does not carry it, so its
  // callers take the wrapped verdict().
  Object.defineProperty(verifier, "verdictWords", { value: answer.bind(null, true) });
  return verifier;
}

/** A short description of a JSON value for an error message. */
function describeJson(v: unknown): string {
  if (v === null) return "`null`";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string \`${v.length > 40 ? `${v.slice(0, 37)}...` : v}\``;
  if (typeof v === "object") return "an object";
  return `${typeof v} \`${String(v)}\``;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Operand value k: toTagged(v, type) written as writeOperand writes it, without a BigInt for strings
 * (interned ids), integer numbers (counts, whole amounts: |v| × 10^6 < 2^53), booleans, null and
 * absent values, and the values no scalar type takes (lists, objects); the rest via toTagged. */
export function writeTagged(view: DataView, k: number, v: unknown, type: OperandTable["type"], interner: Interner, scratch: TaggedValue): void {
  if (type === SlotType.String && typeof v === "string") writeOperandInt(view, k, ValueTag.String, interner.id(v));
  else if (type === SlotType.Number && Number.isInteger(v) && Math.abs(v as number) <= MAX_FAST_INT) writeOperandInt(view, k, ValueTag.Number, (v as number) * FIXED_ONE);
  else if (v === undefined) writeOperandInt(view, k, ValueTag.Missing, 0);
  else if (v === null) writeOperandInt(view, k, ValueTag.Null, 0);
  else if (type === SlotType.Bool) writeOperandInt(view, k, typeof v === "boolean" ? ValueTag.Bool : ValueTag.Missing, v === true ? 1 : 0);
  else {
    const t = toTagged(v, type, interner, scratch);
    writeOperand(view, k, t.tag, t.value);
  }
}

/** Operand value k for `size(ref)`: toSize(v) written as writeOperand writes it, without a BigInt (a
 * list's length or an object's key count, times 10^6, is below 2^53). */
export function writeSize(view: DataView, k: number, v: unknown): void {
  if (Array.isArray(v)) writeOperandInt(view, k, ValueTag.Number, v.length * FIXED_ONE);
  else if (isPlainObject(v)) writeOperandInt(view, k, ValueTag.Number, Object.keys(v).length * FIXED_ONE);
  else writeOperandInt(view, k, ValueTag.Missing, 0);
}

/** Layer B from plain JSON: `{ "now"?: "...", "entities": { "<entity>": { "<id>": { "<slot>": value } } } }`.
 * Anything else is refused with a `bad-state` VerifierError naming what was expected where: a raw
 * domain database, `{}`, `[]` or `null` is not an empty state. */
export class JsonState implements StateView {
  readonly now: string | number | undefined;
  private readonly entities: Record<string, unknown>;

  constructor(json: unknown) {
    const fail = (message: string, help?: string): never => {
      throw new VerifierError("bad-state", message, help ?? "a state is `{ \"now\"?: time, \"entities\": { entity: { id: { slot: value } } } }`");
    };
    if (!isPlainObject(json)) fail(`the state is ${describeJson(json)}, expected an object with \`entities\``);
    const root = json as Record<string, unknown>;
    const extra = Object.keys(root).filter((k) => k !== "now" && k !== "entities");
    if (extra.length > 0) {
      fail(`unexpected key \`${extra[0]}\` in the state, expected only \`now\` and \`entities\``, "a domain database is projected into a state first (projection rules, `projectDocument`)");
    }
    if (!Object.prototype.hasOwnProperty.call(root, "entities")) fail("the state has no `entities`, expected `entities: { entity: { id: { slot: value } } }`");
    if (!isPlainObject(root.entities)) fail(`\`entities\` is ${describeJson(root.entities)}, expected an object of entity types`);
    for (const [entity, ids] of Object.entries(root.entities as Record<string, unknown>)) {
      if (!isPlainObject(ids)) fail(`\`entities.${entity}\` is ${describeJson(ids)}, expected an object of ids`);
      for (const [id, slots] of Object.entries(ids as Record<string, unknown>)) {
        if (!isPlainObject(slots)) fail(`\`entities.${entity}.${id}\` is ${describeJson(slots)}, expected an object of slots`);
      }
    }
    if (root.now !== undefined) {
      const now = root.now;
      if ((typeof now !== "string" && typeof now !== "number") || timeToFixed(now) === null) {
        fail(`\`now\` is ${describeJson(now)}, expected an ISO-8601 time or epoch milliseconds`);
      }
      this.now = now as string | number;
    } else {
      this.now = undefined;
    }
    this.entities = root.entities as Record<string, unknown>;
  }

  hasEntity(entity: string, id: string): boolean {
    return isPlainObject(getPath(this.entities, [entity, id]));
  }

  slot(entity: string, id: string, slot: string): unknown {
    return getPath(this.entities, [entity, id, slot]);
  }
}

