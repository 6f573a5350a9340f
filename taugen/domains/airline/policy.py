"""The airline policy as code: rules computed from the pack's typed facts.

The defect validators replay every gold write through these rules (K1 a write the policy forbids, K3 an
amount the facts compute differently), naming the facts a write breaks. Every number and yes/no comes
from a fact (:class:`~taugen.generators.policy.PolicyContext` ``value``), so editing a fact in YAML moves
the rules with it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from taugen.generators.policy import PolicyContext, PolicyRule, Violation

from .db import FlightCancelled, FlightDB, FlightDelayed, FlightFlying, FlightLanded, Reservation

_COVERED_REASON = re.compile(r"\b(health|medical|doctor|ill|illness|sick|weather|storm|hurricane)\b", re.I)


def _value(context: PolicyContext, fact_id: str) -> Any:
    value = context.value(fact_id)
    if value is None:
        return None
    for attribute in ("value", "amount"):
        if hasattr(value, attribute):
            return getattr(value, attribute)
    return None


def _reservation(context: PolicyContext, arguments: dict[str, Any]) -> Reservation | None:
    state: FlightDB = context.state  # type: ignore[assignment]
    return state.reservations.get(arguments.get("reservation_id", "")) if isinstance(
        arguments.get("reservation_id"), str) else None


def _statuses(context: PolicyContext, reservation: Reservation) -> list[Any]:
    state: FlightDB = context.state  # type: ignore[assignment]
    found = []
    for leg in reservation.flights:
        flight = state.flights.get(leg.flight_number)
        found.append(flight.dates.get(leg.date) if flight is not None else None)
    return found


def _flown(context: PolicyContext, reservation: Reservation) -> bool:
    return any(isinstance(s, (FlightLanded, FlightFlying)) for s in _statuses(context, reservation))


# ------------------------------------------------------------------------------------------ cancellation
CANCEL_FACTS = ("cancel_within_24_hours_of_booking", "cancel_allowed_when_airline_cancelled",
                "cancel_allowed_for_business", "cancel_allowed_with_insurance_covered_reason",
                "cancel_otherwise_refused", "cancel_after_flown_needs_transfer")


def cancellation_grounds(context: PolicyContext, reservation: Reservation) -> list[str]:
    """The facts that allow cancelling ``reservation`` at ``context.now`` (empty: none does)."""
    grounds = []
    booked = dt.datetime.fromisoformat(reservation.created_at)
    hours = (context.now.replace(tzinfo=None) - booked).total_seconds() / 3600
    window = _value(context, "cancel_within_24_hours_of_booking")
    if window is not None and hours <= float(window):
        grounds.append("cancel_within_24_hours_of_booking")
    if _value(context, "cancel_allowed_when_airline_cancelled") and any(
            isinstance(s, FlightCancelled) for s in _statuses(context, reservation)):
        grounds.append("cancel_allowed_when_airline_cancelled")
    if _value(context, "cancel_allowed_for_business") and reservation.cabin == "business":
        grounds.append("cancel_allowed_for_business")
    if (_value(context, "cancel_allowed_with_insurance_covered_reason") and reservation.insurance == "yes"
            and _COVERED_REASON.search(context.scenario or "")):
        grounds.append("cancel_allowed_with_insurance_covered_reason")
    if _value(context, "cancel_otherwise_refused"):
        grounds.append("cancel_otherwise_refused")
    return grounds


def _cancel(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    reservation = _reservation(context, arguments)
    if reservation is None:
        return []
    if _flown(context, reservation):
        return [Violation("cancellation_rules", ("cancel_after_flown_needs_transfer",),
                          f"{tool} cancels {reservation.reservation_id}, part of which has been flown")]
    if cancellation_grounds(context, reservation):
        return []
    return [Violation("cancellation_rules", CANCEL_FACTS[:5],
                      f"{tool} cancels {reservation.reservation_id}: not booked within the window, no flight cancelled "
                      "by the airline, not business, no insurance covering the reason")]


def _cancel_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    reservation = _reservation(context, arguments)
    if reservation is None:
        return None
    return {"grounds": cancellation_grounds(context, reservation), "flown": _flown(context, reservation)}


def _cancel_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Cancellations the scenario asks for: a reservation of the customer named in a sentence that says
    "cancel" (not "cancelled": a flight the airline cancelled is no request)."""
    state: FlightDB = context.state  # type: ignore[assignment]
    user = state.users.get(customer_id)
    if user is None:
        return []
    sentences = re.split(r"(?<=[.;!?])\s+", context.scenario or "")
    asked = [s for s in sentences if re.search(r"\bcancel\b", s, re.I) and not re.search(r"\b(not|never)\b", s, re.I)]
    return [("cancel_reservation", {"reservation_id": reservation_id}) for reservation_id in sorted(user.reservations)
            if state.reservations.get(reservation_id) is not None
            and state.reservations[reservation_id].status != "cancelled"
            and any(reservation_id in sentence for sentence in asked)]


