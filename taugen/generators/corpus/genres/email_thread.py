"""The email-thread genre: a thread between staff of two organisations, exported as one ``.eml``.

The delivered file is a single Internet message (RFC 5322) as a mail client exports the newest message
of a thread: its body holds the newest message's own text on top and every earlier message quoted
below it, newest first, the way the replying person's client quoted it:

* Outlook style: a ``-----Original Message-----`` block with ``From:``/``Sent:``/``To:``/``Cc:``/
  ``Subject:`` lines, the older text unprefixed (forwards use the same block);
* Gmail style: ``On Tue, Mar 10, 2026 at 2:14 PM Name <address> wrote:`` and ``> ``-prefixed lines
  (forwards: a ``---------- Forwarded message ---------`` block);
* Apple Mail (mobile) style: ``On Mar 10, 2026, at 2:14 PM, Name <address> wrote:`` and ``> `` lines,
  the reply signed ``Sent from my iPhone``.

Each organisation's staff use one client (chosen stably from the organisation id); short replies are
sometimes sent from a phone. The top message carries ``Message-ID``, ``In-Reply-To`` (the parent's id)
and ``References`` (every earlier id, oldest first), as RFC 5322 §3.6.4 prescribes for replies; the
whole chain (ids, parents, dates, senders, subjects) is recorded in ``metadata['messages']``.

Message-IDs are ``<hex.hex@domain>`` made from the plan's random generator (``email.utils.make_msgid``
would use the wall clock and the global random generator). Dates use the domain's UTC offset from
``config.now`` and ``email.utils.format_datetime`` (RFC 5322 §3.3). The body is ``text/plain;
charset=utf-8`` sent ``7bit`` when ASCII, else ``8bit`` (RFC 2045 §2.7–2.8), with paragraphs kept on one
line (under the 998-octet limit of RFC 5322 §2.1.1) so that no sentence is broken by quoting.

Carriers and fillers come from one process: every thread draws how many *slots* it has; the
renditions (rules, and rules the planner names in passing) take theirs and grounded sentences about
other subjects of the topic take the rest (see
:func:`~taugen.generators.corpus.genres.benchmarks.grounded_slots`: how often customers asked, a
working note), so a thread without a rule is written by the same code, with the same openers, leads,
tails, requests and subject lines, as one with rules. Now and then a message adds what other
organisations publish for its slot's subject, and a business opener how the subject came up with customers,
beside a rule or not alike.

Renditions sit in staff paragraphs of the message dated on (or nearest to) the rendition's date;
superseded ones sit in older messages than current ones. A superseded rendition is framed as history
only when :func:`~taugen.generators.corpus.genre.shown_as_history` holds on its message's date (the
successor is in the thread and already in force); otherwise it is written exactly as a current rule,
with no word about a coming change. ``timestamps``
are the message dates in thread order (oldest first), which is the reverse of their order on the
page: a client export puts the newest message on top.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, formataddr, parsedate_to_datetime
from itertools import pairwise
from typing import TYPE_CHECKING, Literal

from taugen.generators.corpus.genre import ArtifactPlan, Genre, RenderContext, RenderedArtifact, RenderedFile, Rendition, register_genre, shown_as_history
from taugen.hashing import stable_seed
from taugen.generators.corpus.genres.benchmarks import (
    GroundedSlot,
    comparison,
    grounded_sentences,
    grounded_slots,
    plan_peers,
)
from taugen.generators.corpus.genres.email_lines import (
    AREA_CODES,
    ASKS,
    CLOSERS,
    FILLER_MIDDLE,
    FILLER_SCENARIOS,
    FORWARD_NOTES,
    GREETINGS,
    GREETINGS_GROUP,
    HISTORY_PAST,
    HISTORY_TAILS_PAST,
    INTERNAL_ASKS,
    LEADS_LIST,
    LEADS_OWN,
    LEADS_RESTATED,
    MAILERS,
    MOBILE_REPLIES,
    NOTE_LINES,
    OPENERS,
    OPENER_CONTEXT,
    PEER_LINES,
    PHONE_LABELS,
    PROGRESS,
    QA,
    REQUESTS,
    SIGNOFFS,
    TAILS,
    VOLUME_LINES,
    acks_after,
)
from taugen.generators.corpus.genres.email_schedule import schedule
from taugen.generators.corpus.genres.workplace import said_subject
from taugen.generators.corpus.prose import without_doubled_words
from taugen.generators.corpus.stamps import MONTH_NUMBER, Chain, Stamp, aware, business_zone
from taugen.generators.corpus.vocabulary import (
    GenreVocabulary,
    Pool,
    RolePools,
    register_vocabulary,
)
from taugen.findings import Finding, error
from taugen.text import lower_first, mid_sentence

if TYPE_CHECKING:
    from taugen.authoring.models import Organisation

SUFFIX = ".eml"
MAX_LINE_OCTETS = 998
"""RFC 5322 §2.1.1: a line is at most 998 octets, excluding CRLF."""
Style = Literal["outlook", "gmail", "apple"]
_REPLY_PREFIX = re.compile(r"^(re|aw|sv)\s*:\s*", re.IGNORECASE)
_QUOTE_MARKERS = ("-----Original Message-----", "---------- Forwarded message ---------",
                  "Begin forwarded message:")
_WROTE = re.compile(r"^(?:> ?)*On .+ wrote:$", re.MULTILINE)


# --------------------------------------------------------------------------------------------------
# People and messages
# --------------------------------------------------------------------------------------------------

@dataclass
class Person:
    """A member of staff: names, address, job title, organisation, phone and signature habits."""

    first: str
    last: str
    email: str
    title: str
    org: Organisation
    phone: str
    signoff: str = "Thanks,"
    signature_shape: int = 0

    @property
    def name(self) -> str:
        """``First Last``."""
        return f"{self.first} {self.last}"

    @property
    def address(self) -> str:
        """``First Last <first.last@domain>`` (RFC 5322 §3.4 name-addr)."""
        return formataddr((self.name, self.email))


@dataclass
class ThreadMessage:
    """One message of the thread before quoting.

    Attributes:
        index: position in the thread, 0 = oldest.
        sender / to / cc: the people.
        date: aware local datetime, whole seconds.
        message_id: ``<...@domain>``.
        subject: the subject line as sent.
        style: the sender's client (decides how this message quotes its parent).
        kind: ``new``, ``reply`` or ``forward``.
        text: the message's own text (greeting, paragraphs, sign-off, signature).
        renditions: renditions stated in this message's own text.
        slots: what the message states in a rule's place: its renditions and grounded sentences.
    """

    index: int
    sender: Person
    to: list[Person]
    cc: list[Person]
    date: dt.datetime
    message_id: str = ""
    subject: str = ""
    style: Style = "outlook"
    kind: str = "reply"
    text: str = ""
    renditions: list[Rendition] = field(default_factory=list)
    slots: list[Rendition | GroundedSlot] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# The domain's words (a pack's vocabulary.yaml, section email_thread); the phrase pools are in email_lines
# --------------------------------------------------------------------------------------------------

_COUNTERPART_TITLES = {  # the business's own staff titles are the domain's: EmailThreadWords.business_titles
    "vendor": ("Client Relationship Manager", "Implementation Consultant", "Senior Account Manager",
               "Configuration Analyst", "Client Success Lead", "Product Operations Specialist"),
    "partner": ("Senior Compliance Consultant", "Regulatory Compliance Manager", "Engagement Manager",
                "Compliance Analyst", "Principal, Consumer Compliance"),
}


class EmailThreadWords(GenreVocabulary):
    """The ``email_thread`` section of a pack's ``vocabulary.yaml``: the domain's words in a thread.

    Attributes:
        business_titles: job titles of the business's own staff in signatures ("Card Services Manager").
        assets: what a thread is about, by the counterpart's role ({A} in the phrase pools): the
            business's own documents, a vendor's configurable screens and files, a partner's reviews.
    """

    business_titles: Pool
    assets: RolePools


NEUTRAL_WORDS = EmailThreadWords(
    business_titles=("Operations Manager", "Customer Operations Lead", "Senior Product Manager", "Compliance Officer",
                     "Customer Care Team Lead", "VP, Operations", "Policy and Procedures Analyst",
                     "Head of Customer Operations"),
    assets=RolePools(
        business=("the internal procedures page", "the front-line reference guide", "the contact-centre scripts"),
        vendor=("the fee table in the billing platform", "the IVR prompts", "the customer notice template",
                "the agent knowledge base", "the case intake screens", "the online help pages"),
        partner=("the disclosure review", "the procedures binder", "the annual policy attestation",
                 "the agent training deck", "the complaint-handling procedure"),
    ),
)
register_vocabulary("email_thread", EmailThreadWords, NEUTRAL_WORDS)


def _titles(words: EmailThreadWords, role: str) -> tuple[str, ...]:
    """Staff titles of one side: the domain's for the business, generic ones for a vendor or partner."""
    return _COUNTERPART_TITLES.get(role, words.business_titles)


# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------

def _tz(context: RenderContext) -> dt.tzinfo:
    return business_zone(context.config)


def _aware(moment: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    return moment.replace(tzinfo=tz) if moment.tzinfo is None else moment.astimezone(tz)


def _plan_frame(moment: dt.datetime, plan: ArtifactPlan, tz: dt.tzinfo) -> dt.datetime:
    local = _aware(moment, tz)
    return local.replace(tzinfo=None) if plan.start.tzinfo is None else local


def _clock(moment: dt.datetime) -> str:
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def _spoken_date(day: dt.date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _org_style(org: Organisation) -> Style:
    """The mail client an organisation's staff use (stable per organisation id)."""
    return ("outlook", "gmail")[stable_seed("mail-client", org.id) % 2]


def _address_for(org: Organisation, first: str, last: str) -> str:
    """The organisation's address convention (stable per organisation id): first.last, flast, ..."""
    first_clean = re.sub(r"[^a-z]", "", first.lower())
    last_clean = re.sub(r"[^a-z]", "", last.lower())
    shape = stable_seed("mail-address", org.id) % 4
    local = (f"{first_clean}.{last_clean}", f"{first_clean[:1]}{last_clean}", f"{first_clean}{last_clean[:1]}",
             f"{first_clean}_{last_clean}")[shape]
    return f"{local}@{org.email_domain}"


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` filled with ``values``, a word a slot repeats kept once ("open {T} items" about the
    topic "defective items" is "open defective items", not "defective items items")."""
    return without_doubled_words(template.format(**values))


def _quote_lines(text: str) -> str:
    """Prefix every line with ``> `` (``>`` alone on empty lines), as RFC 3676-style clients quote."""
    return "\n".join(f"> {line}" if line and not line.startswith(">") else f">{line}" if line else ">"
                     for line in text.split("\n"))


def _join(lead: str, text: str, tail: str) -> str:
    body = text.strip()
    if tail and body and body[-1] not in ".!?\"'":
        body += "."
    return " ".join(part for part in (lead.strip(), body, tail.strip()) if part)


# --------------------------------------------------------------------------------------------------
# The genre
# --------------------------------------------------------------------------------------------------

@register_genre
class EmailThreadGenre(Genre):
    """An email thread (2–6 messages) between two organisations, delivered as one RFC 5322 ``.eml``.

    ``metadata``: ``messages`` (oldest first; each ``message_id``, ``in_reply_to``, ``references``,
    ``date`` (ISO 8601 with offset), ``from``, ``from_name``, ``organisation``, ``to``, ``cc``,
    ``subject``, ``kind``, ``style``, ``facts`` stated), ``organisations`` (the two ids), ``subject``
    (the top message's) and ``timestamp_order`` = ``"thread"`` (timestamps are oldest first while the
    page shows newest first).
    """

    name = "email_thread"
    reference_kinds = MappingProxyType({"": "email"})
    affinity = (("money", "", 3), ("percent", "", 2), ("cap", "", 2), ("count", "", 2), ("duration", "", 3),
                ("date", "", 3), ("enum", "", 2), ("boolean", "", 2), ("text", "", 2), ("none", "", 2))
    voiced = True
    label = "Email thread"
    max_facts = 4
    grounded_fillers = True
    """Slots that hold no rule hold grounded sentences (peers' published figures, customers' questions)."""
    preferred_cue_host = True
    """Generic lines of a thread state no values: pointers and caveats go here first."""
    business_days = True
    """Staff and their vendors and partners write on weekdays: a thread's day (the one its rules are stated
    on) moves off a weekend, and :func:`~taugen.generators.corpus.genres.email_schedule.schedule` keeps the
    other messages in office hours. On the day alone, 63 of seed 0's 256 partner threads were dated on a
    Saturday or Sunday."""

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """A thread runs 1 to 9 days and some minutes, first message to last."""
        return dt.timedelta(days=rng.randint(1, 9), minutes=rng.randint(5, 600))

    # ---------------------------------------------------------------------------------------------- render
    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Render the thread; deterministic for a given plan.

        Raises:
            ValueError: more renditions than ``max_facts``, or a window too short for the messages.
        """
        if len(plan.renditions) > self.max_facts:
            raise ValueError(f"{plan.artifact_id}: email_thread holds at most {self.max_facts} facts")
        rng = plan.rng("thread")
        fake = plan.faker(context.config.locale, "people")
        tz = _tz(context)
        config = context.config
        business = config.business
        others = [org for org in config.organisations if org.id != business.id]
        other = rng.choice(others) if others else business
        other_role = other.role if other is not business else "business"

        domain_words: EmailThreadWords = context.vocabulary.words(self.name)  # type: ignore[assignment]
        people_business = [self._person(rng, fake, business, _titles(domain_words, "business")) for _ in range(2)]
        people_other = [self._person(rng, fake, other, _titles(domain_words, other_role)) for _ in range(2)]
        if people_other[0].email == people_business[0].email:  # only one organisation: different people anyway
            people_other = [self._person(rng, fake, other, _titles(domain_words, other_role)) for _ in range(2)]
        for pair, role in ((people_business, "business"), (people_other, other_role)):
            if pair[0].title == pair[1].title:  # colleagues hold different jobs
                titles = [t for t in _titles(domain_words, role) if t != pair[0].title]
                pair[1].title = rng.choice(titles)

        start, end = _aware(plan.start, tz), _aware(plan.end, tz)
        groups = self._groups(rng, plan)
        # Every thread has a number of slots drawn alike; the rules (and rules named in passing) take
        # theirs and grounded sentences about other subjects of the topic fill the rest, now and then one
        # more: a thread without a rule has as many slots as one with rules, written the same way.
        # The draw runs high enough that a carrier's rules and mention seldom pass it, so threads with and
        # without rules are as long; at most five slots, so a forwarded thread keeps to six messages.
        wanted = max(rng.choice((2, 3, 3, 4, 4)) - len(groups), 0) + int(rng.random() < 0.25)
        wanted = max(0, min(wanted, 5 - len(groups)))
        grounded = self._grounded(rng, plan, context, wanted, start.date())
        for group in grounded:  # keep the rules in date order, grounded slots anywhere among them
            groups.insert(rng.randint(0, len(groups)), group)
        forward = bool(groups) and rng.random() < 0.2
        # a thread without a slot runs as long as one with slots, so its length says nothing about that
        size = len(groups) if groups else rng.choice((1, 2, 2, 3, 3))
        least = max(2, size + (1 if forward else 0), 3 if forward else 2)
        count = rng.randint(least, max(least, min(6, least + rng.choice((0, 1, 1, 2, 3)))))
        if forward:  # the internal note states the first group; the forward (message 1) states nothing new
            carriers = [0] + sorted(rng.sample(range(2, count), len(groups) - 1))
        else:
            carriers = sorted(rng.sample(range(count), len(groups)))
        group_at = dict(zip(carriers, groups, strict=True))

        anchors = {index: group[0].date for index, group in group_at.items() if isinstance(group[0], Rendition)}
        times = schedule(rng, count, start, end, anchors)

        messages = self._cast(rng, count, forward, people_business, people_other, times)
        values = {
            "T": lower_first(plan.topic_title), "Title": plan.topic_title,
            "A": rng.choice(domain_words.assets.for_role(other_role)),
            # the thread's subject as people write it in a subject line (a rule's or another's alike)
            "S": said_subject(context, plan.rng("spoken subjects"), self._subject_phrase(plan, grounded)),
            "subject_fact": self._subject_fact(plan, grounded),
            "other": other.name, "business": business.name,
            "counter_role": other_role, "scenario": rng.choice(FILLER_SCENARIOS),
            **context.vocabulary.common.terms(),
        }
        base_subject = self._base_subject(rng, plan, values, other, business, bool(groups))
        for message in messages:
            message.slots = group_at.get(message.index, [])
            message.renditions = [r for r in message.slots if isinstance(r, Rendition)]
            if message.kind == "reply" and not message.slots and rng.random() < 0.15:
                message.style = "apple"  # a short reply sent from a phone
            message.message_id = self._message_id(rng, message.sender.org.email_domain, message.style)
        self._subjects(messages, base_subject)
        self._write_texts(rng, plan, context, messages, values)
        body = self._thread_body(context, messages)
        top = messages[-1]

        mail = EmailMessage(policy=policy.default)
        mail["From"] = top.sender.address
        mail["To"] = ", ".join(p.address for p in top.to)
        if top.cc:
            mail["Cc"] = ", ".join(p.address for p in top.cc)
        mail["Subject"] = top.subject
        mail["Date"] = format_datetime(top.date)
        mail["Message-ID"] = top.message_id
        if len(messages) > 1:
            mail["In-Reply-To"] = messages[-2].message_id
            mail["References"] = " ".join(m.message_id for m in messages[:-1])
        if top.style in MAILERS:
            mail["X-Mailer"] = MAILERS[top.style]
        if top.style == "outlook":
            mail["Thread-Topic"] = _REPLY_PREFIX.sub("", re.sub(r"^(FW|Fwd): ", "", top.subject))
        # a paragraph over 998 octets (a very long rule) is sent quoted-printable, whose soft line breaks
        # keep every line within RFC 5322 §2.1.1 while the decoded text keeps the paragraph whole
        too_long = any(len(line.encode()) > MAX_LINE_OCTETS for line in body.splitlines())
        mail.set_content(body, subtype="plain", charset="utf-8",
                         cte="quoted-printable" if too_long else "7bit" if body.isascii() else "8bit")
        data = mail.as_bytes(policy=policy.default)

        chain = []
        for position, message in enumerate(messages):
            chain.append({
                "message_id": message.message_id,
                "in_reply_to": messages[position - 1].message_id if position else None,
                "references": [m.message_id for m in messages[:position]],
                "date": message.date.isoformat(),
                "from": message.sender.email,
                "from_name": message.sender.name,
                "organisation": message.sender.org.id,
                "to": [p.email for p in message.to],
                "cc": [p.email for p in message.cc],
                "subject": message.subject,
                "kind": message.kind,
                "style": message.style,
                "facts": [r.fact_id for r in message.renditions],
            })
        metadata = {"messages": chain, "organisations": [business.id, other.id], "subject": top.subject,
                    "timestamp_order": "thread"}
        return RenderedArtifact(
            plan=plan, files=[RenderedFile(SUFFIX, data)],
            author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
            renditions=list(plan.renditions), timestamps=[_plan_frame(m.date, plan, tz) for m in messages],
            metadata=metadata,
        )

    # ---------------------------------------------------------------------------------------- composition
    @staticmethod
    def _person(rng: random.Random, fake, org: Organisation, titles: tuple[str, ...]) -> Person:
        first, last = fake.first_name(), fake.last_name()
        phone = f"+1 {AREA_CODES[stable_seed('area', org.id) % len(AREA_CODES)]} 555 {rng.randint(100, 199):04d}"
        return Person(first=first, last=last, email=_address_for(org, first, last),
                      title=rng.choice(titles), org=org, phone=phone,
                      signoff=rng.choice(SIGNOFFS), signature_shape=rng.randrange(3))

    @staticmethod
    def _groups(rng: random.Random, plan: ArtifactPlan) -> list[list[Rendition]]:
        """Split renditions into per-message groups of one or two, by date.

        A superseded rendition whose successor is in the thread goes first, alone in its message (it
        may be framed as history there); every other rendition, superseded or not, is grouped like a
        current rule.
        """
        def replaced_here(rendition: Rendition) -> bool:
            return rendition.status == "superseded" and plan.successor(rendition.fact_id) is not None

        ordered = sorted(plan.renditions, key=lambda r: (not replaced_here(r), r.date))
        groups: list[list[Rendition]] = []
        for rendition in ordered:
            last = groups[-1] if groups else None
            if last and len(last) == 1 and not replaced_here(last[0]) and not replaced_here(rendition) \
                    and rng.random() < 0.4:
                last.append(rendition)
            else:
                groups.append([rendition])
        return groups

    @staticmethod
    def _cast(rng: random.Random, count: int, forward: bool, business: list[Person], other: list[Person],
              times: list[dt.datetime]) -> list[ThreadMessage]:
        """Decide who writes each message, to whom (reply-all), and with which client.

        ``business`` and ``other`` are ``[lead, colleague]``. With ``forward``, the business's colleague writes
        an internal note to its lead, who forwards it to the counterpart's lead; otherwise the thread
        opens between the two leads, sometimes copying a colleague, who may answer in the lead's place.
        """
        messages: list[ThreadMessage] = []
        if forward:
            messages.append(ThreadMessage(0, business[1], [business[0]], [], times[0], kind="new"))
            cc = [business[1]] if rng.random() < 0.5 else []
            messages.append(ThreadMessage(1, business[0], [other[0]], cc, times[1], kind="forward"))
        else:
            first_side, second_side = (business, other) if rng.random() < 0.6 else (other, business)
            cc = [rng.choice((first_side[1], second_side[1]))] if rng.random() < 0.5 else []
            messages.append(ThreadMessage(0, first_side[0], [second_side[0]], cc, times[0], kind="new"))
        while len(messages) < count:
            parent = messages[-1]
            ours = any(parent.sender is p for p in business)
            _parent_side, opposite = (business, other) if ours else (other, business)
            if any(opposite[1] is p for p in parent.cc) and rng.random() < 0.35:
                sender = opposite[1]  # the copied colleague answers instead of the lead
            else:
                sender = opposite[0]
            to = [parent.sender]
            cc = []
            for person in [parent.sender, *parent.to, *parent.cc]:
                if person is not sender and all(person is not p for p in to + cc):
                    cc.append(person)
            messages.append(ThreadMessage(len(messages), sender, to, cc, times[len(messages)]))
        for message in messages:
            message.style = _org_style(message.sender.org)
        return messages

    @staticmethod
    def _message_id(rng: random.Random, domain: str, style: Style) -> str:
        """``<hex.hex@host>`` from the plan's generator (RFC 5322 §3.6.4 msg-id: id-left "@" id-right)."""
        host = {"outlook": f"mail.{domain}", "gmail": f"mx.{domain}", "apple": domain}[style]
        return f"<{rng.getrandbits(64):016x}.{rng.getrandbits(32):08x}@{host}>"

    @staticmethod
    def _grounded(rng: random.Random, plan: ArtifactPlan, context: RenderContext, wanted: int,
                  day: dt.date) -> list[list[GroundedSlot]]:
        """``wanted`` slot groups about subjects of the plan's topic that the plan does not state
        (:func:`grounded_slots`), paired as :meth:`_groups` pairs rules (a group of one takes a second
        sentence with probability 0.4); fewer when the topic has fewer subjects."""
        slots = grounded_slots(rng, context, plan, 2 * wanted, day, peer_lines=PEER_LINES,
                               volume_lines=VOLUME_LINES, note_lines=NOTE_LINES)
        groups: list[list[GroundedSlot]] = []
        for slot in slots:
            if groups and len(groups[-1]) == 1 and rng.random() < 0.4:
                groups[-1].append(slot)
            elif len(groups) < wanted:
                groups.append([slot])
            else:
                break
        return groups

    @staticmethod
    def _subject_fact(plan: ArtifactPlan, grounded: list[list[GroundedSlot]]) -> tuple:
        """The fact the thread is about and its subject as written: the first rule's, else the first
        grounded slot's; ``(None, "")`` when there is neither."""
        for rendition in plan.renditions:
            fact = plan.facts.get(rendition.fact_id)
            if fact is not None and fact.subject:
                return fact, mid_sentence(fact.subject.strip().rstrip("."))
        for group in grounded:
            if group[0].fact is not None:
                return group[0].fact, group[0].subject
        return None, ""

    @staticmethod
    def _subject_phrase(plan: ArtifactPlan, grounded: list[list[GroundedSlot]] = ()) -> str:
        """The thread's subject without its article: the first rule's, else the first grounded slot's,
        else the topic's terms."""
        subjects = [getattr(plan.facts.get(r.fact_id), "subject", None) for r in plan.renditions]
        for subject in [*subjects, *(group[0].subject for group in grounded)]:
            if subject:
                return re.sub(r"^(the|a|an)\s+", "", mid_sentence(subject.strip()), flags=re.IGNORECASE)
        return lower_first(plan.topic_title) + " terms"

    @staticmethod
    def _base_subject(rng: random.Random, plan: ArtifactPlan, values: dict, other: Organisation,
                      business: Organisation, slotted: bool) -> str:
        title, subject = plan.topic_title, values["S"]
        short_other, short_business = other.name.split()[0], business.name.split()[0]
        if slotted:
            pool = (f"{title}: updates for {values['A']}", f"{subject[:1].upper() + subject[1:]}: confirmation needed",
                    f"Question re {subject}", f"{title} changes", f"Follow-up: {title}",
                    f"Action required: {values['A']}", f"{short_other} / {short_business}: {title}",
                    f"Checking the {subject} wording", f"{title} | wording for {values['A']}")
        elif rng.random() < 0.3:  # a thread without a rule is often titled like one with rules
            subject_line = values["scenario"][0].format(**values)
            return subject_line[:1].upper() + subject_line[1:]
        else:
            pool = (f"{title}: updates for {values['A']}", f"{title} changes", f"Follow-up: {title}",
                    f"Question re {subject}", f"{short_other} / {short_business}: {title}")
        return rng.choice(pool)

    @staticmethod
    def _subjects(messages: list[ThreadMessage], base: str) -> None:
        """Subject lines as each client writes them: ``RE:``/``Re:`` on replies, ``FW:``/``Fwd:`` on forwards."""
        subject = base
        for message in messages:
            if message.kind == "forward":
                subject = ("FW: " if message.style == "outlook" else "Fwd: ") + subject
            elif message.kind == "reply" and not _REPLY_PREFIX.match(subject):
                subject = ("RE: " if message.style == "outlook" else "Re: ") + subject
            message.subject = subject

    def _write_texts(self, rng: random.Random, plan: ArtifactPlan, context: RenderContext,
                     messages: list[ThreadMessage], values: dict) -> None:
        """Write each message's own text through ``email_thread/message.txt.j2``.

        Shapes: an opener (purpose, context, request or renditions), replies (acknowledgement or the answer
        to the previous question, renditions, then an ask, a progress note or a new question), mobile
        one-liners, a forwarding note, and a closer on the newest message.
        """
        business_id = context.config.business.id
        used: set[str] = set()
        counterpart = values["counter_role"]
        qa = {"other": list(QA["other"]), "business": list(QA.get(f"business:{counterpart}", QA["business:vendor"]))}
        for pairs in qa.values():
            rng.shuffle(pairs)
        scenario = values["scenario"]
        pending: tuple[str, str] | None = None  # (side that asked, answer)
        signed: set[str] = set()
        slotted = any(m.slots for m in messages)  # a thread with rules or grounded slots, written one way
        peers = plan_peers(context, plan)

        for message in messages:
            sender, recipient = message.sender, message.to[0]
            group = "business" if sender.org.id == business_id else "other"
            side = "business" if group == "business" else sender.org.role
            local = dict(values, first=recipient.first,
                         daypart="morning" if message.date.hour < 12 else "afternoon",
                         cc_first=message.cc[0].first if message.cc else "",
                         day=(message.date + dt.timedelta(days=rng.randint(2, 6))).strftime("%A"),
                         colleague=messages[0].sender.first)

            def pick(pool: tuple[str, ...], named: bool = False, message: ThreadMessage = message,
                     local: dict = local) -> str:
                options = [item for item in pool if item not in used
                           and ("{cc_first}" not in item or message.cc) and not (named and "{first}" in item)]
                options = options or [item for item in pool if "{cc_first}" not in item] or list(pool)
                choice = rng.choice(options)
                used.add(choice)
                return _fill(choice, local)

            last = message.index == len(messages) - 1
            answer = pending[1] if pending and pending[0] != group else None
            pending = None
            if message.style == "apple":
                text = f"{answer} {pick(MOBILE_REPLIES)}" if answer else pick(MOBILE_REPLIES)
                message.text = self._template(context, greeting="", paragraphs=[text], signoff="",
                                              signature="Sent from my iPhone")
                continue
            if message.cc and rng.random() < 0.3:
                greeting_template = rng.choice(GREETINGS_GROUP)
            else:
                greeting_template = rng.choice(GREETINGS) if rng.random() < 0.85 else ""
            named = "{first}" in greeting_template

            paragraphs: list[str] = []
            if message.kind == "new":
                if recipient.org.id == sender.org.id:  # an internal note that will be forwarded
                    paragraphs.append(pick(INTERNAL_ASKS))
                elif slotted:
                    recipient_side = "business" if recipient.org.id == business_id else recipient.org.role
                    openers = OPENERS.get((side, recipient_side)) or OPENERS[("business", "vendor")]
                    opening = pick(openers)
                    if rng.random() < 0.6:
                        opening += " " + pick(OPENER_CONTEXT[group])
                    fact, subject = values["subject_fact"]
                    if group == "business" and fact is not None and rng.random() < 0.5:
                        # how the thread's subject came up with customers (a rule's thread or not alike)
                        opening += " " + " ".join(line[:1].upper() + line[1:] for line in grounded_sentences(
                            rng, context, fact, subject, peers, message.date.date(), plan.facts.values(),
                            peer_lines=PEER_LINES, volume_lines=VOLUME_LINES, note_lines=NOTE_LINES,
                            written="this"))
                    paragraphs.append(opening)
                else:
                    paragraphs.append(_fill(scenario[1], local))
            elif message.kind == "forward":
                paragraphs.append(pick(FORWARD_NOTES))
            elif answer:
                paragraphs.append(answer)
            elif slotted and not (last and not message.slots and rng.random() < 0.6) \
                    or (not slotted and message.index >= 1 and rng.random() < 0.5):
                waited = (message.date - messages[message.index - 1].date).total_seconds() if message.index else None
                paragraphs.append(pick(acks_after(waited), named))

            paragraphs += self._rendition_paragraphs(rng, plan, message, side, local, context, peers)

            if not slotted:
                if message.index == 1:
                    paragraphs.append(_fill(scenario[2], local))
                elif last and message.index >= 2:
                    paragraphs.append(_fill(scenario[3], local))
                elif message.kind == "reply":
                    paragraphs.append(pick(FILLER_MIDDLE))
            elif message.slots:
                history_only = all(shown_as_history(plan, r, message.date.date()) for r in message.slots)
                if history_only or message.kind == "new" and recipient.org.id == sender.org.id:
                    pass
                elif group == "business" and not last and rng.random() < 0.7:
                    paragraphs.append(pick(ASKS))
                elif group == "other" and rng.random() < 0.6 and side in PROGRESS:
                    paragraphs.append(pick(PROGRESS[side]))
                elif last and rng.random() < 0.4:
                    paragraphs.append(pick(PROGRESS["business" if group == "business" else side]
                                           if (side if group == "other" else "business") in PROGRESS
                                           else PROGRESS["business"]))
            elif last:
                paragraphs.append(pick(CLOSERS))
            elif message.kind == "new":
                paragraphs.append(pick(REQUESTS[group]))
            elif message.kind == "reply":
                if qa[group] and rng.random() < 0.55:
                    question, reply = qa[group].pop()
                    paragraphs.append(question)
                    pending = (group, reply)
                else:
                    paragraphs.append(pick(PROGRESS.get(side, PROGRESS["business"])))

            first_time = sender.email not in signed
            signed.add(sender.email)
            message.text = self._template(context, greeting=_fill(greeting_template, local), paragraphs=paragraphs,
                                          signoff=sender.signoff,
                                          signature=self._signature(context, sender, first_time))

    def _rendition_paragraphs(self, rng: random.Random, plan: ArtifactPlan, message: ThreadMessage, side: str,
                              values: dict, context: RenderContext, peers: list[str]) -> list[str]:
        """Paragraphs stating the message's slots: renditions verbatim, grounded sentences as written, and
        now and then (a rule's slot or not alike) what other organisations publish for the first slot's
        subject (:func:`comparison`).

        A rendition is framed as history (dated past-tense lead and tail) only when
        :func:`shown_as_history` holds on the message's date; every other one, superseded or not, is
        written as the rule in force.
        """
        if not message.slots:
            return []
        day = message.date.date()
        current = [r for r in message.slots if not shown_as_history(plan, r, day)]
        paragraphs: list[str] = []
        for rendition in message.renditions:
            if not shown_as_history(plan, rendition, day):
                continue
            label = _spoken_date(plan.successor_effective_date(rendition.fact_id))  # type: ignore[arg-type]
            lead, tail = rng.choice(HISTORY_PAST).format(date=label), rng.choice(HISTORY_TAILS_PAST)
            paragraphs.append(_join(lead, rendition.text, tail))
        leads = LEADS_OWN if side == "business" else LEADS_RESTATED
        if len(current) >= 2:
            list_lead = rng.choice(LEADS_LIST["business" if side == "business" else "other"])
            paragraphs.append(_fill(list_lead, values) + "\n" +
                              "\n".join(f"- {r.text.strip()}" for r in current))
        elif current:
            item = current[0]
            subject = item.subject if isinstance(item, GroundedSlot) else \
                (getattr(plan.facts.get(item.fact_id), "subject", None) or values["S"])
            subject = re.sub(r"^(the|a|an)\s+", "", mid_sentence(subject.strip().rstrip(".")), flags=re.IGNORECASE)
            if isinstance(item, Rendition) and item.register == "voiced":  # as a voiced grounded slot says its own
                subject = said_subject(context, rng, subject)
            lead = _fill(rng.choice(leads), dict(values, S=subject)) if rng.random() < 0.85 else ""
            tail = _fill(rng.choice(TAILS), values) if rng.random() < 0.45 else ""
            paragraphs.append(_join(lead, current[0].text, tail))
        first = message.slots[0]
        fact = first.fact if isinstance(first, GroundedSlot) else plan.facts.get(first.fact_id)
        subject = first.subject if isinstance(first, GroundedSlot) else \
            mid_sentence((getattr(fact, "subject", None) or "").strip().rstrip("."))
        aside = comparison(rng, context, fact, subject, peers, plan.facts.values(), 0.35, peer_lines=PEER_LINES)
        if aside:
            paragraphs.append(aside)
        return paragraphs

    @staticmethod
    def _template(context: RenderContext, **variables) -> str:
        return context.templates.get_template("email_thread/message.txt.j2").render(**variables).strip("\n")

    @staticmethod
    def _signature(context: RenderContext, person: Person, full: bool) -> str:
        if not full:
            return person.first
        label = PHONE_LABELS[stable_seed("phone-label", person.org.id) % len(PHONE_LABELS)]
        return context.templates.get_template("email_thread/signature.txt.j2").render(
            person=person, shape=person.signature_shape, phone_label=label).strip("\n")

    def _thread_body(self, context: RenderContext, messages: list[ThreadMessage]) -> str:
        """The top message's body: its text, then each earlier message quoted by its replier's client."""
        body = messages[0].text
        for parent, message in pairwise(messages):
            block = context.templates.get_template(f"email_thread/quote_{message.style}.txt.j2").render(
                parent=parent, kind=message.kind, sent_long=f"{parent.date:%A, %B} {parent.date.day}, "
                f"{parent.date.year} {_clock(parent.date)}",
                sent_gmail=f"{parent.date:%a, %b} {parent.date.day}, {parent.date.year} at {_clock(parent.date)}",
                sent_apple_day=f"{parent.date:%b} {parent.date.day}, {parent.date.year}",
                sent_apple_time=_clock(parent.date),
                to=", ".join(p.address for p in parent.to) if message.style != "outlook"
                else "; ".join(p.address for p in parent.to),
                cc="; ".join(p.address for p in parent.cc) if message.style == "outlook"
                else ", ".join(p.address for p in parent.cc),
            ).strip("\n")
            prefixed = message.style != "outlook" and message.kind != "forward"
            quoted = _quote_lines(body) if prefixed else body
            gap = "\n" if message.style == "gmail" and prefixed else "\n\n"
            body = f"{message.text}\n\n{block}{gap}{quoted}"
        return body.rstrip("\n") + "\n"

    # ------------------------------------------------------------------------------------------- reading
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Parse the ``.eml`` with ``email.parser.BytesParser(policy=email.policy.default)``.

        Returns ``Subject:``, ``From:`` and ``Date:`` header lines, a blank line, then the decoded
        ``text/plain`` body (newest message first, older ones quoted below).
        """
        parts = []
        for file in files:
            if file.suffix != SUFFIX:
                continue
            mail = BytesParser(policy=policy.default).parsebytes(file.data)
            part = mail.get_body(preferencelist=("plain",))
            body = part.get_content() if part is not None else ""
            parts.append(f"Subject: {mail['Subject']}\nFrom: {mail['From']}\nDate: {mail['Date']}\n\n{body}")
        return "\n".join(parts)

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """One chain per ``.eml``, in thread order: the quoted messages from the deepest (oldest) quote up
        to the one right under the top message (each its quote header's date, to the minute), then the top
        message's ``Date`` header (to the second). The page shows the newest message first, so reading the
        quote headers bottom-up must never go back in time, and the header is not before what it quotes.
        Quote lines carry no offset and take the header's (else ``zone``). The body is read with the same
        parser as :meth:`extract_text`."""
        chains = []
        for file in files:
            if file.suffix != SUFFIX:
                continue
            mail = BytesParser(policy=policy.default).parsebytes(file.data)
            try:
                header = aware(parsedate_to_datetime(str(mail["Date"])), None) if mail["Date"] is not None else None
            except (TypeError, ValueError):
                header = None
            local = header.tzinfo if header is not None else zone
            part = mail.get_body(preferencelist=("plain",))
            body = part.get_content() if part is not None else ""
            quoted = []
            for match in _QUOTE_HEADER.finditer(body):
                moment = client_date(match.group("on") or match.group("sent") or match.group("date"), local)
                if moment is not None:
                    line = match.group(0).lstrip("> \t").strip()
                    quoted.append(Stamp(f"quoted message {len(quoted) + 1} ({line[:70]})", moment, 60))
            chain = quoted[::-1]
            if header is not None:
                chain.append(Stamp(f"the Date header ({mail['Date']})", header, 0))
            chains.append(chain)
        return chains

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure checks of the delivered message against ``metadata['messages']``.

        Rules: exactly one ``.eml``; From, To, Subject, Date and Message-ID present (RFC 5322 §3.6);
        Date parses (§3.3); Message-ID and In-Reply-To are ``<id-left@id-right>`` (§3.6.4); the header
        Message-ID and Date equal the chain's newest message; In-Reply-To names the previous message of
        the chain (an unknown id is an error) and References lists the chain's earlier ids in order;
        every chain message replies to an earlier one; chain dates strictly increase; the body quotes
        every earlier message (one quote header each); no body line exceeds 998 octets (§2.1.1).
        """
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "file_count", subject, f"expected one .eml file, found {len(files)}")]
        data = files[0].data
        mail = BytesParser(policy=policy.default).parsebytes(data)
        findings: list[Finding] = []
        for header in ("From", "To", "Subject", "Date", "Message-ID"):
            if mail[header] is None or not str(mail[header]).strip():
                findings.append(error("structure", "missing_header", subject, f"header {header} is missing",
                                      rule="RFC 5322 §3.6"))
        chain = artifact.metadata.get("messages") or []
        if not chain:
            findings.append(error("structure", "no_chain", subject, "metadata['messages'] is empty"))
            return findings
        ids = [m["message_id"] for m in chain]
        msg_id = _MSG_ID.fullmatch(str(mail["Message-ID"] or "").strip())
        if mail["Message-ID"] is not None and not msg_id:
            findings.append(error("structure", "bad_message_id", subject, "Message-ID is not <id@domain>",
                                  str(mail["Message-ID"]), rule="RFC 5322 §3.6.4"))
        if mail["Message-ID"] is not None and str(mail["Message-ID"]).strip() != ids[-1]:
            findings.append(error("structure", "message_id_mismatch", subject,
                                  "Message-ID differs from the newest message of the chain", str(mail["Message-ID"])))
        try:
            date = parsedate_to_datetime(str(mail["Date"])) if mail["Date"] is not None else None
        except (TypeError, ValueError):
            date = None
            findings.append(error("structure", "bad_date", subject, "Date header does not parse", str(mail["Date"]),
                                  rule="RFC 5322 §3.3"))
        if date is not None and date != dt.datetime.fromisoformat(chain[-1]["date"]):
            findings.append(error("structure", "date_mismatch", subject, "Date header differs from the chain's "
                                  "newest message", f"{mail['Date']} vs {chain[-1]['date']}"))
        in_reply_to = str(mail["In-Reply-To"]).strip() if mail["In-Reply-To"] is not None else None
        references = str(mail["References"]).split() if mail["References"] is not None else []
        if len(chain) > 1:
            if in_reply_to is None:
                findings.append(error("structure", "missing_in_reply_to", subject, "a reply has no In-Reply-To",
                                      rule="RFC 5322 §3.6.4"))
            elif in_reply_to not in ids[:-1]:
                findings.append(error("structure", "unknown_parent", subject,
                                      "In-Reply-To names a message that is not in the thread", in_reply_to))
            elif in_reply_to != ids[-2]:
                findings.append(error("structure", "wrong_parent", subject,
                                      "In-Reply-To does not name the previous message", in_reply_to))
            if references != ids[:-1]:
                findings.append(error("structure", "references_mismatch", subject,
                                      "References does not list the earlier messages oldest first",
                                      " ".join(references), rule="RFC 5322 §3.6.4"))
        elif in_reply_to is not None:
            findings.append(error("structure", "unknown_parent", subject, "a single message has In-Reply-To",
                                  in_reply_to))
        previous_date: dt.datetime | None = None
        for position, message in enumerate(chain):
            parent = message.get("in_reply_to")
            if position and parent not in ids[:position]:
                findings.append(error("structure", "chain_parent", subject,
                                      f"message {position + 1} replies to {parent}, not an earlier message"))
            when = dt.datetime.fromisoformat(message["date"])
            if previous_date is not None and when <= previous_date:
                findings.append(error("structure", "reply_before_parent", subject,
                                      f"message {position + 1} ({message['date']}) is not after the one before it",
                                      rule="each reply comes after its parent"))
            previous_date = when
        part = mail.get_body(preferencelist=("plain",))
        body = part.get_content() if part is not None else ""
        quotes = sum(body.count(marker) for marker in _QUOTE_MARKERS) + len(_WROTE.findall(body))
        if quotes != len(chain) - 1:
            findings.append(error("structure", "quote_count", subject,
                                  f"body quotes {quotes} earlier messages, the chain has {len(chain) - 1}"))
        too_long = [line for line in data.split(b"\n") if len(line.rstrip(b"\r")) > MAX_LINE_OCTETS]
        if too_long:
            findings.append(error("structure", "line_too_long", subject, f"{len(too_long)} lines exceed "
                                  f"{MAX_LINE_OCTETS} octets", rule="RFC 5322 §2.1.1"))
        return findings


_MSG_ID = re.compile(r"<[^<>@\s]+@[^<>@\s]+>")


# --------------------------------------------------------------------------------------------------
# Dates as mail clients write them above a quoted message
# --------------------------------------------------------------------------------------------------

_QUOTE_HEADER = re.compile(r"^(?:>[ \t]?)*(?:On (?P<on>.+) wrote:|Sent: (?P<sent>.+)|Date: (?P<date>.+))[ \t]*$",
                           re.MULTILINE)
"""Quote headers mail clients write above a quoted message (any depth of ``>``): Gmail and Apple Mail
``On <date> <sender> wrote:``, Outlook's ``Sent: <date>``, a forwarded block's ``Date: <date>``."""
_CLIENT_DATE = re.compile(r"\b(?P<month>[A-Z][a-z]{2,8})\.? (?P<day>\d{1,2}), (?P<year>\d{4}),?(?: at)? "
                          r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::\d{2})? ?(?P<half>[AaPp]\.?[Mm]\.?)?")
"""A client's date and clock: ``Tue, Mar 10, 2026 at 2:14 PM``, ``Tuesday, March 10, 2026 2:14 PM``,
``Mar 10, 2026, at 2:14 PM`` (weekday optional, month full or abbreviated, 12- or 24-hour clock)."""


def client_date(text: str, zone: dt.tzinfo | None) -> dt.datetime | None:
    """The first date-and-clock a mail client wrote in ``text`` (see :data:`_CLIENT_DATE`), in ``zone``."""
    for match in _CLIENT_DATE.finditer(text):
        month = MONTH_NUMBER.get(match.group("month")[:3].lower())
        hour, half = int(match.group("hour")), (match.group("half") or "").lower().replace(".", "")
        if half:
            hour = hour % 12 + (12 if half == "pm" else 0)
        try:
            return dt.datetime(int(match.group("year")), month or 0, int(match.group("day")), hour,
                               int(match.group("minute")), tzinfo=zone)
        except (TypeError, ValueError):
            continue
    return None
__all__ = ["EmailThreadGenre", "Person", "ThreadMessage", "client_date"]
