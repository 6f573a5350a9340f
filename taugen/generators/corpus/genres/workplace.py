"""Shared pieces of the workplace-record genres: staff, times, history wording and HTML text.

The meeting transcript, channel export, issue tracker export, case ledger, knowledge-base archive,
screenshot, reference table and decision register genres all need the same small things: a cast of
named staff from the bank and its counterparts, in-world times spread through the plan's window,
the written wording of a replaced rule (only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds), and the visible text of an HTML page
read with :mod:`html.parser`. Every choice comes from the plan's own generators.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, Rendition, shown_as_history
from taugen.generators.corpus.genre import fact_subject
from taugen.generators.corpus.stamps import as_local, business_zone
from taugen.text import lower_first, mid_sentence, upper_first
from taugen.generators.corpus.renditions import spoken_subject
from taugen.generators.corpus.vocabulary import GenreVocabulary, Pool, register_vocabulary

if TYPE_CHECKING:
    from faker import Faker

    from taugen.authoring.models import Organisation

__all__ = ["TOKEN_BUDGET", "token_count", "render_to_length", "render_within_budget", "Colleague", "cast",
           "counterpart", "zone", "window", "spread",
           "working_spread", "in_force_from", "office_time", "plan_frame",
           "subject_phrase", "item_label", "written_history", "long_day", "visible_text", "VisibleText",
           "lower_first", "upper_first", "WorkplaceWords", "workplace_words"]

TOKEN_BUDGET = 950
"""Natural-length documents of these genres stay under the realism gate's long-document size (1000
tokens), so no pooled sentence can repeat across two long documents of a genre."""
_TOKEN = re.compile(r"\w+|[^\w\s]")
_COUNTERPART_TITLES = {  # the business's own staff titles are the domain's: WorkplaceWords.business_titles
    "vendor": ("Client Relationship Manager", "Implementation Consultant", "Senior Account Manager",
               "Configuration Analyst", "Client Success Lead", "Product Operations Specialist"),
    "partner": ("Senior Compliance Consultant", "Regulatory Compliance Manager", "Engagement Manager",
                "Compliance Analyst"),
}


class WorkplaceWords(GenreVocabulary):
    """The ``workplace`` section of a pack's ``vocabulary.yaml``: the business's staff, shared by the
    workplace genres (meetings, channels, decision registers, issue trackers, knowledge bases, case
    ledgers, reference tables, spreadsheets and handbooks).

    Attributes:
        teams: the business's teams, as owners and assignees ("Card Services").
        owner_teams: the teams that own written policy (a workbook's or handbook's owner).
        business_titles: job titles of the business's staff ("Head of Branch Operations").
    """

    teams: Pool
    owner_teams: Pool
    business_titles: Pool

    def titles(self, role: str) -> tuple[str, ...]:
        """Job titles of one side: the domain's for the business, generic ones for a vendor or partner."""
        return _COUNTERPART_TITLES.get(role, self.business_titles)


NEUTRAL_WORDS = WorkplaceWords(
    teams=("Customer Operations", "Billing Operations", "Compliance Office", "Customer Care", "Product Management",
           "Digital Services", "Quality Assurance"),
    owner_teams=("Customer Operations", "Billing Operations", "Compliance Office", "Customer Care",
                 "Product Management"),
    business_titles=("Operations Manager", "Billing Operations Lead", "Senior Product Manager", "Compliance Officer",
                     "Customer Care Team Lead", "Policy and Procedures Analyst", "Head of Customer Operations",
                     "Digital Services Manager", "Quality Assurance Analyst", "Training Coordinator",
                     "Contact Centre Supervisor"),
)
register_vocabulary("workplace", WorkplaceWords, NEUTRAL_WORDS)
_HISTORY_LEADS = ("Until {date} the rule was:", "Before the change on {date}:", "Previous rule, in force until {date}:",
                  "Up to {date} it read:", "Replaced on {date}; the earlier wording was:")
_HISTORY_TAILS = ("That no longer applies.", "Kept for reference only.", "This wording has been retired.", "")


@dataclass
class Colleague:
    """A named member of staff.

    Attributes:
        first / last: names.
        title: job title.
        org: the organisation they work for.
        handle: a lower-case login (``dana.whitfield``), unique within a cast.
        email: ``handle@domain`` of their organisation.
    """

    first: str
    last: str
    title: str
    org: Organisation
    handle: str
    email: str

    @property
    def name(self) -> str:
        """``First Last``."""
        return f"{self.first} {self.last}"


