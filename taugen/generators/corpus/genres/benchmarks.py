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
  name: ``Bank``, ``Mobile``), never the business's or a pack organisation's;
* :func:`grounded_sentences`: what a record may say about a subject in a rule's place, from the
  genre's own phrasings: a peer's figure, how often customers asked about it, or a working note.

Every choice is drawn from the ``rng`` / ``fake`` the caller seeds from its artifact.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from faker import Faker

from taugen.authoring.values import (
    CapValue,
    CountValue,
    DurationValue,
    MoneyValue,
    PercentValue,
    find_surface_form,
)
from taugen.generators.corpus.fact_reads import distinct_values, lookup_of, raw_facts
from taugen.generators.corpus.fact_reads import subject_key as _key
from taugen.generators.corpus.prose import has_doubled_words
from taugen.generators.corpus.renditions import framed_text, spoken_subject

if TYPE_CHECKING:
    from taugen.authoring.models import Fact
    from taugen.generators.corpus.genre import ArtifactPlan, RenderContext

COMPARABLE_CATEGORIES = frozenset({"fee", "fees", "rate", "rates", "limit", "limits", "waiver", "waivers", "deadline",
                                   "deadlines", "eligibility", "notice"})
"""Categories of rules an organisation sets for itself and publishes (a peer has its own figure): prices,
limits and waivers, and the clocks and thresholds of its service (how long a hold lasts, how old an
account must be, how much notice it gives)."""
NUMERIC_TYPES = ("money", "percent", "cap", "duration", "count")


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
    seen: set[str] = set()
    found = []
    for fact_id in lookup_of(facts).current_in_section(topic):
        fact = facts[fact_id]
        if fact.value is None or fact.value.type not in wanted:
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
    for fact_id in lookup_of(facts).current_in_section(topic):
        fact = facts[fact_id]
        if not fact.subject or fact.holder != "records" or _key(fact.subject) in seen:
            continue
        seen.add(_key(fact.subject))
        found.append(fact)
    return found


def _index(facts: Mapping[str, Fact], extra: Iterable[Fact]) -> Any:
    """What answers fact lookups over ``facts`` (:func:`~taugen.generators.corpus.fact_reads.lookup_of`), or
    None when ``extra`` holds a fact that is not one of ``facts`` (then the callers walk both)."""
    plain = raw_facts(facts)
    if not all(plain.get(fact.id) is fact for fact in extra):
        return None
    return lookup_of(facts)


def subject_values(context: RenderContext, fact: Fact, extra: Iterable[Fact] = ()) -> set[str]:
    """Canonical forms of every value any fact on ``fact``'s subject has, had or will have (every
    version, every product), from the context's facts plus ``extra`` (a plan's own facts)."""
    facts: Mapping[str, Fact] = getattr(context, "facts", None) or {}
    extra = list(extra)
    key = _key(fact.subject)
    index = _index(facts, extra)
    if index is not None:
        return index.subject_values(fact.id, fact.supersedes, fact.subject)
    chain = {fact.id} | ({fact.supersedes} if fact.supersedes else set())
    pool = list(facts.values()) + extra
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


def avoided_values(context: RenderContext, fact: Fact, extra: Iterable[Fact] = ()) -> set[str]:
    """Canonical forms a figure written about ``fact``'s subject in place of a rule must not take: every
    value of the subject (:func:`subject_values`) and every value any fact of ``fact``'s section has,
    had or will have (from the context's facts plus ``extra``). A peer's "2 business days" for one wire's
    delivery time must not equal the business's own hold on another wire in the same topic: a reader
    who takes the wrong sentence would still be right. Nor any value of ``extra`` (the caller's plan:
    every fact the record states, points to or names), whatever its section: a record that points to
    where a rule's value is (an evidence route) must not hold that value itself."""
    facts: Mapping[str, Fact] = getattr(context, "facts", None) or {}
    extra = list(extra)
    values = subject_values(context, fact, extra) | {other.value.canonical() for other in extra
                                                     if other.value is not None}
    index = _index(facts, extra)
    if index is not None:
        return values | index.section_values(fact.section)
    values |= {other.value.canonical() for other in facts.values()
               if other.value is not None and other.section == fact.section}
    return values


