"""Every seed builds: a sample of non-zero seeds at the hard tier, built and validated with every gate on.

Banking seeds 1 and 2 and telecom seed 1 run by default (banking seed 2 is also the bundle that
``test_build_e2e`` builds again in another process, to compare bytes, and the one validated again from its
files); banking 3-19 and telecom 0, 2-4 are
marked ``slow`` (``python3 -m pytest -m slow tests/test_seed_sample.py``). ``scripts/seed_sweep.py`` sweeps
any range at any tier and prints one line per build (``--tasks 45 --no-readers`` builds what this sample
builds).
"""

from __future__ import annotations

import json

import pytest

from taugen.build.pipeline import build, validate_files
from taugen.build.files import read_bundle

SPREAD_OVER_WORKERS = True  # each seed is an independent hard build: let xdist run them side by side
RUN_FIRST = 2  # long builds: started early, they fill the time beside test_mutation

REBUILT_SEED = 2
"""The sampled seed that ``test_build_e2e`` rebuilds in another process and that is validated again from its
files. No sampled seed measures the strong readers (report only, no gate; about a minute and a half of a CI
worker each): seed 0's shared bundle measures them, and ``scripts/seed_sweep.py`` (without ``--no-readers``)
or ``scripts/strong_readers.py`` measures any other seed."""

# Two non-zero seeds in CI (issue 10). A fresh-clone CI run took 55 min with seeds 1, 2 and 3 on a machine that
# builds a hard 45-task bundle in 4-6 min under the suite's load; 3-19 are slow (the note of each session
# gives the last full sweep).
_SEEDS = [1, 2] + [pytest.param(seed, marks=pytest.mark.slow) for seed in range(3, 20)]


@pytest.mark.parametrize("seed", _SEEDS)
def test_hard_bundle_builds_and_validates_at_seed(built_bundle, seed):
    path = built_bundle("hard", seed=seed, readers=False)  # asserts the build passed every gate
    info = json.loads((path / "bundle.json").read_text())
    assert info["seed"] == seed and info["tier"] == "hard"
    assert info["realism"]["readers"] == {"skipped": "built with --no-readers"}
    realism = info["realism"]
    assert realism["probe_auc"] <= 0.6
    assert all(stats["doubled_words"] == 0 for stats in realism["repetition"].values())
    if seed == REBUILT_SEED:  # the bundle as written validates again from its files alone (`taugen validate`)
        again = validate_files(read_bundle(path), str(path))
        assert not [f for f in again if f.severity == "error"]


# Telecom (a task-composer domain with few records per genre) at one non-zero hard seed: its slide decks,
# support transcripts and knowledge-base exports are a dozen or two records each, and the length gate once
# failed them because their lengths were not planned. About 45 s on 2 cores (seed 1, no readers); 0 and 2-4
# are slow (``scripts/seed_sweep.py --domains telecom --seeds 0-4 --tiers hard`` builds them all).
_TELECOM_SEEDS = [1] + [pytest.param(seed, marks=pytest.mark.slow) for seed in (0, 2, 3, 4)]


@pytest.mark.parametrize("seed", _TELECOM_SEEDS)
def test_telecom_hard_bundle_builds_and_validates_at_seed(tmp_path, seed):
    result = build("telecom", "hard", seed=seed, out=tmp_path, readers=False)
    errors = [f"{f.check}/{f.code} {f.subject}: {f.message}" for f in result.findings if f.severity == "error"]
    assert result.ok and result.path is not None, errors[:5]
    info = json.loads((result.path / "bundle.json").read_text())
    assert info["seed"] == seed and info["tier"] == "hard"
    realism = info["realism"]
    for genre in ("pdf_document", "support_transcript", "knowledge_base_archive"):
        if genre in realism["length_distinct_buckets"]:
            assert realism["length_distinct_buckets"][genre] >= 8, (genre, realism["length_distinct_buckets"])
            assert realism["length_modal_share"][genre] <= 0.25, (genre, realism["length_modal_share"])
    assert realism["probe_auc"] <= 0.6
