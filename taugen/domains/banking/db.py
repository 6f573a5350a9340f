"""The banking database: customers, accounts, cards, transactions and the records tools write.

Every table is a dict keyed by id (never a list), so a task's setup can be expressed as a tau2
``initialization_data`` deep-merge patch (dicts merge; lists would be replaced whole). Amounts are in
US dollars as floats rounded to cents, as tau2's airline and retail databases keep them; dates are
ISO 8601 strings.
"""

from __future__ import annotations

import datetime as dt
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


# Closed value sets, shared by the database and the tools' parameter enums.
Shipping = Literal["standard", "expedited"]
StatementDelivery = Literal["paper", "electronic"]
RefundReason = Literal["courtesy", "atm_rebate", "bank_error", "fee_waiver"]
DisputeReason = Literal["unauthorized", "billing_error"]
Department = Literal["disputes", "fraud", "wire_desk", "general"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Address(_Record):
    street: str
    city: str
    state: str
    zip_code: str


class Customer(_Record):
    customer_id: str
    first_name: str
    last_name: str
    date_of_birth: str
    ssn_last4: str
    email: str
    phone: str
    address: Address
    address_changed_on: str | None = None
    customer_since: str
    account_ids: list[str] = Field(default_factory=list)


class Account(_Record):
    account_id: str
    customer_id: str
    product: str
    kind: Literal["checking", "savings", "credit_card"]
    opened_on: str
    status: Literal["open", "closed", "frozen"] = "open"
    balance: float
    statement_delivery: StatementDelivery = "electronic"
    closure_fee_charged: float | None = None
    closed_on: str | None = None


class Card(_Record):
    card_id: str
    account_id: str
    customer_id: str
    kind: Literal["debit", "credit"]
    last4: str
    status: Literal["active", "lost", "stolen", "closed"] = "active"
    replaced_by: str | None = None
    shipping: Shipping | None = None
    issued_on: str


class Transaction(_Record):
    transaction_id: str
    account_id: str
    posted_on: str
    description: str
    amount: float = Field(description="Signed: negative for money leaving the account.")
    kind: Literal["purchase", "atm_withdrawal", "fee", "deposit", "transfer", "check", "wire", "credit"]
    fee_type: str | None = None
    statement_date: str | None = None
    country: str = "US"


class FeeRefund(_Record):
    refund_id: str
    account_id: str
    transaction_id: str
    amount: float
    reason: RefundReason
    refunded_on: str


class Dispute(_Record):
    dispute_id: str
    account_id: str
    transaction_id: str
    regulation: Literal["reg_e", "reg_z"]
    reason: DisputeReason
    opened_on: str
    status: Literal["open", "resolved"] = "open"
    provisional_credit: float = 0.0


class StopPayment(_Record):
    stop_id: str
    account_id: str
    check_number: str
    amount: float
    fee: float
    placed_on: str


class Wire(_Record):
    wire_id: str
    account_id: str
    beneficiary_name: str
    routing_number: str
    beneficiary_account: str
    amount: float
    fee: float
    sent_on: str


class Verification(_Record):
    verification_id: str
    customer_id: str
    verified_at: str


class HumanTransfer(_Record):
    transfer_id: str
    customer_id: str | None
    department: Department


class ServiceTopic(_Record):
    """One entry of the bank's service catalogue: a topic an agent can charge, request or quote.

    ``products`` lists the products the topic is offered on (empty: every product). The catalogue says
    what a topic is, never its fee, limit or window: those are policy the agent must know.
    """

    topic_id: str
    description: str
    products: list[str] = Field(default_factory=list)
    steps: list[str] = Field(default_factory=list, description="For a procedure, the names of its steps in "
                             "alphabetical order; the order policy requires is not in the catalogue.")


class ServiceCharge(_Record):
    charge_id: str
    account_id: str
    topic_id: str
    fee: float
    charged_on: str


class ServiceRequest(_Record):
    request_id: str
    account_id: str
    topic_id: str
    amount: float
    requested_on: str


class DatedRequest(_Record):
    """A request whose policy counts a window back from an event (a claim, a document's signing)."""

    request_id: str
    account_id: str
    topic_id: str
    event_date: str = Field(description="ISO date of the event the policy's window is counted from.")
    requested_on: str


class PolicyQuote(_Record):
    quote_id: str
    customer_id: str
    topic_id: str
    value: str = Field(description="The quoted value, normalised (see tools.normalise_quote).")
    quoted_on: str


class ProcedureStep(_Record):
    """One step of a catalogued procedure, recorded on the customer's file as the agent carries it out;
    ``sequence`` counts the steps recorded for that customer and topic (1 for the first)."""

    step_id: str
    customer_id: str
    topic_id: str
    step: str
    sequence: int
    recorded_on: str


class BankDB(_Record):
    """The whole bank. Table names are what tools and tasks refer to.

    ``STATIC_TABLES``: tables no tool changes (the service catalogue); clones share them."""

    STATIC_TABLES: ClassVar[tuple[str, ...]] = ("service_topics",)

    customers: dict[str, Customer] = Field(default_factory=dict)
    accounts: dict[str, Account] = Field(default_factory=dict)
    cards: dict[str, Card] = Field(default_factory=dict)
    transactions: dict[str, Transaction] = Field(default_factory=dict)
    fee_refunds: dict[str, FeeRefund] = Field(default_factory=dict)
    disputes: dict[str, Dispute] = Field(default_factory=dict)
    stop_payments: dict[str, StopPayment] = Field(default_factory=dict)
    wires: dict[str, Wire] = Field(default_factory=dict)
    verifications: dict[str, Verification] = Field(default_factory=dict)
    human_transfers: dict[str, HumanTransfer] = Field(default_factory=dict)
    service_topics: dict[str, ServiceTopic] = Field(default_factory=dict)
    service_charges: dict[str, ServiceCharge] = Field(default_factory=dict)
    service_requests: dict[str, ServiceRequest] = Field(default_factory=dict)
    dated_requests: dict[str, DatedRequest] = Field(default_factory=dict)
    quotes: dict[str, PolicyQuote] = Field(default_factory=dict)
    procedure_steps: dict[str, ProcedureStep] = Field(default_factory=dict)


def statement_cycle_close(day: dt.date) -> dt.date:
    """The last business day (Monday–Friday) of the monthly statement cycle that contains ``day``.

    Checking and savings statements at the bank are monthly (calendar months); cycle-end postings such
    as Premier ATM rebates (fact ``premier_atm_rebate_timing``) land on this day. Bank holidays are not
    modelled.
    """
    following = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    close = following - dt.timedelta(days=1)
    while close.weekday() >= 5:
        close -= dt.timedelta(days=1)
    return close
