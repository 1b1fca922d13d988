// Grounding in the gate: a tool acts on the entity its key argument names, or on the one entity its
// constant key names, or on none; a call on an entity missing from Layer B fails closed
// (missing_entity) either way. And unknown marks: a decision is hit by a mark on an entity it reads
// or that an earlier call of its forward sequence acts on.
import { describe, expect, it } from "vitest";
import { escalatePolicy } from "../../src/policies/escalate.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { editO1, run, state } from "./evaluate-fixture.js";

const toggle = { name: "toggle_data", arguments: {} };
const page = { name: "page_staff", arguments: { text: "help" } };
const mark = (entity: string, id: string | null) => ({ entity, id, tool: "edit_order", execution: "x1" });

describe("the entity a call acts on", () => {
  it("a tool acting on no entity is judged by its verdict alone", () => {
    const e = run({ call: page });
    expect(e).toMatchObject({ route: "Vetoed", reason: "external_side_effect", detail: null, reads: [] });
  });

  it("a constant-key tool acts on the entity its key names", () => {
    const e = run({ call: toggle });
    expect(e).toMatchObject({ route: "Approved", reason: "ok" });
    expect(e.reads).toEqual([["device", "phone", null, true], ["device", "phone", "data", true]]);
  });

  it("a constant-key tool whose entity is not in Layer B is missing_entity, which no consent approves", () => {
    const e = run({ call: toggle, state: new LayerB() });
    expect(e).toMatchObject({ route: "Vetoed", admissible: false, reason: "missing_entity", detail: "`device` `phone` is not in Layer B", verdict: null });
    const asked = run({ call: toggle, state: new LayerB(), policy: escalatePolicy, userMessages: ["yes, go ahead"] });
    expect(asked).toMatchObject({ route: "Vetoed", reason: "missing_entity" });
  });

  it("a key-argument tool whose entity is missing, or whose key is absent, fails closed", () => {
    expect(run({ call: { ...editO1, arguments: { order_id: "O9" } } })).toMatchObject({ route: "Vetoed", reason: "missing_entity", detail: "`order` `O9` is not in Layer B" });
    expect(run({ call: { ...editO1, arguments: { note: "b" } } })).toMatchObject({ route: "Vetoed", reason: "malformed_call", detail: "`edit_order`: argument `order_id` naming the `order` is missing or not a string" });
  });
});

describe("unknown marks and the forward sequence", () => {
  // An edit of O2 before the candidate, with its before snapshot: the search reads O2's slots from the
  // snapshot, not from Layer B, so only the forward call ties the decision to O2.
  const o2 = { name: "edit_order", arguments: { order_id: "O2", note: "z" }, before: { status: "open", note: "y" } };
  const withO2 = () => {
    const s = state();
    s.replaceEntity("order", "O2", { status: "open", note: "y" });
    return s;
  };

  it("a mark on an entity an earlier call acts on is hit, though the decision reads none of it", () => {
    const e = run({ forward: [o2], state: withO2(), unknown: [mark("order", "O2")] });
    expect(e.reads.some((r) => r[1] === "O2")).toBe(false);
    expect(e).toMatchObject({ route: "Vetoed", reason: "unknown_state", unknown: [mark("order", "O2")] });
    expect(e.detail).toBe("`order` `O2` is unknown: the result of `edit_order` (x1) could not be projected; re-read the state");
  });

  it("an earlier constant-key call ties its constant entity; a call on no entity ties none", () => {
    expect(run({ forward: [toggle], unknown: [mark("device", "phone")] })).toMatchObject({ reason: "unknown_state" });
    expect(run({ forward: [page], unknown: [mark("device", "phone")] })).toMatchObject({ reason: "external_side_effect", unknown: null });
  });

  it("an earlier call naming its entity by a number ties it by its text", () => {
    const s = withO2();
    s.replaceEntity("order", "7", { status: "open", note: "n" });
    const e = run({ forward: [{ name: "edit_order", arguments: { order_id: 7 } }], state: s, unknown: [mark("order", "7")] });
    expect(e).toMatchObject({ reason: "unknown_state", unknown: [mark("order", "7")] });
  });

  it("earlier calls of unknown tools, or without a usable key, tie nothing", () => {
    // (A mark on an id spelled "null" or "true" is not hit by a call whose key is missing or a boolean.)
    const unknown = [mark("order", "O2"), mark("order", "true"), mark("order", "null")];
    expect(run({ forward: [{ name: "shred", arguments: { order_id: "O2" } }], state: withO2(), unknown })).toMatchObject({ unknown: null });
    expect(run({ forward: [{ name: "edit_order", arguments: { order_id: true } }], state: withO2(), unknown })).toMatchObject({ unknown: null });
  });

  it("malformed forward entries are refused as malformed, and the marks do not throw on them", () => {
    for (const bad of [null, 3, { name: 7, arguments: {} }, { name: "edit_order", arguments: null }, { name: "edit_order", arguments: "O2" }]) {
      const e = run({ forward: [bad], unknown: [mark("order", "O2")] });
      expect(e).toMatchObject({ route: "Vetoed", reason: "malformed_call" });
    }
  });
});
