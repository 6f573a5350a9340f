"""Long-form working prose for long documents (handbooks, archives, meeting notes, channel logs).

:func:`long_sections` writes the context text of a long record about one topic, seeded by the record:
case walk-throughs, desk notes, questions colleagues ask, checklists and hand-over notes. It is built
for three properties the realism gates measure:

* it states no policy value: no digits, no number words, no currency or percent signs, so it never
  looks like (or contradicts) a rule a record owns;
* a sentence of eight words or more always carries at least two slots drawn from large pools (people,
  branches, towns, merchants, systems, weekdays, months, teams), so long sentences do not repeat across
  documents of a genre;
* its length is chosen by the caller (``target_words``), so a record's length says nothing about whether
  it carries a rule.

The domain's words (its teams, systems, channels, documents, desk actions and the situations customers
bring, by section) come from the pack's ``vocabulary.yaml``, section ``prose`` (:class:`ProseWords`), and
the in-person site ("branch", "store") from its ``common`` section; this module keeps the genre of working
prose (how a case walk-through, a desk note or a hand-over reads) and never the vocabulary of the
benchmark itself.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from faker import Faker

from taugen.generators.corpus.vocabulary import (
    NEUTRAL_VOCABULARY,
    DomainVocabulary,
    GenreVocabulary,
    Pool,
    register_vocabulary,
)


class ProseWords(GenreVocabulary):
    """The ``prose`` section of a pack's ``vocabulary.yaml``: the slots of long working prose.

    No digits and no number words. Attributes (each a pool drawn from per slot):
        teams: teams of the business, as they read after "from" or "to" ("Card Services", "the Wire Room").
        systems: the screens and queues staff work in ("the case system").
        channels: how a customer got in touch, after a verb ("on the phone", "at the counter").
        documents: papers a case may need ("the signature card").
        actions: what an agent does, third person present ("escalates the case").
        situations_by_section: what customers bring, by the pack's section id ("a card lost on a trip");
            a section without any gets generic situations.
    """

    teams: Pool
    systems: Pool
    channels: Pool
    documents: Pool
    actions: Pool
    situations_by_section: dict[str, Pool]


NEUTRAL_WORDS = ProseWords(
    teams=("Customer Care", "Account Servicing", "Billing Operations", "the Compliance Office", "Product Management",
           "Quality Assurance", "Learning and Development", "the Complaints team", "Collections", "Digital Services",
           "the Contact Centre floor", "Records Management"),
    systems=("the case system", "the account screen", "the billing portal", "the document imaging queue",
             "the complaints log", "the knowledge base", "the call recording archive", "the secure messaging inbox",
             "the alerts dashboard", "the CRM notes tab", "the appointment calendar", "the mail room tracker"),
    channels=("on the phone", "in chat", "in person", "by secure message", "through the app", "by letter",
              "on a video appointment", "through the website form"),
    documents=("the account agreement", "the last statement", "the photo ID", "the closing letter", "the complaint form",
               "the power of attorney", "the change of address form", "the court order", "the receipt"),
    actions=("confirms the request", "reads the notes back", "updates the contact details", "attaches the scanned copy",
             "logs the outcome", "sets a follow-up task", "sends the secure message", "escalates the case",
             "closes the case note", "books a call back", "flags the account for review", "links the related cases",
             "re-runs the verification questions"),
    situations_by_section={},
)
register_vocabulary("prose", ProseWords, NEUTRAL_WORDS)

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_PARTS = ("early", "mid", "late")
_GENERIC_SITUATIONS = ("a question the customer could not resolve online", "a follow-up on an earlier request",
                       "a complaint about how an earlier call was handled", "a request for a written confirmation")


_DOUBLED = re.compile(r"\b([A-Za-z]+)(?:\s+\1\b)+", re.IGNORECASE)


def has_doubled_words(text: str) -> bool:
    """Whether ``text`` writes a word twice in a row (``"one point one one percent"``): a figure whose
    spoken form does so is drawn again rather than mended, since mending it would change its value."""
    return _DOUBLED.search(text) is not None


def without_doubled_words(text: str) -> str:
    """``text`` with a word written twice in a row kept once (a slot filled with "the Wire Room" after
    "the" gives "the the Wire Room"; "desk" after "the Branch Support desk" gives "desk desk")."""
    return _DOUBLED.sub(r"\1", text)


@dataclass
class Section:
    """A heading and its blocks: ``("para", text)`` or ``("bullet", text)``."""

    heading: str
    blocks: list[tuple[str, str]] = field(default_factory=list)

    def words(self) -> int:
        return len(self.heading.split()) + sum(len(text.split()) for _kind, text in self.blocks)


_BUSINESS_SUFFIXES = frozenset({"Branch", "Center", "Centers", "Club", "Mall", "Mission", "Plaza", "Station",
                                "Union", "Unions"})
"""Faker's US street suffixes that also name a place of business: "the Tonya Branch entrance" reads as a
bank branch, "Tonya Station" as a shop."""


def street_names(fake: Faker, count: int) -> list[str]:
    """``count`` street names from ``fake`` (its own seeded order), skipping the ones whose suffix names a
    place of business (:data:`_BUSINESS_SUFFIXES`), so a street never reads as one of a domain's sites."""
    streets: list[str] = []
    while len(streets) < count:
        street = fake.street_name()
        if street.rsplit(" ", 1)[-1] not in _BUSINESS_SUFFIXES:
            streets.append(street)
    return streets


