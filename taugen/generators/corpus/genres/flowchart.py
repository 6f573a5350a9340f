"""The flowchart genre: a service process drawn by Graphviz from a networkx graph.

The process is a :class:`networkx.DiGraph` whose nodes carry ``kind`` (``start``, ``step``,
``decision``, ``exhaustion``, ``end``, ``note``) and ``label``. Every chart has

* a start node and end nodes;
* decisions with two labelled branches (``Yes`` / ``No``);
* a retry loop (a failed identity check returns to the verification step);
* an exhaustion outcome (attempts exhausted: transfer to the specialist team);
* one step per rendition in force on the chart's date (``plan.end``) whose label is the rendition
  text, wrapped on word boundaries; a superseded rendition is such a plain step unless
  :func:`~taugen.generators.corpus.genre.shown_as_history` holds on that date;
* in the same run of steps, steps about other subjects of the topic that state nothing about them: the
  subject's rule with its figure deferred to where the business publishes it, where its sentence allows
  (:func:`~taugen.generators.corpus.renditions.deferred_statement`: "The Lakeshore branch takes
  in-person domestic wire requests until the cut-off time in the published schedule on business days."),
  else what to check or say about it (``Look up <subject> in the staff reference before answering``):
  every map draws how many subject
  steps it has alike, rules take theirs and these the rest, so a map without a rule (a filler) is drawn
  by the same process as one with rules;
* one note per rendition shown as history (``Previous rule, until <date>: <text>``; its successor is on
  the chart and already in force), tied by a dashed edge to the step of the rule that replaced it.

Delivered files: the PNG (role ``image``) and the SVG (role ``vector``), both rendered by ``dot`` from
the DOT source, which is kept as ``author_text``. Graphviz output depends only on the DOT text (and the
installed Graphviz and fonts), so renders are byte-identical on one machine.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import shutil
import struct
import subprocess
import tempfile
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.benchmarks import other_subjects
from taugen.generators.corpus.renditions import deferred_statement
from taugen.findings import Finding, error
from taugen.text import lower_first

if TYPE_CHECKING:
    from taugen.authoring.models import Fact

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SVG_NS = "{http://www.w3.org/2000/svg}"
WRAP = 40
_KINDS = ("start", "step", "decision", "exhaustion", "end", "note")
_STYLE = {
    "start": 'shape=ellipse, style=filled, fillcolor="#d9ead3"',
    "step": 'shape=box, style="rounded,filled", fillcolor="#eef3f8"',
    "decision": 'shape=diamond, style=filled, fillcolor="#fff2cc"',
    "exhaustion": 'shape=box, style="filled,bold", fillcolor="#f4cccc"',
    "end": 'shape=ellipse, style=filled, fillcolor="#d9d9d9"',
    "note": 'shape=note, style="filled,dashed", fillcolor="#fafafa", fontcolor="#555555"',
}


class GraphvizError(RuntimeError):
    """``dot`` is missing or failed; the message carries its stderr."""


def wrap_label(text: str, width: int = WRAP) -> list[str]:
    """Split ``text`` into lines of at most ``width`` characters, only at white space (never inside a
    word or at a hyphen), so that joining the lines with spaces gives the text back."""
    return textwrap.wrap(" ".join(text.split()), width=width, break_long_words=False, break_on_hyphens=False) or [""]


def dot_quote(text: str) -> str:
    """A DOT double-quoted string literal for ``text`` (backslashes and quotes escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(lines: list[str]) -> str:
    """A DOT label from already wrapped lines: each line escaped, joined by DOT's ``\\n``."""
    escaped = [line.replace("\\", "\\\\").replace('"', '\\"') for line in lines]
    return '"' + "\\n".join(escaped) + '"'


def run_dot(dot_source: str, *formats: str) -> bytes | tuple[bytes, ...]:
    """Render DOT text with Graphviz ``dot``, once for all ``formats`` (``"png"``, ``"svg"``, ...).

    One format is written to standard output (``dot -T<fmt>``); several are written by one ``dot`` run
    (``dot -T<a> -o a -T<b> -o b``: one layout, each output byte-identical to a run of its own, in about
    half the time of one run per format, most of it the PNG's rasterising).

    Returns:
        the bytes of the one format, or a tuple of each format's bytes in the order asked.

    Raises:
        GraphvizError: ``dot`` is not installed or exits with an error.
        ValueError: no format is asked for.
    """
    if not formats:
        raise ValueError("run_dot needs at least one output format")
    binary = shutil.which("dot")
    if binary is None:
        raise GraphvizError("Graphviz 'dot' is not installed (apt-get install graphviz)")
    if len(formats) == 1:
        return _dot(binary, dot_source, [f"-T{formats[0]}"], formats).stdout
    with tempfile.TemporaryDirectory(prefix="taugen-dot-") as folder:
        outputs = [Path(folder) / f"chart-{index}.{fmt}" for index, fmt in enumerate(formats)]
        _dot(binary, dot_source, [part for fmt, out in zip(formats, outputs) for part in (f"-T{fmt}", "-o", str(out))],
             formats)
        return tuple(out.read_bytes() for out in outputs)


def _dot(binary: str, dot_source: str, arguments: list[str], formats: tuple[str, ...]) -> subprocess.CompletedProcess:
    """One ``dot`` run with ``arguments`` on ``dot_source``. Raises GraphvizError naming ``formats`` when it fails."""
    result = subprocess.run([binary, *arguments], input=dot_source.encode("utf-8"), capture_output=True, check=False,
                            timeout=120)
    if result.returncode != 0:
        raise GraphvizError(f"dot -T{' -T'.join(formats)} failed: {result.stderr.decode('utf-8', 'replace').strip()}")
    return result


def _classes(element: ET.Element) -> list[str]:
    return (element.get("class") or "").split()


def _own_text(group: ET.Element) -> str:
    parts = ["".join(text.itertext()) for text in group.findall(f"{SVG_NS}text")]
    return " ".join(" ".join(parts).split())


def parse_svg(svg: bytes) -> dict:
    """Read a Graphviz SVG back into its parts.

    Returns:
        ``{"title": str, "nodes": [{"id", "kinds", "text"}], "edges": [{"source", "target", "text",
        "kinds"}]}`` in document order; node ``text`` joins the node's ``<text>`` lines with spaces.

    Raises:
        xml.etree.ElementTree.ParseError: the SVG is not well-formed.
    """
    root = ET.fromstring(svg)
    graph = next((g for g in root.iter(f"{SVG_NS}g") if "graph" in _classes(g)), root)
    result: dict = {"title": _own_text(graph), "nodes": [], "edges": []}
    for group in graph.iter(f"{SVG_NS}g"):
        classes = _classes(group)
        title_el = group.find(f"{SVG_NS}title")
        name = "".join(title_el.itertext()) if title_el is not None else ""
        if "node" in classes:
            result["nodes"].append({"id": name, "kinds": [c for c in classes if c != "node"],
                                    "text": _own_text(group)})
        elif "edge" in classes:
            source, _, target = name.partition("->")
            result["edges"].append({"source": source, "target": target, "text": _own_text(group),
                                    "kinds": [c for c in classes if c != "edge"]})
    return result


def history_lead(newer: Fact) -> str:
    """The words that frame a replaced rule as history: ``Previous rule, until <date>:``, the date being
    the successor's ``effective_from``. Only for a rendition :func:`shown_as_history` on the chart's
    date, so the successor is on the chart and already in force."""
    return f"Previous rule, until {_long_date(newer.effective_from)}:"


_SUBJECT_STEPS = ("Check what the customer has already been told about {S}, and correct anything that was wrong.",
                  ("Look up {S} in the staff reference before answering, and tell the customer where the answer "
                   "comes from."),
                  "Explain {S} to the customer in plain words and check that they have understood it.",
                  "Note the customer's question about {S} in the case, with the answer you gave.",
                  "Confirm which account {S} concerns before you go any further with the request.")
"""Steps about a subject of the topic that state nothing about it, in the place a rule's step takes."""


def _subject(fact: Fact) -> str:
    subject = (fact.subject or "").strip().rstrip(".")
    return subject if subject[:2].isupper() else subject[:1].lower() + subject[1:]


def _long_date(day: dt.date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


class _Builder:
    """Accumulates the process graph with sequential node ids ``n01``, ``n02`` ..."""

    def __init__(self) -> None:
        self.graph = nx.DiGraph()

    def node(self, kind: str, text: str, facts: tuple[str, ...] = ()) -> str:
        node_id = f"n{len(self.graph) + 1:02d}"
        self.graph.add_node(node_id, kind=kind, text=" ".join(text.split()), facts=list(facts))
        return node_id

    def edge(self, source: str, target: str, label: str = "", kind: str = "flow") -> None:
        self.graph.add_edge(source, target, label=label, kind=kind)


@register_genre
class FlowchartGenre(Genre):
    """A customer-service process chart (PNG + SVG) rendered by Graphviz; see the module docstring."""

    name = "flowchart"
    reference_kinds = MappingProxyType({"": "process_map"})
    affinity = (("duration", "", 1), ("boolean", "", 1), ("text", "", 3))
    label = "Process flowchart"
    max_facts = 4
    categories = ("procedure", "procedures", "deadline", "deadlines", "eligibility")
    variants = ("",)
    binary = True
    medium = "image"
    substitute = ("pdf_document", "handbook")

    def build_graph(self, plan: ArtifactPlan, context: RenderContext) -> nx.DiGraph:
        """The process graph for ``plan`` (node attributes ``kind``, ``text``, ``facts``; edge
        attributes ``label``, ``kind``). Deterministic: choices come from ``plan.rng``."""
        rng = plan.rng("flowchart")
        b = _Builder()
        topic = lower_first(plan.topic_title)
        start = b.node("start", rng.choice([f"Customer contacts us about {topic}", f"Start: {topic} request",
                                            f"Customer asks about {topic}"]))
        opened = b.node("step", rng.choice(["Open a case and note the request",
                                            "Log the contact and the customer's request"]))
        verify = b.node("step", "Verify the customer's identity")
        verified = b.node("decision", rng.choice(["Identity verified?", "Identity confirmed?"]))
        limit = b.node("decision", rng.choice(["Retry limit reached?", "Attempts exhausted?"]))
        exhausted = b.node("exhaustion", rng.choice([
            "Escalate after repeated failed attempts: transfer to the specialist team",
            "Transfer to specialist: attempts exhausted",
        ]))
        escalated = b.node("end", "End: case escalated")
        b.edge(start, opened)
        b.edge(opened, verify)
        b.edge(verify, verified)
        b.edge(verified, limit, "No")
        b.edge(limit, verify, "No, retry", "retry")
        b.edge(limit, exhausted, "Yes")
        b.edge(exhausted, escalated)

        previous = verified
        first_label = "Yes"
        step_of: dict[str, str] = {}
        drawn = plan.end.date()
        current = [r for r in plan.renditions if not shown_as_history(plan, r, drawn)]  # in force that day
        # Every map draws how many subject steps it has alike: rules in force take theirs, steps about
        # other subjects of the topic the rest, now and then one more, in the same place. A step about a
        # subject gives its rule's own sentence with the figure deferred to where it is published where
        # the sentence allows (so a rule's words are in maps without it), else what to check or say about
        # it (no value).
        wanted = max(rng.choice((1, 2, 2, 3, 3)) - len(current), 0) + int(rng.random() < 0.25)
        subjects = other_subjects(context, plan, rng)
        slots: list = list(current)
        published_in = context.vocabulary.common.published_in
        for fact in subjects[:wanted]:  # the rule's own sentence with its figure deferred, where it has one
            step = rng.choice(_SUBJECT_STEPS).format(S=_subject(fact))
            slots.insert(rng.randint(0, len(slots)), deferred_statement(fact, published_in) or step)
        for slot in slots:
            if isinstance(slot, str):
                step = b.node("step", slot[:1].upper() + slot[1:])
            else:
                step = b.node("step", slot.text, (slot.fact_id,))
                step_of[slot.fact_id] = step
            b.edge(previous, step, first_label)
            previous, first_label = step, ""
        # Working steps every real process map carries in varying number (so the map's size says
        # nothing about the rules on it).
        extra = ["Review the account notes and recent contacts",
                 "Answer the question using the current staff reference",
                 "Summarise what happens next for the customer", "Check for an open case on the same request", "Read back the request to the customer",
                 "Attach documents the customer provided", "Check the account for holds and flags",
                 "Confirm the customer's contact details", "Note the channel the request came in on",
                 "Ask whether anyone else is on the account", "Check the notes from the last contact",
                 "Offer a written summary by secure message", "Record the customer's preferred call-back time",
                 "Link related cases in the case system", "Confirm the customer understood the next step",
                 "Check whether a complaint was raised", "Tag the case for the weekly quality sample",
                 "If the customer is calling for someone else, check that the authority on file covers this request",
                 f"Ask whether the customer has already contacted a {context.vocabulary.common.site} or used the app "
                 "about the same request",
                 "Where the customer is upset, acknowledge it, slow down and explain each step as you take it",
                 "If documents are missing, tell the customer exactly what to send and where, and set a reminder",
                 "At the end of the contact, summarise what was agreed and who will act next, and record it in the case",
                 "If the request touches another team's work, add them to the case rather than forwarding emails"]
        for text in rng.sample(extra, rng.randint(0, len(extra))):
            step = b.node("step", text)
            b.edge(previous, step, first_label)
            previous, first_label = step, ""
        check = b.node("decision", rng.choice(["Request meets the rules above?", "All conditions met?"]))
        b.edge(previous, check, first_label)
        complete = b.node("step", rng.choice(["Complete the request and confirm next steps",
                                              "Process the request and confirm it with the customer"]))
        explain = b.node("step", rng.choice(["Explain the outcome and record the reason",
                                             "Explain why the request cannot proceed and note the case"]))
        resolved = b.node("end", "End: request completed")
        declined = b.node("end", "End: customer informed")
        b.edge(check, complete, "Yes")
        b.edge(check, explain, "No")
        b.edge(complete, resolved)
        b.edge(explain, declined)

        for rendition in (r for r in plan.renditions if shown_as_history(plan, r, drawn)):
            newer = plan.successor(rendition.fact_id)
            assert newer is not None  # shown as history: the successor is on the chart
            note = b.node("note", f"{history_lead(newer)} {rendition.text}", (rendition.fact_id,))
            b.edge(step_of.get(newer.id) or next(iter(step_of.values()), opened), note, "replaced", "history")
        return b.graph

    def to_dot(self, graph: nx.DiGraph, title: str) -> str:
        """DOT source for ``graph`` (labels wrapped at :data:`WRAP` characters, quotes escaped)."""
        lines = [
            "digraph process {",
            (f'  graph [rankdir=TB, fontname="Helvetica", fontsize=16, labelloc=t, nodesep=0.45, ranksep=0.5, '
             f"pad=0.3, dpi=96, label={_label(wrap_label(title, 70))}];"),
            '  node [fontname="Helvetica", fontsize=11, margin="0.15,0.08"];',
            '  edge [fontname="Helvetica", fontsize=10, color="#444444"];',
        ]
        for node_id, data in graph.nodes(data=True):
            lines.append(f"  {node_id} [label={_label(wrap_label(data['text']))}, {_STYLE[data['kind']]}, "
                         f"class={dot_quote(data['kind'])}];")
        for source, target, data in graph.edges(data=True):
            attrs = [f"class={dot_quote(data['kind'])}"]
            if data["label"]:
                attrs.insert(0, f"label={dot_quote(data['label'])}")
            if data["kind"] == "history":
                attrs += ["style=dashed", "arrowhead=none"]
            if data["kind"] == "retry":
                attrs += ["constraint=false", 'color="#b45f06"']
            lines.append(f"  {source} -> {target} [{', '.join(attrs)}];")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Build the graph, write DOT, render PNG and SVG with ``dot``.

        Raises:
            GraphvizError: Graphviz is missing or fails.
        """
        graph = self.build_graph(plan, context)
        title = f"{context.config.brand}: {plan.topic_title} process (rev. {_long_date(plan.end.date())})"
        dot_source = self.to_dot(graph, title)
        png, svg = run_dot(dot_source, "png", "svg")
        width, height = struct.unpack(">II", png[16:24])
        node_facts = {n: d["facts"] for n, d in graph.nodes(data=True) if d["facts"]}
        metadata = {
            "start": next(n for n, d in graph.nodes(data=True) if d["kind"] == "start"),
            "nodes": {n: {"kind": d["kind"], "facts": d["facts"]} for n, d in graph.nodes(data=True)},
            "edges": [[s, t, d["label"]] for s, t, d in graph.edges(data=True)],
            "node_facts": node_facts,
            "png_size": [width, height],
        }
        return RenderedArtifact(
            plan=plan,
            files=[RenderedFile(".png", png, "image"), RenderedFile(".svg", svg, "vector")],
            author_text=dot_source,
            renditions=list(plan.renditions),
            timestamps=[plan.end],
            metadata=metadata,
        )

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Text of the SVG: the chart title, then one line per node (its wrapped label lines rejoined
        with spaces) and one line per labelled edge, in document order. ``author_text`` is not used."""
        lines: list[str] = []
        for file in files:
            if file.suffix != ".svg":
                continue
            root = ET.fromstring(file.data)
            for group in root.iter(f"{SVG_NS}g"):
                classes = _classes(group)
                if ("graph" in classes or "node" in classes or "edge" in classes) and _own_text(group):
                    lines.append(_own_text(group))
        return "\n".join(lines)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure, read from the delivered files (kinds from the SVG node classes, falling back to
        ``metadata['nodes']``): a PNG with valid magic bytes; an SVG that parses; at least one
        decision, each with two or more labelled out-edges; a cycle (retry loop); an exhaustion
        outcome; an end node; a single start from which every node is reachable."""
        subject = artifact.plan.artifact_id
        findings: list[Finding] = []
        png = [f for f in artifact.files if f.suffix == ".png"]
        svg = [f for f in artifact.files if f.suffix == ".svg"]
        if len(png) != 1 or not png[0].data.startswith(PNG_MAGIC):
            findings.append(error("structure", "png_invalid", subject, "the chart image is missing or not a PNG"))
        if len(svg) != 1:
            return findings + [error("structure", "svg_missing", subject, "expected one SVG file")]
        try:
            parsed = parse_svg(svg[0].data)
        except ET.ParseError as exc:
            return findings + [error("structure", "svg_unparseable", subject, "the SVG does not parse", str(exc))]
        meta_nodes = artifact.metadata.get("nodes", {})
        graph = nx.DiGraph()
        for node in parsed["nodes"]:
            kinds = [k for k in node["kinds"] if k in _KINDS] or [meta_nodes.get(node["id"], {}).get("kind", "step")]
            graph.add_node(node["id"], kind=kinds[0])
        for edge in parsed["edges"]:
            graph.add_edge(edge["source"], edge["target"], label=edge["text"])
        if graph.number_of_nodes() == 0:
            return findings + [error("structure", "empty_chart", subject, "the SVG has no nodes")]
        kind_of = nx.get_node_attributes(graph, "kind")
        decisions = [n for n, k in kind_of.items() if k == "decision"]
        if not decisions:
            findings.append(error("structure", "no_decision", subject, "the chart has no decision"))
        for node in decisions:
            labelled = [t for t in graph.successors(node) if graph.edges[node, t]["label"]]
            if len(labelled) < 2:
                findings.append(error("structure", "decision_branches", subject,
                                      f"decision {node} has {len(labelled)} labelled branch(es); needs two"))
        if nx.is_directed_acyclic_graph(graph):
            findings.append(error("structure", "no_retry_loop", subject, "the chart has no loop back to an earlier step"))
        if "exhaustion" not in kind_of.values():
            findings.append(error("structure", "no_exhaustion", subject, "the chart has no exhaustion outcome"))
        if "end" not in kind_of.values():
            findings.append(error("structure", "no_end", subject, "the chart has no end node"))
        starts = [n for n, k in kind_of.items() if k == "start"]
        if len(starts) != 1:
            findings.append(error("structure", "start_count", subject, f"expected one start node, found {len(starts)}"))
        else:
            unreachable = set(graph) - nx.descendants(graph, starts[0]) - {starts[0]}
            if unreachable:
                findings.append(error("structure", "unreachable_nodes", subject,
                                      f"{len(unreachable)} node(s) cannot be reached from the start",
                                      ", ".join(sorted(unreachable))))
        return findings

