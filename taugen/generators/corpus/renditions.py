"""Rendition wording: the canonical statement, or a voiced paraphrase that still states the value.

Voiced renditions come first from the domain expert's own ``voiced`` lines; otherwise from spoken
frames filled with the fact's ``subject`` and a voiced form of its value ("thirty-five dollars"). A
voiced rendition never shares a run of :data:`SHINGLE` words with the canonical statement (a reader who
greps the statement must not find it); a candidate that does is replaced by another frame or subject
wording, and when none qualifies the canonical statement is used (register ``canonical``).

The module also words *cues*, sentences about a fact that do not own it: a pointer to the person who
decides it, a caveat that it is decided case by case, a route pointer to the record that holds the
value, a mention (the rule's subject named in passing, with no value and no pointer), and decoys (a
contested fact stated with a wrong value). A mention to a customer or among staff is often a *twin* of a
rule's frame (the frame with a *stand-in*, "the published amount", where the value stood), and a framed
rule said to them gets a stand-in beside its value at the same rate (:func:`with_stand_in`), so the
frame's words are in both kinds of slot.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator, Mapping
from typing import Any

from taugen.authoring.models import Fact
from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.prose import has_doubled_words
from taugen.generators.corpus.vocabulary import GenreVocabulary, Pool, register_vocabulary

SHINGLE = 6
"""Voiced renditions share no run of this many words with the canonical statement."""

# Frames work with any subject shape ("the dormant account fee", "closing an account", "an outgoing
# wire"), so they never say "costs" of something that is not a charge: fee frames only serve money
# values of fee-like facts.
_FEE_FRAMES = ("For {subject} you're looking at {value}.", "We charge {value} for {subject}.",
               "It's {value} for {subject}, that's what the system applies.", "Right now {subject} runs {value}.",
               "Heads up that {subject} comes to {value}.")
# Only where "subject + value" says the whole rule; a waiver threshold or an eligibility age framed
# this way would lose its condition, so those keep the expert's voiced lines or the canonical statement.
_FRAMED_CATEGORIES = {"fee", "limit", "deadline"}
_FRAMES: dict[str, tuple[str, ...]] = {
    "money": ("For {subject}, the number is {value}.", "On {subject} we go by {value}.",
              "{Subject}: {value}, as things stand.", "When it comes to {subject}, it's {value}.",
              "What applies for {subject} is {value}."),
    "percent": ("For {subject} it works out to {value}.", "On {subject} we apply {value}.",
                "{Subject}: {value}, as things stand.", "The rate for {subject} sits at {value}."),
    "duration": ("For {subject} we work with {value}.", "On {subject} the clock is {value}.",
                 "{Subject}: {value}, that's the window.", "When it comes to {subject}, you get {value}."),
    "cap": ("The most we allow for {subject} is {value}.", "For {subject} the ceiling is {value}.",
            "On {subject} anything past {value} won't go through.", "{Subject}: {value} at most."),
    "count": ("For {subject} it's {value}.", "On {subject} we allow {value}.", "{Subject}: {value}, no more."),
    "date": ("For {subject}, the date is {value}.", "On {subject}, {value} is the date we go by."),
}
_POINTERS = (
    "On {subject}, I'd rather not guess. The operations lead keeps that one, so check with them before you quote anything.",
    "{Subject} isn't written down anywhere I can find. Ask the operations lead; they decide it.",
    "For {subject}, check with the operations lead. That one comes from them, not from the written schedule.",
    "I don't have {subject} in front of me, and I won't make it up. The operations lead is the person to ask.",
    "Please don't take {subject} from old notes. Run it past the operations lead first.",
    "{Subject} is one for the operations lead. I've seen it quoted differently, so get it from them directly.",
)
_CAVEATS = (
    "{Subject} is decided case by case, so there's no single answer I can give you here.",
    "We look at {subject} case by case rather than by a fixed rule.",
    "There isn't a set rule for {subject}; it's handled case by case.",
    "On {subject}, it really is case by case. It depends on the account and who signs it off.",
    "{Subject} gets decided case by case, and the outcome depends on the circumstances.",
)
_ROUTES = (
    "For {subject}, go by the {title} dated {date}. The current figure is in there.",
    "The current number for {subject} is in the {title} dated {date}, so check that rather than my notes.",
    "{Subject} was updated. It's listed in the {title} from {date}.",
    "If you need {subject}, it's in the {title} that went round on {date}.",
    "Don't quote {subject} from memory; the {title} dated {date} has it.",
)
# Mentions name a rule's subject where a rule could stand and state nothing about it: no value, no
# person to ask, no "case by case" (those are discovery cues with a meaning of their own). Some fit a
# conversation with the customer, the others only talk among staff (a genre says which it holds).
_MENTIONS_TO_CUSTOMER = (
    "On {subject}, I've added a note to the file so it's on record.",
    "I've made a note about {subject} and will send the details over in writing.",
    "{Subject} is in the terms that came with the account, and I can send a copy over.",
    "I'll follow up on {subject} in writing so there's a record of it.",
    "I'll put the details on {subject} in a secure message so you have them.",
    "Let me note {subject} on the case so whoever picks it up can see it.",
    "I've flagged {subject} on the case file so nobody has to ask again.",
    "Thanks for raising {subject}; I've logged it with today's notes.",
    "For {subject}, I'll send the relevant page over after this.",
    "I can see you asked about {subject} before, so I've added today's call to that note.",
    "Happy to explain {subject} in more detail by email if that helps.",
    "I'll make sure {subject} is noted so you don't have to repeat it.",
    "Let me add {subject} to the summary I send you after this.",
)
_MENTIONS_AMONG_STAFF = (
    "We've had a few questions about {subject} lately, so it's worth a look.",
    "{Subject} came up again this week, so I've added it to the review list.",
    "I'd like us to look at how we explain {subject} before the next refresher.",
    "Can we make sure {subject} is covered in the next round of notes?",
    "There's a question on {subject} in the queue; I'll pick it up this afternoon.",
    "I've seen {subject} mentioned in a few complaints, so I'm keeping an eye on it.",
    "The notes on {subject} are in the shared folder if anyone needs them.",
    "A couple of customers brought up {subject} this morning, so it's on my list.",
    "I spent part of yesterday on {subject} and have written up where things stand.",
    "Whoever takes the next shift should know {subject} has been asked about.",
    "{Subject} was on the agenda last time too; we never quite finished it.",
    "I'm drafting a short explainer on {subject} for the new starters.",
    "A customer wanted to know about {subject}, and I promised to get back to them.",
    "Not urgent, but {subject} keeps coming back in the inbox.",
    "Quick one on {subject}: I've answered the customer and copied the notes across.",
    "If anyone gets asked about {subject}, the write-up is attached to the case.",
    "{Subject} is one of the topics in Thursday's team huddle.",
    "We should add {subject} to the FAQ page review.",
    "I had a long call about {subject} earlier and noted everything on the file.",
    "There were several tickets touching {subject} this week.",
    "Training asked whether {subject} is in the refresher deck; I said I'd check.",
    "Can someone double-check how we word {subject} in the templates?",
    "Just flagging that {subject} came up on the complaints call.",
    "I've left a note about {subject} on the shared board.",
    "{Subject} might be worth a line in the next team update.",
    "The customer's question about {subject} is answered and closed.",
    "Following up on {subject} from yesterday's handover.",
)
# A meeting settles each agenda item; an item about a rule named in passing is settled without a value
# (what the team does about it), so a line reads as the item's outcome and as a remark alike. The lines
# share the words of the rule frames above ("as things stand", "right now", "we go by") and each says
# its own thing, so no word marks an outcome without a value.
_MENTIONS_IN_MEETINGS = (
    "{Subject} stays as it is, and that's what we go by.",
    "As things stand, {subject} doesn't change this quarter.",
    "Right now {subject} stays where it is; we look again after the audit.",
    "When it comes to {subject}, agents read it out from the schedule.",
    "On {subject} we keep the current wording, the one the system shows.",
    "For {subject}, the number stays as published, no change.",
    "{Subject} goes into the next refresher as it stands.",
    "What applies for {subject} stays as published, and the FAQ gets a line on it.",
    "Heads up that {subject} is on the watch list until the complaints settle.",
    "For {subject} we work from the published schedule; nobody quotes it from memory.",
    "Training covers {subject} next month.",
    "We leave {subject} with the product team and revisit it at the next review.",
    "The macros will link to {subject} instead of retyping it.",
    "Whoever owns {subject} confirms the wording by Thursday.",
    "Customers who ask about {subject} get it sent in writing.",
    "{Subject}: no change, as things stand.",
    "The templates' wording of {subject} gets checked before Friday.",
    "We add {subject} to the script review and leave the rest alone.",
)
# A rule's voiced frames each have twins: the same frame with a *stand-in* where the value stood (the
# words that say where the value is written: "We charge the published amount for a wire"), so that a record
# that names a rule in passing says it in the words a record that states it uses. A rule said in a frame
# gets the same stand-ins beside its value ("We charge thirty dollars, the published amount, for a wire")
# at the same rate, and both may end with the tail the audience says (where the page is): the words
# around a value ("we charge", "comes to", "the published amount") then mark neither kind of record.
_STAND_INS: dict[str, tuple[str, ...]] = {
    "fee": ("the published amount", "the amount on the fee schedule", "what the fee schedule lists",
            "the figure in the current terms"),
    "money": ("the published amount", "the figure in the current terms", "what the current schedule lists"),
    "percent": ("the published rate", "the figure on the rate sheet", "what the rate sheet shows"),
    "duration": ("the published timeline", "the window in the current terms", "what the terms set out"),
    "cap": ("the published limit", "the limit in the current terms", "what the limits page shows"),
    "count": ("the published number", "the number in the current terms", "what the terms allow"),
    "date": ("the one in our notice", "the one on the published notice"),
}
_TWIN_TAILS = {
    "customer": ("and I'll send you the page after this", "and I've noted on the file that you asked",
                 "and I'll put it in writing for you", "and you'll have the page in your secure inbox",
                 "so I'll email you the current page"),
    "staff": ("so link the page rather than retyping it", "and the page is in the shared folder",
              "so quote it from the page, not from memory", "and I've put the page on the case",
              "so the macro should point at the page"),
}
TWIN_AUDIENCES = tuple(_TWIN_TAILS)
"""The audiences whose lines have tails (:data:`_TWIN_TAILS`): a rule said to them in a frame may take a
stand-in (:func:`with_stand_in`), a mention said to them may be a twin of a frame (:func:`mention_lines`)."""
TWIN_SHARE = 0.6
"""Share of the slots of a fact with a framed value (fees, limits, deadlines) said to a customer or among
colleagues that hold a stand-in: a mention said in a twin of a rule's frame rather than in a remark of
its own, and a rule said in a frame with a stand-in beside its value (:func:`with_stand_in`)."""
MENTION_QUESTIONS = ("What should I know about {subject}?", "What are the rules for {subject}?",
                     "What applies to {subject}?", "Where can I read the terms for {subject}?")
"""The questions a bank's help page asks about a subject: the heading of a rule's answer, and of a rule
named in passing (a ``reader`` mention), so the question never tells which of the two follows."""
MENTION_AUDIENCES = ("customer", "staff", "meeting", "reader")
"""Who a record's mentions are said to: the customer (support conversations, calls), colleagues, colleagues
settling an agenda item in a meeting (what the team does about the rule), or the readers of a published
page (a help page's questions about other subjects, :data:`MENTION_QUESTIONS`)."""
_WORD = re.compile(r"[a-z0-9$%']+")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (punctuation dropped) used for shingle comparisons."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def shingles(text: str, size: int = SHINGLE) -> set[tuple[str, ...]]:
    """Every run of ``size`` consecutive words of ``text``."""
    tokens = words(text)
    return {tuple(tokens[i:i + size]) for i in range(len(tokens) - size + 1)}


def shares_run(text: str, statement: str, size: int = SHINGLE) -> bool:
    """True when ``text`` and ``statement`` share a run of ``size`` words."""
    return bool(shingles(text, size) & shingles(statement, size))


class SpokenWords(GenreVocabulary):
    """The ``spoken`` section of a pack's ``vocabulary.yaml``: how people say the words of a rule's subject
    when they talk or write casually, so that a voiced rendition paraphrases the subject as well as the
    value ("the CD legal process charge" for "the legal process fee on Certificate of Deposit"). Genres
    say subjects this way where people name them casually, about a rule or not alike (a customer's
    question, a knowledge-base heading, a meeting's agenda item).

    Attributes:
        subject_words: a phrase of fact subjects (matched whole words, any case) → wordings people use
            instead, each fitting wherever the phrase stands in a noun phrase (``certificate of deposit:
            [CD]``, ``fee: [charge]``). No digits or number words: a spoken form never looks like a value.
    """

    subject_words: Mapping[str, Pool] = {}


register_vocabulary("spoken", SpokenWords, SpokenWords())

SPOKEN_SHARE = 0.8
"""Share of a subject's phrases (each drawn on its own) said in one of the pack's spoken wordings
(:class:`SpokenWords`); the rest keep the expert's words, as people mix both."""


@functools.lru_cache(maxsize=64)
def _spoken_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=lambda phrase: (-len(phrase), phrase))
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(phrase) for phrase in ordered) + r")(?![\w-])", re.IGNORECASE)


