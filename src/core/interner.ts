// String → i32 ids for the search. Ids 0..n-1 are the ontology's string pool, so a literal in a bound
// program and the same text read from Layer B or a call argument get the same id. Everything else
// (entity ids, argument strings, fresh keys) lives in a scratch area that the verifier resets before
// each verdict: ids only need to agree within one input record, and resetting keeps a long-running
// guard's memory flat.
export class Interner {
  private readonly pool = new Map<string, number>();
  /** Scratch ids as `epoch + id`: an entry of an earlier verdict (a smaller epoch) is stale. Resetting
   * moves the epoch on instead of clearing the map (a clear per verdict reallocates its table); the map
   * is cleared when it grows past SCRATCH_KEEP entries, so memory stays flat. */
  private readonly scratch = new Map<string, number>();
  private epoch = 0;
  private readonly base: number;
  private next: number;

  constructor(strings: readonly string[]) {
    strings.forEach((s, i) => {
      if (!this.pool.has(s)) this.pool.set(s, i);
    });
    this.base = strings.length;
    this.next = this.base;
  }

  /** The id of `s`: its pool index, or a scratch id stable until the next reset. */
  id(s: string): number {
    const fixed = this.pool.get(s);
    if (fixed !== undefined) return fixed;
    const e = this.scratch.get(s);
    if (e !== undefined && e >= this.epoch) return e - this.epoch;
    const id = this.next++;
    this.scratch.set(s, this.epoch + id);
    return id;
  }

  /** A key no string interned before the next reset has or will have: an entity not created yet. */
  fresh(): number {
    return this.next++;
  }

  /** Forget the scratch ids (called once per verdict). */
  reset(): void {
    if (this.next !== this.base) {
      this.next = this.base;
      this.epoch += EPOCH;
      if (this.scratch.size > SCRATCH_KEEP || this.epoch > MAX_EPOCH) {
        this.scratch.clear();
        this.epoch = 0;
      }
    }
  }
}

/** Ids stay below 2^31 (an i32 in the record), so an epoch step of 2^31 keeps `epoch + id` apart. */
const EPOCH = 2 ** 31;
/** The largest epoch whose sums stay exact integers. */
const MAX_EPOCH = 2 ** 52;
const SCRATCH_KEEP = 4096;
