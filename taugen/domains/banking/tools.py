"""Banking tools: what an agent can read and change at Cedar Ridge Bank.

Tools enforce only mechanical preconditions (ids exist, a fee is a fee, a card is not already closed,
the caller's identity was verified before any write). Policy (which fee applies, whether a refund
is allowed) is not enforced by tools: the agent must know it from the policy or the records, which is
what the benchmark measures. Fees are passed in by the agent and recorded as charged, so a wrong fee
is visible in the database hash.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import typing
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from taugen.domains.banking.db import (
    Account, BankDB, Card, DatedRequest, Department, Dispute, DisputeReason, FeeRefund, HumanTransfer, PolicyQuote,
    ProcedureStep, RefundReason, ServiceCharge, ServiceRequest, Shipping, StatementDelivery, StopPayment, Transaction,
    Verification, Wire,
)
from taugen.generators.environment import Toolkit, ToolError, clone, tool

# Parameter types as agents see them: a description each, enums for closed sets, dollars as numbers.
CustomerId = Annotated[str, Field(description="The customer's id, e.g. C10003 (from find_customer_by_phone or "
                                              "find_customer_by_name).")]
AccountId = Annotated[str, Field(description="The account's id, e.g. A20000087 (listed in get_customer).")]
CardId = Annotated[str, Field(description="The card's id, e.g. CRD-20000087 (from list_cards).")]
TransactionId = Annotated[str, Field(description="The transaction's id, e.g. TX-20000087-01112 (from "
                                                 "list_transactions).")]
DisputeId = Annotated[str, Field(description="The dispute's id, e.g. DSP-1A2B3C4D (from open_dispute or "
                                             "list_disputes).")]


def _dollars(what: str) -> Any:
    return Annotated[float, Field(description=f"{what}, in US dollars as a number (e.g. 25.0; 0 when none "
                                              "applies).")]


def _choice(values: Any, what: str) -> Any:
    return Annotated[values, Field(description=f"{what}: one of {', '.join(typing.get_args(values))}.")]


Fee = _dollars("The fee the customer is charged")
Phone = Annotated[str, Field(description="The caller's phone number, digits with any separators, e.g. 312-555-0147.")]
FirstName = Annotated[str, Field(description="The customer's first name (any case).")]
LastName = Annotated[str, Field(description="The customer's last name (any case).")]
TopicId = Annotated[str, Field(description="A service catalogue topic's id, e.g. TOPIC-1A2B3C4D (from "
                                           "find_service_topics).")]
TopicQuery = Annotated[str, Field(description="Words to look for in topic descriptions, e.g. 'stop payment' "
                                              "(case-insensitive; empty lists every topic).")]
RequestAmount = Annotated[float, Field(description="What the customer asks for: US dollars as a number (e.g. "
                                                   "500.0), or a count for counted topics (e.g. 3).")]
EventDate = Annotated[str, Field(description="The date of the event the topic's policy counts its window from (the "
                                            "statement date, the day a document was signed ...), as YYYY-MM-DD.",
                                pattern=r"^\d{4}-\d{2}-\d{2}$")]
ProcedureStepName = Annotated[str, Field(description="A step name of the procedure's topic, as find_service_topics "
                                                     "lists it, e.g. confirm_wire_details.")]
QuotedValue = Annotated[str, Field(description="The value you told the customer: the policy's number in digits "
                                               "(3.75 for 3.75%, 25 for $25.00, 10 for 10 business days), a clock "
                                               "time or date as written, or yes / no for a yes-or-no rule.")]


def derived_id(prefix: str, *parts: object) -> str:
    """A deterministic id ``PREFIX-XXXXXXXX`` from the parts (sha256), so gold replays agree."""
    digest = hashlib.sha256("|".join(str(part) for part in parts).encode()).hexdigest()[:8].upper()
    return f"{prefix}-{digest}"


_NUMBER = re.compile(r"(?<![\w.:])(\d+(?:\.\d+)?)(?![\d:])")


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"\W+", text.lower()) if w)


_TOPIC_INDEX: dict[int, tuple[Any, int, dict[str, set[str]]]] = {}


def _topic_index(topics: dict[str, Any]) -> dict[str, set[str]]:
    """word -> topic ids whose description holds it, per catalogue object (the catalogue never changes)."""
    cached = _TOPIC_INDEX.get(id(topics))
    if cached is None or cached[0] is not topics or cached[1] != len(topics):
        index: dict[str, set[str]] = {}
        for topic_id, topic in topics.items():
            for word in _words(topic.description):
                index.setdefault(word, set()).add(topic_id)
        if len(_TOPIC_INDEX) > 8:
            _TOPIC_INDEX.clear()
        cached = (topics, len(topics), index)
        _TOPIC_INDEX[id(topics)] = cached
    return cached[2]


_HOURS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_SPOKEN_HOUR = re.compile(rf"\b({'|'.join(_HOURS)})\s+(am|pm)\b")
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b")
_QUOTE_TOKEN = re.compile(
    r"\d+(?::\d+)?(?:\.\d+)?|\bam\b|\bpm\b|"
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b")


def normalise_quote(text: str) -> str:
    """A quoted policy value in the form :meth:`BankingTools.record_quote` stores and compares.

    A value with a number keeps only the numbers (currency symbols, thousands separators, trailing zeros,
    percent signs and units dropped: the topic fixes the unit), clock times with am/pm, and month names. So
    ``"$1,000.00"`` and ``"1000"`` are ``"1000"``, ``"3.75 percent"`` and ``"3.75%"`` are ``"3.75"``,
    ``"10 business days"`` is ``"10"``, ``"4:00 PM Central Time"``, ``"4 PM Central"`` and ``"4pm"`` are
    ``"4:00 pm"`` (a clock time always has its minutes; ``p.m.`` is ``pm``; ``"four pm"`` is ``"4:00 pm"``). A value without a number is
    lower-cased with single spaces and no trailing full stop."""
    return _normalised_quote(str(text))


@functools.lru_cache(maxsize=4096)
def _normalised_quote(text: str) -> str:
    """:func:`normalise_quote` of a string (remembered: certificate replays record the same quotes again)."""
    value = " ".join(text.lower().replace(",", "").replace("$", "").split()).rstrip(".")
    value = re.sub(r"\b([ap])\.m\.?", r"\1m", value)
    value = _SPOKEN_HOUR.sub(lambda m: f"{_HOURS.index(m.group(1)) + 1} {m.group(2)}", value)  # "four pm"
    value = _CLOCK.sub(lambda m: f"{int(m.group(1))}:{m.group(2) or '00'} {m.group(3)}", value)
    value = re.sub(r"\s*(?:per ?cent|percent)\b", "%", value)
    value = _NUMBER.sub(lambda m: format(Decimal(m.group(1)).normalize(), "f"), value)
    if not any(ch.isdigit() for ch in value):
        return value
    return " ".join(_QUOTE_TOKEN.findall(value))


def _cents(amount: float) -> float:
    return round(float(amount) + 0.0, 2)


class BankingTools(Toolkit):
    """Tools over a :class:`BankDB` at the world's fixed ``now``."""

    db_model = BankDB
    db: BankDB

    @classmethod
    def customer_slice(cls, db: BankDB, customer_id: str) -> BankDB:
        """The customer, their accounts, cards and everything recorded on them, deep-copied; the service
        catalogue is shared (no tool changes it)."""
        accounts = {k: a for k, a in db.accounts.items() if a.customer_id == customer_id}
        by_account = {name: {k: r for k, r in getattr(db, name).items() if r.account_id in accounts}
                      for name in ("transactions", "fee_refunds", "disputes", "stop_payments", "wires",
                                   "service_charges", "service_requests", "dated_requests")}
        by_customer = {name: {k: r for k, r in getattr(db, name).items() if r.customer_id == customer_id}
                       for name in ("verifications", "human_transfers", "quotes", "procedure_steps")}
        part = BankDB.model_construct(
            customers={customer_id: db.customers[customer_id]} if customer_id in db.customers else {},
            accounts=accounts, cards={k: c for k, c in db.cards.items() if c.customer_id == customer_id},
            service_topics=db.service_topics, **by_account, **by_customer)
        return clone(part)  # type: ignore[return-value]

    # ----------------------------------------------------------------- helpers (not tools)
    def _today(self) -> str:
        return self.now.date().isoformat()

    def _customer(self, customer_id: str):
        customer = self.db.customers.get(customer_id)
        if customer is None:
            raise ToolError(f"customer {customer_id} not found")
        return customer

    def _account(self, account_id: str) -> Account:
        account = self.db.accounts.get(account_id)
        if account is None:
            raise ToolError(f"account {account_id} not found")
        return account

    def _card(self, card_id: str) -> Card:
        card = self.db.cards.get(card_id)
        if card is None:
            raise ToolError(f"card {card_id} not found")
        return card

    def _transaction(self, transaction_id: str) -> Transaction:
        transaction = self.db.transactions.get(transaction_id)
        if transaction is None:
            raise ToolError(f"transaction {transaction_id} not found")
        return transaction

    def _require_verified(self, customer_id: str) -> None:
        if not any(v.customer_id == customer_id for v in self.db.verifications.values()):
            raise ToolError("the customer's identity has not been verified in this conversation")

    def _require_open(self, account: Account) -> None:
        if account.status != "open":
            raise ToolError(f"account {account.account_id} is {account.status}")

    def _post(self, account: Account, description: str, amount: float, kind: str, fee_type: str | None,
              *id_parts: object) -> Transaction:
        transaction = Transaction(
            transaction_id=derived_id("TX", account.account_id, description, amount, *id_parts),
            account_id=account.account_id, posted_on=self._today(), description=description,
            amount=_cents(amount), kind=kind, fee_type=fee_type)
        if transaction.transaction_id in self.db.transactions:
            raise ToolError("this transaction was already posted")
        self.db.transactions[transaction.transaction_id] = transaction
        # Deposit balances hold money the customer has; card balances hold what the customer owes.
        account.balance = _cents(account.balance - amount if account.kind == "credit_card" else account.balance + amount)
        return transaction

    # ----------------------------------------------------------------- read tools
    @tool("read")
    def get_current_time(self) -> str:
        """Return the current date and time at the bank (ISO 8601 with UTC offset)."""
        return self.now.isoformat()

    @tool("read")
    def find_customer_by_phone(self, phone: Phone) -> dict[str, Any]:
        """Find a customer by phone number (digits and separators as stored, e.g. 312-555-0147).

        Returns the customer id and name only; raises if no customer has that number.
        """
        wanted = "".join(ch for ch in phone if ch.isdigit())
        for customer in self.db.customers.values():
            if "".join(ch for ch in customer.phone if ch.isdigit()) == wanted:
                return {"customer_id": customer.customer_id, "first_name": customer.first_name,
                        "last_name": customer.last_name}
        raise ToolError(f"no customer with phone {phone}")

    @tool("read")
    def find_customer_by_name(self, first_name: FirstName, last_name: LastName) -> list[dict[str, Any]]:
        """Find customers by first and last name (case-insensitive). Returns ids, names and cities."""
        found = [{"customer_id": c.customer_id, "first_name": c.first_name, "last_name": c.last_name,
                  "city": c.address.city}
                 for c in self.db.customers.values()
                 if c.first_name.lower() == first_name.lower() and c.last_name.lower() == last_name.lower()]
        if not found:
            raise ToolError(f"no customer named {first_name} {last_name}")
        return found

    @tool("read")
    def get_customer(self, customer_id: CustomerId) -> dict[str, Any]:
        """Return a customer's profile (contact details, address, accounts). Identity data used for
        verification (date of birth, SSN digits) is never returned."""
        customer = self._customer(customer_id)
        return customer.model_dump(mode="json", exclude={"date_of_birth", "ssn_last4"})

    @tool("read")
    def get_account(self, account_id: AccountId) -> dict[str, Any]:
        """Return an account: product, kind, status, opening date, balance, statement delivery."""
        return self._account(account_id).model_dump(mode="json")

    @tool("read")
    def list_transactions(self, account_id: AccountId) -> list[dict[str, Any]]:
        """Return every transaction of an account, oldest first (amounts signed: negative = debit)."""
        self._account(account_id)
        rows = [t for t in self.db.transactions.values() if t.account_id == account_id]
        return [t.model_dump(mode="json") for t in sorted(rows, key=lambda t: (t.posted_on, t.transaction_id))]

    @tool("read")
    def list_cards(self, customer_id: CustomerId) -> list[dict[str, Any]]:
        """Return the customer's cards with status and the account each draws on."""
        self._customer(customer_id)
        return [c.model_dump(mode="json") for c in sorted(self.db.cards.values(), key=lambda c: c.card_id)
                if c.customer_id == customer_id]

    @tool("read")
    def list_fee_refunds(self, account_id: AccountId) -> list[dict[str, Any]]:
        """Return the fee refunds already given on an account, with reason and date."""
        self._account(account_id)
        return [r.model_dump(mode="json") for r in sorted(self.db.fee_refunds.values(), key=lambda r: r.refund_id)
                if r.account_id == account_id]

    @tool("read")
    def get_dispute(self, dispute_id: DisputeId) -> dict[str, Any]:
        """Return a dispute (claim) with its status and any provisional credit."""
        dispute = self.db.disputes.get(dispute_id)
        if dispute is None:
            raise ToolError(f"dispute {dispute_id} not found")
        return dispute.model_dump(mode="json")

    @tool("read")
    def list_disputes(self, account_id: AccountId) -> list[dict[str, Any]]:
        """Return the disputes opened on an account."""
        self._account(account_id)
        return [d.model_dump(mode="json") for d in sorted(self.db.disputes.values(), key=lambda d: d.dispute_id)
                if d.account_id == account_id]

    @tool("read")
    def find_service_topics(self, query: TopicQuery) -> list[dict[str, Any]]:
        """Search the bank's service catalogue. Returns the topics (``topic_id``, description, products it
        is offered on and, for a procedure, its step names in alphabetical order) whose description contains every
        word of ``query`` (case-insensitive; an empty query lists every topic). Use a topic id with
        charge_service_fee, submit_service_request, submit_dated_request, record_procedure_step or record_quote.
        The catalogue never states fees, limits, windows or the order of a procedure's steps: those are in the
        policy."""
        words = [w for w in re.split(r"\W+", query.lower()) if w]
        index = _topic_index(self.db.service_topics)
        ids = set(self.db.service_topics) if not words else set.intersection(*(index.get(w, set()) for w in words))
        found = [self.db.service_topics[i] for i in ids]
        return [t.model_dump(mode="json") for t in sorted(found, key=lambda t: t.topic_id)]

    # ----------------------------------------------------------------- write tools
    @tool("write")
    def verify_identity(
            self, customer_id: CustomerId,
            date_of_birth: Annotated[str, Field(description="The date of birth the caller gives, YYYY-MM-DD.")],
            ssn_last4: Annotated[str, Field(description="The last four digits of the caller's Social Security "
                                                        "number, as a string of 4 digits.")]) -> str:
        """Verify a caller as the customer: date of birth (YYYY-MM-DD) and the last four SSN digits
        must both match. Records the verification; required before any change to the customer's
        accounts."""
        customer = self._customer(customer_id)
        if customer.date_of_birth != date_of_birth.strip() or customer.ssn_last4 != ssn_last4.strip():
            raise ToolError("verification failed: details do not match our records")
        verification_id = derived_id("VER", customer_id, self.now.isoformat())
        self.db.verifications[verification_id] = Verification(
            verification_id=verification_id, customer_id=customer_id, verified_at=self.now.isoformat())
        return f"identity verified ({verification_id})"

    @tool("write")
    def refund_fee(self, transaction_id: TransactionId,
                   reason: _choice(RefundReason, "Why the fee is refunded")) -> dict[str, Any]:
        """Refund a fee transaction in full. ``reason`` is one of courtesy, atm_rebate, bank_error,
        fee_waiver."""
        fee = self._transaction(transaction_id)
        account = self._account(fee.account_id)
        self._require_verified(account.customer_id)
        if fee.kind != "fee":
            raise ToolError(f"transaction {transaction_id} is not a fee")
        if reason not in ("courtesy", "atm_rebate", "bank_error", "fee_waiver"):
            raise ToolError("reason must be courtesy, atm_rebate, bank_error or fee_waiver")
        if any(r.transaction_id == transaction_id for r in self.db.fee_refunds.values()):
            raise ToolError(f"fee {transaction_id} was already refunded")
        refund_id = derived_id("RF", transaction_id)
        self.db.fee_refunds[refund_id] = FeeRefund(refund_id=refund_id, account_id=account.account_id,
                                                   transaction_id=transaction_id, amount=-fee.amount,
                                                   reason=reason, refunded_on=self._today())
        self._post(account, f"Fee refund: {fee.description}", -fee.amount, "credit", None, refund_id)
        return {"refund_id": refund_id, "amount": -fee.amount}

    @tool("write")
    def report_card_lost(self, card_id: CardId) -> str:
        """Mark a card lost or stolen: it is blocked at once and cannot be used again."""
        card = self._card(card_id)
        self._require_verified(card.customer_id)
        if card.status != "active":
            raise ToolError(f"card {card_id} is already {card.status}")
        card.status = "lost"
        return f"card {card_id} blocked"

    @tool("write")
    def order_replacement_card(self, card_id: CardId, shipping: _choice(Shipping, "How the new card is mailed"),
                               fee: _dollars("The replacement fee the customer is charged")) -> dict[str, Any]:
        """Order a replacement for a lost or damaged card. ``shipping`` is standard or expedited;
        ``fee`` is the replacement fee in dollars the customer is charged (0 when none applies)."""
        card = self._card(card_id)
        self._require_verified(card.customer_id)
        if shipping not in ("standard", "expedited"):
            raise ToolError("shipping must be standard or expedited")
        if card.replaced_by:
            raise ToolError(f"card {card_id} was already replaced by {card.replaced_by}")
        if fee < 0:
            raise ToolError("fee cannot be negative")
        account = self._account(card.account_id)
        new_id = derived_id("CRD", card_id, "replacement")
        last4 = str(int(hashlib.sha256(new_id.encode()).hexdigest()[:8], 16) % 10000).zfill(4)
        self.db.cards[new_id] = card.model_copy(update={"card_id": new_id, "last4": last4, "status": "active",
                                                         "replaced_by": None, "shipping": shipping,
                                                         "issued_on": self._today()})
        card.replaced_by = new_id
        if card.status == "active":
            card.status = "closed"
        if fee > 0:
            self._post(account, f"Card replacement fee ({shipping})", -fee, "fee", "card_replacement", new_id)
        return {"new_card_id": new_id, "shipping": shipping, "fee": _cents(fee)}

    @tool("write")
    def place_stop_payment(self, account_id: AccountId,
                           check_number: Annotated[str, Field(description="The check's number as printed on the "
                                                                          "check, a string of digits.")],
                           amount: _dollars("The amount the check was written for"),
                           fee: _dollars("The stop payment fee the customer is charged")) -> dict[str, Any]:
        """Place a stop payment on a check not yet paid. ``fee`` is the stop payment fee charged."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        self._require_open(account)
        if account.kind != "checking":
            raise ToolError("stop payments apply to checking accounts only")
        if any(t.kind == "check" and t.description.endswith(f"#{check_number}")
               for t in self.db.transactions.values() if t.account_id == account_id):
            raise ToolError(f"check #{check_number} has already been paid")
        stop_id = derived_id("SP", account_id, check_number)
        if stop_id in self.db.stop_payments:
            raise ToolError(f"a stop payment already exists for check #{check_number}")
        self.db.stop_payments[stop_id] = StopPayment(stop_id=stop_id, account_id=account_id,
                                                     check_number=check_number, amount=_cents(amount),
                                                     fee=_cents(fee), placed_on=self._today())
        if fee > 0:
            self._post(account, f"Stop payment fee, check #{check_number}", -fee, "fee", "stop_payment", stop_id)
        return {"stop_id": stop_id}

    @tool("write")
    def open_dispute(self, transaction_id: TransactionId, reason: _choice(DisputeReason, "The kind of claim")) -> dict[str, Any]:
        """Open a dispute on a debit or credit card transaction. ``reason`` is unauthorized
        (Regulation E, deposit accounts) or billing_error (Regulation Z, credit cards)."""
        transaction = self._transaction(transaction_id)
        account = self._account(transaction.account_id)
        self._require_verified(account.customer_id)
        if reason not in ("unauthorized", "billing_error"):
            raise ToolError("reason must be unauthorized or billing_error")
        if transaction.amount >= 0:
            raise ToolError("only money leaving the account can be disputed")
        if any(d.transaction_id == transaction_id for d in self.db.disputes.values()):
            raise ToolError(f"transaction {transaction_id} is already disputed")
        regulation = "reg_z" if account.kind == "credit_card" else "reg_e"
        dispute_id = derived_id("DSP", transaction_id)
        self.db.disputes[dispute_id] = Dispute(dispute_id=dispute_id, account_id=account.account_id,
                                               transaction_id=transaction_id, regulation=regulation,
                                               reason=reason, opened_on=self._today())
        return {"dispute_id": dispute_id, "regulation": regulation}

    @tool("write")
    def issue_provisional_credit(self, dispute_id: DisputeId) -> dict[str, Any]:
        """Credit the disputed amount to the account while the investigation continues."""
        dispute = self.db.disputes.get(dispute_id)
        if dispute is None:
            raise ToolError(f"dispute {dispute_id} not found")
        account = self._account(dispute.account_id)
        self._require_verified(account.customer_id)
        if dispute.status != "open":
            raise ToolError("the dispute is not open")
        if dispute.provisional_credit:
            raise ToolError("provisional credit was already issued")
        amount = -self.db.transactions[dispute.transaction_id].amount
        dispute.provisional_credit = _cents(amount)
        self._post(account, f"Provisional credit, claim {dispute_id}", amount, "credit", None, dispute_id)
        return {"dispute_id": dispute_id, "credited": _cents(amount)}

    @tool("write")
    def set_statement_delivery(self, account_id: AccountId,
                               delivery: _choice(StatementDelivery, "How statements are delivered")) -> str:
        """Switch an account's statements to paper or electronic delivery."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        if delivery not in ("paper", "electronic"):
            raise ToolError("delivery must be paper or electronic")
        if account.statement_delivery == delivery:
            raise ToolError(f"statements are already {delivery}")
        account.statement_delivery = delivery
        return f"statements for {account_id} are now {delivery}"

    @tool("write")
    def close_account(self, account_id: AccountId,
                      closure_fee: _dollars("The early closure fee deducted before the payout")) -> dict[str, Any]:
        """Close a deposit account. ``closure_fee`` (dollars, 0 when none applies) is deducted and the
        remaining balance is mailed to the customer by check."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        self._require_open(account)
        if account.kind == "credit_card":
            raise ToolError("credit card accounts are closed by the card team")
        if closure_fee < 0 or closure_fee > account.balance:
            raise ToolError("closure fee must be between 0 and the balance")
        if closure_fee > 0:
            self._post(account, "Early account closure fee", -closure_fee, "fee", "early_closure", "closure")
        payout = account.balance
        if payout > 0:
            self._post(account, "Closing balance mailed by check", -payout, "transfer", None, "payout")
        account.status = "closed"
        account.closed_on = self._today()
        account.closure_fee_charged = _cents(closure_fee)
        return {"account_id": account_id, "closure_fee": _cents(closure_fee), "check_amount": _cents(payout)}

    @tool("write")
    def send_wire(self, account_id: AccountId,
                  beneficiary_name: Annotated[str, Field(description="The name of the person or company paid.")],
                  routing_number: Annotated[str, Field(description="The receiving bank's 9-digit ABA routing "
                                                                   "number, as a string.")],
                  beneficiary_account: Annotated[str, Field(description="The account number at the receiving "
                                                                        "bank, as a string.")],
                  amount: _dollars("The amount sent"), fee: Fee) -> dict[str, Any]:
        """Send an outgoing domestic wire from a checking account. ``fee`` is the wire fee charged."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        self._require_open(account)
        if len(routing_number) != 9 or not routing_number.isdigit():
            raise ToolError("routing number must be 9 digits")
        if amount <= 0 or amount + fee > account.balance:
            raise ToolError("insufficient funds for the wire and its fee")
        wire_id = derived_id("WR", account_id, beneficiary_account, amount)
        if wire_id in self.db.wires:
            raise ToolError("an identical wire was already sent today")
        self.db.wires[wire_id] = Wire(wire_id=wire_id, account_id=account_id, beneficiary_name=beneficiary_name,
                                      routing_number=routing_number, beneficiary_account=beneficiary_account,
                                      amount=_cents(amount), fee=_cents(fee), sent_on=self._today())
        self._post(account, f"Outgoing wire to {beneficiary_name}", -amount, "wire", None, wire_id)
        if fee > 0:
            self._post(account, "Outgoing domestic wire fee", -fee, "fee", "wire", wire_id)
        return {"wire_id": wire_id}

    def _topic(self, topic_id: str):
        topic = self.db.service_topics.get(topic_id)
        if topic is None:
            raise ToolError(f"service topic {topic_id} not found (search with find_service_topics)")
        return topic

    @tool("write")
    def charge_service_fee(self, account_id: AccountId, topic_id: TopicId, fee: Fee) -> dict[str, Any]:
        """Provide a catalogued service on an account and charge its fee. ``fee`` is the fee in dollars
        the policy sets for this service on the account's product (0 when the policy charges none or
        waives it); a fee above 0 posts as a fee transaction."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        self._require_open(account)
        topic = self._topic(topic_id)
        if topic.products and account.product not in topic.products:
            raise ToolError(f"{topic_id} is not offered on {account.product}")
        if fee < 0:
            raise ToolError("fee cannot be negative")
        charge_id = derived_id("SC", account_id, topic_id)
        if charge_id in self.db.service_charges:
            raise ToolError(f"{topic_id} was already provided on {account_id} today")
        self.db.service_charges[charge_id] = ServiceCharge(charge_id=charge_id, account_id=account_id,
                                                           topic_id=topic_id, fee=_cents(fee),
                                                           charged_on=self._today())
        if fee > 0:
            self._post(account, f"Service fee: {topic.description}", -fee, "fee", "service", charge_id)
        return {"charge_id": charge_id, "fee": _cents(fee)}

    @tool("write")
    def submit_service_request(self, account_id: AccountId, topic_id: TopicId, amount: RequestAmount) -> dict[str, Any]:
        """Submit a customer's request on a catalogued topic (a withdrawal, a deposit, a purchase
        allowance, an opening deposit ...) for ``amount`` (dollars, or a count for counted topics).
        The tool records the request as asked; whether policy allows it is for the agent to decide
        before calling."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        self._require_open(account)
        self._topic(topic_id)
        if amount <= 0:
            raise ToolError("amount must be positive")
        request_id = derived_id("SR", account_id, topic_id)
        if request_id in self.db.service_requests:
            raise ToolError(f"a {topic_id} request was already submitted on {account_id} today")
        self.db.service_requests[request_id] = ServiceRequest(request_id=request_id, account_id=account_id,
                                                              topic_id=topic_id, amount=_cents(amount),
                                                              requested_on=self._today())
        return {"request_id": request_id}

    @tool("write")
    def submit_dated_request(self, account_id: AccountId, topic_id: TopicId, event_date: EventDate) -> dict[str, Any]:
        """Submit a customer's request on a catalogued topic whose policy counts time from an event (a
        claim after a statement, a document signed some years ago, a change made recently). ``event_date``
        is the day of that event. The tool records the request as asked; whether policy allows it on that
        date is for the agent to decide before calling."""
        account = self._account(account_id)
        self._require_verified(account.customer_id)
        self._require_open(account)
        self._topic(topic_id)
        try:
            event = dt.date.fromisoformat(event_date)
        except (TypeError, ValueError):
            raise ToolError("event_date must be a date written YYYY-MM-DD") from None
        if event.isoformat() > self._today():
            raise ToolError("event_date is after today")
        request_id = derived_id("DR", account_id, topic_id)
        if request_id in self.db.dated_requests:
            raise ToolError(f"a {topic_id} request was already submitted on {account_id} today")
        self.db.dated_requests[request_id] = DatedRequest(request_id=request_id, account_id=account_id,
                                                          topic_id=topic_id, event_date=event.isoformat(),
                                                          requested_on=self._today())
        return {"request_id": request_id, "event_date": event.isoformat()}

    @tool("write")
    def record_quote(self, customer_id: CustomerId, topic_id: TopicId, value: QuotedValue) -> dict[str, Any]:
        """Note on the customer's file a policy value you told them (a fee, rate, limit, window, date or
        rule) for a catalogued topic. ``value`` is the number the policy states, in digits (3.75 for 3.75%,
        25 for $25.00, 10 for 10 business days: the topic fixes the unit), a clock time or date as written,
        or for a rule without a number its words (yes / no for a yes-or-no rule). Formatting is normalised."""
        self._customer(customer_id)
        self._require_verified(customer_id)
        self._topic(topic_id)
        quote_id = derived_id("QT", customer_id, topic_id)
        if quote_id in self.db.quotes:
            raise ToolError(f"a quote on {topic_id} is already on file")
        self.db.quotes[quote_id] = PolicyQuote(quote_id=quote_id, customer_id=customer_id, topic_id=topic_id,
                                               value=normalise_quote(value), quoted_on=self._today())
        return {"quote_id": quote_id, "value": normalise_quote(value)}

    @tool("write")
    def record_procedure_step(self, customer_id: CustomerId, topic_id: TopicId,
                              step: ProcedureStepName) -> dict[str, Any]:
        """Record on the customer's file that you carried out one step of a catalogued procedure. ``step`` is one
        of the topic's ``steps`` (find_service_topics lists them, alphabetically). Record each step as you do
        it, in the order the bank's procedure requires; the file keeps the order steps were recorded in."""
        self._customer(customer_id)
        self._require_verified(customer_id)
        topic = self._topic(topic_id)
        if step not in topic.steps:
            raise ToolError(f"{step!r} is not a step of {topic_id}" + (f" (its steps: {', '.join(topic.steps)})"
                                                                       if topic.steps else " (it is no procedure)"))
        step_id = derived_id("PS", customer_id, topic_id, step)
        if step_id in self.db.procedure_steps:
            raise ToolError(f"step {step!r} of {topic_id} is already recorded")
        sequence = 1 + sum(1 for s in self.db.procedure_steps.values()
                           if s.customer_id == customer_id and s.topic_id == topic_id)
        self.db.procedure_steps[step_id] = ProcedureStep(step_id=step_id, customer_id=customer_id, topic_id=topic_id,
                                                         step=step, sequence=sequence, recorded_on=self._today())
        return {"step_id": step_id, "sequence": sequence}

    # ----------------------------------------------------------------- generic
    @tool("generic")
    def transfer_to_human_agents(
            self, department: _choice(Department, "The human team that takes the case"),
            summary: Annotated[str, Field(description="One or two sentences for the team: who is calling and "
                                                      "what they need.")]) -> str:
        """Transfer the caller to a human team: disputes, fraud, wire_desk or general. ``summary``
        tells the team what the caller needs. Use it only when policy sends the caller there."""
        if department not in ("disputes", "fraud", "wire_desk", "general"):
            raise ToolError("department must be disputes, fraud, wire_desk or general")
        verified = sorted(v.customer_id for v in self.db.verifications.values())
        customer_id = verified[0] if verified else None
        transfer_id = derived_id("HT", customer_id, department)
        self.db.human_transfers[transfer_id] = HumanTransfer(transfer_id=transfer_id, customer_id=customer_id,
                                                             department=department)
        return "Transfer successful"