def spoken_subject(subject: str, spoken: SpokenWords | None, rng: random.Random, share: float = SPOKEN_SHARE) -> str:
    """``subject`` with each phrase of ``spoken.subject_words`` it holds (longest first, whole words, any
    case; no overlaps) said in one of the phrase's spoken wordings with probability ``share`` each, drawn
    from ``rng`` only where a phrase matches; a wording that would repeat the word beside it keeps the
    phrase. A wording that starts a subject whose first letter was in upper case keeps that; ``subject``
    unchanged without ``spoken`` or a match."""
    words = dict(spoken.subject_words) if spoken is not None else {}
    if not words or not subject:
        return subject
    lowered = {phrase.lower(): forms for phrase, forms in words.items()}

    def say(match: re.Match[str]) -> str:
        found = match.group(0)
        if rng.random() >= share:
            return found
        form = rng.choice(lowered[found.lower()])
        before = subject[:match.start()].split()[-1:]
        after = subject[match.end():].split()[:1]
        if (before and before[0].lower() == form.split()[0].lower()) or \
                (after and after[0].lower() == form.split()[-1].lower()):
            return found  # "the Platinum Visa credit card" never becomes "the Platinum Visa Visa card"
        return form[:1].upper() + form[1:] if match.start() == 0 and found[:1].isupper() and form[:1].islower() \
            else form

    parts: list[str] = []
    end = 0
    for match in _spoken_pattern(tuple(sorted(lowered))).finditer(subject):
        before, form = subject[end:match.start()], say(match)
        if form != match.group(0):  # "a dormant account" is said "an inactive account", not "a inactive ..."
            before = _ARTICLE.sub(lambda m: m.group(1)[0] + ("n" if form[:1].lower() in "aeiou" else "") + " ",
                                  before)
        parts += [before, form]
        end = match.end()
    return "".join(parts) + subject[end:]


