"""Stand-ins (taugen.generators.corpus.standins): fillers rendered by the carriers' own process.

A filler's fact slots are filled with grounded sentences of the same shape (an amount, a percent, a
span, a count, a date or a procedure's key phrase); the delivered filler states them, owns nothing, and
none of them reads as a restatement of a pack fact with another value (K13).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import jinja2
import pytest
import yaml

from taugen.authoring.models import DomainConfig
from taugen.authoring.pack import load_pack
from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, Rendition, genres
from taugen.generators.corpus.render import _render_one
from taugen.generators.corpus.standins import PREFIX, is_stand_in, with_stand_ins
from taugen.validators.defects.documents import record_conflicts

ROOT = Path(__file__).resolve().parents[1]
TZ = dt.timezone(dt.timedelta(hours=-5))
GENRES = genres()


@pytest.fixture(scope="module")
def context() -> RenderContext:
    config = DomainConfig(**yaml.safe_load((ROOT / "taugen/facts/banking/domain.yaml").read_text(encoding="utf-8")))
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return RenderContext(config=config, templates=env, build_seed=5, tier="test")


def filler(genre: str, index: int, variant: str = "") -> ArtifactPlan:
    return ArtifactPlan(artifact_id=f"{genre}_{index:03d}", genre=genre, topic="wires_and_transfers",
                        topic_title="Wires and transfers", start=dt.datetime(2026, 2, 2, 8, tzinfo=TZ),
                        end=dt.datetime(2026, 2, 13, 17, tzinfo=TZ), renditions=[], facts={}, seed=900 + index,
                        variant=variant or GENRES[genre].variants[0])


def test_a_filler_plan_gets_one_to_three_stand_ins_and_a_carrier_plan_is_kept():
    staged = with_stand_ins(filler("email_thread", 1), GENRES["email_thread"])
    assert 1 <= len(staged.renditions) <= GENRES["email_thread"].max_facts and staged.is_carrier
    for rendition in staged.renditions:
        fact = staged.facts[rendition.fact_id]
        assert is_stand_in(fact.id) and rendition.text
        assert find_surface_form(fact.value, rendition.text) == rendition.value_form != ""
    carrier = filler("email_thread", 2)
    carrier.renditions.append(Rendition("wire_fee", "An outgoing domestic wire costs $25.00.", "$25.00", "canonical",
                                        "current", dt.date(2026, 2, 10)))
    assert with_stand_ins(carrier, GENRES["email_thread"]) is carrier


def test_stand_in_value_types_follow_the_genre_affinity():
    kinds = set()
    for index in range(40):
        staged = with_stand_ins(filler("spreadsheet", index, "fee_schedule"), GENRES["spreadsheet"])
        kinds |= {staged.facts[r.fact_id].value.type for r in staged.renditions}
    allowed = {kind for kind, variant, _ in GENRES["spreadsheet"].affinity if variant in ("", "fee_schedule")}
    assert kinds and kinds <= allowed | {"text"}


@pytest.mark.parametrize("genre", sorted(g for g in GENRES if GENRES[g].affinity and g != "call_recording"))
def test_a_rendered_filler_states_its_stand_ins_but_owns_nothing(context, genre):
    plan = filler(genre, 3)
    artifact = _render_one(plan, context, GENRES)
    assert artifact.plan is plan and artifact.renditions == []
    text = GENRES[genre].extract_text(artifact.files, artifact.author_text)
    staged = with_stand_ins(plan, GENRES[genre], [p.label for p in context.config.products])
    stated = [r for r in staged.renditions if find_surface_form(staged.facts[r.fact_id].value, text)]
    assert stated, f"{genre}: no stand-in value in the filler"
    assert PREFIX not in repr(artifact.metadata)
    raw = b"".join(f.data for f in artifact.files) + artifact.author_text.encode()
    assert PREFIX.encode() not in raw
    again = _render_one(plan, context, GENRES)
    assert [f.data for f in again.files] == [f.data for f in artifact.files]


def test_no_stand_in_restates_a_banking_fact_with_another_value():
    pack = load_pack(ROOT / "taugen/facts/banking")
    facts = {fid: {"statement": f.statement, "current": pack.is_current(fid), "supersedes": f.supersedes,
                  "superseded_by": pack.superseded_by(fid)}
             for fid, f in pack.facts.items()}
    records = {}
    for genre in sorted(g for g in GENRES if GENRES[g].affinity):
        for index in range(30):
            staged = with_stand_ins(filler(genre, index), GENRES[genre])
            records[f"{genre}_{index}"] = "\n".join(r.text for r in staged.renditions)
    assert sum(len(t.splitlines()) for t in records.values()) > 500
    assert record_conflicts(facts, {}, records, None) == []
