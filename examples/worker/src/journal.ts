// A session's journal: the in-memory guard is a cache of it. A request's operations run on the guard,
// then the operations, the decision records they logged, the log's new head, the guard's snapshot and
// the Layer B entities the request changed are committed in one storage transaction; if an operation
// throws or the commit fails, the guard is dropped and the next request rebuilds it from storage. So a
// request is atomic — all of it applied and stored, or none — and log keys follow the chain index, so
// no record ever replaces another. Storage is behind a small interface, so the same code runs in the
// Durable Object and in a Node test.
//
// A woken object does not replay the journal (that cost ~60 µs per operation warm, far more cold, and
// grew with the session): it resumes the guard from the stored snapshot (`guard.snapshot()`, in
// `snapshot`) on Layer B rebuilt from the last stored base (`base`, or the creation state) and the
// deltas since (`delta:<first op>`: the entities each request changed, as they are after it; every
// REBASE_EVERY deltas the whole Layer B is stored as the new base instead). The journal stays the
// record of what ran, for the audit (and is what a session stored before heads were kept replays).
//
// The journal owns the log's hash chain: the chain goes on from the stored head (`head`: the last
// record's index and hash, and the number of journaled operations). A head, snapshot, base or delta
// that is missing, malformed or disagrees with the others is refused with a JournalError: the session
// answers an error, never a verdict built on storage it cannot account for.
import { GuardError, ProjectionError, createChain, recordHash, type ChainHead, type Decision, type Guard, type ToolCall } from "polar-guard";
import { TrackedLayerB, type DeltaEntry } from "./layer.js";

export type Op =
  | { op: "check"; call: ToolCall; context: Record<string, unknown> | undefined }
  | { op: "observe"; call: ToolCall; result: unknown; failed: boolean }
  | { op: "checkpoint" };

/** A decision as the log holds it: with its chain link (src/audit/chain.ts). */
export type LoggedDecision = Decision & { chain: { index: number; prev: string } };

/** What `head` holds: the log's chain head and how many operations the journal has. */
export interface StoredHead extends ChainHead {
  ops: number;
}

/** What `snapshot` holds: the guard's snapshot after `ops` operations, and where its Layer B is: the
 * base stored after `base` operations (0: the session's creation state) and `deltas` deltas since. */
export interface StoredSnapshot {
  ops: number;
  base: number;
  deltas: number;
  guard: unknown;
}

/** What `base` holds: the whole Layer B (JSON) after `ops` operations. */
export interface StoredBase {
  ops: number;
  state: unknown;
}

/** What `delta:<first op>` holds: the entities a request changed, as they were after its `ops`. */
export interface StoredDelta {
  ops: number;
  entities: DeltaEntry[];
}

/** What a builder needs to resume a stored session instead of starting it. */
export interface Resume {
  /** The guard's snapshot at the head: createGuard's (loadGuard's) `resume`. */
  snapshot: unknown;
  /** The session's Layer B at the head, from the stored base (or, without one, `initial()`: the
   * creation state) and the deltas since. */
  state(initial: () => TrackedLayerB): TrackedLayerB;
}

export interface JournalStore {
  /** One value (undefined when absent). */
  get(key: string): Promise<unknown>;
  /** Every value under a key prefix (from `start` on, when given), in key order. */
  list(prefix: string, start?: string): Promise<Map<string, unknown>>;
  /** Writes every pair or none. */
  commit(entries: Record<string, unknown>): Promise<void>;
}

/** Builds a guard whose log sink is `log` (one record per check; the journal chains them), on a
 * TrackedLayerB: a new session's (from its creation request), or with `resume`, the stored one's. */
export type GuardBuilder = (log: (d: Decision) => void, resume?: Resume) => Promise<Guard>;

/** A synchronous SHA-256 for the chain (a native one where the runtime has it); default JavaScript's. */
export type ChainHash = (data: Uint8Array | string) => Uint8Array;

/** The commit failed: nothing of the request was stored (or applied). */
export class CommitError extends Error {
  override readonly name = "CommitError";
}