def render_within_budget(genre, plan: ArtifactPlan, context: RenderContext):
    """Render through ``genre._render(plan, context, shrink)``, shrinking (0 to 3) until the author text
    fits :data:`TOKEN_BUDGET` tokens; the last attempt is returned even if it does not fit.

    Raises:
        ValueError: the plan holds more renditions than ``genre.max_facts``.
    """
    if len(plan.renditions) > genre.max_facts:
        raise ValueError(f"{plan.artifact_id}: {genre.name} holds at most {genre.max_facts} facts")
    for shrink in range(4):
        artifact = genre._render(plan, context, shrink)
        if token_count(artifact.author_text) <= TOKEN_BUDGET:
            break
    return artifact


PAST_PLANNED = 120
"""Tokens past a planned length after which :func:`render_to_length` stops growing a run of drafts."""


def render_to_length(genre, plan: ArtifactPlan, context: RenderContext,
                     runs: Sequence[Sequence[tuple[int, Mapping[str, object]]]]):
    """The draft of ``plan`` whose author text comes closest to ``plan.length_words`` tokens without
    passing :data:`TOKEN_BUDGET` (the shortest draft when none fits; the earliest of equals).

    Each run is a sequence of ``(shrink, keyword arguments)`` for ``genre._render(plan, context, shrink,
    **keywords)`` that grows the record step by step (more agenda items, more articles); a run stops once
    a draft passes the planned length by :data:`PAST_PLANNED` tokens, since its later drafts only grow.
    Knowledge-base exports, meeting transcripts, decision registers and spreadsheets take planned lengths
    this way: the planner deals lengths over a genre's records, carriers and fillers each over the whole
    range, so how much a record's own rules or mentions fill it no longer sets its length.

    Raises:
        ValueError: the plan holds more renditions than ``genre.max_facts``.
    """
    if len(plan.renditions) > genre.max_facts:
        raise ValueError(f"{plan.artifact_id}: {genre.name} holds at most {genre.max_facts} facts")
    best = None
    for run in runs:
        for shrink, keywords in run:
            artifact = genre._render(plan, context, shrink, **keywords)
            tokens = token_count(artifact.author_text)
            key = (tokens > TOKEN_BUDGET, tokens if tokens > TOKEN_BUDGET else abs(tokens - plan.length_words))
            if best is None or key < best[0]:
                best = (key, artifact)
            if tokens > plan.length_words + PAST_PLANNED:
                break
    if best is None:
        raise ValueError(f"{plan.artifact_id}: no draft to choose from")
    return best[1]


def token_count(text: str) -> int:
    """Words and punctuation marks: the same estimate the build and its realism gates use."""
    return len(_TOKEN.findall(text))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def workplace_words(context: RenderContext) -> WorkplaceWords:
    """The pack's ``workplace`` vocabulary (its teams and staff titles), or the neutral one."""
    return context.vocabulary.words("workplace")  # type: ignore[return-value]


def cast(rng: random.Random, fake: Faker, orgs: list[tuple[Organisation, str]], words: WorkplaceWords) -> list[Colleague]:
    """One colleague per ``(organisation, role)`` entry, with distinct names, handles and titles (the
    business's titles from ``words``, the pack's :class:`WorkplaceWords`)."""
    people: list[Colleague] = []
    names: set[str] = set()
    titles: set[tuple[str, str]] = set()
    for org, role in orgs:
        for _ in range(20):
            first, last = fake.first_name(), fake.last_name()
            if f"{first} {last}" not in names and all(p.last != last for p in people):
                break
        names.add(f"{first} {last}")
        pool = [t for t in words.titles(role) if (org.id, t) not in titles] or list(words.titles(role))
        title = rng.choice(pool)
        titles.add((org.id, title))
        handle = f"{_slug(first)}.{_slug(last)}"
        people.append(Colleague(first, last, title, org, handle, f"{handle}@{org.email_domain}"))
    return people


def counterpart(rng: random.Random, context: RenderContext) -> Organisation | None:
    """A vendor or partner of the business, or None when the pack has none."""
    others = [org for org in context.config.organisations if org.id != context.config.business.id]
    return rng.choice(others) if others else None


def zone(context: RenderContext) -> dt.tzinfo:
    """The business's clock (:func:`~taugen.generators.corpus.stamps.business_zone`)."""
    return business_zone(context.config)


def window(plan: ArtifactPlan, tz: dt.tzinfo) -> tuple[dt.datetime, dt.datetime]:
    """``(start, end)`` of the plan as aware local datetimes with whole seconds (start rounded up)."""
    start, end = as_local(plan.start, tz), as_local(plan.end, tz)
    if start.microsecond:
        start = start.replace(microsecond=0) + dt.timedelta(seconds=1)
    end = end.replace(microsecond=0)
    return min(start, end), end


