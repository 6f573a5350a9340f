"""Echoes: a filler's rule places restate rules of its topic that other records own (issue 10 item 3).

The planner fills them (``filler_echoes``), genres render them as rules they own, the manifest lists them
apart from the owner's renditions, and the coverage, placement and chronology validators check them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from taugen.authoring.pack import load_pack
from taugen.build.files import read_bundle
from taugen.generators.corpus.echoes import MAX_ECHOES
from taugen.generators.corpus.genre import genres
from taugen.generators.corpus.planner import owner_genres, plan_corpus
from taugen.generators.corpus.vocabulary import load_vocabulary
from taugen.generators.tiers import tier
from taugen.validators.bundle_view import BundleView
from taugen.validators.chronology import check_chronology
from taugen.validators.corpus import check_coverage, check_placement

PACK = Path(__file__).resolve().parents[1] / "taugen/domains/banking"
MANIFEST = "author/manifest.json"


@pytest.fixture(scope="module")
def plans():
    """The banking hard plan at seed 1, with echoes (the tier's) and without (``filler_echoes=0``)."""
    pack = load_pack(PACK)
    vocabulary = load_vocabulary(pack.directory, [s.id for s in pack.config.sections])
    available = genres()
    hard = tier("hard")
    assert hard.filler_echoes == 1.0 and tier("medium").filler_echoes == 1.0 and tier("easy").filler_echoes == 0
    with_echoes = plan_corpus(pack, hard, 1, available, vocabulary=vocabulary)
    without = plan_corpus(pack, dataclasses.replace(hard, filler_echoes=0.0), 1, available, vocabulary=vocabulary)
    return pack, with_echoes, without, available


def test_fillers_restate_current_rules_that_another_record_owns(plans):
    pack, plan, _without, _available = plans
    owners = {r.fact_id: a.artifact_id for a in plan.artifacts for r in a.renditions if r.owns}
    routed = {route["fact_id"] for route in plan.routes}
    fillers = [a for a in plan.artifacts if not a.is_carrier]
    echoed = [a for a in fillers if any(r.echo for r in a.renditions)]
    assert len(echoed) / len(fillers) > 0.9, (len(echoed), len(fillers))
    assert not any(r.echo for a in plan.artifacts if a.is_carrier for r in a.renditions)
    times: Counter[str] = Counter()
    for artifact in echoed:
        echoes = [r for r in artifact.renditions if r.echo]
        assert len(echoes) <= artifact.rule_slots
        for echo in echoes:
            fact = pack.facts[echo.fact_id]
            assert echo.status == "current" and not echo.owns and pack.is_current(fact.id)
            assert owners[fact.id] != artifact.artifact_id
            assert fact.effective_from <= echo.date and fact.effective_from <= artifact.end.date()
            assert fact.id not in plan.client_held and fact.id not in plan.contested and fact.id not in routed
            assert fact.value is None or echo.value_form, echo
            times[fact.id] += 1
    assert sum(times.values()) > len(fillers)  # about as many rules as carriers hold, not one each
    # spread over the topic's rules: none restated more than twice its topic's cap (MAX_ECHOES, or one more
    # than the topic's filler places per rule: here an upper bound, from every filler's places)
    eligible = Counter(pack.facts[f].section for f in owners if pack.is_current(f) and f not in routed
                       and f not in plan.client_held and f not in plan.contested)
    places = Counter()
    for artifact in fillers:
        places[artifact.topic] += artifact.rule_slots
    for fact_id, count in times.items():
        topic = pack.facts[fact_id].section
        assert count <= 2 * max(MAX_ECHOES, math.ceil(places[topic] / eligible[topic]) + 1), (fact_id, count)
    assert len(times) > 0.6 * sum(eligible.values()), (len(times), sum(eligible.values()))


def test_echoes_change_no_owner(plans):
    """Ownership is decided before the echoes: the same facts have the same owners, the same records
    are carriers, and a record's own renditions are the same sentences."""
    _pack, plan, without, _available = plans
    assert owner_genres(plan) == owner_genres(without)
    owned = {a.artifact_id: [(r.fact_id, r.text) for r in a.renditions if r.owns] for a in plan.artifacts}
    assert owned.keys() == {a.artifact_id for a in without.artifacts}
    differing = [a.artifact_id for a in without.artifacts
                 if [(r.fact_id, r.text) for r in a.renditions if r.owns] != owned[a.artifact_id]]
    # the stand-ins and peers' figures beside voiced rules draw after the mentions, which echoes change
    assert len(differing) < 0.2 * len(owned), differing[:5]
    assert {a.artifact_id for a in plan.artifacts if a.is_carrier} == \
        {a.artifact_id for a in without.artifacts if a.is_carrier}
    assert not any(r.echo for a in without.artifacts for r in a.renditions)


def test_echoes_take_the_kinds_of_rules_their_genres_carriers_own(plans):
    """Per genre, the value types of fillers' echoes follow the carriers' own rules: what a numeric reader
    counts (amounts, percents, day counts) is spread alike."""
    pack, plan, _without, _available = plans

    def value_type(fact_id: str) -> str:
        value = pack.facts[fact_id].value
        return value.type if value is not None else ""

    for genre in ("email_thread", "support_transcript", "meeting_transcript", "channel_export", "pdf_document"):
        owned = Counter(value_type(r.fact_id) for a in plan.artifacts if a.genre == genre for r in a.renditions if r.owns)
        echoed = Counter(value_type(r.fact_id) for a in plan.artifacts if a.genre == genre for r in a.renditions if r.echo)
        distance = 0.5 * sum(abs(owned[k] / sum(owned.values()) - echoed[k] / sum(echoed.values()))
                             for k in owned.keys() | echoed.keys())
        assert distance < 0.2, (genre, owned, echoed)


def test_fillers_restate_clock_times_as_often_as_their_genres_carriers_state_them(plans):
    """A text rule that gives a clock time (a branch's Saturday hours, a wire cut-off) is its own kind for
    echoes (``text/clock``): per genre, the share of fillers' echoes stating a clock time is within 10 points
    of the share of carriers' rules that do. Matched on the value type alone (text), seed 1's knowledge-base
    fillers restated clock times at less than half their carriers' rate, and a numeric reader saw the clock
    times (0.668; 0.58 without them)."""
    pack, plan, _without, _available = plans
    clock = re.compile(r"\b\d{1,2}:\d{2}\b")
    checked = 0
    for genre in ("knowledge_base_archive", "email_thread", "support_transcript", "meeting_transcript",
                  "channel_export", "issue_tracker_export"):
        owned = [clock.search(pack.facts[r.fact_id].statement) is not None
                 for a in plan.artifacts if a.genre == genre for r in a.renditions if r.owns]
        echoed = [clock.search(pack.facts[r.fact_id].statement) is not None
                  for a in plan.artifacts if a.genre == genre for r in a.renditions if r.echo]
        if sum(owned) < 5:
            continue
        checked += 1
        assert abs(sum(owned) / len(owned) - sum(echoed) / len(echoed)) <= 0.10, \
            (genre, sum(owned), len(owned), sum(echoed), len(echoed))
    assert checked >= 2


def test_fillers_restate_amounts_of_money_as_often_as_their_genres_carriers_state_them(plans):
    """A rule whose statement gives an amount of money is matched as such whatever its value type (a cap in
    dollars, a percent "with a minimum of $10": ``cap+amount``, ``percent+amount``): per genre of at least
    thirty owned rules, the share of echoes whose rule states an amount is within 4 points of the share of
    the genre's own rules that do. Matched on the type alone, seed 1's web-screenshot fillers restated
    amounts in 12 % of their rules against carriers' 18 % (the pages: a dollar figure on 19-25 % of
    fillers against 29-44 % of carriers at seeds 0-3, which a numeric reader leaned on)."""
    pack, plan, _without, _available = plans
    amount = re.compile(r"\$\s?\d")
    checked = 0
    for genre in sorted({a.genre for a in plan.artifacts}):
        owned = [amount.search(pack.facts[r.fact_id].statement) is not None
                 for a in plan.artifacts if a.genre == genre for r in a.renditions if r.owns]
        echoed = [amount.search(pack.facts[r.fact_id].statement) is not None
                  for a in plan.artifacts if a.genre == genre for r in a.renditions if r.echo]
        if len(owned) < 30 or not echoed:
            continue
        checked += 1
        assert abs(sum(owned) / len(owned) - sum(echoed) / len(echoed)) <= 0.04, \
            (genre, sum(owned), len(owned), sum(echoed), len(echoed))
    assert checked >= 6


def test_echoes_keep_their_genres_mix_of_value_types_and_duration_units(plans):
    """Each talk genre's echoes restate rules in the mix of value types its own rules have, durations by
    unit (a span in days reads unlike one in years): each place takes the type furthest behind. Matching
    each place to one carrier's rule alone left seed 1's meeting transcripts echoing years for half their
    durations where their own rules gave days for half (total-variation distance 0.33 on units), and a
    numeric reader told their carriers from fillers by it (0.662). A strict expected failure until session 31
    (meetings 0.126-0.138: a topic's typed rules reach the echo cap and its text rules do not); it passes
    since email threads moved to weekdays re-drew the plan (channel exports 0.118, meetings 0.076; seeds 0
    and 2 at most 0.094), not because that mechanism changed."""
    pack, plan, _without, _available = plans

    def kind(fact_id: str) -> str:
        value = pack.facts[fact_id].value
        return "" if value is None else f"duration/{value.unit}" if value.type == "duration" else value.type

    def distance(first: Counter, second: Counter) -> float:
        return 0.5 * sum(abs(first[k] / sum(first.values()) - second[k] / sum(second.values()))
                         for k in first.keys() | second.keys())

    for genre in ("email_thread", "support_transcript", "meeting_transcript", "channel_export", "issue_tracker_export"):
        owned = Counter(kind(r.fact_id) for a in plan.artifacts if a.genre == genre for r in a.renditions if r.owns)
        echoed = Counter(kind(r.fact_id) for a in plan.artifacts if a.genre == genre for r in a.renditions if r.echo)
        durations = [Counter({k: v for k, v in c.items() if k.startswith("duration/")}) for c in (owned, echoed)]
        assert distance(owned, echoed) < 0.12, (genre, owned, echoed)
        assert distance(*durations) < 0.2, (genre, durations)


def test_no_handbook_repeats_a_sentence_another_handbook_states(plans):
    """In a genre that writes long documents, an echo never repeats the words another record of the genre
    states the rule in (the realism gate forbids a sentence shared by two long documents)."""
    _pack, plan, _without, available = plans
    long_genres = {name for name, genre in available.items() if genre.long_words}
    assert "pdf_document" in long_genres
    seen: Counter[tuple[str, str]] = Counter()
    for artifact in plan.artifacts:
        if artifact.genre in long_genres:
            for rendition in artifact.renditions:
                if rendition.status in ("current", "superseded"):
                    seen[(artifact.genre, " ".join(rendition.text.lower().split()))] += 1
    assert seen and max(seen.values()) == 1


# --------------------------------------------------------------------------------------------------
# the validators on the manifest's echoes
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hard_files(built_bundle):
    files = read_bundle(built_bundle("hard"))
    return {path: data for path, data in files.items() if not path.startswith("author/validation.")}


def _edited(files: dict[str, bytes], edit) -> BundleView:
    manifest = json.loads(files[MANIFEST])
    edit(manifest)
    return BundleView({**files, MANIFEST: json.dumps(manifest).encode()}, source="<test>")


def _first_echo(manifest: dict) -> tuple[str, dict]:
    return next((artifact_id, entry["echoes"][0]) for artifact_id, entry in sorted(manifest["artifacts"].items())
                if entry["echoes"])


def test_the_built_manifest_lists_echoes_apart_and_they_validate(hard_files):
    view = BundleView(hard_files, source="<test>")
    manifest = view.manifest
    echoes = [(a, e) for a, entry in manifest["artifacts"].items() for e in entry["echoes"]]
    assert len(echoes) > 500
    assert all(not manifest["artifacts"][a]["carrier"] for a, _ in echoes)
    assert all(manifest["facts"][e["fact_id"]]["owner"] not in (None, a) for a, e in echoes)
    assert check_coverage(view) == [] and check_placement(view) == [] and check_chronology(view) == []


@pytest.mark.parametrize("change, code", [
    ("client_held", "echo_without_owner"), ("contested", "echo_without_owner"), ("superseded", "echo_without_owner"),
    ("own", "echo_without_owner"), ("unknown", "unknown_fact")])
def test_coverage_flags_an_echo_of_a_fact_no_other_record_owns(hard_files, change, code):
    artifact_id, first = _first_echo(json.loads(hard_files[MANIFEST]))
    fact_id = "no_such_fact" if change == "unknown" else first["fact_id"]

    def edit(manifest):
        echo = manifest["artifacts"][artifact_id]["echoes"][0]
        fact = manifest["facts"][echo["fact_id"]]
        if change == "client_held":
            owner = manifest["artifacts"][fact["owner"]]
            owner["renditions"] = [r for r in owner["renditions"] if r["fact_id"] != fact_id]
            fact.update(client_held=True, owner=None)
        elif change == "contested":
            fact["contested"] = True
        elif change == "superseded":
            fact["current"] = False
        elif change == "own":
            manifest["artifacts"][fact["owner"]]["renditions"] = [
                r for r in manifest["artifacts"][fact["owner"]]["renditions"] if r["fact_id"] != fact_id]
            fact["owner"] = artifact_id
            manifest["artifacts"][artifact_id]["renditions"].append({**echo, "status": "current"})
        else:
            echo["fact_id"] = fact_id

    manifest = json.loads(hard_files[MANIFEST])
    restating = [artifact_id] if change in ("own", "unknown") else sorted(
        a for a, entry in manifest["artifacts"].items() if any(e["fact_id"] == fact_id for e in entry["echoes"]))
    findings = check_coverage(_edited(hard_files, edit))
    assert sorted((f.code, f.subject) for f in findings) == [(code, f"{fact_id}@{a}") for a in restating], \
        [f.model_dump() for f in findings]


def test_placement_reads_every_echo_back_from_the_delivered_file(hard_files):
    def edit(manifest):
        _artifact_id, echo = _first_echo(manifest)
        echo["text"] = echo["text"] + " And that is all there is to it"

    findings = check_placement(_edited(hard_files, edit))
    assert [f.code for f in findings] == ["rendition_not_found"]


def test_chronology_flags_an_echo_dated_before_its_rule_took_effect(hard_files):
    artifact_id, echo = _first_echo(json.loads(hard_files[MANIFEST]))

    def edit(manifest):  # the rule takes effect the day after the record was written
        written = dt.date.fromisoformat(manifest["artifacts"][artifact_id]["end"][:10])
        manifest["facts"][echo["fact_id"]]["effective_from"] = (written + dt.timedelta(days=1)).isoformat()

    findings = check_chronology(_edited(hard_files, edit))
    assert ("current_before_effective", f"{echo['fact_id']}@{artifact_id}") in {(f.code, f.subject) for f in findings}