class _Slots:
    """Slot fillers for one document: a cast of people and places drawn from faker."""

    def __init__(self, rng: random.Random, fake: Faker, topic: str, vocabulary: DomainVocabulary) -> None:
        self.rng = rng
        self.words: ProseWords = vocabulary.words("prose")  # type: ignore[assignment]
        self.terms = vocabulary.common.terms()
        self.people = [f"{fake.first_name()} {fake.last_name()}" for _ in range(40)]
        self.firsts = [name.split()[0] for name in self.people]
        self.towns = [fake.city() for _ in range(12)]
        self.merchants = [fake.company().replace(",", "").replace(".", "") for _ in range(12)]
        self.streets = street_names(fake, 10)
        self.topic = topic

    def pick(self, pool):
        return self.rng.choice(pool)

    def fill(self, template: str, situation_pool: tuple[str, ...]) -> str:
        values = {
            "name": self.pick(self.people), "name2": self.pick(self.people), "first": self.pick(self.firsts),
            "first2": self.pick(self.firsts), "team": self.pick(self.words.teams), "team2": self.pick(self.words.teams),
            "system": self.pick(self.words.systems), "system2": self.pick(self.words.systems),
            "channel": self.pick(self.words.channels),
            "weekday": self.pick(_WEEKDAYS), "month": self.pick(_MONTHS), "part": self.pick(_PARTS),
            "doc": self.pick(self.words.documents), "doc2": self.pick(self.words.documents),
            "action": self.pick(self.words.actions), "action2": self.pick(self.words.actions),
            "town": self.pick(self.towns), "merchant": self.pick(self.merchants),
            "street": self.pick(self.streets), "situation": self.pick(situation_pool), "topic": self.topic,
            **self.terms,
        }
        text = without_doubled_words(template.format(**values))
        return text[:1].upper() + text[1:]


_CASE_OPENERS = (
    "{name} contacted us {channel} on a {weekday} in {part} {month} about {situation}.",
    "On a {weekday} in {part} {month}, {name} from {town} reached the {team} queue {channel} about {situation}.",
    "The case opens with {name}, who called from {town} about {situation} after a visit to {merchant}.",
    "{first} from {team} picked up a case {channel} in {month}: {situation}, raised by {name}.",
)
_CASE_STEPS = (
    "{first} opened {system} for {name} first and {action}, and only then talked about the outcome.",
    "To go further, {first} asked {name} for {doc} and compared it with what {system} showed.",
    "{first2} from {team} was asked to look at {doc}, because the notes {name2} left in {system} were incomplete.",
    "The customer mentioned a visit to {merchant} on {street}, so {first} {action} with that detail in the note.",
    "{first} then {action2}, and wrote in {system} who would call {name} back and on which channel.",
    "When {name} asked why the answer came on {weekday}, {first} explained that {team} works through {system} in order.",
    "{first} kept the tone calm with {name}, repeated the request in plain words and checked {doc} a second time.",
    "A colleague from {team2} joined the call briefly, because {system2} showed an open item for {name}.",
    "{first} did not promise an outcome on the spot and told {name} that {team} would confirm it in writing.",
    "The note in {system} names {doc}, the person spoken to and the next step agreed with {name}.",
)
_CASE_CLOSERS = (
    "The lesson {team} drew from {name}'s case is to read {system} first and answer second.",
    "In the {month} review, {name2} said the case went well because {doc} was checked early.",
    "{name} later wrote to {team} to say the follow-up from {first} arrived when promised.",
    "Quality Assurance scored the call from {name2} as a good example for the {topic} module in {month}.",
)
_DESK_NOTES = (
    "Colleagues at the {town} {site} keep {doc} for {topic} requests in the tray by the {street} entrance for {team} to collect.",
    "When {system} is slow on a {weekday} morning, {name} and the {town} team note requests on paper and key them in by lunch.",
    "{name} from {team} reminds new starters that {system} and {system2} do not always show the same status at once.",
    "{name} at the {team} desk in {town} asks that every referral about {topic} names the customer, the channel and {doc} up front.",
    "If a customer in {town} asks to see {doc}, show it on screen rather than printing it, as {team} prefers.",
    "{first} keeps a short list of merchants such as {merchant} that often come up in {topic} conversations in {town}.",
    "During the {month} busy period, {name} moves {topic} call backs for {team} to the {weekday} afternoon shift.",
    "A referral to {team} without {doc} comes back to the sender, so {name} checks for it every time.",
    "Questions about {topic} from the {town} {site} go to {first} first and then to {team2} if needed.",
    "The {team} lead, {name}, reviews a sample of {topic} notes in {system} each {weekday}.",
)
_QUESTIONS = (
    ("Do I need {doc} from {name} to log a {topic} request in {system}?",
     "{name} from {team} says yes where the customer has it to hand, otherwise note why it is missing."),
    ("Who answers a {topic} question from {name} that comes in {channel} on a {weekday} evening?",
     "The request waits in {system} and {team} picks it up the next morning, as {name2} confirmed."),
    ("What if {name} from {town} wants to speak to a manager about {topic}?",
     "Offer a call back from {team}, log it in {system} and tell {name} when to expect it."),
    ("Can a {site} in {town} handle the {topic} request {name} started {channel}?",
     "Yes, if {system} shows the earlier contact; {name} asks {sites} such as {town} to link the cases."),
    ("Where do I record a complaint from {name} about {topic} that mentions {merchant}?",
     "In {system2}, with {merchant} named and {doc} attached, so {team} can see the whole story."),
)
_CHECKLIST = (
    "Confirm who is calling, then open {system} for {name}",
    "Check {doc} against {system} for the {town} customer",
    "Log the channel {name} used, {channel} or not, in {system}",
    "Tell {name} which team, {team} or {team2}, calls back",
    "Attach {doc} for {name} when passing the case to {team}",
    "Note any mention of {merchant} in the case summary for {team}",
)
_HANDOVERS = (
    "{name} hands over the open {topic} cases to {name2} on {weekday}, with {system} notes current.",
    "From {part} {month}, {name} covers the {topic} inbox for {team} while {first2} is on leave.",
    "{team} and {team2} agreed in {month} that {topic} referrals from {town} go through {system}.",
    "The {town} {site} now books {topic} appointments in {system} rather than by phone, after {first} asked.",
    "{name} moved the {topic} templates in {system} to a new folder in {month}; the links in the notes still work.",
)
_HEADINGS = ("Case walk-through: {first}", "Desk notes from {town}", "Questions colleagues ask",
             "Closing the case", "Hand-over notes, {month}", "Working with {team}",
             "Notes from the {town} {site}", "A {weekday} in the {team} queue", "Examples from {month}")


