"""Tests of the knowledge_base_archive genre.

self-contained HTML knowledge-base archives: determinism, placement, navigation, validation.
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
from taugen.authoring.pack import load_pack
from taugen.build.pipeline import resolve_pack
from taugen.authoring.values import find_surface_form, normalise_text
from genre_contract import contract
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, RenderedArtifact, Rendition, get_genre
from taugen.generators.corpus.genres.workplace import token_count

GENRE = "knowledge_base_archive"
SUFFIX = ".html"
IDS = ("wire_fee_domestic", "intl_wire_hold", "atm_daily_cap", "police_report_stolen")
N_RUNS = 6

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


# ------------------------------------------------------------------------------------------------
# HTML archive specifics
# ------------------------------------------------------------------------------------------------

def test_archive_is_self_contained_with_navigation(context):
    genre = get_genre(GENRE)
    for index in range(6):
        artifact = genre.render(make_plan(index, ids=IDS, filler=index % 3 == 2), context)
        html = artifact.files[0].data.decode()
        assert html.startswith("<!DOCTYPE html>")
        assert not re.search(r"(?:src|href)=\"(?:https?:|//)|<script|<link|<img|url\(", html)
        anchors = re.findall(r'<article id="([^"]+)">', html)
        assert len(anchors) >= 2
        nav = html[html.index("<nav"):html.index("</nav>")]
        assert re.findall(r'href="#([^"]+)"', nav) == anchors
        assert len(re.findall(r"<time datetime=", html)) == len(anchors) + 1
        updated = [dt.datetime.fromisoformat(a["updated"]) for a in artifact.metadata["articles"].values()]
        assert updated == sorted(updated)
        assert all(dt.datetime.fromisoformat(artifact.metadata["exported_at"]) >= u for u in updated)


def test_text_is_escaped_and_read_back(context):
    text = "Wires to Alder & Finch <partners> are reviewed by the wire desk."
    plan = make_plan(1, ids=("police_report_stolen",), texts={"police_report_stolen": text})
    artifact = get_genre(GENRE).render(plan, context)
    assert "Alder &amp; Finch &lt;partners&gt;" in artifact.files[0].data.decode()
    assert text in text_of(artifact).splitlines()


def test_validate_flags_broken_archives(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(3, ids=IDS), context)
    assert genre.validate(artifact) == []
    html = artifact.files[0].data.decode()
    external = html.replace("</main>", '<img src="https://example.com/logo.png"></main>')
    assert "not_self_contained" in codes(with_data(artifact, external.encode()))
    first = re.search(r'<article id="([^"]+)">', html).group(1)
    broken_nav = html.replace(f'href="#{first}"', 'href="#kb-missing"', 1)
    assert {"nav_mismatch", "broken_anchor"} <= codes(with_data(artifact, broken_nav.encode()))
    single = re.sub(r"<article id=.*</article>", "", html, count=1, flags=re.DOTALL)
    assert "article_count" in codes(with_data(artifact, single.encode()))
    assert "no_doctype" in codes(with_data(artifact, html.replace("<!DOCTYPE html>", "").encode()))
    late = html.replace('<time datetime="2026-03-', '<time datetime="2027-03-', 1)
    assert "article_after_export" in codes(with_data(artifact, late.encode()))


def _headings(html: str) -> list[str]:
    return re.findall(r"<h3>([^<]+)</h3>", html)


def test_carrier_and_filler_articles_share_one_shape(context):
    """Every section heading a carrier uses also occurs in some filler; fillers state figures (peers'
    published terms, the team's own numbers) as carriers do, in articles titled like rule articles,
    and no value of the facts; no phrase tells a rule article from another."""
    genre = get_genre(GENRE)
    facts = dict(load_pack(resolve_pack("banking")).facts)
    facts.update(FACTS)
    with_facts = dataclasses.replace(context, facts=facts)
    carriers = [genre.render(make_plan(index, ids=IDS), with_facts) for index in range(10)]
    fillers = [genre.render(make_plan(index, filler=True), with_facts) for index in range(16)]
    filler_headings = {h for artifact in fillers for h in _headings(artifact.files[0].data.decode())}
    for artifact in carriers:
        assert set(_headings(artifact.files[0].data.decode())) - {"Change history"} <= filler_headings
    texts = [text_of(artifact) for artifact in fillers]
    assert sum(bool(re.search(r"\$\d|\d%|\d+ (business )?days?|\d+ (customers|questions|calls)", text))
               for text in texts) >= len(texts) // 2
    peer = r"\b[A-Z][a-z]+ Bank(?:'s published schedule lists|'s own terms give| publishes| may quote) \$?\d"
    assert any(re.search(peer, text) or re.search(r"also with [A-Z][a-z]+ Bank may quote \$?\d", text)
               for text in texts)
    assert any(re.search(r"\b\d+ customers asked about |\d+ questions about ", text) for text in texts)
    # a peer quoted in the frame a rule's sentence uses, as carriers state their rules (seed 2 at banking hard
    # had carriers' articles alone holding such comma-rich sentences: structure reader 0.725)
    quoted = r'[A-Z][a-z]+ Bank(?: puts it this way|\'s own wording, for comparison|\'s published terms|' \
             r' tells its customers|\'s rate sheet says|\'s wording): "[A-Z][^"]+[.?!]"'
    assert any(re.search(quoted, text) for text in texts)
    assert any(re.search(r"^(About |Answering questions about )", text, re.MULTILINE) for text in texts)
    for text in texts + [text_of(artifact) for artifact in carriers]:
        assert "The rule" not in text and "quote the rule" not in text.lower()
    for text in texts:
        for fact in FACTS.values():
            assert find_surface_form(fact.value, text) is None, (fact.id, fact.value.canonical())


def test_exports_reach_their_planned_length(context):
    """A planned length (tokens of visible text) picks the number of articles and steps: carriers and fillers
    come within half an article of it."""
    genre = get_genre(GENRE)
    for filler in (False, True):
        for planned in (300, 500, 700):
            plan = dataclasses.replace(make_plan(1, filler=filler), length_words=planned)
            artifact = genre.render(plan, context)
            tokens = token_count(artifact.author_text)
            assert abs(tokens - planned) <= 45, (filler, planned, tokens)
            assert genre.validate(artifact) == []