_MONEY_GRAINS = tuple(Decimal(g) for g in ("500", "100", "50", "10", "5", "1", "0.50", "0.25", "0.05", "0.01"))
_COUNT_GRAINS = (100, 50, 10, 5, 1)
_PERCENT_GRAINS = tuple(Decimal(g) for g in ("5", "1", "0.5", "0.25", "0.1", "0.05", "0.01"))


def _grain(amount, grains):
    """The coarsest of ``grains`` that divides ``amount`` and is at most a third of it (the last grain
    otherwise): how round the business's own figure is ($35.00 → 5, $2.50 → 0.50, 60 days → 10, 1.5 % →
    0.5), so a peer's figure is as round as the rule it stands beside ("thirty dollars", not "thirty-two
    fifty"; "two percent", not "one point eight nine percent")."""
    for grain in grains:
        if amount % grain == 0 and 3 * grain <= amount:
            return grain
    return grains[-1]


def _step(amount: Decimal) -> Decimal:
    return _grain(amount, _MONEY_GRAINS)


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
    grain = _grain(amount, _COUNT_GRAINS)
    spread = max(1, round(amount * 0.4 / grain))
    return max(grain, amount + grain * rng.choice([d for d in range(-spread, spread + 1) if d]))


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
        base = value.value if value.value > 0 else Decimal("1")
        grain = _grain(base, _PERCENT_GRAINS)
        number = (base * Decimal(str(round(rng.uniform(0.65, 1.4), 3))) / grain).quantize(
            Decimal(1), rounding=ROUND_HALF_UP) * grain
        number = max(number, grain).normalize()
        return PercentValue(value=number.quantize(Decimal(1)) if number == number.to_integral() else number)
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


PEER_STEMS = ("Keystone", "Pinecrest", "Riverbend", "Bluewater", "Ironwood", "Heritage", "Frontier", "Pioneer",
              "Cornerstone", "Northfield", "Westgate", "Oakmont", "Silverline", "Redwood", "Bayshore", "Fairhaven",
              "Stillwater", "Evergreen", "Tidewater", "Bridgeport", "Sunrise", "Wayfarer", "Three Rivers",
              "Crescent", "Lakeview", "Sandstone", "Maplewood", "Eastfield", "Beacon", "Glenwood", "Millbrook",
              "Twin Oaks", "Seaside", "Bellwether", "Silver Lake", "Driftwood", "Tall Pines", "Larkspur", "Kestrel",
              "Timberline", "High Plains", "Sweetwater", "Brightwater", "Coastal")
"""What other organisations of the business's kind are called before their kind word ("Keystone Bank"):
places and landmarks, as regional banks and carriers are named. Drawn from person surnames, a peer
shared its name with someone in the same record (a caller Gerald Webb quoting "Webb Bank"). No stem is a
word of a built-in pack's branch, store or place names ("Clearwater" is a Cedar Ridge branch)."""


def peer_names(fake: Faker, context: RenderContext, count: int) -> list[str]:
    """``count`` distinct names of other organisations of the business's kind (``Keystone Bank`` next to
    ``Cedar Ridge Bank``: a :data:`PEER_STEMS` stem drawn by ``fake``'s generator, then the last word of the
    business's name), none sharing a word with the business's or a pack organisation's name."""
    business = context.config.business.name
    kind = business.split()[-1] if len(business.split()) > 1 else "Group"
    taken = {word.lower() for org in context.config.organisations for word in org.name.split()}
    stems = [stem for stem in PEER_STEMS if not {word.lower() for word in stem.split()} & taken]
    chosen = fake.random.sample(stems, min(count, len(stems)))
    names = [f"{stem} {kind}" for stem in chosen]
    while len(names) < count:  # pragma: no cover - more peers asked for than there are stems
        names.append(f"{fake.random.choice(stems)} {kind} {len(names) + 1}")
    return names


def voiced_share(context: RenderContext) -> float:
    """The share of renditions the build's tier writes in the voiced register (0 for an unknown tier):
    how often a grounded sentence should take the place a voiced rule would (a comment, a chat line),
    so that where a record puts its slot says nothing about what the slot holds."""
    from taugen.generators.tiers import TIERS

    preset = TIERS.get(getattr(context, "tier", ""))
    return preset.voiced_share if preset is not None else 0.0


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def month_and_year(day: dt.date) -> str:
    """``"March 2026"``: the month a count of contacts is given for (English names, whatever the locale)."""
    return f"{_MONTHS[day.month - 1]} {day.year}"


