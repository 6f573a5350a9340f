"""Plan the corpus: which artifact owns which fact, in which genre, on which date, in which words.

The plan is the manifest before rendering. Rules:

* every fact has exactly one owner artifact, or is withheld as client-held on the ``hard_client``
  surface, or is an older version of a supersession arc whose history the tier does not render
  (``superseded_share``);
* on the ``sop`` surface the policy document owns every fact (history in its change log) and the
  other genres carry filler only; on ``core`` and ``hard`` the policy document is demoted (it owns
  nothing) and facts spread over genres by affinity;
* the register is decided per fact before its genre: a fact with a voiced wording is voiced with the
  probability that brings the voiced share of all renditions to ``voiced_share`` (capped at every such
  fact), and then goes to a voice-capable genre, unless its affinity drew a long document (a handbook),
  which keeps it in the canonical register so the corpus keeps its scale; facts without a voiced wording
  (text rules, eligibility and rate facts the frames would strip of their condition) stay canonical, so
  the achieved share can be below the request;
* a superseded version is owned by an artifact dated before its successor took effect; its successor
  by one dated on or after ``effective_from`` and never after the snapshot date; the versions of one
  arc sit in records of different genres, and each version has a decision date (``decided_on``, or a
  seeded day before ``effective_from``) recorded in the plan's arcs;
* ``hard_client`` is the ``hard`` plan with a client overlay: the client-held facts are carved out of
  the artifacts that carried them (substitution, never addition: the artifact count does not change);
  each held fact gets a discovery tier: ``pointer`` (a record tells the reader to ask the operations
  lead), ``caveat`` (a record says it is decided case by case) or ``silent``. A few ``holder: both``
  facts become *contested*: at least two records state distinct wrong values (decoys) while the owner
  keeps the right one; the client settles it;
* evidence routes: a fact's value sits in a schedule or handbook, and a conversation or email dated
  later points to that record by its kind and date ("it's in the fee schedule dated March 3, 2025");
* the modality profile decides which media the records use; an artifact of a medium outside the
  profile (or over the call budget) is substituted into its text counterpart, keeping its renditions
  (recorded in ``modality_substitutions``): a rendition moves medium, it is never duplicated;
* fillers: ``filler_ratio`` per carrier, spread over genres and variants in proportion to the carriers,
  so that a record's kind says nothing about whether it carries a fact, and at least one per genre; a
  filler's rule places (``rule_slots``, dealt from its genre's carriers' counts) restate rules of its topic
  that other records own (echoes, ``filler_echoes``; :mod:`taugen.generators.corpus.echoes`), rendered as
  a carrier's own rules are, so stating rules with figures does not tell the two apart;
* long documents (``long_documents``): each artifact of a long-form genre gets a ``target_words``
  drawn log-uniformly from the genre's range, carriers and fillers alike;
* spread lengths: a genre that declares ``spread_words`` (``(low, high)``, or per variant; call recordings,
  slide decks, support transcripts, knowledge-base exports, web and app screenshots, meeting transcripts,
  decision registers, spreadsheets: genres whose records the length gate or a strong reader measures) gets
  ``length_words`` stratified over its artifacts that share a range (one stratum each, dealt in a seeded
  order, carriers and fillers each over the whole range), so its lengths cover the range at every seed
  instead of bunching by chance and say nothing of which records carry rules; the genre's renderer grows or
  trims its own content to that length. A genre with one range per variant whose stratified lengths would
  still bunch when its variants are counted together (a narrow range holding most of the genre's records,
  overlapping a wide one) is re-dealt over all its records at once (:func:`_rebalance_lengths`).

All choices draw from generators seeded by the build seed and stable ids.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from taugen.authoring.models import Fact
from taugen.authoring.pack import Pack
from taugen.authoring.values import (
    CapValue,
    CountValue,
    DurationValue,
    MoneyValue,
    PercentValue,
    find_surface_form,
)
from taugen.generators.corpus.genre import ArtifactPlan, Genre, Rendition, voice_capable
from taugen.hashing import stable_seed
from taugen.generators.corpus.cues import Hosts, plan_mentions
from taugen.generators.corpus.echoes import plan_echoes
from taugen.generators.corpus.renditions import (
    SpokenWords,
    canonical_text,
    cue_text,
    decoy_text,
    voiceable,
    voiced_text,
)
from taugen.generators.corpus.vocabulary import DomainVocabulary, load_vocabulary
from taugen.generators.tiers import MODALITIES, Surface, TierPreset
from taugen.text import LENGTH_BUCKET, LENGTH_MAX_SHARE, LENGTH_MIN_ARTIFACTS, LENGTH_MIN_BUCKETS

POLICY_DOCUMENT = "policy_document"

MEASURED_CARRIERS = 30
"""The carriers a genre should have for a carrier-vs-filler reader to measure it: below that, a genre's
carriers hold fewer rules each (down to one). A reader is scored per genre, and on a dozen carriers its
cross-validated ROC AUC swings by about 0.09 on labels that mean nothing (banking hard seed 0's
knowledge-base archives, 15 carriers: 8 % of 60 label shuffles scored over 0.65), so such a genre's score
said more about the draw than about its records; thirty carriers cut that swing to about 0.065."""
FILLER_DAYS = dt.timedelta(days=30)
"""How far a filler's day may be from its model carrier's day (either way, within the days its model's rules
are all in force). Drawn over the whole of those days, fillers' months and seasons followed the rules' spans
rather than the carriers' days, and a genre's fillers could sit in another season than its carriers (see
:func:`_models`); a month either way keeps the season and still spreads a model's fillers over weeks."""
CALL_BUDGETED = frozenset({"call_recording"})
"""Genres whose record count the tier's call budget caps (fewer rules a record would only move rules out)."""
_NUMERIC = ("money", "percent", "duration", "count", "cap")
_DISCOVERY_TIERS = ("pointer", "caveat", "silent")


