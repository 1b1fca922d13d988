// Layer B: typed slot assertions `slot(entity_type, entity_id) = value`, built from the environment's
// real state and from the results of executed calls, never from what a model says. Lookups are two map
// hits; slot records have no prototype so any key (even `__proto__`) is plain data.
//
// Values are Layer B's own: a JSON value handed in (`set`, `replaceEntity`, the projected document's
// records) is copied and frozen all the way down (src/util/owned-json.ts), so the caller's objects —
// the database it projected, a tool's live records — are never shared, frozen or changed, and changing
// them in place does not change Layer B. clone() shares the frozen values. A value that is not JSON is
// kept as given (the guard then fails closed on reading it).
import type { StateView } from "../core/types.js";
import { adoptOwnJson, NOT_JSON, ownedJson, sameOwnedJson } from "../util/owned-json.js";
import { ProjectionError } from "./errors.js";

/** A slot record: slot name → value. */
export type SlotRecord = Record<string, unknown>;

/** The serialized form: `{ entities: { type: { id: { slot: value } } } }`. */
export interface LayerBJson {
  entities: Record<string, Record<string, Record<string, unknown>>>;
}

/** An entity's record and the generation of the instance that may write it in place. */
interface Entry {
  rec: SlotRecord;
  gen: number;
  /** The record's read tuples made so far for a recording reader (readTuples), by slot name: valid
   * while the record is unchanged (a write in place drops them; every other write makes a new entry). */
  reads: Record<string, MadeRead> | null;
  /** Its existence read, `[entity, id, null, true]`, once made. */
  exists: ReadTuple | null;
}

/** A read as a decision records it (src/guard/reads.ts): `[entity, id, null, exists]`, `[entity, id,
 * slot, value]`, or `[entity, id, slot]` for a slot not asserted. */
export type ReadTuple = readonly [string, string, string | null, unknown?];

/** A slot's read tuple and its value (kept beside it: an element load from a frozen array misses
 * V8's inline caches every time). */
interface MadeRead {
  read: ReadTuple;
  value: unknown;
}

function entry(rec: SlotRecord, gen: number): Entry {
  return { rec, gen, reads: null, exists: null };
}

/** No instance's generation: the record was kept for a reader (keptRecord), so it is copied before
 * any write. */
const KEPT = 0;
let generations = 0;

/** A generation no instance had (a clone shares every entry, so both sides take new ones). */
function newGeneration(): number {
  return ++generations;
}

/** How many records Layer B's lookups remember. */
const RECENT = 8;

function emptyRecord(): SlotRecord {
  return Object.create(null) as SlotRecord;
}

export class LayerB implements StateView {
  private readonly types = new Map<string, Map<string, Entry>>();
  // Copy-on-write: clone() shares slot records between the two instances; a record is written in place
  // only by the instance that owns it (its entry carries this instance's generation: made after the
  // last clone, and not kept for a reader since), otherwise copied first. A generation stamp rather
  // than a set of owned records: no hashing and no weak-table entry per record.
  private gen = newGeneration();

  /** The last records looked up, most recent RECENT of them (a check reads one entity's existence and
   * slots in a row; a re-projected record's derived slots read the same few entities in turn: the
   * airline's flight dates, six times per segment): map lookups saved per read. Every write forgets
   * them. */
  private readonly recentEntity: string[] = new Array<string>(RECENT).fill("");
  private readonly recentId: string[] = new Array<string>(RECENT).fill("");
  private readonly recentRec: Array<Entry | undefined> = new Array<Entry | undefined>(RECENT).fill(undefined);
  private recentCount = 0;
  private recentNext = 0;

  private lookup(entity: string, id: string): SlotRecord | undefined {
    return this.find(entity, id)?.rec;
  }

  private find(entity: string, id: string): Entry | undefined {
    const n = this.recentCount;
    // The last one first: a check asks for its entity's existence, then for its slots.
    const last = (this.recentNext + RECENT - 1) % RECENT;
    if (n > 0 && this.recentId[last] === id && this.recentEntity[last] === entity) return this.recentRec[last];
    // (`last` was just compared: each compare of two different ids is a string-compare builtin call.)
    for (let k = 0; k < n; k++) if (k !== last && this.recentId[k] === id && this.recentEntity[k] === entity) return this.recentRec[k];
    const rec = this.types.get(entity)?.get(id);
    const at = this.recentNext;
    this.recentEntity[at] = entity;
    this.recentId[at] = id;
    this.recentRec[at] = rec;
    this.recentNext = (at + 1) % RECENT;
    if (n < RECENT) this.recentCount = n + 1;
    return rec;
  }

  /** Forgets the records looked up (before any write). */
  private forget(): void {
    this.recentCount = 0;
    this.recentNext = 0;
  }

  hasEntity(entity: string, id: string): boolean {
    return this.lookup(entity, id) !== undefined;
  }

  slot(entity: string, id: string, slot: string): unknown {
    const rec = this.lookup(entity, id);
    // A record has no prototype: any slot name is an own key or absent.
    return rec === undefined ? undefined : rec[slot];
  }