_ARTICLE = re.compile(r"\b([Aa]n?) $")
"""An indefinite article just before a phrase said in a spoken wording, which may start with a vowel where
the expert's phrase did not."""


def canonical_text(fact: Fact) -> tuple[str, str]:
    """The canonical statement and the value form it uses ('' when the fact has no value)."""
    form = find_surface_form(fact.value, fact.statement) if fact.value is not None else ""
    return fact.statement, form or ""


def _subject_variants(subject: str) -> list[str]:
    """The subject as written, then shorter wordings that break long runs shared with the statement:
    ``the monthly fee on Everyday Checking`` → ``Everyday Checking's monthly fee`` / ``the monthly fee``.
    A subject is never cut at a word count: "that or amendment request" (the last words of "a wire
    recall, return or amendment request") names nothing."""
    subject = subject.strip().rstrip(".")
    bare = re.sub(r"^(the|a|an)\s+", "", subject, flags=re.IGNORECASE)
    variants = [subject]
    match = re.match(r"^(.+?)\s+(on|for|of|with)\s+(?:the\s+|a\s+|an\s+)?(.+)$", bare)
    if match:
        head, owner = match.group(1), match.group(3)
        variants.append(f"{owner}'s {head}" if not owner.endswith("s") else f"{owner}' {head}")
        variants.append(f"the {head} ({owner})")
        variants.append(f"the {head}")
    return variants


