"""The support-transcript genre: a customer-support conversation exported as plain text.

Variants:

* ``chat``: a live-chat export. A small header (case reference, channel, date, start time with its
  UTC offset, duration, agent) followed by numbered, timestamped turns::

      [01] Agent (09:14): Hello and welcome to Cedar Ridge Bank chat ...
      [02] Customer (09:15): hi, I have a question about ...

  Turn times are local wall-clock ``HH:MM`` in the domain's time zone; they never decrease.
* ``phone``: a call transcript produced by the contact-centre recorder. Header with call start and
  duration, then numbered turns without clock times::

      Turn 1 — Agent: Thank you for calling Cedar Ridge Bank, this is Maya ...
      Turn 2 — Caller: Hi Maya, ...

The agent states every rendition's text verbatim inside one of its own turns, as an explanation to the
customer. A superseded rendition is framed as history ("until the new schedule took effect on ...")
and placed before the current ones only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the conversation's date (its successor
is in the same conversation and already in force); otherwise it is stated exactly as a current rule,
with no word about a coming change. Fillers (no renditions) are ordinary service
conversations on the topic that state no amounts, rates or day counts.

The conversation itself is built in :mod:`~taugen.generators.corpus.genres.support_conversation`
(from the lines of :mod:`~taugen.generators.corpus.genres.support_lines`); this module writes it as a
transcript and reads transcripts back. The transcript formatter (:func:`render_transcript`), the turn
parsers (:func:`parse_turns`, :func:`check_turns`) and the readers validators use
(:func:`transcript_dates`, :func:`customer_opening`) are public so that the ``call_recording`` genre
reuses them for its phone calls.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from taugen.findings import Finding, error
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
)
from taugen.generators.corpus.genres.support_conversation import (
    Conversation,
    build_conversation,
    clock_12h,
    conversation_metadata,
    fit_to_window,
    in_plan_frame,
    local_zone,
    long_date,
)
from taugen.generators.corpus.stamps import DAY, Chain, Stamp, as_local, dates_in_text, offset_label, utc_offset
from taugen.generators.corpus.vocabulary import (
    GenreVocabulary,
    PairPool,
    Pool,
    register_vocabulary,
)

if TYPE_CHECKING:
    import jinja2


SUFFIX = ".txt"
MIN_TOKENS = 250
MAX_TOKENS = 720
"""A transcript's length in tokens of the delivered text (words and punctuation marks of the header,
turn labels, times and turns, as the realism gate counts them: a chat's times and turn numbers weigh
more than a phone call's labels): the planner stratifies it over the transcripts (``spread_words``) and
:meth:`SupportTranscriptGenre.render` adds or leaves out optional exchanges to reach it (a conversation's opening, renditions and closing are
never left out, and at most 30 turns are written)."""

CHAT_TURN = re.compile(r"^\[(\d+)\] (.+?) \((\d{2}):(\d{2})\): (.*)$")
"""A chat turn line: ``[NN] Speaker (HH:MM): text``."""
PHONE_TURN = re.compile(r"^Turn (\d+) \u2014 (.+?): (.*)$")
"""A phone turn line: ``Turn N — Speaker: text``."""


# --------------------------------------------------------------------------------------------------
# The domain's words (a pack's vocabulary.yaml, section support_transcript; calls use them too)
# --------------------------------------------------------------------------------------------------

_DETAIL_PLACEHOLDERS = frozenset({"town", "merchant", "relative", "relfirst", "weekday", "site", "site_name", "region"})


class ReasonLead(BaseModel):
    """Reasons for getting in touch that lead to rules about one thing: a conversation whose first rule's
    subject contains one of ``about`` (matched at the start of a word whatever its case, so ``reactivat``
    matches "Reactivating" and ``CD`` matches "the 12-month CD yield") opens with one of ``reasons`` (first
    person, no final stop)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    about: Pool
    reasons: Pool

    def leads_to(self, subject: str) -> bool:
        """Whether a rule about ``subject`` is what these reasons lead to."""
        said = subject.lower()
        return any(re.search(r"(?<![a-z0-9])" + re.escape(word.lower()), said) for word in self.about)


