// A check reads each Layer B slot once: the verifier reads a candidate's slot once per verdict however
// many operands name it. The shape check skips its marker search only for the clean copy it knows,
// never for a copy holding a `$nonjson` key.
import { describe, expect, it } from "vitest";
import type { StateView } from "../../src/core/types.js";
import { checkCallShape, frozenJsonSafe } from "../../src/guard/call.js";
import { compile } from "../../src/compiler/index.js";
import { createVerifier } from "../../src/core/verifier.js";
import { createGuard } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { ownCanonicalReads, RecordingView } from "../../src/guard/reads.js";
import { createReferenceBackend } from "../../src/reference/index.js";

// order.status is named by a value operand and a presence operand of the same tool.
const compiled = compile(`
slot_definition(order, status, string).
tool(edit_order, acts_on = order, key = order_id).
bounded_reversibility(edit_order, order.status == "open", none, 0.99, id = "edit", when = present(order.status), args = { order_id: call.order_id }).
`, { name: "read-once.polar" });
if (!compiled.ok) throw new Error(compiled.diagnostics.map((d) => d.message).join("; "));
const verifier = createVerifier(compiled.tables, createReferenceBackend(compiled.tables));
const state = () => {
  const s = new LayerB();
  s.replaceEntity("order", "O1", { status: "open" });
  return s;
};

function counting(base: StateView) {
  const calls: string[] = [];
  const view: StateView = {
    hasEntity: (e, id) => (calls.push(`? ${e} ${id}`), base.hasEntity(e, id)),
    slot: (e, id, s) => (calls.push(`${e} ${id} ${s}`), base.slot(e, id, s)),
  };
  return { view, calls };
}

