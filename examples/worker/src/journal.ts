// A session's journal: the in-memory guard is a cache of it. A request's operations run on the guard,
// then the operations, the decision records they logged and the log's new head are committed in one
// storage transaction; if an operation throws or the commit fails, the guard is dropped and the next
// request rebuilds it by replaying the journal (the guard is deterministic). So a request is atomic —
// all of it applied and stored, or none — and log keys follow the chain index, so no record ever
// replaces another. Storage is behind a small interface, so the same code runs in the Durable Object
// and in a Node test.
//
// The journal owns the log's hash chain. A replay's decisions are already in the stored log, so they
// are counted, not linked or hashed again: the chain goes on from the stored head (`head`: the last
// record's index and hash, and the number of journaled operations). A head that disagrees with the
// journal (a missing, malformed or mismatched one) is refused with a JournalError: the session answers
// an error, never a verdict built on a journal it cannot account for.
import { createChain, recordHash, type ChainHead, type Decision, type Guard, type ToolCall } from "polar-guard";

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

export interface JournalStore {
  /** One value (undefined when absent). */
  get(key: string): Promise<unknown>;
  /** Every value under a key prefix, in key order. */
  list(prefix: string): Promise<Map<string, unknown>>;
  /** Writes every pair or none. */
  commit(entries: Record<string, unknown>): Promise<void>;
}

/** Builds a fresh guard whose log sink is `log` (one record per check; the journal chains them). */
export type GuardBuilder = (log: (d: Decision) => void) => Promise<Guard>;

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

export class SessionJournal {
  private guard: Guard | null = null;
  private loading: Promise<Guard> | null = null;
  private journal = 0;
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
    this.chain = createChain({ sha256: this.options.sha256 });
    this.guard = guard;
    this.journal = 0;
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
    // Storage reads overlap the guard's construction.
    const reads = Promise.all([this.store.list("op:"), this.store.get(HEAD_KEY)]).then(async ([ops, head]) => ({ ops, head: await this.storedHead(head, ops.size) }));
    reads.catch(() => undefined);
    const guard = await this.build(this.sink);
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
    entries[HEAD_KEY] = { index: head.index, hash: head.hash, ops: this.journal + ops.length } satisfies StoredHead;
    try {
      await this.store.commit(entries);
    } catch (err) {
      // The guard moved on but storage did not: the journal and the log stay the truth.
      this.forget();
      throw new CommitError(`the operation was not stored: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.journal += ops.length;
    this.pending = [];
    return results;
  }
}
