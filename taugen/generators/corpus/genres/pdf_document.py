"""The PDF genre: a staff handbook excerpt or a landscape slide deck, written with reportlab.

Variants:

* ``handbook``: a portrait (US Letter) excerpt of the staff reference: a title page (issue date, owner,
  version), numbered headings, each current rendition as its own paragraph under a heading for its
  category, generic handling notes, and a revision table at the end that lists replaced rules with
  the date they stopped applying.
* ``slides``: a 16:9 landscape deck: a title slide, an agenda, content slides (a heading and bullets,
  at most :data:`MAX_PER_SLIDE` renditions per slide), a "What changed" slide for replaced rules and
  a closing slide. ``metadata["page_facts"]`` maps each 1-based page number to the fact ids it states.
  Carriers and fillers come from one process: a deck's rule slides hold its renditions, and slides of
  the same shape (a category heading, bullets, a products label) hold other subjects of the topic with a
  grounded figure that is no rule of the business (another organisation's published figure, how often
  customers asked), as many in a deck without rules as decks hold rule groups and now and then one
  beside the rules; then working-note slides (:data:`_WORKING_SLIDES`) bring every deck to the length
  the planner gave it (``plan.length_words``, stratified over the decks within :data:`SLIDE_WORDS`).

A superseded rendition is a replaced rule (revision table, "What changed" slide) only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the document's date (``plan.end``):
its successor is in the same document and already in force. Otherwise it was the rule in force when the
document was issued and is an ordinary rule paragraph or bullet, with no hint of a coming change.

Text stays extractable: only the standard PDF fonts (Helvetica, Times), no text drawn as images,
left-aligned paragraphs, hyphenation and long-word splitting off, and each rendition paragraph is
never split across pages, so ``pypdf`` returns each rendition verbatim after white-space
normalisation. Determinism: reportlab's ``invariant`` mode, a document signature seeded from the plan,
and creation/modification dates fixed to ``plan.end``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import math
import re
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

import pypdf
from pypdf import PdfReader
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    KeepInFrame,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.benchmarks import month_and_year
from taugen.generators.corpus.prose import long_sections
from taugen.findings import Finding, error

if TYPE_CHECKING:
    from taugen.authoring.models import Fact

SUFFIX = ".pdf"
MAX_PER_SLIDE = 3
SLIDE_WORDS = (90, 640)
"""A deck's length in words of page text (title, agenda, slides, closing and page footers): the planner
stratifies it over the decks (``spread_words``), and every deck, with or without rules, gets working-note
slides until it reaches its length (a deck whose rules alone pass it stays as it is)."""
SLIDE_SIZE = (960.0, 540.0)  # 13.333 x 7.5 inches, 16:9
_HANDBOOK_FRAME = (LETTER[0] - 2 * inch, LETTER[1] - 2 * inch)  # the body frame inside one-inch margins
_INK = colors.HexColor("#1F2A37")
_ACCENT = colors.HexColor("#1F4E79")
_MUTED = colors.HexColor("#5B6775")
_HEADINGS = {
    "fee": "Fees and charges", "fees": "Fees and charges", "limit": "Limits", "limits": "Limits",
    "deadline": "Time frames", "deadlines": "Time frames", "eligibility": "Eligibility",
    "procedure": "Procedure", "procedures": "Procedure", "rate": "Rates", "threshold": "Thresholds",
}


def _style(name: str, **kwargs) -> ParagraphStyle:
    """A paragraph style with hyphenation and long-word splitting switched off."""
    base = {"fontName": "Helvetica", "fontSize": 10.5, "leading": 14, "textColor": _INK, "alignment": TA_LEFT,
            "hyphenationLang": "", "embeddedHyphenation": 0, "splitLongWords": 0, "uriWasteReduce": 0}
    base.update(kwargs)
    return ParagraphStyle(name, **base)


_H = {
    "brand": _style("brand", fontName="Helvetica-Bold", fontSize=14, leading=18, textColor=_ACCENT),
    "kicker": _style("kicker", fontSize=12, leading=16, textColor=_MUTED),
    "title": _style("title", fontName="Helvetica-Bold", fontSize=26, leading=32, spaceBefore=6, spaceAfter=18),
    "h1": _style("h1", fontName="Helvetica-Bold", fontSize=15, leading=19, spaceBefore=14, spaceAfter=6,
                 textColor=_ACCENT),
    "h2": _style("h2", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=10, spaceAfter=4),
    "body": _style("body", fontName="Times-Roman", fontSize=11, leading=15, spaceAfter=7),
    "rule": _style("rule", fontName="Times-Roman", fontSize=11, leading=15, spaceAfter=2, leftIndent=10,
                   borderPadding=0),
    "applies": _style("applies", fontName="Helvetica-Oblique", fontSize=9, leading=12, leftIndent=10,
                      spaceAfter=8, textColor=_MUTED),
    "bullet": _style("bullet", fontName="Times-Roman", fontSize=11, leading=15, leftIndent=14, bulletIndent=2,
                     spaceAfter=3),
    "cell": _style("cell", fontName="Helvetica", fontSize=9, leading=12),
    "cell_head": _style("cell_head", fontName="Helvetica-Bold", fontSize=9, leading=12, textColor=colors.white),
    "slide_title": _style("slide_title", fontName="Helvetica-Bold", fontSize=38, leading=44, textColor=_INK),
    "slide_sub": _style("slide_sub", fontSize=20, leading=26, textColor=_MUTED, spaceBefore=10),
    "slide_meta": _style("slide_meta", fontSize=14, leading=20, textColor=_MUTED, spaceBefore=4),
    "slide_h": _style("slide_h", fontName="Helvetica-Bold", fontSize=28, leading=34, textColor=_ACCENT,
                      spaceAfter=16),
    "slide_bullet": _style("slide_bullet", fontSize=19, leading=25, leftIndent=26, bulletIndent=4,
                           bulletFontName="Helvetica", bulletFontSize=19, spaceAfter=12),
    "slide_note": _style("slide_note", fontName="Helvetica-Oblique", fontSize=14, leading=18, leftIndent=26,
                         textColor=_MUTED, spaceBefore=-8, spaceAfter=12),
}


class _Atomic(Paragraph):
    """A paragraph that is never split across frames (it moves whole to the next page)."""

    def split(self, availWidth, availHeight):
        return []


def _whole(flowable: Flowable, width: float, height: float) -> Flowable:
    """``flowable`` if it fits in a ``width`` x ``height`` frame, else the same flowable scaled down to fit
    one frame (reportlab ``KeepInFrame`` in ``shrink`` mode), so that a rule longer than a page (a very
    long statement, or a long previous wording in a revision table cell) still lands on one page with its
    text unbroken instead of raising reportlab's ``LayoutError``. Fact tags move to the wrapper."""
    _w, needed = flowable.wrap(width, 10 ** 7)
    if needed <= height:
        return flowable
    box = KeepInFrame(width, height, [flowable], mode="shrink")
    if getattr(flowable, "_fact_ids", None):
        box._fact_ids = list(flowable._fact_ids)
    if getattr(flowable, "keepWithNext", None):
        box.keepWithNext = flowable.keepWithNext
    return box


