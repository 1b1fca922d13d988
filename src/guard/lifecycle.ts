// A call's life in the guard, in one place, keyed by an execution id (docs/guard.md, "Executions"):
//
//   check ──approve──▶ pending ──observe──▶ observed ──(a later barrier or checkpoint)──▶ committed
//                        │   └──release──▶ released (did not run)
//                        └──(barrier or checkpoint while pending)──▶ pending, committed
//
// A pending execution is part of every later check's forward sequence (both scopes) until it is
// observed, released or committed. An observed execution that the search did not admit (consent,
// advisory passthrough) is a barrier: every execution checked before it is committed, so the
// sequence up to it leaves the forward sequence. Barriers are executions, never call texts: an
// admitted re-run of the same call is another execution and commits nothing.
import type { ExecutedCall, ToolCall } from "../core/types.js";
import { freezeOwn } from "./call.js";
import { MAX_HISTORY, MAX_TRACKED, type LifecycleState, type SnapshotExecution, type SnapshotObserved } from "./types.js";

export type ExecutionState = "pending" | "observed" | "released";

/** A `before` snapshot, or a function that makes it from what was kept at the check (called once). */
export type Before = Record<string, unknown> | (() => Record<string, unknown> | undefined) | undefined;

/** One approved call. Its key and its frozen forward entry are made when first needed: most checks
 * are released or observed by id before anything asks (a check's cost does not include them). */
export class Execution {
  state: ExecutionState = "pending";
  /** A barrier or checkpoint came while it was pending: when it is observed it updates Layer B but
   * does not join the forward sequence. */
  committed = false;
  private keyText: string | null = null;
  private frozen: ExecutedCall | null = null;
  private snap: Before;

  constructor(
    /** `x<seq>`: the id of the check that approved it (deterministic, so a journal replays to it). */
    readonly id: string,
    readonly seq: number,
    readonly call: ToolCall,
    before: Before,
    /** The search admitted it (an observed inadmissible execution is a barrier). */
    readonly admitted: boolean,
    private readonly keyOf: (call: ToolCall) => string,
  ) {
    this.snap = before;
  }

  /** The acts_on entity's slots when it was checked (the guard's frozen copies of them); made when
   * first asked from a record Layer B keeps unchanged for it (most executions are released, or
   * observed by id, before anything asks). */
  get before(): Record<string, unknown> | undefined {
    if (typeof this.snap === "function") this.snap = this.snap();
    return this.snap;
  }

  /** `before` for the entry of its observe: the value when it is made already, else a function that
   * makes it when first read (./lazy.ts). */
  lazyBefore(): Record<string, unknown> | (() => Record<string, unknown>) | undefined {
    // Once the entry is made, `snap` holds its value (the entry read `before`).
    if (typeof this.snap !== "function") return this.entry.before;
    return () => this.entry.before!;
  }

  /** Canonical JSON of `{ name, arguments }`: how an observe without an id finds it. */
  get key(): string {
    return (this.keyText ??= this.keyOf(this.call));
  }

  /** The forward entry: name, arguments, `before` (a fresh object of Layer B values) frozen. */
  get entry(): ExecutedCall {
    if (this.frozen === null) {
      const e: ExecutedCall = { name: this.call.name, arguments: this.call.arguments };
      if (this.before !== undefined) e.before = freezeOwn(this.before);
      this.frozen = Object.freeze(e);
    }
    return this.frozen;
  }
}

/** What the turn-scope barrier search needs to know of an observed execution. */
interface Observed {
  readonly key: string;
  /** The call itself (its key is the canonical text of it), for a snapshot. */
  readonly call: ToolCall;
  readonly admitted: boolean;
  /** Its entity as it was before it ran (turn scope judges an earlier call on it). */
  readonly before: Record<string, unknown> | undefined;
}

/** An observed execution remembered by its entry, whose `before` is read only when asked (an entry's
 * `before` may be made when first read: src/guard/lazy.ts). */
class ObservedEntry implements Observed {
  readonly call: ToolCall;
  constructor(
    readonly key: string,
    readonly admitted: boolean,
    private readonly entry: ExecutedCall,
  ) {
    this.call = { name: entry.name, arguments: entry.arguments };
  }

  get before(): Record<string, unknown> | undefined {
    return this.entry.before;
  }
}

export class Lifecycle {
  /** The session's observed, uncommitted calls (frozen entries), at most `maxDepth` of them: with more,
   * every verdict is `depth_exceeded` whatever the older ones were, so they need not be kept. */
  private observed: ExecutedCall[] = [];
  /** The seq of the check behind each observed entry (0: observed without a check), for barriers. */
  private observedSeq: number[] = [];
  /** Pending executions in check order (committed ones excluded: they are in `tracked` only). */
  private pendingList: Execution[] = [];
  /** Every execution an observe or release may still name, by seq (a number hashes for free; the id
   * is `x<seq>`). */
  private readonly tracked = new Map<number, Execution>();
  /** Observed executions in order (turn scope's barrier search), the most recent last. */
  private history: Observed[] = [];

