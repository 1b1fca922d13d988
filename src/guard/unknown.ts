// Entities whose Layer B values the guard no longer knows: a write it let through ran, but its result
// could not be projected (not the JSON the rules expect, an effect skipped), so what Layer B says
// about the entity may be stale. A later decision that reads such an entity fails closed with
// `unknown_state` until the state is re-read (a later projected result on the entity, or
// `guard.markKnown`). The marks a decision hit are in its record, so the replay re-derives it.
import type { Read } from "./reads.js";

export interface UnknownMark {
  entity: string;
  /** null: the write named no entity (a creating tool), so nothing in Layer B is known any more. */
  id: string | null;
  /** The tool whose result could not be projected, and the execution that ran it (null when it was
   * observed without a check). */
  tool: string;
  execution: string | null;
}

/** Past this many marked entities, everything is unknown (one mark stands for all). */
export const MAX_MARKS = 4096;

function keyOf(entity: string, id: string): string {
  return `${entity}\u0000${id}`;
}

export class UnknownMarks {
  private readonly byEntity = new Map<string, UnknownMark>();
  private everything: UnknownMark | null = null;

  get empty(): boolean {
    return this.everything === null && this.byEntity.size === 0;
  }

  mark(m: UnknownMark): void {
    if (m.id === null || this.byEntity.size >= MAX_MARKS) {
      // The first mark on everything stays (a later one says nothing more).
      this.everything ??= Object.freeze({ ...m, id: null });
      return;
    }
    this.byEntity.set(keyOf(m.entity, m.id), Object.freeze({ ...m }));
  }

  /** The state of this entity (or, without arguments, all of it) was read again. */
  clear(entity?: string, id?: string): void {
    if (entity === undefined) {
      this.byEntity.clear();
      this.everything = null;
      return;
    }
    if (id === undefined) {
      for (const [k, m] of this.byEntity) if (m.entity === entity) this.byEntity.delete(k);
    } else this.byEntity.delete(keyOf(entity, id));
  }

  /** A fresh set takes over a snapshot's marks (checked and frozen: readSnapshot), in their order. */
  restore(marks: readonly UnknownMark[]): void {
    for (const m of marks) {
      if (m.id === null) this.everything = m;
      else this.byEntity.set(keyOf(m.entity, m.id), m);
    }
  }

  /** Every mark, for a decision to test its reads against (null when there is none). */
  list(): UnknownMark[] | null {
    if (this.empty) return null;
    const out = [...this.byEntity.values()];
    if (this.everything !== null) out.push(this.everything);
    return out;
  }

  /** The marks, by entity, that `reads` touch or that an earlier call of the forward sequence acts on
   * (`acted`: [entity, id] pairs; its inverse restores what the unusable result left unknown); a mark
   * on everything is hit by any decision. */
  static hits(marks: readonly UnknownMark[], reads: readonly Read[], acted: readonly [string, string][]): UnknownMark[] {
    const out: UnknownMark[] = [];
    const byEntity = new Map<string, UnknownMark>();
    for (const m of marks) {
      if (m.id === null) out.push(m);
      else byEntity.set(keyOf(m.entity, m.id), m);
    }
    const seen = new Set<UnknownMark>();
    const hit = (entity: string, id: string): void => {
      const m = byEntity.get(keyOf(entity, id));
      if (m !== undefined && !seen.has(m)) {
        seen.add(m);
        out.push(m);
      }
    };
    for (const a of acted) hit(a[0], a[1]);
    for (const r of reads) hit(r[0], r[1]);
    return out;
  }
}

/** The record's `unknown` field as the replay reads it back: only well-formed marks. */
export function recordedMarks(v: unknown): UnknownMark[] | null {
  if (!Array.isArray(v)) return null;
  const out: UnknownMark[] = [];
  for (const m of v as Partial<UnknownMark>[]) {
    if (typeof m?.entity === "string" && (typeof m.id === "string" || m.id === null) && typeof m.tool === "string") {
      out.push({ entity: m.entity, id: m.id, tool: m.tool, execution: typeof m.execution === "string" ? m.execution : null });
    }
  }
  return out;
}
