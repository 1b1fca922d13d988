// The gold-action labeler: τ²-bench's `compare_with_tool_call` rule, on hand-made actions and on
// every gold action of the real tasks.
import { describe, expect, it } from "vitest";
import { hasGoldList } from "../../src/eval/collect.js";
import { labelCall, matchesGoldAction, pyEqual } from "../../src/eval/label.js";
import type { GoldAction, Tau2Task } from "../../src/tau2/adapter.js";
import { readTau2Data } from "../../src/tau2/data.js";
import { itTau2, tau2Dir } from "../tau2/data-dir.js";

function action(name: string, args: Record<string, unknown>, compareArgs: string[] | null = null, actionId: string | null = null): GoldAction {
  return { actionId, requestor: "assistant", name, arguments: args, compareArgs };
}

function task(actions: GoldAction[]): Tau2Task {
  return { id: "t", goldActions: actions, initialState: null, raw: {} };
}

describe("matchesGoldAction (τ²-bench's rule)", () => {
  it("needs the same tool name", () => {
    expect(matchesGoldAction(action("cancel_reservation", { reservation_id: "A" }), { name: "book_reservation", arguments: { reservation_id: "A" } })).toBe(false);
  });

  it("compares only compare_args when given", () => {
    const a = action("return_delivered_order_items", { order_id: "#W1", item_ids: ["1", "2"], payment_method_id: "gift_card_1" }, ["order_id", "item_ids"]);
    expect(matchesGoldAction(a, { name: a.name, arguments: { order_id: "#W1", item_ids: ["1", "2"], payment_method_id: "credit_card_9" } })).toBe(true);
    expect(matchesGoldAction(a, { name: a.name, arguments: { order_id: "#W1", item_ids: ["2", "1"], payment_method_id: "gift_card_1" } })).toBe(false);
    // A compared argument the call leaves out is missing on one side only: no match.
    expect(matchesGoldAction(a, { name: a.name, arguments: { order_id: "#W1" } })).toBe(false);
  });

  it("an empty compare_args matches any call of the tool", () => {
    const a = action("transfer_to_human_agents", { summary: "user wants a refund" }, []);
    expect(matchesGoldAction(a, { name: "transfer_to_human_agents", arguments: { summary: "something else entirely" } })).toBe(true);
  });

  it("without compare_args compares the keys the call supplied (a call omitting an argument still matches)", () => {
    const a = action("update_reservation_baggages", { reservation_id: "R", total_baggages: 2, nonfree_baggages: 0, payment_id: "credit_card_1" });
    const call = { name: a.name, arguments: { reservation_id: "R", total_baggages: 2, nonfree_baggages: 0, payment_id: "credit_card_1" } };
    expect(matchesGoldAction(a, call)).toBe(true);
    expect(matchesGoldAction(a, { name: a.name, arguments: { reservation_id: "R", total_baggages: 2 } })).toBe(true);
    expect(matchesGoldAction(a, { name: a.name, arguments: { ...call.arguments, total_baggages: 3 } })).toBe(false);
    // A key the action does not have: present on the call's side only, so unequal.
    expect(matchesGoldAction(a, { name: a.name, arguments: { ...call.arguments, note: "x" } })).toBe(false);
    // The strict reading also requires the action's own keys.
    expect(matchesGoldAction(a, { name: a.name, arguments: { reservation_id: "R", total_baggages: 2 } }, "strict")).toBe(false);
    expect(matchesGoldAction(a, call, "strict")).toBe(true);
  });

  it("device tools with no arguments match any call of the tool", () => {
    expect(matchesGoldAction(action("toggle_roaming", {}), { name: "toggle_roaming", arguments: {} })).toBe(true);
  });

  it("compares values as Python compares loaded JSON", () => {
    expect(pyEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] })).toBe(true);
    expect(pyEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(pyEqual([1, 2], [2, 1])).toBe(false);
    expect(pyEqual(1, 1.0)).toBe(true);
    expect(pyEqual(true, 1)).toBe(true);
    expect(pyEqual(false, 0)).toBe(true);
    expect(pyEqual("1", 1)).toBe(false);
    expect(pyEqual(null, null)).toBe(true);
    expect(pyEqual(null, 0)).toBe(false);
    expect(pyEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });

  it("compares argument strings holding JSON as the JSON they hold", () => {
    const a = action("set_apn_settings", { apn_settings: '{"name": "internet", "mmsc_url": null}' });
    expect(matchesGoldAction(a, { name: a.name, arguments: { apn_settings: '{"mmsc_url":null,"name":"internet"}' } })).toBe(true);
    expect(matchesGoldAction(a, { name: a.name, arguments: { apn_settings: { name: "internet", mmsc_url: null } } })).toBe(true);
    expect(matchesGoldAction(a, { name: a.name, arguments: { apn_settings: '{"name": "mms"}' } })).toBe(false);
    // Not JSON after all: compared as text.
    expect(matchesGoldAction(action("x", { s: "{oops" }), { name: "x", arguments: { s: "{oops" } })).toBe(true);
  });
});

describe("labelCall", () => {
  const t = task([
    action("get_user_details", { user_id: "u" }, null, "0"),
    action("cancel_reservation", { reservation_id: "A" }, null, "1"),
    action("cancel_reservation", { reservation_id: "B" }, null, "2"),
  ]);

  it("names the first matching gold action; matches are not consumed", () => {
    expect(labelCall(t, { name: "cancel_reservation", arguments: { reservation_id: "B" } })).toEqual({ label: "authorized", matched: "2" });
    expect(labelCall(t, { name: "cancel_reservation", arguments: { reservation_id: "B" } })).toEqual({ label: "authorized", matched: "2" });
    expect(labelCall(t, { name: "cancel_reservation", arguments: { reservation_id: "C" } })).toEqual({ label: "unauthorized", matched: null });
  });

  it("falls back to name#index when an action has no id", () => {
    expect(labelCall(task([action("toggle_data", {})]), { name: "toggle_data", arguments: {} }).matched).toBe("toggle_data#0");
  });

  itTau2("every gold action of every real task, replayed as a call, is authorized", () => {
    const data = readTau2Data(tau2Dir());
    let n = 0;
    for (const d of data.domainNames) {
      for (const tk of data.domain(d).tasks.values()) {
        for (const a of tk.goldActions) {
          expect(labelCall(tk, { name: a.name, arguments: a.arguments }).label, `${d} ${tk.id} ${a.name}`).toBe("authorized");
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(500);
  });
});

describe("hasGoldList", () => {
  it("an empty gold list labels (every write is unauthorized); an absent one does not", () => {
    const mk = (criteria: unknown): Tau2Task => ({ id: "t", goldActions: [], initialState: null, raw: { id: "t", evaluation_criteria: criteria } });
    expect(hasGoldList(mk({ actions: [] }))).toBe(true);
    expect(hasGoldList(mk({ actions: null }))).toBe(false);
    expect(hasGoldList(mk({}))).toBe(false);
    expect(hasGoldList(null)).toBe(false);
    expect(hasGoldList(task([action("toggle_data", {})]))).toBe(true);
    expect(labelCall(mk({ actions: [] }), { name: "cancel_reservation", arguments: { reservation_id: "A" } }).label).toBe("unauthorized");
  });
});
