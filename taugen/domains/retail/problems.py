"""Problem functions of the retail domain: what a caller wants, the world that makes it so, the gold.

Every problem builds its own order for the caller in ``setup`` (so that problems composed into one task
never act on the same order), gives it its own gift card where a balance matters, says what the simulated
user knows and wants, returns the gold tool calls in ``solve`` (decided by the facts it declares: every
yes/no comes from ``context.value``, never from a literal) and lists what is still unmet in ``check``.

Problems whose request the policy refuses (``outcome = "refuse"``) give the user a fallback the policy
allows (tau2's retail tasks do the same: "if the agent cannot refund to PayPal, use the original card"), so
the gold always changes the database: a do-nothing run never passes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from taugen.generators.problems import GoldCall, Problem, ProblemContext, ScenarioFragment

from .db import GiftCard, Order, OrderFullfilment, OrderPayment, Paypal, Product, RetailDB, User, UserAddress, Variant
from .world import order_id, order_item, seven_digits

STREETS = ("Maple Avenue", "Cedar Lane", "Lakeview Drive", "Willow Street", "Hillcrest Road", "Park Place",
           "River Road", "Elm Street", "Sunset Boulevard", "Main Street")
"""Street names of the new addresses users move to (numbers and places are drawn per problem)."""
PLACES = (("Austin", "TX", "78701"), ("Denver", "CO", "80202"), ("Seattle", "WA", "98101"),
          ("Columbus", "OH", "43215"), ("Portland", "OR", "97205"), ("Charlotte", "NC", "28202"),
          ("Phoenix", "AZ", "85004"), ("Boston", "MA", "02108"))
"""City, state and zip of the new addresses."""


# ----------------------------------------------------------------------------------------------- helpers
def _db(context: ProblemContext) -> RetailDB:
    return context.toolkit.db  # type: ignore[return-value]


def _user(context: ProblemContext) -> User:
    return _db(context).users[context.customer_id]


def _flag(context: ProblemContext, fact_id: str) -> bool:
    return bool(context.value(fact_id).value)  # type: ignore[attr-defined]


def _order(context: ProblemContext, key: str = "order_id") -> Order:
    return _db(context).orders[context.state[key]]


def _options(variant: Variant) -> str:
    return ", ".join(f"{name} {value}" for name, value in variant.options.items())


def _line(item) -> str:
    return f"a {item.name} ({', '.join(f'{n} {v}' for n, v in item.options.items())})"


def _card(user: User):
    """The user's first credit card by id (every seeded user has one)."""
    return sorted((m for m in user.payment_methods.values() if m.source == "credit_card"), key=lambda m: m.id)[0]


def card_words(method) -> str:
    """How a user names a payment method: brand and last four digits, PayPal, or the gift card id."""
    if method.source == "credit_card":
        return f"your {method.brand} credit card ending in {method.last_four}"
    if method.source == "paypal":
        return "your PayPal account"
    return f"your gift card {method.id}"


def _new_method(context: ProblemContext, source: str, balance: float = 0.0):
    """Add a fresh payment method of ``source`` (``paypal`` or ``gift_card``) to the caller's profile."""
    user = _user(context)
    method_id = f"{source}_{seven_digits(context.rng)}"
    while method_id in user.payment_methods:
        method_id = f"{source}_{seven_digits(context.rng)}"
    method = Paypal(id=method_id) if source == "paypal" else GiftCard(id=method_id, balance=round(balance, 2))
    user.payment_methods[method_id] = method
    return method


def _paypal(context: ProblemContext):
    """The caller's PayPal account (one is opened on the profile when there is none)."""
    found = sorted(k for k, m in _user(context).payment_methods.items() if m.source == "paypal")
    return _user(context).payment_methods[found[0]] if found else _new_method(context, "paypal")


def _changeable(product: Product, item_id: str) -> list[Variant]:
    """Available variants of ``product`` other than ``item_id``, by item id."""
    return [v for key, v in sorted(product.variants.items()) if key != item_id and v.available]


