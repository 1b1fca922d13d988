% Conformance ontology: an airline-like domain where cancelling and re-booking gives a new id.
slot_definition(reservation, status, string).
slot_definition(reservation, flights, list).
slot_definition(reservation, cabin, string).
slot_definition(reservation, first_departure, datetime).
slot_definition(reservation, user_id, string).
slot_definition(user, name, string).

loss_class_definition(cancellation_fee, weight = 0.2).

tool(book_reservation, acts_on = user, key = user_id, creates = reservation, new_key = reservation_id).
tool(cancel_reservation, acts_on = reservation, key = reservation_id).
tool(update_reservation_flights, acts_on = reservation, key = reservation_id).
tool(update_reservation_cabin, acts_on = reservation, key = reservation_id).
read_only(get_reservation_details, get_user_details).

inverse_of(cancel_reservation, book_reservation, reservation.status, 0.95, id = "air.book",
    args = { reservation_id: new.id }).
compensates(book_reservation, cancel_reservation, reservation.status, cancellation_fee, 0.9, id = "air.cancel",
    identity = new, args = { user_id: reservation.user_id, flights: reservation.flights }).
bounded_reversibility(update_reservation_flights,
    reservation.status != "cancelled" and now < reservation.first_departure, none, 0.99, id = "air.flights",
    args = { reservation_id: call.reservation_id, flights: reservation.flights }).
bounded_reversibility(update_reservation_cabin, reservation.status != "cancelled", none, 0.96, id = "air.cabin",
    args = { reservation_id: call.reservation_id, cabin: reservation.cabin }).
