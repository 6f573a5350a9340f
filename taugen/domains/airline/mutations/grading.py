"""The airline's operators for kinds its tasks carry only once edited (see :mod:`taugen.mutation.model` for
the contract). Airline tasks are graded on the database alone and state a reservation by its id, so these
operators add what an author might add, wrongly:

* K4 — a graded statement disagrees with the gold: an nl_assertion names the paying card, or the cancelled
  reservation, one character off;
* K8 — the scenario contradicts itself or the gold: the caller's name is another traveller's; the user
  takes a certificate only up to an amount below the one the gold sends;
* K15 — the user asks for the most recent of two reservations on the same route while the gold cancels
  the older one.
"""

from __future__ import annotations

import copy
import datetime as dt
import re

from taugen.mutation.edits import add_assertion, gold_call, known_ids, known_info, replace_known, typo
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


# ------------------------------------------------------------------------------------------ K8
_NAME = re.compile(r"You are ([A-Z][^.]+)\.")


@mutation("K8", "caller_name_from_sibling_task",
          "the caller's name in known_info is another traveller's, copied from a sibling task")
def caller_name_from_sibling_task(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("change_flight_date"):
        mine = _NAME.match(known_info(task))
        others = sorted({m.group(1) for t in bundle.tasks for m in [_NAME.match(known_info(t))]
                         if m and mine and m.group(1) != mine.group(1)})
        if mine and others and replace_known(task, rf"You are {re.escape(mine.group(1))}\.", f"You are {others[0]}."):
            return task["id"]
    return None


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
        user = target and (agent_patch(task).get("users") or {}).get(target["user_id"])
        if not target or user is None or not target.get("created_at") or "_" in target.get("cabin", "_"):
            continue  # the sentence names the cabin as stored ("economy"), which ties it to the reservation
        later = dt.datetime.fromisoformat(target["created_at"]) + dt.timedelta(hours=1)
        if later > bundle_now(bundle):
            continue
        twin_id = typo(target_id, known_ids(bundle))
        twin = {**copy.deepcopy(target), "reservation_id": twin_id, "created_at": later.isoformat()}
        agent_patch(task)["reservations"][twin_id] = twin
        user["reservations"] = [*user["reservations"], twin_id]
        steps = instructions(task)
        steps["task_instructions"] = (steps.get("task_instructions") or "") + (
            f" You have two {target['cabin']} bookings from {target['origin']} to {target['destination']}; ask to "
            "cancel the most recent reservation.")
        return task["id"]
    return None


def bundle_now(bundle: MutableBundle) -> dt.datetime:
    """The world's clock (``author/manifest.json`` ``now``) without its zone, as reservations write times."""
    return dt.datetime.fromisoformat(bundle.manifest["now"]).replace(tzinfo=None)