def _add_order(context: ProblemContext, status: str, method_id: str, items: int = 2, key: str = "order_id") -> Order:
    """Put a new order of the caller with ``items`` lines (each of a product that has another available
    option) into the world, paid in full by ``method_id``, and remember its id in ``context.state[key]``."""
    db = _db(context)
    user = _user(context)
    candidates = [p for _, p in sorted(db.products.items())
                  if any(_changeable(p, v.item_id) for v in p.variants.values())]
    products = context.rng.sample(candidates, items)
    lines = []
    for product in products:
        usable = [v for _, v in sorted(product.variants.items()) if _changeable(product, v.item_id)]
        lines.append(order_item(product, context.rng.choice(usable)))
    total = round(sum(line.price for line in lines), 2)
    fulfilments = ([OrderFullfilment(tracking_id=[str(context.rng.randint(100_000_000_000, 999_999_999_999))],
                                     item_ids=[line.item_id for line in lines])]
                   if status in ("processed", "delivered") else [])
    order = Order(order_id=order_id(context.rng, set(db.orders)), user_id=user.user_id,
                  address=user.address.model_copy(), items=lines, status=status,  # type: ignore[arg-type]
                  fulfillments=fulfilments,
                  payment_history=[OrderPayment(transaction_type="payment", amount=total, payment_method_id=method_id)])
    db.orders[order.order_id] = order
    user.orders.append(order.order_id)
    context.state[key] = order.order_id
    return order


def _order_line(context: ProblemContext, key: str = "order_id") -> str:
    order = _order(context, key)
    return (f"Your order {order.order_id} holds " + " and ".join(_line(item) for item in order.items) + ".")


def _lookup(context: ProblemContext, key: str = "order_id") -> GoldCall:
    return GoldCall("get_order_details", {"order_id": context.state[key]})


def _new_address(context: ProblemContext) -> dict[str, str]:
    city, state, zip_code = context.rng.choice(PLACES)
    return {"address1": f"{context.rng.randint(10, 999)} {context.rng.choice(STREETS)}",
            "address2": f"Apt {context.rng.randint(1, 40)}" if context.rng.random() < 0.5 else "",
            "city": city, "state": state, "country": "USA", "zip": zip_code}


def _address_words(address: dict[str, str]) -> str:
    second = f", {address['address2']}" if address["address2"] else ""
    return f"{address['address1']}{second}, {address['city']}, {address['state']} {address['zip']}, {address['country']}"


def _same_address(address: UserAddress, wanted: dict[str, str]) -> bool:
    return address.model_dump() == wanted


def _decided(allowed: bool, done: bool, missing: str, against: str) -> list[str]:
    """A check's findings for one write the policy decides: ``[missing]`` when the write is allowed and was
    not made, ``[against]`` when it is refused and was made, else none."""
    if allowed:
        return [] if done else [missing]
    return [against] if done else []