/** The stored journal cannot be accounted for (its head is missing, malformed or disagrees with it). */
export class JournalError extends Error {
  override readonly name = "JournalError";
  readonly code = "journal-corrupt";
}

export const pad = (n: number): string => String(n).padStart(10, "0");

export const HEAD_KEY = "head";
export const SNAPSHOT_KEY = "snapshot";
export const BASE_KEY = "base";
export const DELTA_PREFIX = "delta:";
/** Deltas kept before the whole Layer B is stored again as the base: a woken object applies at most
 * this many, and a session writes its full Layer B once per this many requests that change it. */
export const REBASE_EVERY = 64;

function apply(guard: Guard, op: Op): unknown {
  if (op.op === "check") return { decision: guard.check(op.call, op.context as never) };
  if (op.op === "observe") return { report: guard.observe(op.call, op.result, { failed: op.failed }) };
  guard.checkpoint();
  return { ok: true };
}

/** A stored head read back: exactly `{ index, hash, ops }` with the right types, or a JournalError. */
export function parseHead(value: unknown): StoredHead {
  const v = value as Partial<StoredHead> | null;
  const keys = typeof v === "object" && v !== null && !Array.isArray(v) ? Object.keys(v).sort().join(",") : "";
  if (
    keys !== "hash,index,ops" ||
    !Number.isSafeInteger(v!.index) || v!.index! < 0 ||
    !Number.isSafeInteger(v!.ops) || v!.ops! < 0 ||
    typeof v!.hash !== "string" || !/^[0-9a-f]{64}$/u.test(v!.hash)
  ) {
    throw new JournalError("the stored log head is malformed: `{ index, hash, ops }` expected");
  }
  return { index: v!.index!, hash: v!.hash, ops: v!.ops! };
}

const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function exactKeys(v: unknown, keys: string): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).sort().join(",") === keys;
}

/** A stored snapshot record read back against the head, or a JournalError. */
export function parseSnapshot(value: unknown, head: StoredHead): StoredSnapshot {
  if (value === undefined) throw new JournalError("the stored log head has no guard snapshot beside it");
  if (!exactKeys(value, "base,deltas,guard,ops") || !count(value.ops) || !count(value.base) || !count(value.deltas) || value.base > value.ops || value.deltas > REBASE_EVERY) {
    throw new JournalError("the stored guard snapshot is malformed: `{ ops, base, deltas, guard }` expected");
  }
  if (value.ops !== head.ops) throw new JournalError(`the stored guard snapshot is after ${value.ops} operations, the log head after ${head.ops}`);
  const seq = (value.guard as { seq?: unknown } | null)?.seq;
  if (seq !== head.index) throw new JournalError(`the stored guard snapshot is at decision ${String(seq)}, the log head at ${head.index}`);
  return { ops: value.ops, base: value.base, deltas: value.deltas, guard: value.guard };
}

export class SessionJournal {
  private guard: Guard | null = null;
  private loading: Promise<Guard> | null = null;
  private journal = 0;
  /** Where the guard's Layer B is stored: the base's operation count and the deltas since. */
  private base = 0;
  private deltas = 0;
  private chain: ReturnType<typeof createChain> | null = null;
  private pending: LoggedDecision[] = [];
  /** While a replay runs: decisions are counted (they are in the stored log already). */
  private replayed: number | null = null;

  constructor(
    private readonly store: JournalStore,
    private readonly build: GuardBuilder,
    private readonly options: { sha256?: ChainHash } = {},
  ) {}

  private sink = (d: Decision): void => {
    if (this.replayed !== null) {
      this.replayed++;
      return;
    }
    // No chain (a guard kept past a forget()) means nowhere safe to write: refuse the decision.
    if (this.chain === null) throw new JournalError("the session's log chain is not loaded");
    this.pending.push(this.chain.link(d).record as LoggedDecision);
  };

  /** A new session's guard (nothing journaled yet). */
  async start(): Promise<Guard> {
    this.forget();
    const guard = await this.build(this.sink);
    tracked(guard).clearDelta(); // the creation state is the session's own (meta), not a delta
    this.chain = createChain({ sha256: this.options.sha256 });
    this.guard = guard;
    this.journal = 0;
    this.base = 0;
    this.deltas = 0;
    return guard;
  }

