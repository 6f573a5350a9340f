"""The flowchart genre: Graphviz PNG + SVG from a networkx process graph."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import re
import shutil
from pathlib import Path

import jinja2
import networkx as nx
import pytest
import yaml
from PIL import Image

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import find_surface_form, normalise_text
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    RenderContext,
    RenderedFile,
    Rendition,
    get_genre,
)
from taugen.generators.corpus.genres.flowchart import dot_quote, parse_svg, wrap_label
from taugen.generators.corpus.vocabulary import load_vocabulary

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")

PACK = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking" / "domain.yaml"
TZ = dt.timezone(dt.timedelta(hours=-6))
FORBIDDEN = re.compile(r"\b(fact|facts|rendition|renditions|carrier|filler|answer key|distractor|taugen)\b",
                       re.IGNORECASE)


def make_context() -> RenderContext:
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True)
    return RenderContext(config=DomainConfig(**yaml.safe_load(PACK.read_text())), templates=env, build_seed=3,
                         tier="standard",
                         vocabulary=load_vocabulary(PACK.parent))


def make_facts() -> list[Fact]:
    return [
        Fact(id="replacement_fee_old", section="card_servicing", category="fee", subject="card replacement fee",
             statement="A replacement debit card costs $5.00 when the customer asks for standard delivery.",
             value={"type": "money", "amount": "5.00"}, applies_to=["debit_card"], effective_from=dt.date(2024, 1, 1)),
        Fact(id="replacement_fee_new", section="card_servicing", category="fee", subject="card replacement fee",
             statement="A replacement debit card costs $7.50 when the customer asks for standard delivery.",
             value={"type": "money", "amount": "7.50"}, applies_to=["debit_card"], effective_from=dt.date(2025, 7, 1),
             supersedes="replacement_fee_old"),
        Fact(id="dispute_notice_window", section="error_resolution", category="deadline",
             subject="notice window for unauthorized transfers",
             statement="Accept a report of an unauthorized electronic transfer only if the customer gives notice "
                       "within 60 days after the statement that first showed it was sent; otherwise transfer the "
                       "caller to the disputes-and-claims specialist team.",
             value={"type": "duration", "amount": 60, "unit": "days"}, applies_to=["everyday_checking"],
             effective_from=dt.date(2024, 1, 1)),
        Fact(id="stop_payment_phrase", section="card_servicing", category="procedure", subject="stop payment wording",
             statement='Ask the customer to confirm the words "stop payment" and read back the cheque number '
                       'before placing the order (a \\ backslash-safe note).',
             value={"type": "text", "key_terms": ["stop payment"]}, effective_from=dt.date(2024, 1, 1)),
    ]


def make_plan(carrier: bool = True) -> ArtifactPlan:
    facts = {fact.id: fact for fact in make_facts()} if carrier else {}
    renditions = [Rendition(fact_id=fact.id, text=fact.statement, value_form=fact.value.canonical(),
                            register="canonical",
                            status="superseded" if fact.id == "replacement_fee_old" else "current",
                            date=dt.date(2025, 12, 2)) for fact in facts.values()]
    return ArtifactPlan(artifact_id="flowchart_002", genre="flowchart", topic="card_servicing",
                        topic_title="Card servicing", start=dt.datetime(2025, 11, 3, 8, tzinfo=TZ),
                        end=dt.datetime(2026, 1, 15, 17, tzinfo=TZ), renditions=renditions, facts=facts, seed=99)


@pytest.fixture(scope="module")
def genre():
    return get_genre("flowchart")


@pytest.fixture(scope="module")
def context():
    return make_context()


@pytest.fixture(scope="module")
def artifact(genre, context):
    return genre.render(make_plan(), context)


def test_render_is_byte_identical(genre, context, artifact):
    again = genre.render(make_plan(), context)
    assert [(f.suffix, f.role) for f in artifact.files] == [(".png", "image"), (".svg", "vector")]
    assert [f.data for f in artifact.files] == [f.data for f in again.files]
    assert artifact.author_text == again.author_text
    assert artifact.author_text.startswith("digraph process {")


def test_renditions_recoverable_from_svg(genre, artifact):
    text = genre.extract_text(artifact.files, artifact.author_text)
    assert artifact.renditions == make_plan().renditions
    for rendition in artifact.renditions:
        assert normalise_text(rendition.text) in normalise_text(text), rendition.fact_id
        fact = make_plan().facts[rendition.fact_id]
        assert find_surface_form(fact.value, text) is not None
    # long labels are wrapped in the drawing but rejoined per node
    nodes = parse_svg(artifact.files[1].data)["nodes"]
    long_node = next(n for n in artifact.metadata["node_facts"]
                     if artifact.metadata["node_facts"][n] == ["dispute_notice_window"])
    assert artifact.author_text.count("\\n") > 5
    assert next(n for n in nodes if n["id"] == long_node)["text"] == " ".join(make_facts()[2].statement.split())
    # the superseded rule is shown as a dated history note, never as a step
    note = next(n for n in nodes if "note" in n["kinds"])
    assert note["text"].startswith("Previous rule, until July 1, 2025:")
    assert "$5.00" in note["text"]
    assert artifact.metadata["nodes"][next(iter(n for n, f in artifact.metadata["node_facts"].items()
                                                 if f == ["replacement_fee_old"]))]["kind"] == "note"


def test_one_dot_run_writes_each_format_as_its_own_run_would(artifact):
    """The chart's PNG and SVG come from one ``dot`` run (one layout); each must be byte for byte what a
    run of its own writes, and a DOT error still names the formats and dot's message."""
    from taugen.generators.corpus.genres.flowchart import GraphvizError, run_dot

    png, svg = run_dot(artifact.author_text, "png", "svg")
    assert (png, svg) == (artifact.files[0].data, artifact.files[1].data)
    assert png == run_dot(artifact.author_text, "png") and svg == run_dot(artifact.author_text, "svg")
    assert png.startswith(b"\x89PNG") and b"<svg" in svg
    with pytest.raises(GraphvizError, match=r"dot -Tpng -Tsvg failed: .*syntax error"):
        run_dot("digraph { a -> }\n", "png", "svg")
    with pytest.raises(ValueError):
        run_dot(artifact.author_text)