# ----------------------------------------------------------------------------------------------- opening
class UserIdentification(Problem):
    """Every task opens with it: the agent locates the caller's user id by email (or, for a caller who does
    not remember the email on the profile, by name and zip code) and reads the profile."""

    name = "user_identification"
    slot = "identity"
    facts = ()
    context_facts = ("authenticate_at_start", "authenticate_by_email", "authenticate_by_name_and_zip",
                     "authenticate_even_with_user_id")
    summary = "Locate the caller's user id by email or by name and zip code, then read the profile."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        user = _user(context)
        by_email = context.rng.random() < 0.7
        context.state["by_email"] = by_email
        known = [f"You are {user.name.first_name} {user.name.last_name}."]
        if by_email:
            known.append(f"Your email is {user.email}.")
            unknown = []
        else:
            known.append(f"Your zip code is {user.address.zip}.")
            unknown = ["You do not remember the email address on your profile."]
        return ScenarioFragment(
            reason_for_call="", known_info=known, unknown_info=unknown,
            task_instructions=["Give your email, or your name and zip code, when the agent asks who you are. "
                               "Answer yes when the agent lists the details of an action you asked for and asks "
                               "you to confirm."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        user = _user(context)
        if context.state["by_email"]:
            find = GoldCall("find_user_id_by_email", {"email": user.email})
        else:
            find = GoldCall("find_user_id_by_name_zip", {"first_name": user.name.first_name,
                                                         "last_name": user.name.last_name, "zip": user.address.zip})
        return [find, GoldCall("get_user_details", {"user_id": context.customer_id})]

    def check(self, context: ProblemContext) -> list[str]:
        return []


# ----------------------------------------------------------------------------------------------- cancel
class _CancelPending(Problem):
    """A caller cancels a pending order for a reason; the fact of that reason decides whether it goes through."""

    slot = "cancel"
    reason: ClassVar[str]
    reason_fact: ClassVar[str]
    context_facts = ("cancel_only_pending", "cancel_needs_order_id_and_reason", "confirm_before_database_update")

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        method = _card(_user(context))
        _add_order(context, "pending", method.id, items=context.rng.randint(1, 3))
        return ScenarioFragment(
            reason_for_call=f"You want to cancel your order {context.state['order_id']} because it is {self.reason}.",
            known_info=[_order_line(context), f"The reason is: {self.reason}."],
            task_instructions=["If the agent says the order cannot be cancelled, accept it."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context)]
        if _flag(context, self.reason_fact):
            calls.append(GoldCall("cancel_pending_order", {"order_id": context.state["order_id"],
                                                           "reason": self.reason}))
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        cancelled = _order(context).status == "cancelled"
        if _flag(context, self.reason_fact):
            return [] if cancelled and _order(context).cancel_reason == self.reason else [
                "the order was not cancelled for the reason given"]
        return ["the order was cancelled against the policy"] if cancelled else []


class CancelNoLongerNeeded(_CancelPending):
    """A pending order the caller no longer needs: cancelled with that reason, refunded to the card."""

    name = "cancel_pending_no_longer_needed"
    facts = ("cancel_reason_no_longer_needed",)
    reason = "no longer needed"
    reason_fact = "cancel_reason_no_longer_needed"
    summary = "Cancel a pending order the caller no longer needs."


class CancelOrderedByMistake(_CancelPending):
    """A pending order placed by mistake and paid by gift card: cancelled, the gift card refunded at once."""

    name = "cancel_pending_ordered_by_mistake"
    facts = ("cancel_reason_ordered_by_mistake",)
    context_facts = ("cancel_only_pending", "cancel_refund_gift_card_immediately")
    reason = "ordered by mistake"
    reason_fact = "cancel_reason_ordered_by_mistake"
    summary = "Cancel a pending order placed by mistake and paid by gift card."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        gift = _new_method(context, "gift_card", float(context.rng.randint(5, 60)))
        _add_order(context, "pending", gift.id, items=context.rng.randint(1, 2))
        return ScenarioFragment(
            reason_for_call=f"You want to cancel your order {context.state['order_id']} because you ordered it by "
                            "mistake.",
            known_info=[_order_line(context), f"You paid with {card_words(gift)}. The reason is: {self.reason}."],
            task_instructions=["If the agent says the order cannot be cancelled, accept it."])


class CancelOtherReasonRefused(Problem):
    """A caller wants to cancel a pending order because they found it cheaper elsewhere: not an accepted
    reason, so the order stays; the caller then moves its payment to their PayPal account instead."""

    name = "cancel_other_reason_refused"
    slot = "cancel"
    facts = ("cancel_other_reasons_refused",)
    context_facts = ("deny_requests_against_policy", "modify_payment_single_different_method")
    outcome = "refuse"
    summary = "Refuse to cancel a pending order for a reason the policy does not accept; change its payment instead."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        paypal = _paypal(context)
        _add_order(context, "pending", card.id, items=context.rng.randint(1, 2))
        context.state["paypal"] = paypal.id
        return ScenarioFragment(
            reason_for_call=f"You want to cancel your order {context.state['order_id']} because you found the same "
                            "things cheaper in another shop.",
            known_info=[_order_line(context), f"You paid with {card_words(card)}."],
            task_instructions=["Give the cheaper price elsewhere as your only reason. If the agent says the order "
                               "cannot be cancelled for that reason, keep the order and ask to pay it with your PayPal "
                               "account instead of the card."])

    def _cancel(self, context: ProblemContext) -> GoldCall:
        return GoldCall("cancel_pending_order", {"order_id": context.state["order_id"], "reason": "no longer needed"})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context)]
        if not _flag(context, "cancel_other_reasons_refused"):
            return calls + [GoldCall("modify_pending_order_payment", {"order_id": context.state["order_id"],
                                                                      "payment_method_id": context.state["paypal"]})]
        return calls + [self._cancel(context)]

    def check(self, context: ProblemContext) -> list[str]:
        order = _order(context)
        if _flag(context, "cancel_other_reasons_refused"):
            return [] if order.status == "cancelled" else ["the order was not cancelled"]
        unmet = ["the order was cancelled against the policy"] if order.status == "cancelled" else []
        if order.payment_history[-2:-1] and order.payment_history[-2].payment_method_id == context.state["paypal"]:
            return unmet
        return unmet + ["the payment was not moved to PayPal"]

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [] if _flag(context, "cancel_other_reasons_refused") else [self._cancel(context)]


