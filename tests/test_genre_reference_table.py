"""Tests of the reference_table genre.

RFC 4180 CSV tables: determinism, rows that restate renditions, validation.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
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
from taugen.generators.corpus.genres.reference_table import read_csv, row_text

GENRE = "reference_table"
SUFFIX = ".csv"
IDS = ("wire_fee_domestic", "intl_wire_hold", "atm_daily_cap", "police_report_stolen")
N_RUNS = 6

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


# ------------------------------------------------------------------------------------------------
# CSV specifics
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", get_genre(GENRE).variants)
def test_rfc4180_records_and_rows_as_renditions(context, variant):
    plan = make_plan(2, ids=IDS, variant=variant)
    artifact = get_genre(GENRE).render(plan, context)
    data = artifact.files[0].data
    assert data.endswith(b"\r\n") and data.count(b"\n") == data.count(b"\r\n")
    assert all(line.startswith(b'"') for line in data.split(b"\r\n") if line)
    rows = read_csv(data)
    header = rows[0]
    assert header[0] == "Ref" and header[3] in ("Value", "Time limit") and len(set(header)) == len(header)
    assert all(len(row) == len(header) for row in rows)
    lines = text_of(artifact).splitlines()
    for rendition in artifact.renditions:
        assert rendition.text in lines  # the row, exactly as extract_text reads it
        row = rows[artifact.metadata["rows"][rendition.fact_id]["record"] - 1]
        assert row_text(row) == rendition.text
        fact = FACTS[rendition.fact_id]
        assert FACTS[rendition.fact_id].statement in row  # the rule column
        if fact.value.type in ("money", "cap", "duration"):
            assert row[3] == fact.value.canonical()
        assert find_surface_form(fact.value, rendition.text) == rendition.value_form
    cap = next(rows[m["record"] - 1] for f, m in artifact.metadata["rows"].items() if f == "atm_daily_cap")
    assert cap[4] == "per day"


def test_every_table_has_instruction_rows_without_values(context):
    """Fillers are all instruction rows; tables with rules may add some: the same header either way."""
    genre = get_genre(GENRE)
    headers = set()
    for index in range(6):
        for filler in (True, False):
            artifact = genre.render(make_plan(index, ids=IDS, filler=filler, variant="limits"), context)
            rows = read_csv(artifact.files[0].data)
            headers.add(tuple(rows[0]))
            for row in rows[1:]:
                if row[3] == "":
                    assert not VALUES.search(row_text(row))
    assert len(headers) == 1


def test_validate_flags_broken_tables(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(1, ids=IDS), context)
    data = artifact.files[0].data
    assert genre.validate(artifact) == []
    assert "bare_line_feed" in codes(with_data(artifact, data.replace(b"\r\n", b"\n")))
    ragged = data.replace(b'"Last reviewed"\r\n', b'"Last reviewed","Extra"\r\n', 1)
    assert "ragged_record" in codes(with_data(artifact, ragged))
    prefix = b"LIM" if b'"LIM-02"' in data else b"TML"
    duplicate = data.replace(b'"' + prefix + b'-02"', b'"' + prefix + b'-01"', 1)
    assert "duplicate_ref" in codes(with_data(artifact, duplicate))
    lines = data.split(b"\r\n")
    lines[1], lines[-2] = lines[-2], lines[1]
    swapped = b"\r\n".join(lines)
    if read_csv(swapped)[1][-1] != read_csv(swapped)[-1][-1]:
        assert "rows_out_of_order" in codes(with_data(artifact, swapped))
    assert "csv_unreadable" in codes(with_data(artifact, b'"Ref","Item\r\n"a'))
