"""Difficulty tiers: presets of measurable knobs (DESIGN.md §4).

A tier never changes code paths, only these numbers. The bundle reports the knobs asked for and what
the build achieved, so "hard" is a claim that can be checked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Surface = Literal["sop", "core", "hard", "hard_client"]


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
        superseded_share: share of supersession arcs whose older versions are rendered as history.
        filler_ratio: filler artifacts per carrier artifact.
        evidence_routes: how many facts are reachable only by following a pointer between two records.
        max_calls: at most this many call recordings (audio is the slowest genre).
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

    def knobs(self) -> dict:
        """The preset as plain data for ``bundle.json``."""
        return asdict(self)


TIERS: dict[str, TierPreset] = {
    "easy": TierPreset("easy", (1, 1), ("None",), 45, "sop", 0.0, 0.0, 0.25, 0, 2),
    "medium": TierPreset("medium", (2, 2), ("None", "Plain"), 45, "core", 0.3, 0.5, 0.6, 3, 4),
    "hard": TierPreset("hard", (3, 4), ("None", "Plain", "Demanding"), 45, "hard", 0.75, 1.0, 1.2, 8, 8),
}


def tier(name: str) -> TierPreset:
    """The preset called ``name``; raises ``KeyError`` listing the tiers."""
    if name not in TIERS:
        raise KeyError(f"unknown difficulty '{name}' (choose from {', '.join(TIERS)})")
    return TIERS[name]
