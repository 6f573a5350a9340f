"""Difficulty tiers: presets of measurable knobs (DESIGN.md §4).

A tier never changes code paths, only these numbers. The bundle reports the knobs asked for and what
the build achieved, so "hard" is a claim that can be checked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Literal

Surface = Literal["sop", "core", "hard", "hard_client"]
SURFACES: tuple[str, ...] = ("sop", "core", "hard", "hard_client")
Modality = Literal["text", "text+image", "text+image+audio"]
MODALITIES: tuple[str, ...] = ("text", "text+image", "text+image+audio")


@dataclass(frozen=True)
class TierPreset:
    """Knobs of one tier.

    Attributes:
        name: ``easy`` | ``medium`` | ``hard``.
        problems_per_task: inclusive (min, max) problems composed per task (identity not counted).
        personas: persona names assigned round-robin, as τ²-bench's telecom generator does.
        tasks: how many tasks to compose.
        surface: evidence surface; ``hard`` becomes ``hard_client`` when the pack has client-held facts.
        voiced_share: share of renditions in the voiced register (0–1).
        superseded_share: share of supersession arcs whose older versions are rendered as history
            (the others keep only their current version in the records).
        filler_ratio: filler artifacts per carrier artifact.
        evidence_routes: how many facts are reachable only by following a pointer between two records.
        max_calls: the audio budget: at most this many call recordings state rules, and half as many more
            (at least one) hold none; records planned beyond it are said in another genre (audio is the
            slowest genre to render). ``--max-calls`` overrides it. At hard, 10 carriers and 5 fillers:
            above the 12 records from which the length-spread gate judges a genre.
        modality: which media the records may use (``text``, ``text+image``, ``text+image+audio``).
        contested: how many facts the records disagree about (each with at least two decoys); only on
            ``hard_client``.
        long_documents: scale of long documents (handbooks, archives, transcripts): 0 keeps every genre
            at its natural length, 1 draws long-document lengths from the genre's full range.
        case_kind_share: the least share of tasks each case kind (routine, multi-step, multi-intent,
            unusual, incomplete, changing, declined, redirected) should reach; the achieved mix is reported.
        filler_mentions: share of filler records, in genres that carry cues, that name rules of their
            topic in passing (by subject, never by value), as many as a carrier of the genre states; a
            carrier with room names one more at half that rate. A filler then reads like a carrier to a
            keyword search or a text classifier, without owning anything. 0 on tiers whose policy
            document owns every fact.
        mentions_per_fact: after the filler mentions, every fact a record owns is named in passing by
            up to this many other records of its topic (where they have room), carriers and fillers at
            one rate, so a search on its subject words finds talk about it, not only its owner. 0 adds
            none.
        mention_figures: share of mentions said among staff that also give another organisation's figure
            for the subject (see :mod:`taugen.generators.corpus.genres.benchmarks`): a slot that names a
            rule without stating it holds a typed figure in a rule's frame as a rule's slot does, so
            fillers (whose slots are mostly mentions) carry amounts, percents and day counts as carriers do.
            0.8 at hard (banking hard seeds 0-19 build with it), 0 below.
        filler_echoes: share of a filler's rule places (``rule_slots``) that restate a rule of its topic
            owned by another record (see :mod:`taugen.generators.corpus.echoes`): the genre renders it as
            a rule it owns, so stating rules with their figures does not tell carriers from fillers. 0
            leaves the places to the genre (subjects named without a value).
    """

    name: str
    problems_per_task: tuple[int, int]
    personas: tuple[str, ...]
    tasks: int
    surface: Surface
    voiced_share: float
    superseded_share: float
    filler_ratio: float
    evidence_routes: int
    max_calls: int
    modality: Modality = "text"
    contested: int = 0
    long_documents: float = 0.0
    case_kind_share: float = 0.0
    filler_mentions: float = 0.0
    mentions_per_fact: int = 0
    mention_figures: float = 0.0
    filler_echoes: float = 0.0

    def knobs(self) -> dict:
        """The preset as plain data for ``bundle.json``."""
        return asdict(self)

    def with_overrides(self, surface: str | None = None, modality: str | None = None,
                       max_calls: int | None = None) -> "TierPreset":
        """This preset with another evidence surface, modality profile and/or audio budget (``max_calls``:
        call recordings that state rules; half as many more, at least one, hold none).

        Raises:
            KeyError: an unknown surface or modality (the message lists the known ones), or a negative
                ``max_calls``.
        """
        preset = self
        if max_calls is not None:
            if max_calls < 0:
                raise KeyError(f"the audio budget (--max-calls) must be 0 or more, not {max_calls}")
            preset = replace(preset, max_calls=max_calls)
        if surface is not None:
            if surface not in SURFACES:
                raise KeyError(f"unknown evidence surface '{surface}' (choose from {', '.join(SURFACES)})")
            preset = replace(preset, surface=surface)  # type: ignore[arg-type]
        if modality is not None:
            if modality not in MODALITIES:
                raise KeyError(f"unknown modality profile '{modality}' (choose from {', '.join(MODALITIES)})")
            preset = replace(preset, modality=modality)  # type: ignore[arg-type]
        return preset


TIERS: dict[str, TierPreset] = {
    "easy": TierPreset("easy", (1, 1), ("None",), 60, "sop", 0.0, 0.0, 0.25, 0, 2, "text", 0, 0.0),
    "medium": TierPreset("medium", (2, 2), ("None", "Plain"), 120, "core", 0.3, 0.5, 0.6, 3, 4, "text+image", 0, 0.15,
                         filler_mentions=1.0, filler_echoes=1.0),
    "hard": TierPreset("hard", (3, 4), ("None", "Plain", "Demanding"), 300, "hard", 0.75, 1.0, 2.2, 12, 10,
                       "text+image+audio", 3, 1.0, 0.05, filler_mentions=1.0, mentions_per_fact=4,
                       mention_figures=0.8, filler_echoes=1.0),
}


def tier(name: str) -> TierPreset:
    """The preset called ``name``; raises ``KeyError`` listing the tiers."""
    if name not in TIERS:
        raise KeyError(f"unknown difficulty '{name}' (choose from {', '.join(TIERS)})")
    return TIERS[name]