  /** The values of several slots of one entity (StateView.slots): one lookup. */
  slots(entity: string, id: string, names: readonly string[], out: unknown[]): void {
    // A subclass answering `slot` its own way is asked slot by slot (what `slots` promises).
    if (this.slot !== LayerB.prototype.slot) {
      for (let i = 0; i < names.length; i++) out[i] = this.slot(entity, id, names[i]);
      return;
    }
    const rec = this.lookup(entity, id);
    for (let i = 0; i < names.length; i++) out[i] = rec === undefined ? undefined : rec[names[i]];
  }

  /**
   * For a recording reader (the guard's RecordingView): `out[i]` the frozen read tuple of slot
   * `names[i]` — `[entity, id, name, value]` with the value as `ownedJson(value, false)` answers it,
   * `[entity, id, name]` for a slot not asserted — and `values[i]` its value, made once per record and shared by every later read
   * until the record changes, so a check reading an unchanged entity makes and freezes no tuple. False
   * (`out` then unspecified) when the entity does not exist or a value is not JSON: the reader reads
   * slot by slot.
   */
  readTuples(entity: string, id: string, names: readonly string[], out: ReadTuple[], values: unknown[]): boolean {
    const e = this.find(entity, id);
    if (e === undefined) return false;
    let made = e.reads;
    if (made === null) made = e.reads = Object.create(null) as Record<string, MadeRead>;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      let m = made[name];
      if (m === undefined) {
        const v = e.rec[name];
        if (v === undefined) m = { read: Object.freeze([entity, id, name] as const), value: undefined };
        else {
          const own = ownedJson(v, false);
          if (own === NOT_JSON) return false;
          m = { read: Object.freeze([entity, id, name, own] as const), value: own };
        }
        made[name] = m;
      }
      out[i] = m.read;
      values[i] = m.value;
    }
    return true;
  }

  /** The frozen existence read `[entity, id, null, true]` of an entity, shared while it exists; null
   * when it does not. */
  existsTuple(entity: string, id: string): ReadTuple | null {
    const e = this.find(entity, id);
    if (e === undefined) return null;
    return e.exists ?? (e.exists = Object.freeze([entity, id, null, true] as const));
  }

  /** Asserts `slot(entity, id) = value`, creating the entity if needed; `undefined` retracts the slot. */
  set(entity: string, id: string, slot: string, value: unknown): void {
    // The library's own value that is the same JSON as the slot's: the slot (and its record) is kept.
    if (this.ownValues && sameOwnedJson(this.slot(entity, id, slot), value)) return;
    const rec = this.writable(entity, id);
    if (value === undefined) delete rec[slot];
    else rec[slot] = this.keep(value);
  }

  /** Makes the entity exist (with no slots if it is new). */
  ensureEntity(entity: string, id: string): void {
    const m = this.typeMap(entity);
    if (!m.has(id)) m.set(id, entry(emptyRecord(), this.gen));
  }

  /** Replaces all slots of the entity (creating it): the result of re-projecting a full record. */
  replaceEntity(entity: string, id: string, slots: Readonly<Record<string, unknown>>): void {
    // The library's own values (withOwnValues): a slot that holds the same JSON keeps its value, so a
    // re-projected record that did not change keeps what Layer B holds (nothing new is frozen or kept),
    // and the record handed over (prototype-free, the projection's) becomes Layer B's, not copied.
    const own = this.ownValues;
    const held = own ? this.lookup(entity, id) : undefined;
    const rec = own && Object.getPrototypeOf(slots) === null && !Object.isFrozen(slots) ? (slots as SlotRecord) : emptyRecord();
    for (const k of Object.keys(slots)) {
      const v = slots[k];
      if (v === undefined) {
        delete rec[k];
        continue;
      }
      // The held value read once (each read of a record is a megamorphic keyed load), and written only
      // where the record would change: a kept value of the handed-over record is there already.
      // (A slot the held record lacks reads undefined, which sameOwnedJson never calls the same.)
      const h = held === undefined ? undefined : held[k];
      const kept = sameOwnedJson(h, v) ? h : this.keep(v);
      if (rec !== slots || kept !== v) rec[k] = kept;
    }
    this.typeMap(entity).set(id, entry(rec, this.gen));
  }

  /** replaceEntity without copying the record: `slots` must be a fresh prototype-free record that the
   * caller hands over and never touches again (the projection's own records); its values are made
   * Layer B's own in it. */
  adoptEntity(entity: string, id: string, slots: SlotRecord): void {
    const keys = Object.keys(slots);
    for (let i = 0; i < keys.length; i++) slots[keys[i]] = this.keep(slots[keys[i]]);
    this.typeMap(entity).set(id, entry(slots, this.gen));
  }

  /** Whether the values written now are the library's own (the guard's observe; see withOwnValues). */
  private ownValues = false;

  /** Runs `fn` with every value written through `set`, `replaceEntity` and `adoptEntity` taken as
   * the library's own and shared with no caller (the projection of the guard's own copy of a call and
   * of a result it parsed): frozen in place instead of copied; a prototype-free record handed to
   * `replaceEntity` is kept as the entity's record. Never for a caller's values. */
  withOwnValues<T>(fn: () => T): T {
    const was = this.ownValues;
    this.ownValues = true;
    try {
      return fn();
    } finally {
      this.ownValues = was;
    }
  }

  /** A value as Layer B keeps it: the library's own frozen in place (withOwnValues), anything else
   * as its own frozen copy (shared when it is one already); the value itself when it is not JSON. */
  private keep(value: unknown): unknown {
    if (typeof value !== "object" || value === null) return value;
    const c = this.ownValues ? adoptOwnJson(value) : ownedJson(value, true);
    return c === NOT_JSON ? value : c;
  }

  deleteEntity(entity: string, id: string): boolean {
    this.forget();
    const m = this.types.get(entity);
    if (m === undefined) return false;
    const had = m.delete(id);
    if (m.size === 0) this.types.delete(entity);
    return had;
  }

  /** The entity's slot record as it is now, kept unchanged for the caller: a later write to the entity
   * copies the record first (copy-on-write), so the caller may read it later (the guard's `before`
   * snapshot, taken when first needed). Read-only; undefined when the entity does not exist. */
  keptRecord(entity: string, id: string): Readonly<SlotRecord> | undefined {
    const e = this.types.get(entity)?.get(id);
    if (e === undefined) return undefined;
    e.gen = KEPT;
    return e.rec;
  }

  /** A copy of the entity's slots (prototype-free), or undefined when it does not exist. */
  entity(entity: string, id: string): Readonly<SlotRecord> | undefined {
    const e = this.types.get(entity)?.get(id);
    if (e === undefined) return undefined;
    return Object.assign(emptyRecord(), e.rec);
  }

  /** Entity types present, sorted. */
  entityTypes(): string[] {
    return [...this.types.keys()].sort();
  }

  /** Ids of one entity type, in insertion order. */
  ids(entity: string): string[] {
    return [...(this.types.get(entity)?.keys() ?? [])];
  }

  /** Number of entities (of one type, or of all types). */
  size(entity?: string): number {
    if (entity !== undefined) return this.types.get(entity)?.size ?? 0;
    let n = 0;
    for (const m of this.types.values()) n += m.size;
    return n;
  }

  /** An independent copy. Cheap: records are shared copy-on-write, values are shared (immutable). */
  clone(): LayerB {
    const out = new LayerB();
    for (const [type, m] of this.types) out.types.set(type, new Map(m));
    // From now on both sides share every record, so neither may write one in place.
    this.gen = newGeneration();
    return out;
  }

  /** Plain JSON; types, ids and slots in sorted order so equal states serialize equally. */
  toJSON(): LayerBJson {
    const entities: LayerBJson["entities"] = {};
    for (const type of this.entityTypes()) {
      const m = this.types.get(type)!;
      const byId: Record<string, Record<string, unknown>> = {};
      for (const id of [...m.keys()].sort()) {
        const rec = m.get(id)!.rec;
        const slots: Record<string, unknown> = {};
        for (const k of Object.keys(rec).sort()) defineData(slots, k, rec[k]);
        defineData(byId, id, slots);
      }
      defineData(entities, type, byId);
    }
    return { entities };
  }

  static fromJSON(json: unknown): LayerB {
    const out = new LayerB();
    if (!isPlainObject(json) || !isPlainObject(json.entities)) {
      throw new ProjectionError("bad-state", "layer b json must be `{ entities: { type: { id: { slot: value } } } }`");
    }
    for (const type of Object.keys(json.entities)) {
      const byId = json.entities[type];
      if (!isPlainObject(byId)) throw new ProjectionError("bad-state", `entities of type \`${type}\` must be an object`);
      for (const id of Object.keys(byId)) {
        const slots = byId[id];
        if (!isPlainObject(slots)) {
          throw new ProjectionError("bad-state", `slots of \`${type}\` \`${id}\` must be an object`);
        }
        out.replaceEntity(type, id, slots);
      }
    }
    return out;
  }

  private typeMap(entity: string): Map<string, Entry> {
    this.forget();
    let m = this.types.get(entity);
    if (m === undefined) {
      m = new Map();
      this.types.set(entity, m);
    }
    return m;
  }

  private writable(entity: string, id: string): SlotRecord {
    const m = this.typeMap(entity);
    const e = m.get(id);
    if (e !== undefined && e.gen === this.gen) {
      // Written in place: its read tuples no longer hold.
      e.reads = null;
      return e.rec;
    }
    const own = e === undefined ? emptyRecord() : Object.assign(emptyRecord(), e.rec);
    m.set(id, entry(own, this.gen));
    return own;
  }

}

// Assignment to `__proto__` on a plain object would set the prototype; defining keeps it data.
function defineData(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}
