"""How a support conversation goes: its turns, who says what when, and when it took place.

:func:`build_conversation` writes a chat or phone conversation for an artifact plan (greeting, identity
check, the customer's reason for contact, the agent's statements of the plan's renditions, holds,
reactions, goodbyes; the lines come from :mod:`~taugen.generators.corpus.genres.support_lines`), labels
its speakers, times its turns and fits it into the plan's window (:func:`choose_start`,
:func:`fit_to_window`). The ``support_transcript`` genre writes the result as a transcript and the
``call_recording`` genre speaks it; both record it with :func:`conversation_metadata`. The small helpers
here (local time zone and clock labels, a fact's subject as a phrase) serve both.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    RenderContext,
    Rendition,
    birth_date,
    fact_subject,
    shown_as_history,
)
from taugen.generators.corpus.genres.support_lines import (
    AGENT_ACKS,
    AGENT_ANYTHING,
    AGENT_LEADS,
    AGENT_LEADS_COMMA,
    AGENT_TAILS,
    CHAT_JOINS,
    CHAT_OPENERS,
    CHAT_WELCOMES,
    CURRENT_AFTER_HISTORY,
    CUSTOMER_DONE,
    CUSTOMER_NO,
    FILLER_ANSWERS,
    FOLLOW_QUESTIONS,
    GENERIC_PAD,
    GENERIC_REASONS,
    GROUNDED_SHARE,
    HISTORY_QUESTIONS,
    HOLD_THANKS,
    HOLDS,
    PEER_ANSWERS,
    PEER_SHARE,
    PHONE_GREETINGS,
    PHONE_NAMED_REPLIES,
    PHONE_REPLIES,
    QUESTION_TAILS,
    QUESTIONS,
    QUESTIONS_NO_SUBJECT,
    REACTIONS,
    VERIFY,
    VERIFY_THANKS,
    history_framing,
    history_line,
    home_region,
    join_statement,
    peer_question,
    pick_line,
    reason_detail,
)
from taugen.generators.corpus.renditions import spoken_subject
from taugen.generators.corpus.stamps import as_local, business_zone
from taugen.text import lower_first, mid_sentence, upper_first

if TYPE_CHECKING:
    from taugen.generators.corpus.genres.support_transcript import (
        SupportTranscriptWords,
    )



SHORT_WORDS = 130
"""A conversation planned at fewer words than this leaves out the identity check and the hold."""
Channel = Literal["chat", "phone"]
Role = Literal["agent", "customer"]
Wait = Literal["", "lookup", "hold"]
WAIT_SECONDS: Mapping[str, Mapping[str, tuple[float, float]]] = MappingProxyType({
    "lookup": MappingProxyType({"phone": (8.0, 35.0), "chat": (30.0, 120.0)}),
    "hold": MappingProxyType({"phone": (45.0, 170.0), "chat": (60.0, 240.0)}),
})
"""Seconds (low, high; drawn uniformly) of quiet after a turn that makes the customer wait, by kind of wait
and channel: ``lookup``, the agent reads the account or types with the customer on the line; ``hold``, the
customer is put on hold while the agent asks a colleague or reads the notes. Contact centres report holds
of about a minute on the calls that have one; before, a recorded call's hold lasted the 0.2-0.7 s pause
between any two turns, and a phone transcript's 15-60 s."""


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
        wait: the quiet that follows the turn (``""``: none beyond the pause between turns; ``lookup``
            or ``hold``: see :data:`WAIT_SECONDS`).
    """

    role: Role
    text: str
    offset: float = 0.0
    end_offset: float = 0.0
    wait: Wait = ""


def wait_seconds(rng: random.Random, wait: Wait, channel: Channel) -> float:
    """Seconds of quiet after a turn whose ``wait`` is ``lookup`` or ``hold`` on ``channel``
    (:data:`WAIT_SECONDS`), drawn from ``rng``; 0.0 for no wait (nothing drawn)."""
    if not wait:
        return 0.0
    low, high = WAIT_SECONDS[wait][channel]
    return rng.uniform(low, high)


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
# Small helpers
# --------------------------------------------------------------------------------------------------

def local_zone(context: RenderContext) -> dt.tzinfo:
    """The business's clock (:func:`~taugen.generators.corpus.stamps.business_zone`)."""
    return business_zone(context.config)