def voiceable(fact: Fact) -> bool:
    """Whether ``fact`` has a voiced wording (hand-written lines or a frame); independent of any draw."""
    return voiced_text(fact, random.Random(0))[0] != fact.statement


def voiced_text(fact: Fact, rng: random.Random, spoken: SpokenWords | None = None) -> tuple[str, str]:
    """A voiced rendition of ``fact`` and the value form it uses.

    A framed rendition names the subject as people say it (:func:`spoken_subject` with ``spoken``, the
    pack's spoken wordings) when that wording fits a frame, else as the expert wrote it. Falls back to the
    canonical statement when the fact has neither hand-written voiced lines nor a subject and numeric
    value to fill a frame with, or when every candidate shares a run of :data:`SHINGLE` words with the
    statement or writes a word twice in a row.
    """
    if fact.voiced:
        lines = list(fact.voiced)
        rng.shuffle(lines)
        for text in lines:
            if not shares_run(text, fact.statement):
                form = find_surface_form(fact.value, text) if fact.value is not None else ""
                return text, form or ""
    value = fact.value
    if (value is None or fact.subject is None or value.type not in _FRAMES
            or fact.category not in _FRAMED_CATEGORIES):
        return canonical_text(fact)
    figure = rng.choice(value.voiced_forms())
    frames = list(_FEE_FRAMES if value.type == "money" and fact.category == "fee" else _FRAMES[value.type])
    first = rng.choice(frames)
    frames.remove(first)
    rng.shuffle(frames)
    said = spoken_subject(fact.subject, spoken, rng)
    subjects = _subject_variants(said) + (_subject_variants(fact.subject) if said != fact.subject else [])
    for subject in subjects:
        for frame in [first, *frames]:
            text = frame.format(subject=subject, Subject=subject[:1].upper() + subject[1:], value=figure)
            if shares_run(text, fact.statement) or has_doubled_words(text):
                continue
            form = find_surface_form(value, text)
            if form is not None:  # a frame must always carry the value
                return text, form
    return canonical_text(fact)


