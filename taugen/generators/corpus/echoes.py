"""Echoes: rules that another record owns, restated in a filler's rule places.

A carrier states its rules in its genre's rule places; a filler has the same places
(``rule_slots``, dealt from its genre's carriers' counts). Left to each genre, a filler's places held words
that no carrier's did (a subject "set out in the fee schedule", a help card with no figure), so an
ordinary text classifier told the two apart from those words and from the missing amounts, percents
and day counts. An echo fills a filler's place with a rule of its topic that another record owns, as
staff and help pages restate rules in real records: a :class:`~taugen.generators.corpus.genre.Rendition`
with ``echo=True`` and status ``current``, worded as the planner words an owner's rendition in that
genre (the same register mix, the same frames), rendered by the genre exactly as a rule it owns. The
record still owns nothing (the manifest lists the echo beside the owner's rendition, flagged; the
coverage validator checks that the fact has its own owner elsewhere and placement reads the echo's
words and value back from the delivered file).

An echoed fact is current and in force on the record's date, owned by another record, not
client-held, contested or reachable only by an evidence route (``excluded``), not in the same
supersession arc as a fact the record holds, and its value is in none of the record's other sentences
nor a client-held fact's value; an echo's words differ from every other sentence stating that fact in
records of the same genre (no sentence is repeated across a genre's long documents: a rule with one
wording is stated once per genre), unless the genre's records never run long (help pages, knowledge-base
archives, support transcripts: :func:`_never_long`). Each place
mirrors a rule that a carrier of the genre in the filler's layout on the topic owns (:func:`_mirrors`): a
rule of its value type first (the type its layout's echoes are furthest behind on, :func:`_behind`), then one
the genre's own records state (the topic's words then say nothing about ownership), of its category, of
about its length, then the one echoed least. A rule is echoed up to its topic's cap (:data:`MAX_ECHOES`,
or in a topic whose fillers have more places than its rules times that, one more than its places per
rule), and up to twice the cap when no rule of the wanted value type is under it.
"""

from __future__ import annotations

import math
import random
import re
from collections import defaultdict
from typing import TYPE_CHECKING

from taugen.authoring.models import Fact
from taugen.authoring.pack import Pack
from taugen.authoring.values import CURRENCY_SYMBOLS, find_surface_form
from taugen.generators.corpus.cues import related
from taugen.generators.corpus.genre import Genre, Rendition, voice_capable
from taugen.generators.corpus.renditions import SpokenWords, canonical_text, voiceable, voiced_text
from taugen.text import LONG_TOKENS

if TYPE_CHECKING:
    from taugen.generators.corpus.planner import Draft

MAX_ECHOES = 3
"""A topic's cap on the records restating one of its rules, unless its fillers' places need more (see the
module's docstring)."""
NEVER_LONG_SHARE = 0.9
"""A genre planned at most this share of a long document's tokens never renders one (rendered records stay
within their planned range; banking hard: knowledge-base archives at most 754 words of a planned 860)."""
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
"""A clock time in a statement (``9:00 AM``, ``14:30``)."""
_DIGIT = re.compile(r"\d")
_AMOUNT = re.compile("[" + re.escape("".join(CURRENCY_SYMBOLS.values())) + r"]\s?\d|\b\d[\d,.]*\s?(?:"
                     + "|".join(CURRENCY_SYMBOLS) + r")\b")
"""An amount of money in a statement (``$25``, ``25 EUR``)."""
_LENGTH_STEP = 40
"""Statements within this many characters of a carrier's rendition count as the same length."""


