"""The genre plug-in interface: plan → render → extract text → validate.

A genre turns an :class:`ArtifactPlan` (which facts it owns, with the exact rendition text, its dates
and its seed) into a :class:`RenderedArtifact`: the delivered files (bytes) plus an author-side text
source. ``extract_text`` reads the delivered files back (email parser, openpyxl, PDF text, SVG text,
the audio's author transcript) so that the placement validator checks what a reader of the delivered
file would see. ``validate`` checks the genre's own structure (headers, reply chains, turn numbers).
What validators read of a genre's files beyond their text is declared on the genre too:
``delivered_dates`` (the dates a reader sees, in the order they must go; the chronology validator) and
``customer_opening`` (a conversation's first customer message; the realism gate on openings).

Genres register themselves with :func:`register_genre`; third-party genres can also be exposed through
the ``taugen.genres`` entry-point group, so adding one needs no edit to taugen's core.
"""

from __future__ import annotations

import copy
import datetime as dt
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

import jinja2
from faker import Faker

from taugen import plugins
from taugen.authoring.values import find_surface_form
from taugen.hashing import stable_seed
from taugen.text import mid_sentence
from taugen.generators.corpus.vocabulary import NEUTRAL_VOCABULARY, DomainVocabulary

if TYPE_CHECKING:
    from taugen.authoring.models import DomainConfig, Fact
    from taugen.findings import Finding
    from taugen.generators.corpus.stamps import Chain

Register = Literal["canonical", "voiced"]
RenditionStatus = Literal["current", "superseded", "pointer", "caveat", "decoy", "route", "mention"]
CUE_STATUSES = ("pointer", "caveat", "decoy", "route", "mention")
"""Statuses of sentences that talk about a fact without owning it (see :class:`Rendition`)."""


@dataclass
class Rendition:
    """How one artifact states one fact.

    Attributes:
        fact_id: the fact stated.
        text: the exact words placed in the artifact (a sentence; for tables, the row as
            ``label | value`` cells joined by `` | ``). The placement validator looks for it.
        value_form: the surface form of the fact's value used in ``text`` ('' for facts with no value).
        register: ``canonical`` (the statement's wording) or ``voiced`` (paraphrased, spoken).
        status: ``current`` for the rule in force as of the world's now; ``superseded`` for a version
            replaced by a newer fact as of the world's now. Superseded is not "old on the record's date":
            the planner dates such a rendition before its successor took effect, when it was simply the
            rule in force, so genres frame it as history only when :func:`shown_as_history` says so.
            The cue statuses (:data:`CUE_STATUSES`) mark sentences that own nothing: ``pointer``,
            ``caveat``, ``route``, ``decoy`` and ``mention`` (the subject named in passing, no value).
        date: the in-world date on which the artifact states it.
        echo: True for a restatement of a rule that another record owns (status ``current``, value
            included), planned into a record's rule places (:func:`~taugen.generators.corpus.planner.plan_corpus`):
            a genre renders it exactly as it renders a rule the record owns, but it owns nothing, so a
            record holding only echoes is a filler. Placement reads its words and value back like any
            rendition's.
    """

    fact_id: str
    text: str
    value_form: str
    register: Register
    status: RenditionStatus
    date: dt.date
    echo: bool = False

    @property
    def states_rule(self) -> bool:
        """True when this is a rule stated with its value (status ``current`` or ``superseded``), owned or
        echoed; False for a cue."""
        return self.status not in CUE_STATUSES

    @property
    def owns(self) -> bool:
        """True when the record holding this rendition owns its fact: a rule it states that is not an
        echo (cues and echoes own nothing)."""
        return self.states_rule and not self.echo


