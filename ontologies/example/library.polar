% A small example domain: a lending library with a shop. Members place holds on books, borrow them,
% buy books and gift vouchers, and get email. It exists to show every construct of the Layer A language
% (docs/ontology-language.md) with the reasoning a curator writes down for each annotation; it is not
% tied to any benchmark. Weights follow the paper's buckets: 1.0 for an exact inverse, 0.99 for a
% bounded self-undo, 0.90-0.95 for a compensation with a named residue.
//
// Both comment styles work: `%` (Prolog) and `//`.

% ---------------------------------------------------------------------------------------------------
% Layer B vocabulary: typed slots. Declaring a slot declares its entity. Every slot type appears once.

slot_definition(member, status, string).           % "active" | "frozen" | "closed"
slot_definition(member, email, string).
slot_definition(member, fines, number).            % outstanding fines, in currency units
slot_definition(member, verified, bool).
slot_definition(member, joined_on, date).

slot_definition(hold, member_id, string).
slot_definition(hold, book_id, string).
slot_definition(hold, status, string).             % "waiting" | "ready" | "cancelled"
slot_definition(hold, placed_at, datetime).

slot_definition(loan, due_at, datetime).
slot_definition(loan, renewals, number).
slot_definition(loan, returned_at, datetime).      % null until the book is back

slot_definition(order, member_id, string).
slot_definition(order, status, string).            % "pending" | "processing" | "shipped" | "delivered" | "cancelled"
slot_definition(order, items, list).
slot_definition(order, shipping_address, object).
slot_definition(order, total, number).
slot_definition(order, placed_at, datetime).
slot_definition(order, gift_wrapped, bool).
slot_definition(order, payment_status, string).

slot_definition(voucher, status, string).          % "issued" | "redeemed"

slot_definition(kiosk, language, string).          % the one self-service kiosk's display language

% ---------------------------------------------------------------------------------------------------
% Residues (loss classes, weight in [0, 1)) and sinks. `none` (weight 0) is predeclared.

% Re-placing a cancelled hold puts the member at the back of the queue. `residue` says what a step
% paying this class may leave different from before the call it undoes: any slot of the hold, and a
% new hold (the replacement has a new id) — for executors that check a compensation's result.
loss_class_definition(queue_position, weight = 0.10, residue = [hold.*, new(hold)]).
% Cancelling an order after payment keeps a restocking fee.
loss_class_definition(restocking_fee, weight = 0.05).
% A refunded card charge still costs the processor's fee.
loss_class_definition(card_fee, weight = 0.02).
% A redeemed voucher's value is spent for good.
loss_class_definition(voucher_value, weight = 0.50).
% A paid fine cannot be handed back once the accounts are closed for the day.
loss_class_definition(refund_processing, 0.20).    % the weight may also be given by position

sink_definition(email, external = true).           % mail leaves the system: nothing can recall it
sink_definition(librarian_desk, external = false). % a hand-off to staff: internal, still not undoable by the agent
sink_definition(printer).                          % `external` defaults to true

% ---------------------------------------------------------------------------------------------------
% Tools. `acts_on` + `key`: the entity a call acts on and the argument that names it (the call is
% grounded when that entity exists in Layer B). `creates` + `new_key`: the entity a call creates and the
% result field that holds its id.

% `params` / `optional_params` declare what a tool takes: an inverse must give every required one a
% source, and a required argument with no value at verdict time makes its step inadmissible.
tool(place_hold, acts_on = member, key = member_id, creates = hold, new_key = hold_id,
    params = [member_id, book_id], optional_params = [note]).