def plan_frame(moment: dt.datetime, plan: ArtifactPlan, tz: dt.tzinfo) -> dt.datetime:
    """``moment`` expressed like ``plan.start`` (naive local when the plan is naive, else aware)."""
    local = as_local(moment, tz)
    return local.replace(tzinfo=None) if plan.start.tzinfo is None else local


def spread(rng: random.Random, count: int, start: dt.datetime, end: dt.datetime, *, min_gap: float = 120,
           max_gap: float = 4 * 3600) -> list[dt.datetime]:
    """``count`` non-decreasing whole-second times in ``[start, end]``.

    Gaps between neighbours are drawn in ``[min_gap, max_gap]`` seconds and the run is placed at a
    random point of the window; when the window is too short for them the gaps are scaled down to fit
    (a zero-length window gives ``count`` equal times).
    """
    if count <= 0:
        return []
    span = max((end - start).total_seconds(), 0.0)
    gaps = [rng.uniform(min_gap, max_gap) for _ in range(count - 1)]
    total = sum(gaps)
    if total > span:
        gaps = [gap * span / total for gap in gaps] if total else gaps
        total = span
    offset = rng.uniform(0, span - total) if span > total else 0.0
    times, moment = [], offset
    for index in range(count):
        if index:
            moment += gaps[index - 1]
        times.append(min(start + dt.timedelta(seconds=int(moment)), end))
    for index in range(1, count):  # rounding never reorders
        times[index] = max(times[index], times[index - 1])
    return times


def in_force_from(plan: ArtifactPlan, start: dt.datetime, end: dt.datetime) -> dt.datetime:
    """The earliest time in ``[start, end]`` at which every rule the plan owns is in force (07:30 on the
    latest ``effective_from``), so that no record states a rule before it took effect; ``start`` when
    the plan owns nothing or that day is outside the window."""
    days = [plan.facts[r.fact_id].effective_from for r in plan.renditions
            if r.states_rule and r.fact_id in plan.facts]
    if not days:
        return start
    floor = dt.datetime.combine(max(days), dt.time(7, 30), start.tzinfo)
    return floor if start < floor <= end else start


def working_spread(rng: random.Random, count: int, start: dt.datetime, end: dt.datetime, *, min_gap: float = 120,
                   max_gap: float = 4 * 3600) -> list[dt.datetime]:
    """Like :func:`spread`, but in working time: 07:30–18:30 local on weekdays (any day when the window
    has no weekday), gaps counted in working seconds so nights and weekends are skipped. Falls back to
    :func:`spread` over the whole window when it holds under a minute of working time per item."""
    intervals: list[tuple[dt.datetime, dt.datetime]] = []
    for weekdays_only in (True, False):
        day = start.date()
        while day <= end.date():
            if not weekdays_only or day.weekday() < 5:
                low = max(start, dt.datetime.combine(day, dt.time(7, 30), start.tzinfo))
                high = min(end, dt.datetime.combine(day, dt.time(18, 30), start.tzinfo))
                if high > low:
                    intervals.append((low, high))
            day += dt.timedelta(days=1)
        if intervals:
            break
    total = sum((high - low).total_seconds() for low, high in intervals)
    if total < 60 * count:
        return spread(rng, count, start, end, min_gap=min_gap, max_gap=max_gap)
    origin = dt.datetime(2000, 1, 1, tzinfo=start.tzinfo)
    virtual = spread(rng, count, origin, origin + dt.timedelta(seconds=int(total)), min_gap=min_gap, max_gap=max_gap)
    times = []
    for moment in virtual:
        offset = (moment - origin).total_seconds()
        for low, high in intervals:
            length = (high - low).total_seconds()
            if offset <= length:
                times.append(low + dt.timedelta(seconds=int(offset)))
                break
            offset -= length
        else:
            times.append(intervals[-1][1])
    return [t.replace(microsecond=0) for t in times]


