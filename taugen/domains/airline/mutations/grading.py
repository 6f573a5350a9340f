"""The airline's operators for kinds its tasks carry only once edited (see :mod:`taugen.mutation.model` for
the contract). Airline tasks are graded on the database alone and state a reservation by its id, so these
operators add what an author might add, wrongly:

* K4 — a graded statement disagrees with the gold: an nl_assertion names the paying card, or the cancelled
  reservation, one character off;
* K7 — an ambiguous reference: a date change that no longer names its reservation, while a second booking
  on the same route and cabin fits the description too;
* K8 — the scenario contradicts itself or the gold: the caller's name is another traveller's; the user
  takes a certificate only up to an amount below the one the gold sends;
* K15 — the user asks for the most recent of two reservations on the same route while the gold cancels
  the older one.
"""

from __future__ import annotations

import copy
import datetime as dt

from taugen.mutation.edits import add_assertion, gold_call, known_ids, name_from_sibling, typo
from taugen.mutation.model import MutableBundle, agent_patch, initial_records, instructions, mutation


# ------------------------------------------------------------------------------------------ K4
@mutation("K4", "assertion_names_a_neighbour_payment_method",
          "an nl_assertion says the fare difference goes to a payment method one character off the gold's")
def assertion_names_a_neighbour_payment_method(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("change_flight_date"):
        call = gold_call(task, "update_reservation_flights")
        if call is None:
            continue
        wrong = typo(call["arguments"]["payment_id"], known_ids(bundle))
        add_assertion(task, f"The agent moves reservation {call['arguments']['reservation_id']} and charges any "
                      f"fare difference to {wrong}.", "NL_ASSERTION")
        return task["id"]
    return None


@mutation("K4", "assertion_names_a_neighbour_reservation",
          "an nl_assertion names the cancelled reservation with one character of its id wrong")
def assertion_names_a_neighbour_reservation(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_recent_booking"):
        call = gold_call(task, "cancel_reservation")
        if call is None:
            continue
        wrong = typo(call["arguments"]["reservation_id"], known_ids(bundle))
        add_assertion(task, f"The agent cancels reservation {wrong} because it was booked within the last day.",
                      "NL_ASSERTION")
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K7
@mutation("K7", "date_change_names_no_reservation_of_two_alike",
          "the date change no longer names the reservation by id, and the user has a second booking on the same "
          "route and cabin that the description fits as well")
def date_change_names_no_reservation_of_two_alike(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("change_flight_date"):
        call = gold_call(task, "update_reservation_flights")
        if call is None:
            continue
        target_id = call["arguments"]["reservation_id"]
        if _add_twin_booking(bundle, task, target_id, hours=-24) is None:
            continue
        steps = instructions(task)
        for field in ("reason_for_call", "known_info", "task_instructions"):
            if steps.get(field):
                steps[field] = steps[field].replace(f"reservation {target_id}", "reservation").replace(target_id, "it")
        return task["id"]
    return None


def _add_twin_booking(bundle: MutableBundle, task: dict, target_id: str, hours: int) -> str | None:
    """Copy reservation ``target_id`` into the task's initial state under a new id, booked ``hours`` after it
    (and not after the world's clock), and list it on its owner's profile; returns the new id, or None when
    the task's patch does not hold the owner or the copy would be booked in the future."""
    target = initial_records(bundle, task, "reservations").get(target_id)
    user = target and (agent_patch(task).get("users") or {}).get(target["user_id"])
    if not target or user is None or not target.get("created_at"):
        return None
    booked = dt.datetime.fromisoformat(target["created_at"]) + dt.timedelta(hours=hours)
    if booked > bundle_now(bundle):
        return None
    twin_id = typo(target_id, known_ids(bundle))
    agent_patch(task).setdefault("reservations", {})[twin_id] = {
        **copy.deepcopy(target), "reservation_id": twin_id, "created_at": booked.isoformat()}
    user["reservations"] = [*user["reservations"], twin_id]
    return twin_id


# ------------------------------------------------------------------------------------------ K8


@mutation("K8", "caller_name_from_sibling_task",
          "the caller's name in known_info is another traveller's, copied from a sibling task")
def caller_name_from_sibling_task(bundle: MutableBundle) -> str | None:
    return name_from_sibling(bundle, "change_flight_date")


@mutation("K8", "certificate_only_below_what_the_gold_sends",
          "the user takes a travel certificate only if it is at most a dollar less than the one the gold sends")
def certificate_only_below_what_the_gold_sends(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("compensate_cancelled_flight"):
        call = gold_call(task, "send_certificate")
        if call is None or call["arguments"]["amount"] < 2:
            continue
        steps = instructions(task)
        steps["task_instructions"] = (steps.get("task_instructions") or "") + (
            f" Accept a certificate only if it is no more than ${int(call['arguments']['amount']) - 1}.")
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K15
@mutation("K15", "most_recent_booking_but_gold_cancels_the_older",
          "a second reservation on the same route, booked an hour later, is added and the user asks to cancel the "
          "most recent one, but the gold still cancels the first")
def most_recent_booking_but_gold_cancels_the_older(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_recent_booking"):
        call = gold_call(task, "cancel_reservation")
        if call is None:
            continue
        target_id = call["arguments"]["reservation_id"]
        target = initial_records(bundle, task, "reservations").get(target_id)
        if not target or "_" in target.get("cabin", "_"):
            continue  # the sentence names the cabin as stored ("economy"), which ties it to the reservation
        if _add_twin_booking(bundle, task, target_id, hours=1) is None:
            continue
        steps = instructions(task)
        steps["task_instructions"] = (steps.get("task_instructions") or "") + (
            f" You have two {target['cabin']} bookings from {target['origin']} to {target['destination']}; ask to "
            "cancel the most recent reservation.")
        return task["id"]
    return None


def bundle_now(bundle: MutableBundle) -> dt.datetime:
    """The world's clock (``author/manifest.json`` ``now``) without its zone, as reservations write times."""
    return dt.datetime.fromisoformat(bundle.manifest["now"]).replace(tzinfo=None)
