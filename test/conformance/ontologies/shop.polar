% Conformance ontology: a small shop with every tier, bounds over each value kind, and overlap.
slot_definition(order, status, string).
slot_definition(order, address, string).
slot_definition(order, note, string).
slot_definition(order, items, list).
slot_definition(order, placed_at, datetime).
slot_definition(order, locked, bool).
slot_definition(order, total, number).
slot_definition(user, balance, number).
slot_definition(user, points, number).

loss_class_definition(restock_fee, weight = 0.10).
loss_class_definition(small_fee, weight = 0.05).
loss_class_definition(card_fee, weight = 0.5).
sink_definition(email, external = true).

tool(update_address, acts_on = order, key = order_id).
tool(restore_address, acts_on = order, key = order_id).
tool(cancel_order, acts_on = order, key = order_id).
tool(reinstate_order, acts_on = order, key = order_id).
tool(place_order, acts_on = user, key = user_id, creates = order, new_key = order_id).
tool(charge_card, acts_on = user, key = user_id).
tool(refund_card, acts_on = user, key = user_id).
tool(reverse_charge, acts_on = user, key = user_id).
tool(send_receipt, acts_on = order, key = order_id).
tool(delete_account, acts_on = user, key = user_id).
tool(redeem_points, acts_on = user, key = user_id).
tool(refund_points, acts_on = user, key = user_id).
tool(set_note, acts_on = order, key = order_id).
tool(reschedule, acts_on = order, key = order_id).
tool(edit_items, acts_on = order, key = order_id).
tool(set_priority, acts_on = order, key = order_id).
tool(toggle_gift, acts_on = order, key = order_id).
tool(adjust_total, acts_on = order, key = order_id).
tool(archive_order, acts_on = order, key = order_id).
tool(unarchive_order, acts_on = order, key = order_id).
tool(rename, acts_on = order, key = order_id).
tool(rename_back, acts_on = order, key = order_id).
tool(rename_restore, acts_on = order, key = order_id).
tool(ping).
tool(unping).
read_only(get_order, get_user).

% T1: exact inverse, arguments from the call and from the pre-call state.
inverse_of(restore_address, update_address, order.address, 0.95, id = "t1.address",
    args = { order_id: call.order_id, address: order.address }).

% T3 with identity = new: reinstating a cancelled order gives it a new id (drives overlap).
compensates(reinstate_order, cancel_order, order.status, restock_fee, 0.95, id = "t3.cancel",
    identity = new, args = { order_id: call.order_id, reason: "customer_request" }).

% T1 on a creating tool: the inverse needs the created id.
inverse_of(cancel_order, place_order, order.status, 0.9, id = "t1.place",
    args = { order_id: new.id, total: result.total }).

% Two positive edges on one tool: selection between them.
compensates(refund_card, charge_card, user.balance, small_fee, 1.0, id = "t3.charge",
    args = { user_id: call.user_id, amount: call.amount }).
inverse_of(reverse_charge, charge_card, user.balance, 0.85, id = "t1.charge",
    args = { user_id: call.user_id, charge: call.charge.id }).

% Fail-closed tiers.
external_side_effect(send_receipt, email, 1.0, id = "t5.receipt").
irreversibly_consumes(delete_account, user.balance, card_fee, 1.0, id = "t4.delete").

% A positive and a fail-closed edge on different slots of one tool.
compensates(refund_points, redeem_points, user.points, small_fee, 0.9, id = "t3.points",
    args = { user_id: call.user_id }).
irreversibly_consumes(redeem_points, user.balance, card_fee, 1.0, id = "t4.points").

% T2 bounds over strings, times, list sizes, `in`, booleans and numbers.
bounded_reversibility(set_note, order.status != "cancelled", none, 0.9, id = "t2.note",
    args = { order_id: call.order_id, note: order.note }).
bounded_reversibility(reschedule, now < order.placed_at + hours(24), none, 0.97, id = "t2.reschedule",
    args = { order_id: call.order_id }).
bounded_reversibility(edit_items, size(order.items) <= 3, small_fee, 0.9, id = "t2.items",
    args = { order_id: call.order_id, items: order.items }).
bounded_reversibility(set_priority, call.level in ["low", "normal"], none, 0.92, id = "t2.priority",
    args = { order_id: call.order_id, level: "normal" }).
bounded_reversibility(toggle_gift, not order.locked, none, 0.88, id = "t2.gift",
    args = { order_id: call.order_id }).
bounded_reversibility(adjust_total, call.delta <= 50 and order.total - call.delta >= 0, none, 0.93, id = "t2.total",
    args = { order_id: call.order_id, delta: call.delta }).

% Lifecycle: only live annotations count.
inverse_of(unarchive_order, archive_order, order.status, 0.99, id = "t1.archive.provisional", status = provisional).
inverse_of(unarchive_order, archive_order, order.status, 0.98, id = "t1.archive.revoked", status = revoked).
inverse_of(unarchive_order, archive_order, order.status, 0.97, id = "t1.archive.disputed", status = disputed).

% Ties: equal phi and loss, the first edge in source order wins.
inverse_of(rename_back, rename, order.note, 0.9, id = "t1.rename.first", args = { order_id: call.order_id }).
inverse_of(rename_restore, rename, order.note, 0.9, id = "t1.rename.second", args = { order_id: call.order_id }).

% A tool that acts on no entity is always grounded.
inverse_of(unping, ping, order.note, 0.8, id = "t1.ping", args = { payload: [1, 2] }).

% A provisional fail-closed edge does not fail a call; a provisional stronger edge does not lift it.
tool(purge_cache, acts_on = order, key = order_id).
tool(restore_cache, acts_on = order, key = order_id).
irreversibly_consumes(purge_cache, order.total, card_fee, 1.0, id = "t4.purge.provisional", status = provisional).
inverse_of(restore_cache, purge_cache, order.note, 0.9, id = "t1.purge", args = { order_id: call.order_id }).
tool(relabel, acts_on = order, key = order_id).
tool(relabel_back, acts_on = order, key = order_id).
inverse_of(relabel_back, relabel, order.note, 0.99, id = "t1.relabel.provisional", status = provisional).
inverse_of(relabel_back, relabel, order.note, 0.85, id = "t1.relabel.live", args = { order_id: call.order_id }).
