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

The conversation builder (:func:`build_conversation`), the transcript formatter
(:func:`render_transcript`) and the turn parsers (:func:`parse_turns`, :func:`check_turns`) are
public so that the ``call_recording`` genre reuses them for its phone calls.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import (
    CUE_STATUSES,
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    birth_date,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.renditions import spoken_subject
from taugen.generators.corpus.stamps import DAY, Chain, Stamp, dates_in_text, utc_offset
from taugen.generators.corpus.vocabulary import (
    GenreVocabulary,
    PairPool,
    Pool,
    register_vocabulary,
)
from taugen.findings import Finding, error

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
SHORT_WORDS = 130
"""A conversation planned at fewer words than this leaves out the identity check and the hold."""
Channel = Literal["chat", "phone"]
Role = Literal["agent", "customer"]

CHAT_TURN = re.compile(r"^\[(\d+)\] (.+?) \((\d{2}):(\d{2})\): (.*)$")
"""A chat turn line: ``[NN] Speaker (HH:MM): text``."""
PHONE_TURN = re.compile(r"^Turn (\d+) \u2014 (.+?): (.*)$")
"""A phone turn line: ``Turn N — Speaker: text``."""


# --------------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------------

@dataclass
class Turn:
    """One turn of a conversation.

    Attributes:
        role: ``agent`` or ``customer``.
        text: what was said or typed (one line, no newlines).
        offset: seconds from the conversation start at which the turn starts.
        end_offset: seconds from the conversation start at which the turn ends (phone: speech end).
    """

    role: Role
    text: str
    offset: float = 0.0
    end_offset: float = 0.0


@dataclass
class Conversation:
    """A conversation between an agent of the business and a customer, before formatting.

    Attributes:
        channel: ``chat`` or ``phone``.
        brand: the business's brand name.
        agent_name / customer_name: (first, last) names.
        agent_label / customer_label: speaker labels used in the transcript lines (never equal).
        case_ref: the contact-centre case reference shown in the header.
        start: conversation start, time-zone aware, in the domain's local offset.
        turns: the turns in order.
        duration: seconds from ``start`` to the end of the conversation.
        topic_title: the section title the conversation is about.
    """

    channel: Channel
    brand: str
    agent_name: tuple[str, str]
    customer_name: tuple[str, str]
    agent_label: str
    customer_label: str
    case_ref: str
    start: dt.datetime
    turns: list[Turn]
    duration: float
    topic_title: str

    @property
    def end(self) -> dt.datetime:
        """Conversation end (``start + duration``), aware."""
        return self.start + dt.timedelta(seconds=round(self.duration))

    def label(self, role: Role) -> str:
        """The transcript label of ``role``."""
        return self.agent_label if role == "agent" else self.customer_label

    def turn_time(self, index: int) -> dt.datetime:
        """Wall-clock start of turn ``index`` (0-based), aware, whole seconds."""
        return self.start + dt.timedelta(seconds=int(self.turns[index].offset))

    def word_count(self) -> int:
        """Words spoken or typed across all turns (white-space separated tokens)."""
        return sum(len(turn.text.split()) for turn in self.turns)

    def rendition_turns(self, renditions: list[Rendition]) -> dict[str, int]:
        """1-based number of the agent turn stating each rendition (fact id → turn number)."""
        found: dict[str, int] = {}
        for rendition in renditions:
            for number, turn in enumerate(self.turns, start=1):
                if turn.role == "agent" and rendition.text in turn.text:
                    found[rendition.fact_id] = number
                    break
        return found


# --------------------------------------------------------------------------------------------------
# The domain's words (a pack's vocabulary.yaml, section support_transcript; calls use them too)
# --------------------------------------------------------------------------------------------------

class SupportTranscriptWords(GenreVocabulary):
    """The ``support_transcript`` section of a pack's ``vocabulary.yaml`` (chats, phone transcripts and
    call recordings share it). No digits and no number words: these lines must never look like a value.

    Attributes:
        phone_teams: the team a phone line belongs to, lower case, in greetings ("card services").
        chat_channels: the chat entry points a transcript's header names ("Live chat (mobile app)").
        goodbyes: the agent's last line; may use ``{customer_first}``, ``{brand}``, ``{daypart}``,
            ``{agent}``, ``{customer}``, ``{topic_l}``.
        reasons_by_section: why customers get in touch, first person, no final stop, by the pack's section
            id ("I think I lost my debit card"); a section without reasons gets generic ones.
        reason_details: a clause appended to the reason that makes it one customer's own (no two customers
            open with the same words): ``{town}``, ``{merchant}`` (a company), ``{relative}`` ("sister"),
            ``{relfirst}`` (their first name), ``{weekday}``, ``{site}`` (CommonWords), ``{site_name}`` (one
            of the business's sites, :attr:`CommonWords.site_names`, else a town), ``{region}`` (where a
            customer lives, :attr:`CommonWords.regions`, else a town).
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
        "reason_details": frozenset({"town", "merchant", "relative", "relfirst", "weekday", "site", "site_name",
                                     "region"})}

    phone_teams: Pool
    chat_channels: Pool
    goodbyes: Pool
    reasons_by_section: dict[str, Pool]
    small_talk_by_section: dict[str, PairPool]
    reason_details: Pool
    verification_item: str = Field(min_length=1)
    never_asked_for: str = Field(min_length=1)
    official_number: str = Field(min_length=1)

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
# Phrase pools (no digits and no number words: generic lines must never look like a policy value)
# --------------------------------------------------------------------------------------------------

_RELATIVES = ("husband", "wife", "son", "daughter", "mother", "father", "brother", "sister", "partner", "aunt")


def home_region(plan: ArtifactPlan, context: RenderContext) -> str:
    """Where the plan's customer lives (one of :attr:`CommonWords.regions`, drawn from a generator of its
    own), or '' when the pack names no region."""
    regions = context.vocabulary.common.regions
    return plan.rng("customer region").choice(regions) if regions else ""


def _reason_detail(plan: ArtifactPlan, context: RenderContext, home: str = "") -> str:
    """A clause that makes one customer's reason for contact their own (a town, one of the business's sites,
    a region other than ``home`` (the customer's own), a merchant, a relative)."""
    rng = plan.rng("reason detail")
    fake = plan.faker(context.config.locale, "reason detail")
    details = context.vocabulary.words("support_transcript").reason_details  # type: ignore[attr-defined]
    common = context.vocabulary.common
    town = fake.city()
    return rng.choice(details).format(
        town=town, merchant=fake.company().replace(",", "").replace(".", ""), relative=rng.choice(_RELATIVES),
        relfirst=fake.first_name(), weekday=rng.choice(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                                        "Saturday", "Sunday")), site=common.site,
        site_name=rng.choice(common.site_names) if common.site_names else town,
        region=rng.choice([r for r in common.regions if r != home] or common.regions) if common.regions else town)


