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
  beside the rules; then working-note slides
  (:data:`~taugen.generators.corpus.genres.pdf_slides._WORKING_SLIDES`) bring every deck to the length
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

from types import MappingProxyType

import datetime as dt
import hashlib
import io
import json
import math
import re

import pypdf
from pypdf import PdfReader
from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
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

from taugen.findings import Finding, error
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.pdf_layout import (
    ACCENT,
    HANDBOOK_FRAME,
    INK,
    MUTED,
    FactPageDoc,
    binary_streams,
    canvas_maker,
    heading_for,
    kept_whole,
    long_date,
    lower_first,
    make_paragraph,
    products_label,
    text_blocks,
)
from taugen.generators.corpus.genres.pdf_slides import (
    deck_words,
    rules_in_force,
    subject_items,
    word_count,
    working_slides,
)
from taugen.generators.corpus.prose import long_sections

SUFFIX = ".pdf"
MAX_PER_SLIDE = 3
SLIDE_WORDS = (90, 640)
"""A deck's length in words of page text (title, agenda, slides, closing and page footers): the planner
stratifies it over the decks (``spread_words``), and every deck, with or without rules, gets working-note
slides until it reaches its length (a deck whose rules alone pass it stays as it is)."""
SLIDE_SIZE = (960.0, 540.0)  # 13.333 x 7.5 inches, 16:9
_PAGES_CACHE: dict[bytes, list[str]] = {}
_READER_VERSION = f"pypdf {pypdf.__version__}; bullet at DEL; 1"
"""What the page texts depend on besides the bytes (part of their content-cache key)."""


def _known_pages(data: bytes) -> list[str] | None:
    """The pages' text of ``data`` when it was read before: from memory (the last few PDFs, by the digest of
    their bytes) or from the content cache (keyed by the bytes and the reader's version); else None."""
    from taugen.content_cache import content_key, load

    known = _PAGES_CACHE.get(hashlib.sha256(data).digest())
    if known is None:
        cached = load("pdf-pages", content_key(_READER_VERSION, data))
        known = json.loads(cached) if cached is not None else None
    return known


def _pages_text(data: bytes) -> list[str]:
    """Text of each page via pypdf. reportlab encodes U+2022 (bullet) in the standard fonts at code 127,
    which pypdf decodes as DEL; it is mapped back to the bullet. The last few results are kept in memory
    by the digest of the bytes (rendering and reading back the same PDF parse it once), and on disk in the
    content cache (:mod:`taugen.content_cache`), keyed by the bytes and the reader's version, so
    ``taugen validate`` after a build does not parse every page again (:func:`_known_pages`)."""
    from taugen.content_cache import content_key, store

    pages = _known_pages(data)
    if pages is None:
        reader = PdfReader(io.BytesIO(data))
        pages = [(page.extract_text() or "").replace("\x7f", "\u2022") for page in reader.pages]
        store("pdf-pages", content_key(_READER_VERSION, data), json.dumps(pages).encode())
    key = hashlib.sha256(data).digest()
    if key not in _PAGES_CACHE:
        if len(_PAGES_CACHE) >= 8:
            _PAGES_CACHE.pop(next(iter(_PAGES_CACHE)))
        _PAGES_CACHE[key] = pages
    return list(pages)


