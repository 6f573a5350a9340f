"""How the ``pdf_document`` genre lays pages out with reportlab: styles, flowables, the page template.

Paragraph styles (hyphenation and long-word splitting off, so ``pypdf`` reads every sentence back whole),
paragraphs tagged with the fact ids they state and kept on one page (:func:`make_paragraph`,
:func:`kept_whole`), a document template that records on which page each tagged flowable lands
(:class:`FactPageDoc`), a canvas in reportlab's invariant mode dated by the plan (:func:`canvas_maker`),
and the small text helpers handbooks and slide decks share (headings by category, products labels,
long dates, the blocks of a long section's text).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, KeepInFrame, Paragraph

from taugen.generators.corpus.genre import ArtifactPlan, RenderContext

if TYPE_CHECKING:
    from taugen.authoring.models import Fact


HANDBOOK_FRAME = (LETTER[0] - 2 * inch, LETTER[1] - 2 * inch)  # the body frame inside one-inch margins
INK = colors.HexColor("#1F2A37")
ACCENT = colors.HexColor("#1F4E79")
MUTED = colors.HexColor("#5B6775")
_HEADINGS = {
    "fee": "Fees and charges", "fees": "Fees and charges", "limit": "Limits", "limits": "Limits",
    "deadline": "Time frames", "deadlines": "Time frames", "eligibility": "Eligibility",
    "procedure": "Procedure", "procedures": "Procedure", "rate": "Rates", "threshold": "Thresholds",
}


def _style(name: str, **kwargs) -> ParagraphStyle:
    """A paragraph style with hyphenation and long-word splitting switched off."""
    base = {"fontName": "Helvetica", "fontSize": 10.5, "leading": 14, "textColor": INK, "alignment": TA_LEFT,
            "hyphenationLang": "", "embeddedHyphenation": 0, "splitLongWords": 0, "uriWasteReduce": 0}
    base.update(kwargs)
    return ParagraphStyle(name, **base)


_H = {
    "brand": _style("brand", fontName="Helvetica-Bold", fontSize=14, leading=18, textColor=ACCENT),
    "kicker": _style("kicker", fontSize=12, leading=16, textColor=MUTED),
    "title": _style("title", fontName="Helvetica-Bold", fontSize=26, leading=32, spaceBefore=6, spaceAfter=18),
    "h1": _style("h1", fontName="Helvetica-Bold", fontSize=15, leading=19, spaceBefore=14, spaceAfter=6,
                 textColor=ACCENT),
    "h2": _style("h2", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=10, spaceAfter=4),
    "body": _style("body", fontName="Times-Roman", fontSize=11, leading=15, spaceAfter=7),
    "rule": _style("rule", fontName="Times-Roman", fontSize=11, leading=15, spaceAfter=2, leftIndent=10,
                   borderPadding=0),
    "applies": _style("applies", fontName="Helvetica-Oblique", fontSize=9, leading=12, leftIndent=10,
                      spaceAfter=8, textColor=MUTED),
    "bullet": _style("bullet", fontName="Times-Roman", fontSize=11, leading=15, leftIndent=14, bulletIndent=2,
                     spaceAfter=3),
    "cell": _style("cell", fontName="Helvetica", fontSize=9, leading=12),
    "cell_head": _style("cell_head", fontName="Helvetica-Bold", fontSize=9, leading=12, textColor=colors.white),
    "slide_title": _style("slide_title", fontName="Helvetica-Bold", fontSize=38, leading=44, textColor=INK),
    "slide_sub": _style("slide_sub", fontSize=20, leading=26, textColor=MUTED, spaceBefore=10),
    "slide_meta": _style("slide_meta", fontSize=14, leading=20, textColor=MUTED, spaceBefore=4),
    "slide_h": _style("slide_h", fontName="Helvetica-Bold", fontSize=28, leading=34, textColor=ACCENT,
                      spaceAfter=16),
    "slide_bullet": _style("slide_bullet", fontSize=19, leading=25, leftIndent=26, bulletIndent=4,
                           bulletFontName="Helvetica", bulletFontSize=19, spaceAfter=12),
    "slide_note": _style("slide_note", fontName="Helvetica-Oblique", fontSize=14, leading=18, leftIndent=26,
                         textColor=MUTED, spaceBefore=-8, spaceAfter=12),
}


class _Atomic(Paragraph):
    """A paragraph that is never split across frames (it moves whole to the next page)."""

    def split(self, availWidth, availHeight):
        return []


def kept_whole(flowable: Flowable, width: float, height: float) -> Flowable:
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


def make_paragraph(text: str, style: str, fact_ids: tuple[str, ...] = (), atomic: bool = False, **kwargs) -> Paragraph:
    """A paragraph of plain ``text`` (escaped for reportlab's markup), optionally tagged with fact ids."""
    keep_with_next = kwargs.pop("keepWithNext", None)
    flowable = (_Atomic if atomic else Paragraph)(escape(" ".join(text.split())), _H[style], **kwargs)
    if keep_with_next is not None:
        flowable.keepWithNext = keep_with_next
    if fact_ids:
        flowable._fact_ids = list(fact_ids)
    return flowable


def text_blocks(text: str) -> list[tuple[str, str]]:
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


def long_date(day: dt.date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def lower_first(title: str) -> str:
    return title if title[:2].isupper() else title[:1].lower() + title[1:]


def heading_for(fact: Fact) -> str:
    return _HEADINGS.get(fact.category, fact.category.replace("_", " ").capitalize())


def products_label(fact: Fact, context: RenderContext) -> str:
    labels = {product.id: product.label for product in context.config.products}
    return ", ".join(labels.get(pid, pid.replace("_", " ").title()) for pid in fact.applies_to)


def _pdf_date(when: dt.datetime) -> str:
    offset = when.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"D:{when:%Y%m%d%H%M%S}{sign}{minutes // 60:02d}'{minutes % 60:02d}'"


@contextmanager
def binary_streams() -> Iterator[None]:
    """Inside the block, reportlab writes each compressed stream as binary Flate data, not wrapped in
    ASCII85 as well (``rl_config.useA85``, a process-wide setting read while a document is built; restored
    after). ASCII85 keeps a PDF printable as 7-bit text, which no reader of ours needs: without it the
    files are about a sixth smaller, reportlab skips the encoding, and pypdf's pure-Python ASCII85 decoder,
    a third of the time it took to read a handbook back, has nothing to do. The text read back is the
    same."""
    before = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = before


def canvas_maker(plan: ArtifactPlan, producer: str):
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


class FactPageDoc(BaseDocTemplate):
    """Records, for every flowable tagged with ``_fact_ids``, the page it lands on."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.page_facts: dict[int, list[str]] = {}

    def afterFlowable(self, flowable: Flowable) -> None:
        for fact_id in getattr(flowable, "_fact_ids", []):
            page = self.page_facts.setdefault(self.page, [])
            if fact_id not in page:
                page.append(fact_id)
