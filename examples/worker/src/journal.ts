// A session's journal: the in-memory guard is a cache of it. A request's operations run on the guard,
// then the operations and the decision records they logged are committed in one storage transaction;
// if an operation throws or the commit fails, the guard is dropped and the next request rebuilds it by
// replaying the journal (the guard is deterministic). So a request is atomic — all of it applied and
// stored, or none — and log keys follow the chain index, so no record ever replaces another. Storage
// is behind a small interface, so the same code runs in the Durable Object and in a Node test.
import type { Decision, Guard, ToolCall } from "polar-guard";

export type Op =
  | { op: "check"; call: ToolCall; context: Record<string, unknown> | undefined }
  | { op: "observe"; call: ToolCall; result: unknown; failed: boolean }
  | { op: "checkpoint" };

/** A decision as the log holds it: with its chain link (src/audit/chain.ts). */
export type LoggedDecision = Decision & { chain: { index: number; prev: string } };

export interface JournalStore {
  /** Every value under a key prefix, in key order. */
  list(prefix: string): Promise<Map<string, unknown>>;
  /** Writes every pair or none. */
  commit(entries: Record<string, unknown>): Promise<void>;
}

/** Builds a fresh guard whose log sink is `log` (one chained record per check). */
export type GuardBuilder = (log: (d: LoggedDecision) => void) => Promise<Guard>;

/** The commit failed: nothing of the request was stored (or applied). */
export class CommitError extends Error {
  override readonly name = "CommitError";
}

export const pad = (n: number): string => String(n).padStart(10, "0");

function apply(guard: Guard, op: Op): unknown {
  if (op.op === "check") return { decision: guard.check(op.call, op.context as never) };
  if (op.op === "observe") return { report: guard.observe(op.call, op.result, { failed: op.failed }) };
  guard.checkpoint();
  return { ok: true };
}

export class SessionJournal {
  private guard: Guard | null = null;
  private loading: Promise<Guard> | null = null;
  private journal = 0;
  private pending: LoggedDecision[] = [];

  constructor(
    private readonly store: JournalStore,
    private readonly build: GuardBuilder,
  ) {}

  /** A new session's guard (nothing journaled yet). */
  async start(): Promise<Guard> {
    this.forget();
    const guard = await this.build((d) => this.pending.push(d));
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
    this.pending = [];
  }

  private async restore(): Promise<Guard> {
    const guard = await this.build((d) => this.pending.push(d));
    const ops = await this.store.list("op:");
    for (const op of ops.values()) apply(guard, op as Op);
    this.pending = []; // replayed decisions are already in the stored log
    this.journal = ops.size;
    this.guard = guard;
    return guard;
  }

  /** Runs validated operations, then journals them with their log records in one commit. */
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
    const entries: Record<string, unknown> = {};
    ops.forEach((op, i) => {
      entries[`op:${pad(this.journal + i)}`] = op;
    });
    for (const d of this.pending) entries[`log:${pad(d.chain.index)}`] = d;
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
