"""Cues: sentences that name a rule without owning it, and the records that host them.

:func:`cue_capable` says which genres carry pointers, caveats, route pointers and decoys; :class:`Hosts`
picks, among the planned records, one that can take one more cue (never a new record) for the
planner's passes. :func:`plan_mentions` is the mention pass: records name rules of their topic in
passing (subject only), fillers as many as a carrier of their genre owns, spread so that no fact is
mentioned far more than another and no sentence repeats in a genre.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from taugen.authoring.models import Fact
from taugen.authoring.pack import Pack
from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import CUE_STATUSES, Genre, RenderContext, Rendition
from taugen.generators.corpus.genres.benchmarks import peer_names, peer_sentences
from taugen.generators.corpus.renditions import (
    TWIN_AUDIENCES,
    TWIN_SHARE,
    SpokenWords,
    mention_lines,
    said_in_frame,
    shares_run,
    spoken_subject,
    stand_ins,
    with_stand_in,
)
from taugen.generators.tiers import TierPreset
from taugen.hashing import stable_seed

if TYPE_CHECKING:
    from taugen.generators.corpus.planner import Draft


def related(fact: Fact, draft: Draft) -> bool:
    """Whether ``draft`` already holds ``fact`` or a version of it (the same supersession arc)."""
    return fact.id in draft.facts or fact.supersedes in draft.facts or any(
        getattr(other, "supersedes", None) == fact.id for other in draft.facts.values())


def cue_capable(genre: Genre) -> bool:
    """Genres that place any sentence verbatim in running text written by people (emails, chats,
    calls, meetings): the only ones that carry pointers, caveats, route pointers and decoys."""
    return genre.voiced and not genre.binary and not genre.tabular


class Hosts:
    """Existing artifacts that can take one more cue (never a new artifact): records of cue-capable genres,
    and for mentions only, of genres that declare ``mention_host``."""

    def __init__(self, drafts: list[Draft], genres: dict[str, Genre], spoken: SpokenWords | None = None,
                 voiced_share: float = 0.0, wording: random.Random | None = None,
                 published_in: Mapping[str, str] | None = None) -> None:
        self.genres = genres
        self.drafts = [d for d in drafts if cue_capable(genres[d.genre]) or genres[d.genre].mention_host]
        self.by_id = {id(d): d for d in drafts}
        self.spoken = spoken
        self.voiced_share = voiced_share
        self.wording = wording or random.Random(0)
        self.published_in = published_in
        """Where the business publishes each kind of figure (the pack's ``common.published_in``): a mention
        may give a rule's own sentence with its figure deferred there."""
        self.twin_share: dict[str, float] = {}
        """How often a mention said to a customer or among staff in each genre is a twin of a frame first
        (:func:`~taugen.generators.corpus.renditions.mention_lines`; :data:`TWIN_SHARE` in a genre not
        listed); :func:`plan_mentions` sets it (:func:`framed_share`)."""

    def said(self, fact: Fact, draft: Draft) -> str | None:
        """How a mention in ``draft`` says ``fact``'s subject: in a genre with ``spoken_mentions``, as often
        as the tier voices rules, in the pack's spoken wordings (as a voiced rule there says it); else None
        (the expert's words). Draws from the hosts' own wording generator, only for such genres."""
        if not fact.subject or not self.genres[draft.genre].spoken_mentions \
                or self.wording.random() >= self.voiced_share:
            return None
        return spoken_subject(fact.subject.strip().rstrip("."), self.spoken, self.wording)

    def room(self, draft: Draft) -> bool:
        return len(draft.renditions) < self.genres[draft.genre].max_facts

    def mention_room(self, draft: Draft) -> int:
        """How many more mentions ``draft`` may take: its room under ``max_facts``, and under the genre's
        ``max_mentions`` when it declares one."""
        genre = self.genres[draft.genre]
        room = genre.max_facts - len(draft.renditions)
        if genre.max_mentions is not None:
            room = min(room, genre.max_mentions - sum(1 for r in draft.renditions if r.status == "mention"))
        return max(room, 0)

    def pick(self, rng: random.Random, fact: Fact, after: dt.date, prefer: Draft | None = None,
             exclude: list[Draft] | None = None, avoid_values: list | None = None,
             before: dt.date | None = None) -> Draft | None:
        """A cue-capable draft dated in ``[after, before]`` with room, whose renditions state none of
        ``avoid_values``; ``prefer`` when it qualifies, then one on the fact's topic."""
        excluded = {id(d) for d in exclude or []}

        def fits(draft: Draft) -> bool:
            if id(draft) in excluded or draft.day < after or (before is not None and draft.day > before):
                return False
            if not self.room(draft) or not cue_capable(self.genres[draft.genre]):
                return False
            if fact.id in draft.facts or any(r.status in CUE_STATUSES for r in draft.renditions):
                return False  # one cue per record, never about a fact the record states
            for value in avoid_values or []:
                if value is not None and any(find_surface_form(value, r.text) for r in draft.renditions):
                    return False
            return True

        quiet = {name for name, genre in self.genres.items() if genre.preferred_cue_host}
        if prefer is not None and prefer.genre in quiet and fits(prefer):
            return prefer
        pool: list[Draft] = []
        for genres in (quiet, None):  # genres whose generic lines state no values come first
            candidates = [d for d in self.drafts if (genres is None or d.genre in genres) and fits(d)]
            pool = [d for d in candidates if d.topic == fact.section] or candidates
            if pool:
                break
        if not pool:
            return None
        # prefer records that own nothing yet, so cues spread over conversations and threads
        light = [d for d in pool if len(d.renditions) < max(1, self.genres[d.genre].max_facts - 1)]
        return rng.choice(light or pool)

    @staticmethod
    def add(draft: Draft, rendition: Rendition, fact: Fact) -> None:
        draft.renditions.append(rendition)
        draft.facts.setdefault(fact.id, fact)


def plan_mentions(pack: Pack, preset: TierPreset, rng: random.Random, hosts: Hosts,
                   owner_of: dict[str, Draft], excluded: set[str], seed: int = 0) -> None:
    """Give records in cue-capable genres (and ``mention_host`` ones) *mentions*: rules of their topic named in
    passing (subject only).

    A filler (with probability ``preset.filler_mentions``) names as many rules as a carrier of its genre
    owns (a seeded draw from that genre's carriers); a carrier with room names one more with half that
    probability. A genre with ``grounded_fillers`` fills the slots a filler's rules would take with
    grounded sentences itself, so every record of it, carrier or filler, names one rule with probability
    ``preset.filler_mentions``: mentions in place of a filler's rules would leave their wording mostly
    in fillers. A mentioned fact is current, owned by another record, dated on or before the record,
    not in ``excluded`` (client-held, contested, route facts), not in the same supersession arc as a
    fact the record holds, and its value is in none of the record's sentences; the mention states no
    value of a fact the record already names nor of any client-held fact, and a record with a discovery
    cue (a pointer or caveat about a client-held fact) gets none. Facts that records of the record's own
    genre state come first (a genre's carriers hold the rules the planner routes to it, so its other
    records name those: drawn from the whole topic, the topic's words would tell the two apart), then
    those talked about least so far (echoes count: a rule restated in other records needs fewer mentions);
    no sentence is used twice in a genre, so the mentions spread and never repeat; a fact already named or
    restated ``preset.mentions_per_fact`` times goes after every fact named fewer.
    """
    held_values = [pack.facts[f].value for f in sorted(excluded) if f in pack.facts and pack.facts[f].holder == "client"
                   and pack.facts[f].value is not None]
    by_topic: dict[str, list[Fact]] = {}
    for fact_id in sorted(owner_of):
        fact = pack.facts[fact_id]
        if fact_id not in excluded and fact.subject and pack.is_current(fact_id):
            by_topic.setdefault(fact.section, []).append(fact)
    owned_counts: dict[str, list[int]] = {}
    for draft in hosts.drafts:
        if draft.owned():
            owned_counts.setdefault(draft.genre, []).append(len(draft.owned()))
    times: dict[str, int] = {}  # how often each fact is talked about beyond its owner: echoes, then mentions
    for draft in hosts.by_id.values():
        for rendition in draft.renditions:
            if rendition.echo:
                times[rendition.fact_id] = times.get(rendition.fact_id, 0) + 1
    used: set[tuple[str, str]] = set()
    figures = _MentionFigures(pack, preset, seed)
    hosts.twin_share = {genre: TWIN_SHARE * share for genre, share in framed_share(hosts).items()}

    for draft in hosts.drafts:
        if any(r.status in ("pointer", "caveat") for r in draft.renditions):
            continue  # a record that points to the client names nothing else (its words must not give the held value)
        carrier = bool(draft.stated())  # a filler with echoes states rules as a carrier does
        if hosts.genres[draft.genre].grounded_fillers:
            wanted = 1 if rng.random() < preset.filler_mentions else 0
        elif carrier:
            wanted = 1 if rng.random() < preset.filler_mentions / 2 else 0
        else:
            wanted = rng.choice(owned_counts.get(draft.genre) or [1]) if rng.random() < preset.filler_mentions else 0
        wanted = min(wanted, hosts.mention_room(draft))
        pool = [f for f in by_topic.get(draft.topic, []) if f.effective_from <= draft.day and owner_of[f.id] is not draft]
        rng.shuffle(pool)
        # own genre's rules first, but never one already named as often as the tier asks while others are not
        # (once every rule of the topic has been talked about as often as the tier asks, the least talked first)
        pool.sort(key=lambda f: (over := 0 < preset.mentions_per_fact <= times.get(f.id, 0),
                                 times.get(f.id, 0) if over else 0, owner_of[f.id].genre != draft.genre,
                                 times.get(f.id, 0)))
        for fact in pool:
            if wanted <= 0:
                break
            if related(fact, draft) or any(find_surface_form(fact.value, r.text) for r in draft.renditions
                                           if fact.value is not None):
                continue
            if _mention(fact, draft, rng, hosts, used, held_values, times, figures):
                wanted -= 1

    if preset.mentions_per_fact > 0:
        _top_up_mentions(preset.mentions_per_fact, rng, hosts, owner_of, by_topic, times, used, held_values,
                         related, figures)
    _stand_ins_beside_rules(hosts, random.Random(stable_seed(seed, preset.name, "stand-ins")))
    _figures_beside_rules(hosts, held_values, figures)


def framed_share(hosts: Hosts) -> dict[str, float]:
    """Per genre whose records talk to a customer or among staff, the share of its rules (owned or echoed)
    of facts a frame voices that are said in one of the fact's frames (the others are the canonical
    statement or a hand-written voicing); genres without such rules are left out. Only a rule said in a
    frame takes a stand-in (at :data:`TWIN_SHARE`), so a mention in the genre is a twin of a frame first
    at ``TWIN_SHARE`` times this share: the stand-ins' words are then in both kinds of slot at one rate
    in each genre (at the constant alone, banking hard seeds 0-2 had them in 50-52 % of the rules' slots
    and 59-64 % of the mentions')."""
    said: dict[str, list[bool]] = {}
    for draft in hosts.drafts:
        if hosts.genres[draft.genre].mention_audience not in TWIN_AUDIENCES:
            continue
        for rendition in draft.renditions:
            fact = draft.facts.get(rendition.fact_id)
            if rendition.status == "current" and fact is not None and stand_ins(fact):
                said.setdefault(draft.genre, []).append(
                    said_in_frame(fact, rendition.text, rendition.value_form) is not None)
    return {genre: sum(flags) / len(flags) for genre, flags in sorted(said.items())}


def _stand_ins_beside_rules(hosts: Hosts, rng: random.Random) -> None:
    """Say a framed rule to a customer or among staff with a stand-in beside its value and the audience's
    tail (:func:`~taugen.generators.corpus.renditions.with_stand_in`), at the rate a mention is said in a
    twin of the frame: the words a record that only names the rule uses sit in both kinds of record. Only
    current rules of records without a discovery cue, after every mention is planned (the mentions' draws
    are unchanged); draws from ``rng``, in record order."""
    for draft in hosts.drafts:
        audience = hosts.genres[draft.genre].mention_audience
        if any(r.status in ("pointer", "caveat") for r in draft.renditions):
            continue
        for index, rendition in enumerate(draft.renditions):
            fact = draft.facts.get(rendition.fact_id)
            if rendition.status != "current" or rendition.register != "voiced" or fact is None:
                continue
            text = with_stand_in(fact, rendition.text, rendition.value_form, audience, rng)
            if text != rendition.text:
                draft.renditions[index] = dataclasses.replace(rendition, text=text)


def _figures_beside_rules(hosts: Hosts, held_values: list, figures: _MentionFigures) -> None:
    """Give a rule stated among staff another organisation's figure for its subject, as a mention said
    among staff gets one (:class:`_MentionFigures`, at the same rate): colleagues set a rule beside what
    competitors publish whether they state it or only name it, so peers' figures sit in both kinds of
    slot and the words around them ("For comparison, ... publishes ... for this") mark neither. Only the
    current rules of records whose genre talks among staff, after every mention is planned (the
    mentions' draws are unchanged); the figure equals no value any fact on the subject ever had and none
    the record must not state."""
    if figures.share <= 0:
        return
    for draft in hosts.drafts:
        if hosts.genres[draft.genre].mention_audience not in ("staff", "meeting") or \
                any(r.status in ("pointer", "caveat") for r in draft.renditions):
            continue
        for index, rendition in enumerate(draft.renditions):
            fact = draft.facts.get(rendition.fact_id)
            if rendition.status != "current" or rendition.register != "voiced" or fact is None or not fact.subject:
                continue
            guarded = held_values + [f.value for f in draft.facts.values() if f.value is not None and f is not fact]
            text = figures.beside(fact, draft, rendition.text, guarded, voiced=True)
            if text != rendition.text:
                draft.renditions[index] = dataclasses.replace(rendition, text=text)


_FIGURE_LINES = ("For comparison, {P} publishes {V} for this.", "{P}'s published terms give {V} for this.",
                 "Customers keep quoting {P}'s {V} for this.", "{P} lists {V} for the same thing.")
"""Peers' figures beside a staff mention (``{P}`` peer, ``{V}`` figure): the subject was just named."""


_PIECE = re.compile(r'"|(?<=[.!?])\s+')
"""Where a figure's sentences split into the pieces a reader counts as sentences (a quote is one)."""


class _MentionFigures:
    """Other organisations' figures that a mention said among staff may carry (``preset.mention_figures``
    of them, where the subject is one a peer publishes a figure for): the sentences follow the mention
    in the same cue, so the record states them where it names the rule and the manifest holds them.

    Each figure's draws come from a generator of its own, seeded from the build seed, the tier, the fact,
    the record (genre, topic, day) and the sentence it follows: the mention pass's own generator draws
    what it drew before (a figure only keeps a later mention of a fact whose value it holds out of that
    record), and an edit of one fact's value re-draws only the figures beside that fact's sentences, not
    every figure planned after them (with one generator for the build, a single changed draw moved every
    later figure, and a one-fee edit re-worded 480 of 1,517 records). The peers are eight names drawn
    once per build, and no figure sentence, nor any quote inside one, is written twice in a build: a
    mention is planned, so a record drawn again would still repeat it."""

    def __init__(self, pack: Pack, preset: TierPreset, seed: int) -> None:
        self.share = preset.mention_figures
        self.seed, self.tier = seed, preset.name
        self.context = RenderContext(config=pack.config, templates=None, build_seed=seed,  # type: ignore[arg-type]
                                     tier=preset.name, facts=pack.facts)
        self.voiced_share = preset.voiced_share
        self.peers: list[str] = []
        self.used: set[str] = set()
        if self.share > 0:
            from faker import Faker

            fake = Faker(pack.config.locale)
            fake.seed_instance(stable_seed(seed, preset.name, "mention peers"))
            self.peers = peer_names(fake, self.context, 8)

    def beside(self, fact: Fact, draft: Draft, text: str, guarded: list, voiced: bool = False) -> str:
        """``text`` (a staff mention of ``fact``, or a rule said among staff) with a peer's figure for the
        subject after it, or as it was: when the draw says no, the subject has no peer figure, or the figure
        would state one of ``guarded`` (values the record must not state). Beside a ``voiced`` rule, a
        figure whose peer wording shares a run of :data:`~taugen.generators.corpus.renditions.SHINGLE` words
        with the fact's statement is not used either (a voiced rendition never does, the peer's quote
        included: "On reporting an error on an international wire ..." beside "An error on an
        international wire must be reported ...")."""
        if self.share <= 0:
            return text
        rng = random.Random(stable_seed(self.seed, self.tier, "mention figure", fact.id, draft.genre, draft.topic,
                                        draft.day.isoformat(), text))
        if rng.random() >= self.share:
            return text
        for _ in range(5):  # no figure sentence twice in a build ("Hall Bank lists $25.00 for this." fits many)
            spoken = rng.random() < self.voiced_share
            peers = rng.sample(self.peers, k=2)
            lines = peer_sentences(rng, self.context, fact, fact.subject or "", peers, draft.facts.values(),
                                   peer_lines=_FIGURE_LINES, written="this", spoken=spoken)
            if not lines:
                return text
            pieces = {" ".join(piece.lower().split()) for line in lines for piece in _PIECE.split(line) if piece.strip()}
            if pieces & self.used or any(find_surface_form(value, line) for value in guarded for line in lines) \
                    or (voiced and shares_run(" ".join(lines), fact.statement)):
                continue
            self.used |= pieces
            return f"{text} " + " ".join(line[:1].upper() + line[1:] for line in lines)
        return text


def _mention(fact: Fact, draft: Draft, rng: random.Random, hosts: Hosts, used: set[tuple[str, str]],
             held_values: list, times: dict[str, int], figures: _MentionFigures | None = None) -> bool:
    """Name ``fact`` in passing in ``draft`` with the first mention line (for the genre's audience, in
    ``rng``'s order) that the genre has not used yet and that states none of ``held_values`` nor any value
    of a fact the record names; count it in ``used`` and ``times``. A mention said among staff may carry
    a peer's figure for the subject (``figures``). False when no line qualifies."""
    guarded = held_values + [f.value for f in draft.facts.values() if f.value is not None]
    audience = hosts.genres[draft.genre].mention_audience
    lines = mention_lines(fact, rng, audience, hosts.said(fact, draft), hosts.published_in,
                          hosts.twin_share.get(draft.genre, TWIN_SHARE))
    text = next((t for t in lines if (draft.genre, t) not in used
                 and not any(find_surface_form(value, t) for value in guarded)), None)
    if text is None:
        return False
    used.add((draft.genre, text))
    if figures is not None and audience in ("staff", "meeting"):
        text = figures.beside(fact, draft, text, guarded)
    hosts.add(draft, Rendition(fact.id, text, "", "voiced", "mention", draft.day), fact)
    times[fact.id] = times.get(fact.id, 0) + 1
    return True


def _top_up_mentions(target: int, rng: random.Random, hosts: Hosts, owner_of: dict[str, Draft],
                     by_topic: dict[str, list[Fact]], times: dict[str, int], used: set[tuple[str, str]],
                     held_values: list, related: Callable[[Fact, Draft], bool],
                     figures: _MentionFigures | None = None) -> None:
    """Bring every mentionable fact up to ``target`` mentions where records of its topic have room.

    A rule a business keeps is talked about in more places than the one that states it; a fact named
    only by its owner is found by searching its subject words. Hosts are records of the fact's topic,
    dated on or after it took effect, with room, no discovery cue and no rendition of the fact's arc;
    among them a record of the owner's genre is taken first (the first pass's reason), then the one with
    the fewest sentences about rules so far (stated, cued or mentioned), then the one with fewest
    mentions (ties drawn from ``rng``): every record fills its slots by
    one process, a carrier's with its rules first and a filler's with mentions, so both kinds end
    with as many rule slots and neither is marked by how many names it drops. The same
    sentence rules as the first pass apply (no value stated, no sentence twice in a genre).
    """
    mentions: dict[int, int] = {}
    for draft in hosts.drafts:
        mentions[id(draft)] = sum(1 for r in draft.renditions if r.status == "mention")
    by_section: dict[str, list[Draft]] = {}
    for draft in hosts.drafts:
        if not any(r.status in ("pointer", "caveat") for r in draft.renditions):
            by_section.setdefault(draft.topic, []).append(draft)
    facts = [fact for topic in sorted(by_topic) for fact in by_topic[topic]]
    for level in range(1, target + 1):  # everyone to one mention, then to two, ...: no topic starves
        for fact in facts:
            if times.get(fact.id, 0) >= level:
                continue
            pool = [d for d in by_section.get(fact.section, []) if d is not owner_of[fact.id]
                    and d.day >= fact.effective_from and hosts.mention_room(d) > 0 and not related(fact, d)
                    and not any(r.fact_id == fact.id for r in d.renditions)]
            rng.shuffle(pool)
            pool.sort(key=lambda d: (d.genre != owner_of[fact.id].genre, len(d.renditions), mentions[id(d)]))
            tried = 0
            for draft in pool:
                if tried == 8:
                    break
                if fact.value is not None and any(find_surface_form(fact.value, r.text) for r in draft.renditions):
                    continue
                tried += 1
                if _mention(fact, draft, rng, hosts, used, held_values, times, figures):
                    mentions[id(draft)] += 1
                    break
