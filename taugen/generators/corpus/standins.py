"""Stand-ins: what fills a filler's fact slots, so carriers and fillers come from one process.

A filler is rendered by its genre exactly as a carrier is, with its fact slots filled by *stand-ins*:
sentences of the same shape as a rule (a subject and a typed value: an amount, a percent, a span of
days, a count, a date, or a procedure's key phrase) that are grounded in the world and state no policy
of the bank: a customer's own transactions and balances, a merchant's or another organisation's
published terms, the figures of a past case, the numbers of a worked example. After rendering, the
stand-ins are dropped from the artifact's renditions and metadata, so the filler owns no fact; its
text keeps them, so no classifier finds a filler by its lack of amounts, percents, day counts or dates,
nor by the lack of the frames, headings, rows and steps that hold a fact.

Stand-in subjects never use a fact's wording: K13 pairs a record with a fact only when the record holds
the fact's whole statement with the value masked, and stand-in statements are worded around other
subjects (merchants, other banks, past cases, examples), so none reads as a restatement.

The value type of each slot is drawn from the genre's own ``affinity`` rows for the plan's variant (so
a fee-schedule filler gets amounts and percents, a flowchart filler procedure steps); the number of
slots from 1 to the genre's ``max_facts`` (at most 12; fewer more likely). Every choice is seeded from the artifact.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from decimal import Decimal
from typing import Any

from taugen.authoring.models import Fact
from taugen.authoring.values import (CountValue, DateValue, DurationValue, MoneyValue,
                                     PercentValue, TextValue, find_surface_form)
from taugen.generators.corpus.genre import ArtifactPlan, Genre, RenderedArtifact, Rendition
from taugen.generators.corpus.renditions import voiced_text

PREFIX = "stand_in_"
"""Ids of stand-in facts start with this (never a pack's fact id: packs cannot use it, see :func:`is_stand_in`)."""

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_GOODS = ("a sofa", "two airline tickets", "a laptop repair", "a hotel stay", "a set of tyres", "school uniforms",
          "a gym membership", "a furnace service", "a wedding venue deposit", "concert tickets", "a dental bill",
          "a phone contract", "a car rental", "a moving van", "a kitchen mixer", "garden furniture")
_PAPERS = ("the order number", "the original receipt", "a photo of the damaged item", "the booking reference",
           "the tracking number", "the signed delivery note", "the cancellation email", "the invoice number")
_CASE_WORDS = ("the duplicate grocery charge", "the missing payroll deposit", "the returned rent payment",
               "the card blocked abroad", "the mistyped wire reference", "the stolen wallet report",
               "the double-billed gym membership", "the utility autopay mix-up", "the lost cheque book")


def is_stand_in(fact_id: str) -> bool:
    """True for the id of a stand-in fact."""
    return fact_id.startswith(PREFIX)


def _money(rng: random.Random, low: int, high: int) -> MoneyValue:
    cents = rng.choice((0, 0, rng.randrange(1, 100)))
    return MoneyValue(amount=Decimal(rng.randint(low, high)) + Decimal(cents) / 100)


_SHOPS = ("Hardware", "Grocery", "Dental", "Auto Repair", "Furniture", "Pharmacy", "Travel", "Florist", "Books",
          "Plumbing", "Electric", "Fitness", "Pet Supply", "Bakery", "Outfitters", "Appliance", "Roofing", "Optical")
_CUSTOMER_PAPERS = ("a statement copy", "a balance letter", "a new card", "a copy of the signature card",
                    "a letter for the landlord", "a printed transaction list", "a closing letter")


def _world(rng: random.Random, fake, plan: ArtifactPlan, products: list[str]) -> dict[str, str]:
    day = plan.start.date() - dt.timedelta(days=rng.randint(3, 40))
    return {"merchant": f"{fake.last_name()} {rng.choice(_SHOPS)}", "product": rng.choice(products), "org": f"{fake.last_name()} {rng.choice(('Credit Union', 'Savings Bank', 'Federal Credit Union', 'National Bank', 'Community Bank'))}",
            "person": fake.first_name(), "town": fake.city(), "month": _MONTHS[day.month - 1],
            "year": str(day.year - rng.randint(0, 3)), "goods": rng.choice(_GOODS), "paper": rng.choice(_PAPERS),
            "case": rng.choice(_CASE_WORDS), "team": rng.choice(_TEAMS), "day": f"{day:%B} {day.day}"}


# (category, subject, statement) per value type and source; {value} is the value's canonical form.
# ``operations``: the organisation's own internal working rules (expenses, training, facilities), which
# no task depends on and no customer-facing fact words; ``customer``: a customer's own transactions and
# cases; ``other``: another organisation's published figures and worked examples.
_POOLS: dict[str, dict[str, tuple[tuple[str, str, str], ...]]] = {
    "operations": {
        "money": (
            ("fee", "the staff badge replacement charge", "A lost staff badge at the {town} office is replaced for {value}, charged to {team}."),
            ("limit", "the away day lunch allowance", "The lunch allowance for the {team} away day in {town} is {value} a head."),
            ("limit", "expense claims that need a second approver", "Expense claims above {value} need a second approver in the {team} cost centre."),
            ("limit", "the {town} office petty cash float", "The {town} office keeps a petty cash float of {value}."),
            ("fee", "the courier run from the {town} office", "The courier run from the {town} office to the records centre is billed at {value}."),
            ("limit", "the {team} training budget", "Each colleague in {team} has a training budget of {value} this year."),
        ),
        "percent": (
            ("rate", "the {team} quality score target", "The {team} quality score target for {month} is {value}."),
            ("rate", "calls to the {town} line answered within a minute", "{value} of calls to the {town} line were answered within a minute in {month}."),
            ("rate", "the {team} survey response", "{value} of {team} answered the {month} staff survey."),
        ),
        "duration": (
            ("deadline", "mandatory training for new starters in {team}", "New starters in {team} finish the mandatory training within {value} of joining."),
            ("deadline", "keeping printed call notes at the {town} office", "Printed call notes at the {town} office are shredded within {value}."),
            ("deadline", "holiday requests in {team}", "Holiday requests in {team} go in at least {value} ahead."),
            ("deadline", "expense claims after a trip", "Expense claims for the {team} trip to {town} go in within {value} after it ends."),
            ("deadline", "desk booking at the {town} office", "Desks at the {town} office can be booked up to {value} ahead."),
        ),
        "count": (
            ("limit", "the desks {team} has at the {town} office", "{team} has {value} at the {town} office.", "desks"),
            ("limit", "shift swaps without a manager's sign-off", "A colleague in {team} can make {value} a month without a manager's sign-off.", "shift swaps"),
        ),
        "date": (
            ("deadline", "the {town} office move", "The {town} office moved to its new floor on {value}."),
            ("deadline", "the {team} away day", "The {team} away day in {town} was held on {value}."),
        ),
        "text": (
            ("procedure", "a lost staff badge", "At the {town} office, a lost staff badge is reported to {team} with {paper} before a new one is printed."),
            ("procedure", "a courier collection from the {town} office", "A courier collection for {team} from the {town} office needs {paper} signed at the desk."),
            ("procedure", "returning a work laptop", "A work laptop from {team} in {town} goes back to IT with {paper} on the last working day."),
            ("procedure", "booking a room at the {town} office", "Rooms at the {town} office are booked for {team} with {paper} through the facilities calendar."),
        ),
    },
    "customer": {
        "money": (
            ("limit", "the {product} balance on {person}'s {month} statement", "{person}'s {product} balance on the {month} statement was {value}."),
            ("limit", "the money {person} moved out of {product}", "{person} moved {value} out of {product} on {day} to pay {merchant}."),
            ("limit", "the {product} purchase at {merchant}", "The {product} purchase at {merchant} on {day} came to {value}."),
            ("limit", "the deposit {person} made at the {town} branch", "{person} paid {value} into {product} at the {town} branch on {day}."),
            ("limit", "the payment to {merchant} for {goods}", "The payment to {merchant} for {goods} came to {value} on {day}."),
            ("limit", "the refund {merchant} sent back", "{merchant} sent back {value} to {person}'s {product} on {day} for {goods}."),
        ),
        "percent": (
            ("rate", "the share of {person}'s paycheck that goes to {product}", "{person} sends {value} of each paycheck to {product}."),
            ("rate", "the rate on {person}'s car loan with {org}", "{person}'s car loan with {org} carries a rate of {value}."),
        ),
        "duration": (
            ("deadline", "how long {person} has held {product}", "{person} has held {product} at the {town} branch for {value}."),
            ("deadline", "the delivery time {merchant} quoted for {goods}", "{merchant} quoted {value} for delivery of {goods} to {person}."),
            ("deadline", "how long {case} stayed open", "{Case} that {person} raised in {month} stayed open for {value} before it closed."),
        ),
        "count": (
            ("limit", "the {product} transactions {person} made in {month}", "{person} made {value} with {product} in {month}.", "transactions"),
            ("limit", "the transfers to {person} in {month}", "{person}'s {product} sent {value} to {merchant} in {month}.", "transfers"),
        ),
        "date": (
            ("deadline", "the day {person} opened {product}", "{person} opened {product} at the {town} branch on {value}."),
            ("deadline", "the last payment to {merchant}", "The last payment from {person}'s {product} to {merchant} went out on {value}."),
        ),
        "text": (
            ("procedure", "{person}'s request about {product}", "{person} asked the {town} branch for {paper} on {product}."),
            ("procedure", "the follow-up on {case}", "For {case} at the {town} branch, {person} was asked to send {paper} by secure message."),
        ),
    },
    "other": {
        "money": (
            ("fee", "what {org} charges to send a wire", "{org} lists {value} on its own price sheet to send a domestic wire."),
            ("limit", "the amount in the {town} training case", "In the {town} training case {person} pays {value} in cash into {product}."),
            ("fee", "the late charge {merchant} added", "{merchant} added a late charge of {value} to its own invoice for {goods}."),
        ),
        "percent": (
            ("rate", "the savings rate {org} advertised", "{org} advertised {value} on its savings account in {month} {year}."),
        ),
        "duration": (
            ("deadline", "{merchant}'s own return window", "{merchant} gives its buyers {value} to return {goods}."),
            ("deadline", "the notice period in the {org} contract", "{person}'s contract with {merchant} asks for {value} of notice."),
        ),
        "count": (
            ("limit", "the branches {org} runs in {town}", "{org} runs {value} in and around {town}.", "branches"),
        ),
        "date": (
            ("deadline", "the day {org} changed its price sheet", "{org} published its new price sheet on {value}."),
        ),
        "text": (
            ("procedure", "the {town} training case", "In the {town} training case {person} from {team} checks {paper} on {product} first."),
        ),
    },
}
_TEAMS = ("Deposit Operations", "Card Services", "Payments Operations", "Customer Care", "Product Management",
          "Fraud Operations", "Account Servicing", "Quality Assurance", "Learning and Development", "Collections",
          "Digital Banking", "Records Management", "the Complaints team", "the Wire Room")
_STAFF_PAPERS = ("the asset number", "the manager's email", "the signed hand-over sheet", "the facilities form",
                 "the cost centre code", "the visitor log entry")


def _value(kind: str, rng: random.Random, plan: ArtifactPlan, world: dict[str, str]):
    if kind in ("money", "cap"):
        return MoneyValue(amount=_money(rng, 3, 60).amount) if rng.random() < 0.5 else _money(rng, 60, 2400)
    if kind == "percent":
        return PercentValue(value=Decimal(rng.randint(5, 240)) / 10)
    if kind == "duration":
        unit = rng.choice(("days", "business_days", "calendar_days", "weeks", "months"))
        return DurationValue(amount=rng.randint(2, 45 if "days" in unit else 12), unit=unit)
    if kind == "count":
        return CountValue(value=rng.randint(2, 19), unit=world["unit"])
    if kind == "date":
        return DateValue(value=plan.start.date() - dt.timedelta(days=rng.randint(2, 60)))
    return TextValue(key_terms=[world["paper"]])


def _pool(kind: str, source: str):
    key = {"cap": "money", "money": "money", "percent": "percent", "duration": "duration", "count": "count",
           "date": "date"}.get(kind, "text")
    return _POOLS[source][key]


def stand_in_fact(index: int, kind: str, source: str, plan: ArtifactPlan, rng: random.Random, fake,
                  products: list[str] | None = None) -> Fact:
    """One stand-in fact of value type ``kind`` (a FactValue type; ``text``, ``boolean``, ``enum`` and
    ``none`` give a procedure-shaped sentence with a key phrase) from ``source`` (``operations``,
    ``customer`` or ``other``, see ``_POOLS``)."""
    world = _world(rng, fake, plan, products or ["the account"])
    row = rng.choice(_pool(kind, source))
    category, subject, statement = row[:3]
    world["unit"] = row[3] if len(row) > 3 else ""
    if source == "operations":
        world["paper"] = rng.choice(_STAFF_PAPERS)
    elif source == "customer" and "{product}" in statement:
        world["paper"] = rng.choice(_CUSTOMER_PAPERS)
    world["Case"] = world["case"][:1].upper() + world["case"][1:]
    value = _value(kind, rng, plan, world)
    text = statement.format(value=value.canonical(), **world)
    text = text[:1].upper() + text[1:]
    return Fact(id=f"{PREFIX}{index}", section=plan.topic, category=category, statement=text,
                subject=subject.format(**world), value=value, effective_from=plan.start.date() - dt.timedelta(days=400))


def _kinds(genre: Genre, plan: ArtifactPlan) -> list[tuple[str, int]]:
    rows = [(kind, weight) for kind, variant, weight in genre.affinity if variant in ("", plan.variant)]
    return rows or [("money", 1), ("duration", 1), ("text", 1)]


def with_stand_ins(plan: ArtifactPlan, genre: Genre, products: list[str] | None = None) -> ArtifactPlan:
    """A copy of filler ``plan`` whose fact slots hold stand-ins (1 to the genre's ``max_facts``, at
    most 12, fewer more likely; see the module docstring); a carrier's plan, or any plan of a genre
    without ``stand_ins``, is returned unchanged."""
    if plan.is_carrier or not genre.stand_ins:
        return plan
    rng = plan.rng("stand-ins")
    fake = plan.faker("en_US", "stand-ins")
    products = products or ["the account"]
    most = max(1, min(genre.max_facts or 1, 12))
    count = rng.choices(range(1, most + 1), weights=[1 / k ** 0.4 for k in range(1, most + 1)])[0]
    kinds = _kinds(genre, plan)
    renditions = list(plan.renditions)
    facts = dict(plan.facts)
    span = max(0, (plan.end.date() - plan.start.date()).days)
    for index in range(count):
        kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        source = rng.choices([s for s, _ in genre.stand_ins], weights=[w for _, w in genre.stand_ins])[0]
        fact = stand_in_fact(index, kind, source, plan, rng, fake, products)
        text, form = fact.statement, find_surface_form(fact.value, fact.statement) or ""
        if genre.voiced and rng.random() < 0.5:
            voiced, voiced_form = voiced_text(fact, rng)
            if voiced != fact.statement:
                text, form = voiced, voiced_form
        register = "voiced" if text != fact.statement else "canonical"
        day = plan.start.date() + dt.timedelta(days=rng.randint(0, span)) if span else plan.start.date()
        facts[fact.id] = fact
        renditions.append(Rendition(fact_id=fact.id, text=text, value_form=form, register=register,
                                    status="current", date=day))
    return dataclasses.replace(plan, renditions=renditions, facts=facts)


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if not (isinstance(k, str) and is_stand_in(k))}
    if isinstance(value, list):
        return [_scrub(v) for v in value if not (isinstance(v, str) and is_stand_in(v))]
    if isinstance(value, tuple):
        return tuple(_scrub(v) for v in value if not (isinstance(v, str) and is_stand_in(v)))
    return value


def without_stand_ins(artifact: RenderedArtifact, plan: ArtifactPlan) -> RenderedArtifact:
    """``artifact`` as the filler it is: its plan, renditions and metadata without stand-ins."""
    return dataclasses.replace(artifact, plan=plan,
                               renditions=[r for r in artifact.renditions if not is_stand_in(r.fact_id)],
                               metadata=_scrub(artifact.metadata))