_GENERIC_REASONS = (
    "I have a question about {topic_l}",
    "I was reading about {topic_l} on your website and got confused",
    "I need some help with {topic_l}",
    "I wanted to check something about {topic_l}",
)

# (question variants, answer variants); {online} and {site} are the domain's words (CommonWords)
_GENERIC_PAD: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("Can I do this in the app next time?", "Is this something I can do in the app?"),
     ("Most of it, yes. It's under Help and Support, and you can message us there too.",
      "Yes, the app covers it. Look under Help and Support.",
      "For the most part. If the app can't finish it, it'll point you back to us.")),
    (("Will I get anything in writing about this?", "Can you send me something in writing?"),
     ("I'll send a summary to the secure inbox in {online} once we're done.",
      "Yes, a written summary will be in your secure messages shortly.",
      "Sure, I'll put a note in your secure inbox after this.")),
    (("Is there anything I need to do on my end?", "Do I need to do anything?"),
     ("Not right now. I've added a note to your profile so whoever you speak with next can see what we discussed.",
      "Nothing for now. It's all noted on your profile.",
      "No, you're all set on your side.")),
    (("Do I need to go into a {site} for this?", "Should I stop by a {site}?"),
     ("No, we can take care of it right here.", "Not for this, no.",
      "You can if you'd like, but it isn't necessary.")),
    (("Where can I find this online?", "Is this written down anywhere on your site?"),
     ("It's in the disclosures section of {online}, under Account Services.",
      "Yes, under Disclosures in {online}.",
      "You'll find it in the account documents section once you log in.")),
    (("Can you make a note that I asked about this?", "Could you put a note on my account?"),
     ("Of course, it's on your account notes now.", "Done, I've noted it.",
      "Sure, I've added a note with today's conversation.")),
    (("Is everything else on my account okay?", "While you're in there, does everything else look fine?"),
     ("Yes, I don't see anything else that needs your attention.", "Everything else looks normal.",
      "Yes, nothing else stands out.")),
    (("And if I have more questions later?", "What if something else comes up?"),
     ("Just reach out again and mention this conversation, and we'll pick it up from there.",
      "Contact us any time; the notes from today will be on file.",
      "You can reply to the secure message, or reach us the same way you did today.")),
    (("Sorry, I missed that last part.", "Sorry, could you say that last bit again?"),
     ("No problem at all. I'll also put it in your secure inbox so you have it written down.",
      "Of course. I'll send it in writing too, so you have it.",
      "Sure. You'll also find it in the summary I'm sending you.")),
    (("Thanks for being so patient with me.", "Sorry, I know this is a lot of questions."),
     ("Not at all, that's what I'm here for.", "No need to apologise at all.",
      "Happy to help, take all the time you need.")),
)
_PHONE_GREETINGS = (  # the team a line belongs to varies the greeting, so agents sharing a first name differ
    "Thank you for calling {brand} {team}, this is {agent}. How can I help you today?",
    "{brand} {team}, {agent} speaking. What can I do for you?",
    "Good {daypart}, you've reached {brand} {team}. My name is {agent}. Who am I speaking with?",
    "Hi, thanks for holding. This is {agent} at {brand} {team}. How can I help?",
    "Thanks for calling {brand}. You're speaking with {agent} in {team}. What can I help with?",
    "{brand}, {team}. This is {agent}. How can I help?",
    "Good {daypart}, {brand} {team}, {agent} here. What can I do for you?",
    "You've reached {team} at {brand}. I'm {agent}. How can I help today?",
    "Hi, {agent} with {brand} {team}. Sorry about the wait. What can I help with?",
    "Thanks for your patience. {agent} at {brand} {team}. What's going on today?",
    "{brand}, this is {agent} on the {team} line. How can I help you?",
    "{brand} {team}, {agent} {agent_last} speaking. How can I help?",
    "Thanks for calling {brand}. This is {agent} {agent_last} in {team}. What can I do for you?",
)
_PHONE_REPLIES = (
    "Hi {agent}, it's {customer}. {Reason}.",
    "Hi, yes. {Reason}.",
    "Hello. My name is {customer}, and {reason}.",
    "Yeah, hi, {reason}.",
    "Hi there. So, {reason}.",
    "Good {daypart}. {Reason}, and I was hoping you could help.",
)
_PHONE_NAMED_REPLIES = (
    "This is {customer}. {Reason}.",
    "Hi, it's {customer}. {Reason}.",
    "My name's {customer}. {Reason}.",
)
_CHAT_WELCOMES = (
    "Hello and welcome to {brand} chat. My name is {agent}. What can I help you with today?",
    "Hi there, you're chatting with {agent} from {brand}. How can I help?",
    "Thanks for contacting {brand}. I'm {agent}. What brings you here today?",
)
_CHAT_JOINS = (
    "Hi {customer_first}, thanks for reaching out to {brand}. I'm {agent} and I can help with that.",
    "Hello {customer_first}! {agent} here. I've read your message and I'm happy to help.",
    "Hi {customer_first}, I'm {agent}. Thanks for waiting, let me take a look.",
    "Good {daypart} {customer_first}, this is {agent} with {brand}. I can help with that.",
)
_CHAT_OPENERS = (
    "{Reason}.",
    "Hello, {reason}.",
    "hi, {reason}",
    "Question about {topic_l}: {reason}.",
    "Hi. {Reason}, can someone help?",
)
_VERIFY = (
    ("To start, can you confirm the address we have on file?",
     "Sure, it's {street}, {city}."),
    ("For security, can you verify your date of birth for me?",
     "Yes, it's {dob}."),
    ("I just need to verify you first. What's the email address on your profile?",
     "It's {email}."),
)
_VERIFY_THANKS = (
    "Thank you, you're verified.",
    "Perfect, thanks. That matches.",
    "Great, thank you for confirming.",
    "Got it, thanks.",
)

