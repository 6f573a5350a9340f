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
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, RenderedArtifact, Rendition, get_genre
from taugen.generators.corpus.genres.decision_register import md_escape, read_markdown

GENRE = "decision_register"
SUFFIX = ".md"
IDS = ("wire_fee_domestic", "intl_wire_hold", "atm_daily_cap", "police_report_stolen")
N_RUNS = 6

DOMAIN = Path(__file__).resolve().parents[1] / "taugen" / "facts" / "banking" / "domain.yaml"
TZ = dt.timezone(dt.timedelta(hours=-5))
BANNED = re.compile(r"\b(facts?|fact[ _]id|renditions?|carriers?|fillers?|answer key|distractors?|taugen|"
                    r"evaluator|ground truth|client[-_]held)\b", re.IGNORECASE)
VALUES = re.compile(r"[$%]|\b\d+\s*(business |calendar )?days?\b", re.IGNORECASE)
HISTORY = re.compile(r"\b(no longer|until|previous|replaced|retired|earlier|up to|history|superseded|old rule|"
                     r"before (?:the |that|[A-Z][a-z]+ \d))", re.IGNORECASE)


@pytest.fixture(scope="module")
def context() -> RenderContext:
    config = DomainConfig(**yaml.safe_load(DOMAIN.read_text(encoding="utf-8")))
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return RenderContext(config=config, templates=env, build_seed=11, tier="test")


def all_facts() -> dict[str, Fact]:
    facts = [
        Fact(id="wire_fee_domestic_2025", section="wires_and_transfers", category="fee",
             statement="An outgoing domestic wire costs $20.00.", subject="the outgoing domestic wire fee",
             value={"type": "money", "amount": "20.00"}, effective_from=dt.date(2025, 1, 1),
             applies_to=["everyday_checking"]),
        Fact(id="wire_fee_domestic", section="wires_and_transfers", category="fee",
             statement="An outgoing domestic wire costs $25.00.", subject="the outgoing domestic wire fee",
             value={"type": "money", "amount": "25.00"}, effective_from=dt.date(2026, 3, 1),
             supersedes="wire_fee_domestic_2025", applies_to=["everyday_checking"]),
        Fact(id="intl_wire_hold", section="wires_and_transfers", category="deadline",
             statement="Incoming international wires are held for 2 business days.",
             subject="the hold on incoming international wires",
             value={"type": "duration", "amount": 2, "unit": "business_days"}, effective_from=dt.date(2025, 6, 1)),
        Fact(id="atm_daily_cap", section="wires_and_transfers", category="limit",
             statement="Debit card ATM withdrawals are limited to $1,250.00 per day.",
             subject="the daily ATM withdrawal limit", applies_to=["debit_card"],
             value={"type": "cap", "amount": "1250", "currency": "USD", "per": "day"},
             effective_from=dt.date(2025, 6, 1)),
        Fact(id="police_report_stolen", section="wires_and_transfers", category="procedure",
             statement="A police report is not required to block or replace a stolen card.",
             subject="a police report for a stolen card",
             value={"type": "boolean", "value": False, "key_terms": ["not required"]},
             effective_from=dt.date(2025, 2, 1)),
    ]
    return {fact.id: fact for fact in facts}


FACTS = all_facts()
OLD_TEXT = FACTS["wire_fee_domestic_2025"].statement


def make_plan(index: int = 0, *, ids: tuple[str, ...] = ("wire_fee_domestic", "intl_wire_hold"),
              filler: bool = False, variant: str = "", statuses: dict[str, str] | None = None,
              texts: dict[str, str] | None = None, dates: dict[str, dt.date] | None = None,
              start: dt.datetime = dt.datetime(2026, 3, 2, 8, tzinfo=TZ),
              end: dt.datetime = dt.datetime(2026, 3, 13, 17, tzinfo=TZ), only_rendered: bool = True) -> ArtifactPlan:
    statuses = {"wire_fee_domestic_2025": "superseded", **(statuses or {})}
    texts = texts or {}
    day = {fid: (dates or {}).get(fid, end.date()) for fid in ids}
    renditions = [] if filler else [
        Rendition(fid, texts.get(fid, FACTS[fid].statement), FACTS[fid].value.canonical(), "canonical",
                  statuses.get(fid, "current"), day[fid]) for fid in ids]
    facts = {} if filler else ({fid: FACTS[fid] for fid in ids} if only_rendered else dict(FACTS))
    return ArtifactPlan(artifact_id=f"{GENRE}_{index:03d}", genre=GENRE, topic="wires_and_transfers",
                        topic_title="Wires and transfers", start=start, end=end, renditions=renditions,
                        facts=facts, seed=7100 + index, variant=variant or get_genre(GENRE).variants[0])


def text_of(artifact: RenderedArtifact) -> str:
    return get_genre(GENRE).extract_text(artifact.files, artifact.author_text)