class CancelProcessedRefused(Problem):
    """A caller wants two orders cancelled (no longer needed): one is pending and is cancelled, the other
    is already processed and only a pending order can be cancelled."""

    name = "cancel_processed_refused"
    slot = "cancel"
    facts = ("cancel_only_pending",)
    context_facts = ("processed_order_not_actionable", "cancel_reason_no_longer_needed")
    outcome = "refuse"
    summary = "Cancel a caller's pending order; refuse to cancel the processed one."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        _add_order(context, "pending", card.id, items=1)
        _add_order(context, "processed", card.id, items=1, key="processed_id")
        return ScenarioFragment(
            reason_for_call=f"You want to cancel your orders {context.state['order_id']} and "
                            f"{context.state['processed_id']}.",
            known_info=[_order_line(context), _order_line(context, "processed_id"),
                        "The reason for both is: no longer needed."],
            task_instructions=["If the agent says one of the orders cannot be cancelled, accept it and keep the "
                               "other cancellation."])

    def _cancel(self, context: ProblemContext, key: str) -> GoldCall:
        return GoldCall("cancel_pending_order", {"order_id": context.state[key], "reason": "no longer needed"})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context), _lookup(context, "processed_id"), self._cancel(context, "order_id")]
        if not _flag(context, "cancel_only_pending"):
            calls.append(self._cancel(context, "processed_id"))
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        unmet = [] if _order(context).status == "cancelled" else ["the pending order was not cancelled"]
        if _flag(context, "cancel_only_pending") and _order(context, "processed_id").status != "processed":
            unmet.append("the processed order was changed")
        return unmet

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [self._cancel(context, "processed_id")] if _flag(context, "cancel_only_pending") else []


# ----------------------------------------------------------------------------------------------- modify
class ModifyPendingAddress(Problem):
    """A caller moves the shipping address of a pending order to a new address they give."""

    name = "modify_pending_order_address"
    slot = "modify_address"
    facts = ("modify_address_allowed",)
    context_facts = ("modify_only_pending", "modify_scope_address_payment_items")
    summary = "Change the shipping address of a pending order."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        _add_order(context, "pending", _card(_user(context)).id, items=context.rng.randint(1, 2))
        context.state["address"] = _new_address(context)
        return ScenarioFragment(
            reason_for_call=f"You want order {context.state['order_id']} shipped to a different address.",
            known_info=[_order_line(context), f"The new address is {_address_words(context.state['address'])}."],
            task_instructions=["Only this order should go to the new address; keep your default address as it is."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context)]
        if _flag(context, "modify_address_allowed"):
            calls.append(GoldCall("modify_pending_order_address", {"order_id": context.state["order_id"],
                                                                   **context.state["address"]}))
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        moved = _same_address(_order(context).address, context.state["address"])
        return _decided(_flag(context, "modify_address_allowed"), moved,
                        "the order's address was not changed",
                        "the address was changed against the policy")