_QUESTIONS = (
    "What's the {subject}?",
    "Can you tell me about the {subject}?",
    "How does the {subject} work?",
    "And the {subject}? What's the rule there?",
    "I also wanted to ask about the {subject}.",
    "Quick question on the {subject}.",
    "What should I expect for the {subject}?",
)
_QUESTIONS_NO_SUBJECT = (
    "How does that work?",
    "What's the rule on that?",
    "Can you explain how that works?",
    "So what happens in my case?",
)
_HISTORY_QUESTIONS = (
    "Has the {subject} changed? I remember it being different.",
    "I thought the {subject} used to be different. Am I wrong?",
    "Someone told me the {subject} changed recently. What was it before?",
    "Last time I dealt with this the {subject} wasn't the same, was it?",
)
_FOLLOW_QUESTIONS = (
    "So what is it now?",
    "Okay, and how does it work today?",
    "And what's the rule now?",
    "Right. So what applies to me now?",
)
_AGENT_ACKS = (
    "Sure.", "Good question.", "Of course.", "Happy to explain.", "Absolutely.", "Yes, I can help with that.",
    "Let me check that for you.", "Thanks for waiting.", "Okay, I have that in front of me.", "Right.",
)
_AGENT_LEADS = {
    "chat": (
        "Here's how it works.", "I've pulled up our current terms.", "This comes straight from our {topic_l} terms.",
        "I'll paste the exact wording here:", "Per our current schedule:", "I've got the details on my screen.",
    ),
    "phone": (
        "Here's how it works.", "I've pulled up our current terms.", "Let me read you the current terms.",
        "So, going by our {topic_l} terms:", "I've got the details on my screen.", "Per our current schedule:",
    ),
}
_AGENT_LEADS_COMMA = ("So, ", "Right, so ", "Okay, so ", "Yes, ")
_CURRENT_AFTER_HISTORY = (
    "As of now, it's this:", "Today the rule is this:", "Under the current schedule:", "Going forward, this applies:",
)
_QUESTION_TAILS = 5
"""The first tails of :data:`_AGENT_TAILS`: a question back (or an offer), fit after any answer."""
_AGENT_TAILS = (
    "Does that help?", "Does that answer your question?", "I can send that to your secure inbox too if you like.",
    "Let me know if you want me to go over any part of that.", "Is that what you were looking for?",
    # what an agent adds after a rule it states: the words a mention's own line uses
    "I've added a note to your file as well.", "I'll send the details over in writing too.",
    "I'll put that in the summary I send you after this.", "I've noted it on today's call so it's on record.",
)
# A slot's grounded figures (both kinds of slot draw from these, so neither gives the other away): the
# customer quoting another organisation's published figure for the subject, and the agent reading the
# customer's own contact history (a date, a count) off the file. No pool line names a rule of the business.
_PEER_QUESTIONS = (  # the figure is spoken as a rule's voiced value is ("thirty-five dollars")
    "I saw {P} lists {V} for {S}. How does yours compare?",
    "Over at {P}, {S} runs {V}. What is it with you?",
    "{P} told me it comes to {V} for {S}. Is it the same here?",
    "My friend is with {P} and they charge {V} for {S}. What about you?",
    "Heads up, {P} quoted me {V} for {S}. Where are you on that?",
)
_PEER_QUOTES = (  # the customer reads out the peer's own wording: the frame a rule's slot uses, quoted
    '{P}\'s website says: "{Q}" Is it the same with you?',
    'I have a letter from {P} that says "{Q}" How does yours compare?',
    '{P} told me, and I wrote it down: "{Q}" What about here?',
)
_HISTORY_LINES = (  # counts spoken, as a voiced value is
    "I can see you asked about this on {D} as well.",
    "There's a note on your file from {D}, when this came up before.",
    "Your profile shows {N} earlier contacts about this, the last on {D}.",
    "I see this came up on your account on {D} too.",
    "Looking at your file, you called about this on {D}, and again {W} days later.",
    "I can see {N} notes on your profile about this since {D}.",
)
_AMOUNT_LINES = (  # the customer's own transactions, where the subject is priced in a currency
    "I can see the {A} payment from {D} on your account.",
    "Your statement shows {A} going out on {D}.",
    "There's a transaction for {A} on {D} that I can see here.",
)
GROUNDED_SHARE = 0.45
"""Share of rule statements that the agent opens with a line from the customer's own contact history; a
slot that names a rule without stating it (a mention) always gets one when a free figure exists."""
PEER_SHARE = 0.5
"""Share of slots about a comparable subject whose question quotes another organisation's figure."""
_SPOKEN_COUNTS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")


_HISTORY_PAST = (
    "You're right that it changed. Until the new schedule took effect on {date}, it worked like this:",
    "That was the old rule. Before {date}, our terms said:",
    "For reference, the rule before the {date} change was:",
    "Up to {date}, the schedule read:",
    "Yes, there was an update on {date}. Before that:",
    "Good memory. Until {date}, it was:",
)
_HISTORY_TAILS_PAST = ("That no longer applies.", "That's been replaced.", "That's the older version, though.",
                       "But that's history now.", "That's not the case anymore.")
