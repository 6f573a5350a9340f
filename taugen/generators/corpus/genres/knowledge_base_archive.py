"""The knowledge-base-archive genre: one self-contained HTML export of several staff articles.

The delivered ``.html`` is a single HTML5 document (WHATWG HTML Living Standard,
https://html.spec.whatwg.org/) as a wiki or knowledge-base tool exports a space for offline reading:
a ``<nav>`` table of contents whose links point at ``<article id=...>`` elements in the same file, each
article with an ``<h2>`` title, an owner and a ``<time datetime=...>`` last-updated date, and
``<section>`` blocks. It is self-contained: the only stylesheet is an inline ``<style>`` element and
there are no scripts, images, external links or ``url(...)`` references, so it opens offline exactly
as delivered. Written through ``knowledge_base_archive/archive.html.j2`` with every text escaped.

Carriers and fillers come from one process, and every article has the same shape: a ``Summary``, a main
section (``Details``, ``Key points`` or ``In brief``), steps (``What to do`` or ``Steps``) and, for a
rule replaced on the article's date, a ``Change history``. Three kinds of article fill it, with titles
and summaries from shared pools where they are about one subject:

* a rule article states its rendition(s) verbatim in the main section (carriers only);
* a subject article is about another rule of the topic, titled and summarised as a rule article is,
  and states no rule of the business: what other organisations publish for it (a comparable subject,
  two times in five; each figure named with its organisation and equal to no value any fact on that
  subject ever had, half of them quoted in the frame a rule's sentence uses), how often customers asked
  about it (figures that are none of the subject's values), or working notes without a figure, as many
  rules are written without one (the shared
  :func:`~taugen.generators.corpus.genres.benchmarks.grounded_sentences`): as many in a filler as a
  carrier has rule articles, and one beside the rules in about half of the carriers that have room;
* a context article (escalation, letters, identity checks, call backs, where to find things) holds
  working notes and, half the time, one figure of the team's own work (volumes, dates), never
  a rule.

An export holds three to seven articles whether or not some state rules, and fewer context articles
when it would pass :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens.
A superseded rendition goes to a
``Change history`` section with the written history lead only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on its article's last-updated date;
otherwise it is the rule in force that day, stated like any other.

Articles are listed oldest update first, and ``timestamps`` are their last-updated times followed by
the export time (``plan.end``). ``extract_text`` reads the delivered file with :mod:`html.parser`
and returns its visible text (see :func:`~taugen.generators.corpus.genres.workplace.visible_text`).
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import re
from html.parser import HTMLParser

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.benchmarks import (
    grounded_sentences,
    month_and_year,
    other_subjects,
    peer_names,
)
from taugen.generators.corpus.genres.workplace import (
    said_subject,
    cast,
    item_label,
    long_day,
    office_time,
    plan_frame,
    render_to_length,
    render_within_budget,
    subject_phrase,
    upper_first,
    visible_text,
    window,
    working_spread,
    workplace_words,
    written_history,
    zone,
)
from taugen.findings import Finding, error
from taugen.text import mid_sentence

SUFFIX = ".html"
KB_TOKENS = (240, 860)
"""An export's length in tokens of its visible text (as the realism gate counts them): the planner
stratifies it over the exports (``spread_words``), and :meth:`KnowledgeBaseArchiveGenre.render` picks the
number of articles (two to eight) and how many steps they list so the export comes closest to it; the top
stays under :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET`."""
TEMPLATE = "knowledge_base_archive/archive.html.j2"
_EXTERNAL = ("http:", "https:", "//", "file:", "ftp:", "data:", "javascript:")

# Shared by every article that is about one subject, a rule's or a peer's figure. {S} subject, {Item} label.
_TITLES = ("{Item}: what to tell customers", "{Item} (staff guidance)", "About {S}", "Answering questions "
           "about {S}")
_SUMMARIES = ("Use this article when a customer asks about {S}.",
              "Staff guidance on this question, reviewed by the policy team.",
              "What applies, and how to explain it on a call or in a {site}.",  # {site}: CommonWords
              "Read this before you answer a customer's question on it.",
              "The short answer for customers, and what to do next.")
"""An article's summary; most do not repeat the title's subject (the title above says it)."""
_BODY = ("Details", "Key points", "In brief")
"""The heading of an article's main section, whatever it holds (a rule, a peer's figure, working notes)."""
_STEPS_HEADINGS = ("What to do", "Steps")
_STEPS = ("Verify the customer before discussing account details.", "Check which product the customer holds.",
          "Quote figures exactly as written; do not round amounts or time limits.",
          "Note the question and your answer on the customer's record.",
          "If the customer disagrees, offer to raise a complaint.", "Escalate anything unusual to your team lead.",
          "Quote our own figure, never another organisation's.",
          "If a customer quotes another organisation's figure, say that our own terms apply.")
_VOLUME_LINES = ("In {MONTH}, {N} customers asked about {S}.",
                 "{S} came up in {N} calls and chats in {MONTH}.",
                 "There were {N} calls about {S} in {MONTH}.",
                 "The team answered {N} questions about {S} last month.",
                 "Customers often ask about {S} after a statement arrives; {N} did so in {MONTH}.")
_NOTE_LINES = ("Customers often ask about {S} after a statement arrives.",
               "Most questions about {S} come in by phone; some arrive by secure message.",
               "Questions about {S} are usually answered on the first call.",
               "Customers sometimes confuse {S} with other questions about {T}; check what they are asking.",
               "When a customer asks about {S}, confirm which account they mean first.")
"""Working notes on a subject, without a figure (as many rules are stated without one)."""
_PEER_LINES = ("{P}'s published schedule lists {V} for {S}.",
               "Customers who are also with {P} may quote {V} for {S}; that is {P}'s figure.",
               "For comparison, {P} publishes {V} for {S}.",
               "{P}'s own terms give {V} for {S}.")
_CONTEXT = (  # (title, summary, details, figure, steps): working notes; {T} topic, {N} {M} counts, {R} percent, {D} date
    ("Escalating {T} complaints", "How to route a complaint about {T} to the right team.",
     "Complaints are logged on the customer's record so that the complaints team sees the full history.",
     "In {MONTH}, {N} complaints about {T} were logged.",
     ("Log the complaint on the customer's record.", "Select the complaint category that matches the issue.",
      "Tell the customer what happens next and how we will contact them.", "Pass urgent cases to the team lead.")),
    ("Where to find {T} letters and notices", "Where the approved customer letters for {T} are kept.",
     "Only letters from the library are approved for use; local copies drift out of date.",
     "The library holds {N} approved letters for {T}; it was last reorganised on {D}.",
     ("Open the letter library from the staff portal.", "Search by the letter title, not the file name.",
      "Never edit a letter template; ask the content team for changes.")),
    ("Identity checks before discussing {T}", "Who may discuss {T} with us and how to confirm it.",
     "Owners and authorised users may discuss the account; anyone else is told we cannot share details.",
     "In {MONTH}, {N} callers asking about {T} failed verification at the first attempt.",
     ("Confirm the caller is an owner or an authorised user.", "Use the standard verification questions.",
      "If verification fails, do not discuss account details.")),
    ("Recording {T} conversations", "How to note each {T} conversation on the customer's record.",
     "Good notes let the next colleague pick up the conversation without asking the customer again.",
     "Team leads sampled {N} notes of {T} conversations in {MONTH}.",
     ("Record the question in the customer's words.", "Record the answer you gave and where it came from.",
      "Link any letters you sent.", "Flag anything the customer disagreed with.")),
    ("Who owns {T} content", "Which team owns which part of the {T} guidance.",
     "Ownership is listed on every article; the owner approves each change before it is published.",
     "This space holds {N} articles; {M} of them changed owner on {D}.",
     ("Customer Care owns the call guidance.", "Compliance reviews every change before it is published.",
      "The content team publishes and archives articles.")),
    ("Finding the right {T} article", "How to search this space when a customer asks about {T}.",
     "Article titles use the words customers use, so search with the customer's own phrasing first.",
     "Staff searched this space {N} times in {MONTH}.",
     ("Search with the customer's words.", "Check the last-updated date before quoting an article.",
      "Report an out-of-date article to its owner.")),
    ("Call backs about {T}", "When and how to offer a call back on {T} questions.",
     "A call back is booked in the case system so that it is not lost at shift change.",
     "In {MONTH}, {N} call backs about {T} were booked and {R} were made the same day.",
     ("Offer a call back when you need to check something.", "Book it in the case system.",
      "Confirm the best number to use.", "Note the outcome after the call.")),
)


def _steps(rng, most: int, brief: bool) -> int:
    """How many steps an article lists: a draw from 2 to ``most`` (always made, so the generator's
    stream is the same either way), or 2 when ``brief``."""
    drawn = rng.randint(2, most)
    return 2 if brief else drawn


def _heading_words(rng, context: RenderContext, subject: str, item: str) -> dict[str, str]:
    """The placeholders of an article's title and summary about one subject (a rule's or not alike):
    ``{S}`` and ``{Item}`` as staff write them in headings, in the pack's spoken wordings
    (:func:`~taugen.generators.corpus.genres.workplace.said_subject`), and the common terms."""
    return {"S": said_subject(context, rng, subject), "Item": upper_first(said_subject(context, rng, item)),
            **context.vocabulary.common.terms()}


class _Structure(HTMLParser):
    """Collect what :meth:`KnowledgeBaseArchiveGenre.validate` checks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.nav = 0
        self.nav_links: list[str] = []
        self.links: list[str] = []
        self.external: list[str] = []
        self.articles: list[dict] = []
        self.times: list[str] = []
        self.style = ""
        self.forbidden: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.append(values["id"])
        for name in ("href", "src", "srcset", "action", "poster", "data"):
            if name in values and values[name].strip().lower().startswith(_EXTERNAL):
                self.external.append(values[name])
        if tag in ("script", "link", "img", "iframe", "object", "embed", "video", "audio", "source"):
            self.forbidden.append(tag)
        if tag == "nav":
            self.nav += 1
        if tag == "a" and "href" in values:
            (self.nav_links if "nav" in self.stack else self.links).append(values["href"])
        if tag == "article":
            self.articles.append({"id": values.get("id", ""), "h2": False, "times": []})
        if tag == "h2" and "article" in self.stack and self.articles:
            self.articles[-1]["h2"] = True
        if tag == "time":
            stamp = values.get("datetime", "")
            if "article" in self.stack and self.articles:
                self.articles[-1]["times"].append(stamp)
            else:
                self.times.append(stamp)
        if tag not in ("meta", "br", "hr", "img", "link", "input", "source"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] == "style":
            self.style += data


def _parse_day(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


@register_genre
class KnowledgeBaseArchiveGenre(Genre):
    """A self-contained HTML knowledge-base export; see the module docstring.

    ``metadata``: ``articles`` (anchor → title, ``updated`` ISO time and ``facts`` stated),
    ``exported_at`` and ``timestamp_order`` = ``"document"``.
    """

    name = "knowledge_base_archive"
    reference_kinds = MappingProxyType({"": "knowledge_archive"})
    grounded_fillers = True
    """Fillers' articles hold grounded figures (peers' published terms, the team's own working numbers)."""
    label = "Knowledge base archive (HTML)"
    max_facts = 6
    affinity = (("text", "", 3), ("money", "", 1), ("duration", "", 2), ("boolean", "", 2), ("enum", "", 1),
                ("count", "", 1), ("percent", "", 1), ("cap", "", 1), ("steps", "", 3), ("none", "", 2))

    spread_words = KB_TOKENS
    """Planned lengths in tokens of the visible text (:data:`KB_TOKENS`)."""

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the articles, order them by update, render the archive template. With a planned length
        (``plan.length_words``, tokens of visible text) the export is written with two to eight articles,
        each with its shortest or its drawn list of steps, and the one closest to the length is kept
        (:func:`~taugen.generators.corpus.genres.workplace.render_to_length`); without one, an archive
        that would run past :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens is
        written again with fewer context articles.

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        if not plan.length_words:
            return render_within_budget(self, plan, context)
        return render_to_length(self, plan, context, [[(0, {"articles": articles, "brief": brief})
                                                       for articles in range(2, 9)] for brief in (True, False)])

    def _render(self, plan: ArtifactPlan, context: RenderContext, shrink: int, articles: int | None = None,
                brief: bool = False) -> RenderedArtifact:
        """One export. ``articles`` (planned lengths) fixes how many articles it holds (at least the rule
        articles, at least two); ``brief`` lists two steps per article instead of a drawn number."""
        rng = plan.rng(f"kb-{shrink}" if shrink else "kb")
        fake = plan.faker(context.config.locale, "kb-people")
        tz = zone(context)
        start, end = window(plan, tz)
        bank = context.config.business
        exporter = cast(rng, fake, [(bank, "business")], workplace_words(context))[0]
        topic = subject_phrase(plan)

        groups: list[list[Rendition]] = []
        def replaced_here(rendition: Rendition) -> bool:  # the older version of a rule also stated here
            return rendition.status == "superseded" and plan.successor(rendition.fact_id) is not None

        for rendition in sorted(plan.renditions, key=lambda r: (replaced_here(r), r.date, r.fact_id)):
            successor = plan.successor(rendition.fact_id)
            partner = next((g for g in groups if successor is not None and any(r.fact_id == successor.id for r in g)),
                           None)
            if partner is not None:  # an older version joins the article of the rule that replaced it
                partner.append(rendition)
            else:
                groups.append([rendition])
        contexts = list(_CONTEXT)
        rng.shuffle(contexts)
        wanted = rng.randint(3, 7) - 2 * shrink  # articles in the export, with or without rules
        n_extra = max(wanted - len(groups), 0 if shrink else rng.randint(0, 1), 2 - len(groups))
        if articles is not None:  # a planned length chose the count
            n_extra = max(articles - len(groups), 2 - len(groups), 0)
        # articles about one subject of the topic with a peer's figure: as many in a filler as a carrier
        # has rule articles, and now and then one beside the rules of a carrier
        subjects = other_subjects(context, plan, rng)
        if groups:
            n_peer = 1 if subjects and n_extra and rng.random() < 0.5 else 0
        else:
            n_peer = min(n_extra, len(subjects), plan.rule_slots or rng.choice((1, 1, 2, 2, 3, 4)))
        n_context = n_extra - n_peer
        peers = peer_names(plan.faker(context.config.locale, "kb-peers"), context, 3) if n_peer else []
        drafts: list[tuple[dt.datetime, dict]] = []
        context_times = working_spread(rng, n_extra, start, end, min_gap=3600, max_gap=86400)
        numbers = iter(sorted(rng.sample(range(1000, 9999), len(groups) + n_extra)))
        for group in groups:
            day = min(max(max(r.date for r in group), start.date()), end.date())
            moment = office_time(rng, day, start, end)
            drafts.append((moment, self._carrier(rng, plan, context, group, moment.date(), brief)))
        for moment, fact in zip(context_times[:n_peer], subjects):
            drafts.append((moment, self._subject(rng, plan, context, fact, peers, moment.date(), topic, brief)))
        for moment, (title, summary, details, figure, steps) in zip(context_times[n_peer:], contexts[:n_context]):
            month = moment.date() - dt.timedelta(days=rng.randint(20, 60))
            figures = {"T": topic, "N": rng.randint(12, 480), "M": rng.randint(2, 9), "R": f"{rng.randint(61, 97)}%",
                       "MONTH": month_and_year(month),
                       "D": long_day(moment.date() - dt.timedelta(days=rng.randint(10, 300)))}
            drafts.append((moment, {"title": upper_first(title.format(T=topic)), "facts": [],
                                    "sections": [{"heading": "Summary", "paragraphs": [summary.format(T=topic)],
                                                  "bullets": [], "kind": ""},
                                                 {"heading": rng.choice(_BODY),
                                                  "paragraphs": [details] + ([upper_first(figure.format(**figures))]
                                                                             if rng.random() < 0.5 else []),
                                                  "bullets": [], "kind": "key"},
                                                 {"heading": rng.choice(_STEPS_HEADINGS), "paragraphs": [],
                                                  "bullets": rng.sample(steps, k=_steps(rng, len(steps), brief)),
                                                  "kind": ""}]}))
        drafts.sort(key=lambda d: (d[0], d[1]["title"]))
        articles = []
        for moment, draft in drafts:
            number = f"KB-{next(numbers)}"
            articles.append(dict(draft, anchor=number.lower(), number=number,
                                 owner=rng.choice(workplace_words(context).teams), iso=moment.isoformat(),
                                 label=long_day(moment.date())))
        space = plan.topic_title or "Operations"
        html = context.templates.get_template(TEMPLATE).render(
            brand=context.config.brand, space=space,
            audience=rng.choice(("{site} and contact-centre staff", "contact-centre staff", "all staff")).format(
                **context.vocabulary.common.terms()),
            articles=articles, exporter=exporter.name, exported_iso=end.isoformat(),
            exported_label=long_day(end.date()))
        data = html.encode("utf-8")
        metadata = {"articles": {a["anchor"]: {"title": a["title"], "updated": a["iso"], "facts": a["facts"]}
                                 for a in articles},
                    "exported_at": end.isoformat(), "timestamp_order": "document"}
        stamps = [plan_frame(moment, plan, tz) for moment, _draft in drafts] + [plan_frame(end, plan, tz)]
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=list(plan.renditions), timestamps=stamps, metadata=metadata)

    @staticmethod
    def _carrier(rng, plan: ArtifactPlan, context: RenderContext, group: list[Rendition], day: dt.date,
                 brief: bool = False) -> dict:
        """An article stating ``group``: summary, the rule(s), steps, and change history when due."""
        current = [r for r in group if not shown_as_history(plan, r, day)]
        history = [r for r in group if shown_as_history(plan, r, day)]
        lead = current[0] if current else group[0]
        values = _heading_words(rng, context, subject_phrase(plan, lead), item_label(plan, lead))
        title = upper_first(rng.choice(_TITLES).format(**values))
        sections = [{"heading": "Summary", "paragraphs": [rng.choice(_SUMMARIES).format(**values)], "bullets": [],
                     "kind": ""}]
        if current:
            sections.append({"heading": rng.choice(_BODY), "paragraphs": [r.text for r in current], "bullets": [],
                             "kind": "key"})
        sections.append({"heading": rng.choice(_STEPS_HEADINGS), "paragraphs": [],
                         "bullets": rng.sample(_STEPS, k=_steps(rng, 4, brief)), "kind": ""})
        if history:
            paragraphs = []
            for rendition in history:
                before, after = written_history(rng, plan, rendition, day)
                paragraphs.append(" ".join(part for part in (before, rendition.text, after) if part))
            sections.append({"heading": "Change history", "paragraphs": paragraphs, "bullets": [], "kind": "history"})
        return {"title": title, "sections": sections, "facts": [r.fact_id for r in group]}

    @staticmethod
    def _subject(rng, plan: ArtifactPlan, context: RenderContext, fact, peers: list[str], day: dt.date,
                 topic: str, brief: bool = False) -> dict:
        """An article shaped like a rule's about ``fact``'s subject that states no rule of the business,
        its main section written as other genres' grounded slots are
        (:func:`~taugen.generators.corpus.genres.benchmarks.grounded_sentences`): what other organisations
        publish for it (a comparable subject, two times in five; each figure named with its organisation and
        equal to no value any fact on the subject ever had; half of them quoted in the frame a rule's
        sentence uses, so a filler's article holds rule-shaped sentences as a carrier's does), how often
        customers asked about it (a figure that is none of the subject's values), or a working note."""
        subject = mid_sentence((fact.subject or "").strip().rstrip("."))
        values = _heading_words(rng, context, subject, upper_first(re.sub(r"^(the|a|an)\s+", "", subject,
                                                                            flags=re.IGNORECASE)))
        notes = tuple(line.replace("{T}", topic.replace("{", "{{").replace("}", "}}")) for line in _NOTE_LINES)
        lines = [upper_first(line) for line in grounded_sentences(
            rng, context, fact, subject, peers, day, plan.facts.values(), peer_lines=_PEER_LINES,
            volume_lines=_VOLUME_LINES, note_lines=notes, weights=(0.4, 0.7))]
        sections = [{"heading": "Summary", "paragraphs": [rng.choice(_SUMMARIES).format(**values)], "bullets": [],
                     "kind": ""}]
        if lines:
            sections.append({"heading": rng.choice(_BODY), "paragraphs": lines, "bullets": [], "kind": "key"})
        sections.append({"heading": rng.choice(_STEPS_HEADINGS), "paragraphs": [],
                         "bullets": rng.sample(_STEPS, k=_steps(rng, 4, brief)), "kind": ""})
        return {"title": upper_first(rng.choice(_TITLES).format(**values)), "sections": sections, "facts": []}

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """The visible text of each ``.html`` file, read with :mod:`html.parser` (head, style and
        script content skipped; one line per block element). ``author_text`` is not used."""
        return "\n\n".join(visible_text(f.data.decode("utf-8")) for f in files if f.suffix == SUFFIX)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Archive structure: one ``.html`` in UTF-8 starting with ``<!DOCTYPE html>``; exactly one
        ``<nav>`` whose links are ``#anchors`` of the articles, one per article, in order; at least two
        ``<article>`` elements, each with a unique id, an ``<h2>`` and a ``<time datetime>`` that parses
        and is not after the export time; unique ids; self-contained (no scripts, images, frames or
        ``<link>`` elements, no external ``href``/``src``, no ``url(`` or ``@import`` in the style)."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "html_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        try:
            html = files[0].data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return [error("structure", "html_encoding", subject, "the archive is not UTF-8", str(exc))]
        findings: list[Finding] = []
        if not html.lstrip().lower().startswith("<!doctype html>"):
            findings.append(error("structure", "no_doctype", subject,
                                  "the archive does not start with <!DOCTYPE html>"))
        parsed = _Structure()
        parsed.feed(html)
        parsed.close()
        if parsed.nav != 1:
            findings.append(error("structure", "nav_count", subject, f"expected one <nav>, found {parsed.nav}"))
        anchors = [a["id"] for a in parsed.articles]
        if len(parsed.articles) < 2:
            findings.append(error("structure", "article_count", subject,
                                  f"an archive needs at least two articles, found {len(parsed.articles)}"))
        if len(set(parsed.ids)) != len(parsed.ids):
            findings.append(error("structure", "duplicate_id", subject, "element ids repeat"))
        if parsed.nav_links != [f"#{anchor}" for anchor in anchors]:
            findings.append(error("structure", "nav_mismatch", subject,
                                  "the table of contents does not link every article in order",
                                  f"{parsed.nav_links} vs {anchors}"))
        broken = [link for link in parsed.nav_links + parsed.links
                  if link.startswith("#") and link[1:] not in parsed.ids]
        if broken:
            findings.append(error("structure", "broken_anchor", subject, "a link points at no element", broken[0]))
        if parsed.external or parsed.forbidden or "url(" in parsed.style or "@import" in parsed.style:
            findings.append(error("structure", "not_self_contained", subject,
                                  "the archive references external resources or embeds scripts/media",
                                  ", ".join(parsed.external + parsed.forbidden)))
        exported = next((t for t in (_parse_day(s) for s in parsed.times) if t is not None), None)
        for article in parsed.articles:
            if not article["id"] or not article["h2"] or not article["times"]:
                findings.append(error("structure", "article_shape", subject,
                                      f"article {article['id'] or '?'} lacks an id, a title or a date"))
                continue
            moment = _parse_day(article["times"][0])
            if moment is None:
                findings.append(error("structure", "bad_time", subject, f"article {article['id']} has an "
                                      "unparseable datetime", article["times"][0]))
            elif exported is not None and (moment.tzinfo is None) == (exported.tzinfo is None) and moment > exported:
                findings.append(error("structure", "article_after_export", subject,
                                      f"article {article['id']} was updated after the archive was exported"))
        return findings


__all__ = ["KnowledgeBaseArchiveGenre"]