class ModifyUserAddress(Problem):
    """A caller who moved house changes the default address on their profile."""

    name = "modify_user_address"
    slot = "profile_address"
    facts = ("default_address_can_be_modified",)
    context_facts = ("agent_scope_orders_and_profile",)
    summary = "Change the default address on the caller's profile."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        context.state["address"] = _new_address(context)
        return ScenarioFragment(
            reason_for_call="You moved house and want to update the default address on your profile.",
            known_info=[f"Your new address is {_address_words(context.state['address'])}."],
            task_instructions=["Only the default address on your profile should change."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        if not _flag(context, "default_address_can_be_modified"):
            return []
        return [GoldCall("modify_user_address", {"user_id": context.customer_id, **context.state["address"]})]

    def check(self, context: ProblemContext) -> list[str]:
        moved = _same_address(_user(context).address, context.state["address"])
        return _decided(_flag(context, "default_address_can_be_modified"), moved,
                        "the default address was not changed",
                        "the default address was changed against the policy")


class ModifyPendingPayment(Problem):
    """A caller moves the payment of a pending card order to their PayPal account."""

    name = "modify_pending_order_payment"
    slot = "modify_payment"
    facts = ("modify_payment_single_different_method",)
    context_facts = ("modify_only_pending", "modify_payment_keeps_pending", "modify_payment_refund_timing")
    summary = "Pay a pending order with the caller's PayPal account instead of the card."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        paypal = _paypal(context)
        _add_order(context, "pending", card.id, items=context.rng.randint(1, 3))
        context.state["paypal"] = paypal.id
        return ScenarioFragment(
            reason_for_call=f"You want to pay your order {context.state['order_id']} with your PayPal account "
                            "instead of your credit card.",
            known_info=[_order_line(context), f"You paid with {card_words(card)}."],
            task_instructions=["Keep the order as it is otherwise."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context)]
        if _flag(context, "modify_payment_single_different_method"):
            calls.append(GoldCall("modify_pending_order_payment", {"order_id": context.state["order_id"],
                                                                   "payment_method_id": context.state["paypal"]}))
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        moved = any(p.payment_method_id == context.state["paypal"] and p.transaction_type == "payment"
                    for p in _order(context).payment_history)
        return _decided(_flag(context, "modify_payment_single_different_method"), moved,
                        "the payment was not moved to PayPal",
                        "the payment was changed against the policy")


class PaymentGiftCardTooLowRefused(Problem):
    """A caller wants to pay a pending order with a gift card whose balance is below the order total: refused;
    the caller pays with PayPal instead."""

    name = "payment_gift_card_too_low_refused"
    slot = "modify_payment"
    facts = ("modify_payment_gift_card_balance",)
    context_facts = ("modify_payment_single_different_method", "deny_requests_against_policy")
    outcome = "refuse"
    summary = "Refuse to move a pending order's payment to a gift card short of the total; use PayPal instead."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        paypal = _paypal(context)
        order = _add_order(context, "pending", card.id, items=2)
        total = order.payment_history[0].amount
        gift = _new_method(context, "gift_card", round(total * context.rng.uniform(0.2, 0.8), 2))
        context.state.update(paypal=paypal.id, gift=gift.id)
        return ScenarioFragment(
            reason_for_call=f"You want to pay your order {context.state['order_id']} with your gift card {gift.id} "
                            "instead of your credit card.",
            known_info=[_order_line(context), f"You paid with {card_words(card)}."],
            task_instructions=["If the agent says the gift card cannot pay for the order, ask to pay with your PayPal "
                               "account instead."])

    def _call(self, context: ProblemContext, key: str) -> GoldCall:
        return GoldCall("modify_pending_order_payment", {"order_id": context.state["order_id"],
                                                         "payment_method_id": context.state[key]})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        return [_lookup(context), self._call(context, "paypal" if _flag(context, "modify_payment_gift_card_balance")
                                             else "gift")]

    def check(self, context: ProblemContext) -> list[str]:
        paid = [p.payment_method_id for p in _order(context).payment_history if p.transaction_type == "payment"]
        wanted = context.state["paypal"] if _flag(context, "modify_payment_gift_card_balance") else context.state["gift"]
        return [] if wanted in paid[1:] else ["the payment was not moved to the method the policy allows"]

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [self._call(context, "gift")] if _flag(context, "modify_payment_gift_card_balance") else []


class _ItemChange(Problem):
    """Shared by modifications and exchanges: one item of the order changed to another available option of
    the same product, the difference settled with a payment method the caller names."""

    status: ClassVar[str]
    tool_name: ClassVar[str]
    fact: ClassVar[str]
    verb: ClassVar[str]
    """What the caller does to the item, as the scenario says it (``change``, ``exchange``)."""
    request: ClassVar[str]
    """The reason for the call, with ``{item}`` (the item's name) and ``{order}`` (the order id)."""

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        order, item, target = self.make(context)
        card = _user(context).payment_methods[context.state["card"]]
        return ScenarioFragment(
            reason_for_call=self.request.format(item=item.name, order=order.order_id),
            known_info=[_order_line(context), f"You want the {item.name} with {_options(target)} instead."],
            task_instructions=[f"This is the only item you want to {self.verb}. Settle any price difference with "
                               f"{card_words(card)}."])

    def make(self, context: ProblemContext) -> tuple[Order, Any, Variant]:
        card = _card(_user(context))
        order = _add_order(context, self.status, card.id, items=context.rng.randint(1, 3))
        item = order.items[context.rng.randrange(len(order.items))]
        product = _db(context).products[item.product_id]
        target = context.rng.choice(_changeable(product, item.item_id))
        context.state.update(item=item.item_id, new_item=target.item_id, card=card.id, product=product.product_id)
        return order, item, target

    def _call(self, context: ProblemContext, new_item: str | None = None, method: str | None = None) -> GoldCall:
        return GoldCall(self.tool_name, {"order_id": context.state["order_id"], "item_ids": [context.state["item"]],
                                         "new_item_ids": [new_item or context.state["new_item"]],
                                         "payment_method_id": method or context.state["card"]})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context), GoldCall("get_product_details", {"product_id": context.state["product"]})]
        return calls + ([self._call(context)] if _flag(context, self.fact) else [])

    def changed(self, context: ProblemContext) -> bool:
        order = _order(context)
        if self.tool_name == "exchange_delivered_order_items":
            return order.exchange_new_items == [context.state["new_item"]]
        return any(item.item_id == context.state["new_item"] for item in order.items)

    def check(self, context: ProblemContext) -> list[str]:
        return _decided(_flag(context, self.fact), self.changed(context),
                        "the item was not changed to the option asked for",
                        "the item was changed against the policy")