_REACTIONS = (
    "Okay, that makes sense.", "Got it.", "Oh, okay. Good to know.", "Alright, thanks for explaining.", "Okay.",
    "I see.", "That's helpful, thank you.", "Oh wow, okay.", "Fair enough.", "Okay, I can work with that.",
    "Great, that's clearer now.", "Hm, okay.", "Understood.",
)
_HOLDS = (
    ("Let me pull up your account. Bear with me a moment.", "Sure, take your time."),
    ("Give me a moment while I check that.", "No problem."),
    ("I'm just looking that up for you.", "Okay."),
    ("Can you hold briefly while I check?", "Yes, that's fine."),
)
_FILLER_ANSWERS = (
    ("I can help with that. The details for your account are in the {topic_l} part of our disclosures, and I can "
    "walk you through them."),
    ("Okay, I can see what happened there. I've added a note to your account, and you'll get a summary in your "
    "secure inbox."),
    ("Let me take a look. Alright, everything on your account looks in order. It's mostly a matter of where to "
    "find the right option."),
    "Sure. That's handled by our {topic_l} team, and I can start the request for you right now.",
    "Understood. I've opened a request for you, and someone from the {topic_l} team will follow up.",
)
_CUSTOMER_DONE = (
    "Okay, I think that's everything.", "That's all I needed, thanks.", "Great, that covers it.",
    "Perfect. Thanks for your help.", "Alright, that answers my question.",
)
_AGENT_ANYTHING = (
    "Is there anything else I can help you with today?", "Anything else I can do for you?",
    "Can I help with anything else while I have you?", "Is there anything else on your mind?",
)
_CUSTOMER_NO = ("No, that's it. Thanks!", "Nope, that's all.", "No, you've been really helpful.",
                "No, I'm good. Thank you.", "That's everything, thanks.")


# --------------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------------

def local_zone(context: RenderContext) -> dt.tzinfo:
    """The domain's fixed UTC offset, taken from ``context.config.now`` (which must be aware)."""
    tz = context.config.now.tzinfo
    if tz is None:  # pragma: no cover - DomainConfig forbids it
        raise ValueError("config.now must carry a UTC offset")
    return dt.timezone(context.config.now.utcoffset())


