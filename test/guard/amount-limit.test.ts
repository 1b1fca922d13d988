// A guard's `maxAmount` (docs/semantics.md, "Amounts", score rule): an admitted π is refused with
// `amount_exceeded` when a step states an amount it cannot evaluate, or when the absolute value of a
// step's amount or of the total exceeds maxAmount, the detail naming the step (or the total) and the
// amount; within it, and without maxAmount, the amounts are reported and decide nothing.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createGuard, type GuardOptions } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { referenceFactory, wasmFactory } from "./helpers.js";

const SOURCE = `
slot_definition(account, balance, number).
slot_definition(account, fees, object).
loss_class_definition(fee, weight = 0.05).
tool(charge, acts_on = account, key = id, params = [id, amount, method]).
tool(refund, acts_on = account, key = id, params = [id, amount]).
compensates(refund, charge, account.balance, fee, 0.9,
    id = "charge.refund",
    args = { id: call.id, amount: call.amount },
    amount = coalesce(lookup(account.fees, call.method), 0) * call.amount).
`;

const compiled = compile(SOURCE, { name: "amount-limit.polar" });
if (!compiled.ok) throw new Error(compiled.diagnostics.map((d) => d.message).join("; "));
const blob = compiled.blob;

function state(): LayerB {
  const s = new LayerB();
  s.set("account", "a", "balance", 7.5);
  s.set("account", "a", "fees", { card: 0.03, cheap: -0.25 });
  return s;
}

const charge = (amount: unknown, method = "card") => ({ name: "charge", arguments: { id: "a", amount, method } });

function guard(config: Record<string, unknown>, over: Partial<GuardOptions> = {}) {
  return createGuard({ ontology: blob, backend: referenceFactory, state: state(), policy: "veto", config: config as GuardOptions["config"], ...over });
}

for (const [label, factory] of [["reference", referenceFactory], ["wasm", wasmFactory]] as const) {
  describe(`maxAmount (${label})`, () => {
    it("a step stating more than maxAmount is refused, the detail naming the step and the amount", () => {
      const d = guard({ maxAmount: 3 }, { backend: factory }).check(charge(100.1));
      expect(d).toMatchObject({ approved: false, admissible: false, reason: "amount_exceeded" });
      expect(d.detail).toBe("the step undoing `charge` (charge.refund) leaves 3.00 different, above maxAmount 3");
      // The verdict is still the search's: admitted, with its amounts reported.
      expect(d.verdict!.amount).toBe(3_003_000);
      expect(d.verdict!.steps[0].amount).toBe(3_003_000);
    });

    it("an amount equal to maxAmount, or below it, is approved, with the amount reported", () => {
      for (const max of [3.003, 3.01, 1e6]) {
        const d = guard({ maxAmount: max }, { backend: factory }).check(charge(100.1));
        expect(d, `maxAmount ${max}`).toMatchObject({ approved: true, admissible: true, reason: "ok", detail: null });
        expect(d.verdict!.amount).toBe(3_003_000);
      }
    });

    it("the absolute value counts: a negative amount above maxAmount is refused", () => {
      // -0.25 × 8 = -2 (the refund would leave 2.00 different).
      expect(guard({ maxAmount: 2 }, { backend: factory }).check(charge(8, "cheap")).approved).toBe(true);
      const d = guard({ maxAmount: 1.5 }, { backend: factory }).check(charge(8, "cheap"));
      expect(d.verdict!.amount).toBe(-2_000_000);
      expect([d.reason, d.detail]).toEqual(["amount_exceeded", "the step undoing `charge` (charge.refund) leaves 2.00 different, above maxAmount 1.5"]);
    });

    it("a step whose amount cannot be evaluated for the call is refused whatever maxAmount is", () => {
      const d = guard({ maxAmount: 1e12 }, { backend: factory }).check(charge("x"));
      expect(d.verdict!.amount).toBeNull();
      expect([d.reason, d.detail]).toEqual(["amount_exceeded", "the step undoing `charge` (charge.refund) states an amount it cannot evaluate for this call"]);
    });

    it("the total counts too: steps each within maxAmount whose sum is above it are refused", () => {
      const g = guard({ maxAmount: 4 }, { backend: factory, scope: "session" });
      const first = g.check(charge(100));
      expect(first).toMatchObject({ approved: true, reason: "ok" });
      const d = g.check(charge(100));
      expect(d.verdict!.steps.map((s) => s.amount)).toEqual([3_000_000, 3_000_000]);
      expect(d.verdict!.amount).toBe(6_000_000);
      expect([d.reason, d.detail]).toEqual(["amount_exceeded", "π leaves 6.00 different in total, above maxAmount 4"]);
    });

    it("without maxAmount the amounts are reported and decide nothing", () => {
      const g = guard({}, { backend: factory });
      const d = g.check(charge(1e6));
      expect(d).toMatchObject({ approved: true, reason: "ok" });
      expect(d.verdict!.amount).toBe(30_000_000_000);
      expect(g.check(charge("x"))).toMatchObject({ approved: true, reason: "ok" });
    });

    it("a π the search did not admit keeps the search's reason: maxAmount only refuses admitted ones", () => {
      // φ 0.9 is below τ 0.95: the search's refusal stands, not amount_exceeded.
      const d = guard({ maxAmount: 0, tau: 0.95 }, { backend: factory }).check(charge(100.1));
      expect(d.admissible).toBe(false);
      expect(d.reason).not.toBe("amount_exceeded");
      expect(d.detail).toBeNull();
    });
  });
}

it("a verdict with no amount program states no amount, and maxAmount does not refuse it", () => {
  const r = compile("slot_definition(e, x, number).\ntool(t, acts_on = e, key = id, params = [id]).\nbounded_reversibility(t, true, none, 0.99, args = { id: call.id }).\n", { name: "none.polar" });
  if (!r.ok) throw new Error("compile");
  const s = new LayerB();
  s.set("e", "1", "x", 1);
  const d = createGuard({ ontology: r.blob, backend: referenceFactory, state: s, config: { maxAmount: 0 } }).check({ name: "t", arguments: { id: "1" } });
  expect(d).toMatchObject({ approved: true, reason: "ok" });
  expect("amount" in d.verdict!).toBe(false);
});