def _para(text: str, style: str, fact_ids: tuple[str, ...] = (), atomic: bool = False, **kwargs) -> Paragraph:
    """A paragraph of plain ``text`` (escaped for reportlab's markup), optionally tagged with fact ids."""
    keep_with_next = kwargs.pop("keepWithNext", None)
    flowable = (_Atomic if atomic else Paragraph)(escape(" ".join(text.split())), _H[style], **kwargs)
    if keep_with_next is not None:
        flowable.keepWithNext = keep_with_next
    if fact_ids:
        flowable._fact_ids = list(fact_ids)
    return flowable


def _blocks(text: str) -> list[tuple[str, str]]:
    """Parse rendered template text: ``## `` headings, ``- `` bullets, other lines joined into
    paragraphs that blank lines separate. Returns ``[(kind, text)]`` with kind heading/bullet/para."""
    blocks: list[tuple[str, str]] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(("para", " ".join(paragraph)))
            paragraph.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            flush()
        elif line.startswith("## "):
            flush()
            blocks.append(("heading", line[3:].strip()))
        elif line.startswith("- "):
            flush()
            blocks.append(("bullet", line[2:].strip()))
        else:
            paragraph.append(line)
    flush()
    return blocks


def _long_date(day: dt.date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _lower_first(title: str) -> str:
    return title if title[:2].isupper() else title[:1].lower() + title[1:]


def _heading_for(fact: Fact) -> str:
    return _HEADINGS.get(fact.category, fact.category.replace("_", " ").capitalize())


def _products(fact: Fact, context: RenderContext) -> str:
    labels = {product.id: product.label for product in context.config.products}
    return ", ".join(labels.get(pid, pid.replace("_", " ").title()) for pid in fact.applies_to)


def _pdf_date(when: dt.datetime) -> str:
    offset = when.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"D:{when:%Y%m%d%H%M%S}{sign}{minutes // 60:02d}'{minutes % 60:02d}'"


def _canvas_maker(plan: ArtifactPlan, producer: str):
    """A Canvas class in invariant mode whose dates are ``plan.end`` and whose document id derives from
    the plan (not from the clock or ``SOURCE_DATE_EPOCH``)."""
    stamp = _pdf_date(plan.end)
    seed = f"{plan.artifact_id}\x1f{plan.seed}".encode()

    class _FixedCanvas(Canvas):
        def __init__(self, *args, **kwargs):
            kwargs["invariant"] = 1
            super().__init__(*args, **kwargs)
            signature = hashlib.md5(usedforsecurity=False)
            signature.update(seed)
            self._doc.signature = signature
            self.setDateFormatter(lambda *_parts: stamp)
            self.setProducer(producer)

    return _FixedCanvas


class _Doc(BaseDocTemplate):
    """Records, for every flowable tagged with ``_fact_ids``, the page it lands on."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.page_facts: dict[int, list[str]] = {}

    def afterFlowable(self, flowable: Flowable) -> None:
        for fact_id in getattr(flowable, "_fact_ids", []):
            page = self.page_facts.setdefault(self.page, [])
            if fact_id not in page:
                page.append(fact_id)


_PAGES_CACHE: dict[bytes, list[str]] = {}
_READER_VERSION = f"pypdf {pypdf.__version__}; bullet at DEL; 1"
"""What the page texts depend on besides the bytes (part of their content-cache key)."""


def _pages_text(data: bytes) -> list[str]:
    """Text of each page via pypdf. reportlab encodes U+2022 (bullet) in the standard fonts at code 127,
    which pypdf decodes as DEL; it is mapped back to the bullet. The last few results are kept in memory
    by the digest of the bytes (rendering and reading back the same PDF parse it once), and on disk in the
    content cache (:mod:`taugen.content_cache`), keyed by the bytes and the reader's version, so
    ``taugen validate`` after a build does not parse every page again."""
    from taugen.content_cache import content_key, load, store

    key = hashlib.sha256(data).digest()
    if key not in _PAGES_CACHE:
        disk_key = content_key(_READER_VERSION, data)
        cached = load("pdf-pages", disk_key)
        pages = json.loads(cached) if cached is not None else None
        if pages is None:
            reader = PdfReader(io.BytesIO(data))
            pages = [(page.extract_text() or "").replace("\x7f", "\u2022") for page in reader.pages]
            store("pdf-pages", disk_key, json.dumps(pages).encode())
        if len(_PAGES_CACHE) >= 8:
            _PAGES_CACHE.pop(next(iter(_PAGES_CACHE)))
        _PAGES_CACHE[key] = pages
    return list(_PAGES_CACHE[key])


def _pages_with_text(data: bytes) -> list[str]:
    """Per page, ``"text"`` when its content stream shows text (a ``Tj``/``TJ`` operator with a
    non-empty string) and ``""`` otherwise: the structure check of long documents without a full
    layout pass (placement reads the text itself through :meth:`PdfDocumentGenre.extract_text`). Kept in
    the content cache like :func:`_pages_text`."""
    from taugen.content_cache import content_key, load, store

    disk_key = content_key(_READER_VERSION, "pages with text", data)
    cached = load("pdf-pages", disk_key)
    if cached is not None:
        return json.loads(cached)
    marks = []
    for page in PdfReader(io.BytesIO(data)).pages:
        contents = page.get_contents()
        stream = contents.get_data() if contents is not None else b""
        shows = re.search(rb"\((?:[^()\\]|\\.)+\)\s*Tj|\[[^\]]*\([^)]+\)[^\]]*\]\s*TJ", stream)
        marks.append("text" if shows else "")
    store("pdf-pages", disk_key, json.dumps(marks).encode())
    return marks


@register_genre
class PdfDocumentGenre(Genre):
    """A PDF staff handbook excerpt or slide deck; see the module docstring."""

    name = "pdf_document"
    affinity = (("money", "handbook", 2), ("money", "slides", 1), ("percent", "handbook", 2), ("cap", "slides", 2),
                ("count", "slides", 2), ("duration", "handbook", 2), ("duration", "slides", 1), ("date", "handbook", 1),
                ("enum", "handbook", 2), ("boolean", "slides", 1), ("text", "handbook", 2), ("text", "slides", 2),
                ("steps", "handbook", 2), ("none", "handbook", 2))
    label = "PDF handbook / slide deck"
    max_facts = 9
    categories = ()
    variants = ("handbook", "slides")
    binary = True
    spread_words = {"slides": SLIDE_WORDS}
    """Decks get planned lengths (:data:`SLIDE_WORDS`); handbooks get long-document ``target_words``."""
    grounded_fillers = True
    """A deck without rules fills rule-shaped bullets with grounded figures (peers' terms, the team's counts)."""
    long_words = {"handbook": (2500, 36000)}
    """Handbooks are long documents: 2,500 to 36,000 words of running text, scaled by the tier."""
    anchor_titles = {"handbook": "staff reference", "slides": "team briefing"}

    # ---------------------------------------------------------------------------------------------
    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the PDF for ``plan.variant`` (``handbook`` by default).

        Raises:
            KeyError: a rendition names a fact missing from ``plan.facts``.
            jinja2.TemplateNotFound: the ``pdf_document/*.j2`` templates are not installed.
        """
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        rng = plan.rng("pdf_document")
        team = rng.choice(context.vocabulary.words("workplace").owner_teams)
        author = plan.faker(context.config.locale, "author").name()
        style = rng.randint(0, 1)
        span = max((plan.end.date() - plan.start.date()).days, 0)
        reviewed = plan.start.date() + dt.timedelta(days=rng.randint(0, span))
        values = {"brand": context.config.brand, "topic": _lower_first(plan.topic_title), "team": team,
                  "style": style, "site": context.vocabulary.common.site, "sites": context.vocabulary.common.sites}
        builder = self._handbook if variant == "handbook" else self._slides
        story, page_size, margins, on_page, title, extra = builder(plan, context, values, reviewed, rng)

        buffer = io.BytesIO()
        left, right, top, bottom = margins
        doc = _Doc(buffer, pagesize=page_size, leftMargin=left, rightMargin=right, topMargin=top,
                   bottomMargin=bottom, title=title, author=author, subject=plan.topic_title,
                   creator=f"{context.config.brand} {team}", producer="ReportLab PDF Library", keywords="",
                   invariant=1, pageCompression=1, lang="en-US")
        frame = Frame(left, bottom, page_size[0] - left - right, page_size[1] - top - bottom, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=on_page, pagesize=page_size)])
        doc.build(story, canvasmaker=_canvas_maker(plan, "ReportLab PDF Library"))
        data = buffer.getvalue()

        pages = len(_pages_text(data))
        reviewed_at = dt.datetime.combine(reviewed, dt.time(9, 0), tzinfo=plan.end.tzinfo)
        reviewed_at = min(max(reviewed_at, plan.start), plan.end)
        metadata = {"variant": variant, "page_count": pages, "page_facts": dict(sorted(doc.page_facts.items())),
                    "owner": team, "author": author, "title": title, **extra}
        author_text = "\n\n".join(f"[page {i}]\n{text}" for i, text in enumerate(_pages_text(data), start=1))
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data, "main")], author_text=author_text,
                                renditions=list(plan.renditions), timestamps=[reviewed_at, plan.end],
                                metadata=metadata)

    # ---------------------------------------------------------------------------------------------
    def _handbook(self, plan: ArtifactPlan, context: RenderContext, values: dict, reviewed: dt.date, rng):
        brand = context.config.brand
        issued = plan.end.date()
        version = f"{rng.randint(2, 6)}.{rng.randint(0, 9)}"
        title = f"{brand} staff reference: {plan.topic_title}"
        story: list[Flowable] = [
            Spacer(1, 1.4 * inch),
            _para(brand, "brand"),
            _para("Staff reference \u2013 excerpt", "kicker"),
            _para(plan.topic_title, "title"),
        ]
        info = [["Issued", _long_date(issued)], ["Last reviewed", _long_date(reviewed)], ["Owner", values["team"]],
                ["Version", version], ["Classification", "Internal use only"]]
        info_table = Table(info, colWidths=[1.5 * inch, 3.5 * inch], hAlign="LEFT")
        info_table.setStyle(TableStyle([
            ("FONT", (0, 0), (0, -1), "Helvetica-Bold", 10), ("FONT", (1, 0), (1, -1), "Helvetica", 10),
            ("TEXTCOLOR", (0, 0), (-1, -1), _INK), ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.lightgrey),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 5), ("TOPPADDING", (0, 0), (-1, -1), 5),
        ]))
        story += [info_table, PageBreak()]
        templates = context.templates
        current = [r for r in plan.renditions if not shown_as_history(plan, r, issued)]  # in force when issued
        replaced = [r for r in plan.renditions if shown_as_history(plan, r, issued)]
        headings: list[str] = []
        if plan.target_words:
            self._long_handbook(plan, context, values, story, headings, current)
        elif not plan.renditions:
            number = 0
            for kind, text in _blocks(templates.get_template("pdf_document/handbook_filler.j2").render(**values)):
                if kind == "heading":
                    number += 1
                    headings.append(text)
                    story.append(_para(f"{number}  {text}", "h1", keepWithNext=1))
                elif kind == "bullet":
                    story.append(_para(text, "bullet", bulletText="\u2022"))
                else:
                    story.append(_para(text, "body"))
        else:
            section = 1
            story.append(_para(f"{section}  Purpose and scope", "h1", keepWithNext=1))
            headings.append("Purpose and scope")
            for _kind, text in _blocks(templates.get_template("pdf_document/handbook_intro.j2").render(**values)):
                story.append(_para(text, "body"))
            if current:
                section += 1
                _rules_in_force(story, headings, section, current, plan, context)
            section += 1
            story.append(_para(f"{section}  Handling notes", "h1", keepWithNext=1))
            headings.append("Handling notes")
            for _kind, text in _blocks(templates.get_template("pdf_document/handbook_handling.j2").render(**values)):
                story.append(_para(text, "body"))
        # revision table: a header row then one single-row table per entry (each tagged with its facts)
        story.append(_para("Revision table", "h1", keepWithNext=1))
        headings.append("Revision table")
        widths = [1.35 * inch, 1.75 * inch, 3.4 * inch]
        rows: list[tuple[dt.date, int, list, tuple[str, ...]]] = [
            (issued, 10**6, [_long_date(issued), "Excerpt reissued", "Layout and wording reviewed"], ())]
        for order, rendition in enumerate(replaced):  # the successor is here and already in force
            until = plan.successor_effective_date(rendition.fact_id)
            assert until is not None
            change = f"Replaced; previous rule in force until {_long_date(until)}"
            rows.append((until, order, [_long_date(until), change, rendition.text], (rendition.fact_id,)))
        story.append(self._table_row(["Date", "Change", "Previous wording"], widths, header=True))
        for _day, _order, cells, fact_ids in sorted(rows, key=lambda row: row[:2]):
            story.append(_whole(self._table_row(cells, widths, fact_ids=fact_ids), *_HANDBOOK_FRAME))

        footer = f"{brand} | Staff reference: {plan.topic_title} | Internal use only"

        def on_page(canvas: Canvas, doc: BaseDocTemplate) -> None:
            if doc.page == 1:
                canvas.saveState()
                canvas.setFillColor(_ACCENT)
                canvas.rect(0, LETTER[1] - 0.35 * inch, LETTER[0], 0.35 * inch, stroke=0, fill=1)
                canvas.restoreState()
                return
            canvas.saveState()
            canvas.setFont("Helvetica", 8)
            canvas.setFillColor(_MUTED)
            canvas.drawString(inch, 0.6 * inch, footer)
            canvas.drawRightString(LETTER[0] - inch, 0.6 * inch, f"Page {doc.page}")
            canvas.restoreState()

        extra = {"headings": headings, "version": version, "issued": issued.isoformat()}
        return story, LETTER, (inch, inch, inch, inch), on_page, title, extra

    def _long_handbook(self, plan: ArtifactPlan, context: RenderContext, values: dict, story: list,
                       headings: list[str], current: list) -> None:
        """A long excerpt (``plan.target_words``): a purpose line, the rules in force (if any), then working
        prose (case walk-throughs, desk notes, questions, checklists) written for this excerpt alone, so
        no long sentence repeats across handbooks and the length says nothing about the rules inside."""
        fake = plan.faker(context.config.locale, "handbook prose")
        rng = plan.rng("handbook prose")
        sections = long_sections(rng, fake, plan.topic, _lower_first(plan.topic_title), plan.target_words,
                                 context.vocabulary)
        owner = f"{fake.first_name()} {fake.last_name()}"
        number = 1
        story.append(_para(f"{number}  Purpose and scope", "h1", keepWithNext=1))
        headings.append("Purpose and scope")
        story.append(_para(f"{owner} of {values['team']} keeps this excerpt on {values['topic']} for "
                           f"{context.vocabulary.common.site} and contact-centre colleagues; send corrections to "
                           f"{owner.split()[0]} directly.", "body"))
        if current:
            number += 1
            _rules_in_force(story, headings, number, current, plan, context)
        for section in sections:
            number += 1
            story.append(_para(f"{number}  {section.heading}", "h1", keepWithNext=1))
            headings.append(section.heading)
            for kind, text in section.blocks:
                if kind == "bullet":
                    story.append(_para(text, "bullet", bulletText="\u2022"))
                else:
                    story.append(_para(text, "body"))

    @staticmethod
    def _table_row(cells: list[str], widths: list[float], header: bool = False,
                   fact_ids: tuple[str, ...] = ()) -> Table:
        style = "cell_head" if header else "cell"
        row = [_para(cell, style) for cell in cells]
        table = Table([row], colWidths=widths, hAlign="LEFT")
        commands = [("VALIGN", (0, 0), (-1, -1), "TOP"), ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
                    ("TOPPADDING", (0, 0), (-1, -1), 4), ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]
        if header:
            commands.append(("BACKGROUND", (0, 0), (-1, -1), _ACCENT))
        table.setStyle(TableStyle(commands))
        if fact_ids:
            table._fact_ids = list(fact_ids)
        return table

    # ---------------------------------------------------------------------------------------------
    def _slides(self, plan: ArtifactPlan, context: RenderContext, values: dict, reviewed: dt.date, rng):
        brand = context.config.brand
        width, height = SLIDE_SIZE
        margins = (56.0, 56.0, 70.0, 50.0)
        frame_w, frame_h = width - margins[0] - margins[1], height - margins[2] - margins[3]
        presenter = plan.faker(context.config.locale, "presenter").name()
        title = f"{plan.topic_title}: team briefing"
        slides: list[tuple[str, list[Flowable], tuple[str, ...]]] = []  # (heading, bullets, fact ids)

        def bullet(text: str, fact_id: str | None = None) -> Paragraph:
            return _para(text, "slide_bullet", (fact_id,) if fact_id else (), bulletText="\u2022")

        presented = plan.end.date()
        current = [r for r in plan.renditions if not shown_as_history(plan, r, presented)]  # in force that day
        replaced = [r for r in plan.renditions if shown_as_history(plan, r, presented)]
        # One process for every deck: rule slides (the renditions), slides of the same shape about other
        # subjects of the topic holding a grounded figure (as many in a deck without rules as a deck has
        # rule groups, now and then one beside the rules), then working-note slides until the deck has
        # about the length the planner gave it.
        entries: dict[str, list[tuple[str, str | None, str]]] = {}  # heading -> (text, fact id, note)
        for rendition in current:
            fact = plan.facts[rendition.fact_id]
            note = f"Applies to: {_products(fact, context)}" if fact.applies_to else ""
            entries.setdefault(_heading_for(fact), []).append((rendition.text, rendition.fact_id, note))
        deck_rng = plan.rng("deck")
        for fact, text, note in _subject_items(deck_rng, plan, context, presented, bool(plan.renditions)):
            entries.setdefault(_heading_for(fact), []).append((text, None, note))
        for heading, members in entries.items():
            chunks = math.ceil(len(members) / MAX_PER_SLIDE)
            size = math.ceil(len(members) / chunks)
            for part in range(chunks):
                chunk = members[part * size:(part + 1) * size]
                items: list[Flowable] = []
                for text, fact_id, note in chunk:
                    items.append(bullet(text, fact_id))
                    if note:
                        items.append(_para(note, "slide_note"))
                label = heading if part == 0 else f"{heading} (continued)"
                slides.append((label, items, tuple(fact_id for _text, fact_id, _note in chunk if fact_id)))
        for part in range(math.ceil(len(replaced) / MAX_PER_SLIDE)):
            chunk = replaced[part * MAX_PER_SLIDE:(part + 1) * MAX_PER_SLIDE]
            items = []
            for rendition in chunk:  # the successor is in the deck and already in force
                until = plan.successor_effective_date(rendition.fact_id)
                assert until is not None
                items.append(bullet(f"Previous rule, until {_long_date(until)}: {rendition.text}", rendition.fact_id))
            slides.append(("What changed" if part == 0 else "What changed (continued)", items,
                           tuple(r.fact_id for r in chunk)))
        closing_heading, closing_items = "Questions and help", []
        for kind, text in _blocks(context.templates.get_template("pdf_document/slides_closing.j2").render(**values)):
            if kind == "heading":
                closing_heading = text
            else:
                closing_items.append(bullet(text))
        footer = f"{brand} | {plan.topic_title} | Team briefing"
        cover = f"{plan.topic_title} Team briefing {brand} {presenter}, {values['team']} Presented {_long_date(presented)}"
        words = _deck_words(slides + [(closing_heading, closing_items, ())], footer) + _words(cover) + \
            _words(f"Agenda {closing_heading} {footer} 2")
        target = plan.length_words or deck_rng.randint(*SLIDE_WORDS)
        before, after = _working_slides(deck_rng, plan, context, values, presented, target - words, footer)
        slides = [(heading, [bullet(text) for text in texts], ()) for heading, texts in before] + slides + \
                 [(heading, [bullet(text) for text in texts], ()) for heading, texts in after]
        agenda = list(dict.fromkeys(heading.replace(" (continued)", "") for heading, _items, _ids in slides))
        agenda.append(closing_heading)

        story: list[Flowable] = [
            Spacer(1, 90),
            _para(plan.topic_title, "slide_title"),
            _para("Team briefing", "slide_sub"),
            Spacer(1, 30),
            _para(brand, "slide_meta"),
            _para(f"{presenter}, {values['team']}", "slide_meta"),
            _para(f"Presented {_long_date(presented)}", "slide_meta"),
            PageBreak(),
        ]
        all_slides = [("Agenda", [bullet(item) for item in agenda], ())] + slides + \
                     [(closing_heading, closing_items, ())]
        for index, (heading, items, fact_ids) in enumerate(all_slides):
            content = [_para(heading, "slide_h")] + items
            box = KeepInFrame(frame_w, frame_h, content, mode="shrink", name=heading)
            if fact_ids:
                box._fact_ids = list(fact_ids)
            story.append(box)
            if index < len(all_slides) - 1:
                story.append(PageBreak())

        def on_page(canvas: Canvas, doc: BaseDocTemplate) -> None:
            canvas.saveState()
            if doc.page == 1:
                canvas.setFillColor(_ACCENT)
                canvas.rect(0, 0, 22, height, stroke=0, fill=1)
                canvas.rect(0, height - 14, width, 14, stroke=0, fill=1)
            else:
                canvas.setFillColor(_ACCENT)
                canvas.rect(0, height - 10, width, 10, stroke=0, fill=1)
                canvas.setFont("Helvetica", 10)
                canvas.setFillColor(_MUTED)
                canvas.drawString(margins[0], 22, footer)
                canvas.drawRightString(width - margins[1], 22, str(doc.page))
            canvas.restoreState()

        extra = {"slide_headings": ["Title"] + [heading for heading, _items, _ids in all_slides],
                 "presenter": presenter}
        return story, SLIDE_SIZE, margins, on_page, title, extra

    # ---------------------------------------------------------------------------------------------
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """The text of every page of every PDF, read with ``pypdf``; pages separated by a blank line.
        ``author_text`` is not used."""
        texts: list[str] = []
        for file in files:
            if file.suffix == SUFFIX:
                texts.extend(_pages_text(file.data))
        return "\n\n".join(texts)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure: one PDF with a ``%PDF`` header and an ``%%EOF`` trailer that pypdf opens; at least
        two pages; text on every page; for slides, at most :data:`MAX_PER_SLIDE` facts on any page
        (from ``metadata['page_facts']``, whose keys may be ints or strings) and no page number beyond
        the page count."""
        subject = artifact.plan.artifact_id
        pdfs = [file for file in artifact.files if file.suffix == SUFFIX]
        if len(pdfs) != 1:
            return [error("structure", "pdf_missing", subject, f"expected one PDF, found {len(pdfs)}")]
        data = pdfs[0].data
        findings: list[Finding] = []
        if not data.startswith(b"%PDF-"):
            return [error("structure", "pdf_header", subject, "the file does not start with %PDF-", data[:16].hex())]
        if b"%%EOF" not in data[-1024:]:
            findings.append(error("structure", "pdf_truncated", subject, "the PDF has no %%EOF trailer (truncated?)"))
        try:
            texts = _pages_with_text(data)
        except Exception as exc:  # noqa: BLE001 - any reader failure is the finding
            return findings + [error("structure", "pdf_unreadable", subject, "pypdf cannot read the PDF", str(exc))]
        if len(texts) < 2:
            findings.append(error("structure", "too_few_pages", subject, f"the PDF has {len(texts)} page(s); needs 2"))
        for number, text in enumerate(texts, start=1):
            if not text.strip():
                findings.append(error("structure", "page_without_text", subject, f"page {number} has no text"))
        page_facts = artifact.metadata.get("page_facts", {})
        for page, fact_ids in page_facts.items():
            number = int(page)
            if (artifact.metadata.get("variant") or artifact.plan.variant) == "slides" and len(fact_ids) > MAX_PER_SLIDE:
                findings.append(error("structure", "slide_overloaded", subject,
                                      f"slide {number} states {len(fact_ids)} rules; at most {MAX_PER_SLIDE}",
                                      ", ".join(fact_ids)))
            if not 1 <= number <= max(len(texts), 1):
                findings.append(error("structure", "page_out_of_range", subject,
                                      f"page_facts names page {number} of {len(texts)}"))
        return findings


# ---------------------------------------------------------------------------------------------------
# Slide decks: one process for carriers and fillers
# ---------------------------------------------------------------------------------------------------

_SLOT_COUNTS = (1, 1, 2, 2, 3, 4, 5)
"""How many subjects a deck without rules covers with a grounded figure when the planner gave no
``rule_slots`` (which holds a deck with rules' count)."""
_PEER_BULLETS = ("For comparison, {P} publishes {V} for {S}",
                 "{P}'s published terms list {V} for {S}",
                 "Customers who are also with {P} may quote {V} for {S}; that is {P}'s figure, not ours",
                 "{P} charges {V} for {S}, according to its current published terms")
_VOLUME_BULLETS = ("In {MONTH}, {N} customers asked about {S}",
                   "{S} came up in {N} calls and chats in {MONTH}",
                   "We logged {N} questions about {S} in {MONTH}",
                   "{N} complaints in {MONTH} mentioned {S}")
_NOTE_BULLETS = ("Customers often ask about {S} after a bill or statement arrives",
                 "Most questions about {S} come in by phone; some arrive by secure message",
                 "Check which product the customer holds before answering a question about {S}",
                 "Questions about {S} are usually answered on the first contact")
_WORKING_SLIDES = (  # (heading, bullets): working notes of a team briefing; {topic} {team} {brand} {M} month
    ("Why this briefing", ("Customers ask us about {topic} in person, by phone and in chat",
                           "We want every answer to be consistent, accurate and well recorded",
                           "{team} owns the reference material for this subject",
                           "This briefing replaces the notes circulated before {M}",
                           "Team leaders will run a short refresher at the next huddle")),
    ("Handling the conversation", ("Confirm who you are speaking to before discussing the account",
                                   "Listen to the full request and repeat it back",
                                   "Check the staff reference before you quote a rule",
                                   "Offer a written summary when the customer asks for one",
                                   "Use plain words and avoid internal terms")),
    ("Records and referrals", ("Note the outcome and any promise you made in the case notes",
                               "Refer requests outside the reference to {team}",
                               "Log complaints the same day and tell the customer who will contact them",
                               "Attach copies of letters and forms the customer sends in")),
    ("What customers tell us", ("Many customers contact us only after something has gone wrong",
                                "Customers want one clear answer, not a list of options",
                                "Several asked for the rules to be sent by email after the call",
                                "Long hold times are the most common complaint about {topic}")),
    ("Common mistakes", ("Quoting from memory instead of the current reference",
                         "Promising a call back without booking it in the case system",
                         "Closing a case before the customer has confirmed the outcome",
                         "Answering for another product than the one the customer holds")),
    ("Quality review findings", ("Reviewers sampled calls and chats about {topic} in {M}",
                                 "Most answers were accurate and well explained",
                                 "Case notes were the weakest area: outcomes were often missing",
                                 "Good examples will be shared in the team channel")),
    ("Escalations", ("Escalate to a team leader when the customer asks for a decision you cannot make",
                     "Urgent cases go to {team} by phone, not by email",
                     "Tell the customer who will contact them next and by when",
                     "Record the escalation and its reason in the case notes")),
    ("Customer letters and messages", ("Use the approved letters from the library; never edit a template",
                                       "Send the published customer material rather than your own summary",
                                       "Check the customer's preferred contact channel before sending",
                                       "Ask the content team when a letter seems out of date")),
    ("Vulnerable customers", ("Take extra time and check the customer has understood",
                              "Offer to speak with someone the customer trusts, with their consent",
                              "Record any support needs so the customer does not have to repeat them",
                              "Ask a team leader when you are unsure what help to offer")),
    ("Working with other teams", ("{team} answers questions from front-line colleagues",
                                  "Product questions go to the product owners through the usual queue",
                                  "Share feedback on the reference with {team} at any time",
                                  "Do not forward customer data by personal email")),
    ("Keeping up to date", ("Read the reference again after each reissue",
                            "Check the last-reviewed date before quoting a page",
                            "New starters read this briefing during induction",
                            "Ask {team} when the reference and customer material disagree")),
    ("Next steps", ("Team leaders share this deck at the next huddle",
                    "Questions collected in {M} will be answered in the next issue",
                    "Suggestions for the next briefing go to {team}",
                    "Please confirm you have read this briefing")),
)


def _words(text: str) -> int:
    return len(text.split())


def _deck_words(slides: list[tuple[str, list[Flowable], tuple[str, ...]]], footer: str) -> int:
    """Words a deck's slides put on its pages: heading twice (the slide and the agenda), items, footer."""
    total = 0
    for heading, items, _ids in slides:
        total += 2 * _words(heading) + _words(footer) + 1
        total += sum(_words(item.getPlainText()) for item in items if isinstance(item, Paragraph))
    return total


def _subject_items(rng, plan: ArtifactPlan, context: RenderContext, day: dt.date,
                   has_rules: bool) -> list[tuple["Fact", str, str]]:
    """Bullets shaped like rule bullets about other subjects of the deck's topic, each holding a grounded
    figure that is no rule of the business: another organisation's published figure (a comparable subject,
    :func:`~taugen.generators.corpus.genres.benchmarks.comparable_facts`, two times in five; equal to no
    value any fact on the subject ever had), how often customers asked about it (a count that is none of
    the subject's values), or a working note. A deck without rules gets the plan's ``rule_slots`` (the
    rule count of a deck with rules; unplanned, one to five), a deck with rules one in two times; the
    subjects are a run of neighbours in id order (``subject_run``). Returns ``[(subject fact, text, note)]`` (note: the
    products label, or ''); ``[]`` when the context has no facts."""
    from taugen.authoring.values import find_surface_form
    from taugen.generators.corpus.genres.benchmarks import (
        avoided_values,
        comparable_facts,
        other_subjects,
        peer_names,
        peer_value,
        portable,
        subject_run,
    )

    subjects = subject_run(rng, other_subjects(context, plan))
    if not subjects:
        return []
    wanted = (1 if rng.random() < 0.5 else 0) if has_rules else plan.rule_slots or rng.choice(_SLOT_COUNTS)
    peers = peer_names(rng, plan.faker(context.config.locale, "deck-peers"), context, 3)
    comparable = set(id(f) for f in comparable_facts(context, plan.topic))
    items = []
    for fact in subjects[:wanted]:
        subject = _lower_first((fact.subject or "").strip().rstrip("."))
        avoid = avoided_values(context, fact, plan.facts.values())
        guarded = [other.value for other in context.facts.values() if other.value is not None
                   and other.value.canonical() in avoid]
        draw = rng.random()
        note = f"Applies to: {_products(fact, context)}" if fact.applies_to else ""
        if draw < 0.4 and id(fact) in comparable and portable(subject, context):
            peer = rng.choice(peers)
            value = peer_value(rng, fact, avoid)
            items.append((fact, _upper_first(rng.choice(_PEER_BULLETS).format(P=peer, V=value.canonical(),
                                                                               S=subject)), ""))
            continue
        line = ""
        if draw < 0.75:
            for _ in range(20):
                month = day - dt.timedelta(days=rng.randint(20, 60))
                candidate = _upper_first(rng.choice(_VOLUME_BULLETS).format(
                    S=subject, N=rng.randint(6, 240), MONTH=month_and_year(month)))
                if not any(find_surface_form(value, candidate) for value in guarded):
                    line = candidate
                    break
        items.append((fact, line or _upper_first(rng.choice(_NOTE_BULLETS).format(S=subject)), note))
    return items


def _working_slides(rng, plan: ArtifactPlan, context: RenderContext, values: dict, day: dt.date, room: int,
                    footer: str) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """Working-note slides (:data:`_WORKING_SLIDES`, two to five bullets each) worth about ``room`` words
    of page text, split into those shown before the rules (at most one) and after them. Slides are taken
    in a seeded order while they bring the deck closer to its length; the last one gets as many bullets
    as fit. Returns ``(before, after)`` as ``[(heading, bullets)]``."""
    month = day - dt.timedelta(days=rng.randint(20, 80))
    fill = {"topic": values["topic"], "team": values["team"], "brand": context.config.brand,
            "M": month_and_year(month)}
    pool = list(_WORKING_SLIDES)
    rng.shuffle(pool)
    chosen: list[tuple[str, list[str]]] = []
    for heading, lines in pool:
        overhead = 2 * _words(heading) + _words(footer) + 1
        bullets = [_upper_first(line.format(**fill)) for line in rng.sample(lines, k=len(lines))]
        sizes = [overhead + sum(_words(b) for b in bullets[:k]) for k in range(2, len(bullets) + 1)]
        if not sizes or room < sizes[0] / 2:
            break
        fits = [k for k, size in zip(range(2, len(bullets) + 1), sizes) if size <= room]
        k = max(fits) if fits else 2
        chosen.append((heading, bullets[:k]))
        room -= sizes[k - 2]
    first = [slide for slide in chosen if slide[0] == "Why this briefing"]
    return first, [slide for slide in chosen if slide[0] != "Why this briefing"]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _rules_in_force(story: list, headings: list[str], number: int, current: list, plan: ArtifactPlan,
                    context: RenderContext) -> None:
    """Append section ``number`` "Rules in force": current renditions grouped under sub-headings, each
    followed by its products label (or a spacer). Shared by the long and the short handbook."""
    story.append(_para(f"{number}  Rules in force", "h1", keepWithNext=1))
    headings.append("Rules in force")
    groups: dict[str, list] = {}
    for rendition in current:
        groups.setdefault(_heading_for(plan.facts[rendition.fact_id]), []).append(rendition)
    for sub, (heading, members) in enumerate(groups.items(), start=1):
        story.append(_para(f"{number}.{sub}  {heading}", "h2", keepWithNext=1))
        headings.append(heading)
        for rendition in members:
            fact = plan.facts[rendition.fact_id]
            story.append(_whole(_para(rendition.text, "rule", (rendition.fact_id,), atomic=True,
                                      keepWithNext=1 if fact.applies_to else 0), *_HANDBOOK_FRAME))
            if fact.applies_to:
                story.append(_para(f"Applies to: {_products(fact, context)}", "applies"))  # a label, not a sentence
            else:
                story.append(Spacer(1, 6))
