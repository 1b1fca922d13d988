// The Layer B values a decision read, and the views that record and replay them. The guard wraps the
// state in a RecordingView for each check, so whatever the verifier (or the guard's own grounding
// check) reads is captured; the audit replay answers the same questions from the record alone.
import type { StateView } from "../core/types.js";
import { canonicalJsonFast } from "./canonical-fast.js";
import { sha256Hex, toHex } from "../util/sha256.js";
import type { Sha256 } from "../blob/decode.js";
import type { SlotAssertion } from "../policies/classifier.js";
import { NOT_JSON, ownedJson } from "../util/owned-json.js";
import { LayerB, type ReadTuple } from "../projection/layer-b.js";

/** One read: `[entity, id, null, exists]` for an existence check, `[entity, id, slot, value]` for a
 * slot, `[entity, id, slot]` for a slot that was not asserted. */
export type Read = [string, string, string | null, unknown?];

/** The key of an entity's existence; its slots' keys (slotKey) live in maps of their own. */
function entityKey(entity: string, id: string): string {
  return `${entity}\u0000${id}`;
}

function slotKey(entity: string, id: string, slot: string): string {
  return `${entity}\u0000${id}\u0000${slot}`;
}

export class RecordingView implements StateView {
  /** Every read in the order made, repeats included: deduplicated once, in reads(), instead of a
   * string key and a map probe per read. */
  private readonly log: Read[] = [];
  /** Every value read so far is canonical JSON (then each object value is the guard's or Layer B's
   * own frozen copy). */
  canonical = true;
  /** The base when it is a LayerB answering as LayerB does (its own hasEntity, slot and slots, not
   * a subclass's): its read tuples are then shared (LayerB.readTuples). */
  private readonly layerB: LayerB | null;
  /** Scratch for LayerB.readTuples. */
  private tuples: ReadTuple[] | null = null;
  constructor(private readonly base: StateView) {
    this.layerB = base instanceof LayerB && base.hasEntity === LayerB.prototype.hasEntity && base.slot === LayerB.prototype.slot && base.slots === LayerB.prototype.slots ? base : null;
  }

  hasEntity(entity: string, id: string): boolean {
    // The same question as the read just made (the guard's grounding check, then the search's): its
    // answer, asked and recorded once.
    // (`lastSlot` is undefined until a first read: null only after an existence read.)
    if (this.lastSlot === null && this.lastId === id && this.lastEntity === entity) return this.lastExists as boolean;
    if (this.layerB !== null) {
      const t = this.layerB.existsTuple(entity, id);
      if (t !== null) {
        this.push(entity, id, null, t as Read);
        this.lastExists = true;
        return true;
      }
    }
    const exists = this.base.hasEntity(entity, id) === true;
    this.push(entity, id, null, [entity, id, null, exists]);
    this.sharedOnly = false;
    this.lastExists = exists;
    return exists;
  }

  /** The value, copied on read: an object value that is not Layer B's own frozen copy is copied
   * (frozen) for this check, so neither the search nor the decision holds, freezes or changes the
   * state's objects. A value that is not canonical JSON is recorded as it is, untouched (the decision
   * then fails closed on it, with canonicalJson's reason). */
  slot(entity: string, id: string, slot: string): unknown {
    return this.recorded(entity, id, slot, this.base.slot(entity, id, slot));
  }

  /** Several slots of one entity (StateView.slots), each recorded and copied as slot() does: through
   * the base view's own `slots` when it has one, else slot by slot. */
  slots(entity: string, id: string, names: readonly string[], out: unknown[]): void {
    if (this.layerB !== null) {
      // Layer B's shared read tuples (frozen, values its own): nothing to copy or make.
      const tuples = this.tuples ?? (this.tuples = []);
      if (this.layerB.readTuples(entity, id, names, tuples, out)) {
        for (let i = 0; i < names.length; i++) this.push(entity, id, names[i], tuples[i] as Read);
        tuples.length = 0;
        return;
      }
    }
    const base = this.base;
    // A view's own `slots` only when it is a method (a class may have a field of that name).
    if (typeof base.slots === "function") {
      // Every entry is the base's answer for this read, never an earlier one left in `out`.
      for (let i = 0; i < names.length; i++) out[i] = undefined;
      base.slots(entity, id, names, out);
    } else {
      for (let i = 0; i < names.length; i++) out[i] = base.slot(entity, id, names[i]);
    }
    for (let i = 0; i < names.length; i++) out[i] = this.recorded(entity, id, names[i], out[i]);
  }