def _subject(fact: Fact) -> str:
    subject = (fact.subject or "").strip().rstrip(".")
    if not subject or (fact.value is not None and find_surface_form(fact.value, subject) is not None):
        return "that one"
    for candidate in _subject_variants(subject):
        if not shares_run(candidate, fact.statement, 5):
            return candidate
    return "that one"


def cue_text(fact: Fact, kind: str, rng: random.Random, anchor: tuple[str, str] | None = None) -> str:
    """A sentence about ``fact`` that does not state its value.

    Args:
        kind: ``pointer`` (ask the operations lead), ``caveat`` (decided case by case) or ``route``
            (the value is in the record named by ``anchor`` = (kind of record, long date)). Mentions
            are worded by :func:`mention_lines`.
    """
    subject = _subject(fact)
    pool = {"pointer": _POINTERS, "caveat": _CAVEATS, "route": _ROUTES}[kind]
    title, date = anchor or ("", "")
    text = rng.choice(pool).format(subject=subject, Subject=subject[:1].upper() + subject[1:], title=title, date=date)
    if fact.value is not None and find_surface_form(fact.value, text) is not None:  # pragma: no cover - guarded above
        text = rng.choice(pool).format(subject="that one", Subject="That one", title=title, date=date)
    return text


def mention_lines(fact: Fact, rng: random.Random, audience: str = "staff", said: str | None = None,
                  published_in: Mapping[str, str] | None = None, twin_share: float = TWIN_SHARE) -> Iterator[str]:
    """Every mention of ``fact`` (its subject named in passing, no value) said to ``audience`` (one of
    :data:`MENTION_AUDIENCES`: ``customer`` uses the lines that fit a conversation with the customer,
    ``staff`` those and the lines colleagues say to each other, ``meeting`` an agenda item's outcome
    without a value, ``reader`` a help page's questions), in a seeded order. For a customer or colleagues
    the twins of the fact's frames (:func:`_twin_frames`: a rule's frame with a stand-in for its value)
    and, with ``published_in`` (the pack's ``common.published_in``), for a customer, colleagues or a
    meeting the rule's own sentence with its figure deferred there (:func:`deferred_statement`, said as
    it is written: a rule without a frame is stated in its own words in these genres too) come first with
    probability ``twin_share`` (one draw; by default :data:`TWIN_SHARE`), else after the other lines; ``rng`` draws everything when
    called, and each line is filled as it is read (a caller that takes the first that fits fills no
    more). Empty when the fact
    has no subject that can be named without its value. The subject is used as the expert wrote it unless
    ``said`` words it (as people say it, :func:`spoken_subject`; a line where that wording would write a
    word twice uses the subject as written, and a line that doubles a word either way is left out: "...
    hotel stays stays where it is"): a mention owns nothing, so sharing the statement's words is
    what a real record does (and a search on them finds talk about the rule beyond its owner). Raises
    ``ValueError`` for another audience."""
    if audience not in MENTION_AUDIENCES:
        raise ValueError(f"mention audience must be one of {MENTION_AUDIENCES}, not {audience!r}")
    subject = (fact.subject or "").strip().rstrip(".")
    if not subject or (fact.value is not None and find_surface_form(fact.value, subject) is not None):
        return iter(())
    if audience == "reader":
        frames = list(MENTION_QUESTIONS)
    elif audience == "meeting":
        frames = list(_MENTIONS_IN_MEETINGS)
    else:
        frames = list(_MENTIONS_TO_CUSTOMER) + (list(_MENTIONS_AMONG_STAFF) if audience == "staff" else [])
    rng.shuffle(frames)
    twins = _twin_frames(fact, audience, rng)
    deferred = deferred_statement(fact, published_in) if published_in and audience != "reader" else ""
    if deferred:  # written as it stands: no "{subject}" to fill, braces kept literal
        twins.insert(rng.randint(0, len(twins)), deferred.replace("{", "{{").replace("}", "}}"))
    if twins:
        frames = twins + frames if rng.random() < twin_share else frames + twins
    value_key = fact.value.model_dump_json() if fact.value is not None else ""
    texts = (_mention_line(frame, said or "", subject, fact.value, value_key) for frame in frames)
    return (text for text in texts if text)  # every draw is made above: the lines are filled as they are read


_MENTION_LINES: dict[tuple[str, str, str, str], str] = {}


