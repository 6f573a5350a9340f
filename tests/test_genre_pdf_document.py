"""The pdf_document genre: handbook excerpt and slide deck, text extractable by pypdf and pdftotext."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import io
import re
import shutil
import subprocess
from pathlib import Path

import jinja2
import pytest
import yaml
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import find_surface_form, normalise_text
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    RenderContext,
    RenderedFile,
    Rendition,
    get_genre,
)
from taugen.generators.corpus.genres.pdf_document import MAX_PER_SLIDE
from taugen.generators.corpus.vocabulary import load_vocabulary

PACK = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking" / "domain.yaml"
TZ = dt.timezone(dt.timedelta(hours=-6))
FORBIDDEN = re.compile(r"\b(fact|facts|rendition|renditions|carrier|filler|answer key|distractor|taugen)\b",
                       re.IGNORECASE)
LONG = ("When a customer reports a non-sufficient-funds return on a pre-authorized ACH debit from a "
        "third-party biller, waive the returned-item fee of $35.00 once per rolling twelve-month period, "
        "provided that the account has been open for at least ninety days, the customer confirms the "
        "biller's name and the disputed amount, and no other courtesy refund has been granted on the same "
        "statement cycle.")


def make_context() -> RenderContext:
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True)
    return RenderContext(config=DomainConfig(**yaml.safe_load(PACK.read_text())), templates=env, build_seed=5,
                         tier="standard",
                         vocabulary=load_vocabulary(PACK.parent))


def make_facts() -> list[Fact]:
    return [
        Fact(id="overdraft_fee_old", section="overdraft", category="fee", subject="overdraft item fee",
             statement="Each overdraft item paid on Everyday Checking costs $34.00.",
             value={"type": "money", "amount": "34.00"}, applies_to=["everyday_checking"],
             effective_from=dt.date(2024, 1, 1)),
        Fact(id="overdraft_fee_new", section="overdraft", category="fee", subject="overdraft item fee",
             statement="Each overdraft item paid on Everyday Checking costs $29.00.",
             value={"type": "money", "amount": "29.00"}, applies_to=["everyday_checking"],
             effective_from=dt.date(2025, 6, 1), supersedes="overdraft_fee_old"),
        Fact(id="returned_item_waiver", section="overdraft", category="fee", subject="returned item fee waiver",
             statement=LONG, value={"type": "money", "amount": "35.00"}, applies_to=["everyday_checking"],
             effective_from=dt.date(2024, 1, 1)),
        Fact(id="cash_advance_rate", section="fees", category="rate", subject="cash advance fee",
             statement="A cash advance on the Platinum Visa Credit Card carries a fee of 4% of the amount advanced.",
             value={"type": "percent", "value": 4}, applies_to=["platinum_credit_card"],
             effective_from=dt.date(2024, 1, 1)),
        Fact(id="provisional_credit_window", section="error_resolution", category="deadline",
             subject="provisional credit",
             statement="If the investigation is not finished within 10 business days, give the customer "
                       "provisional credit for the disputed amount.",
             value={"type": "duration", "amount": 10, "unit": "business_days"}, applies_to=["debit_card"],
             effective_from=dt.date(2024, 1, 1)),
    ]


def extra_fee_facts(count: int) -> list[Fact]:
    return [Fact(id=f"misc_fee_{i}", section="fees", category="fee", subject=f"service item {i}",
                 statement=f"Service item number {i} for Basic Savings costs ${i + 1}.00 per request.",
                 value={"type": "money", "amount": f"{i + 1}.00"}, applies_to=["basic_savings"],
                 effective_from=dt.date(2024, 1, 1)) for i in range(count)]


def make_plan(variant: str, carrier: bool = True, extra: int = 0) -> ArtifactPlan:
    facts = {fact.id: fact for fact in (make_facts() + extra_fee_facts(extra))} if carrier else {}
    renditions = [Rendition(fact_id=fact.id, text=fact.statement, value_form=fact.value.canonical(),
                            register="canonical", status="superseded" if fact.id == "overdraft_fee_old" else "current",
                            date=dt.date(2025, 12, 9)) for fact in facts.values()]
    return ArtifactPlan(artifact_id="pdf_document_004", genre="pdf_document", topic="overdraft",
                        topic_title="Overdraft and courtesy refunds", start=dt.datetime(2025, 11, 20, 8, tzinfo=TZ),
                        end=dt.datetime(2026, 2, 27, 15, 45, tzinfo=TZ), renditions=renditions, facts=facts,
                        seed=2026, variant=variant)


@pytest.fixture(scope="module")
def genre():
    return get_genre("pdf_document")


@pytest.fixture(scope="module")
def context():
    return make_context()


@pytest.fixture(scope="module", params=["handbook", "slides"])
def rendered(request, genre, context):
    plan = make_plan(request.param)
    return plan, genre.render(plan, context)


def test_render_is_byte_identical(genre, context, rendered):
    plan, artifact = rendered
    again = genre.render(make_plan(plan.variant), context)
    assert [f.data for f in artifact.files] == [f.data for f in again.files]
    assert artifact.files[0].data.startswith(b"%PDF-")


def test_streams_are_binary_flate_and_read_back_as_the_ascii85_file_did(genre, context, rendered, monkeypatch):
    """Page streams are Flate only (no ASCII85 wrapping, which only cost time to write and read); the
    process-wide reportlab setting is restored after the build, and the text pypdf reads is the text of
    the same document written with ASCII85."""
    from reportlab import rl_config

    from taugen.generators.corpus.genres import pdf_layout

    plan, artifact = rendered
    data = artifact.files[0].data
    assert b"/FlateDecode" in data and b"/ASCII85Decode" not in data
    assert rl_config.useA85 == 1
    monkeypatch.setattr(pdf_layout, "binary_streams", contextlib.nullcontext)
    monkeypatch.setattr("taugen.generators.corpus.genres.pdf_document.binary_streams", contextlib.nullcontext)
    wrapped = genre.render(make_plan(plan.variant), context).files[0].data
    assert b"/ASCII85Decode" in wrapped and len(data) < len(wrapped)
    assert genre.extract_text([RenderedFile(".pdf", wrapped)], "") == genre.extract_text(artifact.files, "")


def test_pages_with_text_agree_whether_read_from_the_streams_or_from_the_text_already_read(rendered, monkeypatch):
    """The structure check's "text on every page" uses the pages' text when the render already read it (in
    memory or in the content cache) and the page streams otherwise; both say the same of every page, and
    a page whose text is blank has none."""
    from taugen import content_cache
    from taugen.generators.corpus.genres import pdf_document

    _plan, artifact = rendered
    data = artifact.files[0].data
    from_text = pdf_document._pages_with_text(data)
    assert from_text == ["text"] * len(pdf_document._pages_text(data)) and len(from_text) >= 2
    monkeypatch.setattr(pdf_document, "_PAGES_CACHE", {})
    monkeypatch.setattr(content_cache, "load", lambda namespace, key: None)
    monkeypatch.setattr(content_cache, "store", lambda namespace, key, payload: None)
    assert pdf_document._pages_with_text(data) == from_text
    monkeypatch.setattr(pdf_document, "_PAGES_CACHE", {hashlib.sha256(data).digest(): ["Rule text", " \n"]})
    assert pdf_document._pages_with_text(data) == ["text", ""]


def test_renditions_recovered_by_pypdf(genre, rendered):
    plan, artifact = rendered
    text = genre.extract_text(artifact.files, "")
    flat = normalise_text(text)
    assert artifact.renditions == plan.renditions
    for rendition in artifact.renditions:
        assert normalise_text(rendition.text) in flat, rendition.fact_id
        assert find_surface_form(plan.facts[rendition.fact_id].value, text) is not None
    assert normalise_text(LONG) in flat  # long sentence with hyphenated words survives line wrapping


def test_pdftotext_reads_the_file(tmp_path, rendered):
    if shutil.which("pdftotext") is None:
        pytest.skip("poppler pdftotext is not installed")
    plan, artifact = rendered
    path = tmp_path / "doc.pdf"
    path.write_bytes(artifact.files[0].data)
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    current = next(r for r in plan.renditions if r.fact_id == "overdraft_fee_new")
    assert normalise_text(current.text) in normalise_text(out)


def test_page_facts_match_page_text(rendered):
    plan, artifact = rendered
    reader = PdfReader(io.BytesIO(artifact.files[0].data))
    assert len(reader.pages) == artifact.metadata["page_count"] >= 2
    placed = set()
    for page, fact_ids in artifact.metadata["page_facts"].items():
        page_text = normalise_text(reader.pages[page - 1].extract_text().replace("\x7f", "\u2022"))
        for fact_id in fact_ids:
            rendition = next(r for r in plan.renditions if r.fact_id == fact_id)
            assert normalise_text(rendition.text) in page_text
            placed.add(fact_id)
    assert placed == set(plan.facts)


def test_superseded_rule_only_as_history(genre, rendered):
    plan, artifact = rendered
    text = normalise_text(genre.extract_text(artifact.files, ""))
    old = normalise_text(plan.facts["overdraft_fee_old"].statement)
    assert text.count(old) == 1
    marker = "revision table" if plan.variant == "handbook" else "what changed"
    assert text.index(old) > text.index(marker)
    if plan.variant == "slides":
        assert f"previous rule, until june 1, 2025: {old}" in text
    else:
        assert "previous rule in force until june 1, 2025" in text


def test_slides_at_most_three_per_slide(genre, context):
    plan = make_plan("slides", extra=4)  # 9 renditions, 7 of them fees
    artifact = genre.render(plan, context)
    page_facts = artifact.metadata["page_facts"]
    assert all(len(ids) <= MAX_PER_SLIDE for ids in page_facts.values())
    assert sum(len(ids) for ids in page_facts.values()) == len(plan.renditions)
    assert len(page_facts) >= 4
    assert [f for f in genre.validate(artifact) if f.severity == "error"] == []
    text = genre.extract_text(artifact.files, "")
    for rendition in plan.renditions:
        assert normalise_text(rendition.text) in normalise_text(text)


def test_validate_clean_and_broken(genre, context, rendered):
    _plan, artifact = rendered
    assert [f for f in genre.validate(artifact) if f.severity == "error"] == []

    data = artifact.files[0].data
    truncated = dataclasses.replace(artifact, files=[RenderedFile(".pdf", data[: len(data) // 2])])
    assert any(f.severity == "error" for f in genre.validate(truncated))

    not_pdf = dataclasses.replace(artifact, files=[RenderedFile(".pdf", b"hello" + data)])
    assert any(f.code == "pdf_header" for f in genre.validate(not_pdf))

    overloaded = dataclasses.replace(artifact, metadata={**artifact.metadata, "variant": "slides",
                                                         "page_facts": {"2": ["a", "b", "c", "d"]}})
    assert any(f.code == "slide_overloaded" for f in genre.validate(overloaded))

    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1)
    canvas.drawString(72, 720, "One page only")
    canvas.showPage()
    canvas.showPage()  # a second, blank page
    canvas.save()
    thin = dataclasses.replace(artifact, files=[RenderedFile(".pdf", buffer.getvalue())])
    assert any(f.code == "page_without_text" for f in genre.validate(thin))


@pytest.mark.parametrize("variant", ["handbook", "slides"])
def test_filler_has_no_policy_values(genre, context, variant):
    artifact = genre.render(make_plan(variant, carrier=False), context)
    text = genre.extract_text(artifact.files, "")
    assert artifact.renditions == [] and artifact.metadata["page_facts"] == {}
    assert "$" not in text and "%" not in text
    assert not re.search(r"\b\d+\s+(business |calendar )?days?\b", text)
    assert "overdraft and courtesy refunds" in normalise_text(text)
    assert [f for f in genre.validate(artifact) if f.severity == "error"] == []


def test_metadata_and_words(genre, rendered):
    plan, artifact = rendered
    reader = PdfReader(io.BytesIO(artifact.files[0].data))
    info = reader.metadata
    assert info["/CreationDate"] == info["/ModDate"] == "D:20260227154500-06'00'"
    fields = " ".join(str(info.get(key, "")) for key in ("/Title", "/Author", "/Subject", "/Creator", "/Producer"))
    text = genre.extract_text(artifact.files, "")
    for haystack in (fields, text):
        assert not FORBIDDEN.search(haystack.replace("_", " "))
        for fact_id in plan.facts:
            assert fact_id not in haystack
    assert all(plan.start <= when <= plan.end for when in artifact.timestamps)
    if plan.variant == "slides":
        width, height = reader.pages[0].mediabox.width, reader.pages[0].mediabox.height
        assert width > height  # landscape


# Every history framing the genre has used for an old rule ("Previous rule, until ...", "Applies only
# until ...", "Previous rule, no longer in force", "Replaced; ...", "Changes on ...; this wording applies
# until then", the revision table's "Previous wording" column, the "What changed" slide).
HISTORY_WORDS = re.compile(r"\b(no longer|earlier version|older|previous|revision (?:history|table)|until|"
                           r"superseded|has since|history|replaced|changes on|what changed|in force until)\b",
                           re.IGNORECASE)


@pytest.mark.parametrize("variant", ["handbook", "slides"])
def test_lone_superseded_before_its_successor_is_a_rule_in_force(genre, context, variant):
    """The planner's shape: a document issued before the successor took effect (June 1, 2025) that owns
    only the old version (successor absent). The rule was in force that day: an ordinary rule paragraph
    or bullet, not a revision-table row or "What changed" bullet, with no hint of a coming change."""
    import json

    base = make_plan(variant)
    keep = ("overdraft_fee_old", "cash_advance_rate")
    plan = dataclasses.replace(base, renditions=[dataclasses.replace(r, date=dt.date(2025, 3, 2))
                                                 for r in base.renditions if r.fact_id in keep],
                               facts={fid: base.facts[fid] for fid in keep},
                               start=dt.datetime(2025, 3, 1, 9, tzinfo=TZ), end=dt.datetime(2025, 3, 3, 9, tzinfo=TZ))
    artifact = genre.render(plan, context)
    text = normalise_text(genre.extract_text(artifact.files, ""))
    old = normalise_text(plan.facts["overdraft_fee_old"].statement)
    assert text.count(old) == 1  # placement: verbatim, value found
    assert find_surface_form(plan.facts["overdraft_fee_old"].value, text) == "$34.00"
    at = text.index(old)
    around = text[max(at - 120, 0):at + len(old) + 80]
    assert not HISTORY_WORDS.search(around), around
    assert "what changed" not in text and "june 1, 2025" not in text and "applies only until" not in text
    if variant == "handbook":
        assert text.index("rules in force") < at < text.index("revision table")
    as_current = genre.render(dataclasses.replace(plan, renditions=[dataclasses.replace(r, status="current")
                                                                    for r in plan.renditions]), context)
    assert as_current.files[0].data == artifact.files[0].data  # laid out exactly as a current rule
    rebuilt = dataclasses.replace(artifact, plan=dataclasses.replace(plan, facts={}),
                                  metadata=json.loads(json.dumps(artifact.metadata)))
    assert [f for f in genre.validate(rebuilt) if f.severity == "error"] == []


@pytest.mark.parametrize("variant", ["handbook", "slides"])
def test_no_announcement_of_a_coming_change(genre, context, variant):
    """Both versions in one document issued before the successor took effect: the old rule is not
    framed as history and the coming change is not announced."""
    early = dataclasses.replace(make_plan(variant), start=dt.datetime(2025, 3, 1, 9, tzinfo=TZ),
                                end=dt.datetime(2025, 3, 3, 9, tzinfo=TZ))
    text = normalise_text(genre.extract_text(genre.render(early, context).files, ""))
    old = normalise_text(early.facts["overdraft_fee_old"].statement)
    assert text.count(old) == 1
    at = text.index(old)
    assert not HISTORY_WORDS.search(text[max(at - 120, 0):at + len(old) + 80])
    assert "june 1, 2025" not in text and "changes on" not in text and "what changed" not in text


@pytest.mark.parametrize("carrier", [True, False])
def test_decks_reach_their_planned_length(genre, context, carrier):
    """Carriers and fillers alike grow with working-note slides to the planned length (words of page text);
    a deck whose rules alone are longer keeps them all."""
    texts, counts = [], []
    for planned in (120, 300, 450, 620):
        plan = dataclasses.replace(make_plan("slides", carrier=carrier), length_words=planned)
        artifact = genre.render(plan, context)
        text = genre.extract_text(artifact.files, "")
        words = len(text.split())
        floor = 300 if carrier else 0  # the carrier's five rules, agenda and closing take about 300 words
        assert abs(words - max(planned, floor)) <= 60, (planned, words)
        assert [f for f in genre.validate(artifact) if f.severity == "error"] == []
        texts.append(text)
        counts.append(words)
    assert counts == sorted(counts)
    assert len(set(texts)) == (3 if carrier else 4)  # the carrier at 120 and 300 words is its rules alone


def test_filler_deck_fills_rule_slides_with_grounded_figures(genre, context):
    """Given the pack's facts, a deck without rules has slides shaped like rule slides (a category heading,
    a bullet about a subject of the topic) holding figures that are none of any fact's values."""
    facts = {fact.id: fact for fact in make_facts() + extra_fee_facts(3)}
    rendering = dataclasses.replace(context, facts=facts)
    headings, found = set(), 0
    for seed in range(6):
        plan = dataclasses.replace(make_plan("slides", carrier=False), seed=seed, length_words=300)
        artifact = genre.render(plan, rendering)
        text = genre.extract_text(artifact.files, "")
        assert artifact.renditions == [] and artifact.metadata["page_facts"] == {}
        for fact in facts.values():
            assert find_surface_form(fact.value, text) is None, (seed, fact.id)
        headings.update(artifact.metadata["slide_headings"])
        found += "returned item fee waiver" in text
    assert "Fees and charges" in headings and found