class SupportTranscriptWords(GenreVocabulary):
    """The ``support_transcript`` section of a pack's ``vocabulary.yaml`` (chats, phone transcripts and
    call recordings share it). No digits and no number words: these lines must never look like a value.

    Attributes:
        phone_teams: the team a phone line belongs to, lower case, in greetings ("card services").
        chat_channels: the chat entry points a transcript's header names ("Live chat (mobile app)").
        goodbyes: the agent's last line; may use ``{customer_first}``, ``{brand}``, ``{daypart}``,
            ``{agent}``, ``{customer}``, ``{topic_l}``.
        reasons_by_section: why customers get in touch, first person, no final stop, by the pack's section
            id; a section without reasons gets generic ones. A conversation's first question follows its
            reason, so these are the section's broad reasons ("I have a few questions about your fee
            schedule"), for a first rule no lead of ``reason_leads_by_section`` fits.
        reason_leads_by_section: per section id, :class:`ReasonLead` entries (``about``: words of the rules'
            subjects; ``reasons``): a conversation whose first rule's subject has one of a lead's words opens
            with one of that lead's reasons, from the first lead that fits in file order ("I got a letter
            saying my account is inactive" before the dormant account fee; it was once followed by the
            opening deposit for a savings account).
        reason_details: a clause appended to the reason that makes it one customer's own (no two customers
            open with the same words): ``{town}``, ``{merchant}`` (a company), ``{relative}`` ("sister"),
            ``{relfirst}`` (their first name), ``{weekday}``, ``{site}`` (CommonWords), ``{site_name}`` (one
            of the business's sites, :attr:`CommonWords.site_names`, else a town), ``{region}`` (where a
            customer lives, :attr:`CommonWords.regions`, else a town). Each must fit any reason.
        reason_details_by_section: clauses that fit only one section's reasons, drawn beside
            ``reason_details`` for that section (a merchant fits a disputed charge, not a dormant account:
            "I got a letter saying my account is inactive, it was at Hayes-Thompson"); same placeholders.
        small_talk_by_section: ``[customer question, agent answer]`` side exchanges by section id.
        verification_item: what a recorded call's agent asks for to verify the caller, after "Could you
            give me" ("the last four digits of the card on the account"); the caller answers with digits.
        never_asked_for: the secrets the business never asks for by phone, after "We will never ask you for"
            ("your full card number or your online banking password").
        official_number: the number a wary customer should call instead, after "call" ("the number on the
            back of your card").
    """

    placeholders: ClassVar[Mapping[str, frozenset[str]]] = {
        "goodbyes": frozenset({"customer_first", "brand", "daypart", "agent", "customer", "topic_l"}),
        "reason_details": _DETAIL_PLACEHOLDERS, "reason_details_by_section": _DETAIL_PLACEHOLDERS}

    phone_teams: Pool
    chat_channels: Pool
    goodbyes: Pool
    reasons_by_section: dict[str, Pool]
    reason_leads_by_section: dict[str, tuple[ReasonLead, ...]] = {}
    small_talk_by_section: dict[str, PairPool]
    reason_details: Pool
    reason_details_by_section: dict[str, Pool] = {}
    verification_item: str = Field(min_length=1)
    never_asked_for: str = Field(min_length=1)
    official_number: str = Field(min_length=1)

    def reasons_for(self, section: str, subject: str) -> tuple[str, ...]:
        """The reasons a conversation on ``section`` whose first rule is about ``subject`` may open with:
        those of the section's first lead (in file order) whose words the subject has, else the section's
        broad reasons (empty when it has none)."""
        lead = next((lead for lead in self.reason_leads_by_section.get(section, ()) if subject and lead.leads_to(subject)),
                    None)
        return lead.reasons if lead is not None else self.reasons_by_section.get(section, ())

    def call_security_terms(self) -> dict[str, str]:
        """``{verification_item}``, ``{never_asked_for}``, ``{official_number}`` for a call's step wordings."""
        return {"verification_item": self.verification_item, "never_asked_for": self.never_asked_for,
                "official_number": self.official_number}


NEUTRAL_WORDS = SupportTranscriptWords(
    phone_teams=("customer care", "customer service", "account services", "client support", "support"),
    chat_channels=("Live chat (website)", "Live chat (mobile app)", "Web chat"),
    goodbyes=("You're welcome, {customer_first}. Thanks for choosing {brand}.", "Glad I could help. Have a good {daypart}.",
              "Thanks for reaching out, and take care.", "My pleasure. Enjoy the rest of your {daypart}.",
              "Thank you for contacting {brand}. Goodbye!"),
    reasons_by_section={},
    small_talk_by_section={},
    reason_details=(" after a trip to {town}", ", it's about my {relative} {relfirst}'s account",
                    " since last {weekday}, when I was in {town}", ", my {relative} {relfirst} set it up for me",
                    " while I was in {town}", " as I'm moving to {town}", ", and my {relative} {relfirst} is with me"),
    verification_item="the postcode on your account",
    never_asked_for="your full password or a one-time code",
    official_number="the number on our website",
)
register_vocabulary("support_transcript", SupportTranscriptWords, NEUTRAL_WORDS)


