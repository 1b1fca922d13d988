% τ²-bench airline: Layer A reversibility ontology.
%
% Authored from ../shared/tau2/tools/airline.json (the tool manifest: what each tool mutates, creates,
% charges and checks) and domains/airline/policy.md, following the paper's authoring table (Appendix
% C.5: first matching row wins — exact inverse T1, bounded self-undo T2, compensation with a named
% residue T3, non-replenishable consumption T4, external surface T5). Weights follow the paper's φ
% buckets (Table 8): T2 w = 0.99; T3 w = 0.90 with a low (0.05 → φ 0.855) or high (0.10 → φ 0.81)
% loss class. docs/ontologies.md has the per-tool table and the reasons. τ²-bench's clock is fixed at
% 2024-05-15T15:00:00 (policy.md; book_reservation stamps it as created_at).
%
% No T1: no airline tool exactly undoes another one (paper, Appendix C.1). Re-booking after a
% cancellation allocates a fresh reservation id, so it is a compensation with identity = new.

% ---------------------------------------------------------------------------------------------------
% Layer B vocabulary (ontologies/airline/projection.json produces these slots)

slot_definition(user, membership, string).
slot_definition(user, payment_methods, object).
slot_definition(user, reservations, list).            % the user's reservation ids (book_reservation appends)
slot_definition(user, gift_card_balances, object).    % gift-card id -> its current balance
slot_definition(user, certificate_balances, object).  % certificate id -> its current amount
slot_definition(payment_method, amount, number).      % a gift card's balance, a certificate's value
slot_definition(flight_date, available_seats, object). % seats left per cabin on one flight and date

slot_definition(reservation, user_id, string).
slot_definition(reservation, origin, string).
slot_definition(reservation, destination, string).
slot_definition(reservation, flight_type, string).
slot_definition(reservation, cabin, string).
slot_definition(reservation, flights, list).          % as stored: flight_number, date, price, origin, destination
slot_definition(reservation, flight_refs, list).      % [{flight_number, date}]: τ²-bench's FlightInfo argument
slot_definition(reservation, passengers, list).
slot_definition(reservation, payment_history, list).
slot_definition(reservation, created_at, datetime).
slot_definition(reservation, total_baggages, number).
slot_definition(reservation, nonfree_baggages, number).
slot_definition(reservation, insurance, string).
slot_definition(reservation, status, string).         % null until cancelled (the db has no status field)
slot_definition(reservation, flown, bool).            % some segment's flight-date is `landed` or `flying`
slot_definition(reservation, rebookable, bool).       % every segment `available` with seats for all passengers
slot_definition(reservation, fares_current, bool).    % every segment's booked price is its current price
slot_definition(reservation, card_only, bool).        % every payment_history entry is a credit card
slot_definition(reservation, payment_count, number).  % entries in payment_history
slot_definition(reservation, payment_balances, object). % the user's payment ids -> balance (null: a credit card)
slot_definition(reservation, refare_excess, number).  % per passenger: sum of max(0, current - booked fare)
slot_definition(reservation, refare_diff, number).    % per passenger: sum of (current - booked fare)
slot_definition(reservation, paid_total, number).     % sum of payment_history amounts
slot_definition(reservation, fare_now, number).       % per passenger: sum of the segments' current fares
slot_definition(reservation, insurance_fee, number).  % per passenger: 30 with insurance, else 0
slot_definition(reservation, new_ids_free, number).   % book_reservation's reservation ids still free (of 3)

% ---------------------------------------------------------------------------------------------------
% Residues (loss classes) and sinks

% Residues name what a step paying the class may leave different from the state before the call it
% undoes (docs/ontology-language.md, "Declared residue"); `polar eval tau2 --execute` checks them.
%
% Fares re-priced at the flight-date's current price: update_reservation_flights keeps the old price
% only for an unchanged segment in an unchanged cabin and records the difference as a payment or a
% refund on the given method, adjusting a gift card's balance (manifest `fees`, `mutates`). The paper's
% named example (Appendix C.5). High band.
loss_class_definition(rebooking_price_diff, weight = 0.10,
    residue = [reservation.flights, reservation.payment_history, payment_method.amount]).
% Re-booking a cancelled reservation: the old record stays, cancelled with its refunds recorded (manifest,
% cancel_reservation `mutates`), the itinerary is booked under a new id (id_generation) and appended to
% the user's reservations, and the seats are taken again, since a cancellation never released them
% (manifest, cancel_reservation `fees`: "seats are not released"). High band.
loss_class_definition(rebooked_under_new_id, weight = 0.10,
    residue = [new(reservation), reservation.status, reservation.payment_history, user.reservations,
               flight_date.available_seats]).
