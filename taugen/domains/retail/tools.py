"""The retail tools: τ²-bench's retail tool set (names, arguments and behaviour), over :class:`RetailDB`.

A bundle of this domain is graded by tau2's own retail environment (tau2 ships a domain called
``retail``), so each tool here has tau2's name, argument names and types, and the same effect on the
database: statuses, payment records and their amounts, gift card balances, the sorted exchange and return
lists. A gold replay in taugen and in tau2 therefore reaches the same database. The code is taugen's own.

Two of tau2's behaviours are kept on purpose because the database hash depends on them: the modify-items
tool writes the price and options of the *last* new item of the call onto every modified line, and it
records the price difference unrounded (the exchange tool rounds it). As in tau2, the tools check
mechanics only (statuses, ids, availability, gift card balances); the policy (which reasons, which refund
method, how often) is the agent's to apply.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from taugen.domains.airline.tools import evaluate_arithmetic
from taugen.generators.environment import Toolkit, ToolError, tool

from .db import CANCEL_REASONS, GiftCard, Order, OrderPayment, Product, RetailDB, User, UserAddress, Variant

OrderId = Annotated[str, Field(description="The order id, such as '#W0000000'. Be careful there is a '#' symbol at "
                                           "the beginning of the order id.")]
UserId = Annotated[str, Field(description="The user id, such as 'sara_doe_496'.")]
ItemIds = Annotated[list[str], Field(description="The item ids, each such as '1008292230'. There could be "
                                                 "duplicate items in the list.")]
NewItemIds = Annotated[list[str], Field(description="The item ids to change to, each such as '1008292230'. There "
                                                    "could be duplicate items in the list. Each new item id should "
                                                    "match the item id in the same position and be of the same "
                                                    "product.")]
PaymentMethodId = Annotated[str, Field(description="The payment method id to pay or receive refund for the item "
                                                   "price difference, such as 'gift_card_0000000' or "
                                                   "'credit_card_0000000'. These can be looked up from the user or "
                                                   "order details.")]
Address1 = Annotated[str, Field(description="The first line of the address, such as '123 Main St'.")]
Address2 = Annotated[str, Field(description="The second line of the address, such as 'Apt 1' or ''.")]
City = Annotated[str, Field(description="The city, such as 'San Francisco'.")]
State = Annotated[str, Field(description="The state, such as 'CA'.")]
Country = Annotated[str, Field(description="The country, such as 'USA'.")]
Zip = Annotated[str, Field(description="The zip code, such as '12345'.")]


def _count_check(wanted: list[str], present: list[str], message: str) -> None:
    """Raise ``message`` when ``wanted`` names an item id more often than the order holds it."""
    for item_id in wanted:
        if wanted.count(item_id) > present.count(item_id):
            raise ToolError(message.format(item_id=item_id))


class RetailTools(Toolkit):
    """tau2's retail tools over a :class:`RetailDB` (the clock is not read: no retail tool stamps a time)."""

    db_model = RetailDB
    db: RetailDB

    # ----------------------------------------------------------------- helpers (not tools)
    def _order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise ToolError("Order not found")
        return self.db.orders[order_id]

    def _user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise ToolError("User not found")
        return self.db.users[user_id]

    def _product(self, product_id: str) -> Product:
        if product_id not in self.db.products:
            raise ToolError("Product not found")
        return self.db.products[product_id]

    def _variant(self, product_id: str, item_id: str) -> Variant:
        product = self._product(product_id)
        if item_id not in product.variants:
            raise ToolError("Variant not found")
        return product.variants[item_id]

    def _method(self, user_id: str, payment_method_id: str):
        user = self._user(user_id)
        if payment_method_id not in user.payment_methods:
            raise ToolError("Payment method not found")
        return user.payment_methods[payment_method_id]

    @staticmethod
    def _address(address1: str, address2: str, city: str, state: str, country: str, zip: str) -> UserAddress:
        return UserAddress(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)

    # ----------------------------------------------------------------- read tools
    @tool("read")
    def find_user_id_by_email(self, email: Annotated[str, Field(description="The email of the user, such as "
                                                                            "'something@example.com'.")]) -> str:
        """Find user id by email. If the user is not found, the function will return an error message."""
        wanted = email.lower()
        for user_id, user in self.db.users.items():
            if user.email.lower() == wanted:
                return user_id
        raise ToolError("User not found")

    @tool("read")
    def find_user_id_by_name_zip(
            self, first_name: Annotated[str, Field(description="The first name of the customer, such as 'John'.")],
            last_name: Annotated[str, Field(description="The last name of the customer, such as 'Doe'.")],
            zip: Annotated[str, Field(description="The zip code of the customer, such as '12345'.")]) -> str:
        """Find user id by first name, last name, and zip code. If the user is not found, the function will
        return an error message. By default, find user id by email, and only call this function if the user is
        not found by email or cannot remember email."""
        for user_id, user in self.db.users.items():
            if (user.name.first_name.lower() == first_name.lower() and user.name.last_name.lower() == last_name.lower()
                    and user.address.zip == zip):
                return user_id
        raise ToolError("User not found")

    @tool("read")
    def get_user_details(self, user_id: UserId) -> dict[str, Any]:
        """Get the details of a user, including their orders."""
        return self._user(user_id).model_dump(mode="json")

    @tool("read")
    def get_order_details(self, order_id: OrderId) -> dict[str, Any]:
        """Get the status and details of an order."""
        return self._order(order_id).model_dump(mode="json")

    @tool("read")
    def get_product_details(self, product_id: Annotated[str, Field(description="The product id, such as "
                                                                               "'6086499569'. Be careful the product "
                                                                               "id is different from the item id.")]
                            ) -> dict[str, Any]:
        """Get the inventory details of a product."""
        return self._product(product_id).model_dump(mode="json")

    @tool("read")
    def list_all_product_types(self) -> str:
        """List the name and product id of all product types. Each product type has a variety of different
        items with unique item ids and options. There are only 50 product types in the store."""
        return json.dumps({product.name: product.product_id for product in self.db.products.values()}, sort_keys=True)

    # tau2 files calculate as a generic tool; it neither reads nor changes the database, and taugen's
    # certificate counts every tool that is not "read" as a write, so it is filed as a read here.
    @tool("read")
    def calculate(self, expression: Annotated[str, Field(description="The mathematical expression to calculate, "
                                                                     "such as '2 + 2'. The expression can contain "
                                                                     "numbers, operators (+, -, *, /), parentheses, "
                                                                     "and spaces.")]) -> str:
        """Calculate the result of a mathematical expression."""
        return str(round(float(evaluate_arithmetic(expression)), 2))

    # ----------------------------------------------------------------- write tools
    @tool("write")
    def cancel_pending_order(self, order_id: OrderId,
                             reason: Annotated[str, Field(description="The reason for cancellation, which should be "
                                                                      "either 'no longer needed' or 'ordered by "
                                                                      "mistake'.")]) -> dict[str, Any]:
        """Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The
        agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to
        proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be
        refunded. The refund will be added to the user's gift card balance immediately if the payment was made
        using a gift card, otherwise the refund would take 5-7 business days to process."""
        order = self._order(order_id)
        if order.status != "pending":
            raise ToolError("Non-pending order cannot be cancelled")
        if reason not in CANCEL_REASONS:
            raise ToolError("Invalid reason")
        refunds = []
        for payment in order.payment_history:
            refunds.append(OrderPayment(transaction_type="refund", amount=payment.amount,
                                        payment_method_id=payment.payment_method_id))
            method = self._method(order.user_id, payment.payment_method_id)
            if isinstance(method, GiftCard):
                method.balance = round(method.balance + payment.amount, 2)
        order.status = "cancelled"
        order.cancel_reason = reason  # type: ignore[assignment]
        order.payment_history.extend(refunds)
        return order.model_dump(mode="json")

    @tool("write")
    def modify_pending_order_address(self, order_id: OrderId, address1: Address1, address2: Address2, city: City,
                                     state: State, country: Country, zip: Zip) -> dict[str, Any]:
        """Modify the shipping address of a pending order. The agent needs to explain the modification detail
        and ask for explicit user confirmation (yes/no) to proceed."""
        order = self._order(order_id)
        if "pending" not in order.status:
            raise ToolError("Non-pending order cannot be modified")
        order.address = self._address(address1, address2, city, state, country, zip)
        return order.model_dump(mode="json")

    @tool("write")
    def modify_pending_order_items(self, order_id: OrderId, item_ids: ItemIds, new_item_ids: NewItemIds,
                                   payment_method_id: PaymentMethodId) -> dict[str, Any]:
        """Modify items in a pending order to new items of the same product type. For a pending order, this
        function can only be called once. The agent needs to explain the exchange detail and ask for explicit
        user confirmation (yes/no) to proceed."""
        order = self._order(order_id)
        if order.status != "pending":
            raise ToolError("Non-pending order cannot be modified")
        _count_check(item_ids, [item.item_id for item in order.items], "{item_id} not found")
        if len(item_ids) != len(new_item_ids):
            raise ToolError("The number of items to be exchanged should match")
        difference = 0.0
        variant: Variant | None = None
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            if item_id == new_item_id:
                raise ToolError("The new item id should be different from the old item id")
            item = next((line for line in order.items if line.item_id == item_id), None)
            if item is None:
                raise ToolError(f"Item {item_id} not found")
            variant = self._variant(item.product_id, new_item_id)
            if not variant.available:
                raise ToolError(f"New item {new_item_id} not found or available")
            difference += variant.price - item.price
        method = self._method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < difference:
            raise ToolError("Insufficient gift card balance to pay for the new item")
        order.payment_history.append(OrderPayment(transaction_type="payment" if difference > 0 else "refund",
                                                  amount=abs(difference), payment_method_id=payment_method_id))
        if isinstance(method, GiftCard):
            method.balance = round(method.balance - difference, 2)
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            item = next(line for line in order.items if line.item_id == item_id)
            item.item_id = new_item_id
            item.price = variant.price  # type: ignore[union-attr]  # tau2's: the last new item's price
            item.options = variant.options  # type: ignore[union-attr]
        order.status = "pending (item modified)"
        return order.model_dump(mode="json")

    @tool("write")
    def modify_pending_order_payment(self, order_id: OrderId, payment_method_id: PaymentMethodId) -> dict[str, Any]:
        """Modify the payment method of a pending order. The agent needs to explain the modification detail and
        ask for explicit user confirmation (yes/no) to proceed."""
        order = self._order(order_id)
        if "pending" not in order.status:
            raise ToolError("Non-pending order cannot be modified")
        method = self._method(order.user_id, payment_method_id)
        history = order.payment_history
        if len(history) != 1 or history[0].transaction_type != "payment":
            raise ToolError("There should be exactly one payment for a pending order")
        original = history[0].payment_method_id
        if original == payment_method_id:
            raise ToolError("The new payment method should be different from the current one")
        amount = history[0].amount
        if isinstance(method, GiftCard) and method.balance < amount:
            raise ToolError("Insufficient gift card balance to pay for the order")
        history.append(OrderPayment(transaction_type="payment", amount=amount, payment_method_id=payment_method_id))
        history.append(OrderPayment(transaction_type="refund", amount=amount, payment_method_id=original))
        if isinstance(method, GiftCard):
            method.balance = round(method.balance - amount, 2)
        old = self._method(order.user_id, original)
        if isinstance(old, GiftCard):
            old.balance = round(old.balance + amount, 2)
        return order.model_dump(mode="json")

    @tool("write")
    def modify_user_address(self, user_id: UserId, address1: Address1, address2: Address2, city: City, state: State,
                            country: Country, zip: Zip) -> dict[str, Any]:
        """Modify the default address of a user. The agent needs to explain the modification detail and ask for
        explicit user confirmation (yes/no) to proceed."""
        user = self._user(user_id)
        user.address = self._address(address1, address2, city, state, country, zip)
        return user.model_dump(mode="json")

    @tool("write")
    def return_delivered_order_items(self, order_id: OrderId, item_ids: ItemIds,
                                     payment_method_id: PaymentMethodId) -> dict[str, Any]:
        """Return some items of a delivered order. The order status will be changed to 'return requested'. The
        agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The
        user will receive follow-up email for how and where to return the item."""
        order = self._order(order_id)
        if order.status != "delivered":
            raise ToolError("Non-delivered order cannot be returned")
        method = self._method(order.user_id, payment_method_id)
        if not isinstance(method, GiftCard) and payment_method_id != order.payment_history[0].payment_method_id:
            raise ToolError("Payment method should be the original payment method")
        _count_check(item_ids, [item.item_id for item in order.items], "Some item not found")
        order.status = "return requested"
        order.return_items = sorted(item_ids)
        order.return_payment_method_id = payment_method_id
        return order.model_dump(mode="json")

    @tool("write")
    def exchange_delivered_order_items(self, order_id: OrderId, item_ids: ItemIds, new_item_ids: NewItemIds,
                                       payment_method_id: PaymentMethodId) -> dict[str, Any]:
        """Exchange items in a delivered order to new items of the same product type. For a delivered order,
        return or exchange can be only done once by the agent. The agent needs to explain the exchange detail
        and ask for explicit user confirmation (yes/no) to proceed."""
        order = self._order(order_id)
        if order.status != "delivered":
            raise ToolError("Non-delivered order cannot be exchanged")
        _count_check(item_ids, [item.item_id for item in order.items], "Number of {item_id} not found.")
        if len(item_ids) != len(new_item_ids):
            raise ToolError("The number of items to be exchanged should match.")
        difference = 0.0
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            item = next((line for line in order.items if line.item_id == item_id), None)
            if item is None:
                raise ToolError(f"Item {item_id} not found")
            variant = self._variant(item.product_id, new_item_id)
            if not variant.available:
                raise ToolError(f"New item {new_item_id} not found or available")
            difference += variant.price - item.price
        difference = round(difference, 2)
        method = self._method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < difference:
            raise ToolError("Insufficient gift card balance to pay for the price difference")
        order.status = "exchange requested"
        order.exchange_items = sorted(item_ids)
        order.exchange_new_items = sorted(new_item_ids)
        order.exchange_payment_method_id = payment_method_id
        order.exchange_price_difference = difference
        return order.model_dump(mode="json")

    @tool("generic")
    def transfer_to_human_agents(self, summary: Annotated[str, Field(description="A summary of the user's "
                                                                                 "issue.")]) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user
        explicitly asks for a human agent, or given the policy and the available tools, you cannot solve the
        user's issue."""
        return "Transfer successful"