def _mention_line(frame: str, said: str, subject: str, value: Any, value_key: str) -> str:
    """``frame`` filled with the ``said`` wording of the subject, or (a spoken wording that doubles a word)
    with ``subject`` as written; "" when both double a word ("... hotel stays stays where it is": not this
    frame at all) or the line holds a surface form of ``value`` (a mention names no value). Remembered by
    ``value_key`` (the value's JSON) and the words: a plan asks for the same fact's lines in many records."""
    key = (frame, said, subject, value_key)
    if key not in _MENTION_LINES:
        if len(_MENTION_LINES) >= 200_000:
            _MENTION_LINES.clear()
        line = ""
        for wording in ([said] if said else []) + [subject]:
            text = frame.format(subject=wording, Subject=wording[:1].upper() + wording[1:])
            if not has_doubled_words(text):
                line = text if value is None or find_surface_form(value, text) is None else ""
                break
        _MENTION_LINES[key] = line
    return _MENTION_LINES[key]


def _frames_of(fact: Fact) -> tuple[str, ...]:
    """The frames a voiced rendition of ``fact`` is said in (:func:`voiced_text`); empty for the facts no
    frame voices (no typed value, or a category whose rule a frame would cut short)."""
    value = fact.value
    if value is None or value.type not in _FRAMES or fact.category not in _FRAMED_CATEGORIES:
        return ()
    return _FEE_FRAMES if value.type == "money" and fact.category == "fee" else _FRAMES[value.type]


def stand_ins(fact: Fact) -> tuple[str, ...]:
    """The stand-ins a framed rule of ``fact`` holds beside or in place of its value ("the published amount",
    "what the rate sheet shows"); empty for a fact no frame voices (see :func:`with_stand_in`)."""
    if not _frames_of(fact):
        return ()
    value = fact.value
    return _STAND_INS["fee" if value.type == "money" and fact.category == "fee" else value.type]  # type: ignore[union-attr]


def _twin_frames(fact: Fact, audience: str, rng: random.Random) -> list[str]:
    """Every twin of the frames a voiced rendition of ``fact`` is said in: the frame with each of the
    fact's stand-ins (:data:`_STAND_INS`) where the value stands and each of ``audience``'s tails in place of
    its closing full stop, in a seeded order, still holding ``{subject}``; empty for facts no frame voices
    and for audiences without tails (a meeting's outcomes and a help page's questions have lines of their
    own)."""
    frames = _frames_of(fact)
    if audience not in _TWIN_TAILS or not frames:
        return []
    lines = [frame.replace("{value}", stand_in)[:-1] + f", {tail}." for frame in frames
             for stand_in in stand_ins(fact) for tail in _TWIN_TAILS[audience]]
    rng.shuffle(lines)
    return lines


@functools.lru_cache(maxsize=4096)
def _framed_pattern(frame: str, form: str) -> re.Pattern[str]:
    parts = re.split(r"(\{subject\}|\{Subject\}|\{value\})", frame)
    pattern = "".join(".+?" if part in ("{subject}", "{Subject}") else f"({re.escape(form)})" if part == "{value}"
                      else re.escape(part) for part in parts)
    return re.compile(pattern + "$")


def said_in_frame(fact: Fact, text: str, form: str) -> re.Match[str] | None:
    """The match of ``text`` (a rendition of ``fact`` stating its value as ``form``) against one of the
    frames a voiced rendition of the fact is said in (:func:`voiced_text`), the value's span its group 1;
    None when ``form`` is empty or no frame gives ``text`` (the canonical statement, a hand-written
    voicing)."""
    if not form:
        return None
    return next((m for frame in _frames_of(fact) if (m := _framed_pattern(frame, form).match(text))), None)


def with_stand_in(fact: Fact, text: str, form: str, audience: str, rng: random.Random) -> str:
    """``text`` (a voiced rendition of ``fact`` said to ``audience``, stating the value as ``form``) with,
    with probability :data:`TWIN_SHARE`, one of the fact's stand-ins beside its value and one of the
    audience's tails in place of its closing full stop ("We charge thirty dollars, the published amount,
    for a wire, and I'll send you the page after this."): the words a twin of the frame holds
    (:func:`mention_lines`), in a rule's slot at the rate they are in a mention's. One draw from ``rng``
    when ``text`` was said in one of the fact's frames, none otherwise; ``text`` unchanged then, for an
    audience without tails, and where the result would write a word twice or share a run of
    :data:`SHINGLE` words with the fact's statement (a voiced rendition never does)."""
    if audience not in _TWIN_TAILS:
        return text
    match = said_in_frame(fact, text, form)
    if match is None or rng.random() >= TWIN_SHARE:
        return text
    stand_in = rng.choice(stand_ins(fact))
    after = text[match.end(1):]
    joined = f"{text[:match.end(1)]}, {stand_in}" + ("" if after[:1] in (",", ".") else ",") + after
    tailed = f"{joined[:-1]}, {rng.choice(_TWIN_TAILS[audience])}."
    return text if has_doubled_words(tailed) or shares_run(tailed, fact.statement) else tailed


