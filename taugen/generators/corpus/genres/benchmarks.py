"""Peer benchmarks: other organisations' published figures, the grounded content of a filler's fact slots.

Businesses keep other organisations' published terms next to their own: a pricing team's workbook
lists what peer banks charge for the same item, a staff knowledge base tells colleagues what a
customer may have been quoted elsewhere. A figure of that kind has exactly the shape of a rule (a
subject and a typed value: an amount, a percent, a span of days, a count), is grounded (it is what
another organisation publishes), and is not the business's policy, because it is attributed, in the
same row or sentence, to the organisation that publishes it.

This module gives genres what they need to write such figures, so a filler is made by the same process
as a carrier with the fact's slot holding a peer's figure:

* :func:`comparable_facts`: the facts of a topic whose subject another organisation would publish a
  figure for too (commercial categories, numeric values), from :attr:`RenderContext.facts`;
* :func:`peer_value`: a figure of the same type, unit and magnitude for one of those subjects that
  equals no value any version of any fact on that subject ever had (so it can never read as the
  business's current or past rule, nor be read back as one by placement or K13);
* :func:`peer_names`: names of other organisations of the business's own kind (the last word of its
  name: ``Bank``, ``Mobile``), never the business's or a pack organisation's.

Every choice is drawn from the ``rng`` / ``fake`` the caller seeds from its artifact.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from faker import Faker

from taugen.authoring.values import CapValue, CountValue, DurationValue, MoneyValue, PercentValue

if TYPE_CHECKING:
    from taugen.authoring.models import Fact
    from taugen.generators.corpus.genre import RenderContext

COMPARABLE_CATEGORIES = frozenset({"fee", "fees", "rate", "rates", "limit", "limits", "waiver", "waivers"})
"""Categories of rules an organisation sets for itself and publishes (a peer has its own figure)."""
NUMERIC_TYPES = ("money", "percent", "cap", "duration", "count")


def _key(subject: str | None) -> str:
    return " ".join((subject or "").lower().split())


def current_ids(facts: Mapping[str, Fact]) -> set[str]:
    """Ids of the facts in ``facts`` that no other fact there supersedes."""
    replaced = {fact.supersedes for fact in facts.values() if fact.supersedes}
    return {fact_id for fact_id in facts if fact_id not in replaced}


def portable(subject: str, context: RenderContext) -> bool:
    """Whether another organisation could publish a figure for ``subject``: it names no organisation of
    the pack and, once the pack's product labels are taken out, no proper name (a branch, a town, a
    network); acronyms (``ATM``, ``CD``) are fine."""
    text = f" {subject} "
    for org in context.config.organisations:
        if org.name.lower() in text.lower():
            return False
    for label in sorted((p.label for p in context.config.products), key=len, reverse=True):
        text = re.sub(rf"(?i)\b{re.escape(label)}\b", " ", text)
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    return not any(word[0].isupper() and not (word.isupper() and len(word) <= 4) for word in words)


def comparable_facts(context: RenderContext, topic: str, types: Iterable[str] = NUMERIC_TYPES) -> list[Fact]:
    """Current facts of section ``topic`` with a value of one of ``types`` and a commercial category
    (:data:`COMPARABLE_CATEGORIES`), one per subject, sorted by id; ``[]`` when the context has no facts."""
    facts: Mapping[str, Fact] = getattr(context, "facts", None) or {}
    wanted = set(types)
    current = current_ids(facts)
    seen: set[str] = set()
    found = []
    for fact_id in sorted(current):
        fact = facts[fact_id]
        if fact.section != topic or fact.value is None or fact.value.type not in wanted:
            continue
        if fact.category not in COMPARABLE_CATEGORIES or not fact.subject or _key(fact.subject) in seen \
                or not portable(fact.subject, context):
            continue
        seen.add(_key(fact.subject))
        found.append(fact)
    return found


def topic_subjects(context: RenderContext, topic: str) -> list[Fact]:
    """Current facts of section ``topic`` that the records hold (not client-held or shared with the
    client), one per subject, sorted by id: the subjects a record of the topic may name without a value."""
    facts: Mapping[str, Fact] = getattr(context, "facts", None) or {}
    seen: set[str] = set()
    found = []
    for fact_id in sorted(current_ids(facts)):
        fact = facts[fact_id]
        if fact.section != topic or not fact.subject or fact.holder != "records" or _key(fact.subject) in seen:
            continue
        seen.add(_key(fact.subject))
        found.append(fact)
    return found


def subject_values(context: RenderContext, fact: Fact, extra: Iterable[Fact] = ()) -> set[str]:
    """Canonical forms of every value any fact on ``fact``'s subject has, had or will have (every
    version, every product), from the context's facts plus ``extra`` (a plan's own facts)."""
    facts: Mapping[str, Fact] = getattr(context, "facts", None) or {}
    key = _key(fact.subject)
    chain = {fact.id} | ({fact.supersedes} if fact.supersedes else set())
    pool = list(facts.values()) + list(extra)
    grew = True
    while grew:  # the whole supersession arc, whatever the subjects of its versions
        grew = False
        for other in pool:
            if other.supersedes and (other.id in chain) != (other.supersedes in chain):
                chain |= {other.id, other.supersedes}
                grew = True
    values = {other.value.canonical() for other in pool if other.value is not None
              and (other.id in chain or (key and _key(other.subject) == key))}
    return values


def _step(amount: Decimal) -> Decimal:
    if amount < 10:
        return Decimal("0.25")
    if amount < 100:
        return Decimal("0.50")
    if amount < 1000:
        return Decimal("5")
    if amount < 10000:
        return Decimal("50")
    return Decimal("500")


def _nudged_amount(rng: random.Random, amount: Decimal) -> Decimal:
    if amount == 0:
        return Decimal(rng.choice((2, 3, 4, 5, 6, 8, 10, 12))) + rng.choice((Decimal("0"), Decimal("0.50"),
                                                                               Decimal("0.95")))
    factor = Decimal(str(round(rng.uniform(0.6, 1.45), 3)))
    step = _step(amount)
    value = (amount * factor / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step
    return max(value, step).quantize(Decimal("0.01"))


def _nudged_count(rng: random.Random, amount: int) -> int:
    if amount <= 0:
        return rng.randint(1, 3)
    spread = max(1, round(amount * 0.4))
    return max(1, amount + rng.choice([d for d in range(-spread, spread + 1) if d]))


def _nudged(rng: random.Random, value: Any) -> Any:
    if isinstance(value, MoneyValue):
        return MoneyValue(amount=_nudged_amount(rng, value.amount), currency=value.currency)
    if isinstance(value, CapValue):
        if value.currency:
            amount = _nudged_amount(rng, value.amount)
        else:
            amount = Decimal(_nudged_count(rng, int(value.amount)))
        return CapValue(amount=amount, currency=value.currency, unit=value.unit, per=value.per)
    if isinstance(value, PercentValue):
        places = max(2, -int(value.value.normalize().as_tuple().exponent))
        base = value.value if value.value > 0 else Decimal("1")
        quantum = Decimal(1).scaleb(-places)
        number = (base * Decimal(str(round(rng.uniform(0.65, 1.4), 3)))).quantize(quantum, rounding=ROUND_HALF_UP)
        return PercentValue(value=max(number, quantum).normalize())
    if isinstance(value, DurationValue):
        return DurationValue(amount=_nudged_count(rng, value.amount), unit=value.unit)
    if isinstance(value, CountValue):
        return CountValue(value=_nudged_count(rng, value.value), unit=value.unit)
    raise TypeError(f"no peer figure for a {type(value).__name__}")


def peer_value(rng: random.Random, fact: Fact, avoid: set[str]) -> Any:
    """A figure another organisation might publish for ``fact``'s subject: the same value type, unit,
    currency and period, a nearby magnitude, and a canonical form outside ``avoid`` (pass
    :func:`subject_values` plus any figure already written for the subject).

    Raises:
        TypeError: the fact's value is not numeric (money, cap, percent, duration, count).
    """
    value = fact.value
    for _ in range(40):
        candidate = _nudged(rng, value)
        if candidate.canonical() not in avoid:
            return candidate
    # a crowded subject: walk up from the fact's value in steps until a free figure turns up
    candidate = _nudged(rng, value)
    for _ in range(1000):
        if candidate.canonical() not in avoid:
            return candidate
        if isinstance(candidate, (MoneyValue, CapValue)) and (getattr(candidate, "currency", None)):
            candidate = candidate.model_copy(update={"amount": candidate.amount + _step(candidate.amount)})
        elif isinstance(candidate, CapValue):
            candidate = candidate.model_copy(update={"amount": candidate.amount + 1})
        elif isinstance(candidate, PercentValue):
            candidate = PercentValue(value=candidate.value + Decimal("0.05"))
        elif isinstance(candidate, DurationValue):
            candidate = DurationValue(amount=candidate.amount + 1, unit=candidate.unit)
        else:
            candidate = CountValue(value=candidate.value + 1, unit=candidate.unit)
    raise ValueError(f"no free peer figure near {value.canonical()}")


def peer_names(rng: random.Random, fake: Faker, context: RenderContext, count: int) -> list[str]:
    """``count`` distinct names of other organisations of the business's kind (``Harper Bank`` next to
    ``Cedar Ridge Bank``), none sharing a word with the business's or a pack organisation's name."""
    business = context.config.business.name
    kind = business.split()[-1] if len(business.split()) > 1 else "Group"
    taken = {word.lower() for org in context.config.organisations for word in org.name.split()}
    names: list[str] = []
    for _ in range(count * 30):
        if len(names) >= count:
            break
        stem = fake.last_name()
        name = f"{stem} {kind}"
        if stem.lower() not in taken and name not in names and stem.isalpha():
            names.append(name)
    while len(names) < count:  # pragma: no cover - Faker ran out of fresh stems
        names.append(f"{fake.last_name()} {kind} {len(names) + 1}")
    return names


__all__ = ["COMPARABLE_CATEGORIES", "comparable_facts", "current_ids", "peer_names", "peer_value", "portable",
           "subject_values", "topic_subjects"]
