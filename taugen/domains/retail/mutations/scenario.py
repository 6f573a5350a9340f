"""The retail's scenario operators (see :mod:`taugen.mutation.model` for the contract): K6 missing
information, K10 no fallback, K11 omitted writes and K16 unknown tool names, each on the first task (by id)
of a retail problem.
"""

from __future__ import annotations

import re

from taugen.mutation.edits import append_instruction, drop_gold, replace_known
from taugen.mutation.model import MutableBundle, gold, initial_records, instructions, mutation


# ------------------------------------------------------------------------------------------ K6
@mutation("K6", "new_shipping_address_dropped",
          "the shipping address change no longer gives the new address the gold writes")
def new_shipping_address_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("modify_pending_order_address")
    if task is None or not replace_known(task, r"\s*The new address is [^\n]*?USA\.", ""):
        return None
    return task["id"]


@mutation("K6", "email_dropped",
          "the caller's email is left out of known_info, though the gold locates the user by it")
def email_dropped(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("modify_pending_order_payment"):
        if replace_known(task, r"Your email is \S+@\S+\.\s*", ""):
            return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K10
def _drop_fallback(bundle: MutableBundle, problem: str, pattern: str) -> str | None:
    for task in bundle.tasks_of(problem):
        steps = instructions(task)
        edited = re.sub(pattern, "", steps["task_instructions"], count=1)
        if edited != steps["task_instructions"]:
            steps["task_instructions"] = edited
            return task["id"]
    return None


@mutation("K10", "refused_cancellation_without_fallback",
          "the refused-cancellation task no longer says what the user does when the agent will not cancel")
def refused_cancellation_without_fallback(bundle: MutableBundle) -> str | None:
    return _drop_fallback(bundle, "cancel_other_reason_refused",
                          r"\s*If the agent says the order cannot be cancelled for that reason[^.]*\.")


@mutation("K10", "processed_order_cancellation_asked_without_reaction",
          "the user also asks to cancel one of their processed orders (which the policy refuses: only a pending "
          "order can be cancelled) and the scenario says nothing about what to do when the agent refuses")
def processed_order_cancellation_asked_without_reaction(bundle: MutableBundle) -> str | None:
    hosts = ("return_to_original_method", "modify_pending_order_address", "modify_user_address",
             "exchange_delivered_order_item", "modify_pending_order_payment")
    for task in sorted((t for name in hosts for t in bundle.tasks_of(name, alone=True)), key=lambda t: t["id"]):
        user = next((a["arguments"]["user_id"] for a in gold(task) if a["name"] == "get_user_details"), None)
        orders = initial_records(bundle, task, "orders")
        processed = sorted(order_id for order_id, order in orders.items()
                           if order.get("user_id") == user and order.get("status") == "processed")
        if not processed:
            continue
        append_instruction(task, f"You also want to cancel your order {processed[0]}; you ordered it by mistake.")
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K11
@mutation("K11", "default_address_change_dropped",
          "the user asks for the new default address but the gold never writes it")
def default_address_change_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "modify_user_address", "modify_user_address")


@mutation("K11", "exchange_dropped",
          "the user asks to exchange a delivered item but the gold only reads the order and the product")
def exchange_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "exchange_delivered_order_item", "exchange_delivered_order_items")


# ------------------------------------------------------------------------------------------ K16
@mutation("K16", "old_tool_name_in_instructions",
          "the user is told the agent can look the order up with `get_order_status` (the tool is "
          "get_order_details)")
def old_tool_name_in_instructions(bundle: MutableBundle) -> str | None:
    task = bundle.task("modify_pending_order_address")
    if task is None:
        return None
    append_instruction(task, "If the agent cannot find your order, suggest it look with `get_order_status`.")
    return task["id"]