  constructor(
    private readonly scope: "turn" | "session",
    private readonly maxDepth: number,
    private readonly keyOf: (call: ToolCall) => string,
  ) {}

  /** checked → approved and pending. `id` is `x<seq>` (the decision's own string, when it has one). */
  approve(seq: number, call: ToolCall, before: Before, admitted: boolean, id = `x${seq}`): Execution {
    const x = new Execution(id, seq, call, before, admitted, this.keyOf);
    this.pendingList.push(x);
    this.tracked.set(seq, x);
    if (this.tracked.size > MAX_TRACKED) this.forgetOldest();
    return x;
  }

  /** A check whose record could not be written (the sink threw): it never happened. */
  undo(x: Execution): void {
    this.drop(x);
    this.tracked.delete(x.seq);
  }

  get(id: string): Execution | undefined {
    // By the number after its first character; the id comparison refuses every other spelling.
    const x = this.tracked.get(Number(id.slice(1)));
    return x !== undefined && x.id === id ? x : undefined;
  }

  /** The oldest pending execution of this call text (an observe that does not name one). */
  match(key: string): Execution | undefined {
    for (const x of this.pendingList) if (x.key === key) return x;
    // Every tracked execution is pending: observe, release and undo forget them.
    for (const x of this.tracked.values()) if (x.key === key) return x;
    return undefined;
  }

  /** pending → released: it did not run (or failed and changed nothing). */
  release(x: Execution): void {
    if (x.state !== "pending") return;
    x.state = "released";
    this.drop(x);
    this.tracked.delete(x.seq);
  }

  /** pending → observed (or a call observed without a check, `x` undefined): session scope appends
   * it to the forward sequence, unless it is a barrier, which commits everything checked before it. */
  observe(x: Execution | undefined, key: string, entry: ExecutedCall, mutating: boolean): void {
    if (x !== undefined) {
      x.state = "observed";
      this.drop(x);
      this.tracked.delete(x.seq);
    }
    const admitted = x === undefined || x.admitted;
    this.history.push(new ObservedEntry(key, admitted, entry));
    if (this.history.length > MAX_HISTORY) this.history = this.history.slice(-MAX_HISTORY);
    if (!admitted) {
      this.commitBefore(x!.seq);
      return;
    }
    if (this.scope === "session" && mutating && !(x?.committed ?? false)) {
      this.observed.push(entry);
      this.observedSeq.push(x?.seq ?? 0);
      if (this.observed.length > this.maxDepth) {
        // From the front, not `slice(-maxDepth)`: with maxDepth 0 that kept the whole list, which grew
        // without bound over a session.
        const cut = this.observed.length - this.maxDepth;
        this.observed = this.observed.slice(cut);
        this.observedSeq = this.observedSeq.slice(cut);
      }
    }
  }

  /** Everything so far is committed; pending executions stay observable (Layer B) but leave the
   * forward sequence. */
  checkpoint(): void {
    this.observed = [];
    this.observedSeq = [];
    this.history = [];
    for (const x of this.pendingList) x.committed = true;
    this.pendingList = [];
  }

  /** Everything a later decision depends on, by reference (snapshot copies it). Every tracked
   * execution is pending (observe and release forget them); the uncommitted ones are `pendingList`,
   * in the same (check) order. */
  exportState(): LifecycleState {
    const executions: SnapshotExecution[] = [];
    for (const x of this.tracked.values()) {
      const e: SnapshotExecution = { seq: x.seq, call: x.call, admitted: x.admitted, committed: x.committed };
      if (x.before !== undefined) e.before = x.before;
      executions.push(e);
    }
    const sequence = this.observed.map((call, i) => ({ seq: this.observedSeq[i], call }));
    const history = this.history.map((h) => {
      const o: SnapshotObserved = { call: h.call, admitted: h.admitted };
      if (h.before !== undefined) o.before = h.before;
      return o;
    });
    return { executions, sequence, history };
  }

  /** A fresh lifecycle takes over an exported state (checked and copied: readSnapshot). */
  restoreState(s: LifecycleState): void {
    for (const e of s.executions) {
      const x = new Execution(`x${e.seq}`, e.seq, e.call, e.before, e.admitted, this.keyOf);
      x.committed = e.committed;
      this.tracked.set(e.seq, x);
      if (!x.committed) this.pendingList.push(x);
    }
    this.observed = s.sequence.map((o) => o.call);
    this.observedSeq = s.sequence.map((o) => o.seq);
    this.history = s.history.map((h) => ({ key: this.keyOf(h.call), call: h.call, admitted: h.admitted, before: h.before }));
  }

  /** The `before` snapshot of the most recent observed execution of this call text, if remembered. */
  observedBefore(key: string): Record<string, unknown> | undefined {
    for (let i = this.history.length - 1; i >= 0; i--) if (this.history[i].key === key) return this.history[i].before;
    return undefined;
  }