describe("each value read once", () => {
  it("the verifier reads a slot that several operands name once per verdict", () => {
    const { view, calls } = counting(state());
    const v = verifier.verdict([{ name: "edit_order", arguments: { order_id: "O1" } }], view);
    expect(v.reason).toBe("ok");
    const slotReads = calls.filter((c) => !c.startsWith("?"));
    expect(new Set(slotReads).size).toBe(slotReads.length);
    expect(compiled.tables.tools[0].operands.filter((o) => o.slot === 0).length).toBe(2);
    // Two operands name order.status; it was asked once.
    expect(slotReads.filter((c) => c === "order O1 status")).toHaveLength(1);
    // The next verdict reads again (nothing is kept across verdicts).
    verifier.verdict([{ name: "edit_order", arguments: { order_id: "O1" } }], view);
    expect(calls.filter((c) => c === "order O1 status")).toHaveLength(2);
  });

  it("a guard's check asks the state once whether the entity exists (its grounding check and the search share the answer)", () => {
    const { view, calls } = counting(state());
    const guard = createGuard({ ontology: { tables: compiled.tables, hash: "read-once" }, state: view, backend: createReferenceBackend(compiled.tables) });
    const d = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    expect(d.approved).toBe(true);
    expect(calls.filter((c) => c.startsWith("?"))).toEqual(["? order O1"]);
    expect(d.reads).toEqual([["order", "O1", null, true], ["order", "O1", "status", "open"]]);
    // An entity that is not there: asked once too, and refused.
    const missing = guard.check({ name: "edit_order", arguments: { order_id: "O2" } });
    expect(missing.reason).toBe("missing_entity");
    expect(calls.filter((c) => c === "? order O2")).toHaveLength(1);
  });

  it("a view with `slots` is asked for a candidate's slots once per verdict, in name order, and answers as `slot` does", () => {
    const two = compile(`
slot_definition(order, status, string).
slot_definition(order, note, string).
tool(edit_order, acts_on = order, key = order_id).
bounded_reversibility(edit_order, order.status == "open", none, 0.99, id = "edit", when = present(order.note), args = { order_id: call.order_id, status: order.status }).
`, { name: "read-once-slots.polar" });
    if (!two.ok) throw new Error(two.diagnostics.map((d) => d.message).join("; "));
    const v2 = createVerifier(two.tables, createReferenceBackend(two.tables));
    const base = new LayerB();
    base.replaceEntity("order", "O1", { status: "open", note: "n" });
    const asked: string[] = [];
    const view: StateView = {
      hasEntity: (e, id) => base.hasEntity(e, id),
      slot: (e, id, s) => (asked.push(`slot ${s}`), base.slot(e, id, s)),
      slots: (e, id, names, out) => (asked.push(`slots ${names.join(",")}`), base.slots(e, id, names, out)),
    };
    const v = v2.verdict([{ name: "edit_order", arguments: { order_id: "O1" } }], view);
    expect(v.reason).toBe("ok");
    // The inverse's `pre.status` comes from the same read.
    expect(v.steps[0].arguments).toEqual({ order_id: "O1", status: "open" });
    expect(asked).toEqual(["slots note,status"]);
    const out: unknown[] = [];
    base.slots("order", "O1", ["status", "missing", "note"], out);
    expect(out).toEqual(["open", undefined, "n"]);
    base.slots("order", "O9", ["status"], out);
    expect(out[0]).toBeUndefined();
  });

  it("a recording view records each slot of a `slots` read, never an entry the base left unwritten", () => {
    const lazy: StateView = { hasEntity: () => true, slot: (_e, _id, s) => (s === "a" ? 1 : undefined), slots: (_e, _id, _names, out) => void (out[0] = 1) };
    const rec = new RecordingView(lazy);
    const out: unknown[] = ["stale", "stale"];
    rec.slots("t", "x", ["a", "b"], out);
    expect(out).toEqual([1, undefined]);
    const plain = new RecordingView({ hasEntity: () => true, slot: (_e, _id, s) => (s === "a" ? { k: 1 } : undefined) });
    plain.slots("t", "x", ["a", "b"], out);
    expect(out).toEqual([{ k: 1 }, undefined]);
    expect(Object.isFrozen(out[0])).toBe(true);
    expect(plain.reads()).toEqual([["t", "x", "a", { k: 1 }], ["t", "x", "b"]]);
  });

  it("a view whose `slots` is not a method (a field of that name) is read slot by slot", () => {
    const base = state();
    const view = { slots: new Map<string, unknown>(), hasEntity: (e: string, id: string) => base.hasEntity(e, id), slot: (e: string, id: string, s: string) => base.slot(e, id, s) };
    const v = verifier.verdict([{ name: "edit_order", arguments: { order_id: "O1" } }], view as unknown as StateView);
    expect(v.reason).toBe("ok");
    const rec = new RecordingView(view as unknown as StateView);
    const out: unknown[] = [];
    rec.slots("order", "O1", ["status"], out);
    expect(out).toEqual(["open"]);
  });

  it("checks of an unchanged entity share Layer B's frozen read tuples; a changed slot is read anew", () => {
    const base = state();
    const guard = createGuard({ ontology: { tables: compiled.tables, hash: "read-once" }, state: base, backend: createReferenceBackend(compiled.tables) });
    const d1 = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    const d2 = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    expect(d2.reads).toEqual([["order", "O1", null, true], ["order", "O1", "status", "open"]]);
    expect(d2.reads[0]).toBe(d1.reads[0]);
    expect(d2.reads[1]).toBe(d1.reads[1]);
    // Shared or fresh, every read of a decision is frozen, and so is the list.
    expect(Object.isFrozen(d2.reads) && d2.reads.every((r) => Object.isFrozen(r))).toBe(true);
    const gone = guard.check({ name: "edit_order", arguments: { order_id: "O9" } });
    expect(gone.reads).toEqual([["order", "O9", null, false]]);
    expect(Object.isFrozen(gone.reads) && gone.reads.every((r) => Object.isFrozen(r))).toBe(true);
    base.set("order", "O1", "status", "closed");
    const d3 = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    expect(d3.reads[1]).toEqual(["order", "O1", "status", "closed"]);
    expect(d3.reason).toBe("bound_violated");
    expect(d1.reads[1]).toEqual(["order", "O1", "status", "open"]);
  });

  it("a LayerB subclass that answers slots its own way is recorded as it answers", () => {
    class Shifted extends LayerB {
      override slot(entity: string, id: string, slot: string): unknown {
        return slot === "status" ? "closed" : super.slot(entity, id, slot);
      }
    }
    const b = new Shifted();
    b.replaceEntity("order", "O1", { status: "open" });
    const guard = createGuard({ ontology: { tables: compiled.tables, hash: "read-once" }, state: b, backend: createReferenceBackend(compiled.tables) });
    const d = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    expect(d.reads).toEqual([["order", "O1", null, true], ["order", "O1", "status", "closed"]]);
  });

  it("a LayerB subclass with its own hasEntity is asked whether an entity exists (here it hides one: refused)", () => {
    class Hiding extends LayerB {
      override hasEntity(entity: string, id: string): boolean {
        return id !== "O1" && super.hasEntity(entity, id);
      }
    }
    const b = new Hiding();
    b.replaceEntity("order", "O1", { status: "open" });
    const guard = createGuard({ ontology: { tables: compiled.tables, hash: "read-once" }, state: b, backend: createReferenceBackend(compiled.tables) });
    const d = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    expect(d.approved).toBe(false);
    expect(d.reason).toBe("missing_entity");
    expect(d.reads).toEqual([["order", "O1", null, false]]);
  });

  it("a LayerB subclass with its own slots (an instrumented one) is asked for the check's slots through it", () => {
    class Counting extends LayerB {
      asked: string[] = [];
      override slots(entity: string, id: string, names: readonly string[], out: unknown[]): void {
        this.asked.push(`${entity} ${id} ${names.join(",")}`);
        super.slots(entity, id, names, out);
      }
    }
    const b = new Counting();
    b.replaceEntity("order", "O1", { status: "open" });
    const guard = createGuard({ ontology: { tables: compiled.tables, hash: "read-once" }, state: b, backend: createReferenceBackend(compiled.tables) });
    const d = guard.check({ name: "edit_order", arguments: { order_id: "O1" } });
    expect(d.approved).toBe(true);
    expect(d.reads).toEqual([["order", "O1", null, true], ["order", "O1", "status", "open"]]);
    expect(b.asked).toEqual(["order O1 status"]);
  });

  it("a recording view reads a view that has `slots` through it, never slot by slot", () => {
    const asked: string[] = [];
    const view: StateView = {
      hasEntity: () => true,
      slot: (_e, _id, s) => (asked.push(`slot ${s}`), s === "a" ? 1 : undefined),
      slots: (_e, _id, names, out) => {
        asked.push(`slots ${names.join(",")}`);
        for (let i = 0; i < names.length; i++) out[i] = names[i] === "a" ? 1 : undefined;
      },
    };
    const rec = new RecordingView(view);
    const out: unknown[] = [];
    rec.slots("t", "x", ["a", "b"], out);
    expect(out).toEqual([1, undefined]);
    expect(asked).toEqual(["slots a,b"]);
    expect(rec.reads()).toEqual([["t", "x", "a", 1], ["t", "x", "b"]]);
  });

  it("over Layer B, a slot read one by one is a fresh read, frozen with the shared ones when the list is kept", () => {
    const rec = new RecordingView(state());
    expect(rec.hasEntity("order", "O1")).toBe(true);
    expect(rec.slot("order", "O1", "status")).toBe("open");
    const reads = ownCanonicalReads(rec.reads(), rec.canonical, rec.sharedOnly)!;
    expect(reads).toEqual([["order", "O1", null, true], ["order", "O1", "status", "open"]]);
    expect(Object.isFrozen(reads) && reads.every((r) => Object.isFrozen(r))).toBe(true);
  });

  it("the shape check still finds a `$nonjson` key copied from the caller, after a clean copy", () => {
    const clean = frozenJsonSafe({ name: "t", arguments: { a: 1 } });
    expect(checkCallShape(clean).ok).toBe(true);
    const dirty = frozenJsonSafe({ name: "t", arguments: { a: { $nonjson: "x" } } });
    expect(checkCallShape(dirty)).toEqual({ ok: false, problem: "the call (`t`): `arguments.a` is not JSON (x)" });
    const marked = frozenJsonSafe({ name: "t", arguments: { a: [1, undefined] } });
    expect(checkCallShape(marked).ok).toBe(false);
    expect(checkCallShape(clean).ok).toBe(true);
  });
});