@dataclass
class CorpusPlan:
    """The planned corpus.

    Attributes:
        surface: the evidence surface achieved.
        artifacts: every artifact plan (carriers and fillers), ordered by id.
        client_held: ids of facts withheld from the records (known only to the simulated client).
        client_confirmable: ids of facts in the records that the client can also confirm.
        policy_owns: True when the policy document carries the facts (``sop``).
        modality: the modality profile the records use.
        history_facts: superseded fact ids whose version is rendered (in a record or the policy's
            change log); older versions of the other arcs are not in the records.
        arcs: per supersession arc, its versions with status, decision date, owner and record date.
        discovery: held fact id → ``{tier, artifact, text}`` (artifact and text empty when silent).
        contested: fact id → ``{current, owner, decoys: [{artifact, text, value, value_form}]}``.
        routes: evidence routes: ``{id, fact_id, hops: [{from, to, text, anchor_title, anchor_date}]}``.
        modality_substitutions: ``{artifact, from_genre, from_variant, to_genre, to_variant, reason}``.
        overlay: artifacts the client overlay changed: ``{artifact, removed: [fact ids]}``.
        requested: what the planner was asked for (surface, modality).
    """

    surface: Surface
    artifacts: list[ArtifactPlan]
    client_held: list[str] = field(default_factory=list)
    client_confirmable: list[str] = field(default_factory=list)
    policy_owns: bool = False
    modality: str = "text"
    history_facts: list[str] = field(default_factory=list)
    arcs: list[dict[str, Any]] = field(default_factory=list)
    discovery: dict[str, dict[str, str]] = field(default_factory=dict)
    contested: dict[str, dict[str, Any]] = field(default_factory=dict)
    routes: list[dict[str, Any]] = field(default_factory=list)
    modality_substitutions: list[dict[str, str]] = field(default_factory=list)
    overlay: list[dict[str, Any]] = field(default_factory=list)
    requested: dict[str, Any] = field(default_factory=dict)


def owner_genres(plan: CorpusPlan) -> dict[str, str]:
    """Fact id → the genre of the record that owns it (states it as current or superseded), for every fact
    a record of ``plan`` owns; facts no record owns (client-held, unrendered history, the policy's) are
    absent."""
    return {rendition.fact_id: artifact.genre for artifact in plan.artifacts for rendition in artifact.renditions
            if rendition.owns}


@dataclass
class Draft:
    """An artifact before it has an id (ids are given once substitutions are done)."""

    genre: str
    variant: str
    topic: str
    day: dt.date
    renditions: list[Rendition]
    facts: dict[str, Fact]
    target_words: int = 0
    length_words: int = 0
    rule_slots: int = 0
    artifact_id: str = ""

    def owned(self) -> list[Rendition]:
        """The renditions of the facts this record owns (no cues, no echoes)."""
        return [r for r in self.renditions if r.owns]

    def stated(self) -> list[Rendition]:
        """The rules this record states with their values: the ones it owns and its echoes."""
        return [r for r in self.renditions if r.states_rule]


def resolve_surface(preset: TierPreset, pack: Pack) -> Surface:
    """``hard`` becomes ``hard_client`` when the pack has client-held facts (DESIGN.md §4)."""
    if preset.surface == "hard" and any(f.holder == "client" for f in pack.facts.values()):
        return "hard_client"
    return preset.surface


def genre_medium(name: str, genre: Genre) -> str:
    """``text``, ``image`` or ``audio``: the medium a genre's delivered files are read in."""
    return genre.medium


def _date_range(pack: Pack, fact: Fact, status: str) -> tuple[dt.date, dt.date]:
    """Days on which a record may state ``fact`` with ``status``."""
    snapshot = pack.config.snapshot_date
    if status == "superseded":
        newer = pack.facts[pack.superseded_by(fact.id)]  # type: ignore[index]
        return fact.effective_from, newer.effective_from - dt.timedelta(days=1)
    return fact.effective_from, min(snapshot, pack.now.date())


def _common_range(pack: Pack, stated: list[tuple[Fact, str]]) -> tuple[dt.date, dt.date]:
    """``(first, last)``: the days on which a record may state every ``(fact, status)`` of ``stated``
    (the intersection of their :func:`_date_range`; ``first`` after ``last`` when there is none)."""
    ranges = [_date_range(pack, fact, status) for fact, status in stated]
    return max(r[0] for r in ranges), min(r[1] for r in ranges)


def _models(carriers: list[Draft], number: int, rng: random.Random) -> list[Draft | None]:
    """The carrier each of ``number`` fillers follows: ``carriers`` in a seeded order, dealt round so that
    each is the model of as many fillers as any other, give or take one (``[None] * number`` without
    carriers). Drawn one at a time, a genre's fillers took their dates from a sample of its carriers, and at a
    couple of dozen carriers that sample's seasons could stray far from the carriers' own (banking hard seed
    0's case ledgers: 64 % of carriers in standard time against 38 % of fillers, which a TF-IDF reader saw as
    soon as timestamps carried the season's UTC offset: 0.724)."""
    if not carriers:
        return [None] * number
    order = list(carriers)
    rng.shuffle(order)
    return [order[index % len(order)] for index in range(number)]


def _to_business_day(draft: Draft, pack: Pack, now_day: dt.date, rng: random.Random) -> None:
    """Move a weekend ``draft.day`` to a weekday of the week it falls in or the week after (Monday to
    Friday, drawn from ``rng`` among the days every owned rule's :func:`_date_range` allows, not after
    ``now_day`` nor before the history start); the owned renditions dated that day move with it. A day with
    no such weekday (a rule in force only over one weekend) is kept, and the genre's own check names it.
    Moved to the nearest weekday instead, a Saturday's records landed on Fridays and a Sunday's on Mondays,
    and a new user counted banking hard seed 0's emails sent on a Friday 212 times, on a Tuesday 69."""
    if draft.day.weekday() < 5:
        return
    low, high = pack.config.history_start, now_day
    for rendition in draft.owned():
        first, last = _date_range(pack, pack.facts[rendition.fact_id], rendition.status)
        low, high = max(low, first), min(high, last)
    monday = draft.day - dt.timedelta(days=draft.day.weekday())
    days = [monday + dt.timedelta(days=step) for step in (0, 1, 2, 3, 4, 7, 8, 9, 10, 11)]
    allowed = [day for day in days if low <= day <= high]
    if not allowed:
        return
    day = rng.choice(allowed)
    draft.renditions = [replace(r, date=day) if r.owns and r.date == draft.day else r for r in draft.renditions]
    draft.day = day


def _pick_genre(fact: Fact, available: dict[str, Genre], rng: random.Random, words: DomainVocabulary,
                exclude: set[str] = frozenset(), voiced: bool = False) -> tuple[str, str]:  # type: ignore[assignment]
    """A (genre, variant) for ``fact``, drawn by the genres' declared affinity for its value type,
    avoiding the genres in ``exclude`` when another one fits; only voice-capable genres when ``voiced``.
    The variant is the one the genre gives the fact (:meth:`~taugen.generators.corpus.genre.Genre.variant_for`,
    reading the pack's vocabulary ``words``), the drawn one by default."""
    genre, variant = _drawn_genre(fact, available, rng, exclude, voiced)
    return genre, available[genre].variant_for(fact, variant, words)


