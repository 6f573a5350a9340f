"""The retail policy as code: rules computed from the pack's typed facts.

The defect validators replay every gold write through these rules (K1 a write the policy forbids, K17
opposite decisions for equal rule inputs), naming the facts a write breaks. Every yes/no comes from a fact
(:class:`~taugen.generators.policy.PolicyContext` ``value``), so editing a fact in YAML moves the rules
with it. Where the tool itself refuses a call (a status it does not accept, a gift card short of the
amount), the rule still names the fact: the policy says it first, and a gold write that breaks it is a
policy defect as much as a broken precondition.
"""

from __future__ import annotations

import re
from typing import Any

from taugen.generators.policy import PolicyContext, PolicyRule, Violation

from .db import Order, RetailDB


def _value(context: PolicyContext, fact_id: str) -> Any:
    value = context.value(fact_id)
    if value is None:
        return None
    for attribute in ("value", "amount"):
        if hasattr(value, attribute):
            return getattr(value, attribute)
    return None


def _order(context: PolicyContext, arguments: dict[str, Any]) -> Order | None:
    state: RetailDB = context.state  # type: ignore[assignment]
    order_id = arguments.get("order_id")
    return state.orders.get(order_id) if isinstance(order_id, str) else None


def _method(context: PolicyContext, order: Order, payment_method_id: Any):
    state: RetailDB = context.state  # type: ignore[assignment]
    user = state.users.get(order.user_id)
    if user is None or not isinstance(payment_method_id, str):
        return None
    return user.payment_methods.get(payment_method_id)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;!?])\s+|\n", text or "") if s.strip()]


# ------------------------------------------------------------------------------------------ payment choice
_PAYMENT_WORDS = re.compile(r"\b(pay\s?pal|credit\s+cards?|debit\s+cards?|gift\s?cards?|visa|master\s?card|amex|"
                            r"american express|discover|card ending|ending in \d{4}|original (?:payment|method|card)|"
                            r"same (?:payment|method|card)|(?:payment|refund)(?: or (?:payment|refund))? methods?|"
                            r"(?:other|another|this|that|my|your) card|pay(?:s|ing)? (?:with|by|using)|"
                            r"refund(?:ed)? (?:to|on|back to|into))\b", re.I)
"""Words by which a user names how to pay or be refunded (a method's kind or brand, its last digits, "the
original payment method"). tau2's retail policy asks the user for the method ("the user must provide a
payment method to pay or receive refund of the price difference"; a return's refund goes "to the original
payment method, or an existing gift card")."""