def comparable(context: RenderContext, fact: Fact, subject: str) -> bool:
    """Whether another organisation publishes a figure for ``fact``'s subject as written (``subject``):
    a numeric value, a commercial category (:data:`COMPARABLE_CATEGORIES`), a :func:`portable` subject."""
    return fact.value is not None and fact.value.type in NUMERIC_TYPES and fact.category in COMPARABLE_CATEGORIES \
        and portable(subject, context)


QUOTE_SHARE = 0.5
"""Share of peers' figures given in the peer's own words: the frame a rule's slot uses, quoted and
attributed (:func:`peer_quote`), rather than in one of the genre's comparison lines."""
_QUOTE_LEADS = (
    '{P} puts it this way: "{Q}"',
    '{P}\'s own wording, for comparison: "{Q}"',
    'This is from {P}\'s published terms: "{Q}"',
    'Here is what {P} tells its customers: "{Q}"',
    'For comparison, {P}\'s rate sheet says: "{Q}"',
    'A customer sent us {P}\'s wording: "{Q}"',
)


def names_business(text: str, context: RenderContext) -> bool:
    """Whether ``text`` names the business, an organisation of the pack or one of the pack's product
    labels (case-insensitive, whole words): words another organisation would never publish."""
    names = [context.config.business.name, *(org.name for org in context.config.organisations),
             *(product.label for product in context.config.products)]
    return any(re.search(rf"(?i)\b{re.escape(name)}\b", text) for name in names if name)


def peer_quote(rng: random.Random, context: RenderContext, fact: Fact, value: Any, peer: str,
               spoken: bool, *, subject: str = "", leads: tuple[str, ...] = _QUOTE_LEADS) -> str:
    """``peer``'s figure ``value`` for ``fact``'s subject in the peer's own words: a frame a rule's slot
    uses (:func:`~taugen.generators.corpus.renditions.framed_text`), quoted in one of ``leads`` (``{P}``
    peer, ``{Q}`` quote; by default staff's, ``Harper Bank puts it this way: "For the stop payment fee,
    the number is thirty dollars."``). ``subject`` is the subject as the record writes it (default: the
    fact's, first letter in lower case unless an acronym). ``""`` when no frame fits or the wording would
    name the business, a pack organisation or product."""
    if not subject:
        subject = (fact.subject or "").strip().rstrip(".")
        subject = subject if subject[:2].isupper() else subject[:1].lower() + subject[1:]
    text, _form = framed_text(fact, value, rng, spoken=spoken, subject=subject)
    if not text or names_business(text, context):
        return ""
    return rng.choice(leads).format(P=peer, Q=text)


def peer_sentences(rng: random.Random, context: RenderContext, fact: Fact, subject: str, peers: list[str],
                   extra: Iterable[Fact] = (), *, peer_lines: tuple[str, ...], written: str = "",
                   spoken: bool = False) -> list[str]:
    """One or two sentences giving what other organisations publish for ``fact``'s subject, each figure
    named with its organisation and equal to none of :func:`avoided_values` (any value of the subject or
    of the section, nor of ``extra``, the caller's plan) nor holding one's words; ``[]`` when the subject
    is not :func:`comparable` or ``peers`` is empty.

    A sentence is the peer's own wording (:func:`peer_quote`, :data:`QUOTE_SHARE` of them) or one of
    ``peer_lines`` (``{P}`` peer, ``{V}`` figure, ``{S}`` subject, written as ``written`` when given,
    ``this`` beside a record that already names it). ``spoken`` writes figures as voiced renditions
    write values (``thirty dollars``), else in canonical form (``$30.00``)."""
    if not peers or not comparable(context, fact, subject):
        return []
    avoid = avoided_values(context, fact, extra)
    guarded = values_among(context, avoid, extra)
    lines = []
    for peer in rng.sample(peers, k=min(len(peers), rng.choice((1, 1, 2)))):
        for _ in range(5):  # a spoken figure may hold another's words ("two point five three percent" holds
            # "three percent") or double one ("one point one one percent"): draw it again
            value = peer_value(rng, fact, avoid)
            avoid.add(value.canonical())
            quote = peer_quote(rng, context, fact, value, peer, spoken) if rng.random() < QUOTE_SHARE else ""
            line = quote or peer_line(rng, peer_lines, peer, value, written or subject, spoken)
            if not has_doubled_words(line) and not any(find_surface_form(other, line) for other in guarded):
                lines.append(line)
                break
    return lines


