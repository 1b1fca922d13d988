% τ²-bench retail: Layer A reversibility ontology.
%
% Authored from ../shared/tau2/tools/retail.json (the tool manifest) and domains/retail/policy.md with
% the paper's authoring table (Appendix C.5, first matching row wins). docs/ontologies.md has the
% per-tool table. Retail has no T3: no tool partially undoes another. Most order tools are one-shot
% (they move the order out of the status they require) and nothing re-creates an order, so they are
% T4; return and exchange email the user, so they are T5 (SPEC §6).

% ---------------------------------------------------------------------------------------------------
% Layer B vocabulary (ontologies/retail/projection.json)

slot_definition(order, user_id, string).
slot_definition(order, status, string).
slot_definition(order, items, list).
slot_definition(order, payment_history, list).
slot_definition(order, address, object).
% The shipping address, flattened: modify_pending_order_address takes its fields as arguments.
slot_definition(order, address1, string).
slot_definition(order, address2, string).
slot_definition(order, city, string).
slot_definition(order, state, string).
slot_definition(order, country, string).
slot_definition(order, zip, string).

slot_definition(user, address, object).
% The user's default address, flattened for modify_user_address.
slot_definition(user, address1, string).
slot_definition(user, address2, string).
slot_definition(user, city, string).
slot_definition(user, state, string).
slot_definition(user, country, string).
slot_definition(user, zip, string).

% ---------------------------------------------------------------------------------------------------
% Residues and sinks

% The order leaves `pending` for good: no tool un-cancels an order or places a new one (manifest,
% cancel_pending_order notes: "Terminal: no tool can un-cancel").
loss_class_definition(order_terminated, weight = 0.10).
% The order's single allowed change is spent: after it the code (or the status) refuses another one.
loss_class_definition(one_shot_change, weight = 0.10).

sink_definition(email, external = true).          % return/exchange instructions mailed to the user
sink_definition(human_handoff, external = true).

% ---------------------------------------------------------------------------------------------------
% Tools

% params / optional_params: each tool's parameters as ../shared/tau2/tools/retail.json lists them
% (`name = default` marks an optional one); an inverse must give every required one.
tool(cancel_pending_order, acts_on = order, key = order_id, params = [order_id, reason]).
tool(exchange_delivered_order_items, acts_on = order, key = order_id,
    params = [order_id, item_ids, new_item_ids, payment_method_id]).
tool(modify_pending_order_address, acts_on = order, key = order_id,
    params = [order_id, address1, address2, city, state, country, zip]).
tool(modify_pending_order_items, acts_on = order, key = order_id,
    params = [order_id, item_ids, new_item_ids, payment_method_id]).
tool(modify_pending_order_payment, acts_on = order, key = order_id,
    params = [order_id, payment_method_id]).
tool(modify_user_address, acts_on = user, key = user_id,
    params = [user_id, address1, address2, city, state, country, zip]).
tool(return_delivered_order_items, acts_on = order, key = order_id,
    params = [order_id, item_ids, payment_method_id]).
tool(transfer_to_human_agents, params = [summary]).

% Manifest kind `read` or `pure`. get_item_details exists since τ²-bench v1.0.0 (manifest notes).
read_only(calculate, find_user_id_by_name_zip, find_user_id_by_email, get_order_details,
          get_product_details, get_item_details, get_user_details, list_all_product_types).

% ---------------------------------------------------------------------------------------------------
% modify_user_address — T1: the address is replaced wholesale and the tool only checks that the user
% exists, so calling it again with the old fields is an exact undo in any state (manifest: "Reversible
% by another call with old address"). The tool is its own inverse.
inverse_of(modify_user_address, modify_user_address, user.address, 1.0,
    id = "retail.user_address.self",
    args = { user_id: call.user_id,
             address1: user.address1, address2: user.address2, city: user.city,
             state: user.state, country: user.country, zip: user.zip }).

% modify_pending_order_address — T2: the same, but the code accepts it only while "pending" is in the
% order's status (`pending` or `pending (item modified)`), so the undo holds while that does.
bounded_reversibility(modify_pending_order_address,
    order.status in ["pending", "pending (item modified)"],
    none, 0.99,
    id = "retail.order_address.self",
    args = { order_id: call.order_id,
             address1: order.address1, address2: order.address2, city: order.city,
             state: order.state, country: order.country, zip: order.zip }).

% cancel_pending_order — T4: terminal (status `cancelled`, every payment refunded); no tool re-opens or
% re-places an order. The manifest marks it not external (refunds are db entries), so T4, not T5.
irreversibly_consumes(cancel_pending_order, order.status, order_terminated, 1.0,
    id = "retail.cancel.terminal").

% modify_pending_order_items — T4: one-shot (policy: "can only be called once"); the status becomes
% `pending (item modified)`, which the tool (status == "pending" exactly) and cancellation then refuse.
irreversibly_consumes(modify_pending_order_items, order.items, one_shot_change, 1.0,
    id = "retail.items.one_shot").

% modify_pending_order_payment — T4: the code requires exactly one payment_history entry; the change
% leaves three, so switching back is refused (manifest notes: "effectively one-shot").
irreversibly_consumes(modify_pending_order_payment, order.payment_history, one_shot_change, 1.0,
    id = "retail.payment.one_shot").

% return_delivered_order_items, exchange_delivered_order_items — T5: the user receives an email on how
% to return the items (manifest: external; policy), and the order leaves `delivered` for good.
external_side_effect(return_delivered_order_items, email, 1.0, id = "retail.return.email").
external_side_effect(exchange_delivered_order_items, email, 1.0, id = "retail.exchange.email").

% transfer_to_human_agents — T5: hand-off to a human ends the conversation (manifest: external).
external_side_effect(transfer_to_human_agents, human_handoff, 1.0, id = "retail.transfer").