def test_png_opens_with_sane_size(artifact):
    image = Image.open(io.BytesIO(artifact.files[0].data))
    image.load()
    assert image.format == "PNG"
    width, height = image.size
    assert 300 <= width <= 6000 and 300 <= height <= 8000
    assert list(artifact.metadata["png_size"]) == [width, height]


def test_graph_shape(artifact):
    graph = nx.DiGraph()
    graph.add_edges_from((s, t, {"label": label}) for s, t, label in artifact.metadata["edges"])
    kinds = {n: d["kind"] for n, d in artifact.metadata["nodes"].items()}
    assert not nx.is_directed_acyclic_graph(graph)
    assert "exhaustion" in kinds.values() and "end" in kinds.values()
    decisions = [n for n, k in kinds.items() if k == "decision"]
    assert len(decisions) >= 2
    for node in decisions:
        labels = sorted(graph.edges[node, t]["label"].split(",")[0] for t in graph.successors(node))
        assert labels == ["No", "Yes"]
    assert set(graph) == {artifact.metadata["start"]} | nx.descendants(graph, artifact.metadata["start"])


def test_dot_escaping():
    assert dot_quote('say "stop" \\ now') == '"say \\"stop\\" \\\\ now"'
    lines = wrap_label("non-sufficient-funds-related " * 4 + "word", 20)
    assert all("-" not in line[-1:] for line in lines)
    assert " ".join(lines) == ("non-sufficient-funds-related " * 4 + "word")


