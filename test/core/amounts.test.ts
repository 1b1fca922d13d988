// Issue 22 §2: an edge's `amount = <expr>` is evaluated by both backends (the WebAssembly core and the
// reference) with the same fixed-point rules, per step and in total, into the same verdict bytes; the
// host reports it per step, in total and on the bottleneck; `maxAmount` refuses an admitted π that
// states more (docs/semantics.md, "Amounts").
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createVerifier } from "../../src/core/verifier.js";
import { instantiateCoreSync } from "../../src/core/wasm.js";
import { createGuard } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { ROOT } from "../ontologies/helpers.js";

const SOURCE = `
slot_definition(account, balance, number).
slot_definition(account, fees, object).
loss_class_definition(fee, weight = 0.05).
tool(charge, acts_on = account, key = id, params = [id, amount, method]).
tool(refund, acts_on = account, key = id, params = [id, amount]).
compensates(refund, charge, account.balance, fee, 0.9,
    id = "charge.refund",
    args = { id: call.id, amount: call.amount },
    amount = coalesce(lookup(account.fees, call.method), 0) * call.amount + max(0, 0 - call.amount) - min(call.amount, 0) * 0).
tool(pay, acts_on = account, key = id, params = [id, items]).
bounded_reversibility(pay, true, fee, 0.99,
    id = "pay.self",
    args = { id: call.id, items: call.items },
    amount = call.items.0.price + coalesce(call.items.1.price, 0) - account.balance * 0.5).
`;

function setup() {
  const r = compile(SOURCE, { name: "amounts.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  const wasm = instantiateCoreSync(readFileSync(join(ROOT, "build", "polar-core.wasm")));
  const reference = createVerifier(r.tables, createReferenceBackend(r.tables));
  const core = createVerifier(r.tables, wasm.load(r.blob));
  const state = new LayerB();
  state.set("account", "a", "balance", 7.5);
  state.set("account", "a", "fees", { card: 0.03, wire: null, cheap: -0.25 });
  return { reference, core, state, tables: r.tables };
}

const both = (s: ReturnType<typeof setup>, calls: { name: string; arguments: Record<string, unknown>; before?: Record<string, unknown> }[]) => {
  const a = s.reference.verdict(calls, s.state);
  const b = s.core.verdict(calls, s.state);
  expect(Buffer.from(b.bytes).toString("hex")).toBe(Buffer.from(a.bytes).toString("hex"));
  expect(b).toEqual(a);
  return a;
};

describe("amount programs, both backends", () => {
  const s = setup();

  it("fixed-point product, lookup and coalesce: 3% of 100.10 is 3.003", () => {
    const v = both(s, [{ name: "charge", arguments: { id: "a", amount: 100.1, method: "card" } }]);
    expect(v.reason).toBe("ok");
    expect(v.steps[0].amount).toBe(3_003_000);
    expect([v.amount, v.bottleneck.amount]).toEqual([3_003_000, 3_003_000]);
  });

  it("a product that is negative floors towards −∞ in both backends", () => {
    // -0.25 × 0.000003 = -0.00000075 → floor → -0.000001 (fixed -1), then max(0, -0.000003) = 0.
    const v = both(s, [{ name: "charge", arguments: { id: "a", amount: 0.000003, method: "cheap" } }]);
    expect(v.steps[0].amount).toBe(-1);
  });

  it("a null entry coalesces to 0; a key the slot lacks too; max/min of negatives", () => {
    expect(both(s, [{ name: "charge", arguments: { id: "a", amount: -4, method: "wire" } }]).steps[0].amount).toBe(4_000_000);
    expect(both(s, [{ name: "charge", arguments: { id: "a", amount: 5, method: "nope" } }]).steps[0].amount).toBe(0);
  });

  it("an amount with no value (a missing argument) is unknown: null per step and in total", () => {
    const v = both(s, [{ name: "charge", arguments: { id: "a", amount: "x", method: "card" } }]);
    expect([v.steps[0].amount, v.amount]).toEqual([null, null]);
  });

  it("list indexes in argument paths, a slot, and the sum over steps", () => {
    const pay = { name: "pay", arguments: { id: "a", items: [{ price: 10 }, { price: 2.5 }] } };
    const one = both(s, [pay]);
    expect(one.steps[0].amount).toBe(8_750_000); // 10 + 2.5 - 7.5 × 0.5
    // An earlier call reads its slots from its `before` snapshot: without one the amount is unknown.
    const later = { name: "charge", arguments: { id: "a", amount: 100.1, method: "card" } };
    const blind = both(s, [pay, later]);
    expect([blind.steps.map((x) => x.amount), blind.amount]).toEqual([[3_003_000, null], null]);
    const two = both(s, [{ ...pay, before: { balance: 7.5 } }, later]);
    expect(two.steps.map((x) => x.amount)).toEqual([3_003_000, 8_750_000]);
    expect(two.amount).toBe(11_753_000);
  });

  it("a step without an amount program states none (no field), a verdict without any none", () => {
    const r = compile("slot_definition(e, x, number).\ntool(t, acts_on = e, key = id, params = [id]).\nbounded_reversibility(t, true, none, 0.99, args = { id: call.id }).\n", { name: "none.polar" });
    if (!r.ok) throw new Error("compile");
    const state = new LayerB();
    state.set("e", "1", "x", 1);
    const v = createVerifier(r.tables, createReferenceBackend(r.tables)).verdict([{ name: "t", arguments: { id: "1" } }], state);
    expect("amount" in v.steps[0]).toBe(false);
    expect("amount" in v).toBe(false);
  });

  it("maxAmount: an admitted π stating more is refused (amount_exceeded), within it approved, unknown refused", () => {
    const ontology = compile(SOURCE, { name: "amounts.polar" });
    if (!ontology.ok) throw new Error("compile");
    const call = { name: "charge", arguments: { id: "a", amount: 100.1, method: "card" } };
    const strict = createGuard({ ontology: ontology.blob, state: s.state, config: { maxAmount: 3 } } as never);
    const d = strict.check(call);
    expect([d.admissible, d.reason]).toEqual([false, "amount_exceeded"]);
    const loose = createGuard({ ontology: ontology.blob, state: s.state, config: { maxAmount: 3.01 } } as never);
    expect(loose.check(call).admissible).toBe(true);
    expect(strict.check({ name: "charge", arguments: { id: "a", amount: "x", method: "card" } }).reason).toBe("amount_exceeded");
    expect(() => createGuard({ ontology: ontology.blob, state: s.state, config: { maxAmount: -1 } } as never)).toThrow(/maxAmount/);
  });
});
