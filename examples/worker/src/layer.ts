// A session's Layer B that remembers which entities changed, so a request stores only those (a delta)
// instead of the whole Layer B (~150 KB for τ²-bench's airline db): a woken object rebuilds Layer B
// from its last stored base and the deltas since (./journal.ts). Every write the projection makes goes
// through LayerB's five mutating methods, so tracking them cannot miss one, even a write made by an
// effect whose later part threw.
import { LayerB, ProjectionError } from "polar-guard";

/** One changed entity as it is after the request: its slots, or null when it was deleted. */
export type DeltaEntry = [type: string, id: string, slots: Record<string, unknown> | null];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/** The slots as a plain object: assigning `__proto__` (or another name Object.prototype has) would
 * hit the prototype, so those are defined; the rest assigned (much faster). */
function plain(slots: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(slots)) {
    if (k in Object.prototype) Object.defineProperty(out, k, { value: slots[k], enumerable: true, writable: true, configurable: true });
    else out[k] = slots[k];
  }
  return out;
}

export class TrackedLayerB extends LayerB {
  /** `type\0id` → [type, id] of every entity written since the last takeDelta. */
  private touched = new Map<string, [string, string]>();
  private tracking = true;

  /** LayerB.fromJSON into a tracked Layer B (the same checks, the same `bad-state` errors), with
   * nothing marked changed. */
  static from(json: unknown): TrackedLayerB {
    const out = new TrackedLayerB();
    if (!isPlainObject(json) || !isPlainObject(json.entities)) {
      throw new ProjectionError("bad-state", "layer b json must be `{ entities: { type: { id: { slot: value } } } }`");
    }
    out.tracking = false;
    for (const type of Object.keys(json.entities)) {
      const byId = json.entities[type];
      if (!isPlainObject(byId)) throw new ProjectionError("bad-state", `entities of type \`${type}\` must be an object`);
      for (const id of Object.keys(byId)) {
        const slots = byId[id];
        if (!isPlainObject(slots)) throw new ProjectionError("bad-state", `slots of \`${type}\` \`${id}\` must be an object`);
        out.replaceEntity(type, id, slots);
      }
    }
    out.tracking = true;
    return out;
  }

  private note(entity: string, id: string): void {
    if (this.tracking) this.touched.set(`${entity}\u0000${id}`, [entity, id]);
  }

  override set(entity: string, id: string, slot: string, value: unknown): void {
    this.note(entity, id);
    super.set(entity, id, slot, value);
  }

  override ensureEntity(entity: string, id: string): void {
    this.note(entity, id);
    super.ensureEntity(entity, id);
  }

  override replaceEntity(entity: string, id: string, slots: Readonly<Record<string, unknown>>): void {
    this.note(entity, id);
    super.replaceEntity(entity, id, slots);
  }

  override adoptEntity(entity: string, id: string, slots: Record<string, unknown>): void {
    this.note(entity, id);
    super.adoptEntity(entity, id, slots);
  }

  override deleteEntity(entity: string, id: string): boolean {
    this.note(entity, id);
    return super.deleteEntity(entity, id);
  }

  /** The entities written since the last call, as they are now; forgets them. */
  takeDelta(): DeltaEntry[] {
    const out: DeltaEntry[] = [];
    for (const [type, id] of this.touched.values()) {
      const slots = this.entity(type, id);
      out.push([type, id, slots === undefined ? null : plain(slots)]);
    }
    this.touched = new Map();
    return out;
  }

  /** Forgets what was written so far (a state just built: the creation state, or one rebuilt from
   * storage, is not a change of the next request). */
  clearDelta(): void {
    if (this.touched.size > 0) this.touched = new Map();
  }

  /** Applies a stored delta (checked: `what` names it in the error), marking nothing changed. */
  applyDelta(entries: unknown, what: string): void {
    if (!Array.isArray(entries)) throw new TypeError(`${what} is not a list of changed entities`);
    this.tracking = false;
    try {
      entries.forEach((e: unknown, i) => {
        if (!Array.isArray(e) || e.length !== 3 || typeof e[0] !== "string" || typeof e[1] !== "string" || (e[2] !== null && !isPlainObject(e[2]))) {
          throw new TypeError(`${what}, entry ${i}: \`[type, id, slots | null]\` expected`);
        }
        if (e[2] === null) this.deleteEntity(e[0], e[1]);
        else this.replaceEntity(e[0], e[1], e[2]);
      });
    } finally {
      this.tracking = true;
    }
  }
}