def as_local(moment: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """``moment`` as an aware datetime at offset ``tz`` (naive values are taken to be local already)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=tz)
    return moment.astimezone(tz)


def in_plan_frame(moment: dt.datetime, plan: ArtifactPlan, tz: dt.tzinfo) -> dt.datetime:
    """``moment`` expressed like ``plan.start``: naive local when the plan is naive, else aware."""
    local = as_local(moment, tz)
    return local.replace(tzinfo=None) if plan.start.tzinfo is None else local


def offset_label(tz: dt.tzinfo) -> str:
    """``UTC-05:00`` style label of a fixed offset."""
    offset = dt.datetime(2000, 1, 1, tzinfo=tz).utcoffset() or dt.timedelta()
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def clock_12h(moment: dt.datetime) -> str:
    """``2:05 PM`` (no leading zero on the hour)."""
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def long_date(day: dt.date) -> str:
    """``Wednesday, March 11, 2026``."""
    return f"{day:%A}, {day:%B} {day.day}, {day.year}"


def day_part(moment: dt.datetime) -> str:
    """``morning`` / ``afternoon`` / ``evening`` for a local time."""
    return "morning" if moment.hour < 12 else "afternoon" if moment.hour < 17 else "evening"


def lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word is an acronym (``ACH transfers`` stays)."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and first[:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def upper_first(text: str) -> str:
    """Upper-case the first letter."""
    return text[:1].upper() + text[1:]


def fact_subject(plan: ArtifactPlan, rendition: Rendition) -> str | None:
    """The short noun phrase a rendition's fact is about (without a leading article), or None."""
    fact = plan.facts.get(rendition.fact_id)
    subject = getattr(fact, "subject", None) if fact is not None else None
    if not subject:
        return None
    subject = subject.strip()
    value = getattr(fact, "value", None)
    if rendition.status in CUE_STATUSES and value is not None and find_surface_form(value, subject) is not None:
        return None  # a cue never names the value it points away from (a subject may carry a key term)
    for article in ("the ", "The ", "a ", "A ", "an ", "An "):
        subject = subject.removeprefix(article)
    return lower_first(subject)


def spoken_date(day: dt.date) -> str:
    """``March 1, 2026``."""
    return f"{day:%B} {day.day}, {day.year}"


def history_framing(rng: random.Random, plan: ArtifactPlan, rendition: Rendition, when: dt.date) -> tuple[str, str]:
    """Lead-in and tail that frame a superseded rendition as history, as seen on date ``when``.

    Returns ``(lead, tail)``; either may be reused by other genres. Only for a rendition that
    :func:`~taugen.generators.corpus.genre.shown_as_history` on ``when``: the lead names the
    ``effective_from`` of the successor, which has already taken effect.

    Raises:
        ValueError: the rendition is not shown as history on ``when`` (it must then be stated as a
            current rule, with no history framing and no announcement of a coming change).
    """
    if not shown_as_history(plan, rendition, when):
        raise ValueError(f"{rendition.fact_id} is not history on {when}")
    label = spoken_date(plan.successor_effective_date(rendition.fact_id))  # type: ignore[arg-type]
    return rng.choice(_HISTORY_PAST).format(date=label), rng.choice(_HISTORY_TAILS_PAST)


def join_statement(lead: str, text: str, tail: str = "") -> str:
    """``lead`` + the rendition ``text`` verbatim + ``tail``, one space apart (empty parts skipped).

    A full stop is added after ``text`` only when it ends without sentence punctuation and a tail follows.
    """
    parts = [lead.strip()] if lead.strip() else []
    body = text.strip()
    if tail and body and body[-1] not in ".!?\"'":
        body += "."
    parts.append(body)
    if tail.strip():
        parts.append(tail.strip())
    return " ".join(parts)


def _pick(rng: random.Random, pool, brief: bool = False, limit: int = 64):
    """A random pool entry; in ``brief`` mode only entries whose text is at most ``limit`` chars."""
    options = list(pool)
    if brief:
        short = [item for item in options if len(item if isinstance(item, str) else " ".join(item)) <= limit]
        options = short or sorted(options, key=lambda item: len(item if isinstance(item, str) else " ".join(item)))[:1]
    return rng.choice(options)


def _guarded_values(plan: ArtifactPlan, context: RenderContext, fact) -> list:
    """Values a slot's grounded figure must not equal: every value the plan's facts have, and every value
    any version of ``fact``'s subject ever had."""
    from taugen.generators.corpus.genres.benchmarks import avoided_values, values_among

    values = [f.value for f in plan.facts.values() if f.value is not None]
    if fact is not None:
        values += values_among(context, avoided_values(context, fact, plan.facts.values()))
    return values


def _free(line: str, guarded: list) -> bool:
    return not any(find_surface_form(value, line) is not None for value in guarded)


def history_line(rng: random.Random, plan: ArtifactPlan, context: RenderContext, fact, day: dt.date,
                 brief: bool = False) -> str:
    """A line the agent reads off the customer's own file about the slot's subject: an earlier contact's
    date (and a count of them) or, half the time for a subject priced in a currency, one of the customer's
    own transactions (a spoken amount), none equal to a value of the plan's facts or of ``fact``'s subject.
    Returns '' when twenty draws found no free figure."""
    from taugen.authoring.values import MoneyValue

    guarded = _guarded_values(plan, context, fact)
    pool = [line for line in _HISTORY_LINES if not brief or len(line) <= 60] or list(_HISTORY_LINES)
    currency = getattr(getattr(fact, "value", None), "currency", None)
    if currency and rng.random() < 0.5:
        pool = list(_AMOUNT_LINES)
    for _ in range(20):
        earlier = day - dt.timedelta(days=rng.randint(9, 240))
        amount = MoneyValue(amount=f"{rng.randint(8, 480)}.{rng.choice((0, 0, 25, 50, 75, 99)):02d}",
                            currency=currency) if currency else None
        line = rng.choice(pool).format(D=spoken_date(earlier), N=_SPOKEN_COUNTS[rng.randint(2, 6)],
                                       W=_SPOKEN_COUNTS[rng.randint(2, 8)],
                                       A=rng.choice(amount.voiced_forms()) if amount else "")
        if _free(line, guarded):
            return line
    return ""


def peer_question(rng: random.Random, plan: ArtifactPlan, context: RenderContext, fact, subject: str,
                  peer: str) -> str:
    """The customer's question quoting ``peer``'s published figure for ``fact``'s subject (a comparable
    subject: a numeric value of a commercial category, no proper name), half the time in the peer's own
    words (the frame a rule's slot uses, quoted); the figure equals no value any fact on the subject ever
    had nor a value of the plan's facts. '' for any other subject."""
    from taugen.generators.corpus.genres.benchmarks import (
        COMPARABLE_CATEGORIES,
        NUMERIC_TYPES,
        QUOTE_SHARE,
        avoided_values,
        peer_quote,
        peer_value,
        portable,
    )

    if fact is None or not subject or fact.value is None or fact.value.type not in NUMERIC_TYPES \
            or fact.category not in COMPARABLE_CATEGORIES or not portable(subject, context):
        return ""
    avoid = avoided_values(context, fact, plan.facts.values())
    guarded = _guarded_values(plan, context, fact)
    for _ in range(10):
        value = peer_value(rng, fact, avoid)
        line = peer_quote(rng, context, fact, value, peer, True, subject=subject, leads=_PEER_QUOTES) \
            if rng.random() < QUOTE_SHARE else ""
        line = line or rng.choice(_PEER_QUESTIONS).format(P=peer, V=rng.choice(value.voiced_forms()), S=subject)
        if _free(line, guarded):
            return line
        avoid.add(value.canonical())
    return ""


# --------------------------------------------------------------------------------------------------
# Building a conversation
# --------------------------------------------------------------------------------------------------

def build_conversation(plan: ArtifactPlan, context: RenderContext, channel: Channel, *, brief: bool = False,
                       max_turns: int = 30, min_turns: int = 6, genders: tuple[str, str] | None = None,
                       max_words: int | None = None, words: int | None = None) -> Conversation:
    """Build a deterministic agent–customer conversation for ``plan``.

    Args:
        plan: the artifact plan; every rendition's text is placed verbatim in an agent turn; renditions
            shown as history on the conversation's date (:func:`shown_as_history`) first, framed as
            such, then the others ordered by date, each stated as the rule in force.
        context: render context (brand and time zone come from ``context.config``).
        channel: ``chat`` (consecutive turns by the same speaker allowed, typed style) or ``phone``
            (consecutive turns by the same speaker are merged, spoken style).
        brief: prefer short phrasings and few optional turns (used for synthesised calls).
        max_turns / min_turns: bounds on the number of turns (6–30 for transcripts).
        genders: ``(agent, customer)`` as ``"female"``/``"male"`` to pick matching first names.
        max_words: stop adding optional exchanges once the conversation has this many words.
        words: a planned length in words (``plan.length_words``): optional exchanges are added, up to
            ``max_turns`` turns, while they keep the conversation within this many words (it overrides
            ``max_words``; under :data:`SHORT_WORDS` the identity check and holds are left out); a
            conversation whose opening, renditions and closing alone are longer keeps
            them all. None keeps the drawn number of exchanges.

    Returns:
        A :class:`Conversation` with turn offsets (seconds) estimated from word counts and typing or
        speaking pace, and a start time inside ``[plan.start, plan.end]`` leaving room for the whole
        conversation (``Conversation.end <= plan.end``).

    Raises:
        ValueError: ``plan.end`` is before ``plan.start``.
    """
    if plan.end < plan.start:
        raise ValueError(f"{plan.artifact_id}: plan.end is before plan.start")
    rng = plan.rng(f"conversation:{channel}")
    fake = plan.faker(context.config.locale, "people")
    tz = local_zone(context)
    brand = context.config.brand
    agent_gender, customer_gender = genders or (rng.choice(("female", "male")), rng.choice(("female", "male")))
    agent_first = fake.first_name_female() if agent_gender == "female" else fake.first_name_male()
    agent_last = fake.last_name()
    customer_first = fake.first_name_female() if customer_gender == "female" else fake.first_name_male()
    customer_last = fake.last_name()
    if customer_first == agent_first:
        customer_first = fake.first_name_female() if customer_gender == "female" else fake.first_name_male()

    topic = plan.topic_title
    topic_l = lower_first(topic)
    domain_words: SupportTranscriptWords = context.vocabulary.words("support_transcript")  # type: ignore[assignment]
    reasons = domain_words.reasons_by_section.get(plan.topic) or tuple(r.format(topic_l=topic_l) for r in _GENERIC_REASONS)
    home = home_region(plan, context)
    reason = rng.choice(reasons) + _reason_detail(plan, context, home)
    conversation_day = _conversation_day(plan, plan.renditions, tz)
    history = {id(r) for r in plan.renditions if shown_as_history(plan, r, conversation_day)}
    ordered = sorted(plan.renditions, key=lambda r: (id(r) not in history, r.date))
    daypart_hint = rng.choice(("morning", "afternoon"))
    values = {
        "brand": brand, "agent": agent_first, "customer": f"{customer_first} {customer_last}",
        "customer_first": customer_first, "reason": reason, "Reason": upper_first(reason), "topic_l": topic_l,
        "daypart": daypart_hint,
    }
    casual = channel == "chat" and rng.random() < 0.4  # the customer types in lower case without full stops

    turns: list[Turn] = []

    def say(role: Role, text: str) -> None:
        text = " ".join(text.split())
        if role == "customer" and casual:
            text = lower_first(text).rstrip(".")
        turns.append(Turn(role, text))

    # --- opening -----------------------------------------------------------------------------------
    if channel == "phone":
        greeting = _pick(rng, _PHONE_GREETINGS, brief, limit=80)
        team = plan.rng("phone team").choice(domain_words.phone_teams)
        say("agent", greeting.format(team=team, agent_last=agent_last, **values))
        replies = _PHONE_NAMED_REPLIES if "Who am I" in greeting else _PHONE_REPLIES
        say("customer", _pick(rng, replies, brief, limit=80).format(**values))
    else:
        shape = rng.randrange(3)
        if shape == 0:
            say("customer", rng.choice(_CHAT_OPENERS).format(**values))
            say("agent", rng.choice(_CHAT_JOINS).format(**values))
        elif shape == 1:
            say("agent", rng.choice(_CHAT_WELCOMES).format(**values))
            say("customer", rng.choice(_CHAT_OPENERS).format(**values))
        else:
            say("agent", f"Hi {customer_first}! You're chatting with {agent_first} from {brand}.")
            say("agent", f"I see your question is about {topic_l}. How can I help?")
            say("customer", upper_first(reason) + ".")

    boundaries: list[int] = []  # places where an unrelated exchange may be inserted
    short = words is not None and words < SHORT_WORDS  # a planned short conversation skips the optional checks
    if not brief and rng.random() < (0.6 if channel == "phone" else 0.3) and not short:
        question, answer = rng.choice(_VERIFY)
        say("agent", question)
        city = f"{fake.city()}, {home}" if home else fake.city()  # an address names the customer's state
        say("customer", answer.format(street=fake.street_address(), city=city,
                                      dob=f"{birth_date(fake, context.config.now.date(), 21, 80):%B} "
                                          f"{fake.random_int(1, 28)}", email=fake.free_email()))
        say("agent", rng.choice(_VERIFY_THANKS))

    # --- the renditions ----------------------------------------------------------------------------
    superseded_ids = {r.fact_id for r in ordered if id(r) in history}
    replaced_pending = bool(superseded_ids)  # a "what is it now?" follow-up is still natural
    grounding = plan.rng(f"grounded:{channel}")  # a slot's grounded figures, the same draws for every slot
    saying = plan.rng("spoken subjects")  # how the customer says each subject, a rule's or a mention's alike
    spoken = context.vocabulary.words("spoken")
    peers = None
    for index, rendition in enumerate(ordered):
        if index and id(ordered[index - 1]) not in history:  # never between an old rule and its follow-up
            boundaries.append(len(turns))
        subject = fact_subject(plan, rendition)
        if subject:  # customers say a subject as people do, not as the expert wrote it
            said = spoken_subject(subject, spoken, saying)
            fact = plan.facts.get(rendition.fact_id)
            if not (getattr(fact, "value", None) is not None and find_surface_form(fact.value, said)):
                subject = said
        if id(rendition) in history:
            pool = _HISTORY_QUESTIONS if subject else ("Was it always like that? I remember it being different.",)
            say("customer", rng.choice(pool).format(subject=subject))
            lead, tail = history_framing(rng, plan, rendition, conversation_day)
            say("agent", join_statement(lead, rendition.text, tail if rng.random() < 0.8 else ""))
            continue
        fact = plan.facts.get(rendition.fact_id)
        replaces = replaced_pending and (getattr(fact, "supersedes", None) in superseded_ids
                                         or not any(getattr(plan.facts.get(i), "supersedes", None) in superseded_ids
                                                    for i in (r.fact_id for r in ordered)))
        replaced_pending = replaced_pending and not replaces
        asked = ""
        if subject and not replaces and grounding.random() < PEER_SHARE:
            if peers is None:
                from taugen.generators.corpus.genres.benchmarks import peer_names

                peers = peer_names(grounding, plan.faker(context.config.locale, "transcript-peers"), context, 2)
            asked = peer_question(grounding, plan, context, fact, subject, grounding.choice(peers))
        # the agent reads the customer's history off the file before a rule now and then, and always before
        # naming a rule it does not state, so every slot has the same chance of a figure
        mention = rendition.status == "mention"
        note = history_line(grounding, plan, context, fact, conversation_day, brief) \
            if mention or grounding.random() < GROUNDED_SHARE else ""
        if asked:
            say("customer", asked)
        elif index > 0 or rng.random() < 0.5:
            if replaces:
                say("customer", _pick(rng, _FOLLOW_QUESTIONS, brief))
            elif subject:
                say("customer", _pick(rng, _QUESTIONS, brief).format(subject=subject))
            else:
                say("customer", rng.choice(_QUESTIONS_NO_SUBJECT))
        if not brief and rng.random() < 0.3 and not short:
            hold, ok = rng.choice(_HOLDS)
            say("agent", hold)
            say("customer", ok)
        ack = rng.choice(_AGENT_ACKS) if rng.random() < 0.7 else ""
        ack = f"{ack} {note}".strip()
        # a mention already says what the agent will note or send: its tail is a question back
        tail = "" if brief or rng.random() < 0.5 else rng.choice(_AGENT_TAILS[:_QUESTION_TAILS] if mention
                                                                else _AGENT_TAILS)
        text = rendition.text.strip()
        if text[:1].islower():
            statement = join_statement(ack, rng.choice(_AGENT_LEADS_COMMA) + text, tail)
        else:
            if replaces and rng.random() < 0.7:
                lead = rng.choice(_CURRENT_AFTER_HISTORY)
            elif brief:
                lead = "" if rng.random() < 0.5 else rng.choice(_AGENT_LEADS[channel]).format(topic_l=topic_l)
            else:
                lead = rng.choice(_AGENT_LEADS[channel]).format(topic_l=topic_l) if rng.random() < 0.75 else ""
            if channel == "chat" and lead and rng.random() < 0.35:  # lead-in sent as its own message
                say("agent", join_statement(ack, lead))
                statement = join_statement("", text, tail)
            else:
                statement = join_statement(f"{ack} {lead}".strip(), text, tail)
        say("agent", statement)
        if rng.random() < (0.35 if brief else 0.65):
            say("customer", _pick(rng, _REACTIONS, brief))

    if not ordered:  # a filler: a plain service exchange on the topic
        say("agent", rng.choice(_FILLER_ANSWERS).format(topic_l=topic_l))
        if rng.random() < 0.6:
            say("customer", rng.choice(_REACTIONS))

    boundaries.append(len(turns))
    core = turns
    # --- padding exchanges and closing -------------------------------------------------------------
    terms = context.vocabulary.common.terms()
    pads = [((q,), (a,)) for q, a in domain_words.small_talk_by_section.get(plan.topic, ())] + [
        (tuple(q.format(**terms) for q in questions), tuple(a.format(**terms) for a in answers))
        for questions, answers in _GENERIC_PAD]
    rng.shuffle(pads)
    closing = _closing(rng, values, core[-1].role if core else "agent", brief, domain_words.goodbyes)
    if brief:
        target = rng.randint(max(min_turns, len(core) + len(closing)), max(min_turns, len(core) + len(closing), 10))
    else:
        ceiling = max(min_turns + 2, 24 if channel == "chat" else 26)
        target = rng.randint(max(min_turns, len(core) + len(closing)), max(ceiling, len(core) + len(closing)))
    if words is not None:  # the planner gave this conversation its length: exchanges fill it
        target, max_words = max_turns, words
    target = min(target, max_turns)
    words = sum(len(t.text.split()) for t in core + closing)
    body = list(core)
    # insertion points: after the opening, or after an agent turn inside the body
    used_app = False
    while pads and len(body) + len(closing) + 2 <= target:
        questions, answers = pads.pop()
        question, answer = rng.choice(questions), rng.choice(answers)
        if " app" in question:
            if used_app:
                continue
            used_app = True
        if brief:
            answer = answer.split(". ")[0].rstrip(".") + "."
        added = len(question.split()) + len(answer.split())
        if max_words is not None and words + added > max_words:
            break
        at = rng.choice(boundaries)
        q_text = lower_first(question).rstrip(".?") if casual else question
        body[at:at] = [Turn("customer", q_text), Turn("agent", answer)]
        boundaries = [b + 2 if b >= at else b for b in boundaries] + [at + 2]
        words += added
    if body and body[-1].role == closing[0].role:
        closing = _closing(rng, values, body[-1].role, brief, domain_words.goodbyes)
    turns = body + closing
    if channel == "phone":
        turns = _merge_same_speaker(turns)
    if len(turns) > max_turns:
        turns = _trim_optional(turns, plan.renditions, max_turns)

    conversation = Conversation(
        channel=channel, brand=brand, agent_name=(agent_first, agent_last),
        customer_name=(customer_first, customer_last), agent_label="", customer_label="",
        case_ref="", start=dt.datetime.combine(conversation_day, dt.time(9), tz), turns=turns, duration=0.0,
        topic_title=topic,
    )
    _assign_labels(rng, conversation)
    _time_turns(rng, conversation)
    conversation.start = choose_start(plan, tz, rng, conversation_day, conversation.duration, channel)
    prefix = "CHT" if channel == "chat" else "CAL"
    conversation.case_ref = f"{prefix}-{conversation.start:%y%m%d}-{rng.randrange(10_000, 99_999)}"
    # re-personalise the daypart now that the real start time is known
    actual = day_part(conversation.start)
    if actual != daypart_hint:
        for turn in conversation.turns:
            turn.text = turn.text.replace(f"Good {daypart_hint}", f"Good {actual}").replace(
                f"rest of your {daypart_hint}", f"rest of your {actual}").replace(
                f"a good {daypart_hint}", f"a good {actual}")
    return conversation


def _closing(rng: random.Random, values: dict, last_role: Role, brief: bool, goodbyes: tuple[str, ...]) -> list[Turn]:
    bye = _pick(rng, goodbyes, brief).format(**values)
    if last_role == "agent":
        return [Turn("customer", _pick(rng, _CUSTOMER_DONE, brief)), Turn("agent", bye)]
    return [Turn("agent", _pick(rng, _AGENT_ANYTHING, brief)), Turn("customer", _pick(rng, _CUSTOMER_NO, brief)),
            Turn("agent", bye)]


def _merge_same_speaker(turns: list[Turn]) -> list[Turn]:
    merged: list[Turn] = []
    for turn in turns:
        if merged and merged[-1].role == turn.role:
            merged[-1] = Turn(turn.role, f"{merged[-1].text} {turn.text}")
        else:
            merged.append(turn)
    return merged


def _trim_optional(turns: list[Turn], renditions: list[Rendition], max_turns: int) -> list[Turn]:
    """Drop short customer/agent pairs that carry no rendition until at most ``max_turns`` remain."""
    keep = list(turns)

    def carries(turn: Turn) -> bool:
        return any(r.text in turn.text for r in renditions)

    index = len(keep) - 4
    while len(keep) > max_turns and index > 1:
        pair = keep[index:index + 2]
        if len(pair) == 2 and pair[0].role == "customer" and pair[1].role == "agent" \
                and not carries(pair[1]) and index + 2 < len(keep) and keep[index + 2].role == "customer" \
                and keep[index - 1].role == "agent":
            del keep[index:index + 2]
        index -= 1
    if len(keep) > max_turns:
        raise ValueError(f"conversation needs {len(keep)} turns, more than the {max_turns} allowed")
    return keep


def _assign_labels(rng: random.Random, conversation: Conversation) -> None:
    agent, customer = conversation.agent_name[0], conversation.customer_name[0]
    if conversation.channel == "chat":
        agent_label = rng.choice(("Agent", f"{agent} (Agent)", f"Agent {agent}"))
        customer_label = rng.choice(("Customer", customer, "Visitor"))
    else:
        agent_label = rng.choice(("Agent", f"Agent ({agent})", agent))
        customer_label = rng.choice(("Caller", "Customer", customer))
    if agent_label == customer_label or agent_label in customer_label or customer_label in agent_label:
        agent_label, customer_label = "Agent", "Customer"
    conversation.agent_label, conversation.customer_label = agent_label, customer_label


def _time_turns(rng: random.Random, conversation: Conversation) -> None:
    """Estimate each turn's offset from typing (chat) or speaking (phone) pace."""
    clock = 0.0
    previous: Role | None = None
    for index, turn in enumerate(conversation.turns):
        words = len(turn.text.split())
        if conversation.channel == "chat":
            if previous is None:
                gap = 0.0
            elif previous == turn.role:
                gap = rng.uniform(4, 18) + words * 0.4
            elif turn.role == "agent":
                gap = rng.uniform(15, 55) + words * rng.uniform(0.5, 1.2)
            else:
                gap = rng.uniform(10, 45) + words * rng.uniform(1.0, 2.2)
            if "moment" in turn.text or "hold" in turn.text:
                gap += rng.uniform(30, 90)
            clock += gap
            turn.offset = round(clock)
            turn.end_offset = turn.offset
        else:
            clock += 0.0 if previous is None else rng.uniform(0.4, 1.6)
            if previous == "agent" and ("moment" in conversation.turns[index - 1].text
                                        or "hold" in conversation.turns[index - 1].text):
                clock += rng.uniform(15, 60)  # the caller was on hold
            turn.offset = round(clock, 2)
            clock += words / rng.uniform(2.3, 2.9)
            turn.end_offset = round(clock, 2)
        previous = turn.role
    conversation.duration = clock + (rng.uniform(5, 40) if conversation.channel == "chat" else rng.uniform(0.5, 2))


def _conversation_day(plan: ArtifactPlan, renditions: list[Rendition], tz: dt.tzinfo) -> dt.date:
    first, last = as_local(plan.start, tz).date(), as_local(plan.end, tz).date()
    current = [r.date for r in renditions if r.status == "current"] or [r.date for r in renditions]
    if current:
        day = max(current)
    else:
        span = (last - first).days
        day = first + dt.timedelta(days=plan.rng("day").randint(0, max(span, 0)))
    return min(max(day, first), last)


def choose_start(plan: ArtifactPlan, tz: dt.tzinfo, rng: random.Random, day: dt.date, duration: float,
                 channel: str) -> dt.datetime:
    """A start time on ``day`` in service hours so that ``[start, start + duration]`` fits the plan window.

    Chat runs 07:00–21:00, phone 08:00–19:00 local. When the window is narrower than the day, the start
    is clamped into ``[plan.start, plan.end - duration]``; when even that is impossible the start is
    ``plan.start`` (the conversation then overruns ``plan.end`` and the caller must compress it).
    Returns an aware datetime at offset ``tz`` with whole seconds.
    """
    open_hour, close_hour = (7, 21) if channel == "chat" else (8, 19)
    window_start, window_end = as_local(plan.start, tz), as_local(plan.end, tz)
    span = dt.timedelta(seconds=int(duration) + 1)
    earliest = dt.datetime.combine(day, dt.time(open_hour), tz)
    latest = dt.datetime.combine(day, dt.time(close_hour), tz) - span
    earliest, latest = max(earliest, window_start), min(latest, window_end - span)
    if latest < earliest:  # the day's service hours do not fit: use the whole window instead
        earliest, latest = window_start, window_end - span
    if latest < earliest:
        return window_start.replace(microsecond=0)
    seconds = int((latest - earliest).total_seconds())
    start = earliest + dt.timedelta(seconds=rng.randint(0, max(seconds, 0)))
    start = start.replace(microsecond=0)
    return max(start, window_start)


def fit_to_window(conversation: Conversation, plan: ArtifactPlan, tz: dt.tzinfo) -> None:
    """Shift (or, if the window is too short, compress) the conversation so it ends by ``plan.end``."""
    window_start, window_end = as_local(plan.start, tz), as_local(plan.end, tz)
    if conversation.end <= window_end:
        return
    room = (window_end - window_start).total_seconds()
    if room >= conversation.duration + 1:
        conversation.start = (window_end - dt.timedelta(seconds=int(conversation.duration) + 1)).replace(microsecond=0)
        conversation.start = max(conversation.start, window_start)
        return
    conversation.start = window_start
    scale = max(room - 1, 0) / conversation.duration if conversation.duration else 0.0
    for turn in conversation.turns:
        turn.offset *= scale
        turn.end_offset *= scale
    conversation.duration *= scale


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
        start_label=f"{start:%H:%M} ({offset_label(tz)})", start_clock=clock_12h(start),
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
            from taugen.generators.corpus.genres.workplace import token_count  # (workplace imports this module)

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


def conversation_metadata(conversation: Conversation, plan: ArtifactPlan, tz: dt.tzinfo) -> dict:
    """Validator-facing structure of a conversation (JSON-serialisable)."""
    return {
        "case_ref": conversation.case_ref,
        "agent": " ".join(conversation.agent_name),
        "customer": " ".join(conversation.customer_name),
        "speakers": [conversation.agent_label, conversation.customer_label],
        "turns": [
            {"number": n, "role": t.role, "speaker": conversation.label(t.role),
             "at": in_plan_frame(conversation.turn_time(n - 1), plan, tz).isoformat(),
             "offset_s": round(t.offset, 2), "words": len(t.text.split())}
            for n, t in enumerate(conversation.turns, start=1)
        ],
        "rendition_turns": conversation.rendition_turns(plan.renditions),
        "start": in_plan_frame(conversation.start, plan, tz).isoformat(),
        "end": in_plan_frame(conversation.end, plan, tz).isoformat(),
        "duration_s": round(conversation.duration, 2),
        "words": conversation.word_count(),
    }