def _payment_options(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The same item write settled with each other payment method of the order's user, when the scenario
    names no payment method at all (:data:`_PAYMENT_WORDS`) (defect-kinds.md K9: "two different refunds are
    both allowed and the task does not say which"). The K9 check keeps an option only when the policy and
    the tool accept it (a return's refund to a card that did not pay is refused; a gift card must cover a
    difference) and it reaches another end state (a difference of zero moves no money); the scenario then
    has to say which method the user wants (tau2 retail 15 and 100 were fixed by adding it)."""
    if tool not in _PAYMENT_TOOLS or _PAYMENT_WORDS.search(context.scenario or ""):
        return []
    order = _order(context, arguments)
    state: RetailDB = context.state  # type: ignore[assignment]
    user = state.users.get(order.user_id) if order is not None else None
    if user is None or not isinstance(arguments.get("payment_method_id"), str):
        return []
    return [{**arguments, "payment_method_id": method_id} for method_id in sorted(user.payment_methods)
            if method_id != arguments["payment_method_id"]]


_PAYMENT_TOOLS = ("modify_pending_order_items", "exchange_delivered_order_items", "return_delivered_order_items")


# ------------------------------------------------------------------------------------------ one user
def _other_user(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    """A write on another user's order or profile than the one the conversation read (when it read one)."""
    read = {a.get("user_id") for name, a in context.calls if name == "get_user_details"}
    if not read:
        return []
    state: RetailDB = context.state  # type: ignore[assignment]
    order = _order(context, arguments)
    owner = order.user_id if order is not None else arguments.get("user_id")
    if not isinstance(owner, str) or owner not in state.users or owner in read:
        return []
    if _value(context, "deny_requests_for_other_users") is False:
        return [Violation("one_user_rules", ("deny_requests_for_other_users", "one_user_per_conversation"),
                          f"{tool} acts for {owner}, not the user the conversation authenticated")]
    return []


ONE_USER = PolicyRule(name="one_user_rules", facts=("deny_requests_for_other_users", "one_user_per_conversation"),
                      tools=("cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items",
                             "modify_pending_order_payment", "modify_user_address", "return_delivered_order_items",
                             "exchange_delivered_order_items"),
                      check=_other_user,
                      description="Only the authenticated user's orders and profile are acted on.")


# ------------------------------------------------------------------------------------------ cancellation
_REASONS = {"no longer needed": "cancel_reason_no_longer_needed", "ordered by mistake": "cancel_reason_ordered_by_mistake"}
_STATED_REASON = re.compile(r"\b(no longer need\w*|don't need|do not need|not need\w* (?:it|them|anymore)|by mistake|"
                            r"mistaken\w*|accident\w*|changed? (?:my|your|their) mind)\b", re.I)
_GIVEN_REASON = re.compile(r"\b(because|since|as|due to|the reason)\b", re.I)


def _unaccepted_reason(scenario: str) -> bool:
    """The scenario gives a reason for cancelling ("cancel it because it is cheaper elsewhere") and states
    no accepted one anywhere (a scenario that gives no reason at all leaves the agent to ask for it)."""
    if _STATED_REASON.search(scenario):
        return False
    return any(re.search(r"\bcancel", sentence, re.I) and _GIVEN_REASON.search(sentence)
               for sentence in _sentences(scenario))


CANCEL_FACTS = ("cancel_only_pending", "cancel_reason_no_longer_needed", "cancel_reason_ordered_by_mistake",
                "cancel_other_reasons_refused")


def _cancel(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    order = _order(context, arguments)
    if order is None:
        return []
    found = []
    if order.status != "pending" and _value(context, "cancel_only_pending"):
        found.append(Violation("cancellation_rules", ("cancel_only_pending",),
                               f"{tool} cancels {order.order_id}, whose status is {order.status}"))
    reason = arguments.get("reason")
    fact_id = _REASONS.get(reason) if isinstance(reason, str) else None
    if fact_id is None:
        if not _value(context, "cancel_other_reasons_refused"):
            found.append(Violation("cancellation_rules", ("cancel_other_reasons_refused",),
                                   f"{tool} cancels {order.order_id} for a reason the policy does not accept"))
    elif not _value(context, fact_id):
        found.append(Violation("cancellation_rules", (fact_id,), f"{tool} cancels {order.order_id} as {reason}"))
    elif context.scenario and order.order_id in context.scenario and _unaccepted_reason(context.scenario) \
            and not _value(context, "cancel_other_reasons_refused"):
        found.append(Violation("cancellation_rules", ("cancel_other_reasons_refused",),
                               f"{tool} cancels {order.order_id} as {reason}, but the user's reason is none the policy accepts"))
    return found


def _cancel_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    order = _order(context, arguments)
    if order is None:
        return None
    return {"status": order.status, "reason_stated": bool(_STATED_REASON.search(context.scenario or ""))}


def _cancel_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Cancellations the scenario asks for: an order of the customer named in a sentence that says "cancel"
    (the reason the scenario states, else "no longer needed")."""
    state: RetailDB = context.state  # type: ignore[assignment]
    user = state.users.get(customer_id)
    if user is None:
        return []
    asked = [s for s in _sentences(context.scenario) if re.search(r"\bcancel\b", s, re.I)
             and not re.search(r"\b(not|never)\b", s, re.I)]
    reason = "ordered by mistake" if re.search(r"\bby mistake\b", context.scenario or "", re.I) else "no longer needed"
    return [("cancel_pending_order", {"order_id": order_id, "reason": reason}) for order_id in sorted(user.orders)
            if order_id in state.orders and state.orders[order_id].status != "cancelled"
            and any(order_id in sentence for sentence in asked)]


CANCELLATION = PolicyRule(name="cancellation_rules", facts=CANCEL_FACTS, tools=("cancel_pending_order",),
                          check=_cancel, inputs=_cancel_inputs, candidates=_cancel_candidates,
                          description="Only a pending order is cancelled, and only because it is no longer needed "
                                      "or was ordered by mistake.")


# ------------------------------------------------------------------------------------------ pending order changes
def _modify(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    order = _order(context, arguments)
    if order is None:
        return []
    found = []
    if "pending" not in order.status and _value(context, "modify_only_pending"):
        found.append(Violation("order_change_rules", ("modify_only_pending",),
                               f"{tool} modifies {order.order_id}, whose status is {order.status}"))
    if tool == "modify_pending_order_address" and not _value(context, "modify_address_allowed"):
        found.append(Violation("order_change_rules", ("modify_address_allowed",),
                               f"{tool} changes the shipping address of {order.order_id}"))
    if tool == "modify_pending_order_items":
        if order.status != "pending" and _value(context, "modify_items_once"):
            found.append(Violation("order_change_rules", ("modify_items_once",),
                                   f"{tool} modifies the items of {order.order_id} a second time"))
        found += _item_rules(context, tool, order, arguments, "order_change_rules",
                             ("modify_items_same_product_available", "modify_items_no_product_type_change",
                              "modify_items_gift_card_balance"))
    if tool == "modify_pending_order_payment":
        method = _method(context, order, arguments.get("payment_method_id"))
        if method is not None and not _value(context, "modify_payment_single_different_method"):
            found.append(Violation("order_change_rules", ("modify_payment_single_different_method",),
                                   f"{tool} changes the payment method of {order.order_id}"))
        amount = order.payment_history[0].amount if order.payment_history else 0.0
        if method is not None and method.source == "gift_card" and method.balance < amount \
                and _value(context, "modify_payment_gift_card_balance"):
            found.append(Violation("order_change_rules", ("modify_payment_gift_card_balance",),
                                   f"{tool} pays {order.order_id} ({amount:.2f}) with a gift card holding "
                                   f"{method.balance:.2f}"))
    return found


def _item_rules(context: PolicyContext, tool: str, order: Order, arguments: dict[str, Any], rule: str,
                facts: tuple[str, str, str]) -> list[Violation]:
    """Each new item an available option of the same product (an identical item breaks the tools' contract,
    K2, which tau2's exchange tool does not enforce itself); a gift card covers the price difference."""
    state: RetailDB = context.state  # type: ignore[assignment]
    same_product, no_type_change, gift_balance = facts
    found: list[Violation] = []
    old, new = arguments.get("item_ids") or [], arguments.get("new_item_ids") or []
    difference = 0.0
    for item_id, new_item_id in zip(old, new):
        item = next((line for line in order.items if line.item_id == item_id), None)
        if item is None or not isinstance(new_item_id, str):
            continue
        product = state.products.get(item.product_id)
        variant = product.variants.get(new_item_id) if product is not None else None
        if variant is None:
            if any(new_item_id in p.variants for p in state.products.values()) and not _value(context, no_type_change):
                found.append(Violation(rule, (no_type_change,), f"{tool} changes {item.name} {item_id} into another "
                                                                 "product"))
            continue
        if new_item_id == item_id and _value(context, same_product):
            found.append(Violation(rule, (same_product,), f"item {item_id} is 'exchanged' for the identical item (the "
                                                          "tool's contract: a different option)", kind="precondition"))
        elif not variant.available and _value(context, same_product):
            found.append(Violation(rule, (same_product,), f"{tool} changes {item_id} to {new_item_id}, which is not "
                                                          "available"))
        difference += variant.price - item.price
    method = _method(context, order, arguments.get("payment_method_id"))
    if method is not None and method.source == "gift_card" and method.balance < round(difference, 2) \
            and _value(context, gift_balance):
        found.append(Violation(rule, (gift_balance,), f"{tool} settles a difference of {difference:.2f} with a gift "
                                                      f"card holding {method.balance:.2f}"))
    return found


def _modify_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    order = _order(context, arguments)
    if order is None:
        return None
    method = _method(context, order, arguments.get("payment_method_id"))
    return {"tool": tool, "status": order.status, "method": getattr(method, "source", None)}


ORDER_CHANGES = PolicyRule(
    name="order_change_rules",
    facts=("modify_only_pending", "modify_address_allowed", "modify_items_once", "modify_items_same_product_available",
           "modify_items_no_product_type_change", "modify_items_gift_card_balance",
           "modify_payment_single_different_method", "modify_payment_gift_card_balance"),
    tools=("modify_pending_order_address", "modify_pending_order_items", "modify_pending_order_payment"),
    check=_modify, inputs=_modify_inputs, alternatives=_payment_options,
    description="Only a pending order is modified: its address, its payment (one other method; a gift card "
                "covering the total) or its items (once, to available options of the same product).")


# ------------------------------------------------------------------------------------------ returns
RETURN_FACTS = ("return_only_delivered", "return_refund_to_original_method", "return_refund_to_existing_gift_card",
                "return_refund_no_other_method")


def _refund_kind(order: Order, method: Any, payment_method_id: Any) -> str:
    original = order.payment_history[0].payment_method_id if order.payment_history else None
    if payment_method_id == original:
        return "original"
    return "gift_card" if getattr(method, "source", None) == "gift_card" else "other"


def _return(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    order = _order(context, arguments)
    if order is None:
        return []
    found = []
    if order.status != "delivered" and _value(context, "return_only_delivered"):
        found.append(Violation("return_rules", ("return_only_delivered",),
                               f"{tool} returns {order.order_id}, whose status is {order.status}"))
    method = _method(context, order, arguments.get("payment_method_id"))
    if method is None:
        return found
    kind = _refund_kind(order, method, arguments.get("payment_method_id"))
    fact_id = {"original": "return_refund_to_original_method", "gift_card": "return_refund_to_existing_gift_card",
               "other": "return_refund_no_other_method"}[kind]
    if not _value(context, fact_id):
        found.append(Violation("return_rules", (fact_id,),
                               f"{tool} refunds {order.order_id} to {arguments.get('payment_method_id')}"))
    return found


def _return_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    order = _order(context, arguments)
    if order is None:
        return None
    method = _method(context, order, arguments.get("payment_method_id"))
    return {"status": order.status, "refund_to": _refund_kind(order, method, arguments.get("payment_method_id"))}


RETURNS = PolicyRule(name="return_rules", facts=RETURN_FACTS, tools=("return_delivered_order_items",),
                     check=_return, inputs=_return_inputs, alternatives=_payment_options,
                     description="Only a delivered order is returned; the refund goes to the original payment "
                                 "method or an existing gift card.")


# ------------------------------------------------------------------------------------------ exchanges
def _exchange(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    order = _order(context, arguments)
    if order is None:
        return []
    found = []
    if order.status != "delivered" and _value(context, "exchange_only_delivered"):
        found.append(Violation("exchange_rules", ("exchange_only_delivered",),
                               f"{tool} exchanges items of {order.order_id}, whose status is {order.status}"))
    return found + _item_rules(context, tool, order, arguments, "exchange_rules",
                               ("exchange_same_product_available", "exchange_no_product_type_change",
                                "exchange_gift_card_balance"))


EXCHANGES = PolicyRule(name="exchange_rules",
                       facts=("exchange_only_delivered", "exchange_same_product_available",
                              "exchange_no_product_type_change", "exchange_gift_card_balance"),
                       tools=("exchange_delivered_order_items",), check=_exchange, inputs=_modify_inputs,
                       alternatives=_payment_options,
                       description="Only a delivered order is exchanged, for available options of the same "
                                   "product; a gift card paying the difference must cover it.")


# ------------------------------------------------------------------------------------------ profile
def _profile(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    if _value(context, "default_address_can_be_modified"):
        return []
    return [Violation("profile_rules", ("default_address_can_be_modified",),
                      f"{tool} changes the default address of {arguments.get('user_id')}")]


PROFILE = PolicyRule(name="profile_rules", facts=("default_address_can_be_modified",), tools=("modify_user_address",),
                     check=_profile, description="The default address of the authenticated user can be changed.")


RULES: tuple[PolicyRule, ...] = (ONE_USER, CANCELLATION, ORDER_CHANGES, RETURNS, EXCHANGES, PROFILE)
