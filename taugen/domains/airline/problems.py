"""Problem functions of the airline domain: what a caller wants, the world that makes it so, the gold.

Every problem builds its own reservation for the caller in ``setup`` (flights on dates of its own slot, so
that problems composed into one task never touch the same flights or seats), says what the simulated
user knows and wants, returns the gold tool calls in ``solve`` (decided by the facts it declares: every
value comes from ``context.value``, never from a literal) and lists what is still unmet in ``check``.

Problems whose request the policy refuses (``outcome = "refuse"``) give the user a fallback the policy
allows (tau2's airline tasks do the same: "if the agent cannot cancel, change the flight instead"), so
the gold always changes the database: a do-nothing run never passes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

from taugen.generators.problems import GoldCall, Problem, ProblemContext, ScenarioFragment

from .db import (CABINS, FlightAvailable, FlightCancelled, FlightDB, FlightDelayed, Passenger, Payment, Reservation,
                 ReservationFlight, User)
from .tools import INSURANCE_FEE_PER_PASSENGER
from .world import reservation_code

CABIN_WORDS = {"basic_economy": "basic economy", "economy": "economy", "business": "business"}
SLOT_DAYS: dict[str, tuple[str, ...]] = {
    "cancel": ("2024-05-18", "2024-05-19", "2024-05-20"),
    "change": ("2024-05-21", "2024-05-22"),
    "change_to": ("2024-05-23", "2024-05-24", "2024-05-25"),
    "cabin": ("2024-05-26", "2024-05-27"),
    "baggage": ("2024-05-17", "2024-05-18"),
    "passengers": ("2024-05-19", "2024-05-20"),
    "booking": ("2024-05-28", "2024-05-29", "2024-05-30"),
}
"""The flight dates each slot's reservations use (bookings, the only writes to seats, have their own)."""
DISRUPTED_DAYS = ("2024-05-15", "2024-05-16", "2024-05-17")
"""Dates whose cancelled or delayed flights the disruption problems build reservations on."""


def _db(context: ProblemContext) -> FlightDB:
    return context.toolkit.db  # type: ignore[return-value]


def _user(context: ProblemContext) -> User:
    return _db(context).users[context.customer_id]


def _flag(context: ProblemContext, fact_id: str) -> bool:
    return bool(context.value(fact_id).value)  # type: ignore[attr-defined]


def _number(context: ProblemContext, fact_id: str) -> int:
    value = context.value(fact_id)
    return int(getattr(value, "value", None) if hasattr(value, "value") else value.amount)  # type: ignore[attr-defined]


def _money(context: ProblemContext, fact_id: str) -> int:
    return int(context.value(fact_id).amount)  # type: ignore[attr-defined]


def _card(user: User):
    return sorted((m for m in user.payment_methods.values() if m.source == "credit_card"), key=lambda m: m.id)[0]


def _paying_card(context: ProblemContext):
    """The task user's first credit card (by id), remembered in ``context.state["card"]`` for the gold."""
    card = _card(_user(context))
    context.state["card"] = card.id
    return card


def _reservation_lookup(context: ProblemContext) -> GoldCall:
    """The gold's first step: reading the task's reservation."""
    return GoldCall("get_reservation_details", {"reservation_id": context.state["reservation_id"]})


def _stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _now(context: ProblemContext) -> dt.datetime:
    return context.pack.now.replace(tzinfo=None)


def free_bags(context_or_pack: Any, membership: str, cabin: str) -> int:
    """The free checked bags per passenger of a ``membership`` member's ``cabin`` passenger (from the facts)."""
    pack = getattr(context_or_pack, "pack", context_or_pack)
    return int(pack.fact(f"free_bags_{membership}_{cabin}").value.value)


def _passengers(user: User, count: int) -> list[Passenger]:
    people = [Passenger(first_name=user.name.first_name, last_name=user.name.last_name, dob=user.dob)]
    return (people + [p.model_copy() for p in user.saved_passengers])[:count]


def calculation(expression: str) -> GoldCall:
    """A ``calculate`` step of the gold (its wording is the agent's own: tau2 compares none of its arguments)."""
    return GoldCall("calculate", {"expression": expression}, compare_args=[])


def _flight_dates(db: FlightDB, days: tuple[str, ...], want, seats: int = 0, cabin: str | None = None
                  ) -> list[tuple[str, str]]:
    """``(flight number, date)`` pairs on ``days`` whose status is of type ``want`` (with ``seats`` free in
    ``cabin`` when bookable), sorted."""
    found = []
    for number in sorted(db.flights):
        for day in days:
            status = db.flights[number].dates.get(day)
            if not isinstance(status, want):
                continue
            if isinstance(status, FlightAvailable) and cabin is not None and status.available_seats[cabin] < seats:
                continue
            found.append((number, day))
    return found


def _add_reservation(context: ProblemContext, flight: str, day: str, cabin: str, passengers: int,
                     insurance: str = "no", booked_hours_ago: float = 120.0, bags: int = 0) -> Reservation:
    """Put a new one-way reservation of the caller into the world and return it."""
    db = _db(context)
    user = _user(context)
    schedule = db.flights[flight]
    status = schedule.dates[day]
    price = status.prices[cabin] if isinstance(status, FlightAvailable) else context.rng.randint(80, 400)
    people = _passengers(user, passengers)
    code = reservation_code(context.rng)
    while code in db.reservations:
        code = reservation_code(context.rng)
    total = price * len(people) + (INSURANCE_FEE_PER_PASSENGER * len(people) if insurance == "yes" else 0)
    booked = _now(context) - dt.timedelta(hours=booked_hours_ago)
    reservation = Reservation(
        reservation_id=code, user_id=user.user_id, origin=schedule.origin, destination=schedule.destination,
        flight_type="one_way", cabin=cabin,
        flights=[ReservationFlight(flight_number=flight, origin=schedule.origin, destination=schedule.destination,
                                   date=day, price=price)],
        passengers=people, payment_history=[Payment(payment_id=_card(user).id, amount=total)],
        created_at=_stamp(booked), total_baggages=bags, nonfree_baggages=0, insurance=insurance)
    db.reservations[code] = reservation
    user.reservations.append(code)
    context.state.update(reservation_id=code, passengers=len(people), flight=flight, day=day, cabin=cabin)
    return reservation


def _pick(context: ProblemContext, options: list[tuple[str, str]]) -> tuple[str, str]:
    if not options:
        raise LookupError("no flight fits the problem")
    return options[context.rng.randrange(len(options))]


def _cancelled(context: ProblemContext) -> bool:
    reservation = _db(context).reservations[context.state["reservation_id"]]
    return reservation.status == "cancelled"


def _trip_line(context: ProblemContext) -> str:
    state = context.state
    schedule = _db(context).flights[state["flight"]]
    return (f"Your reservation {state['reservation_id']} is a one-way {CABIN_WORDS[state['cabin']]} trip from "
            f"{schedule.origin} to {schedule.destination} on flight {state['flight']} on {state['day']}.")