@dataclass
class ArtifactPlan:
    """What one artifact must contain, decided by the corpus planner.

    Attributes:
        artifact_id: stable author-side id, ``<genre>_<NNN>`` (never delivered).
        genre: registered genre name.
        topic: the section id the artifact is about (fillers have one too).
        topic_title: human title of that section.
        start: first in-world timestamp (first email, call start).
        end: last in-world timestamp; never after the snapshot date.
        renditions: facts this artifact owns, then the sentences that own nothing: cues (pointers,
            caveats, route pointers, decoys, mentions) and echoes (rules owned elsewhere, restated).
        facts: the Fact objects for those renditions, by id.
        seed: the artifact's own seed (derived from the build seed and the artifact id).
        variant: a genre-specific sub-kind (``chat`` / ``phone``; ``handbook`` / ``slides``; ...).
        target_words: a length the planner asks for (words of running text), drawn from the genre's
            long-document range; 0 = the genre's natural length. Genres that write long documents
            (handbooks, archives, meeting transcripts, channel exports) grow their context text to about
            this length; others may ignore it.
        length_words: for genres that declare ``spread_words`` (``(low, high)``, or a dict from variant to
            ``(low, high)``; few artifacts, such as call recordings, slide decks, support transcripts and
            knowledge-base exports), a length in words the planner stratifies over the genre's artifacts
            that share a range: the range is cut into one stratum per artifact and each artifact gets a
            seeded draw from its own stratum, so lengths spread over the range whatever the count. The
            genre's renderer grows or trims its own optional content (exchanges, slides, articles) to
            about this length; 0 = the genre's natural length.
        rule_slots: the places for rules the record has: in a carrier, the rules it owns; in a filler,
            the rule count of one of its genre's carriers (a seeded draw), which a genre that gives
            those places to other subjects (grounded sentences, subjects decided without a value) fills,
            so fillers name as many subjects as carriers do. 0 = not planned (a genre picks its own).
    """

    artifact_id: str
    genre: str
    topic: str
    topic_title: str
    start: dt.datetime
    end: dt.datetime
    renditions: list[Rendition]
    facts: dict[str, "Fact"]
    seed: int
    variant: str = ""
    target_words: int = 0
    length_words: int = 0
    rule_slots: int = 0

    @property
    def is_carrier(self) -> bool:
        """True when the artifact owns at least one fact (cues and echoes own nothing)."""
        return any(r.owns for r in self.renditions)

    @property
    def states_rules(self) -> bool:
        """True when the artifact states at least one rule with its value, owned or echoed: what a genre
        lays out by (a genre never asks whether it owns them, so fillers with echoes read as carriers)."""
        return any(r.states_rule for r in self.renditions)

    def successor(self, fact_id: str) -> Fact | None:
        """The fact in :attr:`facts` whose ``supersedes`` is ``fact_id`` (its newer version), or None
        when this artifact does not carry the successor."""
        for fact in self.facts.values():
            if getattr(fact, "supersedes", None) == fact_id:
                return fact
        return None

    def successor_effective_date(self, fact_id: str) -> dt.date | None:
        """``effective_from`` of the fact in :attr:`facts` that supersedes ``fact_id``, or None when this
        artifact does not carry the successor (then the artifact cannot know the rule was replaced)."""
        newer = self.successor(fact_id)
        return newer.effective_from if newer is not None else None

    def rng(self, purpose: str = "") -> random.Random:
        """A random generator seeded from this artifact and ``purpose`` (never the global one)."""
        return random.Random(stable_seed(self.seed, self.artifact_id, purpose))

    def faker(self, locale: str = "en_US", purpose: str = "") -> Faker:
        """A Faker seeded from this artifact and ``purpose``.

        One Faker per locale and purpose is kept per process and seeded again on each call (making one
        costs about 2 ms, and a build asks for thousands): a seeded Faker draws exactly as a new one
        would. So a caller must be done with a Faker before asking again for the same purpose; Fakers of
        different purposes never touch each other."""
        fake = _FAKERS.get((locale, purpose))
        if fake is None:
            fake = _FAKERS[(locale, purpose)] = Faker(locale)
        fake.seed_instance(stable_seed(self.seed, self.artifact_id, "faker", purpose))
        return fake


_FAKERS: dict[tuple[str, str], Faker] = {}


def voice_capable(genre: "Genre") -> bool:
    """Genres whose renditions may be in the voiced register (people talking or writing informally)."""
    return genre.voiced and not genre.tabular


