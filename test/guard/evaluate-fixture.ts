// A small ontology for the evaluate tests whose cases the airline fixture cannot make: a tool with two
// bounded edges of different scores (so candidate targets can give admissible verdicts that differ), a
// tool that acts on no entity, and a tool with a constant key.
import { compile } from "../../src/compiler/index.js";
import { createVerifier } from "../../src/core/verifier.js";
import { resolveConfig } from "../../src/guard/config.js";
import { evaluate, NO_MODEL, type EvaluateInput } from "../../src/guard/evaluate.js";
import { defaultConsentDetector } from "../../src/policies/consent.js";
import { vetoPolicy } from "../../src/policies/veto.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { createReferenceBackend } from "../../src/reference/index.js";

const SOURCE = `
slot_definition(order, status, string).
slot_definition(order, note, string).
slot_definition(device, data, bool).
sink_definition(pager, external = true).
tool(edit_order, acts_on = order, key = order_id).
tool(page_staff).
tool(toggle_data, acts_on = device, key = "phone").
bounded_reversibility(edit_order, order.status == "open", none, 0.99, id = "edit.open", args = { order_id: call.order_id, note: order.note }).
bounded_reversibility(edit_order, order.status == "held", none, 0.9, id = "edit.held", args = { order_id: call.order_id, note: order.note }).
external_side_effect(page_staff, pager, 1.0, id = "page").
inverse_of(toggle_data, toggle_data, device.data, 1.0, id = "data", when = present(device.data)).
`;

const compiled = compile(SOURCE, { name: "evaluate.polar" });
if (!compiled.ok) throw new Error(`the evaluate fixture does not compile: ${compiled.diagnostics.map((d) => d.message).join("; ")}`);
export const tables = compiled.tables;
export const verifier = createVerifier(tables, createReferenceBackend(tables));

export const configAt = (tau: number) => Object.freeze(resolveConfig({ scope: "turn", policy: "veto", consentDetector: defaultConsentDetector.id, requestClassifier: null, intentParser: null, now: "2024-05-15T15:00:00", tau }));

/** Order O1 (open, note "a") and the phone with data on. */
export function state(): LayerB {
  const s = new LayerB();
  s.replaceEntity("order", "O1", { status: "open", note: "a" });
  s.replaceEntity("device", "phone", { data: true });
  return s;
}

export const editO1 = { name: "edit_order", arguments: { order_id: "O1", note: "b" } };

export function run(over: Partial<EvaluateInput> = {}) {
  return evaluate({
    tables, verifier, config: configAt(0.8), policy: vetoPolicy, detector: defaultConsentDetector,
    call: editO1, forward: [], state: state(), userMessages: [], model: NO_MODEL, ...over,
  });
}