def framed_text(fact: Fact, value, rng: random.Random, spoken: bool = True,
                subject: str | None = None) -> tuple[str, str]:
    """``fact``'s subject with another ``value`` of its type, in one of the frames voiced renditions use
    (``"For the wire fee, the number is thirty dollars."``), and the value form used: the words a rule's
    slot has, holding a figure that is not the rule's (a decoy's wrong value, another organisation's
    figure). ``spoken`` writes the value as a voiced rendition does (``thirty dollars``), otherwise in its
    canonical form (``$30.00``).

    The subject is worded as cues word it (never sharing a run of five words with the statement), so a
    record holding the text never restates the statement with another value (K13); ``subject`` words it
    otherwise (another organisation's wording names the subject whole, never "that one"). Returns ``('', '')``
    when the fact has no subject or no frame for the value's type, or when no frame carries ``value``
    without also carrying the fact's own value.
    """
    if fact.value is None or value is None or not fact.subject or value.type not in _FRAMES:
        return "", ""
    written = rng.choice(value.voiced_forms()) if spoken else value.canonical()
    frames = list(_FEE_FRAMES if value.type == "money" and fact.category == "fee" else _FRAMES[value.type])
    rng.shuffle(frames)
    subject = subject or _subject(fact)
    for frame in frames:
        text = frame.format(subject=subject, Subject=subject[:1].upper() + subject[1:], value=written)
        form = find_surface_form(value, text)
        if form is not None and find_surface_form(fact.value, text) is None:
            return text, form
    return "", ""


def decoy_text(fact: Fact, value, rng: random.Random) -> tuple[str, str]:
    """``fact`` stated with the wrong ``value`` (a decoy of a contested fact) and the form used.

    Uses a voiced frame when the fact has a subject and a framed category, else the canonical
    statement with its value swapped. Returns ``('', '')`` when neither states the decoy value.
    """
    forms = [f for f in value.surface_forms()] if value is not None else []
    if fact.value is None or not forms:
        return "", ""
    text, form = framed_text(fact, value, rng)
    if text:
        return text, form
    true_form = find_surface_form(fact.value, fact.statement)
    if true_form:
        index = fact.statement.lower().find(true_form.lower())
        if index >= 0:
            text = fact.statement[:index] + value.canonical() + fact.statement[index + len(true_form):]
            form = find_surface_form(value, text)
            if form is not None and find_surface_form(fact.value, text) is None:
                return text, form
    return "", ""


_COPULA = re.compile(r"\b(is|are|costs?)\s+$", re.IGNORECASE)
_PREPOSITION = re.compile(r"\b(by|until|within|after|before)\s+(?:the\s+(?:last|past|first|next)\s+)?$", re.IGNORECASE)
_NAMED_FIGURE = re.compile(r"\b(?:an?)\s+((?:[a-z][\w'-]*\s+){0,3}?(?:margin|deposit|yield|rate|balance|fee|charge|"
                           r"minimum|premium|discount|rebate|credit|bonus))\s+of\s+$", re.IGNORECASE)
"""A figure named by a noun before "of" ("a margin of 1.5%", "a minimum deposit of $5000.00"): the noun
phrase, which the deferred statement keeps ("the margin shown on the rates page")."""
_NUMBERS = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                      r"thirty|forty|fifty|sixty|ninety|hundred|thousand|million|half|once|twice|noon|midnight)\b",
                      re.IGNORECASE)
_CLOCK = re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:AM|PM|a\.m\.|p\.m\.)(?!\w)", re.IGNORECASE)
_DAY = re.compile(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)"
                  r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,\s*\d{4})?\b")
_HOURS = re.compile(r"\bfrom\s+\d{1,2}(?::\d{2})?\s?(?:AM|PM)\s+(?:until|to)\s+(?:\d{1,2}(?::\d{2})?\s?(?:AM|PM)|noon)",
                    re.IGNORECASE)
_ZONE = re.compile(r"^\s+(?:(?:Central|Eastern|Mountain|Pacific)(?:\s+(?:Standard|Daylight))?\s+Time|[CEMP][SD]?T)\b")
PUBLISHED_KINDS = ("money", "percent", "cap", "duration", "date", "time", "hours")
"""What a page may defer to where the business publishes it: a figure after "is", "are" or "costs"
(``money``, ``percent``, ``cap``: the place, as written after "is"), a span, a day or a clock time
after "by", "until", "within", "after" or "before" (``duration``, ``date``, ``time``: a noun phrase), and
opening hours ("from 9:00 AM until noon"; ``hours``: a noun phrase said after "during")."""