def shown_as_history(plan: ArtifactPlan, rendition: Rendition, day: dt.date) -> bool:
    """Whether ``rendition`` is framed as a replaced rule when stated on ``day``.

    The one rule every genre follows for superseded versions: True only when the rendition is
    ``superseded``, its successor is in the same plan (``plan.facts``), and ``day`` (the date of the
    message, conversation or document page that states it) is on or after the successor's
    ``effective_from``. Otherwise, in particular for a superseded version stated in a record dated
    before its successor took effect, the rendition was the rule in force on the record's date and is
    stated exactly as a current rule is (same leads, same placement), with no mention of any upcoming
    change: a record never knows its own future, and a reader must notice it is old by its date and
    find the newer record.
    """
    if rendition.status != "superseded":
        return False
    new_date = plan.successor_effective_date(rendition.fact_id)
    return new_date is not None and day >= new_date


@dataclass
class RenderedFile:
    """One delivered file: its extension (with dot, e.g. ``.eml``) and bytes."""

    suffix: str
    data: bytes
    role: str = "main"


@dataclass
class RenderedArtifact:
    """A rendered artifact.

    Attributes:
        plan: the plan it was rendered from.
        files: delivered files; the bundle names each by the digest of its bytes.
        author_text: author-side text source (a transcript, DOT source, slide text); never delivered.
        renditions: the renditions as actually placed (normally ``plan.renditions``).
        timestamps: every in-world timestamp the artifact carries, in document order (message
            dates, turn times); the chronology validator checks them.
        metadata: genre-specific facts for validators (thread message ids, speakers, page facts ...).
    """

    plan: ArtifactPlan
    files: list[RenderedFile]
    author_text: str
    renditions: list[Rendition] = field(default_factory=list)
    timestamps: list[dt.datetime] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)


@dataclass
class RenderContext:
    """Everything a genre may read while rendering, shared by all artifacts of a build.

    ``facts`` is every fact of the pack by id (current, superseded and future versions), read only. A
    genre never states one of them unless the plan gives it a rendition; it may borrow their subjects
    and must keep clear of their values when it fills a filler's slots with grounded figures that are
    not the business's policy (see :mod:`taugen.generators.corpus.genres.benchmarks`). Empty when a
    caller renders without a pack.

    ``vocabulary`` is the pack's corpus vocabulary (``<pack>/vocabulary.yaml``, see
    :mod:`taugen.generators.corpus.vocabulary`): the domain's teams, titles, channels and customer reasons.
    A genre takes its domain words only from there (``context.vocabulary.words("<genre name>")``), never
    from its own code. Neutral words when a caller renders without one.

    ``owner_genres`` maps each fact a record owns to the genre of that record (the plan's, see
    :func:`~taugen.generators.corpus.planner.owner_genres`): a record that names subjects without their
    values names those its own genre's records state first. Empty when a caller renders without a plan.
    """

    config: "DomainConfig"
    templates: jinja2.Environment
    build_seed: int
    tier: str
    facts: Mapping[str, "Fact"] = field(default_factory=dict)
    vocabulary: DomainVocabulary = NEUTRAL_VOCABULARY
    owner_genres: Mapping[str, str] = field(default_factory=dict)

    def __getstate__(self) -> dict:
        """The state pickled when the context is sent to another process (a Ray worker): the template
        environment goes without the templates it has compiled (they hold weak references, which do not
        pickle), so the receiving process compiles them again from the same loader."""
        state = dict(self.__dict__)
        if self.templates.cache is not None:
            templates = copy.copy(self.templates)
            templates.cache = jinja2.environment.copy_cache(self.templates.cache)
            state["templates"] = templates
        return state