def values_among(context: RenderContext, canonical: set[str], extra: Iterable[Fact] = ()) -> list[Any]:
    """The distinct typed values of the context's facts whose canonical form is in ``canonical`` (in the facts'
    order, :func:`~taugen.generators.corpus.fact_reads.distinct_values`), then those of ``extra``: for testing
    whether a line holds any of them."""
    facts: Mapping[str, Fact] = getattr(context, "facts", None) or {}
    extra = list(extra)
    index = _index(facts, extra)
    if index is None:
        own = distinct_values(other.value for other in facts.values() if other.value is not None
                              and other.value.canonical() in canonical)
    else:
        own = index.values_among(frozenset(canonical))
    return own + [other.value for other in extra if other.value is not None and other.value.canonical() in canonical]


def peer_line(rng: random.Random, peer_lines: tuple[str, ...], peer: str, value: Any, subject: str,
              spoken: bool = False) -> str:
    """One of ``peer_lines`` filled with a peer, its figure (a voiced form when ``spoken``, else the
    canonical form) and the subject."""
    figure = rng.choice(value.voiced_forms()) if spoken else value.canonical()
    return rng.choice(peer_lines).format(P=peer, V=figure, S=subject)


def grounded_sentences(rng: random.Random, context: RenderContext, fact: Fact, subject: str, peers: list[str],
                       day: Any, extra: Iterable[Fact] = (), *, peer_lines: tuple[str, ...],
                       volume_lines: tuple[str, ...], note_lines: tuple[str, ...],
                       weights: tuple[float, float] = (0.8, 0.9), written: str = "",
                       spoken: bool = False) -> list[str]:
    """Sentences a record may write about ``fact``'s subject in the place a rule would take, stating no
    rule of the business: with probability ``weights[0]`` (when the subject is :func:`comparable`)
    :func:`peer_sentences`; below ``weights[1]`` how often customers asked about it (``volume_lines``:
    ``{N}`` count, ``{MONTH}`` a month before ``day``), never one of the subject's values; otherwise a
    working note without a figure (``note_lines``). ``subject`` is the subject as the record writes it
    (``written`` replaces it in the sentence when given: ``this``, beside a title that names it);
    ``extra`` are facts of the caller's plan (their values are avoided too); ``spoken`` writes peers'
    figures as voiced renditions write values.

    Peers' figures come first (80% by default): a carrier's slot holds a typed figure in a rule's frame,
    so a filler's slot does too, attributed to the organisation it belongs to. A genre that quotes peers
    also puts :func:`comparison` beside any slot, a rule's or not, at one rate."""
    guarded = values_among(context, avoided_values(context, fact, extra), extra)
    draw = rng.random()
    if draw < weights[0]:
        lines = peer_sentences(rng, context, fact, subject, peers, extra, peer_lines=peer_lines, written=written,
                               spoken=spoken)
        if lines:
            return lines
    if draw < weights[1]:
        template = rng.choice(volume_lines)
        for _ in range(20):
            month = day - dt.timedelta(days=rng.randint(20, 60))
            line = template.format(S=written or subject, N=rng.randint(6, 240),
                                   MONTH=month_and_year(month))
            if not any(find_surface_form(value, line) for value in guarded):
                return [line]
    return [rng.choice(note_lines).format(S=written or subject)]


def comparison(rng: random.Random, context: RenderContext, fact: Fact | None, subject: str, peers: list[str],
               extra: Iterable[Fact], chance: float, *, peer_lines: tuple[str, ...], written: str = "this") -> str:
    """With probability ``chance``, :func:`peer_sentences` about ``fact``'s subject joined into one
    paragraph (first letters in upper case): what a record says beside any slot, a rule's or a grounded
    one, so that peers' figures are as common next to rules as elsewhere. The subject is written
    ``written`` (``this``: the slot beside it has just named it). ``""`` otherwise, or when the subject is
    not comparable."""
    if fact is None or rng.random() >= chance:
        return ""
    spoken = rng.random() < voiced_share(context)
    lines = peer_sentences(rng, context, fact, subject, peers, extra, peer_lines=peer_lines, written=written,
                           spoken=spoken)
    return " ".join(line[:1].upper() + line[1:] for line in lines)


def plan_peers(context: RenderContext, plan: ArtifactPlan) -> list[str]:
    """Three :func:`peer_names` for a record, from a generator of its own (``plan.faker``), so that
    naming peers draws nothing from the record's main generator."""
    return peer_names(plan.faker(context.config.locale, "grounded-peers"), context, 3)


