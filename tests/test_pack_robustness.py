"""Every valid pack builds: a very long statement lays out in every genre that may own it, and a pack
with one more plain fact (or with that long statement) builds at the hard tier with every gate on.

The full builds take about a minute each on 2 cores; the easy and medium variants are marked ``slow``
(run them with ``python3 -m pytest -m slow tests/test_pack_robustness.py``).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import jinja2
import pytest
import yaml

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.pack import load_pack
from taugen.authoring.values import find_surface_form, normalise_text
from taugen.build.pipeline import build
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, Rendition, genres
from taugen.generators.corpus.vocabulary import load_vocabulary
from bundle_fixtures import TEST_TASKS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DOMAIN = REPO / "taugen" / "domains" / "banking" / "domain.yaml"
TZ = dt.timezone(dt.timedelta(hours=-5))

# A real-world shaped long rule: a dormant-account reactivation procedure spelled out step by step, about
# 980 words, longer than a handbook page and far longer than a revision-table cell.
_STEPS = [
    "the banker confirms the caller's identity with two forms of identification, one of them a current "
    "government-issued photo identification",
    "the banker checks that the account is listed as dormant and not yet reported to the state as "
    "unclaimed property",
    "the banker reviews the last twelve statements with the customer and notes any transactions the "
    "customer does not recognise",
    "the customer signs a reactivation request at the branch or through secure messaging",
    "the banker updates the mailing address, the email address and the mobile number on the profile",
    "the banker removes any hold placed on the account when it became dormant",
    "the banker records the reactivation in the account notes with the date and the documents seen",
]
LONG_STATEMENT = ("To reactivate a dormant account, " + "; ".join(
    f"in round {n}, {step}" for n in range(1, 8) for step in _STEPS) + ", and the operations lead countersigns "
    "the reactivation request before the account is used again.")
LONG_KEY = "operations lead countersigns the reactivation request"


def _long_fact() -> Fact:
    return Fact(id="dormant_reactivation_procedure", section="account_lifecycle", category="procedure",
                statement=LONG_STATEMENT, subject="reactivating a dormant account",
                value={"type": "text", "key_terms": [LONG_KEY]}, effective_from=dt.date(2024, 1, 1))


@pytest.fixture(scope="module")
def context() -> RenderContext:
    config = DomainConfig(**yaml.safe_load(DOMAIN.read_text(encoding="utf-8")))
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return RenderContext(config=config, templates=env, build_seed=5, tier="hard",
                         vocabulary=load_vocabulary(DOMAIN.parent))


def _owners_of_text_facts() -> list[tuple[str, str]]:
    """Every (genre, variant) the planner may give a ``text`` fact (by declared affinity)."""
    pairs = set()
    for name, genre in genres().items():
        for value_type, variant, _weight in getattr(genre, "affinity", ()):
            if value_type == "text" and genre.accepts(_long_fact()):
                pairs.add((name, variant or genre.variants[0]))
    return sorted(pairs)


def test_the_long_statement_is_longer_than_a_page():
    assert len(LONG_STATEMENT.split()) > 900


@pytest.mark.parametrize("genre_name,variant", _owners_of_text_facts())
def test_a_very_long_statement_lays_out_in_every_genre_that_may_own_it(context, genre_name, variant):
    fact = _long_fact()
    genre = genres()[genre_name]
    plan = ArtifactPlan(artifact_id=f"{genre_name}_001", genre=genre_name, topic="account_lifecycle",
                        topic_title="Account lifecycle", start=dt.datetime(2026, 3, 2, 8, tzinfo=TZ),
                        end=dt.datetime(2026, 3, 13, 17, tzinfo=TZ),
                        renditions=[Rendition(fact.id, fact.statement, LONG_KEY, "canonical", "current",
                                              dt.date(2026, 3, 13))],
                        facts={fact.id: fact}, seed=91, variant=variant)
    artifact = genre.render(plan, context)  # reportlab's LayoutError used to escape here
    text = genre.extract_text(artifact.files, artifact.author_text)
    assert normalise_text(LONG_STATEMENT) in normalise_text(text)
    assert find_surface_form(fact.value, text) is not None
    assert [f for f in genre.validate(artifact) if f.severity == "error"] == []


_EXTRA_PLAIN = """
  - id: account_statement_copy_request
    category: procedure
    subject: ordering a paper copy of an old statement
    statement: A customer can order a paper copy of any statement from the last seven years at a branch or by secure message.
    value: {type: text, key_terms: ["paper copy", "last seven years"]}
    effective_from: 2024-01-01
    tags: [statements]
"""

_EXTRA_LONG = f"""
  - id: dormant_reactivation_checklist
    category: procedure
    subject: the full reactivation checklist for a dormant account
    statement: "{LONG_STATEMENT}"
    value: {{type: text, key_terms: ["{LONG_KEY}"]}}
    effective_from: 2024-01-01
    tags: [dormancy]
"""


def _pack_with(tmp_path: Path, extra: str) -> Path:
    pack = tmp_path / "banking"
    shutil.copytree(REPO / "taugen" / "domains" / "banking", pack)
    facts_file = pack / "facts" / "account_lifecycle.yaml"
    facts_file.write_text(facts_file.read_text(encoding="utf-8").rstrip("\n") + "\n" + extra, encoding="utf-8")
    return pack


def _check_built(tmp_path: Path, extra: str, tier: str, fact_id: str) -> None:
    pack = _pack_with(tmp_path, extra)
    result = build(str(pack), tier, seed=0, out=tmp_path / "out", tasks=TEST_TASKS, readers=False)  # report only
    errors = [f"{f.check}/{f.code} {f.subject}: {f.message}" for f in result.findings if f.severity == "error"]
    assert result.ok, errors[:5]
    manifest = json.loads((result.path / "author" / "manifest.json").read_text())
    assert fact_id in manifest["facts"]
    info = json.loads((result.path / "bundle.json").read_text())
    assert info["counts"]["facts"] == len(load_pack(REPO / "taugen" / "domains" / "banking").facts) + 1


_SLOW_TIERS = [pytest.param("easy", marks=pytest.mark.slow), pytest.param("medium", marks=pytest.mark.slow), "hard"]


@pytest.mark.parametrize("tier", [pytest.param(t, marks=pytest.mark.slow) for t in ("easy", "medium", "hard")])
def test_a_pack_with_one_more_plain_fact_builds(tmp_path, tier):  # all slow (CI time); the long statement stays
    _check_built(tmp_path, _EXTRA_PLAIN, tier, "account_statement_copy_request")


@pytest.mark.parametrize("tier", _SLOW_TIERS)
def test_a_pack_with_a_very_long_statement_builds(tmp_path, tier):
    _check_built(tmp_path, _EXTRA_LONG, tier, "dormant_reactivation_checklist")
