"""The airline's scenario operators (see :mod:`taugen.mutation.model` for the contract): K6 missing
information, K10 no fallback, K11 omitted writes and K16 unknown tool names, each on the first task (by id)
of an airline problem.
"""

from __future__ import annotations

import re

from taugen.mutation.edits import append_instruction, drop_gold, replace_known
from taugen.mutation.model import MutableBundle, instructions, mutation


# ------------------------------------------------------------------------------------------ K6
@mutation("K6", "new_passenger_birth_date_dropped",
          "the passenger swap no longer gives the new traveller's date of birth the gold writes")
def new_passenger_birth_date_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("replace_passenger")
    if task is None or not replace_known(task, r", born \d{4}-\d{2}-\d{2}\.", "."):
        return None
    return task["id"]


@mutation("K6", "user_id_dropped",
          "the caller's user id is left out of known_info, though every gold read starts from it")
def user_id_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("cancel_business_reservation")
    if task is None or not replace_known(task, r"Your user id is \S+\.\s*", ""):
        return None
    return task["id"]


# ------------------------------------------------------------------------------------------ K10
def _drop_fallback(bundle: MutableBundle, problem: str, pattern: str) -> str | None:
    task = bundle.task(problem)
    if task is None:
        return None
    steps = instructions(task)
    edited = re.sub(pattern, "", steps["task_instructions"], count=1)
    if edited == steps["task_instructions"]:
        return None
    steps["task_instructions"] = edited
    return task["id"]


@mutation("K10", "refused_cancellation_without_fallback",
          "the refused-cancellation task no longer says what the user does when the agent cannot cancel")
def refused_cancellation_without_fallback(bundle: MutableBundle) -> str | None:
    return _drop_fallback(bundle, "cancel_refused_change_instead", r"\s*If the agent says the reservation cannot be "
                                                                   r"cancelled, ask instead[^.]*\.")


@mutation("K10", "refused_compensation_without_reaction",
          "the regular member's task no longer says what to do when compensation is refused")
def refused_compensation_without_reaction(bundle: MutableBundle) -> str | None:
    return _drop_fallback(bundle, "compensation_refused_regular_member",
                          r"\s*If the agent says you cannot be compensated, accept it\.")


# ------------------------------------------------------------------------------------------ K11
@mutation("K11", "delay_certificate_dropped",
          "the delayed business trip is cancelled but the gold leaves out the delay certificate the user asks for")
def delay_certificate_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "compensate_delayed_business_cancel", "send_certificate")


@mutation("K11", "cabin_upgrade_dropped",
          "the user asks for the business upgrade but the gold only reads the reservation")
def cabin_upgrade_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "upgrade_basic_economy_cabin", "update_reservation_flights")


# ------------------------------------------------------------------------------------------ K16
@mutation("K16", "old_tool_name_in_instructions",
          "the user is told the agent can look the trip up with `get_booking_details` (the tool is "
          "get_reservation_details)")
def old_tool_name_in_instructions(bundle: MutableBundle) -> str | None:
    task = bundle.task("change_flight_date")
    if task is None:
        return None
    append_instruction(task, "If the agent cannot find your trip, suggest it look with `get_booking_details`.")
    return task["id"]
