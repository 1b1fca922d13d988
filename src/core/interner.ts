// String → i32 ids for the search. Ids 0..n-1 are the ontology's string pool, so a literal in a bound
// program and the same text read from Layer B or a call argument get the same id. Everything else
// (entity ids, argument strings, fresh keys) lives in a scratch area that the verifier resets before
// each verdict: ids only need to agree within one input record, and resetting keeps a long-running
// guard's memory flat.
export class Interner {
  private readonly pool = new Map<string, number>();
  private readonly scratch = new Map<string, number>();
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
    let id = this.scratch.get(s);
    if (id === undefined) {
      id = this.next++;
      this.scratch.set(s, id);
    }
    return id;
  }

  /** A key no string interned before the next reset has or will have: an entity not created yet. */
  fresh(): number {
    return this.next++;
  }

  /** Forget the scratch ids (called once per verdict). */
  reset(): void {
    if (this.next !== this.base) {
      this.scratch.clear();
      this.next = this.base;
    }
  }
}
