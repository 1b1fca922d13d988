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
import type { Engine } from "./engine.js";
import type { Before } from "./lifecycle.js";

export class BeforeReader {
  /** Each entity's declared slot names, in table order. */
  private readonly slotsByEntity = new Map<string, string[]>();

  constructor(
    tables: OntologyTables,
    private readonly state: StateView,
    private readonly engine: Engine,
  ) {
    for (const s of tables.slots) {
      const e = tables.entities[s.entity].name;
      const list = this.slotsByEntity.get(e) ?? [];
      list.push(s.name);
      this.slotsByEntity.set(e, list);
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
    const info = this.engine.verifier.tool(call.name);
    if (!info.known || info.readOnly || info.actsOn === null) return undefined;
    const id = entityKey(info, call.arguments);
    if (id === null) return undefined;
    const slots = this.slotsByEntity.get(info.actsOn);
    if (slots === undefined) return Object.freeze({});
    const state = this.state;
    if (state instanceof LayerB) {
      const rec = state.keptRecord(info.actsOn, id);
      return () => beforeOf(slots, rec);
    }
    const before: Record<string, unknown> = {};
    for (let i = 0; i < slots.length; i++) {
      const v = state.slot(info.actsOn, id, slots[i]);
      if (v !== undefined) define(before, slots[i], ownValue(v));
    }
    return Object.freeze(before);
  }
}

/** The declared `slots` of a Layer B record (none when it is undefined), frozen. */
function beforeOf(slots: readonly string[], rec: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const before: Record<string, unknown> = {};
  if (rec !== undefined) {
    for (let i = 0; i < slots.length; i++) {
      const v = rec[slots[i]];
      if (v !== undefined) define(before, slots[i], ownValue(v));
    }
  }
  return Object.freeze(before);
}

/** A StateView's value as the guard keeps it (a `before` snapshot): Layer B's own frozen copy as it
 * is, any other object copied (frozen); what is not JSON becomes a frozen JSON-safe copy with markers
 * (never the caller's object). */
function ownValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  const c = ownedJson(v, false);
  return c === NOT_JSON ? frozenJsonSafe(v) : c;
}