def long_sections(rng: random.Random, fake: Faker, topic_id: str, topic: str, target_words: int,
                  vocabulary: DomainVocabulary = NEUTRAL_VOCABULARY) -> list[Section]:
    """Sections of working prose about ``topic`` (the section ``topic_id``) adding up to about
    ``target_words`` words, in the words of ``vocabulary`` (the pack's; neutral ones by default)."""
    slots = _Slots(rng, fake, topic, vocabulary)
    situations = slots.words.situations_by_section.get(topic_id, _GENERIC_SITUATIONS)
    sections: list[Section] = []
    total = 0
    kinds = ("case", "desk", "questions", "checklist", "handover", "case", "desk")
    while total < target_words:
        kind = rng.choice(kinds)
        heading = slots.fill(rng.choice(_HEADINGS), situations)
        section = Section(heading)
        if kind == "case":
            section.heading = slots.fill("Case walk-through: {name}", situations)
            section.blocks.append(("para", " ".join([slots.fill(rng.choice(_CASE_OPENERS), situations)] +
                                                     [slots.fill(t, situations) for t in rng.sample(_CASE_STEPS, 3)])))
            section.blocks.append(("para", " ".join(slots.fill(t, situations) for t in rng.sample(_CASE_STEPS, 3))))
            section.blocks.append(("para", slots.fill(rng.choice(_CASE_CLOSERS), situations)))
        elif kind == "desk":
            section.heading = slots.fill(rng.choice(("Desk notes from {town}", "Notes from the {town} {site}",
                                                     "Working with {team}")), situations)
            for _ in range(rng.randint(2, 4)):
                section.blocks.append(("para", " ".join(slots.fill(t, situations)
                                                        for t in rng.sample(_DESK_NOTES, rng.randint(2, 3)))))
        elif kind == "questions":
            section.heading = "Questions colleagues ask" if rng.random() < 0.5 else slots.fill(
                "Questions from {town}", situations)
            for question, answer in rng.sample(_QUESTIONS, rng.randint(2, 4)):
                section.blocks.append(("para", slots.fill(question, situations)))
                section.blocks.append(("para", slots.fill(answer, situations)))
        elif kind == "checklist":
            section.heading = slots.fill(rng.choice(("Closing the case", "Checklist for {team}")), situations)
            for template in rng.sample(_CHECKLIST, rng.randint(3, 5)):
                section.blocks.append(("bullet", slots.fill(template, situations)))
        else:
            section.heading = slots.fill("Hand-over notes, {month}", situations)
            for template in rng.sample(_HANDOVERS, rng.randint(2, 4)):
                section.blocks.append(("para", slots.fill(template, situations)))
        sections.append(section)
        total += section.words()
    return sections
