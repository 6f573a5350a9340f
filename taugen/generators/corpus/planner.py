"""Plan the corpus: which artifact owns which fact, in which genre, on which date, in which words.

The plan is the manifest before rendering. Rules:

* every fact has exactly one owner artifact, or is withheld as client-held on the ``hard_client``
  surface;
* on the ``sop`` surface the policy document owns every fact (history in its change log) and the
  other genres carry filler only; on ``core`` and ``hard`` the policy document is demoted (it owns
  nothing) and facts spread over genres by affinity;
* a superseded version is owned by an artifact dated before its successor took effect; its successor
  by one dated on or after ``effective_from`` and never after the snapshot date;
* fillers: ``filler_ratio`` per carrier, and at least one per genre so every genre is present.

All choices draw from generators seeded by the build seed and stable ids.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from taugen.authoring.models import Fact
from taugen.authoring.pack import Pack
from taugen.generators.corpus.genre import ArtifactPlan, Genre, Rendition, stable_seed
from taugen.generators.corpus.renditions import canonical_text, voiced_text
from taugen.generators.tiers import Surface, TierPreset

POLICY_DOCUMENT = "policy_document"

@dataclass
class CorpusPlan:
    """The planned corpus.

    Attributes:
        surface: the evidence surface achieved.
        artifacts: every artifact plan (carriers and fillers), ordered by id.
        client_held: ids of facts withheld from the records (known only to the simulated client).
        client_confirmable: ids of facts in the records that the client can also confirm.
        policy_owns: True when the policy document carries the facts (``sop``).
    """

    surface: Surface
    artifacts: list[ArtifactPlan]
    client_held: list[str] = field(default_factory=list)
    client_confirmable: list[str] = field(default_factory=list)
    policy_owns: bool = False


def resolve_surface(preset: TierPreset, pack: Pack) -> Surface:
    """``hard`` becomes ``hard_client`` when the pack has client-held facts (DESIGN.md §4)."""
    if preset.surface == "hard" and any(f.holder == "client" for f in pack.facts.values()):
        return "hard_client"
    return preset.surface


def _date_range(pack: Pack, fact: Fact, status: str) -> tuple[dt.date, dt.date]:
    """Days on which a record may state ``fact`` with ``status``."""
    snapshot = pack.config.snapshot_date
    if status == "superseded":
        newer = pack.facts[pack.superseded_by(fact.id)]  # type: ignore[index]
        return fact.effective_from, newer.effective_from - dt.timedelta(days=1)
    return fact.effective_from, min(snapshot, pack.now.date())


def _pick_genre(fact: Fact, available: dict[str, Genre], rng: random.Random) -> tuple[str, str]:
    """A (genre, variant) for ``fact``, drawn by the genres' declared affinity for its value type."""
    key = fact.value.type if fact.value is not None else "none"
    options = [(name, variant, weight) for name, genre in sorted(available.items())
               for value_type, variant, weight in genre.affinity if value_type == key and genre.accepts(fact)]
    if not options:
        options = [("email_thread", "", 1)] if "email_thread" in available else [(next(iter(available)), "", 1)]
    total = sum(weight for _, _, weight in options)
    ticket = rng.uniform(0, total)
    for genre, variant, weight in options:
        ticket -= weight
        if ticket <= 0:
            return genre, variant
    return options[-1][0], options[-1][1]


