"""The meeting-transcript genre: a recorded working session exported as a WebVTT file (``.vtt``).

The delivered file follows the W3C WebVTT specification (https://www.w3.org/TR/webvtt1/):

* the ``WEBVTT`` signature line, then a ``NOTE`` comment block (§4.1, "WebVTT comment") naming the
  meeting, its recording date and time and its participants, as meeting tools write them;
* one cue per utterance chunk: a cue identifier, a timing line ``hh:mm:ss.ttt --> hh:mm:ss.ttt``
  (§4.1 "WebVTT cue timings"; start < end, cues ordered by start time) and one payload line wrapped in
  a voice span ``<v Speaker Name>...</v>`` (§4.2.2 "WebVTT cue voice span"), the way Microsoft Teams
  and Zoom transcripts name speakers; ``&``, ``<`` and ``>`` in cue text are written as character
  references (§4.2.2 "WebVTT cue text").

The session (two to four named participants from the bank and, often, a vendor or partner) is held on a
weekday in office hours (the planner moves a weekend record to a weekday of that week or the next;
``business_days``) and walks through as many agenda items as bring it closest to the length the planner gave it (``length_words``,
dealt over :data:`MEETING_TOKENS`, carriers and fillers alike), whether or not some own facts; unplanned,
two to five (fewer when the transcript would pass
:data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens). After an item is named, the next
speaker mostly says "it" or "that" rather than the subject again. Each item is decided the way
working sessions decide things: someone proposes an approach, it is rejected (proposals never carry a
number, so no wrong value is planted), and the host states the final position; for an item that owns a
fact, the final position is the rendition, in one cue, verbatim. Sentences the planner adds about a fact
without owning it (pointers, caveats, route pointers, decoys) are said in passing by a participant after
an item, in one cue, verbatim, and decide nothing. A superseded rendition is framed as history only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the meeting date; otherwise it is the
rule in force that day and is stated like any other final position.

Cue durations follow each speaker's speaking rate (135–172 words per minute) so the transcript reads
as real speech; :meth:`MeetingTranscriptGenre.validate` recomputes the rate from the cue text and
timings and requires 110–190 words per minute over the whole session. The recording ends by
``plan.end`` and starts inside the plan window when the window is long enough (otherwise it starts
before ``plan.start`` so that the speech keeps its pace). ``timestamps`` are the wall-clock starts of
the cues, in file order.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from html import unescape

from taugen.generators.corpus.genre import (
    CUE_STATUSES,
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.support_lines import history_framing, join_statement
from taugen.generators.corpus.genres.workplace import (
    Colleague,
    cast,
    counterpart,
    in_force_from,
    plan_frame,
    render_to_length,
    render_within_budget,
    said_subject,
    subject_phrase,
    window,
    workplace_words,
    zone,
)
from taugen.findings import Finding, error
from taugen.generators.corpus.prose import without_doubled_words
from taugen.generators.corpus.stamps import EPOCH, Chain, Stamp, as_local, offset_label, utc_offset

SUFFIX = ".vtt"
MEETING_TOKENS = (640, 940)
"""A session's length in tokens of its transcript text (as the realism gate counts them): the planner
stratifies it over the meetings (``spread_words``), carriers and fillers each over the whole range, and
:meth:`MeetingTranscriptGenre.render` picks how many agenda items the session takes so the transcript comes
closest to it; the top stays under :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET`.
Unplanned, sessions ran to the budget and were trimmed there (half of banking hard seed 6's 144 between
793 and 898 tokens), so how much a carrier's rules and a filler's mentions trimmed made their lengths
differ by chance (fillers 508 words on average, carriers 477, p = 0.04)."""
WPM_RANGE = (110.0, 190.0)
"""Plausible words per minute over all cues (speech time only)."""
MAX_CUE_WPM = 320.0
"""No single cue may be faster than this (nobody speaks that fast)."""
_TIMING = re.compile(r"^(\d{2,}):(\d{2}):(\d{2})\.(\d{3})[ \t]+-->[ \t]+(\d{2,}):(\d{2}):(\d{2})\.(\d{3})(?:[ \t].*)?$")
_VOICE = re.compile(r"^<v(?:\.[^ \t>]+)*[ \t]+([^>]+)>(.*?)(?:</v>)?$")
_TAG = re.compile(r"</?[a-z][^>]*>")
_RECORDED = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?: \(UTC([+-])(\d{2}):(\d{2})\))?")
"""The recording line of the ``NOTE`` block: ``Recorded: 2026-03-10 14:02 (UTC-05:00)`` (seconds and
offset optional)."""
_WORD = re.compile(r"[A-Za-z0-9$%][A-Za-z0-9$%.,'’-]*")
_MAX_CUE_WORDS = 22

# Phrase pools. No digits and no number words anywhere: only renditions carry values.
# {S} subject of the item, {T} topic (lower case), {A} an asset, {name} a participant's first name.
_OPENERS = ("Okay, I think the recording is on. Thanks for joining, everyone.",
            "Right, we're recording. Thanks all for making the time.",
            "Okay, looks like everyone's here. I've started the recording so we have it for the notes.",
            "Thanks for joining. I'm recording this one so I don't have to type and talk at the same time.")
_AGENDA = ("Today is the {title}. The plan is to close out the open {T} items.",
           "This is our {title}. I'd like to get through the {T} items and agree owners.",
           "Agenda is short: the open {T} questions, then actions.",
           "We're here to settle the {T} points before the scripts go out.")
_GUEST = ("{guest} from {org} is on as well, since their team has to build whatever we agree.",
          "I've asked {guest} from {org} to join so we don't have to relay everything afterwards.",
          "{guest} is joining from {org}.")
_GUEST_HELLO = ("Hi everyone, thanks for having me.", "Hello, happy to be here.", "Hi all.")
_FIRST_INTRO = ("First item: {S}.", "Let's start with {S}.", "First up, {S}.")
_ITEM_INTRO = ("Next up is {S}.", "Okay, moving on to {S}.", "Then we have {S}.", "The next one on my list is {S}.",
               "Next: {S}.")
# {site} / {sites}: where the business serves customers in person, the domain's word (CommonWords)
_ITEM_CONTEXT = ("A few customers have asked about it recently.", "The {site} teams flagged that the wording "
                 "isn't consistent.", "This came up at the last team huddle.", "Our scripts and the website "
                 "don't say the same thing today.", "Complaints picked it up in their monthly review.",
                 "The contact centre keeps escalating questions on it.")
_PROPOSALS = ("What if we leave {S} out of the scripts and point customers to the website?",
              "Could we just let each {site} explain {S} in their own words?",
              "I'd suggest we only mention {S} when a customer asks about it.",
              "Should we hold back the wording on {S} until {A} is rebuilt?",
              "One option is to keep the old wording in {A} for now and fix it later.",
              "Could we route every question about {S} to the specialist team instead?")
# the same proposals right after the item is named: people say "it" or "that", not the subject again
_PROPOSALS_SAID_BEFORE = ("What if we leave it out of the scripts and point customers to the website?",
                          "Could we just let each {site} explain it in their own words?",
                          "I'd suggest we only mention it when a customer asks.",
                          "Should we hold back that wording until {A} is rebuilt?",
                          "One option is to keep the old wording in {A} for now and fix it later.",
                          "Could we route every question on that to the specialist team instead?")
_BRIEF = 2
"""The ``shrink`` level from which a session's items take no optional lines."""
_ANAPHORA_SHARE = 0.7
"""Share of proposals that refer to the item just introduced as "it" or "that" rather than name it again
(a subject said three times in a few lines made the owner the first hit of a search on its words)."""
_REJECTIONS = ("I don't think that works. If the scripts and the terms disagree, we're the ones who get the "
               "complaint.", "I'd push back on that. Compliance wants one wording everywhere.",
               "That leaves too much room for people to improvise. Let's not.",
               "We tried something like that before and it just created callbacks.",
               "I'd rather not. The agents need something they can read out word for word.",
               "That would only move the problem somewhere else, so no.")
_CONCEDE = ("Fair enough.", "Okay, that's fair.", "Yeah, I can live with that.", "Alright, point taken.",
            "Makes sense.")
_FINAL_LEADS = ("Okay, so where we landed:", "So, to be clear for the notes:", "Let's write it down exactly:",
                "Right, the final position is this.", "So the decision is:", "For the recording, then:",
                "Okay, final answer:")
_AGREE = ("Agreed.", "Works for me.", "Yes, that matches what I have.", "Sounds right.", "No objection from me.",
          "Perfect, that's clear.", "Yep, that's it.")
_ACTIONS = ("{name}, can you update {A} with that wording?", "{name}, could you take the action to brief the "
            "contact centre?", "{name}, can you make sure {A} says exactly that?", "{name}, could you check "
            "{A} against that before it goes out?")
_ACTION_REPLIES = ("Yep, I'll take that.", "Sure, I'll get it done this week.", "On it.",
                   "Will do. I'll send it round when it's done.", "Yes, I've got it.")
_HISTORY_ASIDES = ("Just so nobody quotes the old version:", "For context, since people still ask about it:",
                   "Quick bit of history, for the recording:")
_REMARK_LEADS = ("", "Quick one before we move on.", "Side note:", "Before I forget:", "One more thing on this.")
_REMARK_REPLIES = ("Okay, noted.", "Thanks, good to know.", "Noted, let's keep going.", "Okay.")
_FILLER_ITEMS = (  # (item, proposal, rejection, final) with no values
    ("who owns the customer FAQ for {T}", "Marketing could own it, they run the website anyway.",
     "They don't see the complaints, though, so the answers drift.",
     "Customer Care owns the FAQ and Compliance reviews every change."),
    ("where agents find the {T} guidance", "We could keep it in the shared drive like the old guides.",
     "Nobody can find anything in there.", "The guidance lives in the knowledge base, linked from the call guide."),
    ("how we log {T} complaints", "Agents could just add a free-text note on the account.",
     "Then we can't report on it.", "Every complaint gets a case with the {T} category selected."),
    ("training for new starters on {T}", "We could fold it into the general induction.",
     "It gets lost there, honestly.", "New starters get a short {T} module before they take live calls."),
    ("sign-off for {A}", "Product could sign it off on their own.",
     "Not without Compliance, given the complaints we had.", "Product drafts, Compliance signs off, and we log it."),
    ("how we tell the {sites} about {T} changes", "An email to the {site} managers is probably enough.",
     "Half of them don't read those.", "It goes in the weekly {site} bulletin and the huddle notes."),
)
_ASSETS = ("the call guide", "the agent knowledge base", "the {site} reference guide", "the IVR prompts",
           "the website help pages", "the customer letter templates", "the chat macros")
_CLOSINGS = ("I think that's everything. I'll send the notes and actions round after this.",
             "Great, that's the list. Notes will follow.", "Okay, that's all I had. Thanks for the quick decisions.",
             "That covers it. I'll write this up.")
_BYES = ("Thanks, everyone.", "Thanks, bye.", "Thanks all.", "Cheers, talk soon.", "Bye for now.")


@dataclass
class _Line:
    """One utterance: speaker, the sentences said, and which sentence (if any) is a rendition."""

    speaker: Colleague
    sentences: list[str]
    rendition: int | None = None
    decision: tuple[int, str] | None = None  # (decision index, "proposal" | "rejected" | "final")


@dataclass
class _Cue:
    speaker: Colleague
    text: str
    start: float = 0.0
    end: float = 0.0
    decision: tuple[int, str] | None = None
    facts: list[str] = field(default_factory=list)


def cue_clock(seconds: float) -> str:
    """``hh:mm:ss.ttt`` (WebVTT timestamp with hours, §4.1)."""
    millis = int(round(seconds * 1000))
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.{millis:03d}"


def _seconds(hours: str, minutes: str, secs: str, millis: str) -> float:
    return int(hours) * 3600 + int(minutes) * 60 + int(secs) + int(millis) / 1000


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def word_count(text: str) -> int:
    """Words in a cue's text (tags removed)."""
    return len(_WORD.findall(_TAG.sub(" ", text)))


@dataclass
class ParsedCue:
    """A cue read back from a WebVTT file."""

    identifier: str
    start: float
    end: float
    speaker: str
    text: str


def parse_vtt(data: bytes) -> tuple[list[str], list[ParsedCue], list[str]]:
    """Read a WebVTT file (W3C WebVTT §6 parsing, simplified to what transcripts use).

    Returns ``(note_lines, cues, problems)``: the text of ``NOTE`` blocks, the cues in file order
    (voice-span speaker, text with tags removed and character references decoded) and structural
    problems (missing signature, unparseable timing lines, cues without payload).
    """
    problems: list[str] = []
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    blocks = [block for block in re.split(r"\n{2,}", text.strip("\n")) if block.strip()]
    if not blocks or not re.match(r"^WEBVTT(?:[ \t].*)?$", blocks[0].split("\n", 1)[0]):
        return [], [], ["the file does not start with the WEBVTT signature"]
    notes: list[str] = []
    cues: list[ParsedCue] = []
    for block in blocks[1:]:
        lines = block.split("\n")
        if re.match(r"^NOTE(?:[ \t]|$)", lines[0]):
            notes += [line for line in [lines[0][4:].strip(), *lines[1:]] if line.strip()]
            continue
        if lines[0] in ("STYLE", "REGION"):
            continue
        identifier = ""
        if "-->" not in lines[0]:
            identifier, lines = lines[0], lines[1:]
        if not lines:
            problems.append(f"cue {identifier or '?'} has no timing line")
            continue
        match = _TIMING.match(lines[0])
        if not match:
            problems.append(f"cue {identifier or '?'}: bad timing line {lines[0]!r}")
            continue
        start, end = _seconds(*match.groups()[:4]), _seconds(*match.groups()[4:])
        payload = "\n".join(lines[1:]).strip()
        if not payload:
            problems.append(f"cue {identifier or '?'} has no text")
        voice = _VOICE.match(payload.split("\n", 1)[0]) if payload else None
        speaker = unescape(voice.group(1).strip()) if voice else ""
        body = unescape(_TAG.sub("", payload)).replace("\n", " ").strip()
        cues.append(ParsedCue(identifier, start, end, speaker, body))
    return notes, cues, problems


@register_genre
class MeetingTranscriptGenre(Genre):
    """A recorded working session as a WebVTT transcript; see the module docstring.

    ``metadata``: ``participants`` (names, titles, organisations), ``recorded_at`` (ISO 8601),
    ``duration_seconds``, ``words``, ``wpm`` (over speech time), ``cues`` (count), ``decisions``
    (each ``item``, the cue numbers of its ``proposal``, ``rejected`` and ``final`` statements and the
    ``facts`` its final position states) and ``timestamp_order`` = ``"cues"``.
    """

    name = "meeting_transcript"
    reference_kinds = MappingProxyType({"": "meeting_transcript"})
    label = "Meeting transcript (WebVTT)"
    max_facts = 4
    variants = ("working_session", "case_review")
    affinity = (("money", "working_session", 1), ("percent", "working_session", 1), ("cap", "working_session", 1),
                ("duration", "case_review", 2), ("count", "working_session", 1), ("enum", "working_session", 1),
                ("boolean", "case_review", 2), ("text", "working_session", 2), ("date", "working_session", 1),
                ("none", "case_review", 1))
    voiced = True
    mention_audience = "meeting"  # a rule named in passing is an agenda item's outcome, not a passing remark
    spread_words = MEETING_TOKENS
    """Planned lengths in tokens of the transcript text (:data:`MEETING_TOKENS`)."""
    business_days = True
    """Working sessions and case reviews are held on weekdays."""

    # ---------------------------------------------------------------------------------------------- render
    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the session, time its cues at each speaker's pace, place it in the window, export VTT.
        With a planned length (``plan.length_words``, tokens of the transcript text) the session is written
        brief (no optional lines), with fewer action items and as drawn, each with one to seven agenda
        items, and the draft closest to the length is kept
        (:func:`~taugen.generators.corpus.genres.workplace.render_to_length`); without one, a session that
        would run past :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens is written
        again with fewer optional items.

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        if not plan.length_words:
            return render_within_budget(self, plan, context)
        agendas = range(1, len(_FILLER_ITEMS) + 2)
        return render_to_length(self, plan, context, [[(shrink, {"agenda": agenda}) for agenda in agendas]
                                                      for shrink in (_BRIEF, 1, 0)])

    def _render(self, plan: ArtifactPlan, context: RenderContext, shrink: int,
                agenda: int | None = None) -> RenderedArtifact:
        """One session. ``agenda`` (planned lengths) fixes how many agenda items it aims at (the rules'
        and mentions' items come first; context items fill up to it); else it draws two to five, less
        ``shrink``, which also makes action items rarer; from :data:`_BRIEF` on, items take no optional
        lines (why an item came up, a concession, an action)."""
        rng = plan.rng(f"meeting-{shrink}" if shrink else "meeting")
        fake = plan.faker(context.config.locale, "meeting-people")
        tz = zone(context)
        bank = context.config.business
        other = counterpart(rng, context) if rng.random() < 0.65 else None
        roles = [(bank, "business")] * rng.randint(2, 3) + ([(other, other.role)] if other is not None else [])
        people = cast(rng, fake, roles, workplace_words(context))
        host, guest = people[0], (people[-1] if other is not None else None)
        staff = [p for p in people if p.org.id == bank.id]
        pace = {p.handle: rng.uniform(135, 172) for p in people}
        start, end = window(plan, tz)
        day = end.date()
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        title = f"{plan.topic_title} {'case review' if variant == 'case_review' else 'working session'}"
        terms = context.vocabulary.common.terms()
        values = {"T": subject_phrase(plan), "title": title, "A": rng.choice(_ASSETS).format(**terms), **terms}

        lines, decisions = self._script(rng, plan, context, day, host, guest, staff, people, values, shrink, agenda)
        cues = self._cues(rng, lines, pace)
        duration = cues[-1].end
        recorded = self._recording_start(rng, in_force_from(plan, start, end), end, duration, day)

        header = [f"Meeting: {title}", f"Organizer: {host.name}, {host.org.name}",
                  f"Recorded: {recorded:%Y-%m-%d %H:%M} ({offset_label(as_local(recorded, tz))})",
                  "Participants: " + "; ".join(f"{p.name} ({p.org.name})" for p in people)]
        body = ["WEBVTT", "", "NOTE", *header, ""]
        for number, cue in enumerate(cues, start=1):
            body += [str(number), f"{cue_clock(cue.start)} --> {cue_clock(cue.end)}",
                     f"<v {_escape(cue.speaker.name)}>{_escape(cue.text)}</v>", ""]
        data = ("\n".join(body)).encode("utf-8")

        words = sum(word_count(c.text) for c in cues)
        speech = sum(c.end - c.start for c in cues)
        decision_meta = []
        for index, decision in enumerate(decisions):
            entry = {"item": decision["item"], "facts": decision["facts"]}
            for number, cue in enumerate(cues, start=1):
                if cue.decision and cue.decision[0] == index and cue.decision[1] not in entry:
                    entry[cue.decision[1]] = number
            decision_meta.append(entry)
        metadata = {
            "variant": variant,
            "participants": [{"name": p.name, "title": p.title, "organisation": p.org.id} for p in people],
            "recorded_at": recorded.isoformat(),
            "duration_seconds": round(duration, 3),
            "words": words,
            "wpm": round(words / speech * 60, 1) if speech else 0.0,
            "cues": len(cues),
            "decisions": decision_meta,
            "timestamp_order": "cues",
        }
        stamps = [plan_frame(recorded + dt.timedelta(seconds=int(c.start)), plan, tz) for c in cues]
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=list(plan.renditions), timestamps=stamps, metadata=metadata)

    @staticmethod
    def _recording_start(rng: random.Random, start: dt.datetime, end: dt.datetime, duration: float,
                         day: dt.date) -> dt.datetime:
        """Start of the recording: in office hours (08:30-17:00) of ``day``, else of the latest weekday
        before it, inside ``[start, end - duration]`` when that fits (``start`` no earlier than the day
        its rules took effect); else ending at ``end`` when that is a weekday (a window from a Sunday to
        08:00 on a Monday: the session runs just before eight on the Monday), else anywhere in the window.
        The session always ends by ``end``."""
        span = dt.timedelta(seconds=int(duration) + 1)
        latest = end - span
        while day >= start.date():
            earliest = max(start, dt.datetime.combine(day, dt.time(8, 30), end.tzinfo))
            latest_office = min(latest, dt.datetime.combine(day, dt.time(17, 0), end.tzinfo))
            if day.weekday() < 5 and latest_office >= earliest:
                seconds = int((latest_office - earliest).total_seconds())
                return earliest + dt.timedelta(seconds=rng.randint(0, seconds))
            day -= dt.timedelta(days=1)
        if latest >= start and latest.weekday() >= 5:
            return start + dt.timedelta(seconds=rng.randint(0, int((latest - start).total_seconds())))
        return latest  # no office hours in the window, or it is shorter than the session: it ends at plan.end

    def _script(self, rng: random.Random, plan: ArtifactPlan, context: RenderContext, day: dt.date,
                host: Colleague, guest: Colleague | None, staff: list[Colleague], people: list[Colleague],
                values: dict, shrink: int = 0, agenda: int | None = None) -> tuple[list[_Line], list[dict]]:
        """The session as utterances, and its decisions (item, facts)."""
        saying = plan.rng("spoken subjects")  # how people say each item's subject (draws of their own)
        lines: list[_Line] = []
        decisions: list[dict] = []
        others = [p for p in people if p is not host]

        def say(speaker: Colleague, *sentences: str, rendition: int | None = None,
                decision: tuple[int, str] | None = None) -> None:
            if rendition is not None:  # index among the sentences actually said
                rendition = sum(1 for s in sentences[:rendition] if s)
            lines.append(_Line(speaker, [s for s in sentences if s], rendition, decision))

        # a topic that ends in the template's own word ('defective items' + ' items') says it once
        say(host, rng.choice(_OPENERS), without_doubled_words(rng.choice(_AGENDA).format(**values)))
        if guest is not None:
            say(host, rng.choice(_GUEST).format(guest=guest.first, org=guest.org.name))
            say(guest, rng.choice(_GUEST_HELLO))

        # One item per rule in force; a rule shown as history is recalled in its successor's item.
        owned = [r for r in plan.renditions if r.status not in CUE_STATUSES]
        remarks = [r for r in plan.renditions if r.status in CUE_STATUSES and r.status != "mention"]  # in passing
        # a mention (a rule named, nothing stated) is an agenda item like a rule's, settled without a value;
        # mentions whose subjects read alike share one item
        mentioned: dict[str, list[Rendition]] = {}
        for r in plan.renditions:
            if r.status == "mention":
                mentioned.setdefault(subject_phrase(plan, r), []).append(r)
        history = {r.fact_id: r for r in owned if shown_as_history(plan, r, day)}
        items: list[tuple[str, list[Rendition]]] = []
        for rendition in sorted(owned, key=lambda r: (r.date, r.fact_id)):
            if rendition.fact_id in history:
                continue
            older = [h for h in history.values() if plan.successor(h.fact_id) is not None
                     and plan.successor(h.fact_id).id == rendition.fact_id]  # type: ignore[union-attr]
            items.append((subject_phrase(plan, rendition), older + [rendition]))
        placed = {r.fact_id for _item, group in items for r in group}
        items += [(subject_phrase(plan, r), [r]) for r in history.values() if r.fact_id not in placed]
        ruled = {i for i, _ in items}
        remarks += [r for item, group in mentioned.items() if item in ruled for r in group]  # said beside the rule
        mentioned = {item: group for item, group in mentioned.items() if item not in ruled}
        for item in mentioned:
            items.insert(rng.randint(0, len(items)), (item, []))
        fillers = list(_FILLER_ITEMS)
        rng.shuffle(fillers)
        wanted = agenda if agenda is not None else rng.randint(2, 5) - shrink  # agenda items, with or without rules
        optional = 0.0 if shrink >= _BRIEF else 1.0  # (every draw is still made: the same stream either way)
        for filler in fillers[:max(wanted - len(items), 0 if items else 2)]:
            items.insert(rng.randint(0, len(items)), (filler[0].format(**values), []))
        filler_by_item = {f[0].format(**values): f for f in fillers}
        remark_after = {id(remark): rng.randrange(len(items)) for remark in remarks}

        for item, renditions in items:
            index = len(decisions)
            decisions.append({"item": item, "facts": [r.fact_id for r in renditions]})
            proposer = rng.choice(others)
            objector = rng.choice([p for p in people if p is not proposer])
            # people say an item's subject their own way each time (a rule's item or another alike)
            said = {key: said_subject(context, saying, item) for key in ("intro", "proposal")}
            intro = rng.choice(_ITEM_INTRO if index else _FIRST_INTRO).format(**dict(values, S=said["intro"]))
            say(host, intro, rng.choice(_ITEM_CONTEXT).format(**values) if rng.random() < optional * 0.6 else "")
            filler = filler_by_item.get(item) if item not in mentioned else None
            if filler is not None:
                proposal, rejection, final = (part.format(**values) for part in filler[1:])
            else:
                pool = _PROPOSALS_SAID_BEFORE if rng.random() < _ANAPHORA_SHARE else _PROPOSALS
                proposal, rejection, final = (rng.choice(pool).format(**dict(values, S=said["proposal"])),
                                              rng.choice(_REJECTIONS), "")
            say(proposer, proposal, decision=(index, "proposal"))
            say(objector, rejection, decision=(index, "rejected"))
            if rng.random() < optional * 0.5:
                say(proposer, rng.choice(_CONCEDE))
            if item in mentioned:
                first, *more = mentioned[item]
                say(host, rng.choice(_FINAL_LEADS), first.text, rendition=1, decision=(index, "final"))
                for mention in more:
                    say(rng.choice(staff), "", mention.text, rendition=1)
            elif not renditions:
                say(host, rng.choice(_FINAL_LEADS), final, decision=(index, "final"))
            for rendition in renditions:
                speaker = host if rng.random() < 0.7 else rng.choice(staff)
                if shown_as_history(plan, rendition, day):
                    lead, tail = history_framing(rng, plan, rendition, day)
                    say(speaker, rng.choice(_HISTORY_ASIDES), join_statement(lead, rendition.text, tail),
                        rendition=1, decision=(index, "final") if rendition is renditions[-1] else None)
                else:
                    say(speaker, rng.choice(_FINAL_LEADS), rendition.text, rendition=1, decision=(index, "final"))
            say(rng.choice([p for p in people if p is not lines[-1].speaker]), rng.choice(_AGREE))
            if rng.random() < optional * 0.6 / (1 + shrink):
                doer = rng.choice(others)
                say(host, rng.choice(_ACTIONS).format(name=doer.first, A=values["A"]))
                say(doer, rng.choice(_ACTION_REPLIES))
            for remark in remarks:
                if remark_after[id(remark)] == index:
                    say(rng.choice(others), rng.choice(_REMARK_LEADS), remark.text, rendition=1)
                    say(host, rng.choice(_REMARK_REPLIES))
        say(host, rng.choice(_CLOSINGS))
        say(rng.choice(others), rng.choice(_BYES))
        return lines, decisions

    @staticmethod
    def _cues(rng: random.Random, lines: list[_Line], pace: dict[str, float]) -> list[_Cue]:
        """Split utterances into cues (a rendition sentence always alone in its cue, with at most its
        lead) and time them at the speaker's pace with natural pauses."""
        cues: list[_Cue] = []
        clock = rng.uniform(0.8, 2.5)
        previous: Colleague | None = None
        for line in lines:
            chunks: list[tuple[str, bool]] = []
            for position, sentence in enumerate(line.sentences):
                is_rendition = line.rendition is not None and position == line.rendition
                if chunks and not is_rendition and not chunks[-1][1] and \
                        word_count(chunks[-1][0]) + word_count(sentence) <= _MAX_CUE_WORDS:
                    chunks[-1] = (f"{chunks[-1][0]} {sentence}", False)
                elif chunks and is_rendition and word_count(chunks[-1][0]) <= 8 and not chunks[-1][1]:
                    chunks[-1] = (f"{chunks[-1][0]} {sentence}", True)
                else:
                    chunks.append((sentence, is_rendition))
            for text, _is_rendition in chunks:
                pause = rng.uniform(0.05, 0.35) if previous is line.speaker else rng.uniform(0.3, 1.4)
                start = clock + (pause if cues else 0.0)
                words = max(word_count(text), 1)
                seconds = max(words / pace[line.speaker.handle] * 60 * rng.uniform(0.94, 1.06), 0.7)
                cue = _Cue(line.speaker, text, round(start, 3), round(start + seconds, 3), line.decision)
                cues.append(cue)
                clock = cue.end
                previous = line.speaker
        return cues

    # ------------------------------------------------------------------------------------------- reading
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Read the ``.vtt`` with :func:`parse_vtt`: the ``NOTE`` header lines (meeting, date,
        participants), a blank line, then one ``[hh:mm:ss] Speaker: text`` line per cue.
        ``author_text`` is not used."""
        parts = []
        for file in files:
            if file.suffix != SUFFIX:
                continue
            notes, cues, _problems = parse_vtt(file.data)
            lines = [f"[{cue_clock(c.start)[:8]}] {c.speaker + ': ' if c.speaker else ''}{c.text}" for c in cues]
            parts.append("\n".join(notes) + "\n\n" + "\n".join(lines))
        return "\n\n".join(parts)

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """One chain per ``.vtt`` (read with :func:`parse_vtt`): the recording start from the ``NOTE`` block
        (``Recorded: YYYY-MM-DD HH:MM (UTC±hh:mm)``, to the minute; without an offset, ``zone``), then each
        cue's start in file order (start + cue offset), then the end of the last cue. Without a recording
        line the cue order is still checked (counted from the Unix epoch)."""
        chains = []
        for file in files:
            if file.suffix != ".vtt":
                continue
            notes, cues, _problems = parse_vtt(file.data)
            recorded = next((match for line in notes if (match := _RECORDED.search(line))), None)
            if recorded is not None:
                local = utc_offset(*recorded.group(5, 6, 7)) if recorded.group(5) else zone
                base = dt.datetime.combine(dt.date.fromisoformat(recorded.group(1)),
                                           dt.time(int(recorded.group(2)), int(recorded.group(3)),
                                                   int(recorded.group(4) or 0)), local)
                chain = [Stamp("the recording start", base, 60)]
            else:
                base, chain = EPOCH, []
            for position, cue in enumerate(cues, start=1):
                chain.append(Stamp(f"cue {cue.identifier or position}", base + dt.timedelta(seconds=cue.start)))
            if cues:
                chain.append(Stamp(f"the end of cue {cues[-1].identifier or len(cues)}",
                                   base + dt.timedelta(seconds=cues[-1].end)))
            chains.append(chain)
        return chains

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """WebVTT structure (W3C WebVTT §4): one ``.vtt`` that starts with ``WEBVTT``; every cue has a
        timing line with start < end and a non-empty payload; cue start times never decrease; cue
        identifiers are unique; every cue names its speaker in a voice span; at least two speakers; no
        speaker overlaps themself; speaking rate over all cues in 110–190 words per minute and no cue
        faster than 320; the recording line (when there is one) on a weekday; every decision in
        ``metadata['decisions']`` has its proposal before its rejection before its final position."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "vtt_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        notes, cues, problems = parse_vtt(files[0].data)
        findings = [error("structure", "vtt_syntax", subject, problem, rule="W3C WebVTT §4.1") for problem in problems]
        if not cues:
            return findings + [error("structure", "no_cues", subject, "the transcript has no cues")]
        identifiers = [c.identifier for c in cues if c.identifier]
        if len(set(identifiers)) != len(identifiers):
            findings.append(error("structure", "duplicate_cue_id", subject, "cue identifiers repeat",
                                  rule="W3C WebVTT §4.1: identifiers are unique"))
        last_end: dict[str, float] = {}
        for position, cue in enumerate(cues):
            label = cue.identifier or str(position + 1)
            if cue.end <= cue.start:
                findings.append(error("structure", "cue_timing", subject, f"cue {label} ends before it starts",
                                      f"{cue_clock(cue.start)} --> {cue_clock(cue.end)}", rule="W3C WebVTT §4.1"))
            if position and cue.start < cues[position - 1].start:
                findings.append(error("structure", "cues_out_of_order", subject,
                                      f"cue {label} starts before the cue above it", rule="W3C WebVTT §4.1"))
            if not cue.speaker:
                findings.append(error("structure", "no_speaker", subject, f"cue {label} has no <v> voice span"))
            elif cue.start < last_end.get(cue.speaker, -1.0) - 1e-6:
                findings.append(error("structure", "speaker_overlap", subject,
                                      f"cue {label} starts before {cue.speaker}'s previous cue ends"))
            if cue.speaker:
                last_end[cue.speaker] = cue.end
            seconds = cue.end - cue.start
            if seconds > 0 and word_count(cue.text) / seconds * 60 > MAX_CUE_WPM:
                findings.append(error("structure", "cue_too_fast", subject,
                                      f"cue {label} runs at {word_count(cue.text) / seconds * 60:.0f} words per minute",
                                      cue.text))
        if len({c.speaker for c in cues if c.speaker}) < 2:
            findings.append(error("structure", "speaker_count", subject, "a meeting needs at least two speakers"))
        recorded = next((match for line in notes if (match := _RECORDED.search(line))), None)
        if recorded is not None and dt.date.fromisoformat(recorded.group(1)).weekday() >= 5:
            findings.append(error("structure", "weekend_meeting", subject,
                                  f"the session was recorded on a {dt.date.fromisoformat(recorded.group(1)):%A}: "
                                  "staff working sessions are held on weekdays", recorded.group(0)))
        words = sum(word_count(c.text) for c in cues)
        speech = sum(max(c.end - c.start, 0.0) for c in cues)
        rate = words / speech * 60 if speech else 0.0
        if not WPM_RANGE[0] <= rate <= WPM_RANGE[1]:
            findings.append(error("structure", "implausible_pace", subject,
                                  f"speech runs at {rate:.0f} words per minute (plausible: "
                                  f"{WPM_RANGE[0]:.0f}-{WPM_RANGE[1]:.0f})", f"{words} words in {speech:.1f} s"))
        for decision in artifact.metadata.get("decisions", []):
            order = [decision.get(step) for step in ("proposal", "rejected", "final")]
            if None in order or order != sorted(order):
                findings.append(error("structure", "decision_sequence", subject,
                                      f"decision on {decision.get('item', '?')!r} lacks a proposal, rejection and "
                                      "final position in that order", repr(order)))
        return findings


__all__ = ["MeetingTranscriptGenre", "parse_vtt", "cue_clock", "word_count", "ParsedCue"]