class ModifyPendingItem(_ItemChange):
    """A caller changes one item of a pending order to another option of the same product, settling the price
    difference with their credit card."""

    name = "modify_pending_order_item"
    slot = "modify_items"
    status = "pending"
    tool_name = "modify_pending_order_items"
    fact = "modify_items_same_product_available"
    facts = ("modify_items_same_product_available",)
    context_facts = ("modify_items_once", "modify_items_remind_all_items", "modify_items_payment_for_difference")
    summary = "Change one item of a pending order to another available option of the same product."
    verb = "change"
    request = "You want to change the {item} in your pending order {order} to another option."


class ExchangeDeliveredItem(_ItemChange):
    """A caller exchanges one delivered item for another option of the same product, settling the difference
    with their credit card."""

    name = "exchange_delivered_order_item"
    slot = "exchange"
    status = "delivered"
    tool_name = "exchange_delivered_order_items"
    fact = "exchange_same_product_available"
    facts = ("exchange_same_product_available",)
    context_facts = ("exchange_only_delivered", "exchange_remind_all_items", "exchange_payment_for_difference",
                     "exchange_no_new_order")
    summary = "Exchange one delivered item for another available option of the same product."
    verb = "exchange"
    request = "You want to exchange the {item} from your delivered order {order} for another option."


class ExchangeGiftCardTooLowRefused(ExchangeDeliveredItem):
    """A caller wants to pay an exchange's price difference with a gift card too low to cover it: refused; the
    credit card settles it instead."""

    name = "exchange_gift_card_too_low_refused"
    facts = ("exchange_gift_card_balance",)
    context_facts = ("exchange_same_product_available", "exchange_payment_for_difference")
    outcome = "refuse"
    summary = "Exchange an item for a dearer option; refuse the gift card short of the difference, use the card."

    def make(self, context: ProblemContext) -> tuple[Order, Any, Variant]:
        db = _db(context)
        card = _card(_user(context))
        for _ in range(40):
            order = _add_order(context, self.status, card.id, items=context.rng.randint(1, 2))
            options = [(item, v) for item in order.items
                       for v in _changeable(db.products[item.product_id], item.item_id) if v.price - item.price >= 1]
            if options:
                break
            del db.orders[order.order_id]
            _user(context).orders.remove(order.order_id)
        else:
            raise LookupError("no dearer option to exchange for")
        item, target = options[context.rng.randrange(len(options))]
        difference = round(target.price - item.price, 2)
        gift = _new_method(context, "gift_card", round(difference * context.rng.uniform(0.1, 0.8), 2))
        context.state.update(item=item.item_id, new_item=target.item_id, card=card.id, product=item.product_id,
                             gift=gift.id)
        return order, item, target

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        order, item, target = self.make(context)
        card = _user(context).payment_methods[context.state["card"]]
        return ScenarioFragment(
            reason_for_call=f"You want to exchange the {item.name} from your delivered order {order.order_id} for "
                            "another option.",
            known_info=[_order_line(context), f"You want the {item.name} with {_options(target)} instead."],
            task_instructions=[f"This is the only item you want to exchange. Ask to pay any price difference with your "
                               f"gift card {context.state['gift']}. If the agent says the gift card cannot cover it, "
                               f"pay with {card_words(card)} instead."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context), GoldCall("get_product_details", {"product_id": context.state["product"]})]
        method = context.state["card"] if _flag(context, "exchange_gift_card_balance") else context.state["gift"]
        return calls + [self._call(context, method=method)]

    def check(self, context: ProblemContext) -> list[str]:
        order = _order(context)
        wanted = context.state["card"] if _flag(context, "exchange_gift_card_balance") else context.state["gift"]
        if order.exchange_new_items == [context.state["new_item"]] and order.exchange_payment_method_id == wanted:
            return []
        return ["the exchange was not settled with the method the policy allows"]

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [self._call(context, method=context.state["gift"])] if _flag(context, "exchange_gift_card_balance") \
            else []