def check_placed(artifact: RenderedArtifact) -> str:
    """Every rendition is in the extracted text (after normalise_text) and states its value."""
    text = text_of(artifact)
    for rendition in artifact.renditions:
        assert normalise_text(rendition.text) in normalise_text(text), rendition.text
        fact = FACTS[rendition.fact_id]
        if rendition.status in ("current", "superseded"):
            assert find_surface_form(fact.value, text) is not None, rendition.fact_id
    raw = b"".join(f.data for f in artifact.files).decode("utf-8", "replace") + artifact.author_text
    assert not any(fid in raw for fid in FACTS)
    assert not BANNED.search(text), BANNED.search(text)
    return text


def with_data(artifact: RenderedArtifact, data: bytes, **metadata) -> RenderedArtifact:
    files = [dataclasses.replace(artifact.files[0], data=data)] + artifact.files[1:]
    return dataclasses.replace(artifact, files=files, metadata={**artifact.metadata, **metadata})


def codes(artifact: RenderedArtifact) -> set[str]:
    found = get_genre(GENRE).validate(artifact)
    assert all(f.severity == "error" and f.check == "structure" for f in found)
    return {f.code for f in found}


# ------------------------------------------------------------------------------------------------
# The contract every genre keeps
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", get_genre(GENRE).variants)
def test_render_is_deterministic(context, variant):
    genre = get_genre(GENRE)
    first = genre.render(make_plan(variant=variant), context)
    second = genre.render(make_plan(variant=variant), context)
    assert [f.data for f in first.files] == [f.data for f in second.files]
    assert first.author_text == second.author_text
    assert first.timestamps == second.timestamps and first.metadata == second.metadata
    assert len(first.files) == 1 and first.files[0].suffix == SUFFIX


@pytest.mark.parametrize("variant", get_genre(GENRE).variants)
def test_renditions_verbatim_and_values_found(context, variant):
    plan = make_plan(3, ids=IDS, variant=variant)
    artifact = get_genre(GENRE).render(plan, context)
    assert [r.fact_id for r in artifact.renditions] == [r.fact_id for r in plan.renditions]
    check_placed(artifact)
    assert get_genre(GENRE).validate(artifact) == []


@pytest.mark.parametrize("index", range(N_RUNS))
def test_timestamps_in_window_and_ordered(context, index):
    genre = get_genre(GENRE)
    variant = genre.variants[index % len(genre.variants)]
    plan = make_plan(index, ids=IDS, variant=variant, filler=index % 4 == 3)
    artifact = genre.render(plan, context)
    stamps = artifact.timestamps
    assert stamps and all(plan.start <= s <= plan.end for s in stamps)
    assert all(a <= b for a, b in pairwise(stamps))
    assert genre.validate(artifact) == []


@pytest.mark.parametrize("index", range(N_RUNS))
def test_filler_states_no_values(context, index):
    genre = get_genre(GENRE)
    variant = genre.variants[index % len(genre.variants)]
    artifact = genre.render(make_plan(index, filler=True, variant=variant), context)
    assert artifact.renditions == [] and genre.validate(artifact) == []
    text = text_of(artifact)
    assert not VALUES.search(text), VALUES.search(text)
    assert not BANNED.search(text)


@pytest.mark.parametrize("index", range(max(1, N_RUNS // 2)))
def test_lone_superseded_before_its_successor_reads_as_current(context, index):
    """The planner's shape: a record dated before the successor took effect, owning only the old
    version. It is written exactly as a current rule would be."""
    genre = get_genre(GENRE)
    end = dt.datetime(2026, 2, 20, 16, tzinfo=TZ)
    plan = make_plan(index, ids=("wire_fee_domestic_2025", "intl_wire_hold"), end=end,
                     start=dt.datetime(2026, 2, 10, 8, tzinfo=TZ))
    artifact = genre.render(plan, context)
    text = check_placed(artifact)
    assert find_surface_form(FACTS["wire_fee_domestic_2025"].value, text) == "$20.00"
    line = next(line for line in text.splitlines() if "$20.00" in line)
    assert not HISTORY.search(line.replace("Last reviewed", "")), line
    as_current = genre.render(dataclasses.replace(plan, renditions=[dataclasses.replace(r, status="current")
                                                                    for r in plan.renditions]), context)
    assert as_current.files[0].data == artifact.files[0].data
    assert genre.validate(artifact) == []


def test_superseded_after_the_change_is_framed_as_history(context):
    """Both versions in one record dated after the successor took effect (March 1, 2026)."""
    genre = get_genre(GENRE)
    plan = make_plan(5, ids=("wire_fee_domestic_2025", "wire_fee_domestic"),
                     start=dt.datetime(2026, 3, 9, 8, tzinfo=TZ))
    artifact = genre.render(plan, context)
    text = check_placed(artifact)
    line = next(line for line in text.splitlines() if "$20.00" in line)
    assert HISTORY.search(line), line
    assert "$25.00" in text
    assert genre.validate(artifact) == []


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