def _deferred_span(fact: Fact, statement: str) -> tuple[str, int, int] | None:
    """(kind, start, end) of the figure in ``statement`` that a page may defer, or None: the value's own
    form for money, percent, cap, duration and date values; for a rule stated in words (``text``), a key
    term that is or holds a clock time ("2:00 PM", a time zone after it included) or a day of the year, or
    that closes a range of opening hours ("from 9:00 AM until 12:00 PM")."""
    value = fact.value
    if value.type in ("money", "percent", "cap", "duration", "date"):
        form = find_surface_form(value, statement)
        match = re.search(re.escape(form), statement, re.IGNORECASE) if form else None
        return (value.type, match.start(), match.end()) if match else None
    if value.type != "text":
        return None
    hours = _HOURS.search(statement)
    if hours is not None and any(term.lower() in hours.group(0).lower() for term in value.key_terms):
        return "hours", hours.start(), hours.end()
    for term in value.key_terms:
        at = statement.lower().find(term.lower())
        if at < 0:
            continue
        for kind, pattern in (("time", _CLOCK), ("date", _DAY)):
            found = pattern.search(statement, at, at + len(term))
            if found:
                end = found.end()
                zone = _ZONE.match(statement[end:]) if kind == "time" else None
                return kind, found.start(), end + (zone.end() if zone else 0)
    return None


def deferred_statement(fact: Fact, published_in: Mapping[str, str]) -> str:
    """``fact``'s own statement with its figure deferred to where the business publishes such figures
    (``published_in``, by :data:`PUBLISHED_KINDS`: the pack's ``common.published_in``): what a help page
    answers, a process step says, or a mention says about a subject without giving the value. "Annual
    rent for a small box is $50.00." → "Annual rent for a small box is set out in the fee schedule.";
    "The Lakeshore branch takes in-person wire requests until 2:00 PM Central Time on business days." →
    "... until the cut-off time shown on the branch page on business days."; "...
    files its Maine report each year by April 30." → "... by the date set out in the filing calendar.";
    "On Saturdays the Elm Street branch is open from 9:00 AM until noon." → "... is open during the hours
    listed in the branch directory."
    "... includes a margin of 1.5% over the wholesale rate." → "... includes the margin shown on the rates
    page over the wholesale rate."; "... if it was signed within the last 3 years." → "... signed within
    the period set out in the account terms."
    Money, percents and caps only after "is", "are" or "costs", or after a noun that names the figure
    ("a margin of", "a minimum deposit of"; never a bound, "of $100.00 or less"); durations, days and clock
    times only after "by", "until", "within", "after" or "before" (and "the last", "the first" ... after
    them) and not before "of"; and only where the sentence then
    holds no other number (digit or number word, "noon" included). ``""`` otherwise (other value types,
    other shapes, a kind the pack names no place for)."""
    if fact.value is None:
        return ""
    statement = (fact.statement or "").strip()
    span = _deferred_span(fact, statement)
    if span is None or span[0] not in published_in:
        return ""
    kind, start, end = span
    if kind in ("money", "percent", "cap"):
        if re.match(r"\s+(?:of|times)\b", statement[end:]):
            return ""  # "is 3% of each purchase": "is shown on the rates page of each purchase" says nothing
        copula = _COPULA.search(statement[:start])
        if copula is not None:
            verb = copula.group(1)
            if verb.lower() in ("costs", "cost"):  # "costs $12.00 per day" → "costs the amount set out in ... per day"
                verb += " the amount"
            text = f"{statement[:copula.start()]}{verb} {published_in[kind]}{statement[end:]}"
        else:  # "includes a margin of 1.5% over ..." → "includes the margin shown on the rates page over ..."
            named = _NAMED_FIGURE.search(statement[:start])
            if named is None or re.match(r"\s+or\s+(?:less|more|above|below)\b", statement[end:]):
                return ""  # no noun names the figure, or it is a bound ("of $100.00 or less")
            text = f"{statement[:named.start()]}the {named.group(1)} {published_in[kind]}{statement[end:]}"
    elif kind == "hours":  # "is open from 9:00 AM until noon" → "is open during the hours listed in ..."
        text = f"{statement[:start]}during {published_in[kind]}{statement[end:]}"
    else:
        preposition = _PREPOSITION.search(statement[:start])
        if preposition is None or re.match(r"\s+of\b", statement[end:]):
            return ""  # "within 90 days of opening" has no place in it: "within the period set out ... of opening"
        # "within the last 3 years" → "within the period set out in ...": the place replaces "the last"
        text = f"{statement[:preposition.end(1)]} {published_in[kind]}{statement[end:]}"
    return "" if _NUMBERS.search(text) else text