  /** The session's guard; after an eviction or a failed request, rebuilt once even if requests
   * arrive together. */
  ready(): Promise<Guard> {
    if (this.guard !== null) return Promise.resolve(this.guard);
    this.loading ??= this.restore().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** Drops the in-memory guard: the next request rebuilds it from storage. */
  forget(): void {
    this.guard = null;
    this.loading = null;
    this.chain = null;
    this.pending = [];
    this.replayed = null;
  }

  /** The stored head, or for a journal written before heads were stored, the head of its log. */
  private async storedHead(value: unknown, ops: number): Promise<StoredHead> {
    if (value !== undefined) return parseHead(value);
    const log = await this.store.list("log:");
    if (log.size === 0) return { index: 0, hash: "0".repeat(64), ops };
    const last = [...log.values()][log.size - 1];
    return { index: log.size, hash: recordHash(last, this.options.sha256), ops };
  }

  private async restore(): Promise<Guard> {
    const [head, snapshot] = await Promise.all([this.store.get(HEAD_KEY), this.store.get(SNAPSHOT_KEY)]);
    if (head === undefined && snapshot === undefined) return this.replay();
    if (head === undefined) throw new JournalError("a guard snapshot is stored without a log head");
    return this.resume(parseHead(head), snapshot);
  }

  /** The guard from the stored snapshot, on Layer B from the stored base and deltas. */
  private async resume(head: StoredHead, value: unknown): Promise<Guard> {
    const snap = parseSnapshot(value, head);
    const [baseValue, deltaValues] = await Promise.all([
      snap.base > 0 ? this.store.get(BASE_KEY) : Promise.resolve(undefined),
      this.store.list(DELTA_PREFIX, `${DELTA_PREFIX}${pad(snap.base)}`),
    ]);
    let base: StoredBase | undefined;
    if (snap.base > 0) {
      if (!exactKeys(baseValue, "ops,state") || baseValue.ops !== snap.base) throw new JournalError(`the stored Layer B base is missing or malformed: \`{ ops: ${snap.base}, state }\` expected`);
      base = baseValue as unknown as StoredBase;
    }
    const deltas: StoredDelta[] = [];
    let after = snap.base;
    for (const [key, d] of deltaValues) {
      const from = Number(key.slice(DELTA_PREFIX.length));
      if (!Number.isSafeInteger(from) || from < snap.base) continue; // an older base's deltas
      if (!exactKeys(d, "entities,ops") || from < after || !count(d.ops) || d.ops <= from || d.ops > snap.ops || !Array.isArray(d.entities)) {
        throw new JournalError(`the stored Layer B delta \`${key}\` is malformed or out of order`);
      }
      after = d.ops;
      deltas.push(d as unknown as StoredDelta);
    }
    if (deltas.length !== snap.deltas) throw new JournalError(`the guard snapshot counts ${snap.deltas} Layer B deltas since its base, storage holds ${deltas.length}`);
    const resume: Resume = {
      snapshot: snap.guard,
      state: (initial) => {
        try {
          const state = base !== undefined ? TrackedLayerB.from(base.state) : initial();
          deltas.forEach((d, i) => state.applyDelta(d.entities, `Layer B delta ${i}`));
          return state;
        } catch (err) {
          if (err instanceof JournalError) throw err;
          throw new JournalError(`the stored Layer B cannot be rebuilt: ${err instanceof Error ? err.message : String(err)}`);
        }
      },
    };
    let guard: Guard;
    try {
      guard = await this.build(this.sink, resume);
    } catch (err) {
      if (err instanceof GuardError && err.code === "bad-snapshot") throw new JournalError(`the stored guard snapshot is refused: ${err.message}`);
      if (err instanceof ProjectionError) throw new JournalError(`the stored Layer B is refused: ${err.message}`);
      throw err;
    }
    tracked(guard).clearDelta(); // Layer B as stored: nothing of it is a change of the next request
    this.chain = createChain({ sha256: this.options.sha256, from: { index: head.index, hash: head.hash } });
    this.pending = [];
    this.journal = head.ops;
    this.base = snap.base;
    this.deltas = snap.deltas;
    this.guard = guard;
    return guard;
  }

  /** A session stored before heads were kept (or with nothing journaled yet): its journal replayed. */
  private async replay(): Promise<Guard> {
    // Storage reads overlap the guard's construction.
    const reads = Promise.all([this.store.list("op:"), this.store.get(HEAD_KEY)]).then(async ([ops, head]) => ({ ops, head: await this.storedHead(head, ops.size) }));
    reads.catch(() => undefined);
    const guard = await this.build(this.sink);
    tracked(guard).clearDelta();
    const { ops, head } = await reads;
    if (head.ops !== ops.size) throw new JournalError(`the stored log head counts ${head.ops} operations, the journal holds ${ops.size}`);
    this.replayed = 0;
    let decisions: number;
    try {
      for (const op of ops.values()) apply(guard, op as Op);
    } finally {
      decisions = this.replayed;
      this.replayed = null;
    }
    if (decisions !== head.index) throw new JournalError(`the journal replays to ${decisions} decisions, the stored log head is at ${head.index}`);
    this.chain = createChain({ sha256: this.options.sha256, from: { index: head.index, hash: head.hash } });
    this.pending = [];
    this.journal = ops.size;
    // Layer B as replayed is relative to the creation state: what the replay changed stays marked, so
    // the next commit's delta holds it.
    this.base = 0;
    this.deltas = 0;
    this.guard = guard;
    return guard;
  }

  /** Runs validated operations, then journals them with their log records and the new head in one
   * commit. */
  async run(ops: readonly Op[]): Promise<unknown[]> {
    const guard = await this.ready();
    let results: unknown[];
    try {
      results = ops.map((op) => apply(guard, op));
    } catch (err) {
      // A later operation threw after earlier ones changed the guard: undo them all by forgetting it.
      this.forget();
      throw err;
    }
    // Forgotten while the operations ran (a concurrent request failed): there is no head to go on from.
    if (this.chain === null || this.guard !== guard) {
      this.forget();
      throw new JournalError("the session was reset while the request ran: nothing of it was stored");
    }
    const entries: Record<string, unknown> = {};
    ops.forEach((op, i) => {
      entries[`op:${pad(this.journal + i)}`] = op;
    });
    for (const d of this.pending) entries[`log:${pad(d.chain.index)}`] = d;
    const head = this.chain.head();
    const after = this.journal + ops.length;
    entries[HEAD_KEY] = { index: head.index, hash: head.hash, ops: after } satisfies StoredHead;
    // Layer B: the entities this request changed, or every REBASE_EVERY deltas the whole of it.
    const state = tracked(guard);
    const changed = state.takeDelta();
    let base = this.base;
    let deltas = this.deltas;
    if (changed.length > 0 && deltas >= REBASE_EVERY) {
      entries[BASE_KEY] = { ops: after, state: state.toJSON() } satisfies StoredBase;
      base = after;
      deltas = 0;
    } else if (changed.length > 0) {
      entries[`${DELTA_PREFIX}${pad(this.journal)}`] = { ops: after, entities: changed } satisfies StoredDelta;
      deltas++;
    }
    entries[SNAPSHOT_KEY] = { ops: after, base, deltas, guard: guard.snapshot() } satisfies StoredSnapshot;
    try {
      await this.store.commit(entries);
    } catch (err) {
      // The guard moved on but storage did not: the journal and the log stay the truth.
      this.forget();
      throw new CommitError(`the operation was not stored: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.journal = after;
    this.base = base;
    this.deltas = deltas;
    this.pending = [];
    return results;
  }
}

/** The guard's Layer B, which must be a TrackedLayerB (what the builder gives it): a commit stores the
 * entities it changed. */
function tracked(guard: Guard): TrackedLayerB {
  if (!(guard.state instanceof TrackedLayerB)) throw new JournalError("the session's guard is not on a TrackedLayerB: its changes could not be stored");
  return guard.state;
}
