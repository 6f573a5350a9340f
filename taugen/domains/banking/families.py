"""Banking's binding of the generic problem families (``taugen.generators.families``).

It says how Cedar Ridge Bank's world realises a family step: a catalogued service topic per fact (the
fact's subject without the product, so the product rows of one fee share a topic and the agent must pick
the row for the customer's product), which open account a topic acts on, and the tool calls: provide a
service and charge its fee (``charge_service_fee``), submit a request for an amount
(``submit_service_request``) or one dated by the event a window counts from (``submit_dated_request``), record
the steps of a procedure on the customer's file in order (``record_procedure_step``), note a quoted value on the
customer's file (``record_quote``).
"""

from __future__ import annotations

import re
from typing import Any

from taugen.authoring.models import Fact
from taugen.authoring.pack import Pack
from taugen.authoring.values import StepsValue
from taugen.domains.banking.db import BankDB, ServiceTopic
from taugen.domains.banking.tools import derived_id, normalise_quote
from taugen.domains.banking.world import CARD_PRODUCTS, CHECKING_PRODUCTS, SAVINGS_PRODUCTS
from taugen.generators.families import Topic
from taugen.generators.problems import GoldCall, ProblemContext

WORLD_PRODUCTS = (*CHECKING_PRODUCTS, *SAVINGS_PRODUCTS, *CARD_PRODUCTS)
_PRODUCT_ALIASES = {"debit_card": CHECKING_PRODUCTS}
_LEADING = re.compile(r"^(?:the|a|an)\s+", re.I)
_TRAILING = re.compile(r"(?:\s+(?:on|for|into|in|to|from|of|at|with|the|a|an))+$", re.I)
"""Words a subject is left ending on once its product label is taken out ("late payment fee on the")."""


def _slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))[:60].strip("-")