  /** Records the base's answer `v` for a slot read and answers it as the check may hold it. */
  private recorded(entity: string, id: string, slot: string, v: unknown): unknown {
    this.sharedOnly = false;
    if (v === undefined) {
      this.push(entity, id, slot, [entity, id, slot]);
      return v;
    }
    // A JSON scalar as it is, an object as Layer B's own frozen copy or a fresh one (ownedJson).
    const own = ownedJson(v, false);
    if (own === NOT_JSON) {
      this.canonical = false;
      this.push(entity, id, slot, [entity, id, slot, v]);
      return v;
    }
    this.push(entity, id, slot, [entity, id, slot, own]);
    return own;
  }

  /** Every read made so far came strictly after the one before it in the order reads() gives (so the
   * log is that order, with no repeat): worked out from the read's own arguments as it is made, never
   * by reading a tuple back (an element load from a frozen array, such as Layer B's shared tuples,
   * misses V8's inline caches). Entity, id and slot are the strings the verifier and the grounding
   * check ask with (StateView's signature; an id is entityKey's string). */
  private ordered = true;
  /** Every read so far is one of Layer B's shared tuples, frozen already (ownCanonicalReads need not
   * freeze them again: Object.freeze is a runtime call even then). */
  sharedOnly = true;
  // The last read's arguments (and its answer when it was an existence read): undefined until the
  // first read sets them, never read before.
  private lastEntity: string | undefined = undefined;
  private lastId: string | undefined = undefined;
  private lastSlot: string | null | undefined = undefined;
  private lastExists: boolean | undefined = undefined;

  private push(entity: string, id: string, slot: string | null, read: Read): void {
    if (this.ordered && this.log.length > 0) {
      const e = this.lastEntity as string;
      const i = this.lastId as string;
      const s = this.lastSlot as string | null;
      if (entity !== e) this.ordered = e < entity;
      else if (id !== i) this.ordered = i < id;
      else this.ordered = slot !== null && (s === null || s < slot);
    }
    this.lastEntity = entity;
    this.lastId = id;
    this.lastSlot = slot;
    this.log.push(read);
  }

  /** The reads in canonical order (entity, id, existence before slots, slot name); of repeated reads
   * the first one made (the sort is stable). Reads made in that order (a check's usual case: its
   * entity's existence, then its slots in name order) are kept as made; the rest are sorted by
   * insertion (a one-call check's few reads arrive nearly in order) or, past 64, by the general sort. */
  reads(): Read[] {
    if (this.ordered) return this.log.slice();
    const sorted = this.log.length <= 64 ? insertionSorted(this.log) : sortReads(this.log.slice());
    // Repeats dropped in place (the sorted array is this call's own copy).
    let n = 0;
    for (let i = 0; i < sorted.length; i++) {
      const r = sorted[i];
      if (n > 0 && sameKey(sorted[n - 1], r)) continue;
      sorted[n++] = r;
    }
    sorted.length = n;
    return sorted;
  }
}

function sameKey(a: Read, b: Read): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

/** Entity, then id, then existence (slot null) before slots, then slot name. Most reads of a check share
 * their entity and id (often the very same strings), so equality is tested first. */
function compareReads(x: Read, y: Read): number {
  if (x[0] !== y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] !== y[1]) return x[1] < y[1] ? -1 : 1;
  const a = x[2];
  const b = y[2];
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

export function sortReads(reads: Read[]): Read[] {
  return reads.sort(compareReads);
}

/** A sorted copy by insertion (stable, like Array.prototype.sort): a one-call check's few reads arrive nearly in
 * order (one entity at a time), where this beats the general sort and its comparator calls. */
function insertionSorted(reads: readonly Read[]): Read[] {
  const out: Read[] = [];
  for (let i = 0; i < reads.length; i++) {
    const r = reads[i];
    out.push(r);
    let j = i;
    while (j > 0 && compareReads(out[j - 1], r) > 0) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = r;
  }
  return out;
}

/** SHA-256 over the canonical JSON of the sorted reads: the decision's Layer B digest. `hash` is an
 * injected SHA-256 (e.g. Node's native one); the default is the JavaScript implementation. */
export function readsDigest(reads: readonly Read[], hash?: Sha256): string {
  const text = canonicalJsonFast(reads);
  return hash === undefined ? sha256Hex(text) : toHex(hash(text));
}

/**
 * The reads digest, computed when first asked for: a check records what it read, but hashing it
 * (canonical JSON + SHA-256) is most of a check's cost and only a serialised record needs it. The
 * reads are fixed by then (frozen copies: RecordingView.slot), so the digest is the same whenever it
 * is taken. Whether the reads are canonical was decided eagerly: it cannot throw.
 */
export class LazyDigest {
  private value: string | null = null;
  constructor(private readonly reads: readonly Read[], private readonly hash: Sha256 | undefined) {}

  get(): string {
    if (this.value === null) this.value = readsDigest(this.reads, this.hash);
    return this.value;
  }

}

