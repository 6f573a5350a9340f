"""Tests of the decision_register genre.

Markdown decision registers: determinism, final decisions that state renditions, table, validation.
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
from taugen.generators.corpus.genres.decision_register import md_escape, read_markdown

GENRE = "decision_register"
SUFFIX = ".md"
IDS = ("wire_fee_domestic", "intl_wire_hold", "atm_daily_cap", "police_report_stolen")
N_RUNS = 6

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


# ------------------------------------------------------------------------------------------------
# Markdown register specifics
# ------------------------------------------------------------------------------------------------

def test_register_table_and_final_decisions(context):
    genre = get_genre(GENRE)
    for index in range(6):
        artifact = genre.render(make_plan(index, ids=IDS, variant=genre.variants[index % 2]), context)
        lines, tables = read_markdown(artifact.files[0].data)
        assert len(tables) == 1
        header, *rows = tables[0]
        assert header == ["ID", "Date", "Decision", "Owner", "Status"]
        assert [row[0] for row in rows] == [f"D-{n:02d}" for n in range(1, len(rows) + 1)]
        assert [row[1] for row in rows] == sorted(row[1] for row in rows)
        assert {row[4] for row in rows} <= {"Proposal", "Rejected", "Superseded", "Final"}
        assert {"Rejected", "Final"} <= {row[4] for row in rows}
        for rendition in artifact.renditions:
            row = next(row for row in rows if rendition.text in row[2])
            assert row[4] == "Final"
        assert "Workshop notes" in lines and any(line.startswith("Attendees: ") for line in lines)
        raw = artifact.files[0].data.decode()
        assert re.search(r"^- \[ \] ", raw, re.MULTILINE)


def test_superseded_row_names_its_replacement(context):
    plan = make_plan(5, ids=("wire_fee_domestic_2025", "wire_fee_domestic"),
                     start=dt.datetime(2026, 3, 9, 8, tzinfo=TZ))
    artifact = get_genre(GENRE).render(plan, context)
    rows = read_markdown(artifact.files[0].data)[1][0][1:]
    old = next(row for row in rows if OLD_TEXT in row[2])
    new = next(row for row in rows if FACTS["wire_fee_domestic"].statement in row[2])
    assert old[4] == "Superseded" and f"Replaced by {new[0]} from March 1, 2026." in old[2] and new[4] == "Final"


def test_markdown_markup_in_text_is_escaped(context):
    text = "Wires marked *urgent* | priority use the [desk] queue_a <now>."
    assert md_escape(text) != text
    plan = make_plan(1, ids=("police_report_stolen",), texts={"police_report_stolen": text})
    artifact = get_genre(GENRE).render(plan, context)
    row = next(r for r in read_markdown(artifact.files[0].data)[1][0] if "urgent" in r[2])
    assert row[2] == text and len(row) == 5
    assert text in text_of(artifact)


def test_validate_flags_broken_registers(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(3, ids=IDS), context)
    assert genre.validate(artifact) == []
    raw = artifact.files[0].data.decode()
    assert "bad_status" in codes(with_data(artifact, raw.replace("| Final |", "| Approved |", 1).encode()))
    assert "duplicate_id" in codes(with_data(artifact, raw.replace("| D-02 |", "| D-01 |", 1).encode()))
    assert "bad_header" in codes(with_data(artifact, raw.replace("| ID | Date |", "| Ref | Date |", 1).encode()))
    dangling = raw.replace("| Final |", "| Superseded |", 1)
    assert "dangling_supersession" in codes(with_data(artifact, dangling.encode()))
    lines = raw.split("\n")
    rows = [i for i, line in enumerate(lines) if line.startswith("| D-")]
    early = re.sub(r"\| \d{4}-\d\d-\d\d \|", "| 2024-01-01 |", lines[rows[-1]], count=1)
    lines[rows[-1]] = early
    assert "rows_out_of_order" in codes(with_data(artifact, "\n".join(lines).encode()))
    first = raw.split("\n")[rows[0]]
    late = raw.replace(first, re.sub(r"\| \d{4}-\d\d-\d\d \|", "| 2027-01-01 |", first, count=1), 1)
    assert "decision_after_update" in codes(with_data(artifact, late.encode()))
    no_table = re.sub(r"\n\|.*", "", raw)
    assert "table_count" in codes(with_data(artifact, no_table.encode()))


@pytest.mark.parametrize("planned", [420, 560, 700, 840])
def test_a_planned_length_sets_how_many_topics_the_register_decides(context, planned):
    """Issue 10 item 3: registers take planned lengths (``length_words``, dealt by the planner over
    ``REGISTER_TOKENS``), so a carrier's rules no longer make its register longer than a filler's
    (banking hard seed 4: carriers 540 words, fillers 490, and a numeric reader at ROC AUC 0.777). The
    kept register is within 80 tokens of the plan, holds every rendition, and validates."""
    from taugen.generators.corpus.genres.decision_register import REGISTER_TOKENS
    from taugen.generators.corpus.genres.workplace import TOKEN_BUDGET, token_count

    genre = get_genre(GENRE)
    assert genre.spread_words == REGISTER_TOKENS and REGISTER_TOKENS[1] < TOKEN_BUDGET
    lengths = []
    for ids in (("wire_fee_domestic",), IDS[:3]):
        plan = dataclasses.replace(make_plan(5, ids=ids), length_words=planned)
        artifact = genre.render(plan, context)
        lengths.append(token_count(artifact.author_text))
        assert abs(lengths[-1] - planned) <= 80, (ids, planned, lengths[-1])
        check_placed(artifact)
        assert genre.validate(artifact) == []