tool(cancel_hold, acts_on = hold, key = hold_id, params = [hold_id]).
tool(update_member_email, acts_on = member).        % key defaults to `member_id`
tool(freeze_account, acts_on = member, key = member_id).
tool(unfreeze_account, acts_on = member, key = member_id).
tool(extend_loan, acts_on = loan, key = loan_id).
tool(place_order, acts_on = member, key = member_id, creates = order).   % new_key defaults to `id`
tool(cancel_order, acts_on = order, key = order_id).
tool(update_shipping_address, acts_on = order, key = order_id).
tool(charge_card, acts_on = order, key = order_id).
tool(refund_charge, acts_on = order, key = order_id).
tool(redeem_voucher, acts_on = voucher, key = voucher_code).
tool(pay_fine, acts_on = member, key = member_id).
tool(refund_fine, acts_on = member, key = member_id).
tool(send_overdue_notice, acts_on = loan, key = loan_id).
tool(transfer_to_librarian).                        % acts on no entity: always grounded
tool(print_receipt, acts_on = order, key = order_id).
% The library has one kiosk and its tool takes no argument naming it: a constant key (a string) says
% every call acts on the kiosk entity `front_desk`.
tool(set_kiosk_language, acts_on = kiosk, key = "front_desk").

% Read-only tools: no step in the search, no annotation.
read_only(get_member, search_catalog, get_order, list_holds).

% ---------------------------------------------------------------------------------------------------
% T1 inverse_of(a, b, slot, w): a exactly undoes b on slot.

% A hold that was just placed can be cancelled and nothing remains: the queue behind it moves back up.
% The inverse names the created hold by the id the forward call returned.
inverse_of(cancel_hold, place_hold, hold.status, 1.0,
    args = { hold_id: new.id }).

% Freezing an account is exactly undone by unfreezing it. Curators disagree on whether a freeze also
% cancels the member's ready holds (then the undo would not be exact), so this one is `disputed`: it
% stays in the file for review but never enters a verdict until it is settled.
@id("library.freeze.unfreeze")
inverse_of(unfreeze_account, freeze_account, member.status, 1.0,
    status = disputed,
    args = { member_id: call.member_id }).

% Unfreezing is undone by freezing again, exactly (the freeze above is the disputed direction, not this).
inverse_of(freeze_account, unfreeze_account, member.status, 1.0,
    args = { member_id: call.member_id, reason: "restored by undo" }).

% A fine refunded by mistake is charged again: the same amount, the same member, nothing left over.
inverse_of(pay_fine, refund_fine, member.fines, 1.0,
    args = { member_id: call.member_id, amount: call.amount }).

% ---------------------------------------------------------------------------------------------------
% T2 bounded_reversibility(a, bound, loss_class, w): a undoes itself (called again with the old values)
% while the bound holds in Layer B.

% An email change is put back by setting the old email again, as long as the account is open and had an
% email at all. `member.email` in `args` is the slot's value *before* the call.
bounded_reversibility(update_member_email,
    member.status != "closed" and member.email != null and member.verified == true
      and member.joined_on >= date("2000-01-01"),
    none, 0.99,
    id = "library.email.self",
    args = { member_id: call.member_id, email: member.email }).

% A shipping address can be set back until the parcel leaves: only pending or processing orders, not
% gift-wrapped ones (the label is printed on the wrap), at most 20 items per parcel, and only within a
% day of ordering, and the new address must fit a label (at most 4 lines). Every comparison operator,
% `in`, `not`, `size` (of a slot and of an argument) and time arithmetic appear here.
bounded_reversibility(update_shipping_address,
    order.status in ["pending", "processing"]
      and not order.gift_wrapped
      and size(order.items) <= 20
      and size(order.items) > 0
      and order.total >= 0
      and size(call.address.lines) <= 4
      and now - order.placed_at < hours(24)
      and (order.placed_at > datetime("2024-01-01T00:00:00Z") or order.status == "pending"),
    none, 0.99,
    args = { order_id: call.order_id, address: order.shipping_address }).

% Extending a loan can be undone by extending it back to the old due date while the book is still out
% and the new date is not too far away. Drafted by an LLM from the tool's documentation: `provisional`
% until a curator promotes it, so it is compiled and carried but never decides a verdict.
bounded_reversibility(extend_loan,
    loan.returned_at == null
      and loan.renewals < 3
      and call.new_due_at <= loan.due_at + days(28)
      and now <= loan.due_at - minutes(30)
      and call.reason not in ["lost", "damaged"],
    none, 0.99,
    status = provisional,
    args = { loan_id: call.loan_id, new_due_at: loan.due_at }).

