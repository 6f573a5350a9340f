"""The retail's operators for graded statements and contradictions (see :mod:`taugen.mutation.model` for the
contract). Retail tasks are graded on the database alone and name an order by its id, so these operators add
what an author might add, wrongly:

* K4 — a graded statement disagrees with the gold: an nl_assertion names the refund's payment method, or
  the cancelled order, one character off;
* K8 — the scenario contradicts itself: the caller's name is another shopper's.
"""

from __future__ import annotations


from taugen.mutation.edits import add_assertion, gold_call, known_ids, name_from_sibling, typo
from taugen.mutation.model import MutableBundle, mutation


# ------------------------------------------------------------------------------------------ K4
@mutation("K4", "assertion_names_a_neighbour_refund_method",
          "an nl_assertion says the refund of a return goes to a payment method one character off the gold's")
def assertion_names_a_neighbour_refund_method(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("return_to_original_method"):
        call = gold_call(task, "return_delivered_order_items")
        if call is None:
            continue
        wrong = typo(call["arguments"]["payment_method_id"], known_ids(bundle))
        add_assertion(task, f"The agent returns order {call['arguments']['order_id']} and refunds it to {wrong}.",
                      "NL_ASSERTION")
        return task["id"]
    return None


@mutation("K4", "assertion_names_a_neighbour_order",
          "an nl_assertion names the cancelled order with one character of its id wrong")
def assertion_names_a_neighbour_order(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("cancel_pending_no_longer_needed"):
        call = gold_call(task, "cancel_pending_order")
        if call is None:
            continue
        wrong = typo(call["arguments"]["order_id"], known_ids(bundle))
        add_assertion(task, f"The agent cancels order {wrong} because the user no longer needs it.", "NL_ASSERTION")
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K8


@mutation("K8", "caller_name_from_sibling_task",
          "the caller's name in known_info is another shopper's, copied from a sibling task")
def caller_name_from_sibling_task(bundle: MutableBundle) -> str | None:
    return name_from_sibling(bundle, "modify_pending_order_address")