class ExchangePendingModifiedInstead(ModifyPendingItem):
    """A caller asks to exchange an item of an order that is still pending: only a delivered order can be
    exchanged, so the pending order's item is modified instead."""

    name = "exchange_pending_modified_instead"
    slot = "exchange"
    facts = ("exchange_only_delivered",)
    context_facts = ("modify_items_same_product_available", "modify_items_once")
    outcome = "refuse"
    summary = "Refuse to exchange an item of a pending order; modify the pending item instead."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        order, item, target = self.make(context)
        card = _user(context).payment_methods[context.state["card"]]
        return ScenarioFragment(
            reason_for_call=f"You want to exchange the {item.name} in your order {order.order_id} for another "
                            "option.",
            known_info=[_order_line(context), f"You want the {item.name} with {_options(target)} instead.",
                        "The order has not arrived yet."],
            task_instructions=[f"This is the only item you want to change. Settle any price difference with "
                               f"{card_words(card)}. If the agent says the order cannot be exchanged, accept "
                               "changing the item on the pending order instead."])

    def _exchange(self, context: ProblemContext) -> GoldCall:
        call = self._call(context)
        return GoldCall("exchange_delivered_order_items", call.arguments)

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context), GoldCall("get_product_details", {"product_id": context.state["product"]})]
        return calls + [self._call(context) if _flag(context, "exchange_only_delivered") else self._exchange(context)]

    def check(self, context: ProblemContext) -> list[str]:
        return [] if self.changed(context) else ["the pending item was not modified"]

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [self._exchange(context)] if _flag(context, "exchange_only_delivered") else []


# ----------------------------------------------------------------------------------------------- returns
class _Return(Problem):
    """A caller returns every item of a delivered order; the refund goes to the method the facts allow."""

    slot = "return"
    context_facts = ("return_only_delivered", "return_needs_order_id_and_items", "return_needs_refund_method")

    def make(self, context: ProblemContext, paid_with: str) -> Order:
        return _add_order(context, "delivered", paid_with, items=context.rng.randint(1, 3))

    def _call(self, context: ProblemContext, method: str) -> GoldCall:
        order = _order(context)
        return GoldCall("return_delivered_order_items", {"order_id": order.order_id,
                                                         "item_ids": [item.item_id for item in order.items],
                                                         "payment_method_id": method})

    def returned_to(self, context: ProblemContext) -> str | None:
        order = _order(context)
        return order.return_payment_method_id if order.status == "return requested" else None


class ReturnToOriginalMethod(_Return):
    """The refund of a returned order goes back to the card that paid for it."""

    name = "return_to_original_method"
    facts = ("return_refund_to_original_method",)
    summary = "Return a delivered order, refunded to the original payment method."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        self.make(context, card.id)
        context.state["refund_to"] = card.id
        return ScenarioFragment(
            reason_for_call=f"You want to return everything in your delivered order {context.state['order_id']}.",
            known_info=[_order_line(context), f"You paid with {card_words(card)}."],
            task_instructions=["You want the refund on the card you paid with."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context)]
        if _flag(context, "return_refund_to_original_method"):
            calls.append(self._call(context, context.state["refund_to"]))
        return calls

    def check(self, context: ProblemContext) -> list[str]:
        got = self.returned_to(context)
        if _flag(context, "return_refund_to_original_method"):
            return [] if got == context.state["refund_to"] else ["the order was not returned to the original method"]
        return ["the order was returned against the policy"] if got else []