def _drawn_genre(fact: Fact, available: dict[str, Genre], rng: random.Random, exclude: set[str],
                 voiced: bool) -> tuple[str, str]:
    """:func:`_pick_genre`'s draw, before the genre adjusts the variant."""
    key = fact.value.type if fact.value is not None else "none"
    options = [(name, variant, weight) for name, genre in sorted(available.items())
               for value_type, variant, weight in genre.affinity if value_type == key and genre.accepts(fact)]
    if voiced:
        spoken = [option for option in options if voice_capable(available[option[0]])]
        if any(name not in exclude for name, _, _ in spoken) or (spoken and not exclude):
            options = spoken  # else the arc's other versions took every voiced genre: a document keeps it
    if exclude and any(name not in exclude for name, _, _ in options):
        options = [option for option in options if option[0] not in exclude]
    if not options:
        options = [("email_thread", "", 1)] if "email_thread" in available else [(next(iter(available)), "", 1)]
    total = sum(weight for _, _, weight in options)
    ticket = rng.uniform(0, total)
    for genre, variant, weight in options:
        ticket -= weight
        if ticket <= 0:
            return genre, variant
    return options[-1][0], options[-1][1]


def _long_range(genre: Genre, variant: str) -> tuple[int, int] | None:
    """The genre's long-document range in words for ``variant`` (its own, else its any-variant one)."""
    declared = genre.long_words.get(variant) or genre.long_words.get("")
    return (int(declared[0]), int(declared[1])) if declared else None