# --------------------------------------------------------------------------------------------------
# Formatting and parsing
# --------------------------------------------------------------------------------------------------

def duration_label(seconds: float) -> str:
    """``12 min 05 s`` for 725 seconds."""
    total = round(seconds)
    return f"{total // 60} min {total % 60:02d} s"


def render_transcript(conversation: Conversation, templates: jinja2.Environment, template: str,
                      tz: dt.tzinfo, **extra: object) -> str:
    """Format ``conversation`` through the jinja2 ``template``; returns text ending with a newline.

    The template receives ``brand``, ``case_ref``, ``date_label``, ``start_label`` (``09:14 (UTC-05:00)``),
    ``duration_label``, ``agent_name``, ``customer_name``, ``topic_title`` and ``turns`` (each with
    ``number``, ``label``, ``clock`` (``HH:MM``) and ``text``), plus ``extra``.
    """
    start = conversation.start
    turns = [
        {"number": number, "label": conversation.label(turn.role), "text": turn.text,
         "clock": f"{conversation.turn_time(number - 1):%H:%M}"}
        for number, turn in enumerate(conversation.turns, start=1)
    ]
    text = templates.get_template(template).render(
        brand=conversation.brand, case_ref=conversation.case_ref, date_label=long_date(start.date()),
        start_label=f"{start:%H:%M} ({offset_label(as_local(start, tz))})", start_clock=clock_12h(start),
        duration_label=duration_label(conversation.duration),
        agent_name=" ".join(conversation.agent_name), agent_first=conversation.agent_name[0],
        customer_name=" ".join(conversation.customer_name), topic_title=conversation.topic_title,
        turns=turns, **extra,
    )
    return text.rstrip("\n") + "\n"


@dataclass
class ParsedTurn:
    """A turn read back from a transcript: 1-based ``number``, ``speaker`` label, ``clock`` (chat only)."""

    number: int
    speaker: str
    text: str
    clock: tuple[int, int] | None = None
    line: int = 0


def parse_turns(text: str) -> tuple[list[ParsedTurn], list[tuple[int, str]]]:
    """Read the numbered turns of a transcript (chat or phone shape).

    Returns ``(turns, bad_lines)``: the turns in order, and the ``(line number, line)`` pairs that look
    like a turn (start with ``[`` or ``Turn ``) but do not match either shape.
    """
    turns: list[ParsedTurn] = []
    bad: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        chat = CHAT_TURN.match(line)
        if chat:
            turns.append(ParsedTurn(int(chat.group(1)), chat.group(2).strip(), chat.group(5),
                                    (int(chat.group(3)), int(chat.group(4))), number))
            continue
        phone = PHONE_TURN.match(line)
        if phone:
            turns.append(ParsedTurn(int(phone.group(1)), phone.group(2).strip(), phone.group(3), None, number))
            continue
        if line.startswith(("[", "Turn ")):
            bad.append((number, line))
    return turns, bad


def check_turns(text: str, subject: str, speakers: list[str] | None = None, *, min_turns: int = 2) -> list[Finding]:
    """Structural checks shared by transcript genres.

    Rules: at least ``min_turns`` turns; no malformed turn lines; turn numbers consecutive from 1; every
    turn has a non-empty speaker (one of ``speakers`` when given) and non-empty text; chat clock times
    (``HH:MM``) never decrease.
    """
    findings: list[Finding] = []
    turns, bad = parse_turns(text)
    for line_no, line in bad:
        findings.append(error("structure", "malformed_turn", subject, f"line {line_no} looks like a turn but does "
                              "not match '[NN] Speaker (HH:MM): text' or 'Turn N — Speaker: text'", line))
    if len(turns) < min_turns:
        findings.append(error("structure", "too_few_turns", subject,
                              f"transcript has {len(turns)} turns, expected at least {min_turns}"))
    previous_clock: tuple[int, int] | None = None
    for expected, turn in enumerate(turns, start=1):
        if turn.number != expected:
            findings.append(error("structure", "turn_numbering", subject,
                                  f"turn {expected} is numbered {turn.number} (line {turn.line})",
                                  rule="turn numbers run 1, 2, 3 ... without gaps or repeats"))
            break
    for turn in turns:
        if not turn.speaker:
            findings.append(error("structure", "turn_without_speaker", subject, f"turn {turn.number} has no speaker"))
        elif speakers is not None and turn.speaker not in speakers:
            findings.append(error("structure", "unknown_speaker", subject,
                                  f"turn {turn.number} is by '{turn.speaker}', not one of {speakers}"))
        if not turn.text.strip():
            findings.append(error("structure", "empty_turn", subject, f"turn {turn.number} is empty"))
        if turn.clock is not None:
            if previous_clock is not None and turn.clock < previous_clock:
                findings.append(error("structure", "time_goes_back", subject,
                                      f"turn {turn.number} at {turn.clock[0]:02d}:{turn.clock[1]:02d} is earlier "
                                      f"than the turn before it", rule="turn times never decrease"))
            previous_clock = turn.clock
    return findings