def in_plan_frame(moment: dt.datetime, plan: ArtifactPlan, tz: dt.tzinfo) -> dt.datetime:
    """``moment`` expressed like ``plan.start``: naive local when the plan is naive, else aware."""
    local = as_local(moment, tz)
    return local.replace(tzinfo=None) if plan.start.tzinfo is None else local


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
    conversation_day = _conversation_day(plan, plan.renditions, tz)
    history = {id(r) for r in plan.renditions if shown_as_history(plan, r, conversation_day)}
    ordered = sorted(plan.renditions, key=lambda r: (id(r) not in history, r.date))
    # the reason leads to the first question the customer asks (about the first rule's subject)
    first = plan.facts.get(ordered[0].fact_id) if ordered else None
    reasons = domain_words.reasons_for(plan.topic, getattr(first, "subject", None) or "") or \
        tuple(r.format(topic_l=topic_l) for r in GENERIC_REASONS)
    home = home_region(plan, context)
    reason = rng.choice(reasons)
    reason += reason_detail(plan, context, home, reason)
    daypart_hint = rng.choice(("morning", "afternoon"))
    values = {
        "brand": brand, "agent": agent_first, "customer": f"{customer_first} {customer_last}",
        "customer_first": customer_first, "reason": reason, "Reason": upper_first(reason), "topic_l": topic_l,
        "daypart": daypart_hint,
    }
    casual = channel == "chat" and rng.random() < 0.4  # the customer types in lower case without full stops

    turns: list[Turn] = []

    def say(role: Role, text: str, wait: Wait = "") -> None:
        text = " ".join(text.split())
        if role == "customer" and casual:
            text = mid_sentence(text).rstrip(".")  # "martin Bank told me" keeps the name's capital
        turns.append(Turn(role, text, wait=wait))

    # --- opening -----------------------------------------------------------------------------------
    if channel == "phone":
        greeting = pick_line(rng, PHONE_GREETINGS, brief, limit=80)
        team = plan.rng("phone team").choice(domain_words.phone_teams)
        say("agent", greeting.format(team=team, agent_last=agent_last, **values))
        replies = PHONE_NAMED_REPLIES if "Who am I" in greeting else PHONE_REPLIES
        say("customer", pick_line(rng, replies, brief, limit=80).format(**values))
    else:
        shape = rng.randrange(3)
        if shape == 0:
            say("customer", rng.choice(CHAT_OPENERS).format(**values))
            say("agent", rng.choice(CHAT_JOINS).format(**values))
        elif shape == 1:
            say("agent", rng.choice(CHAT_WELCOMES).format(**values))
            say("customer", rng.choice(CHAT_OPENERS).format(**values))
        else:
            say("agent", f"Hi {customer_first}! You're chatting with {agent_first} from {brand}.")
            say("agent", f"I see your question is about {topic_l}. How can I help?")
            say("customer", upper_first(reason) + ".")

    boundaries: list[int] = []  # places where an unrelated exchange may be inserted
    short = words is not None and words < SHORT_WORDS  # a planned short conversation skips the optional checks
    if not brief and rng.random() < (0.6 if channel == "phone" else 0.3) and not short:
        question, answer = rng.choice(VERIFY)
        say("agent", question)
        city = f"{fake.city()}, {home}" if home else fake.city()  # an address names the customer's state
        say("customer", answer.format(street=fake.street_address(), city=city,
                                      dob=f"{birth_date(fake, context.config.now.date(), 21, 80):%B} "
                                          f"{fake.random_int(1, 28)}", email=fake.free_email()))
        say("agent", rng.choice(VERIFY_THANKS))

    # --- the renditions ----------------------------------------------------------------------------
    superseded_ids = {r.fact_id for r in ordered if id(r) in history}
    replaced_pending = bool(superseded_ids)  # a "what is it now?" follow-up is still natural
    grounding = plan.rng(f"grounded:{channel}")  # a slot's grounded figures, the same draws for every slot
    saying = plan.rng("spoken subjects")  # how the customer says each subject, a rule's or a mention's alike
    spoken = context.vocabulary.words("spoken")
    peers = None
    said_history: set[str] = set()  # each line of the customer's file is read once a conversation
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
            pool = HISTORY_QUESTIONS if subject else ("Was it always like that? I remember it being different.",)
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

                peers = peer_names(plan.faker(context.config.locale, "transcript-peers"), context, 2)
            asked = peer_question(grounding, plan, context, fact, subject, grounding.choice(peers))
        # the agent reads the customer's history off the file before a rule now and then, and always before
        # naming a rule it does not state, so every slot has the same chance of a figure
        mention = rendition.status == "mention"
        note = history_line(grounding, plan, context, fact, conversation_day, brief, said_history) \
            if mention or grounding.random() < GROUNDED_SHARE else ""
        if asked:
            say("customer", asked)
        else:  # every rule answers a question: a section's reasons are too broad to lead to one rule
            if replaces:
                say("customer", pick_line(rng, FOLLOW_QUESTIONS, brief))
            elif subject:
                say("customer", pick_line(rng, QUESTIONS, brief).format(subject=subject))
            else:
                say("customer", rng.choice(QUESTIONS_NO_SUBJECT))
        wait = ""
        if not brief and rng.random() < 0.3 and not short:
            hold, ok, wait = rng.choice(HOLDS)
            say("agent", hold)
            say("customer", ok, wait)
        if asked and rng.random() < 0.6:  # the answer turns from the other organisation's figure to ours
            ack = rng.choice(PEER_ANSWERS)
        else:
            ack = rng.choice(AGENT_ACKS) if rng.random() < 0.7 else ""
        if wait == "hold":  # back from a hold, the agent thanks the customer first
            ack = f"{rng.choice(HOLD_THANKS)} {ack}".strip()
        ack = f"{ack} {note}".strip()
        # a mention already says what the agent will note or send: its tail is a question back
        tail = "" if brief or rng.random() < 0.5 else rng.choice(AGENT_TAILS[:QUESTION_TAILS] if mention
                                                                else AGENT_TAILS)
        text = rendition.text.strip()
        if text[:1].islower():
            statement = join_statement(ack, rng.choice(AGENT_LEADS_COMMA) + text, tail)
        else:
            if replaces and rng.random() < 0.7:
                lead = rng.choice(CURRENT_AFTER_HISTORY)
            elif brief:
                lead = "" if rng.random() < 0.5 else rng.choice(AGENT_LEADS[channel]).format(topic_l=topic_l)
            else:
                lead = rng.choice(AGENT_LEADS[channel]).format(topic_l=topic_l) if rng.random() < 0.75 else ""
            if channel == "chat" and lead and rng.random() < 0.35:  # lead-in sent as its own message
                say("agent", join_statement(ack, lead))
                statement = join_statement("", text, tail)
            else:
                statement = join_statement(f"{ack} {lead}".strip(), text, tail)
        say("agent", statement)
        if rng.random() < (0.35 if brief else 0.65):
            say("customer", pick_line(rng, REACTIONS, brief))

    if not ordered:  # a filler: a plain service exchange on the topic
        say("agent", rng.choice(FILLER_ANSWERS).format(topic_l=topic_l))
        if rng.random() < 0.6:
            say("customer", rng.choice(REACTIONS))

    boundaries.append(len(turns))
    core = turns
    # --- padding exchanges and closing -------------------------------------------------------------
    terms = context.vocabulary.common.terms()
    pads = [((q,), (a,)) for q, a in domain_words.small_talk_by_section.get(plan.topic, ())] + [
        (tuple(q.format(**terms) for q in questions), tuple(a.format(**terms) for a in answers))
        for questions, answers in GENERIC_PAD]
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
        q_text = mid_sentence(question).rstrip(".?") if casual else question
        body[at:at] = [Turn("customer", q_text), Turn("agent", answer)]
        boundaries = [b + 2 if b >= at else b for b in boundaries] + [at + 2]
        words += added
    if body and body[-1].role == closing[0].role:
        closing = _closing(rng, values, body[-1].role, brief, domain_words.goodbyes)
    turns = body + closing
    if channel == "phone":
        turns = merge_same_speaker(turns)
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
    bye = pick_line(rng, goodbyes, brief).format(**values)
    if last_role == "agent":
        return [Turn("customer", pick_line(rng, CUSTOMER_DONE, brief)), Turn("agent", bye)]
    return [Turn("agent", pick_line(rng, AGENT_ANYTHING, brief)), Turn("customer", pick_line(rng, CUSTOMER_NO, brief)),
            Turn("agent", bye)]


def merge_same_speaker(turns: list[Turn]) -> list[Turn]:
    """``turns`` with each run of turns by one speaker joined into one turn (texts a space apart), except
    across a wait: a turn after which the customer waited stays a turn of its own."""
    merged: list[Turn] = []
    for turn in turns:
        if merged and merged[-1].role == turn.role and not merged[-1].wait:
            merged[-1] = Turn(turn.role, f"{merged[-1].text} {turn.text}", wait=turn.wait)
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
    """Estimate each turn's offset from typing (chat) or speaking (phone) pace, with the quiet of each
    wait (:func:`wait_seconds`) after the turn that carries it (the customer's reply agreeing to wait)."""
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
            if index:
                gap += wait_seconds(rng, conversation.turns[index - 1].wait, "chat")
            clock += gap
            turn.offset = round(clock)
            turn.end_offset = turn.offset
        else:
            clock += 0.0 if previous is None else rng.uniform(0.4, 1.6)
            if index:
                clock += wait_seconds(rng, conversation.turns[index - 1].wait, "phone")
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
