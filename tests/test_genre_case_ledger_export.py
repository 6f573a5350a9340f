"""Tests of the case_ledger_export genre.

case-ledger extracts: determinism, notes that state renditions, keys and snapshot, validation.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from itertools import pairwise
from pathlib import Path

import jinja2
import pytest
import yaml

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import find_surface_form, normalise_text
from genre_contract import contract
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, RenderedArtifact, Rendition, get_genre

GENRE = "case_ledger_export"
SUFFIX = ".json"
IDS = ("wire_fee_domestic", "intl_wire_hold", "atm_daily_cap", "police_report_stolen")
N_RUNS = 6

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


# ------------------------------------------------------------------------------------------------
# Ledger specifics
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", get_genre(GENRE).variants)
def test_extract_keys_counts_and_snapshot(context, variant):
    artifact = get_genre(GENRE).render(make_plan(2, ids=IDS, variant=variant), context)
    document = json.loads(artifact.files[0].data)
    assert set(document) >= {"export", "snapshot_at", "columns", "rows", "primary_key", "row_count"}
    rows, columns, key = document["rows"], document["columns"], document["primary_key"]
    assert document["row_count"] == len(rows) >= len(IDS) and key in columns
    assert all(list(row) == columns for row in rows)
    assert len({row[key] for row in rows}) == len(rows)
    snapshot = dt.datetime.fromisoformat(document["snapshot_at"])
    assert snapshot == make_plan().end
    for row in rows:
        opened, last = dt.datetime.fromisoformat(row["opened_at"]), dt.datetime.fromisoformat(row["last_action_at"])
        assert opened <= last <= snapshot
        if variant == "disputes":
            assert re.fullmatch(r"\d+\.\d\d", row["amount"]) and not row["amount"].endswith(".00")
    notes = {row[key]: row[columns[-1]] for row in rows}
    for fact_id, case_id in artifact.metadata["cases"].items():
        assert FACTS[fact_id].statement in notes[case_id]


def test_validate_flags_broken_extracts(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(3, ids=IDS), context)
    assert genre.validate(artifact) == []
    document = json.loads(artifact.files[0].data)

    def broken(change) -> set[str]:
        copy = json.loads(json.dumps(document))
        change(copy)
        return codes(with_data(artifact, json.dumps(copy).encode()))

    assert "row_count_mismatch" in broken(lambda d: d.update(row_count=d["row_count"] + 1))
    assert "primary_key" in broken(lambda d: d["rows"][1].update(case_id=d["rows"][0]["case_id"]))
    assert "row_after_snapshot" in broken(lambda d: d["rows"][0].update(last_action_at="2027-01-01T09:00:00-05:00"))
    assert "action_before_opening" in broken(lambda d: d["rows"][0].update(last_action_at="2020-01-01T09:00:00-05:00"))
    assert "row_shape" in broken(lambda d: d["rows"][0].pop("status"))
    assert "bad_columns" in broken(lambda d: d.update(primary_key="ticket"))
    assert "extract_keys" in broken(lambda d: d.pop("snapshot_at"))