_START_CLOCK = re.compile(r"^[A-Z][A-Za-z ]*: (\d{1,2}):(\d{2}) \(UTC([+-])(\d{2}):(\d{2})\)[ \t]*$", re.MULTILINE)
"""A header line giving a start clock with its offset: ``Started: 17:49 (UTC-05:00)``, ``Call start: ...``."""


def transcript_dates(text: str, zone: dt.tzinfo) -> list[Chain]:
    """The dated chain of a transcript's ``text``: the header's start (``Date:`` day plus the ``HH:MM
    (UTC±hh:mm)`` start clock, or the day alone), then every timed turn (``[NN] Speaker (HH:MM): ...``,
    read with :func:`parse_turns`) on that day, to the minute. A clock without a stated offset takes
    ``zone``. A conversation does not cross midnight: a clock going back is an error. No chain when the
    header has no date."""
    head = text.split("\n\n", 1)[0]
    day_line = re.search(r"^Date: (.+)$", head, re.MULTILINE)
    days = dates_in_text(day_line.group(1)) if day_line else []
    if not days:
        return []
    clock = _START_CLOCK.search(head)
    local = utc_offset(*clock.group(3, 4, 5)) if clock else zone
    if clock:
        chain = [Stamp("the start time", dt.datetime.combine(days[0], dt.time(int(clock.group(1)), int(clock.group(2))),
                                                              local), 60)]
    else:
        chain = [Stamp("the date", dt.datetime.combine(days[0], dt.time(), local), DAY)]
    turns, _bad = parse_turns(text)
    for turn in turns:
        if turn.clock is not None:
            try:
                moment = dt.datetime.combine(days[0], dt.time(*turn.clock), local)
            except ValueError:
                continue
            chain.append(Stamp(f"turn {turn.number}", moment, 60))
    return [chain]


def _is_agent(speaker: str) -> bool:
    lowered = speaker.lower()
    return "agent" in lowered or lowered.startswith(("advisor", "representative", "bank"))


def customer_opening(text: str) -> str | None:
    """The first turn of a chat or phone transcript not spoken by the agent, or None."""
    turns, _bad = parse_turns(text)
    for turn in turns:
        if not _is_agent(turn.speaker):
            return turn.text
    return None


# --------------------------------------------------------------------------------------------------
# The genre
# --------------------------------------------------------------------------------------------------

