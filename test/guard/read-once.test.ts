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