class Genre(ABC):
    """Base class of a genre plug-in.

    Class attributes:
        name: registry name (snake_case), e.g. ``email_thread``.
        label: human name for reports.
        max_facts: most facts one artifact of this genre may own.
        categories: fact categories the genre is suited to (empty = any).
        variants: sub-kinds the planner may ask for (first is the default).
        binary: True when delivered files are not text (an author-side text source is then kept).
        affinity: how strongly the planner routes facts here: ``(value type, variant, weight)`` rows;
            value type is a FactValue ``type`` or ``none`` for facts without a value. A genre with no
            rows only ever carries filler.
        voiced: True when the genre carries people talking or writing informally (emails, chats,
            calls, meetings): the planner puts voiced renditions only there.
        mention_audience: who the genre's people name rules in passing to: ``staff`` (colleagues, the
            default), ``meeting`` (colleagues settling an agenda item), ``customer`` (a support
            conversation) or ``reader`` (a published page), which picks the mention lines that fit.
        mention_host: True for a genre that is not cue-capable (no running text people write) whose
            records still name rules of their topic in passing, without a value (a help page's questions
            about other subjects): the planner's mention passes give it mentions, never pointers,
            caveats, route pointers or decoys.
        max_mentions: at most this many planned mentions in one record (None: as ``max_facts`` allows);
            a genre whose records take planned lengths keeps its mentions within what a record of it
            names anyway.
        spoken_mentions: True when the genre's people name a rule in passing as they say it (the pack's
            spoken wordings, as often as the tier voices rules), not in the expert's words (the default).
        medium: ``text``, ``image`` or ``audio``: what a reader of the delivered files needs (a tier whose
            modality profile leaves the medium out gets the ``substitute`` instead).
        substitute: ``(genre, variant)`` that takes this genre's records when the tier's modality or
            budget leaves it out (None: the planner's fallbacks, an email thread or a phone transcript).
        tabular: True when the genre's text is rows of cells (no running sentences to voice or cue in).
        grounded_fillers: True when slots that hold no rule hold grounded sentences or figures (peers'
            published terms, customers' questions) rather than nothing.
        long_words: long-document ranges in words of running text, by variant (``''`` = any variant):
            the planner gives each such artifact a ``target_words`` in the range.
        spread_words: planned lengths, ``(low, high)`` for every variant or a dict by variant: the planner
            stratifies ``length_words`` over the genre's artifacts (the realism gate measures lengths).
        anchor_titles: by variant, the kind of record as its title shows it (``"fee schedule"``), for
            the genres a route may name as the place to look.
        preferred_cue_host: True when the genre's generic lines state no values, so the planner puts
            pointers and caveats there first.
        business_days: True when the genre's records are made by staff at work on one day (a recorded
            meeting): the planner moves a record that would fall on a weekend to a weekday of that week or
            the next that its rules allow (drawn, so no weekday gets more records than another).
        reference_kinds: by variant (``''`` = any variant), the kind of kit file τ^τ-bench files a record
            of this genre as (the generic file stems of its construction kits: ``email``, ``screenshot``,
            ``case_file``, ``process_map`` ...; see :mod:`taugen.build.reference_mix`), so a bundle's genre
            mix can be set against the mix τ^τ-bench publishes.
    """

    name: str = ""
    label: str = ""
    max_facts: int = 4
    categories: tuple[str, ...] = ()
    variants: tuple[str, ...] = ("",)
    binary: bool = False
    affinity: tuple[tuple[str, str, int], ...] = ()
    voiced: bool = False
    mention_audience: str = "staff"
    mention_host: bool = False
    max_mentions: int | None = None
    spoken_mentions: bool = False
    medium: str = "text"
    substitute: tuple[str, str] | None = None
    tabular: bool = False
    grounded_fillers: bool = False
    long_words: Mapping[str, tuple[int, int]] = MappingProxyType({})
    spread_words: tuple[int, int] | Mapping[str, tuple[int, int]] | None = None
    anchor_titles: Mapping[str, str] = MappingProxyType({})
    preferred_cue_host: bool = False
    business_days: bool = False
    reference_kinds: Mapping[str, str] = MappingProxyType({})

    def reference_kind(self, variant: str) -> str:
        """The τ^τ-bench kit kind of a record of ``variant`` (:attr:`reference_kinds`; ``other`` when the
        genre declares none)."""
        return self.reference_kinds.get(variant) or self.reference_kinds.get("") or "other"

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """How long before its last moment a record of this genre starts (default: 0 to 3 days, a
        document's drafting); drawn from ``rng``."""
        return dt.timedelta(days=rng.randint(0, 3))

    def accepts(self, fact: "Fact") -> bool:
        """Whether a fact may be owned by this genre (default: by category)."""
        return not self.categories or fact.category in self.categories

    def variant_for(self, fact: "Fact", variant: str, vocabulary: DomainVocabulary) -> str:
        """The variant a record of this genre that owns ``fact`` takes, given ``variant``, the one drawn by
        the genre's ``affinity`` for the fact's value type (default: that one). A genre whose variants
        serve different subjects overrides it with its section of the pack's ``vocabulary``."""
        return variant

    @abstractmethod
    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Render the plan into delivered files. Must be deterministic for a given plan."""

    @abstractmethod
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Read the delivered files back into plain text, using the format's own reader.

        ``author_text`` is the author-side source; only genres whose delivered file has no readable
        text (audio) may return it, and they must say so in their docstring.
        """

    def validate(self, artifact: RenderedArtifact) -> list["Finding"]:
        """Structural checks of one rendered artifact (default: none)."""
        return []

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list["Chain"]:
        """The dated chains a reader sees in the delivered ``files`` (default: none, nothing to check).

        Each chain lists :class:`~taugen.generators.corpus.stamps.Stamp` s in the order the record
        relates them (a message before its reply, a turn before the next); the chronology validator
        checks that each goes forward and that none is after the world's now. Only the files are read
        (``author_text`` as :meth:`extract_text` takes it, for a genre whose file has no text reader), so
        a file edited after the build is judged on what it shows.

        Args:
            zone: the offset a wall clock written without one takes when the file states none either
                (the world's now's).
        """
        return []

    def customer_opening(self, text: str) -> str | None:
        """The customer's first message in ``text`` (what :meth:`extract_text` returned), for a genre of
        conversations with customers; None for any other genre (the default). The realism gate checks
        that no two customers open a conversation with the same words."""
        return None