CANCELLATION = PolicyRule(name="cancellation_rules", facts=CANCEL_FACTS, tools=("cancel_reservation",),
                          check=_cancel, inputs=_cancel_inputs, candidates=_cancel_candidates,
                          description="A reservation is cancelled only when booked within the window, cancelled by "
                                      "the airline, in business, or insured for the reason given; never once flown.")


# ------------------------------------------------------------------------------------------ flight and cabin changes
def _flight_change(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    reservation = _reservation(context, arguments)
    if reservation is None:
        return []
    state: FlightDB = context.state  # type: ignore[assignment]
    found: list[Violation] = []
    wanted = [(f.get("flight_number"), f.get("date")) for f in arguments.get("flights") or [] if isinstance(f, dict)]
    current = [(leg.flight_number, leg.date) for leg in reservation.flights]
    cabin = arguments.get("cabin")
    if wanted != current and reservation.cabin == "basic_economy" \
            and not _value(context, "basic_economy_flights_not_modifiable"):
        found.append(Violation("flight_change_rules", ("basic_economy_flights_not_modifiable",),
                               f"{tool} changes the flights of basic economy reservation {reservation.reservation_id}"))
    if wanted != current and wanted:
        first = state.flights.get(wanted[0][0])
        last = state.flights.get(wanted[-1][0])
        if first is not None and last is not None and reservation.flight_type == "one_way" and (
                first.origin != reservation.origin or last.destination != reservation.destination):
            found.append(Violation("flight_change_rules", ("change_keeps_origin_destination_trip_type",),
                                   f"{tool} changes the origin or destination of {reservation.reservation_id}"))
        elif not _value(context, "change_keeps_origin_destination_trip_type"):
            found.append(Violation("flight_change_rules", ("change_keeps_origin_destination_trip_type",),
                                   f"{tool} changes the flights of {reservation.reservation_id}"))
    if cabin != reservation.cabin:
        if _flown(context, reservation):
            found.append(Violation("flight_change_rules", ("cabin_change_not_after_any_flight_flown",),
                                   f"{tool} changes the cabin of {reservation.reservation_id} after a flight was flown"))
        if reservation.cabin == "basic_economy" and not _value(context, "cabin_change_allowed_for_basic_economy"):
            found.append(Violation("flight_change_rules", ("cabin_change_allowed_for_basic_economy",),
                                   f"{tool} changes the cabin of basic economy reservation {reservation.reservation_id}"))
    user = state.users.get(reservation.user_id)
    method = user.payment_methods.get(arguments.get("payment_id", "")) if user is not None else None
    if method is not None and method.source == "certificate" \
            and not _value(context, "flight_change_payment_gift_card_or_credit_card"):
        found.append(Violation("flight_change_rules", ("flight_change_payment_gift_card_or_credit_card",),
                               f"{tool} pays a change with a travel certificate"))
    return found


def _change_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    reservation = _reservation(context, arguments)
    if reservation is None:
        return None
    wanted = [(f.get("flight_number"), f.get("date")) for f in arguments.get("flights") or [] if isinstance(f, dict)]
    return {"cabin": reservation.cabin, "new_cabin": arguments.get("cabin"),
            "flights_changed": wanted != [(leg.flight_number, leg.date) for leg in reservation.flights],
            "flown": _flown(context, reservation)}


FLIGHT_CHANGES = PolicyRule(name="flight_change_rules",
                            facts=("basic_economy_flights_not_modifiable", "change_keeps_origin_destination_trip_type",
                                   "cabin_change_not_after_any_flight_flown", "cabin_change_allowed_for_basic_economy",
                                   "flight_change_payment_gift_card_or_credit_card"),
                            tools=("update_reservation_flights",), check=_flight_change, inputs=_change_inputs,
                            description="Basic economy flights are never changed; a change keeps origin and "
                                        "destination; any reservation may change cabin before it is flown; a change "
                                        "is paid by gift card or credit card.")


# ------------------------------------------------------------------------------------------ checked bags
def free_allowance(context: PolicyContext, membership: str, cabin: str) -> tuple[str, int | None]:
    """The fact id and free checked bags per passenger of a ``membership`` member's ``cabin`` passenger."""
    fact_id = f"free_bags_{membership}_{cabin}"
    value = _value(context, fact_id)
    return fact_id, None if value is None else int(value)


def _bags(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    reservation = _reservation(context, arguments)
    if reservation is None:
        return []
    state: FlightDB = context.state  # type: ignore[assignment]
    found = []
    total, nonfree = arguments.get("total_baggages"), arguments.get("nonfree_baggages")
    if not isinstance(total, int) or not isinstance(nonfree, int):
        return []
    if total < reservation.total_baggages and not _value(context, "checked_bags_cannot_be_removed"):
        found.append(Violation("checked_bag_rules", ("checked_bags_cannot_be_removed",),
                               f"{tool} removes checked bags from {reservation.reservation_id}"))
    user = state.users.get(reservation.user_id)
    if user is not None:
        fact_id, free = free_allowance(context, user.membership, reservation.cabin)
        if free is not None:
            expected = max(0, total - free * len(reservation.passengers))
            if nonfree != expected:
                found.append(Violation("checked_bag_rules", (fact_id,),
                                       f"{nonfree} paid bags of {total}; the allowance leaves {expected}",
                                       kind="amount", argument="nonfree_baggages", expected=expected))
    return found


def _bag_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    reservation = _reservation(context, arguments)
    state: FlightDB = context.state  # type: ignore[assignment]
    if reservation is None or reservation.user_id not in state.users:
        return None
    return {"membership": state.users[reservation.user_id].membership, "cabin": reservation.cabin,
            "passengers": len(reservation.passengers), "total": arguments.get("total_baggages")}


CHECKED_BAGS = PolicyRule(name="checked_bag_rules", facts=("checked_bags_cannot_be_removed",),
                          facts_from=lambda source: tuple(f for f in source.ids() if f.startswith("free_bags_")),
                          tools=("update_reservation_baggages",), check=_bags, inputs=_bag_inputs,
                          description="Bags are only added; the paid bags are those beyond the allowance of the "
                                      "booking user's membership and the cabin, per passenger.")


# ------------------------------------------------------------------------------------------ booking
def _booking(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    state: FlightDB = context.state  # type: ignore[assignment]
    user = state.users.get(arguments.get("user_id", "")) if isinstance(arguments.get("user_id"), str) else None
    if user is None:
        return []
    found = []
    passengers = arguments.get("passengers") or []
    payments = [p for p in arguments.get("payment_methods") or [] if isinstance(p, dict)]
    limit = _value(context, "max_passengers_per_reservation")
    if limit is not None and len(passengers) > int(limit):
        found.append(Violation("booking_rules", ("max_passengers_per_reservation",),
                               f"{len(passengers)} passengers on one reservation"))
    sources = [user.payment_methods[p.get("payment_id")].source for p in payments
               if p.get("payment_id") in user.payment_methods]
    for source, fact_id in (("certificate", "max_travel_certificates_per_reservation"),
                            ("credit_card", "max_credit_cards_per_reservation"),
                            ("gift_card", "max_gift_cards_per_reservation")):
        cap = _value(context, fact_id)
        if cap is not None and sources.count(source) > int(cap):
            found.append(Violation("booking_rules", (fact_id,), f"{sources.count(source)} payments by {source}"))
    if len(sources) != len(payments) and _value(context, "payment_methods_must_be_on_profile"):
        found.append(Violation("booking_rules", ("payment_methods_must_be_on_profile",),
                               "a payment method that is not in the user's profile"))
    cabin, total_bags, nonfree = arguments.get("cabin"), arguments.get("total_baggages"), arguments.get("nonfree_baggages")
    if isinstance(total_bags, int) and isinstance(nonfree, int) and isinstance(cabin, str):
        fact_id, free = free_allowance(context, user.membership, cabin)
        if free is not None:
            expected = max(0, total_bags - free * len(passengers))
            if nonfree != expected:
                found.append(Violation("booking_rules", (fact_id,), f"{nonfree} paid bags; the allowance leaves {expected}",
                                       kind="amount", argument="nonfree_baggages", expected=expected))
                nonfree = expected
        fare = 0
        for leg in arguments.get("flights") or []:
            flight = state.flights.get(leg.get("flight_number")) if isinstance(leg, dict) else None
            status = flight.dates.get(leg.get("date")) if flight is not None else None
            prices = getattr(status, "prices", None)
            if prices is None:
                return found  # not bookable: the tool refuses it
            fare += prices.get(cabin, 0) * len(passengers)
        insurance = _value(context, "travel_insurance_price_per_passenger")
        bag_fee = _value(context, "checked_bag_extra_fee")
        if insurance is None or bag_fee is None:
            return found
        expected_total = fare + (int(insurance) * len(passengers) if arguments.get("insurance") == "yes" else 0) \
            + int(bag_fee) * nonfree
        paid = sum(p.get("amount", 0) for p in payments if isinstance(p.get("amount"), (int, float)))
        if paid != expected_total:
            found.append(Violation("booking_rules", ("travel_insurance_price_per_passenger", "checked_bag_extra_fee"),
                                   f"payments add up to {paid}; the fares, insurance and bags come to {expected_total}",
                                   kind="amount", argument="payment_methods", expected=expected_total))
    return found


BOOKING = PolicyRule(name="booking_rules",
                     facts=("max_passengers_per_reservation", "max_travel_certificates_per_reservation",
                            "max_credit_cards_per_reservation", "max_gift_cards_per_reservation",
                            "payment_methods_must_be_on_profile", "travel_insurance_price_per_passenger",
                            "checked_bag_extra_fee"),
                     facts_from=lambda source: tuple(f for f in source.ids() if f.startswith("free_bags_")),
                     tools=("book_reservation",), check=_booking,
                     description="At most five passengers; at most one certificate, one credit card and three gift "
                                 "cards, all on the profile; the payments add up to the fares, the insurance per "
                                 "passenger and the bags beyond the allowance.")


# ------------------------------------------------------------------------------------------ passengers
def _passengers(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    reservation = _reservation(context, arguments)
    if reservation is None:
        return []
    if not _value(context, "passengers_can_be_modified"):
        return [Violation("passenger_rules", ("passengers_can_be_modified",),
                          f"{tool} changes the passengers of {reservation.reservation_id}")]
    if len(arguments.get("passengers") or []) != len(reservation.passengers) \
            and not _value(context, "passenger_count_cannot_change"):
        return [Violation("passenger_rules", ("passenger_count_cannot_change",),
                          f"{tool} changes the number of passengers of {reservation.reservation_id}")]
    return []


PASSENGERS = PolicyRule(name="passenger_rules", facts=("passengers_can_be_modified", "passenger_count_cannot_change"),
                        tools=("update_reservation_passengers",), check=_passengers,
                        description="Passengers can be replaced; their number never changes.")


# ------------------------------------------------------------------------------------------ compensation
COMPENSATION_FACTS = ("compensation_cancelled_flight_per_passenger", "compensation_delayed_flight_per_passenger",
                      "compensation_eligible_silver_gold", "compensation_eligible_with_insurance",
                      "compensation_eligible_business", "no_compensation_regular_uninsured_economy",
                      "delayed_compensation_needs_change_or_cancel")


def eligible_for_compensation(context: PolicyContext, membership: str, reservation: Reservation) -> bool:
    """Whether the policy lets the agent compensate this member for this reservation."""
    if membership in ("silver", "gold") and _value(context, "compensation_eligible_silver_gold"):
        return True
    if reservation.insurance == "yes" and _value(context, "compensation_eligible_with_insurance"):
        return True
    if reservation.cabin == "business" and _value(context, "compensation_eligible_business"):
        return True
    return bool(_value(context, "no_compensation_regular_uninsured_economy"))


def compensation_amounts(context: PolicyContext, user_id: str, only: list[str] | None = None) -> dict[int, str]:
    """The certificate amounts the policy allows for the user now: amount → the fact that sets it (``only``:
    for these reservations alone)."""
    state: FlightDB = context.state  # type: ignore[assignment]
    user = state.users.get(user_id)
    if user is None:
        return {}
    changed = {arguments.get("reservation_id") for tool, arguments in context.calls
               if tool in ("cancel_reservation", "update_reservation_flights")}
    cancelled_rate = _value(context, "compensation_cancelled_flight_per_passenger")
    delayed_rate = _value(context, "compensation_delayed_flight_per_passenger")
    allowed: dict[int, str] = {}
    for reservation_id in (user.reservations if only is None else only):
        reservation = state.reservations.get(reservation_id)
        if reservation is None or not eligible_for_compensation(context, user.membership, reservation):
            continue
        statuses = _statuses(context, reservation)
        delays = list(statuses)
        if reservation_id in changed:  # a change moved the trip off today's delayed flight: today's flights count
            delays += [state.flights[leg.flight_number].dates.get(context.today.isoformat())
                       for leg in reservation.flights if leg.flight_number in state.flights]
        count = len(reservation.passengers)
        if cancelled_rate is not None and any(isinstance(s, FlightCancelled) for s in statuses):
            allowed[int(cancelled_rate) * count] = "compensation_cancelled_flight_per_passenger"
        if delayed_rate is not None and any(isinstance(s, FlightDelayed) for s in delays) and (
                reservation_id in changed or not _value(context, "delayed_compensation_needs_change_or_cancel")):
            allowed[int(delayed_rate) * count] = "compensation_delayed_flight_per_passenger"
    return allowed


def _compensation(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    user_id, amount = arguments.get("user_id"), arguments.get("amount")
    if not isinstance(user_id, str) or not isinstance(amount, (int, float)):
        return []
    allowed = compensation_amounts(context, user_id)
    if amount in allowed:
        return []
    if not allowed:
        return [Violation("compensation_rules", COMPENSATION_FACTS,
                          f"{tool} compensates {user_id}, who has no eligible cancelled or delayed reservation")]
    expected = sorted(allowed)[0] if len(allowed) == 1 else None
    return [Violation("compensation_rules", tuple(sorted(set(allowed.values()))),
                      f"certificate of {amount}; the policy allows {', '.join(map(str, sorted(allowed)))}",
                      kind="amount", argument="amount", expected=expected)]


_ASKS_COMPENSATION = re.compile(r"\bask\w*\b[^.]{0,40}\bcompensat\w*", re.I)


def _compensation_owed(context: PolicyContext) -> list[Violation]:
    """The user asks for compensation for a reservation the scenario names, the facts make it due, and the
    conversation sent no certificate: an omission (K11)."""
    if not _ASKS_COMPENSATION.search(context.scenario or "") or any(
            tool == "send_certificate" for tool, _ in context.calls):
        return []
    state: FlightDB = context.state  # type: ignore[assignment]
    users = {arguments.get("user_id") for tool, arguments in context.calls if tool == "get_user_details"}
    for user_id in sorted(u for u in users if isinstance(u, str) and u in state.users):
        named = [r for r in state.users[user_id].reservations if r in (context.scenario or "")]
        allowed = compensation_amounts(context, user_id, only=named)
        if allowed:
            return [Violation("compensation_rules", tuple(sorted(set(allowed.values()))),
                              f"the user asks for compensation, the facts allow a certificate of "
                              f"{', '.join(map(str, sorted(allowed)))} and none is sent", kind="omission")]
    return []


def _compensation_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Certificates the scenario asks for: when it asks for compensation, for each reservation of the customer
    it names that has a cancelled or delayed flight, the per-passenger amount for that disruption times the
    passengers, whether or not the member is eligible (the rule's check decides that: a request it refuses on
    every candidate is a refused request, which the scenario must script a reaction to, K10)."""
    if not _ASKS_COMPENSATION.search(context.scenario or ""):
        return []
    state: FlightDB = context.state  # type: ignore[assignment]
    user = state.users.get(customer_id)
    if user is None:
        return []
    rates = ((FlightCancelled, _value(context, "compensation_cancelled_flight_per_passenger")),
             (FlightDelayed, _value(context, "compensation_delayed_flight_per_passenger")))
    found: list[tuple[str, dict[str, Any]]] = []
    for reservation_id in sorted(user.reservations):
        reservation = state.reservations.get(reservation_id)
        if reservation is None or reservation_id not in (context.scenario or ""):
            continue
        statuses = _statuses(context, reservation)
        for status, rate in rates:
            if rate is not None and any(isinstance(s, status) for s in statuses):
                call = ("send_certificate", {"user_id": customer_id, "amount": int(rate) * len(reservation.passengers)})
                if call not in found:
                    found.append(call)
    return found


COMPENSATION = PolicyRule(name="compensation_rules", facts=COMPENSATION_FACTS, tools=("send_certificate",),
                          check=_compensation, settle=_compensation_owed, candidates=_compensation_candidates,
                          inputs=lambda context, tool, arguments: {"allowed": sorted(compensation_amounts(
                              context, arguments.get("user_id", "")))} if isinstance(arguments.get("user_id"), str)
                          else None,
                          description="A certificate goes only to silver or gold members, insured or business "
                                      "travellers: the per-passenger amount for a cancelled flight, or for a delayed "
                                      "one once the reservation was changed or cancelled.")


RULES: tuple[PolicyRule, ...] = (CANCELLATION, FLIGHT_CHANGES, CHECKED_BAGS, BOOKING, PASSENGERS, COMPENSATION)