def other_subjects(context: RenderContext, plan: ArtifactPlan, rng: random.Random) -> list[Fact]:
    """:func:`topic_subjects` of the plan's topic that the plan does not state (no subject of a fact it
    holds, no fact of a supersession arc it holds, no subject whose words state its fact's value), in an
    order drawn from ``rng``: first the subjects whose rules records of the plan's own genre state
    (:attr:`RenderContext.owner_genres`), then the others. A genre's carriers state the rules the planner
    routes to it, so the subjects its records name without a value come from those rules first; drawn
    from the whole topic, the topic's words would tell a record that states rules from one that only
    names subjects."""
    owned = {_key(fact.subject) for fact in plan.facts.values()}
    arcs = {fact.id for fact in plan.facts.values()} | {fact.supersedes for fact in plan.facts.values()}
    subjects = [fact for fact in topic_subjects(context, plan.topic) if _key(fact.subject) not in owned
                and fact.id not in arcs and fact.supersedes not in arcs
                and (fact.value is None or find_surface_form(fact.value, fact.subject or "") is None)]
    rng.shuffle(subjects)
    subjects.sort(key=lambda fact: context.owner_genres.get(fact.id) != plan.genre)
    return subjects


@dataclass
class GroundedSlot:
    """A grounded sentence in the place a rule would take (see :func:`grounded_sentences`). It owns no
    fact; ``status`` and ``register`` let a genre handle it where it handles a rendition.

    Attributes:
        text: the sentence(s) as written (first letter in upper case).
        subject: the subject it is about, as a record writes it (``the outgoing domestic wire fee``).
        register: ``voiced`` as often as the tier writes rules voiced (:func:`voiced_share`), else
            ``canonical``: a genre that says voiced rules in a comment or a chat line says these there too.
    """

    text: str
    subject: str
    register: str = "canonical"
    status: str = "grounded"
    fact_id: str = ""
    fact: Any = None
    """The fact whose subject the slot is about (not stated)."""


def grounded_slots(rng: random.Random, context: RenderContext, plan: ArtifactPlan, wanted: int, day: Any,
                   *, peer_lines: tuple[str, ...], volume_lines: tuple[str, ...],
                   note_lines: tuple[str, ...]) -> list[GroundedSlot]:
    """Up to ``wanted`` grounded slots about :func:`other_subjects` of the plan (its own genre's first),
    each from :func:`grounded_sentences` with the genre's phrasings; peers are named by the plan's own
    generator; ``[]`` when the topic has no such subject. A slot in the ``voiced`` register says its
    subject in the pack's spoken wordings, as a voiced rule does
    (:func:`~taugen.generators.corpus.renditions.spoken_subject`)."""
    subjects = other_subjects(context, plan, rng)
    if wanted <= 0 or not subjects:
        return []
    peers = plan_peers(context, plan)
    share = voiced_share(context)
    slots = []
    for fact in subjects[:wanted]:
        subject = (fact.subject or "").strip().rstrip(".")
        subject = subject if len(subject) > 1 and subject[:2].isupper() else subject[:1].lower() + subject[1:]
        register = "voiced" if rng.random() < share else "canonical"
        if register == "voiced":  # said as a voiced rule's subject is: in the pack's spoken wordings
            subject = spoken_subject(subject, context.vocabulary.words("spoken"), rng)  # type: ignore[arg-type]
        lines = grounded_sentences(rng, context, fact, subject, peers, day, plan.facts.values(),
                                   peer_lines=peer_lines, volume_lines=volume_lines, note_lines=note_lines,
                                   spoken=register == "voiced")
        text = " ".join(line[:1].upper() + line[1:] for line in lines)
        slots.append(GroundedSlot(text=text, subject=subject, register=register, fact=fact))
    return slots


__all__ = [
    "COMPARABLE_CATEGORIES",
    "QUOTE_SHARE",
    "GroundedSlot",
    "avoided_values",
    "comparable",
    "comparable_facts",
    "comparison",
    "grounded_sentences",
    "grounded_slots",
    "names_business",
    "other_subjects",
    "peer_line",
    "peer_names",
    "peer_quote",
    "peer_sentences",
    "peer_value",
    "plan_peers",
    "portable",
    "subject_values",
    "topic_subjects",
    "voiced_share",
]