class BankingBinding:
    """:class:`taugen.generators.families.FamilyBinding` for Cedar Ridge Bank.

    Args:
        pack: the banking pack (product labels from ``domain.yaml``; every fact's subject).
    """

    def __init__(self, pack: Pack) -> None:
        self.labels = {product.id: product.label for product in pack.config.products}
        self._topics: dict[str, Topic] = {}
        groups: dict[str, list[tuple[Fact, tuple[str, ...]]]] = {}
        for fact in pack.facts.values():
            if fact.value is None:
                continue
            groups.setdefault(self._describe(fact), []).append((fact, self._products(fact)))
        for description, members in groups.items():
            overlap = self._overlaps([products for _, products in members])
            for fact, products in members:
                text = description if not overlap else _LEADING.sub("", fact.subject or fact.statement).rstrip(".")
                steps = tuple(sorted(fact.value.steps)) if isinstance(fact.value, StepsValue) else ()
                self._topics[fact.id] = Topic(_slug(text), text, products, steps)
        # Two facts whose full subjects still coincide would share a topic: number all but the first. The
        # rule in force comes first and keeps the plain description, which the user says; numbered first in
        # id order, a current rule read "daily ATM withdrawal limit on Premier Checking (3)" in its tasks'
        # instructions while its superseded 2024 version kept the plain words.
        seen: dict[str, list[str]] = {}
        for fact_id, topic in self._topics.items():
            seen.setdefault(topic.topic_id, []).append(fact_id)
        for topic_id, fact_ids in seen.items():
            fact_ids = sorted(fact_ids, key=lambda f: not pack.is_current(f))  # stable: id order otherwise
            products = [self._topics[f].products for f in fact_ids]
            if len(fact_ids) > 1 and self._overlaps(products):
                for index, fact_id in enumerate(fact_ids[1:], start=2):
                    topic = self._topics[fact_id]
                    self._topics[fact_id] = Topic(f"{topic.topic_id}-{index}", f"{topic.description} ({index})",
                                                  topic.products, topic.steps)

    @staticmethod
    def _overlaps(product_sets: list[tuple[str, ...]]) -> bool:
        if len(product_sets) < 2:
            return False
        if any(not products for products in product_sets):
            return True
        flat = [p for products in product_sets for p in products]
        return len(flat) != len(set(flat))

    def _products(self, fact: Fact) -> tuple[str, ...]:
        products: set[str] = set()
        for product in fact.applies_to:
            products |= set(_PRODUCT_ALIASES.get(product, (product,) if product in WORLD_PRODUCTS else ()))
        return tuple(sorted(products))

    def _describe(self, fact: Fact) -> str:
        text = _LEADING.sub("", (fact.subject or fact.statement).strip().rstrip("."))
        for label in sorted(self.labels.values(), key=len, reverse=True):
            text = re.sub(rf"\s*\b(?:on|for|into|in|to|from)?\s*(?:an?\s+)?{re.escape(label)}(?:\s+account)?\b",
                          " ", text, flags=re.I)
        text = _TRAILING.sub("", " ".join(text.split()))
        return text or fact.subject or fact.statement

    # ------------------------------------------------------------------ FamilyBinding
    def topic(self, fact: Fact) -> Topic | None:
        return self._topics.get(fact.id)

    def prepare_world(self, world: BankDB, topics: list[Topic]) -> None:
        for topic in topics:
            world.service_topics[topic.topic_id] = ServiceTopic(topic_id=topic.topic_id, description=topic.description,
                                                                products=list(topic.products), steps=list(topic.steps))

    def account(self, toolkit, customer_id: str, topic: Topic) -> str | None:
        db: BankDB = toolkit.db
        accounts = sorted((a for a in db.accounts.values() if a.customer_id == customer_id and a.status == "open"),
                          key=lambda a: a.account_id)
        if topic.products:
            found = [a for a in accounts if a.product in topic.products]
        else:
            found = [a for a in accounts if a.kind == "checking"] or [a for a in accounts if a.kind == "savings"]
        return found[0].account_id if found else None

    def account_label(self, toolkit, account_id: str) -> str:
        account = toolkit.db.accounts[account_id]
        return f"your {self.labels.get(account.product, account.product.replace('_', ' '))} account"

    def lookups(self, context: ProblemContext, account_id: str | None, topic: Topic, incomplete: bool,
                query: str | None = None) -> list[GoldCall]:
        calls = []
        if incomplete:
            calls.append(GoldCall("get_customer", {"customer_id": context.customer_id}))
        if account_id is not None:
            calls.append(GoldCall("get_account", {"account_id": account_id}))
        calls.append(GoldCall("find_service_topics", {"query": query or topic.description}))
        return calls

    def charge(self, account_id: str, topic: Topic, fee: float) -> GoldCall:
        return GoldCall("charge_service_fee", {"account_id": account_id, "topic_id": topic.topic_id, "fee": fee})

    def request(self, account_id: str, topic: Topic, amount: float) -> GoldCall:
        return GoldCall("submit_service_request", {"account_id": account_id, "topic_id": topic.topic_id,
                                                   "amount": amount})

    def quote(self, customer_id: str, topic: Topic, value: str) -> GoldCall:
        return GoldCall("record_quote", {"customer_id": customer_id, "topic_id": topic.topic_id, "value": value})

    def dated_request(self, account_id: str, topic: Topic, event_date: str) -> GoldCall:
        return GoldCall("submit_dated_request", {"account_id": account_id, "topic_id": topic.topic_id,
                                                 "event_date": event_date})

    def charged(self, context: ProblemContext, account_id: str, topic: Topic) -> float | None:
        charge = context.toolkit.db.service_charges.get(derived_id("SC", account_id, topic.topic_id))
        return charge.fee if charge is not None else None

    def requested(self, context: ProblemContext, account_id: str, topic: Topic) -> float | None:
        request = context.toolkit.db.service_requests.get(derived_id("SR", account_id, topic.topic_id))
        return request.amount if request is not None else None

    def dated_requested(self, context: ProblemContext, account_id: str, topic: Topic) -> str | None:
        request = context.toolkit.db.dated_requests.get(derived_id("DR", account_id, topic.topic_id))
        return request.event_date if request is not None else None

    def quoted(self, context: ProblemContext, topic: Topic) -> str | None:
        quote = context.toolkit.db.quotes.get(derived_id("QT", context.customer_id, topic.topic_id))
        return quote.value if quote is not None else None

    def normalise_quote(self, text: str) -> str:
        return normalise_quote(text)

    def procedure_step(self, customer_id: str, topic: Topic, step: str) -> GoldCall:
        return GoldCall("record_procedure_step", {"customer_id": customer_id, "topic_id": topic.topic_id, "step": step})

    def steps_recorded(self, context: ProblemContext, topic: Topic) -> list[str]:
        return steps_on_file(context.toolkit.db, context.customer_id, topic.topic_id)

    def route(self, department: str, topic: Topic) -> GoldCall:
        return GoldCall("transfer_to_human_agents", {"department": department,
                                                     "summary": f"Caller needs help with {topic.description}."})

    def routed(self, context: ProblemContext) -> str | None:
        transfers = sorted(context.toolkit.db.human_transfers.values(), key=lambda t: t.transfer_id)
        return transfers[-1].department if transfers else None


def steps_on_file(db: BankDB, customer_id: str | None, topic_id: str | None) -> list[str]:
    """The procedure steps recorded for ``customer_id`` on ``topic_id``, in the order they were recorded."""
    found = [s for s in db.procedure_steps.values() if s.customer_id == customer_id and s.topic_id == topic_id]
    return [s.step for s in sorted(found, key=lambda s: s.sequence)]


def binding(pack: Pack) -> BankingBinding:
    """The banking binding for ``pack`` (``DomainDefinition.families``)."""
    return BankingBinding(pack)


__all__: list[Any] = ["BankingBinding", "binding", "steps_on_file"]