@register_genre
class SupportTranscriptGenre(Genre):
    """A chat or phone support conversation between an agent of the business and a customer, as a ``.txt`` export.

    Delivered file: one UTF-8 ``.txt`` (see the module docstring for both shapes). ``metadata`` holds
    ``variant``, ``case_ref``, ``agent``, ``customer``, ``speakers`` (labels), ``turns`` (number, role,
    speaker, ISO time), ``rendition_turns`` (fact id → turn number), ``start``, ``end`` and
    ``duration_s``. ``timestamps`` are the turn times (chat) or call start and end (phone).
    """

    name = "support_transcript"
    reference_kinds = MappingProxyType({"": "case_file"})
    affinity = (("money", "chat", 2), ("money", "phone", 1), ("percent", "chat", 1), ("cap", "phone", 1),
                ("count", "chat", 1), ("duration", "phone", 2), ("enum", "chat", 1), ("boolean", "chat", 2),
                ("text", "chat", 1), ("text", "phone", 1), ("none", "chat", 1))
    voiced = True
    label = "Support transcript"
    max_facts = 3
    mention_audience = "customer"
    """The agent names rules in passing to the customer, never in words staff say to each other."""
    variants = ("chat", "phone")
    spread_words = (MIN_TOKENS, MAX_TOKENS)
    """Planned lengths in tokens of the delivered text (:data:`MIN_TOKENS`, :data:`MAX_TOKENS`)."""
    preferred_cue_host = True
    """An agent's generic lines state no values: pointers and caveats go here first."""

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """A conversation lasts 6 to 28 minutes."""
        return dt.timedelta(minutes=rng.randint(6, 28))

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Render ``plan`` as a transcript; deterministic for a given plan.

        Raises:
            ValueError: ``plan.variant`` is not ``chat``/``phone`` (empty means ``chat``), or the plan
                window is inverted.
        """
        variant = plan.variant or self.variants[0]
        if variant not in self.variants:
            raise ValueError(f"{plan.artifact_id}: support_transcript variant must be one of {self.variants}, "
                             f"not '{variant}'")
        tz = local_zone(context)
        template = f"support_transcript/{variant}.txt.j2"
        domain_words: SupportTranscriptWords = context.vocabulary.words(self.name)  # type: ignore[assignment]
        channel_label = plan.rng("channel").choice(
            domain_words.chat_channels if variant == "chat" else ("Phone (inbound)", "Phone (inbound, customer care line)",
                                                           "Phone"))
        agent_id = plan.rng("agent_id").randrange(1000, 9999)

        def write(words: int | None) -> tuple[Conversation, str]:
            conversation = build_conversation(plan, context, variant, words=words)  # type: ignore[arg-type]
            fit_to_window(conversation, plan, tz)
            return conversation, render_transcript(conversation, context.templates, template, tz,
                                                   channel_label=channel_label, agent_id=agent_id)

        if plan.length_words:
            from taugen.generators.corpus.genres.workplace import (
                token_count,  # (workplace imports this module)
            )

            # The planned length counts the whole transcript in tokens (header, turn labels and times);
            # the conversation's own words are aimed at it in up to three passes, keeping the closest.
            aim, best = plan.length_words // 2, None
            for _ in range(3):
                conversation, text = write(max(aim, 1))
                miss = plan.length_words - token_count(text)
                if best is None or abs(miss) < abs(best[0]):
                    best = (miss, conversation, text)
                if abs(miss) <= 8:
                    break
                aim += miss * len(text.split()) // max(token_count(text), 1)  # tokens to words
            _miss, conversation, text = best  # type: ignore[misc]
        else:
            conversation, text = write(None)
        if variant == "chat":
            stamps = [conversation.turn_time(i) for i in range(len(conversation.turns))]
        else:
            stamps = [conversation.start, conversation.end]
        metadata = conversation_metadata(conversation, plan, tz)
        metadata["variant"] = variant
        return RenderedArtifact(
            plan=plan, files=[RenderedFile(SUFFIX, text.encode("utf-8"))], author_text=text,
            renditions=list(plan.renditions), timestamps=[in_plan_frame(s, plan, tz) for s in stamps],
            metadata=metadata,
        )

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """The delivered ``.txt`` decoded as UTF-8 (a plain-text transcript is its own reader)."""
        chosen = [f for f in files if f.suffix in (".txt", ".md")] or files
        return "\n".join(f.data.decode("utf-8") for f in chosen)

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """The chain :func:`transcript_dates` reads from the delivered text."""
        return transcript_dates(self.extract_text(files, author_text), zone)

    def customer_opening(self, text: str) -> str | None:
        """See :func:`customer_opening`."""
        return customer_opening(text)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure checks: file decodes as UTF-8, has a header (case reference, date), turns numbered
        1..N consecutively, each with a known speaker and text, chat times non-decreasing, and the turn
        count agrees with ``metadata['turns']``."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix in (".txt", ".md")]
        if len(files) != 1:
            return [error("structure", "file_count", subject, f"expected one .txt file, found {len(files)}")]
        try:
            text = files[0].data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return [error("structure", "not_utf8", subject, f"transcript is not UTF-8: {exc}")]
        findings: list[Finding] = []
        for key in ("Case reference:", "Date:"):
            if key not in text.split("\n\n", 1)[0]:
                findings.append(error("structure", "missing_header", subject, f"header line '{key}' is missing"))
        speakers = artifact.metadata.get("speakers")
        findings += check_turns(text, subject, speakers)
        expected = len(artifact.metadata.get("turns", []))
        found = len(parse_turns(text)[0])
        if expected and found != expected:
            findings.append(error("structure", "turn_count", subject,
                                  f"transcript has {found} turns but metadata lists {expected}"))
        return findings
