// `when = <condition>` on any annotation and `key = "<id>"` (a constant entity key): what the compiler
// emits for them, and what a verdict makes of a constant key (grounding, slot reads, inverse arguments).
import { describe, expect, it } from "vitest";
import { Op, OperandKind, Tier } from "../../src/abi.js";
import { compile } from "../../src/compiler/index.js";
import { createVerifier, JsonState } from "../../src/core/verifier.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { loadCore } from "../differential/backends.js";

const SOURCE = `
slot_definition(device, data, bool).
slot_definition(device, mode, string).
slot_definition(order, method, string).
loss_class_definition(voucher, weight = 0.5).
sink_definition(email).
tool(toggle_data, acts_on = device, key = "phone").
tool(set_mode, acts_on = device, key = "phone").
tool(pay, acts_on = order, key = order_id).
tool(refund, acts_on = order, key = order_id).
inverse_of(toggle_data, toggle_data, device.data, 1.0, when = device.data == true or device.data == false).
bounded_reversibility(set_mode, device.mode != "locked", none, 0.99, when = present(device.mode),
    args = { mode: device.mode }).
irreversibly_consumes(pay, order.method, voucher, 1.0, when = call.method == "certificate").
compensates(refund, pay, order.method, voucher, 0.9, when = present(call.method), args = { order_id: call.order_id }).
external_side_effect(pay, email, 1.0, when = call.notify == true).
`;

function compiled() {
  const r = compile(SOURCE, { name: "conditions.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; "));
  return r;
}

describe("when = condition", () => {
  it("gives every tier a condition program, and conjoins a T2 bound with its when", () => {
    const { tables } = compiled();
    const byTier = new Map(tables.edges.map((e) => [e.tier, e]));
    for (const tier of [Tier.T1, Tier.T2, Tier.T3, Tier.T4, Tier.T5]) expect(byTier.get(tier)!.program, Tier[tier]).toBeGreaterThanOrEqual(0);
    const t2 = tables.programs[byTier.get(Tier.T2)!.program];
    expect(t2.code.at(-1)! & 0xff).toBe(Op.And); // bound, when, And
    const setMode = tables.tools.find((t) => t.name === "set_mode")!;
    expect(setMode.operands.map((o) => o.kind)).toEqual([OperandKind.SlotValue, OperandKind.SlotPresent]);
    const pay = tables.tools.find((t) => t.name === "pay")!;
    expect(pay.operands.map((o) => [o.kind, o.path])).toEqual([[OperandKind.ArgValue, "method"], [OperandKind.ArgPresent, "method"], [OperandKind.ArgValue, "notify"]]);
  });

  it("compiles `when = true` to no program", () => {
    const r = compile(`slot_definition(a, s, string).\ntool(t, acts_on = a).\ninverse_of(t, t, a.s, 1, when = true).\n`);
    expect(r.ok && r.tables.edges[0].program).toBe(-1);
  });
});

describe("key = \"id\": a constant entity key", () => {
  it("is carried in the tables and the blob instead of a key argument", () => {
    const { tables } = compiled();
    const t = tables.tools.find((x) => x.name === "toggle_data")!;
    expect(t.keyArg).toBeNull();
    expect(t.keyConst).toBe("phone");
  });

  const core = loadCore();
  it.each([
    ["reference", () => createReferenceBackend(compiled().tables)],
    ["wasm", () => core.load(compiled().blob)],
  ] as const)("grounds the call, reads its slots and builds inverse arguments from the constant entity (%s)", (_name, backend) => {
    const v = createVerifier(compiled().tables, backend());
    const state = new JsonState({ entities: { device: { phone: { data: true, mode: "4g_only" } } } });
    const toggle = v.verdict([{ name: "toggle_data", arguments: {} }], state);
    expect(toggle).toMatchObject({ reason: "ok", phi: 1_000_000 });
    const mode = v.verdict([{ name: "set_mode", arguments: { mode: "3g_only" } }], state);
    expect(mode.reason).toBe("ok");
    expect(mode.steps[0].arguments).toEqual({ mode: "4g_only" });
    // No device `phone` in Layer B: ungrounded, so nothing is admissible.
    const none = v.verdict([{ name: "toggle_data", arguments: {} }], new JsonState({ entities: {} }));
    expect(none.reason).toBe("no_candidate");
    expect(v.tool("toggle_data")).toMatchObject({ actsOn: "device", keyArg: null, keyConst: "phone" });
  });
});

describe("declared parameters", () => {
  it("are returned on the model and make required argument sources presence checks", () => {
    const r = compile(`
slot_definition(reservation, payment, list).
slot_definition(user, name, string).
loss_class_definition(fee, 0.1).
tool(book, acts_on = user, key = user_id, creates = reservation, params = [user_id, payment], optional_params = [note]).
tool(cancel, acts_on = reservation, key = reservation_id, params = [reservation_id]).
compensates(book, cancel, reservation.payment, fee, 0.9, identity = new,
    args = { user_id: call.user_id, payment: reservation.payment, note: call.note }).
`);
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
    expect(r.model.tools.find((t) => t.name === "book")!.params).toEqual([
      { name: "user_id", required: true }, { name: "payment", required: true }, { name: "note", required: false },
    ]);
    const cancel = r.tables.tools.find((t) => t.name === "cancel")!;
    // Only the two required sources are checked, and the optional `note` is not.
    expect(cancel.operands.map((o) => [o.kind, o.path])).toEqual([[OperandKind.ArgPresent, "user_id"], [OperandKind.SlotPresent, null]]);
    expect(r.tables.edges[0].program).toBeGreaterThanOrEqual(0);
    expect(r.model.tools.find((t) => t.name === "cancel")!.params).toEqual([{ name: "reservation_id", required: true }]);
  });
});

describe("a required inverse argument without a value", () => {
  const source = `
slot_definition(reservation, user_id, string).
slot_definition(reservation, payment, list).
slot_definition(user, name, string).
loss_class_definition(fee, 0.1).
tool(book, acts_on = user, key = user_id, creates = reservation, params = [user_id, payment_methods]).
tool(cancel, acts_on = reservation, key = reservation_id).
compensates(book, cancel, reservation.payment, fee, 0.9, identity = new, id = "rebook",
    args = { user_id: reservation.user_id, payment_methods: reservation.payment }).
`;
  const core = loadCore();
  it.each([
    ["reference", (r: { tables: import("../../src/ontology/tables.js").OntologyTables }) => createReferenceBackend(r.tables)],
    ["wasm", (r: { blob: Uint8Array }) => core.load(r.blob)],
  ] as const)("is bound_violated and the bottleneck names the missing arguments (%s)", (_name, backend) => {
    const r = compile(source);
    if (!r.ok) throw new Error("does not compile");
    const v = createVerifier(r.tables, backend(r));
    const cancel = { name: "cancel", arguments: { reservation_id: "R1" } };
    const without = v.verdict([cancel], new JsonState({ entities: { reservation: { R1: { user_id: "U1" } } } }));
    expect(without.reason).toBe("bound_violated");
    expect(without.bottleneck).toMatchObject({ annotation: "rebook", missingArguments: ["payment_methods"] });
    const withNull = v.verdict([cancel], new JsonState({ entities: { reservation: { R1: { user_id: null, payment: null } } } }));
    expect(withNull.bottleneck.missingArguments).toEqual(["user_id", "payment_methods"]);
    const complete = v.verdict([cancel], new JsonState({ entities: { reservation: { R1: { user_id: "U1", payment: [] } } } }));
    expect(complete.reason).toBe("ok");
    expect(complete.bottleneck.missingArguments).toBeUndefined();
  });
});