def _pages_with_text(data: bytes) -> list[str]:
    """Per page, ``"text"`` when its content stream shows text (a ``Tj``/``TJ`` operator with a
    non-empty string) and ``""`` otherwise: the structure check of long documents without a full
    layout pass (placement reads the text itself through :meth:`PdfDocumentGenre.extract_text`). Kept in
    the content cache like :func:`_pages_text`. When the pages' text is already known (the render read
    the file back a moment ago, in memory or in the content cache), a page has text when its text is not
    blank, and the streams are not parsed again."""
    from taugen.content_cache import content_key, load, store

    known = _known_pages(data)
    if known is not None:
        return ["text" if page.strip() else "" for page in known]
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
    reference_kinds = MappingProxyType({"handbook": "reference_document", "slides": "slide_deck"})
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
        values = {"brand": context.config.brand, "topic": lower_first(plan.topic_title), "team": team,
                  "style": style, "site": context.vocabulary.common.site, "sites": context.vocabulary.common.sites}
        builder = self._handbook if variant == "handbook" else self._slides
        story, page_size, margins, on_page, title, extra = builder(plan, context, values, reviewed, rng)

        buffer = io.BytesIO()
        left, right, top, bottom = margins
        doc = FactPageDoc(buffer, pagesize=page_size, leftMargin=left, rightMargin=right, topMargin=top,
                   bottomMargin=bottom, title=title, author=author, subject=plan.topic_title,
                   creator=f"{context.config.brand} {team}", producer="ReportLab PDF Library", keywords="",
                   invariant=1, pageCompression=1, lang="en-US")
        frame = Frame(left, bottom, page_size[0] - left - right, page_size[1] - top - bottom, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=on_page, pagesize=page_size)])
        with binary_streams():
            doc.build(story, canvasmaker=canvas_maker(plan, "ReportLab PDF Library"))
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
            make_paragraph(brand, "brand"),
            make_paragraph("Staff reference \u2013 excerpt", "kicker"),
            make_paragraph(plan.topic_title, "title"),
        ]
        info = [["Issued", long_date(issued)], ["Last reviewed", long_date(reviewed)], ["Owner", values["team"]],
                ["Version", version], ["Classification", "Internal use only"]]
        info_table = Table(info, colWidths=[1.5 * inch, 3.5 * inch], hAlign="LEFT")
        info_table.setStyle(TableStyle([
            ("FONT", (0, 0), (0, -1), "Helvetica-Bold", 10), ("FONT", (1, 0), (1, -1), "Helvetica", 10),
            ("TEXTCOLOR", (0, 0), (-1, -1), INK), ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.lightgrey),
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
            for kind, text in text_blocks(templates.get_template("pdf_document/handbook_filler.j2").render(**values)):
                if kind == "heading":
                    number += 1
                    headings.append(text)
                    story.append(make_paragraph(f"{number}  {text}", "h1", keepWithNext=1))
                elif kind == "bullet":
                    story.append(make_paragraph(text, "bullet", bulletText="\u2022"))
                else:
                    story.append(make_paragraph(text, "body"))
        else:
            section = 1
            story.append(make_paragraph(f"{section}  Purpose and scope", "h1", keepWithNext=1))
            headings.append("Purpose and scope")
            for _kind, text in text_blocks(templates.get_template("pdf_document/handbook_intro.j2").render(**values)):
                story.append(make_paragraph(text, "body"))
            if current:
                section += 1
                rules_in_force(story, headings, section, current, plan, context)
            section += 1
            story.append(make_paragraph(f"{section}  Handling notes", "h1", keepWithNext=1))
            headings.append("Handling notes")
            for _kind, text in text_blocks(templates.get_template("pdf_document/handbook_handling.j2").render(**values)):
                story.append(make_paragraph(text, "body"))
        # revision table: a header row then one single-row table per entry (each tagged with its facts)
        story.append(make_paragraph("Revision table", "h1", keepWithNext=1))
        headings.append("Revision table")
        widths = [1.35 * inch, 1.75 * inch, 3.4 * inch]
        rows: list[tuple[dt.date, int, list, tuple[str, ...]]] = [
            (issued, 10**6, [long_date(issued), "Excerpt reissued", "Layout and wording reviewed"], ())]
        for order, rendition in enumerate(replaced):  # the successor is here and already in force
            until = plan.successor_effective_date(rendition.fact_id)
            assert until is not None
            change = f"Replaced; previous rule in force until {long_date(until)}"
            rows.append((until, order, [long_date(until), change, rendition.text], (rendition.fact_id,)))
        story.append(self._table_row(["Date", "Change", "Previous wording"], widths, header=True))
        for _day, _order, cells, fact_ids in sorted(rows, key=lambda row: row[:2]):
            story.append(kept_whole(self._table_row(cells, widths, fact_ids=fact_ids), *HANDBOOK_FRAME))

        footer = f"{brand} | Staff reference: {plan.topic_title} | Internal use only"

        def on_page(canvas: Canvas, doc: BaseDocTemplate) -> None:
            if doc.page == 1:
                canvas.saveState()
                canvas.setFillColor(ACCENT)
                canvas.rect(0, LETTER[1] - 0.35 * inch, LETTER[0], 0.35 * inch, stroke=0, fill=1)
                canvas.restoreState()
                return
            canvas.saveState()
            canvas.setFont("Helvetica", 8)
            canvas.setFillColor(MUTED)
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
        sections = long_sections(rng, fake, plan.topic, lower_first(plan.topic_title), plan.target_words,
                                 context.vocabulary)
        owner = f"{fake.first_name()} {fake.last_name()}"
        number = 1
        story.append(make_paragraph(f"{number}  Purpose and scope", "h1", keepWithNext=1))
        headings.append("Purpose and scope")
        story.append(make_paragraph(f"{owner} of {values['team']} keeps this excerpt on {values['topic']} for "
                           f"{context.vocabulary.common.site} and contact-centre colleagues; send corrections to "
                           f"{owner.split()[0]} directly.", "body"))
        if current:
            number += 1
            rules_in_force(story, headings, number, current, plan, context)
        for section in sections:
            number += 1
            story.append(make_paragraph(f"{number}  {section.heading}", "h1", keepWithNext=1))
            headings.append(section.heading)
            for kind, text in section.blocks:
                if kind == "bullet":
                    story.append(make_paragraph(text, "bullet", bulletText="\u2022"))
                else:
                    story.append(make_paragraph(text, "body"))

    @staticmethod
    def _table_row(cells: list[str], widths: list[float], header: bool = False,
                   fact_ids: tuple[str, ...] = ()) -> Table:
        style = "cell_head" if header else "cell"
        row = [make_paragraph(cell, style) for cell in cells]
        table = Table([row], colWidths=widths, hAlign="LEFT")
        commands = [("VALIGN", (0, 0), (-1, -1), "TOP"), ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
                    ("TOPPADDING", (0, 0), (-1, -1), 4), ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]
        if header:
            commands.append(("BACKGROUND", (0, 0), (-1, -1), ACCENT))
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
            return make_paragraph(text, "slide_bullet", (fact_id,) if fact_id else (), bulletText="\u2022")

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
            note = f"Applies to: {products_label(fact, context)}" if fact.applies_to else ""
            entries.setdefault(heading_for(fact), []).append((rendition.text, rendition.fact_id, note))
        deck_rng = plan.rng("deck")
        for fact, text, note in subject_items(deck_rng, plan, context, presented, bool(plan.renditions)):
            entries.setdefault(heading_for(fact), []).append((text, None, note))
        for heading, members in entries.items():
            chunks = math.ceil(len(members) / MAX_PER_SLIDE)
            size = math.ceil(len(members) / chunks)
            for part in range(chunks):
                chunk = members[part * size:(part + 1) * size]
                items: list[Flowable] = []
                for text, fact_id, note in chunk:
                    items.append(bullet(text, fact_id))
                    if note:
                        items.append(make_paragraph(note, "slide_note"))
                label = heading if part == 0 else f"{heading} (continued)"
                slides.append((label, items, tuple(fact_id for _text, fact_id, _note in chunk if fact_id)))
        for part in range(math.ceil(len(replaced) / MAX_PER_SLIDE)):
            chunk = replaced[part * MAX_PER_SLIDE:(part + 1) * MAX_PER_SLIDE]
            items = []
            for rendition in chunk:  # the successor is in the deck and already in force
                until = plan.successor_effective_date(rendition.fact_id)
                assert until is not None
                items.append(bullet(f"Previous rule, until {long_date(until)}: {rendition.text}", rendition.fact_id))
            slides.append(("What changed" if part == 0 else "What changed (continued)", items,
                           tuple(r.fact_id for r in chunk)))
        closing_heading, closing_items = "Questions and help", []
        for kind, text in text_blocks(context.templates.get_template("pdf_document/slides_closing.j2").render(**values)):
            if kind == "heading":
                closing_heading = text
            else:
                closing_items.append(bullet(text))
        footer = f"{brand} | {plan.topic_title} | Team briefing"
        cover = f"{plan.topic_title} Team briefing {brand} {presenter}, {values['team']} Presented {long_date(presented)}"
        words = deck_words(slides + [(closing_heading, closing_items, ())], footer) + word_count(cover) + \
            word_count(f"Agenda {closing_heading} {footer} 2")
        target = plan.length_words or deck_rng.randint(*SLIDE_WORDS)
        before, after = working_slides(deck_rng, plan, context, values, presented, target - words, footer)
        slides = [(heading, [bullet(text) for text in texts], ()) for heading, texts in before] + slides + \
                 [(heading, [bullet(text) for text in texts], ()) for heading, texts in after]
        agenda = list(dict.fromkeys(heading.replace(" (continued)", "") for heading, _items, _ids in slides))
        agenda.append(closing_heading)

        story: list[Flowable] = [
            Spacer(1, 90),
            make_paragraph(plan.topic_title, "slide_title"),
            make_paragraph("Team briefing", "slide_sub"),
            Spacer(1, 30),
            make_paragraph(brand, "slide_meta"),
            make_paragraph(f"{presenter}, {values['team']}", "slide_meta"),
            make_paragraph(f"Presented {long_date(presented)}", "slide_meta"),
            PageBreak(),
        ]
        all_slides = [("Agenda", [bullet(item) for item in agenda], ())] + slides + \
                     [(closing_heading, closing_items, ())]
        for index, (heading, items, fact_ids) in enumerate(all_slides):
            content = [make_paragraph(heading, "slide_h")] + items
            box = KeepInFrame(frame_w, frame_h, content, mode="shrink", name=heading)
            if fact_ids:
                box._fact_ids = list(fact_ids)
            story.append(box)
            if index < len(all_slides) - 1:
                story.append(PageBreak())

        def on_page(canvas: Canvas, doc: BaseDocTemplate) -> None:
            canvas.saveState()
            if doc.page == 1:
                canvas.setFillColor(ACCENT)
                canvas.rect(0, 0, 22, height, stroke=0, fill=1)
                canvas.rect(0, height - 14, width, 14, stroke=0, fill=1)
            else:
                canvas.setFillColor(ACCENT)
                canvas.rect(0, height - 10, width, 10, stroke=0, fill=1)
                canvas.setFont("Helvetica", 10)
                canvas.setFillColor(MUTED)
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