% ---------------------------------------------------------------------------------------------------
% T3 compensates(a, b, slot, loss_class, w): a partially undoes b, paying loss_class.
% phi = floor(w * (1 - w_loss)): 0.95 * (1 - 0.05) = 0.9025.

% An order is undone by cancelling it; a restocking fee remains. The inverse's arguments mix the
% created id, literals of every kind and a list/object literal.
compensates(cancel_order, place_order, order.status, restocking_fee, 0.95,
    args = { order_id: new.id, reason: "ordered by mistake", notify: false, attempt: 1,
             tags: ["undo", "agent"], meta: { source: "polar", note: null } }).

% A cancelled hold can only be re-placed: the member gets a *new* hold id at the back of the queue. With
% `identity = new` the search knows an earlier call's inverse on the old hold id is no longer grounded.
compensates(place_hold, cancel_hold, hold.status, queue_position, 0.90,
    identity = new,
    args = { member_id: hold.member_id, book_id: hold.book_id }).

% A card charge is refunded by the transaction id in the charge's result; the processor keeps its fee.
% `when`: only while the charge is not disputed (a disputed charge is the bank's to reverse); any tier
% may carry a condition, and an UNKNOWN one never offers the undo.
compensates(refund_charge, charge_card, order.payment_status, card_fee, 0.98,
    when = order.payment_status != "disputed",
    args = { order_id: call.order_id, transaction_id: result.transaction.id, amount: call.amount }).

% A cancelled order cannot be reinstated: the member orders the same items again and gets a new order
% id, paying the restocking fee of the first one.
compensates(place_order, cancel_order, order.status, restocking_fee, 0.90,
    identity = new,
    args = { member_id: order.member_id, items: order.items }).

% A refund is undone by charging the card again; the refund's processing fee is not returned.
compensates(charge_card, refund_charge, order.payment_status, card_fee, 0.95,
    args = { order_id: call.order_id, amount: call.amount }).

% Fines used to be refundable. Since the nightly close they are not: the old annotation is `revoked`,
% kept for the audit trail (verdicts made with it still name its id), and replaced by the T4 below.
% A revoked annotation never contradicts a live one.
@id("library.fine.refund.v1")
compensates(refund_fine, pay_fine, member.fines, refund_processing, 0.90, status = revoked,
    args = { member_id: call.member_id, amount: call.amount }).

% ---------------------------------------------------------------------------------------------------
% T4 irreversibly_consumes(a, slot, loss_class, w): a consumes a resource beyond recovery (phi = 0).

% A voucher code is single-use: once redeemed, no tool issues the same code again.
irreversibly_consumes(redeem_voucher, voucher.status, voucher_value, 1.0).

% A paid fine is booked and closed the same day (see the revoked T3 above).
irreversibly_consumes(pay_fine, member.fines, refund_processing, 0.95, id = "library.fine.paid").

% ---------------------------------------------------------------------------------------------------
% T5 external_side_effect(a, sink, w): a emits to an external sink (phi = 0).

% An email cannot be unsent.
external_side_effect(send_overdue_notice, email, 1.0).

% Once a librarian has the conversation, the agent is out of the loop.
external_side_effect(transfer_to_librarian, librarian_desk, 1.0).

% Paper comes out of the printer — when any copy is printed. On a T4/T5 edge `when` removes the effect
% only when definitely FALSE: a call that does not say how many copies still counts as printing.
external_side_effect(print_receipt, printer, 0.9, when = call.copies > 0).

% Setting the kiosk's language back to the old one is exact, provided there was an old one to restore
% (`present(...)` is TRUE when the slot has a non-null value).
inverse_of(set_kiosk_language, set_kiosk_language, kiosk.language, 1.0,
    when = present(kiosk.language),
    args = { language: kiosk.language }).
