"""The airline's grounding operators (see :mod:`taugen.mutation.model` for the contract).

* K2 — a gold write breaks a tool precondition: a passenger added through the passenger update (the number
  of passengers is fixed), a change onto a flight date that cannot be booked;
* K5 — a gold argument contradicts the records: a booked passenger's date of birth differs from the saved
  passenger's, a reservation id one character off;
* K14 — a write names a payment method no read returns.
"""

from __future__ import annotations

import copy

from taugen.mutation.edits import known_ids, typo
from taugen.mutation.model import MutableBundle, call_index, gold, initial_records, mutation, replace_call, tool_call


# ------------------------------------------------------------------------------------------ K2
@mutation("K2", "passenger_added_by_update",
          "the passenger update adds the new traveller beside the old one instead of replacing them")
def passenger_added_by_update(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("replace_passenger"):
        index = call_index(task, "update_reservation_passengers")
        if index is None:
            continue
        arguments = copy.deepcopy(gold(task)[index]["arguments"])
        reservation = initial_records(bundle, task, "reservations")[arguments["reservation_id"]]
        arguments["passengers"] = [*reservation["passengers"], arguments["passengers"][-1]]
        replace_call(task, index, tool_call("update_reservation_passengers", arguments))
        return task["id"]
    return None


@mutation("K2", "change_onto_unbookable_date",
          "the date change moves the reservation onto a flight date whose status is not available")
def change_onto_unbookable_date(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("change_flight_date"):
        index = call_index(task, "update_reservation_flights")
        if index is None:
            continue
        arguments = copy.deepcopy(gold(task)[index]["arguments"])
        flight = arguments["flights"][0]["flight_number"]
        dates = initial_records(bundle, task, "flights")[flight]["dates"]
        closed = sorted(day for day, status in dates.items() if status["status"] != "available")
        if not closed:
            continue
        arguments["flights"][0]["date"] = closed[-1]
        replace_call(task, index, tool_call("update_reservation_flights", arguments))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K5
@mutation("K5", "booked_passenger_birth_date_mistyped",
          "the booking gives the companion a date of birth one year off the saved passenger's")
def booked_passenger_birth_date_mistyped(bundle: MutableBundle) -> str | None:
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        index = call_index(task, "book_reservation")
        if index is None:
            continue
        arguments = copy.deepcopy(gold(task)[index]["arguments"])
        companion = arguments["passengers"][-1]
        year, rest = companion["dob"].split("-", 1)
        companion["dob"] = f"{int(year) + 1}-{rest}"
        replace_call(task, index, tool_call("book_reservation", arguments))
        return task["id"]
    return None


@mutation("K5", "cancelled_reservation_id_typo",
          "the cancellation names a reservation id one character off the user's reservation")
def cancelled_reservation_id_typo(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_business_reservation"):
        index = call_index(task, "cancel_reservation")
        if index is None:
            continue
        wrong = typo(gold(task)[index]["arguments"]["reservation_id"], known_ids(bundle))
        replace_call(task, index, tool_call("cancel_reservation", {"reservation_id": wrong}))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K14
@mutation("K14", "bags_paid_with_unlisted_card",
          "the bag update is paid with a credit card id that is on no profile and that no read returns")
def bags_paid_with_unlisted_card(bundle: MutableBundle) -> str | None:
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        index = call_index(task, "update_reservation_baggages")
        if index is None or not gold(task)[index]["arguments"]["nonfree_baggages"]:
            continue
        arguments = dict(gold(task)[index]["arguments"])
        arguments["payment_id"] = typo(arguments["payment_id"], known_ids(bundle))
        replace_call(task, index, tool_call("update_reservation_baggages", arguments))
        return task["id"]
    return None