def test_validate_clean_and_broken(genre, artifact, context):
    assert [f for f in genre.validate(artifact) if f.severity == "error"] == []
    filler = genre.render(make_plan(carrier=False), context)
    assert [f for f in genre.validate(filler) if f.severity == "error"] == []

    bad_svg = dataclasses.replace(artifact, files=[artifact.files[0], RenderedFile(".svg", b"<svg><g>", "vector")])
    assert any(f.code == "svg_unparseable" for f in genre.validate(bad_svg))

    bad_png = dataclasses.replace(artifact, files=[RenderedFile(".png", b"GIF89a" + artifact.files[0].data[6:],
                                                                "image"), artifact.files[1]])
    assert any(f.code == "png_invalid" for f in genre.validate(bad_png))

    # a chart without its retry loop and exhaustion outcome: re-render from edited DOT
    from taugen.generators.corpus.genres.flowchart import run_dot

    dot = "\n".join(line for line in artifact.author_text.splitlines()
                    if 'class="retry"' not in line and 'class="exhaustion"' not in line)
    stripped = dataclasses.replace(artifact, files=[RenderedFile(".png", run_dot(dot, "png"), "image"),
                                                    RenderedFile(".svg", run_dot(dot, "svg"), "vector")],
                                   metadata={})
    codes = {f.code for f in genre.validate(stripped) if f.severity == "error"}
    assert {"no_retry_loop", "no_exhaustion", "decision_branches"} <= codes


def test_filler_has_no_policy_values(genre, context):
    filler = genre.render(make_plan(carrier=False), context)
    text = genre.extract_text(filler.files, filler.author_text)
    assert filler.renditions == []
    assert "$" not in text and "%" not in text
    assert not re.search(r"\b\d+\s+(business |calendar )?days?\b", text)
    assert "Card servicing" in text or "card servicing" in text


def test_no_internal_words_or_ids(genre, artifact):
    svg = artifact.files[1].data.decode()
    text = genre.extract_text(artifact.files, artifact.author_text)
    for haystack in (svg, text, artifact.author_text):
        assert not FORBIDDEN.search(haystack.replace("_", " "))
        for fact in make_facts():
            assert fact.id not in haystack


def test_timestamps_inside_window(artifact):
    plan = artifact.plan
    assert artifact.timestamps and all(plan.start <= t <= plan.end for t in artifact.timestamps)


# Every history framing the genre has used for an old rule ("Previous rule, until ...", "Applies only
# until ...", "Previous rule, no longer in force", the "replaced" edge).
HISTORY_WORDS = re.compile(r"\b(no longer|earlier version|older|previous|revision history|until|superseded|"
                           r"has since|history|replaced|in force)\b", re.IGNORECASE)


def test_lone_superseded_before_its_successor_is_a_plain_step(genre, context):
    """The planner's shape: a chart dated before the successor took effect (July 1, 2025) that owns only
    the old version (successor absent). The rule was in force that day: a plain step like any current
    rule, no history note; it validates from JSON metadata."""
    import json

    base = make_plan()
    keep = ("replacement_fee_old", "stop_payment_phrase")
    plan = dataclasses.replace(base, renditions=[dataclasses.replace(r, date=dt.date(2025, 3, 5))
                                                 for r in base.renditions if r.fact_id in keep],
                               facts={fid: base.facts[fid] for fid in keep},
                               start=dt.datetime(2025, 3, 3, 8, tzinfo=TZ), end=dt.datetime(2025, 3, 5, 16, tzinfo=TZ))
    artifact = genre.render(plan, context)
    text = genre.extract_text(artifact.files, "")
    old = plan.renditions[0]
    assert normalise_text(old.text) in normalise_text(text)  # placement: verbatim, value found
    assert find_surface_form(plan.facts[old.fact_id].value, text) == "$5.00"
    line = next(line for line in text.splitlines() if "$5.00" in line)
    assert normalise_text(line) == normalise_text(old.text)  # the node holds the rule and nothing else
    assert not HISTORY_WORDS.search(text.split("\n", 1)[1]), text  # (the title line names the chart's date)
    node = next(n for n, f in artifact.metadata["node_facts"].items() if f == [old.fact_id])
    assert artifact.metadata["nodes"][node]["kind"] == "step"
    assert all(data["kind"] != "note" for data in artifact.metadata["nodes"].values())
    as_current = genre.render(dataclasses.replace(plan, renditions=[dataclasses.replace(r, status="current")
                                                                    for r in plan.renditions]), context)
    assert [f.data for f in as_current.files] == [f.data for f in artifact.files]
    rebuilt = dataclasses.replace(artifact, plan=dataclasses.replace(plan, facts={}),
                                  metadata=json.loads(json.dumps(artifact.metadata)))
    assert [f for f in genre.validate(rebuilt) if f.severity == "error"] == []