def register_genre(genre_class: type[Genre]) -> type[Genre]:
    """Class decorator: register an instance of ``genre_class`` under ``genre_class.name`` (in
    :mod:`taugen.plugins`, kind ``genre``).

    Raises:
        ValueError: the name is empty or already taken by another class.
    """
    if not genre_class.name:
        raise ValueError(f"{genre_class.__name__} has no name")
    plugins.register("genre", genre_class.name, genre_class())
    return genre_class


def genres() -> dict[str, Genre]:
    """All registered genres by name, sorted (the built-ins plus those of ``taugen.plugins`` modules)."""
    import taugen.generators.corpus.genres  # noqa: F401  (registers the built-ins)

    return dict(sorted(plugins.registered("genre").items()))


def get_genre(name: str) -> Genre:
    """The registered genre ``name``; raises ``KeyError`` naming the known genres."""
    known = genres()
    if name not in known:
        raise KeyError(f"unknown genre '{name}' (known: {', '.join(known)})")
    return known[name]


def birth_date(fake: Faker, on: dt.date, minimum_age: int, maximum_age: int) -> dt.date:
    """A seeded date of birth of someone aged ``minimum_age`` to ``maximum_age`` years on ``on``.

    Faker's own ``date_of_birth`` counts ages from the machine's clock, so a build made after midnight
    drew other birth dates (and every task that quotes one changed); this counts from a date the pack fixes
    (the world's ``now`` or a record's date), so the same seed gives the same date on any day.

    Raises:
        ValueError: ``minimum_age`` is greater than ``maximum_age``.
    """
    if minimum_age > maximum_age:
        raise ValueError(f"minimum_age {minimum_age} is greater than maximum_age {maximum_age}")

    def years_before(years: int) -> dt.date:
        try:
            return on.replace(year=on.year - years)
        except ValueError:  # 29 February in a year without one
            return on.replace(year=on.year - years, day=28)

    earliest = years_before(maximum_age + 1) + dt.timedelta(days=1)
    return fake.date_between_dates(date_start=earliest, date_end=years_before(minimum_age))


def fact_subject(plan: ArtifactPlan, rendition: Rendition) -> str | None:
    """The short noun phrase a rendition's fact is about (without a leading article), or None."""
    fact = plan.facts.get(rendition.fact_id)
    subject = getattr(fact, "subject", None) if fact is not None else None
    if not subject:
        return None
    subject = mid_sentence(subject.strip())
    value = getattr(fact, "value", None)
    if rendition.status in CUE_STATUSES and value is not None and find_surface_form(value, subject) is not None:
        return None  # a cue never names the value it points away from (a subject may carry a key term)
    for article in ("the ", "a ", "an "):
        subject = subject.removeprefix(article)
    return subject
