"""The contract every corpus genre keeps, shared by the genre test modules.

A genre test module sets ``GENRE``, ``SUFFIX`` (delivered file suffix), ``IDS`` (fact ids a carrier
states) and ``N_RUNS``, then pulls the contract in with
``globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))``: fixtures (``context``), helpers
(``make_plan``, ``check_placed``, ``text_of``, ``with_data``, ``codes``, ``FACTS``, ``TZ`` ...) and the
contract tests (determinism, verbatim renditions and values, timestamps, fillers, supersession framing).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import find_surface_form, normalise_text
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, RenderedArtifact, Rendition, get_genre
from taugen.generators.corpus.vocabulary import load_vocabulary


def contract(GENRE: str, SUFFIX: str, IDS: tuple[str, ...], N_RUNS: int) -> dict[str, Any]:  # noqa: N803
    """The shared fixtures, helpers and contract tests for genre ``GENRE``, as a namespace dict."""
    DOMAIN = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking" / "domain.yaml"
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
        return RenderContext(config=config, templates=env, build_seed=11, tier="test",
                         vocabulary=load_vocabulary(DOMAIN.parent))


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
        """A filler owns nothing. Most genres' fillers state no figure at all; a genre whose fillers fill
        the rule's slots with grounded figures of other organisations (``grounded_fillers``) is given the
        facts and must state none of their values."""
        genre = get_genre(GENRE)
        variant = genre.variants[index % len(genre.variants)]
        grounded = getattr(genre, "grounded_fillers", False)
        rendering = dataclasses.replace(context, facts=dict(FACTS)) if grounded else context
        artifact = genre.render(make_plan(index, filler=True, variant=variant), rendering)
        assert artifact.renditions == [] and genre.validate(artifact) == []
        text = text_of(artifact)
        if grounded:
            for fact in FACTS.values():
                assert find_surface_form(fact.value, text) is None, (fact.id, fact.value.canonical())
        else:
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

    return {name: value for name, value in locals().items() if name not in ("GENRE", "SUFFIX", "IDS", "N_RUNS")}