def plan_echoes(pack: Pack, share: float, rng: random.Random, drafts: list[Draft], owner_of: dict[str, Draft],
                genres: dict[str, Genre], excluded: set[str], spoken: SpokenWords | None = None) -> int:
    """Fill the rule places of fillers in ``drafts`` with echoes, in draft order; returns how many.

    Args:
        pack: the loaded pack (facts, supersession).
        share: the share of a filler's ``rule_slots`` to fill (the tier's ``filler_echoes``, 0-1; each
            place is kept with this probability).
        rng: the echo pass's own generator.
        drafts: every planned record (carriers and fillers); fillers get their echoes placed first in
            their ``renditions``, ahead of any cue, as a carrier's own rules are.
        owner_of: fact id → the draft that owns it.
        genres: registered genres by name (``max_facts`` bounds a record's sentences).
        excluded: fact ids never echoed (client-held, contested, route facts).
        spoken: the pack's spoken wordings, for voiced echoes (a rule that has a voiced wording is voiced
            as often as the genre voices its own such rules).
    """
    if share <= 0:
        return 0
    held_values = [pack.facts[f].value for f in sorted(excluded)
                   if f in pack.facts and pack.facts[f].holder == "client" and pack.facts[f].value is not None]
    by_topic: dict[str, list[Fact]] = defaultdict(list)
    for fact_id in sorted(owner_of):
        fact = pack.facts[fact_id]
        if fact_id not in excluded and pack.is_current(fact_id):
            by_topic[fact.section].append(fact)
    kinds_of: dict[str, tuple[str, str]] = {}  # fact id -> :func:`_kind`, read for every pool fact at every place

    def kind_of(fact: Fact) -> tuple[str, str]:
        if fact.id not in kinds_of:
            kinds_of[fact.id] = _kind(fact)
        return kinds_of[fact.id]

    # the register and kinds of each genre's own rules, and the words already stating each fact in each genre
    voiced: dict[str, list[bool]] = defaultdict(list)
    kinds: dict[tuple[str, ...], list[tuple[str, str, int]]] = defaultdict(list)
    said: dict[tuple[str, str], set[str]] = defaultdict(set)
    for draft in drafts:
        for rendition in draft.owned():
            if voiceable(draft.facts[rendition.fact_id]):  # how often the genre voices a rule that can be
                voiced[draft.genre].append(rendition.register == "voiced")
            model = (*kind_of(draft.facts[rendition.fact_id]), len(rendition.text))
            for key in _mirrors(draft):
                kinds[key].append(model)
            said[(rendition.fact_id, draft.genre)].add(_key(rendition.text))
    wanted: dict[int, int] = {}
    for draft in drafts:
        if draft.owned() or draft.rule_slots <= 0 or any(r.status in ("pointer", "caveat") for r in draft.renditions):
            continue  # a record that points to the client states nothing else
        places = sum(1 for _ in range(draft.rule_slots) if rng.random() < share)
        wanted[id(draft)] = min(places, genres[draft.genre].max_facts - len(draft.renditions))
    # a topic with many fillers and few rules echoes each rule more often, never more than it must
    demand: dict[str, int] = defaultdict(int)
    for draft in drafts:
        demand[draft.topic] += wanted.get(id(draft), 0)
    cap = {topic: max(MAX_ECHOES, math.ceil(demand[topic] / len(facts)) + 1) for topic, facts in by_topic.items()}
    times: dict[str, int] = defaultdict(int)
    placed = 0
    # each layout's echoes keep its own rules' mix of value types: a place takes the type furthest behind it
    types: dict[tuple[str, ...], dict[str, float]] = {}
    for layout in {key for key in kinds if key[0] == "layout"}:
        models = kinds[layout]
        types[layout] = {kind: sum(1 for _c, k, _l in models if k == kind) / len(models)
                         for kind in {k for _c, k, _l in models}}
    echoed: dict[tuple[str, ...], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for draft in drafts:
        if id(draft) not in wanted:
            continue
        genre = genres[draft.genre]
        pool = [f for f in by_topic.get(draft.topic, []) if f.effective_from <= draft.day
                and owner_of[f.id] is not draft and times[f.id] < 2 * cap[draft.topic]]
        rng.shuffle(pool)
        mirrors = _mirrors(draft)
        layout = mirrors[1]
        echoes: list[Rendition] = []
        for _ in range(wanted[id(draft)]):
            # each place mirrors a rule that a carrier of the genre in the record's layout on the topic owns
            # (else the nearest such carriers, :func:`_mirrors`): a rule of its value type (up to twice the
            # cap: popular kinds are quoted more), one the genre's own records state (a search on its
            # subject then finds records of the owner's kind too), of its category, of about its length,
            # then one echoed least
            category, kind, length = rng.choice(next((kinds[key] for key in mirrors if kinds.get(key)),
                                                     [("", "", 0)]))
            order = _behind(types.get(layout, {}), echoed[layout], {kind_of(f)[1] for f in pool}, kind)
            rank = {kind: index for index, kind in enumerate(order)}
            candidates = sorted((f for f in pool if kind_of(f)[1] in rank), key=lambda f: (
                rank[kind_of(f)[1]], times[f.id] >= cap[draft.topic], owner_of[f.id].genre != draft.genre,
                kind_of(f)[0] != category, abs(len(f.statement) - length) // _LENGTH_STEP, times[f.id]))
            for fact in candidates:
                voice = voice_capable(genre) and rng.choice(voiced.get(draft.genre) or [False])
                echo = _echo(fact, draft, echoes, voice, rng, spoken, said, held_values, _never_long(genre))
                if echo is not None:
                    echoes.append(echo)
                    said[(fact.id, draft.genre)].add(_key(echo.text))
                    times[fact.id] += 1
                    echoed[layout][kind_of(fact)[1]] += 1
                    draft.facts[fact.id] = fact
                    pool.remove(fact)
                    break
        draft.renditions[:0] = echoes
        placed += len(echoes)
    return placed


def _mirrors(draft: Draft) -> tuple[tuple[str, ...], ...]:
    """The carriers whose rules a filler's echo places mirror, nearest first, as keys: the genre's records in
    the draft's layout (variant) on its topic, in its layout, on its topic, then the whole genre. A
    genre's layouts are told apart at a glance (a dispute ledger's columns and clock times against a
    service-case ledger's), so a filler that restated the rules of the genre's other layout gave itself
    away: banking hard seed 0's dispute-ledger carriers all stated a span of years and a third of the
    layout's fillers did (numeric reader 0.652, no shuffle of 40 as high)."""
    return (("layout and topic", draft.genre, draft.variant, draft.topic), ("layout", draft.genre, draft.variant),
            ("topic", draft.genre, draft.topic), ("genre", draft.genre))


def _behind(shares: dict[str, float], echoed: dict[str, int], available: set[str], drawn: str) -> list[str]:
    """The value types a layout's next echo may take, best first: of the types in ``available`` (the
    record's pool), the one furthest behind its share of the layout's own rules (``shares``) given the echoes
    placed so far (``echoed``), ``drawn`` (the mirrored carrier's type) on a tie or when no type is behind;
    then the others not yet a whole rule ahead of their share, furthest behind first. A place none of them
    can fill stays empty.

    Drawn from the carrier mirrored alone, a genre's echoes took the mix of the topics its fillers sit on
    and of the rules left under the echo cap: banking hard seed 2's issue trackers, meetings and support
    transcripts restated 8-12 points fewer money rules than they own, which a numeric reader saw (0.658).
    The rest of the order matters when no rule of the first type can be restated in the record (its value
    is there already, its words were used, it would state a client-held value): with only the first type
    ranked, the place took whichever rule of the pool came next, and with every type ranked, the type a
    topic has most of (banking hard seed 1's case-review meetings echoed 21 rules in business days where
    their carriers own 7). Leaving such a place empty costs about one echo in sixty (banking hard seed 1:
    2,242 echoes in 2,309 places, 2,278 when every type was ranked). Over banking hard seeds 0-7, the mean
    total-variation distance between a talk genre's own durations by unit and its echoes' went from 0.16 to
    0.14 (meetings), 0.20 to 0.14 (issue exports), 0.15 to 0.05 (channel exports) and 0.12 to 0.05 (email)
    with this order, the amount kind and fillers dealt evenly over carriers (planner)."""
    total = sum(echoed.values()) + 1
    gaps = {kind: shares.get(kind, 0.0) * total - echoed.get(kind, 0) for kind in available}
    best = max(gaps.values(), default=0.0)
    first = drawn if best <= 0 or gaps.get(drawn, float("-inf")) >= best else \
        min(kind for kind, gap in gaps.items() if gap == best)
    rest = sorted((kind for kind in available if kind != first and gaps[kind] > -1), key=lambda kind: (-gaps[kind], kind))
    return [first] + rest


def _echo(fact: Fact, draft: Draft, echoes: list[Rendition], voice: bool, rng: random.Random,
          spoken: SpokenWords | None, said: dict[tuple[str, str], set[str]], held_values: list,
          never_long: bool) -> Rendition | None:
    """``fact`` restated in ``draft`` (voiced when ``voice`` and the fact has a voiced wording), or None
    when the record holds a version of it or its value already, or the words would repeat a sentence of
    the genre stating it (two long records of a genre never share a sentence: the realism gate; a
    ``never_long`` genre's records never run long), or state a client-held value or another value the record
    holds."""
    if related(fact, draft):
        return None
    kept = [r.text for r in draft.renditions] + [r.text for r in echoes]
    if fact.value is not None and any(find_surface_form(fact.value, text) for text in kept):
        return None
    text, form = voiced_text(fact, rng, spoken) if voice else canonical_text(fact)
    if (not never_long and _key(text) in said[(fact.id, draft.genre)]) or \
            any(find_surface_form(value, text) for value in held_values):
        return None
    if any(find_surface_form(other.value, text) for other in draft.facts.values()
           if other.value is not None and other.id != fact.id):
        return None
    register = "voiced" if voice and text != fact.statement else "canonical"
    return Rendition(fact_id=fact.id, text=text, value_form=form, register=register,  # type: ignore[arg-type]
                     status="current", date=draft.day, echo=True)


def _never_long(genre: Genre) -> bool:
    """Whether no record of ``genre`` can be a long document (the realism gate's repeated-sentence check reads
    only records of :data:`~taugen.text.LONG_TOKENS` tokens or more): it plans every variant's length
    (``spread_words``) at most :data:`NEVER_LONG_SHARE` of that and writes no long documents. Such a genre
    may state a rule in the same words in two records, as help articles and agents quote policy. Held to
    half of it, knowledge-base archives (planned 240-860 tokens) echoed a procedure only when another
    genre owned it, since its own owner had said the one wording: banking hard seed 0's archives restated
    2 procedures' steps against their carriers' 6, and a structure reader saw the steps' comma-rich lines
    (0.675)."""
    spread = genre.spread_words
    ranges = list(spread.values()) if isinstance(spread, dict) else [spread] if spread else []
    covered = isinstance(spread, tuple) or (isinstance(spread, dict) and all(v in spread for v in genre.variants))
    return bool(ranges) and covered and not genre.long_words and \
        max(high for _low, high in ranges) <= NEVER_LONG_SHARE * LONG_TOKENS


def _kind(fact: Fact) -> tuple[str, str]:
    """A rule's kind for matching a genre's own: its category and its value's type ('' without one), a
    duration's with its unit (``duration/years``): a span in days and one in years read differently, and
    echoes that matched the type alone restated years and months where the genre's own rules give days
    (banking seed 1's meeting transcripts: digit day counts 0.25 a carrier, 0.11 a filler; month and
    year counts 0.16 against 0.31; numeric reader 0.662). A text rule's kind says whether its statement
    gives a clock time (``text/clock``: a branch's Saturday hours, a wire cut-off) or other figures
    (``text/figures``): matched on the type alone, knowledge-base fillers restated clock times at less
    than half their carriers' rate (banking seed 1: 0.18 lines a filler, 0.42 a carrier; numeric reader
    0.668, 0.58 without the clock-time counts). A rule of another type whose statement gives an amount of
    money adds ``+amount`` (``cap+amount``: a limit in dollars; ``percent+amount``: "3 %, at least $10"): on
    the type alone, web-screenshot fillers restated amounts in 12 % of their rules against carriers' 18 %
    (banking seed 1)."""
    value = fact.value
    if value is None:
        return fact.category, ""
    if value.type == "text":
        shape = "clock" if _CLOCK.search(fact.statement) else "figures" if _DIGIT.search(fact.statement) else ""
        return fact.category, f"text/{shape}" if shape else "text"
    unit = getattr(value, "unit", None) if value.type == "duration" else None
    kind = f"duration/{unit}" if unit else value.type
    if value.type != "money" and _AMOUNT.search(fact.statement):
        kind += "+amount"
    return fact.category, kind


def _key(text: str) -> str:
    return " ".join(text.lower().split())