class UserIdentification(Problem):
    """Every task opens with it: the caller gives their user id and the agent reads the profile."""

    name = "user_identification"
    slot = "identity"
    facts = ()
    context_facts = ("booking_obtain_user_id_first", "user_must_provide_user_id")
    summary = "Obtain the user id from the caller and read the profile."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        user = _user(context)
        context.state["user_id"] = user.user_id
        return ScenarioFragment(
            reason_for_call="",
            known_info=[f"You are {user.name.first_name} {user.name.last_name}.", f"Your user id is {user.user_id}."],
            task_instructions=["Give your user id when the agent asks for it. Answer yes when the agent lists the "
                               "details of an action you asked for and asks you to confirm."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        return [GoldCall("get_user_details", {"user_id": context.customer_id})]

    def check(self, context: ProblemContext) -> list[str]:
        return []


# ----------------------------------------------------------------------------------------------- cancel
class _Cancel(Problem):
    """A caller asks to cancel a reservation; ``allowed`` says whether a declared fact lets it happen."""

    slot = "cancel"
    reason: ClassVar[str] = "a change of plans"

    def allowed(self, context: ProblemContext) -> bool:
        raise NotImplementedError

    def reason_line(self, context: ProblemContext) -> str:
        return f"You want to cancel reservation {context.state['reservation_id']} because of {self.reason}."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        self.make(context)
        return ScenarioFragment(
            reason_for_call=self.reason_line(context),
            known_info=[_trip_line(context), f"You are cancelling because of {self.reason}."],
            task_instructions=self.fallback_instructions(context))

    def make(self, context: ProblemContext) -> None:
        raise NotImplementedError

    def fallback_instructions(self, context: ProblemContext) -> list[str]:
        return ["If the agent says the reservation cannot be cancelled, accept it."]

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        if self.allowed(context):
            calls.append(GoldCall("cancel_reservation", {"reservation_id": context.state["reservation_id"]}))
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        if self.allowed(context):
            return [] if _cancelled(context) else ["the reservation was not cancelled"]
        return ["the reservation was cancelled against the policy"] if _cancelled(context) else []

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        if self.allowed(context):
            return []
        return [GoldCall("cancel_reservation", {"reservation_id": context.state["reservation_id"]})]


class CancelRecentBooking(_Cancel):
    """Booked less than the cancellation window ago (half an hour inside it): the cancellation goes through."""

    name = "cancel_recent_booking"
    facts = ("cancel_within_24_hours_of_booking",)
    context_facts = ("cancellation_reason_required", "refund_to_original_payment_methods")
    summary = "Cancel an economy reservation booked within the cancellation window."

    def make(self, context: ProblemContext) -> None:
        window = _number(context, "cancel_within_24_hours_of_booking")
        flight, day = _pick(context, _flight_dates(_db(context), SLOT_DAYS["cancel"], FlightAvailable))
        _add_reservation(context, flight, day, "economy", 1, booked_hours_ago=window - 0.5)
        context.state["hours_ago"] = window - 0.5

    def allowed(self, context: ProblemContext) -> bool:
        return context.state["hours_ago"] <= _number(context, "cancel_within_24_hours_of_booking")


class CancelAirlineCancelledFlight(_Cancel):
    """The airline cancelled the reservation's flight: the cancellation goes through."""

    name = "cancel_airline_cancelled_flight"
    facts = ("cancel_allowed_when_airline_cancelled",)
    context_facts = ("cancellation_reason_required",)
    summary = "Cancel a reservation whose flight the airline cancelled."
    reason = "the airline cancelling the flight"

    def make(self, context: ProblemContext) -> None:
        flight, day = _pick(context, _flight_dates(_db(context), DISRUPTED_DAYS[1:], FlightCancelled))
        _add_reservation(context, flight, day, context.rng.choice(["basic_economy", "economy"]), 1)

    def allowed(self, context: ProblemContext) -> bool:
        return _flag(context, "cancel_allowed_when_airline_cancelled")


class CancelBusinessReservation(_Cancel):
    """A business reservation booked days ago, no insurance: the cancellation goes through."""

    name = "cancel_business_reservation"
    facts = ("cancel_allowed_for_business",)
    context_facts = ("cancellation_reason_required",)
    summary = "Cancel a business reservation booked days ago."

    def make(self, context: ProblemContext) -> None:
        flight, day = _pick(context, _flight_dates(_db(context), SLOT_DAYS["cancel"], FlightAvailable))
        _add_reservation(context, flight, day, "business", 1, booked_hours_ago=24 * context.rng.randint(3, 9))

    def allowed(self, context: ProblemContext) -> bool:
        return _flag(context, "cancel_allowed_for_business")


class CancelInsuredForHealth(_Cancel):
    """An insured economy reservation cancelled for a health reason the insurance covers."""

    name = "cancel_insured_for_health"
    facts = ("cancel_allowed_with_insurance_covered_reason",)
    context_facts = ("travel_insurance_full_refund_reasons",)
    summary = "Cancel an insured economy reservation for a health reason."
    reason = "a health problem (your doctor told you not to fly)"

    def make(self, context: ProblemContext) -> None:
        flight, day = _pick(context, _flight_dates(_db(context), SLOT_DAYS["cancel"], FlightAvailable))
        _add_reservation(context, flight, day, "economy", 1, insurance="yes",
                         booked_hours_ago=24 * context.rng.randint(3, 9))

    def allowed(self, context: ProblemContext) -> bool:
        return _flag(context, "cancel_allowed_with_insurance_covered_reason")


class CancelRefusedChangeInstead(_Cancel):
    """An uninsured economy reservation booked days ago, cancelled for a change of plans: refused; the caller
    moves the flight to a later date instead (economy flights can be changed)."""

    name = "cancel_refused_change_instead"
    facts = ("cancel_otherwise_refused",)
    context_facts = ("deny_requests_against_policy", "change_keeps_origin_destination_trip_type")
    outcome = "refuse"
    summary = "Refuse to cancel an uninsured economy reservation; move its flight to a later date instead."

    def make(self, context: ProblemContext) -> None:
        db = _db(context)
        movable = {g for g, _ in _flight_dates(db, SLOT_DAYS["change_to"], FlightAvailable, 1, "economy")}
        options = [(f, d) for f, d in _flight_dates(db, SLOT_DAYS["cancel"], FlightAvailable) if f in movable]
        flight, day = _pick(context, options)
        _add_reservation(context, flight, day, "economy", 1, booked_hours_ago=24 * context.rng.randint(3, 9))
        later = [d for g, d in _flight_dates(db, SLOT_DAYS["change_to"], FlightAvailable, 1, "economy") if g == flight]
        context.state["new_day"] = later[0]
        context.state["card"] = _card(_user(context)).id

    def fallback_instructions(self, context: ProblemContext) -> list[str]:
        card = _user(context).payment_methods[context.state["card"]]
        return [f"If the agent says the reservation cannot be cancelled, ask instead to move it to flight "
                f"{context.state['flight']} on {context.state['new_day']}, in the same cabin, paying any difference "
                f"with your {card.brand} credit card ending in {card.last_four}."]

    def allowed(self, context: ProblemContext) -> bool:
        return bool(context.value("cancel_otherwise_refused").value)  # type: ignore[attr-defined]

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = super().solve(context)
        if self.allowed(context):
            return calls
        return calls + [
            GoldCall("search_direct_flight", {"origin": _db(context).flights[context.state["flight"]].origin,
                                              "destination": _db(context).flights[context.state["flight"]].destination,
                                              "date": context.state["new_day"]}),
            GoldCall("update_reservation_flights", {
                "reservation_id": context.state["reservation_id"], "cabin": "economy",
                "flights": [{"flight_number": context.state["flight"], "date": context.state["new_day"]}],
                "payment_id": context.state["card"]})]

    def check(self, context: ProblemContext) -> list[str]:
        unmet = super().check(context)
        if not self.allowed(context):
            reservation = _db(context).reservations[context.state["reservation_id"]]
            if [f.date for f in reservation.flights] != [context.state["new_day"]]:
                unmet.append("the flight was not moved to the later date")
        return unmet


# ----------------------------------------------------------------------------------------------- change
class ChangeFlightDate(Problem):
    """An economy reservation moved to the same flight on a later date, the difference paid by card."""

    name = "change_flight_date"
    slot = "change"
    facts = ("change_keeps_origin_destination_trip_type",)
    context_facts = ("flight_change_payment_gift_card_or_credit_card", "modify_needs_user_and_reservation_id")
    summary = "Move an economy reservation to a later date on the same route."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        db = _db(context)
        later = _flight_dates(db, SLOT_DAYS["change_to"], FlightAvailable, 2, "economy")
        options = [(f, d) for f, d in _flight_dates(db, SLOT_DAYS["change"], FlightAvailable) if any(f == g for g, _ in later)]
        flight, day = _pick(context, options)
        _add_reservation(context, flight, day, "economy", context.rng.randint(1, 2),
                         booked_hours_ago=24 * context.rng.randint(3, 9))
        context.state["new_day"] = next(d for g, d in later if g == flight)
        card = _paying_card(context)
        return ScenarioFragment(
            reason_for_call=f"You want to move reservation {context.state['reservation_id']} to a later date.",
            known_info=[_trip_line(context)],
            task_instructions=[f"Ask to move it to flight {flight} on {context.state['new_day']}, same cabin, and pay "
                               f"any difference with your {card.brand} credit card ending in {card.last_four}."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        if not _flag(context, "change_keeps_origin_destination_trip_type"):
            return calls
        schedule = _db(context).flights[context.state["flight"]]
        return calls + [
            GoldCall("search_direct_flight", {"origin": schedule.origin, "destination": schedule.destination,
                                              "date": context.state["new_day"]}),
            GoldCall("update_reservation_flights", {
                "reservation_id": context.state["reservation_id"], "cabin": "economy",
                "flights": [{"flight_number": context.state["flight"], "date": context.state["new_day"]}],
                "payment_id": context.state["card"]})]

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        moved = [f.date for f in reservation.flights] == [context.state["new_day"]]
        if _flag(context, "change_keeps_origin_destination_trip_type"):
            return [] if moved else ["the flight was not moved to the later date"]
        return ["the flight was changed against the policy"] if moved else []


class BasicEconomyChangeRefused(Problem):
    """A basic economy reservation cannot change flights: refused; the caller upgrades the cabin to economy on
    the same flights instead (every reservation can change cabin)."""

    name = "basic_economy_change_refused"
    slot = "change"
    facts = ("basic_economy_flights_not_modifiable", "cabin_change_allowed_for_basic_economy")
    context_facts = ("cabin_change_for_whole_reservation", "cabin_upgrade_pays_difference")
    outcome = "refuse"
    summary = "Refuse to change a basic economy reservation's flights; upgrade its cabin to economy instead."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        db = _db(context)
        later = _flight_dates(db, SLOT_DAYS["change_to"], FlightAvailable, 2, "basic_economy")
        options = [(f, d) for f, d in _flight_dates(db, SLOT_DAYS["change"], FlightAvailable, 2, "economy")
                   if any(f == g for g, _ in later)]
        flight, day = _pick(context, options)
        _add_reservation(context, flight, day, "basic_economy", 1, booked_hours_ago=24 * context.rng.randint(3, 9))
        context.state["new_day"] = next(d for g, d in later if g == flight)
        card = _paying_card(context)
        return ScenarioFragment(
            reason_for_call=f"You want to move reservation {context.state['reservation_id']} to flight {flight} on "
                            f"{context.state['new_day']}.",
            known_info=[_trip_line(context)],
            task_instructions=[f"Pay any cost with your {card.brand} credit card ending in {card.last_four}.",
                               "If the agent says the flights cannot be changed, ask instead to upgrade the "
                               "reservation to economy on the same flight and date, and accept the price difference."])

    def _call(self, context: ProblemContext, day: str, cabin: str) -> GoldCall:
        return GoldCall("update_reservation_flights", {
            "reservation_id": context.state["reservation_id"], "cabin": cabin,
            "flights": [{"flight_number": context.state["flight"], "date": day}], "payment_id": context.state["card"]})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        if _flag(context, "basic_economy_flights_not_modifiable"):
            return calls + [self._call(context, context.state["new_day"], "basic_economy")]
        if _flag(context, "cabin_change_allowed_for_basic_economy"):
            return calls + [self._call(context, context.state["day"], "economy")]
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        dates = [f.date for f in reservation.flights]
        if _flag(context, "basic_economy_flights_not_modifiable"):
            return [] if dates == [context.state["new_day"]] else ["the flight was not moved"]
        unmet = ["the basic economy flights were changed"] if dates != [context.state["day"]] else []
        if _flag(context, "cabin_change_allowed_for_basic_economy") and reservation.cabin != "economy":
            unmet.append("the cabin was not upgraded to economy")
        return unmet

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        if _flag(context, "basic_economy_flights_not_modifiable"):
            return []
        return [self._call(context, context.state["new_day"], "economy")]


# ----------------------------------------------------------------------------------------------- cabin
class UpgradeBasicEconomyCabin(Problem):
    """A basic economy reservation upgraded to business on the same flight, paid with a card."""

    name = "upgrade_basic_economy_cabin"
    slot = "cabin"
    facts = ("cabin_change_allowed_for_basic_economy",)
    context_facts = ("cabin_change_for_whole_reservation", "cabin_upgrade_pays_difference")
    summary = "Upgrade a basic economy reservation to business without changing its flights."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        flight, day = _pick(context, _flight_dates(_db(context), SLOT_DAYS["cabin"], FlightAvailable, 2, "business"))
        _add_reservation(context, flight, day, "basic_economy", context.rng.randint(1, 2),
                         booked_hours_ago=24 * context.rng.randint(2, 9))
        card = _paying_card(context)
        return ScenarioFragment(
            reason_for_call=f"You want to upgrade reservation {context.state['reservation_id']} to business class.",
            known_info=[_trip_line(context)],
            task_instructions=[f"Keep the same flight and date. Pay the difference with your {card.brand} credit card "
                               f"ending in {card.last_four}."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        if not _flag(context, "cabin_change_allowed_for_basic_economy"):
            return calls
        return calls + [GoldCall("update_reservation_flights", {
            "reservation_id": context.state["reservation_id"], "cabin": "business",
            "flights": [{"flight_number": context.state["flight"], "date": context.state["day"]}],
            "payment_id": context.state["card"]})]

    def check(self, context: ProblemContext) -> list[str]:
        cabin = _db(context).reservations[context.state["reservation_id"]].cabin
        if _flag(context, "cabin_change_allowed_for_basic_economy"):
            return [] if cabin == "business" else ["the cabin was not upgraded to business"]
        return ["the cabin was changed against the policy"] if cabin != "basic_economy" else []


class CabinUpgradeRefusedAfterFlown(Problem):
    """A round trip whose outbound flight has been flown: the cabin cannot change any more; the caller moves the
    return flight to a later date instead, keeping the flown outbound segment."""

    name = "cabin_upgrade_refused_after_flown"
    slot = "cabin"
    facts = ("cabin_change_not_after_any_flight_flown",)
    context_facts = ("kept_segments_keep_original_price", "change_keeps_origin_destination_trip_type")
    outcome = "refuse"
    summary = "Refuse a cabin upgrade once the outbound flight was flown; move the return flight instead."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        db = _db(context)
        returns = {}
        for number, flight in sorted(db.flights.items()):
            back = [f for f in sorted(db.flights.values(), key=lambda f: f.flight_number)
                    if f.origin == flight.destination and f.destination == flight.origin]
            for other in back:
                first = [d for d in SLOT_DAYS["cabin"] if isinstance(other.dates.get(d), FlightAvailable)]
                later = [d for d in SLOT_DAYS["change_to"]
                         if isinstance(other.dates.get(d), FlightAvailable) and other.dates[d].available_seats["economy"] >= 1]
                flown = [d for d in ("2024-05-10", "2024-05-11", "2024-05-12") if flight.dates[d].status == "landed"]
                if first and later and flown:
                    returns[(number, flown[0])] = (other.flight_number, first[0], later[0])
        if not returns:
            raise LookupError("no round trip fits")
        (out_number, out_day) = sorted(returns)[context.rng.randrange(len(returns))]
        back_number, back_day, new_day = returns[(out_number, out_day)]
        reservation = _add_reservation(context, back_number, back_day, "economy", 1,
                                       booked_hours_ago=24 * context.rng.randint(8, 14))
        outbound = db.flights[out_number]
        price = context.rng.randint(100, 200)
        reservation.flights.insert(0, ReservationFlight(flight_number=out_number, origin=outbound.origin,
                                                        destination=outbound.destination, date=out_day, price=price))
        reservation.origin, reservation.destination, reservation.flight_type = outbound.origin, outbound.destination, \
            "round_trip"
        reservation.payment_history[0].amount += price
        card = _card(_user(context))
        context.state.update(out=(out_number, out_day), back=(back_number, back_day), new_day=new_day, card=card.id)
        return ScenarioFragment(
            reason_for_call=f"You want to upgrade your round trip {reservation.reservation_id} to business class for "
                            "the flight home.",
            known_info=[f"Your reservation {reservation.reservation_id} is a round trip in economy from "
                        f"{outbound.origin} to {outbound.destination}: you flew out on flight {out_number} on {out_day} "
                        f"and fly home on flight {back_number} on {back_day}."],
            task_instructions=[f"If the agent refuses the upgrade, ask instead to move only the flight home "
                               f"to flight {back_number} on {new_day}, in economy, paying any difference with your "
                               f"{card.brand} credit card ending in {card.last_four}."])

    def _call(self, context: ProblemContext, cabin: str, back_day: str) -> GoldCall:
        (out_number, out_day), (back_number, _) = context.state["out"], context.state["back"]
        return GoldCall("update_reservation_flights", {
            "reservation_id": context.state["reservation_id"], "cabin": cabin,
            "flights": [{"flight_number": out_number, "date": out_day}, {"flight_number": back_number, "date": back_day}],
            "payment_id": context.state["card"]})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        if _flag(context, "cabin_change_not_after_any_flight_flown"):
            return calls + [self._call(context, "business", context.state["back"][1])]
        schedule = _db(context).flights[context.state["back"][0]]
        return calls + [GoldCall("search_direct_flight", {"origin": schedule.origin, "destination": schedule.destination,
                                                          "date": context.state["new_day"]}),
                        self._call(context, "economy", context.state["new_day"])]

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        if _flag(context, "cabin_change_not_after_any_flight_flown"):
            return [] if reservation.cabin == "business" else ["the cabin was not upgraded"]
        unmet = ["the cabin was changed after a flight was flown"] if reservation.cabin != "economy" else []
        if [f.date for f in reservation.flights][1:] != [context.state["new_day"]]:
            unmet.append("the flight home was not moved")
        return unmet

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        if _flag(context, "cabin_change_not_after_any_flight_flown"):
            return []
        return [self._call(context, "business", context.state["new_day"])]


# ----------------------------------------------------------------------------------------------- baggage
class _AddCheckedBags(Problem):
    """A caller adds checked bags; the free allowance of their membership and cabin decides the paid ones."""

    slot = "baggage"
    membership: ClassVar[str]
    cabin: ClassVar[str]
    context_facts = ("checked_bag_extra_fee", "allowance_follows_booking_user_membership",
                     "no_unneeded_checked_bags")

    def applicable(self, toolkit, customer_id: str) -> bool:
        return toolkit.db.users[customer_id].membership == self.membership

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        flight, day = _pick(context, _flight_dates(_db(context), SLOT_DAYS["baggage"], FlightAvailable))
        count = context.rng.randint(1, 2)
        _add_reservation(context, flight, day, self.cabin, count, booked_hours_ago=24 * context.rng.randint(2, 9))
        free = free_bags(context, self.membership, self.cabin) * count
        context.state["bags"] = free + context.rng.randint(1, 2)
        card = _paying_card(context)
        return ScenarioFragment(
            reason_for_call=f"You want to add checked bags to reservation {context.state['reservation_id']}.",
            known_info=[_trip_line(context), f"The reservation has {count} passenger{'s' if count > 1 else ''} and no "
                                             f"checked bags yet. You are a {self.membership} member."],
            task_instructions=[f"You want {context.state['bags']} checked bags in total on the reservation. Pay for any "
                               f"bags that are not free with your {card.brand} credit card ending in {card.last_four}."])

    def nonfree(self, context: ProblemContext) -> int:
        free = int(context.value(self.facts[0]).value) * context.state["passengers"]  # type: ignore[attr-defined]
        return max(0, context.state["bags"] - free)

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        return [GoldCall("get_reservation_details", {"reservation_id": context.state["reservation_id"]}),
                GoldCall("update_reservation_baggages", {"reservation_id": context.state["reservation_id"],
                                                         "total_baggages": context.state["bags"],
                                                         "nonfree_baggages": self.nonfree(context),
                                                         "payment_id": context.state["card"]})]

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        unmet = []
        if reservation.total_baggages != context.state["bags"]:
            unmet.append(f"{reservation.total_baggages} checked bags instead of {context.state['bags']}")
        if reservation.nonfree_baggages != self.nonfree(context):
            unmet.append(f"{reservation.nonfree_baggages} paid bags instead of {self.nonfree(context)}")
        return unmet


def _bag_problem(membership: str, cabin: str) -> type[Problem]:
    fact = f"free_bags_{membership}_{cabin}"
    return type(f"AddCheckedBags_{membership}_{cabin}", (_AddCheckedBags,), {
        "__doc__": f"A {membership} member adds checked bags to a {CABIN_WORDS[cabin]} reservation.",
        "__module__": __name__, "name": f"add_checked_bags_{membership}_{cabin}", "membership": membership,
        "cabin": cabin, "facts": (fact,),
        "summary": f"Add checked bags to a {membership} member's {CABIN_WORDS[cabin]} reservation, paying only for bags "
                   "beyond the free allowance."})


BAG_PROBLEMS = tuple(_bag_problem(m, c) for m in ("regular", "silver", "gold") for c in CABINS)


# ----------------------------------------------------------------------------------------------- compensation
class _Compensation(Problem):
    slot = "compensation"
    context_facts = ("no_proactive_compensation", "confirm_facts_before_compensation",
                     "compensation_is_travel_certificate")

    rate_fact: ClassVar[str]

    def certificate(self, context: ProblemContext) -> list[GoldCall]:
        """The calculation of the amount (the per-passenger rate times the passengers), then the certificate."""
        expression = f"{_money(context, self.rate_fact)} * {context.state['passengers']}"
        return [calculation(expression),
                GoldCall("send_certificate", {"user_id": context.customer_id, "amount": self.amount(context)})]

    def amount(self, context: ProblemContext) -> int:
        return _money(context, self.rate_fact) * context.state["passengers"]

    def certified(self, context: ProblemContext) -> list[float]:
        return sorted(m.amount for key, m in _user(context).payment_methods.items()
                      if m.source == "certificate" and key.startswith("certificate_322132"))


class CompensateCancelledFlight(_Compensation):
    """A silver or gold member complains that the airline cancelled their flight: a certificate of the
    per-passenger amount times the passengers."""

    name = "compensate_cancelled_flight"
    facts = ("compensation_cancelled_flight_per_passenger", "compensation_eligible_silver_gold")
    rate_fact = "compensation_cancelled_flight_per_passenger"
    eligibility_fact: ClassVar[str] = "compensation_eligible_silver_gold"
    cabin: ClassVar[str] = "economy"
    insurance: ClassVar[str] = "no"
    summary = "Send a silver or gold member the certificate for a flight the airline cancelled."

    def applicable(self, toolkit, customer_id: str) -> bool:
        return toolkit.db.users[customer_id].membership in ("silver", "gold")

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        flight, day = _pick(context, _flight_dates(_db(context), DISRUPTED_DAYS, FlightCancelled))
        _add_reservation(context, flight, day, self.cabin, context.rng.randint(1, 3), insurance=self.insurance)
        insured = ["You bought travel insurance for this trip."] if self.insurance == "yes" else []
        return ScenarioFragment(
            reason_for_call=f"The airline cancelled the flight of your reservation {context.state['reservation_id']} "
                            "and you are upset about it.",
            known_info=[_trip_line(context), *insured],
            task_instructions=["Complain about the cancelled flight and ask what compensation you can get. Accept a "
                               "travel certificate. Do not ask to cancel or change the reservation."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [GoldCall("get_reservation_details", {"reservation_id": context.state["reservation_id"]}),
                 GoldCall("get_flight_status", {"flight_number": context.state["flight"], "date": context.state["day"]})]
        return calls + (self.certificate(context) if _flag(context, self.eligibility_fact) else [])

    def check(self, context: ProblemContext) -> list[str]:
        if not _flag(context, self.eligibility_fact):
            return ["a certificate was sent against the policy"] if self.certified(context) else []
        return [] if self.certified(context) == [self.amount(context)] else [
            f"certificates {self.certified(context)} instead of one of {self.amount(context)}"]


class CompensateCancelledFlightInsured(CompensateCancelledFlight):
    """A regular member who bought travel insurance complains about a flight the airline cancelled: the
    insurance makes them eligible for the cancelled-flight certificate."""

    name = "compensate_cancelled_flight_insured"
    facts = ("compensation_cancelled_flight_per_passenger", "compensation_eligible_with_insurance")
    eligibility_fact = "compensation_eligible_with_insurance"
    summary = "Send an insured regular member the certificate for a flight the airline cancelled."
    cabin = "economy"
    insurance = "yes"

    def applicable(self, toolkit, customer_id: str) -> bool:
        return toolkit.db.users[customer_id].membership == "regular"


class CompensateCancelledFlightBusiness(CompensateCancelledFlight):
    """A regular member flying business complains about a flight the airline cancelled: business makes them
    eligible for the cancelled-flight certificate."""

    name = "compensate_cancelled_flight_business"
    facts = ("compensation_cancelled_flight_per_passenger", "compensation_eligible_business")
    eligibility_fact = "compensation_eligible_business"
    summary = "Send a regular member flying business the certificate for a flight the airline cancelled."
    cabin = "business"

    def applicable(self, toolkit, customer_id: str) -> bool:
        return toolkit.db.users[customer_id].membership == "regular"


class CompensateDelayedFlightChange(_Compensation):
    """A silver or gold member's flight today is delayed; they move the trip to the same flight on a later
    date, then get the delay certificate of the per-passenger amount times the passengers."""

    name = "compensate_delayed_flight_change"
    facts = ("compensation_delayed_flight_per_passenger", "compensation_eligible_silver_gold")
    context_facts = ("delayed_compensation_order", "delayed_compensation_needs_change_or_cancel",
                     "change_keeps_origin_destination_trip_type")
    rate_fact = "compensation_delayed_flight_per_passenger"
    summary = "Move a silver or gold member's delayed trip to a later date, then send the delay certificate."

    def applicable(self, toolkit, customer_id: str) -> bool:
        return toolkit.db.users[customer_id].membership in ("silver", "gold")

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        db = _db(context)
        later = _flight_dates(db, SLOT_DAYS["change_to"], FlightAvailable, 3, "economy")
        options = [(f, d) for f, d in _flight_dates(db, DISRUPTED_DAYS[:1], FlightDelayed) if any(f == g for g, _ in later)]
        flight, day = _pick(context, options)
        _add_reservation(context, flight, day, "economy", context.rng.randint(1, 3))
        context.state["new_day"] = next(d for g, d in later if g == flight)
        card = _paying_card(context)
        return ScenarioFragment(
            reason_for_call=f"The flight of your reservation {context.state['reservation_id']} is delayed and you "
                            "would rather travel on a later day.",
            known_info=[_trip_line(context)],
            task_instructions=[f"Ask to move the trip to flight {flight} on {context.state['new_day']}, same cabin, "
                               f"paying any difference with your {card.brand} credit card ending in {card.last_four}. "
                               "Once it is moved, ask for compensation for the delay and accept a travel certificate."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        schedule = _db(context).flights[context.state["flight"]]
        calls = [GoldCall("get_reservation_details", {"reservation_id": context.state["reservation_id"]}),
                 GoldCall("get_flight_status", {"flight_number": context.state["flight"], "date": context.state["day"]}),
                 GoldCall("search_direct_flight", {"origin": schedule.origin, "destination": schedule.destination,
                                                   "date": context.state["new_day"]}),
                 GoldCall("update_reservation_flights", {
                     "reservation_id": context.state["reservation_id"], "cabin": "economy",
                     "flights": [{"flight_number": context.state["flight"], "date": context.state["new_day"]}],
                     "payment_id": context.state["card"]})]
        return calls + (self.certificate(context) if _flag(context, "compensation_eligible_silver_gold") else [])

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        unmet = [] if [f.date for f in reservation.flights] == [context.state["new_day"]] else ["the trip was not moved"]
        wanted = [self.amount(context)] if _flag(context, "compensation_eligible_silver_gold") else []
        if self.certified(context) != wanted:
            unmet.append(f"certificates {self.certified(context)} instead of {wanted}")
        return unmet


class CompensateDelayedBusinessCancel(_Compensation):
    """A delayed business flight: the caller cancels (business may always cancel), then gets the delay
    certificate of the per-passenger amount times the passengers."""

    name = "compensate_delayed_business_cancel"
    facts = ("compensation_delayed_flight_per_passenger", "cancel_allowed_for_business")
    rate_fact = "compensation_delayed_flight_per_passenger"
    context_facts = ("delayed_compensation_order", "compensation_eligible_business")
    summary = "Cancel a business reservation whose flight is delayed, then send the delay certificate."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        flight, day = _pick(context, _flight_dates(_db(context), DISRUPTED_DAYS[:1], FlightDelayed))
        _add_reservation(context, flight, day, "business", context.rng.randint(1, 2))
        return ScenarioFragment(
            reason_for_call=f"The flight of your reservation {context.state['reservation_id']} is delayed and you no "
                            "longer want to travel.",
            known_info=[_trip_line(context)],
            task_instructions=["Ask to cancel the reservation because of the delay. Once it is cancelled, ask for "
                               "compensation for the delay and accept a travel certificate."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [GoldCall("get_reservation_details", {"reservation_id": context.state["reservation_id"]}),
                 GoldCall("get_flight_status", {"flight_number": context.state["flight"], "date": context.state["day"]})]
        if not _flag(context, "cancel_allowed_for_business"):
            return calls
        return calls + [GoldCall("cancel_reservation", {"reservation_id": context.state["reservation_id"]}),
                        *self.certificate(context)]

    def check(self, context: ProblemContext) -> list[str]:
        unmet = [] if _cancelled(context) else ["the reservation was not cancelled"]
        if self.certified(context) != [self.amount(context)]:
            unmet.append(f"certificates {self.certified(context)} instead of one of {self.amount(context)}")
        return unmet


class CompensationRefusedRegularMember(_Compensation):
    """A regular member without insurance in economy whose flight the airline cancelled: the reservation is
    cancelled (the airline cancelled it) but no certificate is sent."""

    name = "compensation_refused_regular_member"
    facts = ("no_compensation_regular_uninsured_economy", "cancel_allowed_when_airline_cancelled")
    rate_fact = "compensation_cancelled_flight_per_passenger"
    outcome = "refuse"
    summary = "Cancel a regular member's uninsured economy reservation on a cancelled flight; refuse compensation."

    def applicable(self, toolkit, customer_id: str) -> bool:
        return toolkit.db.users[customer_id].membership == "regular"

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        flight, day = _pick(context, _flight_dates(_db(context), DISRUPTED_DAYS[1:], FlightCancelled))
        _add_reservation(context, flight, day, "economy", context.rng.randint(1, 2))
        return ScenarioFragment(
            reason_for_call=f"The airline cancelled the flight of your reservation {context.state['reservation_id']}; "
                            "you want to cancel the reservation and be compensated.",
            known_info=[_trip_line(context), "You are a regular member and did not buy travel insurance."],
            task_instructions=["Ask to cancel the reservation, then ask for compensation. If the agent says you cannot "
                               "be compensated, accept it."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [GoldCall("get_reservation_details", {"reservation_id": context.state["reservation_id"]}),
                 GoldCall("get_flight_status", {"flight_number": context.state["flight"], "date": context.state["day"]})]
        if _flag(context, "cancel_allowed_when_airline_cancelled"):
            calls.append(GoldCall("cancel_reservation", {"reservation_id": context.state["reservation_id"]}))
        if _flag(context, "no_compensation_regular_uninsured_economy"):
            calls += self.certificate(context)
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        unmet = []
        if _flag(context, "cancel_allowed_when_airline_cancelled") != _cancelled(context):
            unmet.append("the reservation's cancellation does not follow the policy")
        if bool(self.certified(context)) != _flag(context, "no_compensation_regular_uninsured_economy"):
            unmet.append("the certificate does not follow the policy")
        return unmet

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [] if _flag(context, "no_compensation_regular_uninsured_economy") else self.certificate(context)[-1:]


# ----------------------------------------------------------------------------------------------- passengers
class ReplacePassenger(Problem):
    """The caller replaces the second passenger of a two-passenger reservation with someone else."""

    name = "replace_passenger"
    slot = "passengers"
    facts = ("passengers_can_be_modified",)
    context_facts = ("passenger_count_cannot_change", "passenger_details_collected")
    summary = "Replace one passenger of a reservation, keeping the number of passengers."

    def applicable(self, toolkit, customer_id: str) -> bool:
        return len(toolkit.db.users[customer_id].saved_passengers) >= 1

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        flight, day = _pick(context, _flight_dates(_db(context), SLOT_DAYS["passengers"], FlightAvailable))
        reservation = _add_reservation(context, flight, day, context.rng.choice(CABINS), 2,
                                       booked_hours_ago=24 * context.rng.randint(2, 9))
        old = reservation.passengers[1]
        fake_first = context.rng.choice(["Noah", "Mia", "Ethan", "Ava", "Liam", "Zoe", "Omar", "Lena"])
        new = {"first_name": fake_first, "last_name": old.last_name,
               "dob": f"{context.rng.randint(1950, 2010)}-{context.rng.randint(1, 12):02d}-{context.rng.randint(1, 28):02d}"}
        context.state.update(old=old.model_dump(), new=new)
        return ScenarioFragment(
            reason_for_call=f"{old.first_name} {old.last_name} can no longer travel on reservation "
                            f"{context.state['reservation_id']}; you want {new['first_name']} {new['last_name']} to go "
                            "instead.",
            known_info=[_trip_line(context), f"The new passenger is {new['first_name']} {new['last_name']}, born "
                                             f"{new['dob']}."],
            task_instructions=["Keep yourself on the reservation as the first passenger."])

    def _passengers(self, context: ProblemContext) -> list[dict[str, str]]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        return [reservation.passengers[0].model_dump(), context.state["new"]]

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        if not _flag(context, "passengers_can_be_modified"):
            return calls
        return calls + [GoldCall("update_reservation_passengers", {"reservation_id": context.state["reservation_id"],
                                                                   "passengers": self._passengers(context)})]

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        replaced = reservation.passengers[1].model_dump() == context.state["new"]
        if _flag(context, "passengers_can_be_modified"):
            return [] if replaced else ["the passenger was not replaced"]
        return ["the passenger was replaced against the policy"] if replaced else []


class AddPassengerRefusedReplaceInstead(ReplacePassenger):
    """The caller wants to add a third traveller to a two-passenger reservation: the number of passengers is
    fixed, so the new traveller replaces the second passenger instead."""

    name = "add_passenger_refused_replace_instead"
    facts = ("passenger_count_cannot_change",)
    context_facts = ("passengers_can_be_modified", "passenger_details_collected", "deny_requests_against_policy")
    outcome = "refuse"
    summary = "Refuse to add a passenger; replace the second passenger with the new traveller instead."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        fragment = super().setup(context)
        old, new = context.state["old"], context.state["new"]
        fragment.reason_for_call = (f"You want to add {new['first_name']} {new['last_name']} to reservation "
                                    f"{context.state['reservation_id']}.")
        fragment.task_instructions = [
            "Ask to add the new passenger. If the agent says passengers cannot be added, ask instead to replace "
            f"{old['first_name']} {old['last_name']} with {new['first_name']} {new['last_name']}, keeping yourself "
            "as the first passenger."]
        return fragment

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_reservation_lookup(context)]
        reservation = _db(context).reservations[context.state["reservation_id"]]
        if not _flag(context, "passenger_count_cannot_change"):
            return calls + [GoldCall("update_reservation_passengers", {"reservation_id": context.state["reservation_id"],
                                                                       "passengers": self._passengers(context)})]
        everyone = [p.model_dump() for p in reservation.passengers] + [context.state["new"]]
        return calls + [GoldCall("update_reservation_passengers", {"reservation_id": context.state["reservation_id"],
                                                                   "passengers": everyone})]

    def check(self, context: ProblemContext) -> list[str]:
        reservation = _db(context).reservations[context.state["reservation_id"]]
        if reservation.passengers[1:] and reservation.passengers[1].model_dump() == context.state["new"]:
            return []
        return ["the new traveller did not replace the second passenger"]


class ChangePaidWithCertificateRefused(ChangeFlightDate):
    """The caller wants to pay a date change with a travel certificate: a change is paid by gift card or credit
    card only, so the credit card pays."""

    name = "change_paid_with_certificate_refused"
    facts = ("flight_change_payment_gift_card_or_credit_card",)
    context_facts = ("change_keeps_origin_destination_trip_type", "flight_change_single_payment_method")
    outcome = "refuse"
    summary = "Move an economy trip to a later date; refuse the certificate as payment and charge the credit card."

    def applicable(self, toolkit, customer_id: str) -> bool:
        return any(m.source == "certificate" for m in toolkit.db.users[customer_id].payment_methods.values())

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        fragment = super().setup(context)
        certificate = sorted(k for k, m in _user(context).payment_methods.items() if m.source == "certificate")[0]
        card = _user(context).payment_methods[context.state["card"]]
        context.state["certificate"] = certificate
        fragment.task_instructions = [
            f"Ask to move it to flight {context.state['flight']} on {context.state['new_day']}, same cabin, and to pay "
            f"any difference with your travel certificate {certificate}. If the agent says a certificate cannot pay "
            f"for a change, pay with your {card.brand} credit card ending in {card.last_four}."]
        return fragment

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = super().solve(context)
        if _flag(context, "flight_change_payment_gift_card_or_credit_card"):
            calls[-1].arguments["payment_id"] = context.state["certificate"]
        return calls

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return []


# ----------------------------------------------------------------------------------------------- booking
class _BookOneWay(Problem):
    """A caller books a one-way direct flight for themselves and a saved passenger, with travel insurance and
    checked bags, paying first with a gift card and the rest with a credit card."""

    slot = "booking"
    membership: ClassVar[str]
    cabin: ClassVar[str]
    context_facts = ("ask_about_travel_insurance", "payment_methods_must_be_on_profile",
                     "max_gift_cards_per_reservation", "max_credit_cards_per_reservation")

    def applicable(self, toolkit, customer_id: str) -> bool:
        user = toolkit.db.users[customer_id]
        return user.membership == self.membership and len(user.saved_passengers) >= 1

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        db = _db(context)
        flight, day = _pick(context, _flight_dates(db, SLOT_DAYS["booking"], FlightAvailable, 2, self.cabin))
        user = _user(context)
        gift_id = f"gift_card_{context.rng.randint(1_000_000, 9_999_999)}"
        while gift_id in user.payment_methods:
            gift_id = f"gift_card_{context.rng.randint(1_000_000, 9_999_999)}"
        from .db import GiftCard

        balance = context.rng.randint(20, 60)
        user.payment_methods[gift_id] = GiftCard(id=gift_id, amount=float(balance))
        people = _passengers(user, 2)
        free = free_bags(context, self.membership, self.cabin) * len(people)
        card = _card(user)
        schedule = db.flights[flight]
        context.state.update(flight=flight, day=day, gift=gift_id, balance=balance, card=card.id, bags=free + 1,
                             passengers=[p.model_dump() for p in people], origin=schedule.origin,
                             destination=schedule.destination)
        companion = people[1]
        return ScenarioFragment(
            reason_for_call=f"You want to book a one-way {CABIN_WORDS[self.cabin]} trip from {schedule.origin} to "
                            f"{schedule.destination} on {day} for yourself and {companion.first_name} "
                            f"{companion.last_name}.",
            known_info=[f"You want direct flight {flight} on {day}. You were born on {user.dob}; "
                        f"{companion.first_name} {companion.last_name} was born on {companion.dob}.",
                        f"You are a {self.membership} member."],
            task_instructions=[f"You want {free + 1} checked bags in total and travel insurance. Pay as much as "
                               f"possible with your gift card ({gift_id}) and the rest with your {card.brand} credit "
                               f"card ending in {card.last_four}."])

    def nonfree(self, context: ProblemContext) -> int:
        free = int(context.value(self.facts[0]).value) * 2  # type: ignore[attr-defined]
        return max(0, context.state["bags"] - free)

    def total(self, context: ProblemContext) -> int:
        status = _db(context).flights[context.state["flight"]].dates[context.state["day"]]
        count = len(context.state["passengers"])
        return (status.prices[self.cabin] * count
                + _money(context, "travel_insurance_price_per_passenger") * count
                + _money(context, "checked_bag_extra_fee") * self.nonfree(context))

    def payments(self, context: ProblemContext) -> list[dict[str, Any]]:
        total = self.total(context)
        gift = min(context.state["balance"], total)
        return [{"payment_id": context.state["gift"], "amount": gift},
                {"payment_id": context.state["card"], "amount": total - gift}]

    def _arguments(self, context: ProblemContext) -> dict[str, Any]:
        return {"user_id": context.customer_id, "origin": context.state["origin"],
                "destination": context.state["destination"], "flight_type": "one_way", "cabin": self.cabin,
                "flights": [{"flight_number": context.state["flight"], "date": context.state["day"]}],
                "passengers": context.state["passengers"], "payment_methods": self.payments(context),
                "total_baggages": context.state["bags"], "nonfree_baggages": self.nonfree(context),
                "insurance": "yes"}

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        status = _db(context).flights[context.state["flight"]].dates[context.state["day"]]
        count = len(context.state["passengers"])
        terms = [f"{status.prices[self.cabin]} * {count}",
                 f"{_money(context, 'travel_insurance_price_per_passenger')} * {count}"]
        if self.nonfree(context):
            terms.append(f"{_money(context, 'checked_bag_extra_fee')} * {self.nonfree(context)}")
        gift = self.payments(context)[0]["amount"]
        return [GoldCall("search_direct_flight", {"origin": context.state["origin"],
                                                  "destination": context.state["destination"],
                                                  "date": context.state["day"]}),
                calculation(" + ".join(terms) + f" - {gift}"),
                GoldCall("book_reservation", self._arguments(context))]

    def check(self, context: ProblemContext) -> list[str]:
        wanted = self._arguments(context)
        for reservation in _db(context).reservations.values():
            if reservation.user_id != context.customer_id or reservation.created_at != _stamp(_now(context)):
                continue
            got = {"flights": [{"flight_number": f.flight_number, "date": f.date} for f in reservation.flights],
                   "cabin": reservation.cabin, "passengers": [p.model_dump() for p in reservation.passengers],
                   "total_baggages": reservation.total_baggages, "nonfree_baggages": reservation.nonfree_baggages,
                   "insurance": reservation.insurance,
                   "payment_methods": [p.model_dump() for p in reservation.payment_history]}
            if all(got[key] == wanted[key] for key in got):
                return []
        return ["the reservation was not booked as asked"]


class BookWithOneCertificate(Problem):
    """A caller with two travel certificates wants to spend both on a new booking; at most one certificate pays
    for a reservation, so the larger one pays first and the credit card the rest."""

    name = "book_with_one_certificate"
    slot = "booking"
    facts = ("max_travel_certificates_per_reservation",)
    context_facts = ("certificate_remainder_not_refundable", "payment_methods_must_be_on_profile",
                     "ask_about_travel_insurance")
    summary = "Book a one-way economy trip paying with one of two travel certificates and a credit card."

    def applicable(self, toolkit, customer_id: str) -> bool:
        """Only a caller without certificates of their own (the story's two are the only ones on the profile)."""
        return not any(m.source == "certificate" for m in toolkit.db.users[customer_id].payment_methods.values())

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        from .db import TravelCertificate

        db = _db(context)
        flight, day = _pick(context, _flight_dates(db, SLOT_DAYS["booking"], FlightAvailable, 1, "economy"))
        user = _user(context)
        certificates = []
        for amount in sorted(context.rng.sample([40, 50, 60, 70, 80, 90], 2), reverse=True):
            certificate_id = f"certificate_{context.rng.randint(1_000_000, 9_999_999)}"
            user.payment_methods[certificate_id] = TravelCertificate(id=certificate_id, amount=float(amount))
            certificates.append(certificate_id)
        card = _card(user)
        schedule = db.flights[flight]
        context.state.update(flight=flight, day=day, certificates=certificates, card=card.id, origin=schedule.origin,
                             balances={c: int(user.payment_methods[c].amount) for c in certificates},
                             destination=schedule.destination,
                             passengers=[p.model_dump() for p in _passengers(user, 1)])
        return ScenarioFragment(
            reason_for_call=f"You want to book a one-way economy trip for yourself from {schedule.origin} to "
                            f"{schedule.destination} on {day}, using your travel certificates.",
            known_info=[f"You want direct flight {flight} on {day}. You were born on {user.dob}."],
            task_instructions=["You want no checked bags and no travel insurance. Ask to pay with both of your travel "
                               "certificates. If the agent says only one can be used, use the larger one and pay the "
                               f"rest with your {card.brand} credit card ending in {card.last_four}."])

    def payments(self, context: ProblemContext) -> list[dict[str, Any]]:
        status = _db(context).flights[context.state["flight"]].dates[context.state["day"]]
        total = status.prices["economy"]
        cap = int(context.value("max_travel_certificates_per_reservation").amount)  # type: ignore[attr-defined]
        found, left = [], total
        for certificate_id in context.state["certificates"][:cap]:
            part = min(left, context.state["balances"][certificate_id])
            found.append({"payment_id": certificate_id, "amount": part})
            left -= part
        return found + ([{"payment_id": context.state["card"], "amount": left}] if left else [])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        status = _db(context).flights[context.state["flight"]].dates[context.state["day"]]
        covered = " - ".join(str(p["amount"]) for p in self.payments(context)[:-1])
        return [GoldCall("search_direct_flight", {"origin": context.state["origin"],
                                                  "destination": context.state["destination"],
                                                  "date": context.state["day"]}),
                calculation(f"{status.prices['economy']} - {covered}"),
                GoldCall("book_reservation", {
                    "user_id": context.customer_id, "origin": context.state["origin"],
                    "destination": context.state["destination"], "flight_type": "one_way", "cabin": "economy",
                    "flights": [{"flight_number": context.state["flight"], "date": context.state["day"]}],
                    "passengers": context.state["passengers"], "payment_methods": self.payments(context),
                    "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"})]

    def check(self, context: ProblemContext) -> list[str]:
        wanted = self.payments(context)
        for reservation in _db(context).reservations.values():
            if reservation.user_id == context.customer_id and reservation.created_at == _stamp(_now(context)) \
                    and [p.model_dump() for p in reservation.payment_history] == wanted \
                    and [f.flight_number for f in reservation.flights] == [context.state["flight"]]:
                return []
        return ["the reservation was not booked with one certificate and the card"]


def _booking_problem(membership: str, cabin: str) -> type[Problem]:
    return type(f"BookOneWay_{membership}_{cabin}", (_BookOneWay,), {
        "__doc__": f"A {membership} member books a one-way {CABIN_WORDS[cabin]} trip for two.", "__module__": __name__,
        "name": f"book_one_way_{membership}_{cabin}", "membership": membership, "cabin": cabin,
        "facts": (f"free_bags_{membership}_{cabin}", "travel_insurance_price_per_passenger", "checked_bag_extra_fee"),
        "summary": f"Book a one-way {CABIN_WORDS[cabin]} trip for two with insurance and bags, a gift card paying first."})


BOOKING_PROBLEMS = (_booking_problem("regular", "economy"), _booking_problem("silver", "business"),
                    _booking_problem("gold", "basic_economy"))

PROBLEMS: tuple[type[Problem], ...] = (
    CancelRecentBooking, CancelAirlineCancelledFlight, CancelBusinessReservation, CancelInsuredForHealth,
    CancelRefusedChangeInstead, ChangeFlightDate, BasicEconomyChangeRefused, UpgradeBasicEconomyCabin,
    CabinUpgradeRefusedAfterFlown, CompensateCancelledFlight, CompensateCancelledFlightInsured,
    CompensateCancelledFlightBusiness, CompensateDelayedFlightChange, CompensateDelayedBusinessCancel,
    CompensationRefusedRegularMember, ReplacePassenger, AddPassengerRefusedReplaceInstead,
    ChangePaidWithCertificateRefused, *BAG_PROBLEMS, *BOOKING_PROBLEMS, BookWithOneCertificate)
"""The hand-written problems (the opening is not one of them: every task starts with it)."""
