"""A bundle's genre mix set against the corpus mix τ^τ-bench publishes.

τ^τ-bench (sierra-research/hyper-tau-bench) names every file of a construction kit by a generic stem
(``sandbox/kit.py::_GENERIC_ARTIFACT_STEMS``: email, screenshot, device_screen, case_file, process_map,
slide_deck, intake_form, workspace_export, meeting_transcript, knowledge_archive, work_item_export,
system_export, reference_document, ...). The one published per-kind count of a whole corpus is its airline
hard evidence bundle (``core_evidence_bundle_hard_001``): 377 kit files, by stem case_file 166, screenshot
110, email 93, intake_form 3, process_map 3, slide_deck 1, workspace_export 1 (as read from the
repository; ``../shared/reference/hypertau-authoring.md``, section 6). It publishes no token counts, so
token shares are ours alone.

Each genre declares the kind its records are filed as (:attr:`~taugen.generators.corpus.genre.Genre.
reference_kinds`); :func:`reference_mix` counts a bundle's records by kind and compares the shares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

HYPERTAU_AIRLINE_HARD_KIT: Mapping[str, int] = {
    "case_file": 166, "screenshot": 110, "email": 93, "intake_form": 3, "process_map": 3, "slide_deck": 1,
    "workspace_export": 1,
}
"""Kit files of τ^τ-bench's airline hard evidence bundle by generic stem (377 in all; see the module
docstring for the source)."""
REFERENCE_NAME = "τ^τ-bench airline hard evidence bundle (377 kit files)"
KIT_KINDS = frozenset({"api_contract", "qa_review_export", "intake_form", "device_screen", "email", "system_export",
                       "screen_recording", "work_item_export", "knowledge_archive", "process_map", "slide_deck",
                       "meeting_transcript", "reference_document", "workspace_export", "case_file", "screenshot"})
"""τ^τ-bench's generic kit file stems (``sandbox/kit.py::_GENERIC_ARTIFACT_STEMS``, 16 entries): the kinds a
genre may declare."""


def reference_mix(records: Iterable[tuple[str, int]], reference: Mapping[str, int] = HYPERTAU_AIRLINE_HARD_KIT,
                  ) -> dict[str, Any]:
    """Our records by τ^τ kit kind beside ``reference``'s.

    Args:
        records: one ``(kind, tokens)`` per record (the policy document excluded: τ^τ delivers its SOP
            outside the kit).
        reference: kit files by kind of the corpus to compare with.

    Returns:
        ``{"reference": name, "records": n, "reference_files": m, "kinds": {kind: {"records", "share",
        "tokens", "token_share", "reference_files", "reference_share"}}, "total_variation": d}``, kinds in
        order of our records, then the reference's, then name (``bundle.json`` writes keys sorted), shares
        rounded to 3 places; ``total_variation`` is half the sum of the absolute share differences (0: the
        same mix, 1: no kind in common).
    """
    counts: dict[str, int] = {}
    tokens: dict[str, int] = {}
    for kind, number in records:
        counts[kind] = counts.get(kind, 0) + 1
        tokens[kind] = tokens.get(kind, 0) + number
    total, total_tokens, files = sum(counts.values()), sum(tokens.values()), sum(reference.values())
    kinds: dict[str, dict[str, Any]] = {}
    for kind in sorted(set(counts) | set(reference), key=lambda k: (-counts.get(k, 0), -reference.get(k, 0), k)):
        kinds[kind] = {"records": counts.get(kind, 0),
                       "share": round(counts.get(kind, 0) / total, 3) if total else 0.0,
                       "tokens": tokens.get(kind, 0),
                       "token_share": round(tokens.get(kind, 0) / total_tokens, 3) if total_tokens else 0.0,
                       "reference_files": reference.get(kind, 0),
                       "reference_share": round(reference.get(kind, 0) / files, 3) if files else 0.0}
    distance = sum(abs((counts.get(k, 0) / total if total else 0.0) - (reference.get(k, 0) / files if files else 0.0))
                   for k in kinds) / 2
    return {"reference": REFERENCE_NAME, "records": total, "reference_files": files, "kinds": kinds,
            "total_variation": round(distance, 3)}
