"""Banking's problem states rebuilt from what an agent can read: the reference oracle's side of each problem.

A problem's ``setup`` records in ``ProblemContext.state`` what its ``solve`` needs (the overdraft fee's id, the
unauthorized charge, whether it is a small claim, the fee to charge ...). The reference oracle
(:mod:`taugen.construction.reference`) cannot use that record: it must act on the state it is served. A
reader here rebuilds the same ``state`` from a :class:`Reading` (the customer's records as read through the
client API, the customer's words, the pack's facts and the clock the API reports), so the oracle can call the
problem's own ``solve`` on the live state. Fees and refund windows come from the policy as code
(:mod:`taugen.domains.banking.policy`), never from a recorded amount.

:data:`ALTERNATIVES` names, for the hand-written problems whose outcome the live state decides, the problems
an agent must choose between for the same request (refund the overdraft fee, or refuse a second courtesy
refund; open a claim with same-day credit, without it, or transfer a late one ...); the oracle tries them in
that order (resolving first, transferring last) and keeps the first whose calls the policy rules accept.

A reader raises :class:`Undecidable` with the reason when the readable state does not decide the problem
(no such account, no matching charge, a value the customer's words do not give).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Callable, Generator

from taugen.domains.banking.db import Account, BankDB, Transaction, statement_cycle_close
from taugen.generators.policy import FactSource, PolicyContext, fact_in_force, money


class Undecidable(LookupError):
    """The readable state (and the customer's words) do not decide the problem; the message says why."""


@dataclass
class Reading:
    """What the oracle knows when it decides: the customer's records as read, their words, the policy.

    Attributes:
        db: the customer's records read through the client API (customer, accounts, cards, transactions,
            fee refunds, disputes, the service catalogue), as a :class:`BankDB`.
        customer_id: the verified caller.
        words: what the customer says or would say (their opening message and the task's scenario text).
        facts: the policy's typed facts (the bundle manifest's :class:`~taugen.generators.policy.ManifestFacts`).
        now: the bank's clock as the client API reports it.
    """

    db: BankDB
    customer_id: str
    words: str
    facts: FactSource
    now: dt.datetime

    @property
    def today(self) -> dt.date:
        return self.now.date()

    def policy(self) -> PolicyContext:
        """A policy context on the read state (for the policy module's fee functions)."""
        return PolicyContext(state=self.db, facts=self.facts, now=self.now, scenario=self.words)

    # -------------------------------------------------------------- lookups on the read records
    def accounts(self, product: str | None = None, kind: str | None = None,
                 status: str | None = "open") -> list[Account]:
        """The customer's accounts of ``product`` / ``kind``; those the customer names first, then by id."""
        found = [a for a in self.db.accounts.values() if a.customer_id == self.customer_id
                 and (status is None or a.status == status)
                 and (product is None or a.product == product) and (kind is None or a.kind == kind)]
        return sorted(found, key=lambda a: (a.account_id not in self.words, a.account_id))

    def account(self, product: str | None = None, kind: str | None = None) -> Account:
        """The open account the request concerns: the one the customer names, else the only (or first) one.

        Raises:
            Undecidable: the customer has no open account of that product or kind.
        """
        found = self.accounts(product, kind)
        if not found:
            raise Undecidable(f"the customer has no open {product or kind} account")
        return found[0]

    def transactions(self, account_id: str) -> list[Transaction]:
        """The account's transactions, oldest first."""
        return sorted((t for t in self.db.transactions.values() if t.account_id == account_id),
                      key=lambda t: (t.posted_on, t.transaction_id))

    def refunded(self) -> set[str]:
        """Ids of the transactions already refunded."""
        return {r.transaction_id for r in self.db.fee_refunds.values()}

    def unrefunded_fees(self, account_id: str, fee_type: str) -> list[Transaction]:
        """The account's fees of ``fee_type`` that no refund covers yet, oldest first."""
        refunded = self.refunded()
        return [t for t in self.transactions(account_id)
                if t.kind == "fee" and t.fee_type == fee_type and t.transaction_id not in refunded]

    def money_fact(self, prefix: str) -> float:
        """The money value of the fact in force today whose id is ``prefix`` (or a dated version of it).

        Raises:
            Undecidable: no such fact is in force.
        """
        fact = fact_in_force(self.facts, prefix, self.today)
        amount = money(self.facts.value(fact)) if fact else None
        if amount is None:
            raise Undecidable(f"no fee fact {prefix} is in force on {self.today}")
        return amount

    def said_dates(self, day: dt.date) -> bool:
        """Whether the customer's words name ``day`` ("March 2" or "March 2, 2026")."""
        return f"{day:%B} {day.day}" in self.words


# ------------------------------------------------------------------------------------------ helpers
_DOLLARS = r"\$([\d,]+\.\d{2})"


def _dollars(text: str) -> float:
    return float(text.replace(",", ""))


def identity(words: str) -> dict[str, str]:
    """The caller's phone, date of birth and last four SSN digits, from what they say.

    Raises:
        Undecidable: one of the three is not in their words.
    """
    patterns = {"phone": r"Your phone number is ([\d\-\s().+]+?)\.(?:\s|$)",
                "dob": r"Your date of birth is (\d{4}-\d{2}-\d{2})\.",
                "ssn": r"Social Security number (?:are|is) (\d{4})\."}
    found = {}
    for key, pattern in patterns.items():
        match = re.search(pattern, words)
        if match is None:
            raise Undecidable(f"the caller's words give no {key}")
        found[key] = match.group(1).strip()
    return found


def _one(found: list[Any], what: str) -> Any:
    if not found:
        raise Undecidable(f"the read records hold no {what}")
    return found[0]


# ------------------------------------------------------------------------------------------ readers
def _overdraft(reading: Reading, problem: Any) -> dict[str, Any]:
    """The customer's Everyday Checking account and its latest overdraft fee that no refund covers."""
    account = reading.account("everyday_checking")
    fees = reading.unrefunded_fees(account.account_id, "overdraft")
    fee = _one(sorted(fees, key=lambda t: (t.posted_on, t.transaction_id), reverse=True), "unrefunded overdraft fee")
    return {"account_id": account.account_id, "fee_id": fee.transaction_id}


def _atm(reading: Reading, problem: Any) -> dict[str, Any]:
    """The Premier Checking account's out-of-network ATM fees of the month the customer names, in a statement
    cycle that has closed, that no rebate covers yet (the policy decides how many the allowance rebates)."""
    account = reading.account("premier_checking")
    months = {index for index, name in enumerate(calendar.month_name)
              if name and re.search(rf"\b{name}\b", reading.words)}
    fees = [t for t in reading.unrefunded_fees(account.account_id, "out_of_network_atm")
            if statement_cycle_close(dt.date.fromisoformat(t.posted_on)) < reading.today
            and (not months or dt.date.fromisoformat(t.posted_on).month in months)]
    if not fees:
        raise Undecidable("no unrebated out-of-network ATM fee of a closed cycle in the month the customer names")
    return {"account_id": account.account_id, "fee_ids": [t.transaction_id for t in fees]}


def _named_card(reading: Reading) -> Any:
    said = set(re.findall(r"\bend(?:s|ing)? in (\d{4})\b", reading.words))
    cards = sorted((c for c in reading.db.cards.values() if c.customer_id == reading.customer_id and c.last4 in said
                    and not c.replaced_by), key=lambda c: (c.status != "active", c.card_id))
    return _one(cards, "card whose last four digits the customer gives")


def _lost_card(reading: Reading, problem: Any) -> dict[str, Any]:
    """The card the customer names by its last four digits; the expedited replacement fee the policy's fee
    schedule gives for it (waived on Premier Checking)."""
    from taugen.domains.banking.policy import expected_replacement_fee

    card = _named_card(reading)
    expected = expected_replacement_fee(reading.policy(), card.card_id, "expedited")
    if expected is None:
        raise Undecidable("the policy gives no expedited replacement fee for the card")
    return {"card_id": card.card_id, "fee": expected[0]}


def _card_hold(reading: Reading, problem: Any) -> dict[str, Any]:
    return {"card_id": _named_card(reading).card_id}


def _stop_payment(reading: Reading, problem: Any) -> dict[str, Any]:
    """The check the customer describes (number and amount) on their Everyday Checking account; the stop payment
    fee of the account's product in force today."""
    account = reading.account("everyday_checking")
    match = re.search(rf"check number (\d+) for {_DOLLARS}", reading.words)
    if match is None:
        raise Undecidable("the customer's words give no check number and amount")
    return {"account_id": account.account_id, "check_number": match.group(1), "amount": _dollars(match.group(2)),
            "fee": reading.money_fact(f"fee_{account.product}_stop_payment")}


def _new_dispute(reading: Reading, problem: Any) -> dict[str, Any]:
    """The debit the customer disputes: a purchase on a deposit account, not disputed yet, whose merchant (and,
    among several, posting date) the customer names. ``same_day_credit`` is the candidate's own reading (a small
    claim or not); the policy's provisional-credit rule accepts only the true one."""
    disputed = {d.transaction_id for d in reading.db.disputes.values()}
    accounts = {a.account_id for a in reading.accounts(status=None) if a.kind != "credit_card"}
    charges = [t for t in reading.db.transactions.values() if t.account_id in accounts and t.kind == "purchase"
               and t.amount < 0 and t.transaction_id not in disputed and t.description in reading.words]
    if len(charges) > 1:
        charges = [t for t in charges if reading.said_dates(dt.date.fromisoformat(t.posted_on))] or charges
    charge = _one(sorted(charges, key=lambda t: (t.posted_on, t.transaction_id), reverse=True),
                  "undisputed charge the customer names")
    state = {"account_id": charge.account_id, "transaction_id": charge.transaction_id,
             "amount": round(-charge.amount, 2)}
    if hasattr(problem, "small_claim"):
        state["same_day_credit"] = bool(problem.small_claim)
    return state


def _overdue_credit(reading: Reading, problem: Any) -> dict[str, Any]:
    """The open claim without provisional credit that the customer names (by number, else the only one)."""
    accounts = {a.account_id for a in reading.accounts(status=None)}
    claims = sorted((d for d in reading.db.disputes.values() if d.account_id in accounts and d.status == "open"
                     and not d.provisional_credit), key=lambda d: (d.dispute_id not in reading.words, d.dispute_id))
    claim = _one(claims, "open claim without provisional credit")
    charge = reading.db.transactions.get(claim.transaction_id)
    if charge is None:
        raise Undecidable(f"the charge of claim {claim.dispute_id} is not among the read transactions")
    return {"dispute_id": claim.dispute_id, "amount": round(-charge.amount, 2)}


def _paper_statements(reading: Reading, problem: Any) -> dict[str, Any]:
    """The checking account on paper statements and every paper statement fee on it that no refund covers,
    newest first (the policy's fee-waiver rule decides which of them the enrolment refunds)."""
    accounts = [a for a in reading.accounts(kind="checking") if a.statement_delivery == "paper"]
    account = _one(accounts, "checking account on paper statements")
    fees = reading.unrefunded_fees(account.account_id, "paper_statement")
    if not fees:
        raise Undecidable("no unrefunded paper statement fee on the account")
    return {"account_id": account.account_id,
            "fee_ids": [t.transaction_id for t in sorted(fees, key=lambda t: (t.posted_on, t.transaction_id),
                                                         reverse=True)]}


def _billing_dispute(reading: Reading, problem: Any) -> dict[str, Any]:
    """The later of two equal charges of the merchant the customer names on their credit card, not disputed."""
    disputed = {d.transaction_id for d in reading.db.disputes.values()}
    for account in reading.accounts(kind="credit_card"):
        purchases = [t for t in reading.transactions(account.account_id) if t.kind == "purchase" and t.amount < 0
                     and t.description in reading.words]
        for later_index, later in enumerate(purchases):
            twins = [t for t in purchases[:later_index]
                     if t.amount == later.amount and t.description == later.description]
            if twins and later.transaction_id not in disputed:
                return {"account_id": account.account_id, "transaction_id": later.transaction_id}
    raise Undecidable("no undisputed duplicate charge of the merchant the customer names")


def _foreign_fee(reading: Reading, problem: Any) -> dict[str, Any]:
    """The Platinum card's latest foreign transaction fee that no refund covers (the policy's bank-error rule
    decides whether it may be refunded)."""
    account = reading.account("platinum_credit_card")
    fees = reading.unrefunded_fees(account.account_id, "foreign_transaction")
    fee = _one(sorted(fees, key=lambda t: (t.posted_on, t.transaction_id), reverse=True), "unrefunded foreign fee")
    return {"account_id": account.account_id, "fee_id": fee.transaction_id}


def _closure(reading: Reading, problem: Any) -> dict[str, Any]:
    """The savings account the customer names, and the closure fee the policy's early-closure rule gives on it
    today (the fee inside the window counted from its opening, none after)."""
    from taugen.domains.banking.policy import expected_closure_fee

    named = [a for a in reading.accounts(kind="savings") if a.account_id in reading.words]
    account = _one(named, "open savings account the customer names")
    expected = expected_closure_fee(reading.policy(), account.account_id)
    if expected is None:
        raise Undecidable("the policy gives no closure fee for the account")
    return {"account_id": account.account_id, "fee": expected[0]}


def _wire(reading: Reading, problem: Any) -> dict[str, Any]:
    """The wire the customer asks for (amount, account, beneficiary), checked against the read account; the
    outgoing wire fee in force today."""
    match = re.search(rf"Send {_DOLLARS} from checking account (\w+) to (.+?), routing number (\d+), account number "
                      r"(\d+)\.", reading.words)
    if match is None:
        raise Undecidable("the customer's words give no wire instructions")
    account = reading.db.accounts.get(match.group(2))
    if account is None or account.customer_id != reading.customer_id or account.status != "open":
        raise Undecidable(f"account {match.group(2)} is not an open account of the caller")
    return {"account_id": account.account_id, "amount": _dollars(match.group(1)), "name": match.group(3),
            "routing": match.group(4), "beneficiary_account": match.group(5),
            "fee": reading.money_fact("fee_domestic_wire_outgoing")}


def said_key(problem: Any) -> str:
    """What a family instance's customer says, as a key: instances of a task with the same key say it in the
    same words, one after the other, in the task's problem order (two windows counted from the signing of a
    power of attorney, two rates applied to a transaction's amount)."""
    if problem.family == "window":
        return f"window:{problem.window.event}"
    if problem.family in ("limit", "minimum"):
        return f"{problem.family}:{problem.topic.description}"  # one topic, one request: the same words
    return problem.family


def _family(reading: Reading, problem: Any, index: int = 0) -> dict[str, Any]:
    """A family instance's state: the account its topic acts on (the binding's choice among the read accounts)
    and the value the customer brings: the amount they ask for (limit, minimum), the date of the event a
    window counts from, or the amount a rate applies to. ``index``: how many of the task's earlier instances
    said the same kind of thing (:func:`said_key`); this one's words are the next occurrence."""
    from types import SimpleNamespace

    from taugen.generators.families import spoken_date

    customer_level = problem.family in ("quote", "procedure", "route")
    account_id = None
    if not customer_level:
        account_id = problem.binding.account(SimpleNamespace(db=reading.db), reading.customer_id, problem.topic)
        if account_id is None:
            raise Undecidable(f"the customer has no open account for {problem.topic.description!r}")
    state: dict[str, Any] = {"account_id": account_id}
    if problem.family == "rate_fee":
        bases = re.findall(rf"It concerns a transaction of {_DOLLARS}\.", reading.words)
        if len(bases) <= index:
            raise Undecidable("the customer's words give no transaction amount for the rate")
        state["base"] = _dollars(bases[index])
    elif problem.family in ("limit", "minimum"):
        from taugen.generators.families import requested

        amount = r"(\$[\d,]+\.\d{2}|\d+)"
        label = problem.binding.account_label(SimpleNamespace(db=reading.db), account_id) if account_id else None
        asked = re.escape(requested(problem.request, f" on {label}" if label else "", problem.family))
        matches = list(re.finditer(asked + rf" for {amount}\."
                                   rf"(?: Before the agent submits anything, change your mind: you want {amount} "
                                   r"instead\.)?", reading.words))
        match = matches[index] if len(matches) > index else None
        if match is None:
            raise Undecidable(f"the customer's words give no amount for {problem.topic.description!r}")
        said = match.group(2) or match.group(1)
        state["amount"] = _dollars(said[1:]) if said.startswith("$") else float(said)
    elif problem.family == "window":
        event = problem.window.event
        matches = list(re.finditer(re.escape(f"{event[:1].upper()}{event[1:]} on ") + r"(\w+ \d{1,2}, \d{4})\.",
                                   reading.words))
        match = matches[index] if len(matches) > index else None
        if match is None:
            raise Undecidable(f"the customer's words give no date for {event!r}")
        day = dt.datetime.strptime(match.group(1), "%B %d, %Y").date()
        if spoken_date(day) != match.group(1):
            raise Undecidable(f"{match.group(1)!r} is not a date as callers say it")
        state["event_date"] = day.isoformat()
    return state


READERS: dict[str, Callable[[Reading, Any], dict[str, Any]]] = {
    "courtesy_overdraft_refund": _overdraft, "courtesy_refund_already_used": _overdraft, "atm_fee_rebate": _atm,
    "lost_card_replacement": _lost_card, "address_change_card_hold": _card_hold, "stop_payment": _stop_payment,
    "unauthorized_debit_dispute": _new_dispute, "unauthorized_debit_dispute_over_threshold": _new_dispute,
    "late_reg_e_claim": _new_dispute, "provisional_credit_overdue": _overdue_credit,
    "paper_statement_switch": _paper_statements, "credit_card_billing_dispute": _billing_dispute,
    "platinum_foreign_fee_refund": _foreign_fee, "early_account_closure": _closure, "domestic_wire": _wire,
    "wire_over_limit": _wire,
}
"""Hand-written problem name → reader (family instances use :func:`read_family`)."""

read_family = _family

ALTERNATIVES: dict[str, tuple[str, ...]] = {}
for _group in (("courtesy_overdraft_refund", "courtesy_refund_already_used"),
               ("unauthorized_debit_dispute", "unauthorized_debit_dispute_over_threshold", "late_reg_e_claim"),
               ("lost_card_replacement", "address_change_card_hold"),
               ("domestic_wire", "wire_over_limit")):
    for _name in _group:
        ALTERNATIVES[_name] = _group
"""Problem name → the problems answering the same request, resolving first and transferring last."""


def _number(value: Any) -> float | None:
    """A money value as read (a number, or its text: tau2's tool messages carry numbers as strings), else None."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def exact_balances(accounts: list[dict[str, Any]], transactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``accounts`` (as read) with each balance as exact as the reads allow.

    A deployment may round an operation's money to whole dollars (a balance of -$0.30 read as $0.00 would pass
    the courtesy refund's good-standing check), and ``get_account`` is the only operation that returns a balance.
    The account's ledger is a second source: its transactions (``list_transactions`` returns every one, signed)
    sum to the balance of a deposit account, and to the negated balance of a card account (what the customer
    owes), in every state the toolkit keeps (its writes post a transaction for every change of a balance). A
    balance read in whole dollars is replaced by its ledger's sum when the two differ by less than 50 cents (what
    rounding to whole dollars can hide); a balance with cents, or one its ledger does not explain, is kept as read.

    Returns:
        new account dicts (the inputs are not changed), in the same order.
    """
    sums: dict[Any, float] = {}
    for row in transactions:
        amount = _number(row.get("amount"))
        if amount is not None:
            sums[row.get("account_id")] = sums.get(row.get("account_id"), 0.0) + amount
    exact = []
    for account in accounts:
        account = dict(account)
        read, ledger = _number(account.get("balance")), sums.get(account.get("account_id"))
        if read is not None and ledger is not None and read == round(read):  # whole dollars: perhaps rounded
            ledger = round(-ledger if account.get("kind") == "credit_card" else ledger, 2)
            if abs(ledger - read) < 0.5:
                account["balance"] = ledger
        exact.append(account)
    return exact


def mirror(customer: dict[str, Any], caller: dict[str, str], accounts: list[dict[str, Any]],
           transactions: list[dict[str, Any]], refunds: list[dict[str, Any]], disputes: list[dict[str, Any]],
           cards: list[dict[str, Any]], topics: list[dict[str, Any]]) -> BankDB:
    """A :class:`BankDB` of the records read through the client API. The profile's identity fields, which the
    API never returns, are what the caller said (``caller``: ``dob``, ``ssn``); balances read in whole dollars
    are made exact from the accounts' ledgers (:func:`exact_balances`).

    Raises:
        pydantic.ValidationError: a read record does not fit the database model.
    """
    profile = {**customer, "date_of_birth": caller["dob"], "ssn_last4": caller["ssn"]}
    return BankDB.model_validate({
        "customers": {profile["customer_id"]: profile},
        "accounts": {a["account_id"]: a for a in exact_balances(accounts, transactions)},
        "transactions": {t["transaction_id"]: t for t in transactions},
        "fee_refunds": {r["refund_id"]: r for r in refunds},
        "disputes": {d["dispute_id"]: d for d in disputes},
        "cards": {c["card_id"]: c for c in cards},
        "service_topics": {t["topic_id"]: t for t in topics}})


VERIFY = "verify_identity"
"""The tool that verifies the caller: the opening problem's one call."""


def verification(reading: Reading) -> tuple[str, dict[str, Any]]:
    """The verification call for the caller of ``reading``, with the identity fields of their profile
    (``(tool, arguments)``; the oracle's decision starts from it as the conversation did).

    Raises:
        KeyError: the reading holds no profile for its customer.
    """
    caller = reading.db.customers[reading.customer_id]
    return VERIFY, {"customer_id": caller.customer_id, "date_of_birth": caller.date_of_birth,
                    "ssn_last4": caller.ssn_last4}


def read_records(words: str, facts: FactSource, topic_queries: list[str]
                 ) -> Generator[tuple[str, dict[str, Any]], Any, Reading]:
    """The reads the reference oracle makes in a conversation, in order: find the caller by the phone they
    give (:func:`identity`), verify them, read the bank's clock, the profile, every account with its
    transactions, fee refunds and disputes, the cards, and the service topics of ``topic_queries``.

    A generator: it yields each call ``(tool, arguments)`` and is sent the call's parsed answer; it returns
    the :class:`Reading` of what was read (:func:`mirror`).

    Raises:
        Undecidable: the caller's words lack the phone, date of birth or SSN digits.
        KeyError, TypeError, ValueError: an answer lacks what the next read needs, or a clock that is no
            ISO date-time.
    """
    caller = identity(words)
    found = yield ("find_customer_by_phone", {"phone": caller["phone"]})
    customer_id = found["customer_id"]
    yield (VERIFY, {"customer_id": customer_id, "date_of_birth": caller["dob"], "ssn_last4": caller["ssn"]})
    clock = yield ("get_current_time", {})
    customer = yield ("get_customer", {"customer_id": customer_id})
    accounts, transactions, refunds, disputes = [], [], [], []
    for account_id in customer.get("account_ids") or []:
        accounts.append((yield ("get_account", {"account_id": account_id})))
        transactions += (yield ("list_transactions", {"account_id": account_id}))
        refunds += (yield ("list_fee_refunds", {"account_id": account_id}))
        disputes += (yield ("list_disputes", {"account_id": account_id}))
    cards = yield ("list_cards", {"customer_id": customer_id})
    topics: dict[str, Any] = {}
    for query in topic_queries:
        for topic in (yield ("find_service_topics", {"query": query})):
            topics[topic["topic_id"]] = topic
    now = dt.datetime.fromisoformat(str(clock.get("message") if isinstance(clock, dict) else clock))
    db = mirror(customer, caller, accounts, transactions, refunds, disputes, cards, list(topics.values()))
    return Reading(db=db, customer_id=customer_id, words=words, facts=facts, now=now)
