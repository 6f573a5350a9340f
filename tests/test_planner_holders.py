"""How the planner cuts a genre's rules into records, and the time a record spans.

A carrier-vs-filler reader is scored per genre (issue 10 item 3), so a genre needs enough carriers for its
score to mean something: the planner gives a genre's carriers fewer rules each, down to one, before it
leaves the genre under ``MEASURED_CARRIERS``. And a record that writes the times of separate acts (a
channel's messages, an issue's comments, the cases an extract lists) spans time.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from taugen.authoring.pack import load_pack
from taugen.generators.corpus.genre import genres
from taugen.generators.corpus.planner import CALL_BUDGETED, MEASURED_CARRIERS, _models, plan_corpus
from taugen.generators.corpus.vocabulary import load_vocabulary
from taugen.generators.tiers import tier

PACK = Path(__file__).resolve().parents[1] / "taugen/domains/banking"


@pytest.fixture(scope="module", params=[1, 3])
def hard_plan(request):
    pack = load_pack(PACK)
    vocabulary = load_vocabulary(pack.directory, [s.id for s in pack.config.sections])
    return plan_corpus(pack, tier("hard"), request.param, genres(), vocabulary=vocabulary)


def test_a_genre_short_of_measured_carriers_gives_each_carrier_one_rule(hard_plan):
    # each carrier as the planner cut it: under the genre it was planned in (a call over the budget moves
    # to another genre later) and with the rules the client overlay later takes out of the records
    planned_in = {s["artifact"]: s["from_genre"] for s in hard_plan.modality_substitutions}
    removed = {o["artifact"]: len(o["removed"]) for o in hard_plan.overlay}
    rules: dict[str, list[int]] = defaultdict(list)
    for artifact in hard_plan.artifacts:
        owned = sum(1 for rendition in artifact.renditions if rendition.owns) + removed.get(artifact.artifact_id, 0)
        if owned:
            rules[planned_in.get(artifact.artifact_id, artifact.genre)].append(owned)
    assert set(rules) >= {"knowledge_base_archive", "decision_register", "case_ledger_export", "flowchart"}
    for genre, counts in rules.items():
        if genre in CALL_BUDGETED:
            continue
        assert len(counts) >= MEASURED_CARRIERS or max(counts) == 1, (genre, len(counts), max(counts))
    # the genres that had carriers enough at their capacity keep records of several rules
    assert max(rules["email_thread"]) == genres()["email_thread"].max_facts
    assert max(rules["pdf_document"]) > 3


def test_a_genres_fillers_are_dated_in_its_carriers_seasons(hard_plan):
    """Fillers drawn over the whole span of their models' rules fell in another season than their carriers:
    seed 3's case ledgers had 33 % of their 12 carriers in standard time against 62 % of fillers (seed 0: 64 %
    of 22 against 38 %), and with timestamps carrying the season's UTC offset a TF-IDF reader saw it (0.724).
    Dealt evenly and dated near their models, the gap is at most 0.09 at seeds 1 and 3 (genres of at least
    twelve carriers and twelve fillers)."""
    pack = load_pack(PACK)
    zone = ZoneInfo(pack.config.time_zone)  # America/Chicago: standard time from November to March
    standard = pack.config.now.replace(month=1).astimezone(zone).utcoffset()
    winter: dict[tuple[str, bool], list[bool]] = defaultdict(list)
    for artifact in hard_plan.artifacts:
        noon = artifact.end.replace(hour=12).astimezone(zone)
        winter[(artifact.genre, artifact.is_carrier)].append(noon.utcoffset() == standard)
    measured = [g for g, carrier in winter if carrier and len(winter[(g, True)]) >= 12 and len(winter[(g, False)]) >= 12]
    assert {"case_ledger_export", "reference_table", "meeting_transcript"} <= set(measured)
    for genre in measured:
        carriers, fillers = winter[(genre, True)], winter[(genre, False)]
        gap = abs(sum(carriers) / len(carriers) - sum(fillers) / len(fillers))
        assert gap <= 0.15, (genre, round(gap, 2), len(carriers), len(fillers))


def test_each_carrier_models_as_many_fillers_as_any_other():
    carriers = [object() for _ in range(7)]
    dealt = _models(carriers, 30, random.Random(3))  # type: ignore[arg-type]
    counts = [sum(1 for model in dealt if model is carrier) for carrier in carriers]
    assert sorted(counts) == [4, 4, 4, 4, 4, 5, 5]
    assert len({id(m) for m in _models(carriers, 5, random.Random(3))}) == 5  # type: ignore[arg-type]
    assert _models([], 3, random.Random(3)) == [None, None, None]


@pytest.mark.parametrize("name", ["channel_export", "issue_tracker_export", "case_ledger_export"])
def test_a_record_of_separate_acts_spans_time(name):
    """The default lead time (0 to 3 days) gave one such record in four no time at all, and all its times
    one moment (the chronology gate's ``delivered_frozen_clock``)."""
    rng = random.Random(7)
    spans = [genres()[name].lead_time(rng).total_seconds() for _ in range(400)]
    assert min(spans) >= 3600
