"""The retail's policy operators (see :mod:`taugen.mutation.model` for the contract).

* K1 — the gold makes a write the policy forbids: a cancellation for a reason the policy does not accept,
  the processed order cancelled too, a return refunded to PayPal, an exchange paid with a gift card short
  of the difference;
* K17 — a persona twin of a cancellation task whose gold keeps the order its twin cancels.

Tasks are picked by problem name and id.
"""

from __future__ import annotations

from taugen.mutation.edits import gold_call, persona_twin_without
from taugen.mutation.model import (MutableBundle, call_index, gold, initial_records, insert_call, mutation,
                                   replace_call, tool_call)


def _user_of(task: dict) -> str | None:
    call = gold_call(task, "get_user_details")
    return call["arguments"]["user_id"] if call else None


def payment_ids(bundle: MutableBundle, task: dict, source: str) -> list[str]:
    """The ids of the task user's payment methods of ``source`` as the task starts, sorted."""
    user = initial_records(bundle, task, "users").get(_user_of(task) or "")
    if not user:
        return []
    return sorted(key for key, method in user["payment_methods"].items() if method["source"] == source)


# ------------------------------------------------------------------------------------------ K1
@mutation("K1", "cancelled_for_a_refused_reason",
          "instead of moving the order's payment to PayPal, the gold cancels the order the user wants cancelled "
          "because it is cheaper elsewhere")
def cancelled_for_a_refused_reason(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_other_reason_refused", alone=True):
        index = call_index(task, "modify_pending_order_payment")
        if index is None:
            continue
        order_id = gold(task)[index]["arguments"]["order_id"]
        replace_call(task, index, tool_call("cancel_pending_order", {"order_id": order_id, "reason": "no longer needed"}))
        return task["id"]
    return None


@mutation("K1", "processed_order_cancelled",
          "besides the pending order, the gold cancels the processed order the user also named")
def processed_order_cancelled(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_processed_refused"):
        index = call_index(task, "cancel_pending_order")
        reads = [a["arguments"]["order_id"] for a in gold(task) if a["name"] == "get_order_details"]
        orders = initial_records(bundle, task, "orders")
        processed = [o for o in reads if orders.get(o, {}).get("status") == "processed"]
        if index is None or not processed:
            continue
        insert_call(task, index + 1, tool_call("cancel_pending_order", {"order_id": processed[0],
                                                                        "reason": "no longer needed"}))
        return task["id"]
    return None


@mutation("K1", "return_refunded_to_paypal",
          "the return of a card-paid order is refunded to the user's PayPal account, as the user first asked")
def return_refunded_to_paypal(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("return_to_paypal_refused"):
        index = call_index(task, "return_delivered_order_items")
        paypal = payment_ids(bundle, task, "paypal")
        if index is None or not paypal:
            continue
        arguments = {**gold(task)[index]["arguments"], "payment_method_id": paypal[0]}
        replace_call(task, index, tool_call("return_delivered_order_items", arguments))
        return task["id"]
    return None


@mutation("K1", "exchange_paid_with_short_gift_card",
          "the exchange's price difference is charged to the gift card whose balance does not cover it")
def exchange_paid_with_short_gift_card(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("exchange_gift_card_too_low_refused"):
        index = call_index(task, "exchange_delivered_order_items")
        gifts = payment_ids(bundle, task, "gift_card")
        wanted = [g for g in gifts if g in (task["user_scenario"]["instructions"].get("task_instructions") or "")]
        if index is None or not wanted:
            continue
        arguments = {**gold(task)[index]["arguments"], "payment_method_id": wanted[0]}
        replace_call(task, index, tool_call("exchange_delivered_order_items", arguments))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K17
@mutation("K17", "persona_twin_keeps_unneeded_order",
          "a persona variant of a no-longer-needed cancellation (same user, same order) is added whose gold keeps "
          "the order its twin cancels")
def persona_twin_keeps_unneeded_order(bundle: MutableBundle) -> str | None:
    return persona_twin_without(bundle, "cancel_pending_no_longer_needed", "cancel_pending_order")
