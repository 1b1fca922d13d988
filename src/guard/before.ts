// `before` snapshots: the acts_on entity's declared slots as they were when a call was checked, which a
// later inverse's `entity.slot` arguments read (docs/semantics.md, "Operands of earlier calls"). Each
// value is the guard's own (Layer B's frozen copy, or a copy made on read): the caller's objects are
// never held, so a tool changing them in place changes no `before`.
import type { StateView, ToolCall } from "../core/types.js";
import { entityKey } from "../core/verifier.js";
import type { OntologyTables } from "../ontology/tables.js";
import { LayerB } from "../projection/layer-b.js";
import { NOT_JSON, ownedJson } from "../util/owned-json.js";
import { define, frozenJsonSafe } from "./call.js";
import type { Before } from "./lifecycle.js";

/** A tool that acts on an entity: the entity, its declared slots (table order) and how a call names it. */
interface Target {
  entity: string;
  slots: readonly string[];
  key: { keyArg: string | null; keyConst: string | null };
}

export class BeforeReader {
  /** The tools that act on an entity, by name. A read-only tool acts on none (the compiler gives only
   * `tool(...)` an `acts_on`), nor does an unknown one: their calls have no snapshot. */
  private readonly targets = new Map<string, Target>();

  constructor(
    tables: OntologyTables,
    private readonly state: StateView,
  ) {
    const slots: string[][] = tables.entities.map(() => []);
    for (const s of tables.slots) slots[s.entity].push(s.name);
    for (const t of tables.tools) {
      if (t.actsOn < 0) continue;
      this.targets.set(t.name, { entity: tables.entities[t.actsOn].name, slots: slots[t.actsOn], key: t });
    }
  }

  /** The acts_on entity's declared slots as they are now, frozen (undefined: the call is read-only,
   * unknown, acts on no entity or names none). */
  now(call: ToolCall): Record<string, unknown> | undefined {
    const b = this.keep(call);
    return typeof b === "function" ? b() : b;
  }

  /** now(call), or with a LayerB a function that makes it later from the entity's record, which Layer
   * B keeps unchanged for it (keptRecord): an approved check then costs one lookup, not a copy of every
   * slot (most executions are released or observed by id before anything reads it). */
  keep(call: ToolCall): Before {
    const t = this.targets.get(call.name);
    if (t === undefined) return undefined;
    const id = entityKey(t.key, call.arguments);
    if (id === null) return undefined;
    const state = this.state;
    if (state instanceof LayerB) {
      const rec = state.keptRecord(t.entity, id);
      return () => beforeOf(t.slots, rec);
    }
    const before: Record<string, unknown> = {};
    for (const slot of t.slots) {
      const v = state.slot(t.entity, id, slot);
      if (v !== undefined) define(before, slot, ownValue(v));
    }
    return Object.freeze(before);
  }
}

/** The declared `slots` of a Layer B record (none when it is undefined), frozen. */
function beforeOf(slots: readonly string[], rec: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const before: Record<string, unknown> = {};
  if (rec !== undefined) {
    for (const slot of slots) {
      const v = rec[slot];
      if (v !== undefined) define(before, slot, ownValue(v));
    }
  }
  return Object.freeze(before);
}

/** A StateView's value as the guard keeps it (a `before` snapshot): Layer B's own frozen copy and a JSON
 * scalar as they are, any other JSON value copied whole (frozen); what is not JSON becomes a frozen
 * JSON-safe copy with markers (never the caller's object). */
function ownValue(v: unknown): unknown {
  const c = ownedJson(v, false);
  return c === NOT_JSON ? frozenJsonSafe(v) : c;
}
