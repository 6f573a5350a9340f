"""The retail's grounding operators (see :mod:`taugen.mutation.model` for the contract).

* K2 — a gold write breaks a tool precondition: a pending item "modified" to itself, a cancellation with
  a reason the tool does not take;
* K5 — a gold argument contradicts the records: an order id one character off, a returned item id one
  character off;
* K14 — a write names a payment method no read returns.
"""

from __future__ import annotations

from taugen.mutation.edits import known_ids, typo
from taugen.mutation.model import MutableBundle, call_index, gold, mutation, replace_call, tool_call


# ------------------------------------------------------------------------------------------ K2
@mutation("K2", "item_modified_to_itself",
          "the item modification names the old item as its own new item")
def item_modified_to_itself(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("modify_pending_order_item"):
        index = call_index(task, "modify_pending_order_items")
        if index is None:
            continue
        arguments = dict(gold(task)[index]["arguments"])
        arguments["new_item_ids"] = list(arguments["item_ids"])
        replace_call(task, index, tool_call("modify_pending_order_items", arguments))
        return task["id"]
    return None


@mutation("K2", "cancelled_with_an_unknown_reason",
          "the cancellation gives the reason 'changed my mind', which the cancel tool does not take")
def cancelled_with_an_unknown_reason(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_pending_ordered_by_mistake"):
        index = call_index(task, "cancel_pending_order")
        if index is None:
            continue
        arguments = {**gold(task)[index]["arguments"], "reason": "changed my mind"}
        replace_call(task, index, tool_call("cancel_pending_order", arguments))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K5
@mutation("K5", "cancelled_order_id_typo",
          "the cancellation names an order id one character off the user's order")
def cancelled_order_id_typo(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_pending_no_longer_needed"):
        index = call_index(task, "cancel_pending_order")
        if index is None:
            continue
        arguments = dict(gold(task)[index]["arguments"])
        arguments["order_id"] = typo(arguments["order_id"], known_ids(bundle))
        replace_call(task, index, tool_call("cancel_pending_order", arguments))
        return task["id"]
    return None


@mutation("K5", "returned_item_id_typo",
          "the return lists an item id one character off the order's item")
def returned_item_id_typo(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("return_to_original_method"):
        index = call_index(task, "return_delivered_order_items")
        if index is None:
            continue
        arguments = dict(gold(task)[index]["arguments"])
        arguments["item_ids"] = [typo(arguments["item_ids"][0], known_ids(bundle)), *arguments["item_ids"][1:]]
        replace_call(task, index, tool_call("return_delivered_order_items", arguments))
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K14
@mutation("K14", "payment_moved_to_unlisted_method",
          "the payment change names a PayPal id that is on no profile and that no read returns")
def payment_moved_to_unlisted_method(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("modify_pending_order_payment"):
        index = call_index(task, "modify_pending_order_payment")
        if index is None:
            continue
        arguments = dict(gold(task)[index]["arguments"])
        arguments["payment_method_id"] = typo(arguments["payment_method_id"], known_ids(bundle))
        replace_call(task, index, tool_call("modify_pending_order_payment", arguments))
        return task["id"]
    return None