class ReturnToGiftCard(_Return):
    """A card-paid order returned with the refund on the caller's existing gift card."""

    name = "return_to_gift_card"
    facts = ("return_refund_to_existing_gift_card",)
    summary = "Return a delivered card order, refunded to the caller's existing gift card."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        gift = _new_method(context, "gift_card", float(context.rng.randint(0, 80)))
        self.make(context, card.id)
        context.state.update(gift=gift.id, card=card.id)
        return ScenarioFragment(
            reason_for_call=f"You want to return everything in your delivered order {context.state['order_id']}.",
            known_info=[_order_line(context), f"You paid with {card_words(card)}."],
            task_instructions=[f"You want the refund on your gift card {gift.id}. If the agent says that is not "
                               "possible, take the refund on the card you paid with."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        method = context.state["gift"] if _flag(context, "return_refund_to_existing_gift_card") else context.state["card"]
        return [_lookup(context), self._call(context, method)]

    def check(self, context: ProblemContext) -> list[str]:
        wanted = context.state["gift"] if _flag(context, "return_refund_to_existing_gift_card") else context.state["card"]
        return [] if self.returned_to(context) == wanted else ["the order was not returned with the refund asked for"]


class ReturnToPaypalRefused(_Return):
    """A card-paid order the caller wants refunded to PayPal: a refund goes only to the original method or a
    gift card, so the card gets it."""

    name = "return_to_paypal_refused"
    facts = ("return_refund_no_other_method",)
    context_facts = ("return_refund_to_original_method", "deny_requests_against_policy")
    outcome = "refuse"
    summary = "Return a delivered card order; refuse the refund to PayPal, refund the card."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        paypal = _paypal(context)
        self.make(context, card.id)
        context.state.update(paypal=paypal.id, card=card.id)
        return ScenarioFragment(
            reason_for_call=f"You want to return everything in your delivered order {context.state['order_id']} and "
                            "get the refund on your PayPal account.",
            known_info=[_order_line(context), f"You paid with {card_words(card)}."],
            task_instructions=["If the agent says the refund cannot go to PayPal, take it on the card you paid with."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        method = context.state["paypal"] if _flag(context, "return_refund_no_other_method") else context.state["card"]
        return [_lookup(context), self._call(context, method)]

    def check(self, context: ProblemContext) -> list[str]:
        wanted = context.state["paypal"] if _flag(context, "return_refund_no_other_method") else context.state["card"]
        return [] if self.returned_to(context) == wanted else ["the refund does not go where the policy allows"]

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [] if _flag(context, "return_refund_no_other_method") else [self._call(context, context.state["paypal"])]


class ReturnProcessedRefused(_Return):
    """A caller wants to return an item from each of two orders: the delivered one is returned; the other is
    only processed (not delivered yet), so it cannot be returned."""

    name = "return_processed_refused"
    facts = ("return_only_delivered",)
    context_facts = ("processed_order_not_actionable", "return_refund_to_original_method")
    outcome = "refuse"
    summary = "Return a delivered order; refuse to return a processed one."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        card = _card(_user(context))
        self.make(context, card.id)
        _add_order(context, "processed", card.id, items=1, key="processed_id")
        context.state["card"] = card.id
        return ScenarioFragment(
            reason_for_call=f"You want to return everything in your orders {context.state['order_id']} and "
                            f"{context.state['processed_id']}.",
            known_info=[_order_line(context), _order_line(context, "processed_id"), f"You paid with {card_words(card)}."],
            task_instructions=["You want the refunds on the card you paid with. If the agent says one of the orders "
                               "cannot be returned, accept it and keep the other return."])

    def _processed(self, context: ProblemContext) -> GoldCall:
        order = _order(context, "processed_id")
        return GoldCall("return_delivered_order_items", {"order_id": order.order_id,
                                                         "item_ids": [item.item_id for item in order.items],
                                                         "payment_method_id": context.state["card"]})

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        calls = [_lookup(context), _lookup(context, "processed_id"), self._call(context, context.state["card"])]
        return calls + ([] if _flag(context, "return_only_delivered") else [self._processed(context)])

    def check(self, context: ProblemContext) -> list[str]:
        unmet = [] if self.returned_to(context) == context.state["card"] else ["the delivered order was not returned"]
        if _flag(context, "return_only_delivered") and _order(context, "processed_id").status != "processed":
            unmet.append("the processed order was changed")
        return unmet

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        return [self._processed(context)] if _flag(context, "return_only_delivered") else []


PROBLEMS: tuple[type[Problem], ...] = (
    CancelNoLongerNeeded, CancelOrderedByMistake, CancelOtherReasonRefused, CancelProcessedRefused,
    ModifyPendingAddress, ModifyUserAddress, ModifyPendingPayment, PaymentGiftCardTooLowRefused, ModifyPendingItem,
    ExchangeDeliveredItem, ExchangeGiftCardTooLowRefused, ExchangePendingModifiedInstead, ReturnToOriginalMethod,
    ReturnToGiftCard, ReturnToPaypalRefused, ReturnProcessedRefused)
"""The hand-written problems (the opening is not one of them: every task starts with it)."""