def office_time(rng: random.Random, day: dt.date, start: dt.datetime, end: dt.datetime) -> dt.datetime:
    """A whole-second time on ``day`` between 08:30 and 17:30 local, clamped into ``[start, end]``."""
    minute = rng.randint(8 * 60 + 30, 17 * 60 + 30)
    moment = dt.datetime.combine(day, dt.time(minute // 60, minute % 60, rng.randint(0, 59)), start.tzinfo)
    return min(max(moment, start), end)


def subject_phrase(plan: ArtifactPlan, rendition: Rendition | None = None) -> str:
    """The fact's subject as written (lower-case first letter, article kept: ``the domestic wire
    cut-off time``) or, failing that, the topic in lower case."""
    if rendition is not None:
        fact = plan.facts.get(rendition.fact_id)
        subject = (getattr(fact, "subject", None) or "").strip().rstrip(".") if fact is not None else ""
        if subject:
            return mid_sentence(subject)
    return lower_first(plan.topic_title) if plan.topic_title else "this topic"


def said_subject(context: RenderContext, rng: random.Random, subject: str) -> str:
    """``subject`` as staff say or write it in passing (a heading, a note, a rejected proposal): the pack's
    spoken wordings (:func:`~taugen.generators.corpus.renditions.spoken_subject`, ``vocabulary.yaml``
    ``spoken``) drawn from ``rng``, for a rule's subject and any other alike. ``subject`` unchanged when
    the pack has none."""
    return spoken_subject(subject, context.vocabulary.words("spoken"), rng)  # type: ignore[arg-type]


def row_labels(context: RenderContext, plan: ArtifactPlan):
    """A function giving a table row's label for a subject label (``Legal process fee on Certificate of
    Deposit``) as staff write it in this file: :func:`said_subject`, drawn once per label from the plan's
    ``spoken subjects`` generator and kept, so every row about one subject (a rule and the version it
    replaced alike) carries the same label; first letter in upper case."""
    saying, labels = plan.rng("spoken subjects"), {}

    def label(item: str) -> str:
        if item not in labels:
            said = said_subject(context, saying, item)
            labels[item] = said[:1].upper() + said[1:]
        return labels[item]

    return label


def item_label(plan: ArtifactPlan, rendition: Rendition) -> str:
    """A capitalised label for a table row or heading about the rendition's fact (no leading article:
    ``Domestic wire cut-off time``)."""
    subject = fact_subject(plan, rendition)
    return upper_first(subject) if subject else upper_first(subject_phrase(plan))


def long_day(day: dt.date) -> str:
    """``March 1, 2026`` (the form the chronology validator reads)."""
    return f"{day:%B} {day.day}, {day.year}"


def written_history(rng: random.Random, plan: ArtifactPlan, rendition: Rendition, day: dt.date) -> tuple[str, str]:
    """Written lead and tail framing a replaced rule, or ``("", "")`` when the rendition is not shown
    as history on ``day`` (then it is stated exactly as a rule in force)."""
    if not shown_as_history(plan, rendition, day):
        return "", ""
    when = long_day(plan.successor_effective_date(rendition.fact_id))  # type: ignore[arg-type]
    return rng.choice(_HISTORY_LEADS).format(date=when), rng.choice(_HISTORY_TAILS)


# --------------------------------------------------------------------------------------------------
# HTML visible text
# --------------------------------------------------------------------------------------------------

_BLOCKS = frozenset({"address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "div", "dl",
                     "dt", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
                     "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
                     "thead", "tfoot", "tr", "ul", "br", "button", "label"})
_HIDDEN = frozenset({"head", "script", "style", "template", "noscript", "title", "svg"})


class VisibleText(HTMLParser):
    """Collect the text a browser shows: block elements start new lines, table cells in a row are
    joined by `` | ``, and nothing inside ``head``, ``script``, ``style``, ``template`` or ``svg``
    (or an element with the ``hidden`` attribute) is kept. Character references are decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._current: list[str] = []
        self._hidden: list[str] = []
        self._row_cells = 0

    def _flush(self) -> None:
        line = re.sub(r"\s+", " ", "".join(self._current)).strip()
        if line:
            self.lines.append(line)
        self._current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._hidden:
            if tag not in ("br", "img", "meta", "link", "input", "hr"):
                self._hidden.append(tag)
            return
        if tag in _HIDDEN or any(name == "hidden" for name, _ in attrs):
            self._hidden.append(tag)
            return
        if tag in ("td", "th"):
            if self._row_cells:
                self._current.append(" | ")
            self._row_cells += 1
            return
        if tag == "tr":
            self._flush()
            self._row_cells = 0
            return
        if tag in _BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if self._hidden:
            if tag == self._hidden[-1]:
                self._hidden.pop()
            return
        if tag == "tr":
            self._flush()
            self._row_cells = 0
        elif tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self._current.append(data)

    def text(self) -> str:
        """The collected lines, joined by newlines."""
        self._flush()
        return "\n".join(self.lines)


def visible_text(html: str) -> str:
    """The visible text of an HTML document (see :class:`VisibleText`)."""
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return parser.text()