  /** The session's observed calls since the last barrier or checkpoint (at most maxDepth). */
  sequence(): readonly ExecutedCall[] {
    return this.observed;
  }

  pending(): readonly Execution[] {
    return this.pendingList;
  }

  /** Session scope's forward sequence: observed calls, then pending ones in check order; only the last
   * maxDepth (all mutating: more would be `depth_exceeded` either way). */
  sessionForward(): unknown[] {
    // Nothing observed or pending (most checks of an agent that releases): one shared frozen array.
    if (this.observed.length === 0 && this.pendingList.length === 0) return NO_CALLS;
    const out: unknown[] = this.observed.slice();
    for (const x of this.pendingList) out.push(pendingEntry(x));
    return out.length > this.maxDepth ? out.slice(out.length - this.maxDepth) : out;
  }

  /**
   * Turn scope's forward sequence from the caller's `turnCalls` (JSON-safe copies with their keys):
   * entries that are pending executions are taken from the pending list instead (each at most once);
   * of the rest, the calls up to and including the last one that ran unadmitted are dropped (matched
   * against the observed executions from the most recent back, so a later admitted re-run of the same
   * call is that re-run); then the pending executions; then only the suffix with at most maxDepth
   * mutating calls.
   */
  turnForward(calls: readonly { copy: unknown; key: string | null }[], isMutating: (copy: unknown) => boolean): unknown[] {
    const claimed = new Set<Execution>();
    const rest: { copy: unknown; key: string | null }[] = [];
    for (const c of calls) {
      // A call that is not one (key null) matches no execution: every execution's key is a string.
      const x = this.pendingList.find((p) => p.key === c.key && !claimed.has(p));
      if (x !== undefined) claimed.add(x);
      else rest.push(c);
    }
    let start = 0;
    let h = this.history.length - 1;
    for (let i = rest.length - 1; i >= 0 && h >= 0; i--, h--) {
      const o = this.history[h];
      if (rest[i].key !== o.key) break;
      if (!o.admitted) {
        start = i + 1;
        break;
      }
    }
    const out: unknown[] = [];
    for (let i = start; i < rest.length; i++) out.push(rest[i].copy);
    for (const x of this.pendingList) out.push(pendingEntry(x));
    return boundedSuffix(out, this.maxDepth, isMutating);
  }

  private commitBefore(seq: number): void {
    // Observed calls checked after the barrier (parallel calls that finished first) stay.
    const observed: ExecutedCall[] = [];
    const seqs: number[] = [];
    for (let i = 0; i < this.observed.length; i++) {
      if (this.observedSeq[i] > seq) {
        observed.push(this.observed[i]);
        seqs.push(this.observedSeq[i]);
      }
    }
    this.observed = observed;
    this.observedSeq = seqs;
    const keep: Execution[] = [];
    for (const x of this.pendingList) {
      if (x.seq < seq) x.committed = true;
      else keep.push(x);
    }
    this.pendingList = keep;
  }

  private drop(x: Execution): void {
    const list = this.pendingList;
    // Searched from the end: most often it is the execution just checked (a call released or observed
    // before the next check). Each execution is in the list at most once.
    const i = list.lastIndexOf(x);
    if (i === list.length - 1) list.pop();
    else if (i >= 0) list.splice(i, 1);
  }

  /** The oldest tracked execution (only reachable when a policy lets hundreds of calls through that
   * are never observed: advisory logging). It is the oldest committed one when there is one:
   * commitments always cover the oldest executions (a checkpoint commits every pending one, a barrier
   * every one checked before it) and `tracked` is in check order. */
  private forgetOldest(): void {
    const victim = this.tracked.values().next().value as Execution;
    this.tracked.delete(victim.seq);
    this.drop(victim);
  }
}

/** The empty forward sequence (frozen, shared). */
const NO_CALLS: unknown[] = Object.freeze([]) as unknown as unknown[];

const PENDING = new WeakMap<Execution, ExecutedCall>();

/** A pending execution's forward entry: its call and `before`, marked `pending` (it has no result). */
function pendingEntry(x: Execution): ExecutedCall {
  let e = PENDING.get(x);
  if (e === undefined) {
    e = Object.freeze({ ...x.entry, pending: true }) as ExecutedCall;
    PENDING.set(x, e);
  }
  return e;
}

/** The shortest suffix holding `maxDepth` mutating calls (all of `calls` when it holds fewer). */
export function boundedSuffix(calls: unknown[], maxDepth: number, isMutating: (copy: unknown) => boolean): unknown[] {
  let mutating = 0;
  for (let i = calls.length - 1; i >= 0; i--) {
    if (isMutating(calls[i]) && ++mutating >= maxDepth) return i === 0 ? calls : calls.slice(i);
  }
  return calls;
}