def _holders(pack: Pack, members: list[tuple[Fact, str]], capacity: int,
             rng: random.Random) -> list[tuple[dt.date, list[tuple[Fact, str]]]]:
    """``members`` (one genre's rules of one section and status, in date order) cut into records of at most
    ``capacity`` rules (each between half of it and all of it, drawn), each rule in force on the record's
    date: ``[(date, [(fact, status), ...]), ...]``."""
    holders: list[tuple[dt.date, list[tuple[Fact, str]]]] = []
    chunk: list[tuple[Fact, str]] = []
    for fact, fact_status in members + [(None, "")]:  # type: ignore[list-item]
        if fact is not None:
            low, high = _common_range(pack, chunk + [(fact, fact_status)])
            if low <= high and len(chunk) < rng.randint(max(1, capacity // 2), capacity):
                chunk.append((fact, fact_status))
                continue
        if chunk:
            low, high = _common_range(pack, chunk)
            holders.append((low + dt.timedelta(days=rng.randint(0, max(0, (high - low).days))), chunk))
        chunk = [(fact, fact_status)] if fact is not None else []
    return holders


def plan_corpus(pack: Pack, preset: TierPreset, seed: int, available: dict[str, Genre],
                surface: str | None = None, modality: str | None = None,
                vocabulary: DomainVocabulary | None = None) -> CorpusPlan:
    """Plan every artifact of the corpus for ``pack`` at ``preset``.

    Args:
        pack: the loaded pack.
        preset: tier knobs (surface, voiced share, filler ratio, call budget, modality, routes ...).
        seed: the build seed.
        available: registered genres by name (the policy document is planned by the build stage).
        surface: evidence surface overriding the tier's (``sop``, ``core``, ``hard``, ``hard_client``).
        modality: modality profile overriding the tier's.
        vocabulary: the pack's corpus vocabulary (default: read from the pack folder); its ``spoken``
            section words the subjects of voiced renditions as people say them.

    Returns:
        the :class:`CorpusPlan`; artifacts sorted by ``artifact_id``.

    Raises:
        KeyError: an unknown surface or modality profile.
    """
    preset = preset.with_overrides(surface=surface, modality=modality)
    words = vocabulary or load_vocabulary(pack.directory)
    spoken: SpokenWords = words.words("spoken")  # type: ignore[assignment]
    rng = random.Random(stable_seed(seed, preset.name, "corpus"))
    achieved_surface: Surface = resolve_surface(preset, pack) if surface is None else preset.surface
    sections = {section.id: section.title for section in pack.config.sections}
    genres_all = {name: genre for name, genre in available.items() if name != POLICY_DOCUMENT}
    media = set(preset.modality.split("+"))
    now_day = min(pack.config.snapshot_date, pack.now.date())
    policy_owns = achieved_surface == "sop"

    # ---- supersession arcs: which histories are rendered, decision dates --------------------------------
    arcs = pack.arcs()
    arc_rng = random.Random(stable_seed(seed, preset.name, "arcs"))
    shown = set(map(tuple, arc_rng.sample(arcs, round(len(arcs) * preset.superseded_share)))) if arcs else set()
    history_facts = sorted(f for arc in arcs if tuple(arc) in shown for f in arc[:-1]
                           if pack.facts[f].effective_from <= pack.now.date())
    decided = {}
    for arc in arcs:
        floor = pack.config.history_start
        for fact_id in arc:
            fact = pack.facts[fact_id]
            if fact.decided_on is not None:
                day = fact.decided_on
            else:
                lead = arc_rng.randint(12, 75)
                day = max(floor, fact.effective_from - dt.timedelta(days=lead))
            decided[fact_id] = min(day, fact.effective_from)
            floor = fact.effective_from + dt.timedelta(days=1)

    drafts: list[Draft] = []
    owner_of: dict[str, Draft] = {}
    if not policy_owns:
        groups: dict[tuple[str, str, str, str], list[tuple[Fact, str]]] = {}
        arc_genres: dict[str, set[str]] = {}
        arc_of = {fact_id: tuple(arc) for arc in arcs for fact_id in arc}
        rendered: list[tuple[Fact, str]] = []
        for fact in pack.facts.values():
            status = "current" if pack.is_current(fact.id) else "superseded"
            if fact.effective_from > pack.now.date():
                continue  # announced for later: not policy yet and not rendered
            if status == "superseded" and fact.id not in history_facts:
                continue  # this tier keeps only the arc's current version in the records
            rendered.append((fact, status))
        # The register is decided per fact before its genre: a fact drawn to be voiced goes to a genre
        # where people talk. Only facts that have a voiced wording can be voiced, so they are drawn with
        # the probability that makes the voiced share of all renditions meet the tier's request.
        can_voice = {fact.id for fact, _ in rendered if voiceable(fact)}
        voice_p = min(1.0, preset.voiced_share * len(rendered) / len(can_voice)) if can_voice else 0.0
        voice_of: dict[str, bool] = {}
        for fact, status in rendered:
            voice = fact.id in can_voice and rng.random() < voice_p
            arc = arc_of.get(fact.id)
            used = arc_genres.setdefault(arc[0], set()) if arc else set()
            genre, variant = _pick_genre(fact, genres_all, rng, words, used)
            if voice and (not voice_capable(genres_all[genre]) or (arc and genre == "call_recording")):
                if _long_range(genres_all[genre], variant) and preset.long_documents > 0:
                    voice = False  # long documents (handbooks) keep their facts: the corpus keeps its scale
                else:
                    # calls over the budget become support transcripts: an arc's versions avoid calls
                    avoid = used | {"call_recording"} if arc else used
                    genre, variant = _pick_genre(fact, genres_all, rng, words, avoid, voiced=True)
            voice_of[fact.id] = voice
            used.add(genre)
            groups.setdefault((genre, variant, fact.section, status), []).append((fact, status))
        # each genre's rules into records: at most its capacity a record, fewer when that leaves the genre
        # too few carriers to measure (the call budget caps calls whatever their capacity)
        by_genre: dict[str, list[tuple[str, str, str, list[tuple[Fact, str]]]]] = defaultdict(list)
        for (genre, variant, section, status), members in sorted(groups.items()):
            # in date order, a day's facts in a seeded order rather than by id: ids put a family's members
            # side by side (the Saturday hours of six branches in one export), and a record holding a whole
            # family is found by searching any member's subject words
            members.sort(key=lambda item: (item[0].effective_from, stable_seed(seed, "holder order", item[0].id)))
            by_genre[genre].append((variant, section, status, members))
        for genre in sorted(by_genre):
            capacity = genres_all[genre].max_facts
            while True:
                holder_rng = random.Random(stable_seed(seed, preset.name, "holders", genre, capacity))
                holders = [(variant, section, day, chunk) for variant, section, _status, members in by_genre[genre]
                           for day, chunk in _holders(pack, members, capacity, holder_rng)]
                if len(holders) >= MEASURED_CARRIERS or capacity == 1 or genre in CALL_BUDGETED:
                    break
                capacity -= 1
            for variant, section, day, chunk in holders:
                renditions = [_rendition(f, s, day, genres_all[genre], voice_of[f.id], rng, spoken) for f, s in chunk]
                draft = Draft(genre, variant or genres_all[genre].variants[0], section, day, renditions,
                              {f.id: f for f, _ in chunk})
                drafts.append(draft)
                for f, _ in chunk:
                    owner_of[f.id] = draft

    # ---- fillers, spread like the carriers ----------------------------------------------------------------
    carriers = len(drafts)
    fillers = max(len(genres_all), round(carriers * preset.filler_ratio))
    weights: dict[tuple[str, str], int] = {}
    for draft in drafts:
        weights[(draft.genre, draft.variant)] = weights.get((draft.genre, draft.variant), 0) + 1
    genre_names = sorted(genres_all)
    for name in genre_names:  # every genre appears at least once
        if not any(g == name for g, _ in weights):
            weights[(name, genres_all[name].variants[0])] = 0
    keys = sorted(weights)
    total_weight = sum(weights.values()) or 1
    quota = {key: weights[key] * fillers / total_weight for key in keys}
    counts = {key: int(math.floor(quota[key])) for key in keys}
    for name in genre_names:
        if not any(counts[k] for k in keys if k[0] == name):
            first = next(k for k in keys if k[0] == name)
            counts[first] = 1
    remainder = fillers - sum(counts.values())
    for key in sorted(keys, key=lambda k: (-(quota[k] - math.floor(quota[k])), k))[:max(0, remainder)]:
        counts[key] += 1
    # A filler's topic and date follow a carrier of its genre and variant (else of its genre, else any), so
    # that neither the subject a record is about, nor when it was written, nor which of its genre's layouts it
    # takes says whether it carries a rule. Each carrier is the model of as many fillers as any other (give or
    # take one), and a filler is dated within FILLER_DAYS of its model's day, on a day its model's rules are
    # all in force: its month and season are its model's (see FILLER_DAYS). A model of the genre's other
    # variant put dispute-ledger fillers on service topics (banking hard seed 0: every dispute-ledger carrier
    # stated a span of years, a third of its fillers did, and a numeric reader told them apart by day counts
    # beside the layout's clock-time density, 0.652). Always the model's topic: with one filler in seven on a
    # section drawn at random, a genre's fillers sat on topics where it holds no rule (banking hard seed 2:
    # six issue-tracker fillers on overdraft, no carrier there), and their restated rules took the whole
    # pack's mix of value types instead of the genre's (echoes 31 % money against its own rules' 43 %), which
    # the numeric reader saw (0.658).
    section_ids = sorted(sections)
    span = (pack.config.snapshot_date - pack.config.history_start).days
    carrier_drafts = list(drafts)
    for (genre, variant), number in sorted(counts.items()):
        like = ([d for d in carrier_drafts if (d.genre, d.variant) == (genre, variant)]
                or [d for d in carrier_drafts if d.genre == genre] or carrier_drafts)
        for model in _models(like, number, rng):
            if model is not None:
                topic = model.topic
                low, high = _common_range(pack, [(pack.facts[r.fact_id], r.status) for r in model.owned()])
                low, high = max(low, model.day - FILLER_DAYS), min(high, model.day + FILLER_DAYS)
                day = low + dt.timedelta(days=rng.randint(0, max(0, (high - low).days)))
            else:
                topic = rng.choice(section_ids)
                day = pack.config.history_start + dt.timedelta(days=rng.randint(30, span))
            drafts.append(Draft(genre, variant or genres_all[genre].variants[0], topic, min(day, now_day), [], {}))

    # ---- modality profile and the call budget: substitute, never add --------------------------------------
    arc_members = {fact_id: arc for arc in arcs for fact_id in arc}

    def arc_siblings(fact_id: str) -> list[Draft]:
        return [owner_of[f] for f in arc_members.get(fact_id, []) if f in owner_of]

    substitutions: list[tuple[Draft, str, str, str]] = []
    budget = {name: (preset.max_calls, max(1, preset.max_calls // 2) if preset.max_calls else 0) for name in CALL_BUDGETED}
    used_calls = {True: 0, False: 0}
    for draft in drafts:
        genre = genres_all[draft.genre]
        medium = genre_medium(draft.genre, genre)
        reason = ""
        if medium not in media:
            reason = "profile"
        elif draft.genre in budget:
            carrier = bool(draft.renditions)
            limit = budget[draft.genre][0 if carrier else 1]
            if used_calls[carrier] >= limit:
                reason = "budget"
            else:
                used_calls[carrier] += 1
        if not reason:
            continue
        targets = [genre.substitute, ("email_thread", ""),
                   ("support_transcript", "phone")]
        # when an arc's other versions already sit in all of those, any other genre people talk or write in
        # (an arc's versions must sit in different genres)
        targets += [(name, "") for name in sorted(genres_all) if name != draft.genre
                    and voice_capable(genres_all[name]) and genre_medium(name, genres_all[name]) in media]
        taken = {sibling.genre for fact_id in draft.facts for sibling in arc_siblings(fact_id) if sibling is not draft}
        fitting = [t for t in targets if t and t[0] in genres_all
                   and len(draft.renditions) <= genres_all[t[0]].max_facts]
        target = next((t for t in fitting if t[0] not in taken), fitting[0] if fitting else None)
        if target is None:
            continue
        substitutions.append((draft, draft.genre, draft.variant, reason))
        draft.genre, draft.variant = target[0], target[1] or genres_all[target[0]].variants[0]

    # ---- business days: staff meet on weekdays ------------------------------------------------------------
    weekdays = random.Random(stable_seed(seed, preset.name, "business days"))
    for draft in drafts:
        if genres_all[draft.genre].business_days:
            _to_business_day(draft, pack, now_day, weekdays)

    # ---- long documents ---------------------------------------------------------------------------------
    long_rng = random.Random(stable_seed(seed, preset.name, "lengths"))
    for draft in drafts:
        bounds = _long_range(genres_all[draft.genre], draft.variant)
        if bounds and preset.long_documents > 0:
            low, high = bounds
            high = max(low, int(low + (high - low) * preset.long_documents))
            draft.target_words = int(round(math.exp(long_rng.uniform(math.log(low), math.log(high)))))
    _spread_lengths(drafts, genres_all, seed, preset.name)

    # ---- client overlay, contested facts, routes ---------------------------------------------------------
    client_held: list[str] = []
    confirmable: list[str] = []
    discovery: dict[str, dict[str, str]] = {}
    contested: dict[str, dict[str, Any]] = {}
    overlay: list[dict[str, Any]] = []
    cue_rng = random.Random(stable_seed(seed, preset.name, "cues"))
    hosts = Hosts(drafts, genres_all, spoken, preset.voiced_share, random.Random(stable_seed(seed, preset.name,
                                                                                              "mention wording")),
                  published_in=words.common.published_in)
    if achieved_surface == "hard_client":
        client_held = sorted(f.id for f in pack.facts.values() if f.holder == "client"
                             and f.effective_from <= pack.now.date())
        tiers = [_DISCOVERY_TIERS[i % 3] for i in range(len(client_held))]
        cue_rng.shuffle(tiers)
        carved: dict[int, list[str]] = {}
        for fact_id, tier_name in zip(client_held, tiers):
            fact = pack.facts[fact_id]
            draft = owner_of.pop(fact_id, None)
            if draft is not None:
                draft.renditions = [r for r in draft.renditions if r.fact_id != fact_id]
                carved.setdefault(id(draft), []).append(fact_id)
                draft.facts = {k: v for k, v in draft.facts.items() if k != fact_id}
            entry = {"tier": tier_name, "artifact": "", "text": ""}
            if tier_name != "silent":
                host = hosts.pick(cue_rng, fact, after=fact.effective_from, prefer=draft, avoid_values=[fact.value])
                if host is None:
                    entry["tier"] = "silent"
                else:
                    text = cue_text(fact, tier_name, cue_rng)
                    hosts.add(host, Rendition(fact_id, text, "", "voiced", tier_name, host.day), fact)  # type: ignore[arg-type]
                    entry.update(text=text, host=id(host))  # type: ignore[arg-type]
            discovery[fact_id] = entry
        for draft in drafts:
            if id(draft) in carved:
                overlay.append({"draft": draft, "removed": sorted(carved[id(draft)])})
        contested_ids = _choose_contested(pack, preset, cue_rng, client_held, owner_of, history_facts)
        for fact_id in contested_ids:
            fact = pack.facts[fact_id]
            owner = owner_of[fact_id]
            values = _decoy_values(fact, pack, cue_rng)
            decoys = []
            used: list[Draft] = [owner]
            for value in values:
                host = hosts.pick(cue_rng, fact, after=max(fact.effective_from, owner.day) + dt.timedelta(days=1),
                                  exclude=used, avoid_values=[fact.value, value])
                if host is None:
                    continue
                text, form = decoy_text(fact, value, cue_rng)
                if not form or find_surface_form(fact.value, text) is not None:  # type: ignore[arg-type]
                    continue
                hosts.add(host, Rendition(fact_id, text, form, "voiced", "decoy", host.day), fact)  # type: ignore[arg-type]
                used.append(host)
                decoys.append({"host": id(host), "text": text, "value": value.model_dump(mode="json"),
                               "value_form": form})
                if len(decoys) == 2 + (len(contested) % 2):
                    break
            if len(decoys) >= 2:
                contested[fact_id] = {"current": fact.statement, "owner": owner, "decoys": decoys}
            else:  # could not place two decoys: take them back out
                for decoy in decoys:
                    host = hosts.by_id[decoy["host"]]
                    host.renditions = [r for r in host.renditions if not (r.fact_id == fact_id and r.status == "decoy")]
        confirmable = sorted(f.id for f in pack.facts.values() if f.holder == "both" and f.id not in contested
                             and f.effective_from <= pack.now.date())

    routes: list[dict[str, Any]] = []
    if not policy_owns and preset.evidence_routes > 0:
        routes = _plan_routes(pack, preset, cue_rng, drafts, owner_of, hosts, genres_all,
                              excluded=set(client_held) | set(contested))

    _draw_rule_slots(drafts, random.Random(stable_seed(seed, preset.name, "rule slots")))
    unechoed = set(client_held) | set(contested) | {route["fact_id"] for route in routes}
    if preset.filler_echoes > 0 and not policy_owns:
        plan_echoes(pack, preset.filler_echoes, random.Random(stable_seed(seed, preset.name, "echoes")), drafts,
                    owner_of, genres_all, excluded=unechoed, spoken=spoken)

    if preset.filler_mentions > 0 and not policy_owns:
        plan_mentions(pack, preset, random.Random(stable_seed(seed, preset.name, "mentions")), hosts,
                       owner_of, excluded=unechoed, seed=seed)

    # ---- ids, times, plans ------------------------------------------------------------------------------
    counters: dict[str, int] = {}
    plans: list[ArtifactPlan] = []
    by_draft: dict[int, ArtifactPlan] = {}
    for draft in drafts:
        counters[draft.genre] = counters.get(draft.genre, 0) + 1
        draft.artifact_id = f"{draft.genre}_{counters[draft.genre]:03d}"
        end, start = _times(genres_all[draft.genre], draft.day, rng, pack)
        plan = ArtifactPlan(artifact_id=draft.artifact_id, genre=draft.genre, topic=draft.topic,
                            topic_title=sections[draft.topic], start=start, end=end, renditions=draft.renditions,
                            facts=draft.facts, seed=stable_seed(seed, preset.name, draft.artifact_id),
                            variant=draft.variant, target_words=draft.target_words,
                            length_words=draft.length_words, rule_slots=draft.rule_slots)
        plans.append(plan)
        by_draft[id(draft)] = plan
    aid = {key: plan.artifact_id for key, plan in by_draft.items()}
    for entry in discovery.values():
        host = entry.pop("host", None)  # type: ignore[arg-type]
        entry["artifact"] = aid[host] if host is not None else ""  # type: ignore[index]
    contested_out = {}
    for fact_id, entry in contested.items():
        contested_out[fact_id] = {
            "current": entry["current"], "owner": entry["owner"].artifact_id,
            "decoys": [{"artifact": aid[d["host"]], "text": d["text"], "value": d["value"],
                        "value_form": d["value_form"]} for d in entry["decoys"]]}
    for route in routes:
        for hop in route["hops"]:
            hop["from"] = aid[hop.pop("from_draft")]
            hop["to"] = aid[hop.pop("to_draft")]
    substitutions_out = [{"artifact": draft.artifact_id, "from_genre": genre, "from_variant": variant,
                          "to_genre": draft.genre, "to_variant": draft.variant, "reason": reason}
                         for draft, genre, variant, reason in substitutions]
    overlay_out = [{"artifact": entry["draft"].artifact_id, "removed": entry["removed"],
                    "carrier_after": any(r.owns for r in entry["draft"].renditions)}
                   for entry in overlay]
    arcs_out = []
    for arc in arcs:
        versions = []
        for position, fact_id in enumerate(arc):
            fact = pack.facts[fact_id]
            owner = owner_of.get(fact_id)
            if fact.effective_from > pack.now.date():
                status = "announced"
            else:
                status = "final_current" if pack.is_current(fact_id) else "superseded"
            versions.append({"fact_id": fact_id, "status": status, "decision_date": decided[fact_id].isoformat(),
                             "effective_from": fact.effective_from.isoformat(),
                             "owner": owner.artifact_id if owner is not None and fact_id not in client_held else None,
                             "genre": owner.genre if owner is not None else None,
                             "record_date": owner.day.isoformat() if owner is not None else None})
        arcs_out.append({"arc_id": arc[-1], "history_rendered": tuple(arc) in shown, "versions": versions})
    return CorpusPlan(surface=achieved_surface, artifacts=sorted(plans, key=lambda p: p.artifact_id),
                      client_held=client_held, client_confirmable=confirmable, policy_owns=policy_owns,
                      modality=preset.modality, history_facts=history_facts, arcs=arcs_out, discovery=discovery,
                      contested=contested_out, routes=routes, modality_substitutions=substitutions_out,
                      overlay=overlay_out,
                      requested={"surface": preset.surface, "modality": preset.modality})


def _choose_contested(pack: Pack, preset: TierPreset, rng: random.Random, held: list[str],
                      owner_of: dict[str, Draft], history_facts: list[str]) -> list[str]:
    """``holder: both`` facts (then facts tagged ``contested``) with a numeric value, current, owned
    by a record: at most ``preset.contested`` of them."""
    candidates = [f for f in pack.facts.values()
                  if (f.holder == "both" or "contested" in f.tags) and f.value is not None
                  and f.value.type in _NUMERIC and pack.is_current(f.id) and f.id in owner_of and f.id not in held]
    candidates.sort(key=lambda f: (f.holder != "both", f.id))
    return [f.id for f in candidates[:preset.contested]]


def _decoy_values(fact: Fact, pack: Pack, rng: random.Random) -> list:
    """Plausible wrong values of the same type, distinct from the true value and from every older
    version of the fact (a decoy must not read as history)."""
    value = fact.value
    older = set()
    node = fact.supersedes
    while node:
        older_value = pack.facts[node].value
        if older_value is not None:
            older.add(older_value.canonical())
        node = pack.facts[node].supersedes

    def money(amount: Decimal) -> list[Decimal]:
        steps = [Decimal("0.8"), Decimal("1.2"), Decimal("1.5"), Decimal("0.5"), Decimal("1.25"), Decimal("0.75")]
        out = []
        for step in steps:
            candidate = amount * step
            unit = Decimal("5") if amount >= 20 else Decimal("1")
            if amount >= 1000:
                unit = Decimal("500")
            candidate = (candidate / unit).quantize(Decimal("1")) * unit
            out.append(candidate.quantize(Decimal("0.01")))
        out += [amount + 5, amount - 5 if amount > 5 else amount + 10]
        return out

    found: list = []
    if isinstance(value, MoneyValue):
        candidates = [MoneyValue(amount=a, currency=value.currency) for a in money(value.amount) if a > 0]
    elif isinstance(value, CapValue):
        amounts = money(value.amount) if value.currency else [value.amount + d for d in (1, 2, -1, 3)]
        candidates = [value.model_copy(update={"amount": a}) for a in amounts if a > 0]
    elif isinstance(value, PercentValue):
        candidates = [PercentValue(value=v) for v in (value.value + 1, value.value - 1, value.value * 2,
                                                      value.value + Decimal("0.5")) if v > 0]
    elif isinstance(value, DurationValue):
        amount = value.amount
        candidates = [DurationValue(amount=a, unit=value.unit) for a in
                      (amount * 2, amount + 5, max(1, amount // 2), amount + 2, amount - 2) if a > 0]
    elif isinstance(value, CountValue):
        candidates = [CountValue(value=v, unit=value.unit) for v in (value.value + 1, value.value + 2,
                                                                     value.value - 1) if v > 0]
    else:
        return []
    rng.shuffle(candidates)
    seen = {value.canonical()} | older
    for candidate in candidates:
        if candidate.canonical() in seen:
            continue
        seen.add(candidate.canonical())
        found.append(candidate)
    return found


def _plan_routes(pack: Pack, preset: TierPreset, rng: random.Random, drafts: list[Draft],
                 owner_of: dict[str, Draft], hosts: Hosts, genres: dict[str, Genre],
                 excluded: set[str]) -> list[dict[str, Any]]:
    """Pick up to ``preset.evidence_routes`` facts owned by a schedule or handbook whose date names it
    uniquely among records of its kind, and point to it from a later conversation or thread.

    Routes go to distinct records while there are any; then a record already pointed to may take a
    second route for another of its facts (never the same fact twice, never the same host twice)."""
    busy: dict[str, list[tuple[dt.date, dt.date]]] = {}
    for draft in drafts:  # a record shows days around its own date (review dates, publication)
        busy.setdefault(draft.genre, []).append((draft.day - dt.timedelta(days=4), draft.day + dt.timedelta(days=1)))
    effective_days = {f.effective_from for f in pack.facts.values()} | {f.decided_on for f in pack.facts.values()
                                                                         if f.decided_on}
    candidates = []
    for fact_id, draft in sorted(owner_of.items(), key=lambda item: item[0]):
        fact = pack.facts[fact_id]
        title = genres[draft.genre].anchor_titles.get(draft.variant)
        if (title is None or fact_id in excluded or fact.value is None
                or fact.value.type not in ("money", "percent", "duration")
                or not pack.is_current(fact_id) or draft.day in effective_days
                or draft.day >= pack.now.date() - dt.timedelta(days=1)):
            continue
        clashes = sum(1 for low, high in busy[draft.genre] if low <= draft.day <= high)
        if clashes != 1:  # only its own record shows that day
            continue
        candidates.append((fact, draft, title))
    rng.shuffle(candidates)
    routes: list[dict[str, Any]] = []
    targets: set[int] = set()
    # distinct target records first; when the uniquely dated records run out (a few schedules own most
    # candidate facts), a second fact of an already-targeted record gets its own pointer from another host
    ordered = candidates + candidates
    routed: set[str] = set()
    for position, (fact, draft, title) in enumerate(ordered):
        if len(routes) >= preset.evidence_routes:
            break
        if fact.id in routed or (position < len(candidates) and id(draft) in targets):
            continue
        host = hosts.pick(rng, fact, after=max(draft.day, fact.effective_from) + dt.timedelta(days=1),
                          exclude=[draft], avoid_values=[fact.value],
                          before=draft.day + dt.timedelta(days=120))
        if host is None:
            continue
        anchor_date = f"{draft.day:%B} {draft.day.day}, {draft.day.year}"
        text = cue_text(fact, "route", rng, anchor=(title, anchor_date))
        hosts.add(host, Rendition(fact.id, text, "", "voiced", "route", host.day), fact)  # type: ignore[arg-type]
        targets.add(id(draft))
        routed.add(fact.id)
        routes.append({"id": f"route_{len(routes) + 1:03d}", "fact_id": fact.id,
                       "hops": [{"from_draft": id(host), "to_draft": id(draft), "text": text, "anchor_title": title,
                                 "anchor_date": draft.day.isoformat()}]})
    return routes


def spread_range(genre: Genre, variant: str) -> tuple[int, int] | None:
    """The ``(low, high)`` words a genre spreads its artifacts of ``variant`` over, or None.

    A genre declares ``spread_words`` as one ``(low, high)`` pair for all its variants, or as a dict from
    variant to pair (``''`` is the default for variants it does not name); a variant mapped to nothing
    (or a genre that declares none, the base's default) is not spread. Raises ``ValueError`` for a pair with
    ``low > high`` or a negative bound.
    """
    declared = genre.spread_words
    if isinstance(declared, Mapping):
        declared = declared.get(variant) or declared.get("")
    if not declared:
        return None
    low, high = int(declared[0]), int(declared[1])
    if low < 0 or low > high:
        raise ValueError(f"{getattr(genre, 'name', genre)}: spread_words {declared!r} must be 0 <= low <= high")
    return low, high


def _spread_lengths(drafts: list[Draft], genres_all: dict[str, Genre], seed: int, tier_name: str) -> None:
    """Stratified lengths for genres that declare ``spread_words`` (see :func:`spread_range`).

    A genre with few artifacts (call recordings: the call budget keeps them near a dozen; slide decks,
    support transcripts, knowledge-base exports) would often draw lengths that bunch into a few buckets
    by chance, and the realism gate measures lengths per genre. Here the artifacts of a genre that share
    one range (whatever their variant) are grouped, the range is cut into one stratum per artifact, each
    artifact gets a uniform draw inside the middle half of one stratum (so two neighbouring strata never
    draw lengths next to each other), and the strata are dealt to the artifacts in a seeded order, carriers
    and fillers each over the whole range (:func:`_deal_strata`), so the lengths cover the range evenly at
    every seed and count and a record's length says nothing of whether it carries a rule. An artifact that
    already has a long-document ``target_words`` keeps it and is not spread. The generator is seeded
    from the build seed, the tier, the genre and (when a genre declares several ranges) the range only,
    so adding a fact elsewhere does not move these lengths beyond the change in count.
    """
    groups: dict[tuple[str, int, int], list[Draft]] = {}
    for draft in drafts:
        bounds = spread_range(genres_all[draft.genre], draft.variant)
        if bounds is not None and not draft.target_words:
            groups.setdefault((draft.genre, *bounds), []).append(draft)
    for (name, low, high), members in sorted(groups.items()):
        several = isinstance(genres_all[name].spread_words, Mapping)
        rng = random.Random(stable_seed(seed, tier_name, "spread", name, *((low, high) if several else ())))
        width = (high - low) / len(members)
        for draft, stratum in _deal_strata(members, rng):
            draft.length_words = int(round(low + width * (stratum + 0.25 + 0.5 * rng.random())))
    several_ranges: dict[str, list[Draft]] = {}
    for (name, _low, _high), members in sorted(groups.items()):
        if isinstance(genres_all[name].spread_words, Mapping):
            several_ranges.setdefault(name, []).extend(members)
    for name, members in sorted(several_ranges.items()):
        if lengths_bunch([draft.length_words for draft in members]):
            _rebalance_lengths(members, genres_all[name], seed, tier_name)


def _deal_strata(members: list[Draft], rng: random.Random) -> list[tuple[Draft, int]]:
    """Deal strata ``0 .. len(members) - 1`` (short to long) to ``members``, one each, so that carriers
    and fillers each cover the whole range: the carriers take strata evenly spaced at a random phase
    (``floor((k + u) * n / carriers)`` for the k-th of them), the fillers the rest, and each group's strata
    go to its members in a shuffled order. Dealt over all members at once, a seed's shuffle could hand
    the carriers the longer half by chance (banking hard seed 6's knowledge-base exports: carriers 523
    tokens on average, fillers 458, p = 0.05), and record length would then tell a carrier from a filler.
    Returns ``[(draft, stratum)]`` in ``members`` order; draws from ``rng`` only."""
    count = len(members)
    carriers = [draft for draft in members if draft.owned()]
    fillers = [draft for draft in members if not draft.owned()]
    phase = rng.random()
    # spacing count / len(carriers) >= 1, so the strata are distinct and below count
    carrier_strata = [int((k + phase) * count / len(carriers)) for k in range(len(carriers))]
    filler_strata = sorted(set(range(count)) - set(carrier_strata))
    dealt: dict[int, int] = {}
    for group, strata in ((carriers, carrier_strata), (fillers, filler_strata)):
        rng.shuffle(strata)
        dealt.update((id(draft), stratum) for draft, stratum in zip(group, strata))
    return [(draft, dealt[id(draft)]) for draft in members]


SPREAD_BUCKET, SPREAD_MAX_SHARE, SPREAD_MIN_ARTIFACTS, SPREAD_MIN_BUCKETS = (
    LENGTH_BUCKET, LENGTH_MAX_SHARE, LENGTH_MIN_ARTIFACTS, LENGTH_MIN_BUCKETS)
"""The realism length gate's bucket width, modal share, measured minimum and bucket count
(:mod:`taugen.text`), which the planner's spread plans against."""


def lengths_bunch(lengths: list[int], headroom: int = 1) -> bool:
    """Whether planned ``lengths`` (one genre's) leave the realism length gate less than ``headroom``
    records of slack: the commonest :data:`SPREAD_BUCKET` bucket holds more than
    :data:`SPREAD_MAX_SHARE` of them less ``headroom``, or they take fewer than
    :data:`SPREAD_MIN_BUCKETS` + ``headroom`` buckets when there are at least that many lengths. Fewer
    than :data:`SPREAD_MIN_ARTIFACTS` lengths never bunch (the gate does not measure them).

    A planned length is what the renderer comes closest to, not what it hits (an app screen planned at
    161 tokens read back 142), so a bucket planned right at the gate's cap tips over when one neighbour
    lands in it; ``headroom=0`` is the gate itself.
    """
    if len(lengths) < SPREAD_MIN_ARTIFACTS:
        return False
    buckets = Counter(length // SPREAD_BUCKET for length in lengths)
    wanted = SPREAD_MIN_BUCKETS + headroom
    return (max(buckets.values()) > SPREAD_MAX_SHARE * len(lengths) - headroom
            or (len(lengths) >= wanted and len(buckets) < wanted))


def _rebalance_lengths(members: list[Draft], genre: Genre, seed: int, tier_name: str) -> None:
    """Re-deal the planned lengths of one genre's ``members`` (variants with different ranges) jointly.

    Stratifying each variant's range on its own spreads each variant evenly, but a variant with a narrow
    range and most of the records (app screens: 65-165 tokens) fills every bucket of its range, and a wide
    variant overlapping it (web pages: 120-350) stacks on top: the genre as a whole bunches (airline hard
    seed 0 drew 13 app screens and 6 web pages, planned 4 of 19 to one bucket and read 6 of them back there). Here the records are taken
    narrowest range first (a seeded order among equals) and each goes to the least-filled bucket of
    :data:`SPREAD_BUCKET` that its own range reaches (a seeded choice among equals), at a uniform draw in
    the middle half of the bucket clipped to the range, so every record keeps its variant's range and the
    genre's buckets fill evenly. Only called on a deal that :func:`lengths_bunch`, so a genre whose
    per-variant deal already spreads keeps it.
    """
    rng = random.Random(stable_seed(seed, tier_name, "spread", genre.name, "joint"))
    ranges = {id(draft): spread_range(genre, draft.variant) for draft in members}
    order = list(members)
    rng.shuffle(order)
    order.sort(key=lambda draft: ranges[id(draft)][1] - ranges[id(draft)][0])  # stable: seeded among equals
    filled: Counter = Counter()
    for draft in order:
        low, high = ranges[id(draft)]
        reach = range(low // SPREAD_BUCKET, high // SPREAD_BUCKET + 1)
        least = min(filled[bucket] for bucket in reach)
        bucket = rng.choice([b for b in reach if filled[b] == least])
        start = bucket * SPREAD_BUCKET
        inner = (max(low, start + SPREAD_BUCKET / 4), min(high, start + 3 * SPREAD_BUCKET / 4))
        if inner[0] > inner[1]:  # the range only grazes the bucket's middle half: anywhere it reaches
            inner = (max(low, start), min(high, start + SPREAD_BUCKET - 1))
        draft.length_words = int(round(rng.uniform(*inner)))
        filled[bucket] += 1


def _draw_rule_slots(drafts: list[Draft], rng: random.Random) -> None:
    """Set every draft's ``rule_slots``: a carrier's is the number of rules it owns; a filler's is dealt
    from the owned counts of the carriers of its genre and variant (else of its genre; 1 when it has
    none), so fillers hold as many rules (echoes) or name as many subjects as carriers do. Dealt, not
    drawn: the carriers' counts are repeated to cover the fillers, shuffled and handed out in draft order,
    so the fillers' counts follow the carriers' to within one deck (66 independent draws from 30 issue
    exports' counts once averaged 2.48 rules where the carriers held 2.20). From ``rng`` alone."""
    owned_counts: dict[tuple[str, str], list[int]] = {}
    for draft in drafts:
        if draft.owned():
            draft.rule_slots = len(draft.owned())
            for key in ((draft.genre, draft.variant), (draft.genre, "")):
                owned_counts.setdefault(key, []).append(draft.rule_slots)
    fillers: dict[tuple[str, str], list[Draft]] = {}
    for draft in drafts:
        if not draft.owned():
            key = (draft.genre, draft.variant) if (draft.genre, draft.variant) in owned_counts else (draft.genre, "")
            fillers.setdefault(key, []).append(draft)
    for key, members in fillers.items():
        counts = owned_counts.get(key) or [1]
        deck: list[int] = []
        while len(deck) < len(members):
            hand = list(counts)
            rng.shuffle(hand)
            deck += hand
        for draft, count in zip(members, deck):
            draft.rule_slots = count


def _rendition(fact: Fact, status: str, day: dt.date, genre: Genre, voice: bool, rng: random.Random,
               spoken: SpokenWords | None = None) -> Rendition:
    voiced = voice and voice_capable(genre)
    text, form = voiced_text(fact, rng, spoken) if voiced else canonical_text(fact)
    register = "voiced" if voiced and text != fact.statement else "canonical"
    return Rendition(fact_id=fact.id, text=text, value_form=form, register=register, status=status,  # type: ignore[arg-type]
                     date=day)


def _times(genre: Genre, day: dt.date, rng: random.Random, pack: Pack) -> tuple[dt.datetime, dt.datetime]:
    """(end, start) of an artifact whose key date is ``day``, in the pack's UTC offset (the start is
    the genre's :meth:`~taugen.generators.corpus.genre.Genre.lead_time` before the end). The end falls in
    working hours (08:00-17:59) of ``day``; one that would pass the world's now is 30 minutes to 10 hours
    before it, but not before 08:00 that day (banking's now is a Monday at 10:30: ten hours back was the
    small hours, and a meeting recorded then at 02:00)."""
    tz = pack.now.tzinfo
    end = dt.datetime.combine(day, dt.time(rng.randint(8, 17), rng.randint(0, 59)), tzinfo=tz)
    if end > pack.now:
        opening = dt.datetime.combine(pack.now.date(), dt.time(8, 0), tzinfo=tz)
        end = min(pack.now - dt.timedelta(minutes=1),
                  max(pack.now - dt.timedelta(minutes=rng.randint(30, 600)), opening))
    start = end - genre.lead_time(rng)
    floor = dt.datetime.combine(pack.config.history_start, dt.time(8, 0), tzinfo=tz)
    return end, max(start, floor)


__all__ = ["CorpusPlan", "MODALITIES", "POLICY_DOCUMENT", "genre_medium", "plan_corpus",
           "resolve_surface", "spread_range"]