/** The accessor a guard's records read their `stateDigest` through: the digest (readsDigest, with
 * `hash`) of the record's own `reads`, taken when first read and kept by the reads array (frozen, so
 * the digest cannot change). One function per guard, shared by its records: they keep one hidden class,
 * and a record carries nothing but its fields (no holder, nothing more to serialise or compare). */
export type StateDigestGetter = (this: { readonly reads: readonly Read[] }) => string;

export function stateDigestGetter(hash: Sha256 | undefined): StateDigestGetter {
  const made = new WeakMap<readonly Read[], string>();
  return function stateDigest(this: { readonly reads: readonly Read[] }): string {
    const reads = this.reads;
    let d = made.get(reads);
    if (d === undefined) {
      d = readsDigest(reads, hash);
      made.set(reads, d);
    }
    return d;
  };
}

/** Gives `record` its `stateDigest` as an own enumerable accessor (`getter`, stateDigestGetter):
 * JSON.stringify, canonicalJson, spreads and structuredClone see a plain string. For a record frozen
 * right after, which makes the field non-configurable and read-only: `__defineGetter__` reads no
 * descriptor object, the cheaper of the two runtime calls, on every check. */
export function defineStateDigest(record: { readonly reads: readonly Read[] }, getter: StateDigestGetter): void {
  (record as unknown as { __defineGetter__(name: string, get: () => unknown): void }).__defineGetter__("stateDigest", getter);
}

/** The reads frozen, each value the guard's own frozen copy: for reads canonicalJson accepted though
 * the recorder did not (it is never laxer). A value that cannot be copied fails the decision closed. */
export function ownReads(reads: Read[]): Read[] {
  for (let i = 0; i < reads.length; i++) {
    const r = reads[i];
    // A frozen tuple is Layer B's shared one (LayerB.readTuples): its value is Layer B's own already.
    if (Object.isFrozen(r)) continue;
    if (r.length > 3) {
      const c = ownedJson(r[3], false);
      if (c === NOT_JSON) throw new Error(`the value of \`${String(r[0])}\` \`${String(r[1])}\` \`${String(r[2])}\` cannot be copied as JSON`);
      r[3] = c;
    }
    Object.freeze(r);
  }
  return Object.freeze(reads) as Read[];
}

/**
 * The reads kept as they are, frozen, when the recorder found every value canonical JSON (`canonical`:
 * each object value then is a frozen copy of the guard's or of Layer B's, see RecordingView.slot;
 * `frozen`: every tuple is frozen already, Layer B's shared ones); null otherwise, with no tuple
 * frozen (the caller lets canonicalJson decide).
 */
export function ownCanonicalReads(reads: Read[], canonical: boolean, frozen = false): Read[] | null {
  if (!canonical) return null;
  for (let i = 0; i < reads.length && !frozen; i++) Object.freeze(reads[i]);
  return Object.freeze(reads) as Read[];
}

/** Answers reads from a record; a read the record does not hold is noted (the replay reports it). */
export class ReplayView implements StateView {
  private readonly entities = new Map<string, boolean>();
  private readonly slotValues = new Map<string, unknown>();
  readonly unrecorded: string[] = [];

  constructor(reads: readonly Read[]) {
    for (const r of reads) {
      // A slot read without a value (`[entity, id, slot]`) is recorded as undefined.
      if (r[2] === null) this.entities.set(entityKey(r[0], r[1]), r[3] === true);
      else this.slotValues.set(slotKey(r[0], r[1], r[2]), r[3]);
    }
  }

  hasEntity(entity: string, id: string): boolean {
    const v = this.entities.get(entityKey(entity, id));
    if (v === undefined) this.unrecorded.push(`exists ${entity} ${id}`);
    return v === true;
  }

  slot(entity: string, id: string, slot: string): unknown {
    const k = slotKey(entity, id, slot);
    if (!this.slotValues.has(k)) this.unrecorded.push(`${entity} ${id} ${slot}`);
    return this.slotValues.get(k);
  }
}

/** A candidate target state laid over Layer B (the intent parser's proposals). */
export class OverlayView implements StateView {
  private readonly entities = new Set<string>();
  private readonly slotValues = new Map<string, unknown>();

  constructor(private readonly base: StateView, assertions: readonly SlotAssertion[]) {
    for (const a of assertions) {
      this.entities.add(entityKey(a.entity, a.id));
      this.slotValues.set(slotKey(a.entity, a.id, a.slot), a.value);
    }
  }

  hasEntity(entity: string, id: string): boolean {
    return this.entities.has(entityKey(entity, id)) || this.base.hasEntity(entity, id);
  }

  slot(entity: string, id: string, slot: string): unknown {
    const k = slotKey(entity, id, slot);
    return this.slotValues.has(k) ? this.slotValues.get(k) : this.base.slot(entity, id, slot);
  }
}
