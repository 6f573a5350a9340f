"""The airline's policy operators (see :mod:`taugen.mutation.model` for the contract).

* K1 — the gold makes a write the policy forbids: a refused cancellation carried out, a basic economy
  reservation's flights changed, a regular member without insurance compensated;
* K3 — an amount in a gold argument differs from what the facts compute: every bag paid for despite the
  free allowance, a cancelled-flight certificate for one passenger only, a booking total without the
  insurance;
* K17 — a persona twin of a cancellation task whose gold keeps the reservation its twin cancels.

Amounts come from the bundle's own facts (``author/manifest.json``); tasks are picked by problem name and id.
"""

from __future__ import annotations

import copy
import re

from taugen.mutation.edits import persona_twin_without
from taugen.mutation.model import (MutableBundle, call_index, drop_call, fact_amount, gold, initial_records,
                                   insert_call, mutation, replace_call, tool_call)


def _reservation_of(task: dict) -> str | None:
    call = next((a for a in gold(task) if a["name"] == "get_reservation_details"), None)
    return call["arguments"]["reservation_id"] if call else None


# ------------------------------------------------------------------------------------------ K1
@mutation("K1", "refused_cancellation_carried_out",
          "instead of moving the uninsured economy trip to a later date, the gold cancels it for a change of plans")
def refused_cancellation_carried_out(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_refused_change_instead"):
        index = call_index(task, "update_reservation_flights")
        reservation = _reservation_of(task)
        if index is None or reservation is None:
            continue
        replace_call(task, index, tool_call("cancel_reservation", {"reservation_id": reservation}))
        search = call_index(task, "search_direct_flight")
        if search is not None:
            drop_call(task, search)
        return task["id"]
    return None


@mutation("K1", "basic_economy_flights_changed",
          "the basic economy task's gold moves the flight to the date the user first asked for instead of "
          "upgrading the cabin")
def basic_economy_flights_changed(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("basic_economy_change_refused"):
        index = call_index(task, "update_reservation_flights")
        reason = task["user_scenario"]["instructions"]["reason_for_call"]
        wanted = re.search(r"to flight (\w+) on (\d{4}-\d{2}-\d{2})", reason)
        if index is None or wanted is None:
            continue
        call = copy.deepcopy(gold(task)[index])
        call["arguments"]["cabin"] = "basic_economy"
        call["arguments"]["flights"] = [{"flight_number": wanted.group(1), "date": wanted.group(2)}]
        replace_call(task, index, tool_call(call["name"], call["arguments"]))
        return task["id"]
    return None


@mutation("K1", "regular_member_compensated",
          "after cancelling the regular member's uninsured economy trip, the gold also sends the cancelled-flight "
          "certificate")
def regular_member_compensated(bundle: MutableBundle) -> str | None:
    rate = fact_amount(bundle, "compensation_cancelled_flight_per_passenger")
    for task in bundle.tasks_of("compensation_refused_regular_member"):
        index = call_index(task, "cancel_reservation")
        reservation = _reservation_of(task)
        user = next((a["arguments"]["user_id"] for a in gold(task) if a["name"] == "get_user_details"), None)
        if index is None or reservation is None or user is None or rate is None:
            continue
        passengers = len(initial_records(bundle, task, "reservations")[reservation]["passengers"])
        insert_call(task, index + 1, tool_call("send_certificate", {"user_id": user, "amount": int(rate) * passengers}))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K3
@mutation("K3", "free_bag_allowance_ignored",
          "the gold charges every checked bag as a paid bag, ignoring the member's free allowance")
def free_bag_allowance_ignored(bundle: MutableBundle) -> str | None:
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        index = call_index(task, "update_reservation_baggages")
        if index is None:
            continue
        arguments = dict(gold(task)[index]["arguments"])
        if arguments["nonfree_baggages"] == arguments["total_baggages"]:
            continue
        arguments["nonfree_baggages"] = arguments["total_baggages"]
        replace_call(task, index, tool_call("update_reservation_baggages", arguments))
        return task["id"]
    return None


@mutation("K3", "certificate_for_one_passenger",
          "the cancelled-flight certificate is the per-passenger amount once, though several passengers travel")
def certificate_for_one_passenger(bundle: MutableBundle) -> str | None:
    rate = fact_amount(bundle, "compensation_cancelled_flight_per_passenger")
    for task in bundle.tasks_of("compensate_cancelled_flight"):
        index = call_index(task, "send_certificate")
        if index is None or rate is None or gold(task)[index]["arguments"]["amount"] == int(rate):
            continue
        arguments = {**gold(task)[index]["arguments"], "amount": int(rate)}
        replace_call(task, index, tool_call("send_certificate", arguments))
        return task["id"]
    return None


@mutation("K3", "booking_total_without_insurance",
          "the credit card part of a booking leaves out the travel insurance the user buys")
def booking_total_without_insurance(bundle: MutableBundle) -> str | None:
    price = fact_amount(bundle, "travel_insurance_price_per_passenger")
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        index = call_index(task, "book_reservation")
        if index is None or price is None:
            continue
        arguments = copy.deepcopy(gold(task)[index]["arguments"])
        payments = arguments["payment_methods"]
        cut = int(price) * len(arguments["passengers"])
        if not payments or payments[-1]["amount"] <= cut:
            continue
        payments[-1]["amount"] -= cut
        replace_call(task, index, tool_call("book_reservation", arguments))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K17
@mutation("K17", "persona_twin_keeps_recent_booking",
          "a persona variant of a within-the-window cancellation (same user, same reservation) is added whose gold "
          "keeps the reservation its twin cancels")
def persona_twin_keeps_recent_booking(bundle: MutableBundle) -> str | None:
    return persona_twin_without(bundle, "cancel_recent_booking", "cancel_reservation")
