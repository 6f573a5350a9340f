"""The retail database, in the JSON shape of τ²-bench's retail ``RetailDB``.

The bundle's ``db.json`` is loaded by tau2's own retail domain (``retail`` is a domain tau2 ships), so
every table, record and field here has the name and type tau2's schema gives it: ``products`` (product
id → product with its variant items by item id), ``users`` (user id → profile with default address,
payment methods and order ids) and ``orders`` (order id such as ``#W1234567`` → order with items, status,
fulfilments, payment history and the optional cancellation, exchange and return fields). Money is US
dollars as floats rounded to cents, as tau2 keeps it. The models are taugen's own; only the shape is
shared. Records forbid unknown fields, so a setup that writes a field tau2 would not load fails here
first.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

OrderStatus = Literal["processed", "pending", "pending (item modified)", "delivered", "cancelled",
                      "exchange requested", "return requested"]
CancelReason = Literal["no longer needed", "ordered by mistake"]
CANCEL_REASONS: tuple[str, ...] = ("no longer needed", "ordered by mistake")
"""The cancellation reasons tau2's ``cancel_pending_order`` accepts (facts ``cancel_reason_*`` state them)."""


class _Record(BaseModel):
    """A record that forbids fields tau2's schema does not have."""

    model_config = ConfigDict(extra="forbid")


class Variant(_Record):
    """One variant item of a product: its item id, option values, availability and price in dollars."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(_Record):
    """A product type (``T-Shirt``) and its variant items by item id."""

    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(_Record):
    """A user's first and last name."""

    first_name: str
    last_name: str


class UserAddress(_Record):
    """A postal address; ``address2`` is ``''`` when there is no second line (tau2 requires a string)."""

    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class CreditCard(_Record):
    """A credit card on a profile: brand and last four digits."""

    source: Literal["credit_card"] = "credit_card"
    id: str
    brand: str
    last_four: str


class Paypal(_Record):
    """A PayPal account on a profile."""

    source: Literal["paypal"] = "paypal"
    id: str


class GiftCard(_Record):
    """A gift card on a profile and its balance in dollars."""

    source: Literal["gift_card"] = "gift_card"
    id: str
    balance: float


PaymentMethod = Annotated[Union[CreditCard, GiftCard, Paypal], Field(discriminator="source")]


class User(_Record):
    """A customer profile: name, default address, email, payment methods by id and order ids."""

    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, PaymentMethod] = Field(default_factory=dict)
    orders: list[str] = Field(default_factory=list)


class OrderFullfilment(_Record):
    """One shipment: tracking ids and the item ids it carries (tau2's spelling of the class)."""

    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(_Record):
    """One ordered item: product name and id, the variant's item id, price paid and options."""

    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class OrderPayment(_Record):
    """One payment or refund on an order, in dollars."""

    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(_Record):
    """An order and the optional fields the cancel, exchange and return tools fill in."""

    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[OrderFullfilment] = Field(default_factory=list)
    payment_history: list[OrderPayment] = Field(default_factory=list)
    cancel_reason: CancelReason | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(_Record):
    """All products, users and orders (tau2's retail ``RetailDB`` shape)."""

    products: dict[str, Product] = Field(default_factory=dict)
    users: dict[str, User] = Field(default_factory=dict)
    orders: dict[str, Order] = Field(default_factory=dict)