% A cancellation records refunds as negative payments, but gift-card balances and certificates are not
% restored and seats are not released (manifest, cancel_reservation `fees`); a certificate's remainder
% is forfeited (policy: "The remaining amount of a travel certificate is not refundable"). So after a
% booking and its cancellation: the cancelled record, its id in the user's list, the seats taken, and
% the payment methods it spent (a certificate is deleted when used, manifest book_reservation
% `mutates`). High band.
loss_class_definition(refund_not_restored, weight = 0.10,
    residue = [new(reservation), user.reservations, flight_date.available_seats, payment_method.*]).
% $50 per added non-free bag, never refunded when bags are decreased (manifest, update_reservation_baggages
% `fees`; policy: "The user can add but not remove checked bags"): the fee's payment entry and a gift
% card's balance stay. Small next to a fare: low band.
loss_class_definition(baggage_fee, weight = 0.05,
    residue = [reservation.payment_history, payment_method.amount]).
% A money-like travel certificate issued with no revoke tool, from a pool of three ids (manifest,
% send_certificate `id_generation`, `notes`).
loss_class_definition(compensation_issued, weight = 0.10).
% A reservation no re-booking can bring back (cancel_reservation's T4 below): its seats, fares and the
% non-card money it spent.
loss_class_definition(reservation_given_up, weight = 0.10).
% An itinerary the self-undo cannot restore (update_reservation_flights' T4 below).
loss_class_definition(itinerary_given_up, weight = 0.10).

sink_definition(email, external = true).          % the user is told of the certificate (manifest: external)
sink_definition(human_handoff, external = true).  % the conversation ends with a human agent

% ---------------------------------------------------------------------------------------------------
% Tools

% params / optional_params: each tool's parameters as ../shared/tau2/tools/airline.json lists them
% (`name = default` marks an optional one); an inverse must give every required one.
tool(book_reservation, acts_on = user, key = user_id, creates = reservation, new_key = reservation_id,
    params = [user_id, origin, destination, flight_type, cabin, flights, passengers, payment_methods, total_baggages, nonfree_baggages, insurance]).
tool(cancel_reservation, acts_on = reservation, key = reservation_id, params = [reservation_id]).
tool(update_reservation_baggages, acts_on = reservation, key = reservation_id,
    params = [reservation_id, total_baggages, nonfree_baggages, payment_id]).
tool(update_reservation_flights, acts_on = reservation, key = reservation_id,
    params = [reservation_id, cabin, flights, payment_id]).
tool(update_reservation_passengers, acts_on = reservation, key = reservation_id,
    params = [reservation_id, passengers]).
tool(send_certificate, acts_on = user, key = user_id, params = [user_id, amount]).
tool(transfer_to_human_agents, params = [summary]).

% Manifest kind `read` or `pure`: no state change, no annotation.
read_only(calculate, get_reservation_details, get_user_details, list_all_airports,
          search_direct_flight, search_onestop_flight, get_flight_status).

% ---------------------------------------------------------------------------------------------------
% book_reservation — T3: cancelling the new reservation compensates the booking. Policy allows a full
% refund for a booking made within the last 24 h, which a just-made booking always is; the residue is
% what cancel_reservation does not give back in the db (gift-card balances, certificates, seats).
% Amount: the money the booking spent that the cancellation does not give back — what each gift card
% paid, and the whole amount of each certificate (deleted when used, its remainder forfeited); a credit
% card's charge is refunded. τ²-bench bookings name at most three payments (manifest); a fourth would
% go uncounted, so the amount covers payment_methods[0..2].
compensates(cancel_reservation, book_reservation, reservation.status, refund_not_restored, 0.90,
    id = "airline.book.cancel",
    args = { reservation_id: new.id },
    amount = coalesce(lookup(user.gift_card_balances, call.payment_methods.0.payment_id) * 0 + call.payment_methods.0.amount, 0)
        + coalesce(lookup(user.certificate_balances, call.payment_methods.0.payment_id), 0)
        + coalesce(lookup(user.gift_card_balances, call.payment_methods.1.payment_id) * 0 + call.payment_methods.1.amount, 0)
        + coalesce(lookup(user.certificate_balances, call.payment_methods.1.payment_id), 0)
        + coalesce(lookup(user.gift_card_balances, call.payment_methods.2.payment_id) * 0 + call.payment_methods.2.amount, 0)
        + coalesce(lookup(user.certificate_balances, call.payment_methods.2.payment_id), 0)).

% cancel_reservation — T3 with identity = new: no tool restores status `cancelled` (manifest notes);
% the compensation is booking the same itinerary again, which allocates a new id (manifest
% id_generation) at current fares, paid with the original payment methods (payment_history entries are
% τ²-bench's {payment_id, amount} shape). An earlier edit's inverse on the old id is then ungrounded:
% the search reports overlap_conflict (docs/semantics.md).
% The re-booking only goes through while book_reservation would accept it (manifest, book_reservation
% `checks`, `fees`, and cancel_reservation `fees`): every segment still `available` with seats for every
% passenger (nothing flown: a flown segment is not `available`), every booked price still the current
% fare (the payment must add up to the fares now), and paid once by credit card only (a cancellation
% restores neither gift-card balances nor certificates, and a later payment — bags, a flight change —
% would make the amounts differ from the fares). book_reservation also refuses (tools.py) when its
% three reservation ids are taken ("Too many reservations": new_ids_free) and when the payments do not
% add up to the fares now, insurance (30 per passenger) and the non-free bags (50 each): a reservation
% whose bags were decreased after booking paid for bags it no longer has. Otherwise there is no
% compensation (`bound_violated`). Amount 0: the card is refunded by the cancellation and charged the
% same total by the re-booking.
compensates(book_reservation, cancel_reservation, reservation.status, rebooked_under_new_id, 0.90,
    id = "airline.cancel.rebook",
    identity = new,
    when = reservation.status != "cancelled" and reservation.rebookable == true
        and reservation.fares_current == true and reservation.card_only == true
        and reservation.payment_count == 1 and reservation.new_ids_free >= 1
        and reservation.paid_total == (reservation.fare_now + reservation.insurance_fee) * size(reservation.passengers)
            + 50 * reservation.nonfree_baggages,
    amount = 0,
    args = { user_id: reservation.user_id,
             origin: reservation.origin,
             destination: reservation.destination,
             flight_type: reservation.flight_type,
             cabin: reservation.cabin,
             flights: reservation.flight_refs,
             passengers: reservation.passengers,
             payment_methods: reservation.payment_history,
             total_baggages: reservation.total_baggages,
             nonfree_baggages: reservation.nonfree_baggages,
             insurance: reservation.insurance }).
% ... and T4 where no re-booking can bring the reservation back (the only compensation, above): a
% segment has flown (policy, "Cancel flight": the agent cannot help once a portion is flown; a flown
% segment is not `available` to book), a segment has no longer the seats for every passenger (manifest,
% book_reservation checks), a payment was not by credit card (manifest, cancel_reservation `fees`:
% gift-card balances and certificates are not restored, so that money is spent for good), or it is
% cancelled already (manifest notes: calling it twice appends the refunds again). Moved fares or several
% card payments are not here: re-booking at today's fares is still a compensation, only one whose
% payment the argument language cannot write (the positive edge's `when` leaves it without a candidate).
irreversibly_consumes(cancel_reservation, reservation.status, reservation_given_up, 1.0,
    id = "airline.cancel.final",
    when = reservation.status == "cancelled" or reservation.flown == true
        or reservation.rebookable == false or reservation.card_only == false).

% update_reservation_baggages — T2: calling it again with the old counts is an exact undo while the
% number of non-free bags is unchanged (the fee is 50 × max(0, new − old) non-free bags, so only then
% is nothing charged in either direction) and the reservation is live.
bounded_reversibility(update_reservation_baggages,
    reservation.status != "cancelled" and call.nonfree_baggages == reservation.nonfree_baggages,
    none, 0.99,
    id = "airline.baggages.self",
    args = { reservation_id: call.reservation_id,
             total_baggages: reservation.total_baggages,
             nonfree_baggages: reservation.nonfree_baggages,
             payment_id: call.payment_id }).
% ... otherwise T3: the same call restores the counts, but a paid bag's fee is never refunded. The undo
% pays 50 per non-free bag it adds back (tools.py, _payment_for_update), refused when the payment is a
% gift card whose balance is short ("Gift card balance is not enough"): `when`. Amount: the fee paid by
% whichever of the two calls adds bags, 50 per bag of the difference.
compensates(update_reservation_baggages, update_reservation_baggages, reservation.nonfree_baggages,
    baggage_fee, 0.90,
    id = "airline.baggages.fee",
    when = lookup(reservation.payment_balances, call.payment_id) == null
        or lookup(reservation.payment_balances, call.payment_id)
            >= 50 * (reservation.nonfree_baggages - call.nonfree_baggages),
    amount = 50 * max(call.nonfree_baggages - reservation.nonfree_baggages,
                      reservation.nonfree_baggages - call.nonfree_baggages),
    args = { reservation_id: call.reservation_id,
             total_baggages: reservation.total_baggages,
             nonfree_baggages: reservation.nonfree_baggages,
             payment_id: call.payment_id }).

% update_reservation_flights — T2: restoring the old itinerary and cabin with the same tool works while
% policy would let the agent make that call and the tool would accept it. Policy (policy.md, "Modify
% flight", "Change cabin"): basic-economy flights cannot be modified, but every reservation, basic
% economy included, can change cabin without changing its flights; nothing is changed once a segment has
% flown; a cancelled reservation is not modified (the API checks none of it). So the undo is allowed
% unless the reservation is basic economy before the call and stays basic economy (the undo would then
% change a basic-economy itinerary's flights). The tool itself (manifest: update_reservation_flights
% checks that every segment it takes is `available` with enough seats in the cabin, and never releases
% seats) accepts the undo only while the old segments are still `rebookable`. The undo prices the old
% segments anew and records payments (manifest `fees`): `rebooking_price_diff`. The undo charges the
% call's payment method (tools.py, _payment_for_update): a gift card must cover it ("Gift card balance is
% not enough"), which holds for certain only while re-pricing a segment never costs more than it was
% booked for (refare_excess 0: the undo then costs at most what the change refunded). Its amount is
% exact only when every old segment is re-priced — the cabin changes (no segment is kept) — or none
% costs more or less than booked (fares_current); otherwise which segments the undo keeps decides the
% money, so the undo is not admitted. Amount: Σ (current − booked fare) × passengers (negative: the
% customer is paid back more than the change charged).
bounded_reversibility(update_reservation_flights,
    reservation.status != "cancelled" and reservation.flown == false and reservation.rebookable == true
        and (reservation.cabin != "basic_economy" or call.cabin != "basic_economy")
        and (reservation.fares_current == true or call.cabin != reservation.cabin)
        and (lookup(reservation.payment_balances, call.payment_id) == null or reservation.refare_excess == 0),
    rebooking_price_diff, 0.99,
    id = "airline.flights.self",
    amount = reservation.refare_diff * size(reservation.passengers),
    args = { reservation_id: call.reservation_id,
             cabin: reservation.cabin,
             flights: reservation.flight_refs,
             payment_id: call.payment_id }).
% ... otherwise T4: no other tool sets a reservation's flights (manifest), so when the self-undo is not
% available the old itinerary is given up for good: a segment has flown, an old segment no longer has
% the seats for every passenger (the tool never releases seats, manifest notes), basic economy stays
% basic economy (policy: its flights cannot be modified back), or the reservation is cancelled.
irreversibly_consumes(update_reservation_flights, reservation.flights, itinerary_given_up, 1.0,
    id = "airline.flights.final",
    when = not (reservation.status != "cancelled" and reservation.flown == false
        and reservation.rebookable == true
        and (reservation.cabin != "basic_economy" or call.cabin != "basic_economy"))).

% update_reservation_passengers — T2: the passenger list is replaced wholesale (manifest), so writing the
% old list back is exact; the count cannot change (checked in code), and a cancelled reservation is not
% edited.
bounded_reversibility(update_reservation_passengers,
    reservation.status != "cancelled",
    none, 0.99,
    id = "airline.passengers.self",
    args = { reservation_id: call.reservation_id,
             passengers: reservation.passengers }).

% send_certificate — T5 (email) first: the manifest marks it external and the paper's table files it
% under user-intent tools with sink `email`; that edge decides the verdict. T4 records what it consumes:
% a money-like certificate with no revoke tool, from a pool of three ids ("Too many certificates").
external_side_effect(send_certificate, email, 1.0, id = "airline.certificate.email").
irreversibly_consumes(send_certificate, user.payment_methods, compensation_issued, 1.0,
    id = "airline.certificate.consumed").

% transfer_to_human_agents — T5: no db change, but the conversation is handed to a human and ends
% (manifest: external, "irreversible handoff").
external_side_effect(transfer_to_human_agents, human_handoff, 1.0, id = "airline.transfer").
