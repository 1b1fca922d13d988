// The data that crosses between the host layers: a tool call, a view of Layer B, the options of one
// verdict and the decoded verdict. The search itself sees none of these: src/core/record.ts turns them
// into the ABI's input record and reads the output record back (docs/abi.md).

/** A tool call as an agent proposes it (τ²-bench's `name` + `arguments`). */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A mutating call that already ran (session scope): what the search needs to know about it. */
export interface ExecutedCall extends ToolCall {
  /** The tool's result, used for created ids (`new_key`) and `result.x` inverse arguments. */
  result?: unknown;
  /** Slot values of the call's acts_on entity as they were before it ran (for `entity.slot` args). */
  before?: Record<string, unknown>;
}

/** Read access to Layer B: typed slot assertions `slot(entity_type, entity_id) = value`. */
export interface StateView {
  hasEntity(entity: string, id: string): boolean;
  /** The slot's value, or undefined when it is not asserted. */
  slot(entity: string, id: string, slot: string): unknown;
  /** Optional: several slots of one entity at once, `out[i]` = what `slot(entity, id, names[i])` answers
   * (one lookup of the entity instead of one per slot; Layer B has it). A view without it is read slot
   * by slot. The verifier reads a candidate's slots through it, in name order. */
  slots?(entity: string, id: string, names: readonly string[], out: unknown[]): void;
}

export type TierName = "T1" | "T2" | "T3" | "T4" | "T5";

export interface VerdictOptions {
  /** Threshold τ in [0, 1]; default 0.80. */
  tau?: number;
  /** Session time (ISO string, Date or epoch milliseconds); τ²-bench fixes it at 2024-05-15T15:00:00. */
  now?: string | number | Date;
  /** Enabled positive tiers; default all of T1, T2, T3. T4/T5 are governed by failClosed. */
  tiers?: TierName[];
  /** Fail-closed T4/T5 edges (φ = 0); false sets their φ to 1 (ablation). Default true. */
  failClosed?: boolean;
  /** Most mutating calls searched; default 64, at most MAX_CALLS. */
  maxDepth?: number;
  /** Search budget in candidate visits; default 100 000. */
  maxNodes?: number;
}

export type ReasonName =
  | "ok"
  | "no_candidate"
  | "external_side_effect"
  | "irreversibly_consumes"
  | "bound_violated"
  | "unknown_tool"
  | "overlap_conflict"
  | "depth_exceeded"
  | "below_threshold";

export interface VerdictStep {
  /** Index in the forward sequence of the call this step undoes. */
  call: number;
  forwardTool: string;
  /** The inverse tool to run, null for a fail-closed (T4/T5) step. */
  tool: string | null;
  /** Concrete inverse arguments; values not known before the call ran are `{ "$pending": "new.id" }`. */
  arguments: Record<string, unknown> | null;
  tier: TierName;
  annotation: string;
  line: number;
  col: number;
  phi: number; // fixed-point integer (FIXED_ONE = 1.0)
  loss: number; // fixed-point integer
  lossClass: string | null;
  sink: string | null;
  /** The money this step leaves different, fixed point (docs/semantics.md, "Amounts"): present only
   * when its annotation declares `amount = ...`; null when that expression had no value for this call. */
  amount?: number | null;
}

export interface Bottleneck {
  call: number; // -1 when no single call is to blame
  tool: string | null;
  reason: ReasonName;
  annotation: string | null;
  line: number | null;
  col: number | null;
  /** With `bound_violated`: the inverse arguments of the bottleneck edge that its condition requires
   * (`present(...)`, required parameters) and that have no value for this call. Absent when none. */
  missingArguments?: string[];
  /** The bottleneck step's declared amount (fixed point; null when it had no value), when it has one. */
  amount?: number | null;
}

export interface Verdict {
  reason: ReasonName;
  complete: boolean;
  phi: number; // fixed
  loss: number; // fixed
  /** π = ⟨u_n … u_1⟩: the inverse steps, most recent call first. */
  steps: VerdictStep[];
  /** Sum of the steps' amounts (fixed point), present when some step declares one; null when a step's
   * amount had no value (the total is then unknown). */
  amount?: number | null;
  bottleneck: Bottleneck;
  nodes: number;
  /** The canonical output record bytes (docs/abi.md): equal across runtimes for equal inputs. */
  bytes: Uint8Array;
}
