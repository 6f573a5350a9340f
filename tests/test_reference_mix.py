"""A bundle's records counted by τ^τ-bench kit kind and set against the published airline hard mix; the
audio budget as a build knob."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taugen.authoring.pack import load_pack
from taugen.build.reference_mix import HYPERTAU_AIRLINE_HARD_KIT, KIT_KINDS, reference_mix
from taugen.generators.corpus.genre import genres
from taugen.generators.corpus.planner import plan_corpus
from taugen.generators.tiers import tier

BANKING = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking"


def test_every_genre_files_each_variant_as_a_tau_tau_kit_kind():
    for name, genre in genres().items():
        for variant in genre.variants:
            assert genre.reference_kind(variant) in KIT_KINDS, (name, variant)
    assert sum(HYPERTAU_AIRLINE_HARD_KIT.values()) == 377 and set(HYPERTAU_AIRLINE_HARD_KIT) <= KIT_KINDS


def test_mix_shares_token_shares_and_distance_by_hand():
    mix = reference_mix([("email", 10), ("email", 30), ("case_file", 60), ("meeting_transcript", 100)],
                        reference={"email": 1, "case_file": 3})
    assert mix["records"] == 4 and mix["reference_files"] == 4
    assert mix["kinds"]["email"] == {"records": 2, "share": 0.5, "tokens": 40, "token_share": 0.2,
                                     "reference_files": 1, "reference_share": 0.25}
    assert mix["kinds"]["meeting_transcript"]["reference_share"] == 0.0
    assert mix["kinds"]["case_file"]["share"] == 0.25 and mix["kinds"]["case_file"]["reference_share"] == 0.75
    assert list(mix["kinds"]) == ["email", "case_file", "meeting_transcript"]  # our share, then theirs
    # |0.5-0.25| + |0.25-0.75| + |0.25-0| = 1.0, halved
    assert mix["total_variation"] == 0.5
    assert reference_mix([("email", 1)], reference={"email": 7})["total_variation"] == 0.0


def test_a_bundle_reports_its_records_by_kit_kind(built_bundle):
    bundle = json.loads((built_bundle("medium") / "bundle.json").read_text())
    counts = bundle["counts"]
    mix = counts["reference_mix"]
    per_genre = {g: n for g, n in counts["artifacts_per_genre"].items() if g != "policy_document"}
    assert mix["records"] == sum(per_genre.values()) == counts["artifacts"] - 1
    assert sum(row["records"] for row in mix["kinds"].values()) == mix["records"]
    assert mix["kinds"]["email"]["records"] == per_genre.get("email_thread", 0)
    assert sum(row["tokens"] for row in mix["kinds"].values()) == counts["tokens"] - counts["tokens_per_genre"]["policy_document"]
    assert 0.0 < mix["total_variation"] < 1.0


@pytest.mark.parametrize("max_calls, calls, fewest, most", [(None, 15, 10, 10), (0, 0, 0, 0), (20, 30, 15, 20)])
def test_the_audio_budget_is_a_knob_above_the_length_gates_minimum(max_calls, calls, fewest, most):
    """The budget sets how many recordings there are (half as many more than it, holding none) and caps how
    many state rules: at most the budget, as many as the rules routed to calls fill (seed 0 at a budget of
    20: 20 until session 31's re-draw, 19 since), and more than the default budget's ten."""
    plan = plan_corpus(load_pack(BANKING), tier("hard").with_overrides(max_calls=max_calls), 0, genres())
    recordings = [a for a in plan.artifacts if a.genre == "call_recording"]
    carriers = sum(1 for a in recordings if a.is_carrier)
    assert len(recordings) == calls and fewest <= carriers <= most, (len(recordings), carriers)


def test_a_negative_audio_budget_is_one_line_and_exit_2(cli, tmp_path):
    result = cli("build", "banking", "--difficulty", "easy", "--max-calls", "-1", "--out", tmp_path / "out")
    assert result.exit_code == 2 and result.exception is None
    assert result.stderr.strip().splitlines() == ["error: the audio budget (--max-calls) must be 0 or more, not -1"]
    assert not (tmp_path / "out").exists()