def plan_corpus(pack: Pack, preset: TierPreset, seed: int, available: dict[str, Genre]) -> CorpusPlan:
    """Plan every artifact of the corpus for ``pack`` at ``preset``.

    Args:
        pack: the loaded pack.
        preset: tier knobs (surface, voiced share, filler ratio, call budget).
        seed: the build seed.
        available: registered genres by name (the policy document is planned by the build stage).

    Returns:
        the :class:`CorpusPlan`; artifacts sorted by ``artifact_id``.
    """
    rng = random.Random(stable_seed(seed, preset.name, "corpus"))
    surface = resolve_surface(preset, pack)
    sections = {section.id: section.title for section in pack.config.sections}
    client_held = sorted(f.id for f in pack.facts.values() if f.holder == "client") if surface == "hard_client" else []
    confirmable = sorted(f.id for f in pack.facts.values() if f.holder == "both") if surface == "hard_client" else []
    genres = {name: genre for name, genre in available.items() if name != POLICY_DOCUMENT}
    plans: list[ArtifactPlan] = []
    counters: dict[str, int] = {}

    def new_plan(genre: str, variant: str, topic: str, day: dt.date, renditions: list[Rendition],
                 facts: dict[str, Fact]) -> ArtifactPlan:
        counters[genre] = counters.get(genre, 0) + 1
        artifact_id = f"{genre}_{counters[genre]:03d}"
        end, start = _times(genre, day, rng, pack)
        plan = ArtifactPlan(artifact_id=artifact_id, genre=genre, topic=topic, topic_title=sections[topic],
                            start=start, end=end, renditions=renditions, facts=facts,
                            seed=stable_seed(seed, preset.name, artifact_id),
                            variant=variant or available[genre].variants[0])
        plans.append(plan)
        return plan

    policy_owns = surface == "sop"
    carriers = 0
    if not policy_owns:
        groups: dict[tuple[str, str, str, str], list[tuple[Fact, str]]] = {}
        calls = 0
        for fact in pack.facts.values():
            if fact.id in client_held:
                continue
            status = "current" if pack.is_current(fact.id) else "superseded"
            if fact.effective_from > pack.now.date():
                continue  # announced for later: not policy yet and not rendered
            genre, variant = _pick_genre(fact, genres, rng)
            if genre == "call_recording":
                if calls >= preset.max_calls * available[genre].max_facts:
                    genre, variant = "support_transcript", "phone"
                calls += 1
            groups.setdefault((genre, variant, fact.section, status), []).append((fact, status))
        for (genre, variant, section, status), members in sorted(groups.items()):
            capacity = available[genre].max_facts
            members.sort(key=lambda item: (item[0].effective_from, item[0].id))
            chunk: list[tuple[Fact, str]] = []
            for fact, fact_status in members + [(None, "")]:  # type: ignore[list-item]
                low_high = [_date_range(pack, f, s) for f, s in chunk]
                if fact is not None:
                    candidate = low_high + [_date_range(pack, fact, fact_status)]
                    low = max(r[0] for r in candidate)
                    high = min(r[1] for r in candidate)
                    size_cap = rng.randint(max(1, capacity // 2), capacity)
                    if low <= high and len(chunk) < size_cap:
                        chunk.append((fact, fact_status))
                        continue
                if chunk:
                    low = max(r[0] for r in low_high)
                    high = min(r[1] for r in low_high)
                    day = low + dt.timedelta(days=rng.randint(0, max(0, (high - low).days)))
                    renditions = [_rendition(f, s, day, available[genre], preset, rng) for f, s in chunk]
                    new_plan(genre, variant, section, day, renditions, {f.id: f for f, _ in chunk})
                    carriers += 1
                chunk = [(fact, fact_status)] if fact is not None else []
    fillers = max(len(genres), round(carriers * preset.filler_ratio))
    genre_names = sorted(genres)
    section_ids = sorted(sections)
    filler_calls = 0
    for index in range(fillers):
        genre = genre_names[index % len(genre_names)]
        if genre == "call_recording":
            if filler_calls >= max(1, preset.max_calls // 2):
                genre = "support_transcript"
            filler_calls += 1
        variant = rng.choice(available[genre].variants)
        span = (pack.config.snapshot_date - pack.config.history_start).days
        day = pack.config.history_start + dt.timedelta(days=rng.randint(30, span))
        new_plan(genre, variant, rng.choice(section_ids), day, [], {})
    return CorpusPlan(surface=surface, artifacts=sorted(plans, key=lambda p: p.artifact_id), client_held=client_held,
                      client_confirmable=confirmable, policy_owns=policy_owns)


def _rendition(fact: Fact, status: str, day: dt.date, genre: Genre, preset: TierPreset, rng: random.Random) -> Rendition:
    voiced = genre.voiced and rng.random() < preset.voiced_share
    text, form = voiced_text(fact, rng) if voiced else canonical_text(fact)
    register = "voiced" if voiced and text != fact.statement else "canonical"
    return Rendition(fact_id=fact.id, text=text, value_form=form, register=register, status=status,  # type: ignore[arg-type]
                     date=day)


def _times(genre: str, day: dt.date, rng: random.Random, pack: Pack) -> tuple[dt.datetime, dt.datetime]:
    """(end, start) of an artifact whose key date is ``day``, in the pack's UTC offset."""
    tz = pack.now.tzinfo
    end = dt.datetime.combine(day, dt.time(rng.randint(8, 17), rng.randint(0, 59)), tzinfo=tz)
    if end > pack.now:
        end = pack.now - dt.timedelta(minutes=rng.randint(30, 600))
    if genre == "email_thread":
        start = end - dt.timedelta(days=rng.randint(1, 9), minutes=rng.randint(5, 600))
    elif genre in ("support_transcript", "call_recording"):
        start = end - dt.timedelta(minutes=rng.randint(6, 28))
    else:
        start = end - dt.timedelta(days=rng.randint(0, 3))
    floor = dt.datetime.combine(pack.config.history_start, dt.time(8, 0), tzinfo=tz)
    return end, max(start, floor)
