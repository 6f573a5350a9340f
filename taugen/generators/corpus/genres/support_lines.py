"""What people say in a support conversation: the phrase pools and line makers of chats and calls.

The ``support_transcript`` genre builds its conversations from these lines (and the ``call_recording``
genre its calls, the ``meeting_transcript`` genre borrows the history framing): greetings, identity
checks, customers' questions and reasons for contact, the agent's leads and tails around a rule,
reactions, holds and goodbyes, and the lines that fill a slot with no rule (the customer's own history
with the business, a peer's published figure). No digits and no number words in the pools: a generic
line must never look like a policy value.
"""

from __future__ import annotations

import datetime as dt
import random

from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    RenderContext,
    Rendition,
    shown_as_history,
)
from taugen.generators.corpus.prose import has_doubled_words
from taugen.generators.corpus.renditions import TWIN_SHARE, stand_ins

RELATIVES = {"husband": "male", "wife": "female", "son": "male", "daughter": "female", "mother": "female",
             "father": "male", "brother": "male", "sister": "female", "partner": "", "aunt": "female"}
"""A customer's relative and the gender the word gives (``""``: either), so the first name fits it: "my
father Sarah" was the kind of slip a reader notices."""


def relative_name(rng: random.Random, fake) -> tuple[str, str]:
    """``(relation, first name)``: a relative from :data:`RELATIVES` and a first name of the gender the
    relation gives (Faker's ``first_name_male`` / ``first_name_female``; either for a partner)."""
    relation = rng.choice(sorted(RELATIVES))
    gender = RELATIVES[relation] or rng.choice(("male", "female"))
    return relation, (fake.first_name_male() if gender == "male" else fake.first_name_female())


def home_region(plan: ArtifactPlan, context: RenderContext) -> str:
    """Where the plan's customer lives (one of :attr:`CommonWords.regions`, drawn from a generator of its
    own), or '' when the pack names no region."""
    regions = context.vocabulary.common.regions
    return plan.rng("customer region").choice(regions) if regions else ""


def reason_detail(plan: ArtifactPlan, context: RenderContext, home: str = "", reason: str = "") -> str:
    """A clause that makes one customer's reason for contact their own (a town, one of the business's sites,
    a region other than ``home`` (the customer's own), a merchant, a relative): one of the pack's clauses
    that fit any reason or of those that fit the plan's section. A ``reason`` that already
    names a relative ("I'm calling on behalf of my mother") gets no clause naming another one."""
    rng = plan.rng("reason detail")
    fake = plan.faker(context.config.locale, "reason detail")
    words = context.vocabulary.words("support_transcript")
    details = list(words.reason_details) + list(words.reason_details_by_section.get(plan.topic, ()))  # type: ignore[attr-defined]
    if any(f"my {relation}" in reason for relation in RELATIVES):
        details = [d for d in details if "{relative}" not in d] or details
    common = context.vocabulary.common
    town = fake.city()
    relative, relfirst = relative_name(rng, fake)
    return rng.choice(details).format(
        town=town, merchant=fake.company().replace(",", "").replace(".", ""), relative=relative,
        relfirst=relfirst, weekday=rng.choice(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                                        "Saturday", "Sunday")), site=common.site,
        site_name=rng.choice(common.site_names) if common.site_names else town,
        region=rng.choice([r for r in common.regions if r != home] or common.regions) if common.regions else town)


GENERIC_REASONS = (
    "I have a question about {topic_l}",
    "I was reading about {topic_l} on your website and got confused",
    "I need some help with {topic_l}",
    "I wanted to check something about {topic_l}",
)

# (question variants, answer variants); {online} and {site} are the domain's words (CommonWords)
GENERIC_PAD: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
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
    (("Will I get something in writing to confirm this?", "Can you send me a confirmation of what we went over?"),
     ("Yes, a summary of today's conversation will be in your secure inbox within the hour.",
      "Of course. I'll send a confirmation to the email address on your profile.",
      "Sure. You'll find the summary under Messages once you log in.")),
    (("Thanks for being so patient with me.", "Sorry, I know this is a lot of questions."),
     ("Not at all, that's what I'm here for.", "No need to apologise at all.",
      "Happy to help, take all the time you need.")),
)
PHONE_GREETINGS = (  # the team a line belongs to varies the greeting, so agents sharing a first name differ
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
PHONE_REPLIES = (
    "Hi {agent}, it's {customer}. {Reason}.",
    "Hi, yes. {Reason}.",
    "Hello. My name is {customer}, and {reason}.",
    "Yeah, hi, {reason}.",
    "Hi there. So, {reason}.",
    "Good {daypart}. {Reason}, and I was hoping you could help.",
)
PHONE_NAMED_REPLIES = (
    "This is {customer}. {Reason}.",
    "Hi, it's {customer}. {Reason}.",
    "My name's {customer}. {Reason}.",
)
CHAT_WELCOMES = (
    "Hello and welcome to {brand} chat. My name is {agent}. What can I help you with today?",
    "Hi there, you're chatting with {agent} from {brand}. How can I help?",
    "Thanks for contacting {brand}. I'm {agent}. What brings you here today?",
)
CHAT_JOINS = (
    "Hi {customer_first}, thanks for reaching out to {brand}. I'm {agent} and I can help with that.",
    "Hello {customer_first}! {agent} here. I've read your message and I'm happy to help.",
    "Hi {customer_first}, I'm {agent}. Thanks for waiting, let me take a look.",
    "Good {daypart} {customer_first}, this is {agent} with {brand}. I can help with that.",
)
CHAT_OPENERS = (
    "{Reason}.",
    "Hello, {reason}.",
    "hi, {reason}",
    "Question about {topic_l}: {reason}.",
    "Hi. {Reason}, can someone help?",
)
VERIFY = (
    ("To start, can you confirm the address we have on file?",
     "Sure, it's {street}, {city}."),
    ("For security, can you verify your date of birth for me?",
     "Yes, it's {dob}."),
    ("I just need to verify you first. What's the email address on your profile?",
     "It's {email}."),
)
VERIFY_THANKS = (
    "Thank you, you're verified.",
    "Perfect, thanks. That matches.",
    "Great, thank you for confirming.",
    "Got it, thanks.",
)

QUESTIONS = (
    "What's the {subject}?",
    "Can you tell me about the {subject}?",
    "How does the {subject} work?",
    "And the {subject}? What's the rule there?",
    "I also wanted to ask about the {subject}.",
    "Quick question on the {subject}.",
    "What should I expect for the {subject}?",
)
QUESTIONS_NO_SUBJECT = (
    "How does that work?",
    "What's the rule on that?",
    "Can you explain how that works?",
    "So what happens in my case?",
)
HISTORY_QUESTIONS = (
    "Has the {subject} changed? I remember it being different.",
    "I thought the {subject} used to be different. Am I wrong?",
    "Someone told me the {subject} changed recently. What was it before?",
    "Last time I dealt with this the {subject} wasn't the same, was it?",
)
FOLLOW_QUESTIONS = (
    "So what is it now?",
    "Okay, and how does it work today?",
    "And what's the rule now?",
    "Right. So what applies to me now?",
)
AGENT_ACKS = (
    "Sure.", "Good question.", "Of course.", "Happy to explain.", "Absolutely.", "Yes, I can help with that.",
    "Let me check that for you.", "Thanks for waiting.", "Okay, I have that in front of me.", "Right.",
)
AGENT_LEADS = {
    "chat": (
        "Here's how it works.", "I've pulled up our current terms.", "This comes straight from our {topic_l} terms.",
        "I'll paste the exact wording here:", "Per our current schedule:", "I've got the details on my screen.",
    ),
    "phone": (
        "Here's how it works.", "I've pulled up our current terms.", "Let me read you the current terms.",
        "So, going by our {topic_l} terms:", "I've got the details on my screen.", "Per our current schedule:",
    ),
}
AGENT_LEADS_COMMA = ("So, ", "Right, so ", "Okay, so ", "Yes, ")
CURRENT_AFTER_HISTORY = (
    "As of now, it's this:", "Today the rule is this:", "Under the current schedule:", "Going forward, this applies:",
)
QUESTION_TAILS = 5
"""The first tails of :data:`AGENT_TAILS`: a question back (or an offer), fit after any answer."""
AGENT_TAILS = (
    "Does that help?", "Does that answer your question?", "I can send that to your secure inbox too if you like.",
    "Let me know if you want me to go over any part of that.", "Is that what you were looking for?",
    # what an agent adds after a rule it states: the words a mention's own line uses
    "I've added a note to your file as well.", "I'll send the details over in writing too.",
    "I'll put that in the summary I send you after this.", "I've noted it on today's call so it's on record.",
)
# A slot's grounded figures (both kinds of slot draw from these, so neither gives the other away): the
# customer quoting another organisation's published figure for the subject, and the agent reading the
# customer's own contact history (a date, a count) off the file. No pool line names a rule of the business.
PEER_QUESTIONS = (  # the figure is spoken as a rule's voiced value is ("thirty-five dollars"); any kind of figure
    "I saw {P} lists {V} for {S}. How does yours compare?",
    "{P}'s website gives {V} for {S}. Is it the same here?",
    "Heads up, {P} says {V} for {S}. Where are you on that?",
)
PEER_PRICE_QUESTIONS = (  # only a fee's figure: a limit, a waiver threshold or a number of days is not charged
    "{P} told me it comes to {V} for {S}. Is it the same here?",
    "My friend is with {P} and they charge {V} for {S}. What about you?",
    "Heads up, {P} quoted me {V} for {S}. Where are you on that?",
)
PRICE_CATEGORIES = frozenset({"fee", "fees"})
"""Categories whose figure is a price, which a customer says another organisation *charges*."""
PEER_ANSWERS = (  # how the agent starts answering a question that quoted another organisation's figure
    "I can only speak for our own terms.", "I can't speak for them, but I can tell you ours.",
    "Everyone sets their own, so let me give you ours.", "I can't comment on their pricing, only ours.",
)
PEER_QUOTES = (  # the customer reads out the peer's own wording: the frame a rule's slot uses, quoted
    '{P}\'s website says: "{Q}" Is it the same with you?',
    'I have a letter from {P} that says "{Q}" How does yours compare?',
    '{P} told me, and I wrote it down: "{Q}" What about here?',
)
HISTORY_LINES = (  # counts spoken, as a voiced value is
    "I can see you asked about this on {D} as well.",
    "There's a note on your file from {D}, when this came up before.",
    "Your profile shows {N} earlier contacts about this, the last on {D}.",
    "I see this came up on your account on {D} too.",
    "Looking at your file, you called about this on {D}, and again {W} days later.",
    "I can see {N} notes on your profile about this since {D}.",
    "You wrote to us about this on {D}, and we answered {W} business days later.",
    "When you asked about this on {D}, we sent you the details {W} days later.",
)
"""Contact history fit for any subject, a fee's as well as a request's: "Your last request about this
took four business days" read as a non-sequitur before a withdrawal limit."""
AMOUNT_LINES = (  # the customer's own transactions, where the subject is priced in a currency
    "I can see the {A} payment from {D} on your account.",
    "Your statement shows {A} going out on {D}.",
    "There's a transaction for {A} on {D} that I can see here.",
    "On {D} your statement shows a payment of {A}.",
    "The last one on your account, on {D}, came to {A}.",
)
GROUNDED_SHARE = 0.45
"""Share of rule statements that the agent opens with a line from the customer's own contact history; a
slot that names a rule without stating it (a mention) always gets one when a free figure exists."""
PEER_SHARE = 0.5
"""Share of slots about a comparable subject whose question quotes another organisation's figure."""
SPOKEN_COUNTS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")


HISTORY_PAST = (
    "You're right that it changed. Until the new schedule took effect on {date}, it worked like this:",
    "That was the old rule. Before {date}, our terms said:",
    "For reference, the rule before the {date} change was:",
    "Up to {date}, the schedule read:",
    "Yes, there was an update on {date}. Before that:",
    "Good memory. Until {date}, it was:",
)
HISTORY_TAILS_PAST = ("That no longer applies.", "That's been replaced.", "That's the older version, though.",
                       "But that's history now.", "That's not the case anymore.")
REACTIONS = (
    "Okay, that makes sense.", "Got it.", "Oh, okay. Good to know.", "Alright, thanks for explaining.", "Okay.",
    "I see.", "That's helpful, thank you.", "Oh wow, okay.", "Fair enough.", "Okay, I can work with that.",
    "Great, that's clearer now.", "Hm, okay.", "Understood.",
)
HOLDS = (  # (the agent's line, the customer's reply, the wait that follows: support_conversation.WAIT_SECONDS)
    ("Let me pull up your account. Bear with me a moment.", "Sure, take your time.", "lookup"),
    ("Give me a moment while I check that.", "No problem.", "lookup"),
    ("I'm just looking that up for you.", "Okay.", "lookup"),
    ("Can you hold briefly while I check?", "Yes, that's fine.", "hold"),
    ("Do you mind waiting a minute while I check with the back office?", "Sure, go ahead.", "hold"),
    ("I'd like to confirm that with a colleague. Can you bear with me for a few minutes?", "Of course.", "hold"),
    ("Let me look into that properly, it may take a minute or two.", "That's fine, I'll wait.", "hold"),
)
HOLD_THANKS = ("Thanks for holding.", "Thank you for waiting.", "Sorry about the wait.", "Thanks for bearing with me.")
"""How the agent comes back from a hold, before the answer."""
FILLER_ANSWERS = (
    ("I can help with that. The details for your account are in the {topic_l} part of our disclosures, and I can "
    "walk you through them."),
    ("Okay, I can see what happened there. I've added a note to your account, and you'll get a summary in your "
    "secure inbox."),
    ("Let me take a look. Alright, everything on your account looks in order. It's mostly a matter of where to "
    "find the right option."),
    "Sure. That's handled by our {topic_l} team, and I can start the request for you right now.",
    "Understood. I've opened a request for you, and someone from the {topic_l} team will follow up.",
)
CUSTOMER_DONE = (
    "Okay, I think that's everything.", "That's all I needed, thanks.", "Great, that covers it.",
    "Perfect. Thanks for your help.", "Alright, that answers my question.",
)
AGENT_ANYTHING = (
    "Is there anything else I can help you with today?", "Anything else I can do for you?",
    "Can I help with anything else while I have you?", "Is there anything else on your mind?",
)
CUSTOMER_NO = ("No, that's it. Thanks!", "Nope, that's all.", "No, you've been really helpful.",
                "No, I'm good. Thank you.", "That's everything, thanks.")


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
    return rng.choice(HISTORY_PAST).format(date=label), rng.choice(HISTORY_TAILS_PAST)


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


def pick_line(rng: random.Random, pool, brief: bool = False, limit: int = 64):
    """A random pool entry; in ``brief`` mode only entries whose text is at most ``limit`` chars."""
    options = list(pool)
    if brief:
        short = [item for item in options if len(item if isinstance(item, str) else " ".join(item)) <= limit]
        options = short or sorted(options, key=lambda item: len(item if isinstance(item, str) else " ".join(item)))[:1]
    return rng.choice(options)


def guarded_values(plan: ArtifactPlan, context: RenderContext, fact) -> list:
    """Values a slot's grounded figure must not equal: every value the plan's facts have, and every value
    any version of ``fact``'s subject ever had."""
    from taugen.generators.corpus.genres.benchmarks import avoided_values, values_among

    values = [f.value for f in plan.facts.values() if f.value is not None]
    if fact is not None:
        values += values_among(context, avoided_values(context, fact, plan.facts.values()))
    return values


def free_of(line: str, guarded: list) -> bool:
    """Whether a drawn ``line`` may be written: it states none of the ``guarded`` values and writes no word
    twice (a spoken 1.55 % reads "one point five five percent", which the realism gate rejects: draw again,
    since mending the words would change the figure)."""
    return not has_doubled_words(line) and not any(find_surface_form(value, line) is not None for value in guarded)


def history_line(rng: random.Random, plan: ArtifactPlan, context: RenderContext, fact, day: dt.date,
                 brief: bool = False, used: set[str] | None = None) -> str:
    """A line the agent reads off the customer's own file about the slot's subject: an earlier contact's
    date (and a count of them) or, half the time for a subject priced in a currency, one of the customer's
    own transactions (a spoken amount), none equal to a value of the plan's facts or of ``fact``'s subject,
    in a line that writes no word twice. ``used`` holds the lines' templates this conversation has said
    (each is said once; the one chosen is added). Returns '' when twenty draws found no free figure."""
    from taugen.authoring.values import MoneyValue

    used = set() if used is None else used
    guarded = guarded_values(plan, context, fact)
    pool = [line for line in HISTORY_LINES if not brief or len(line) <= 60] or list(HISTORY_LINES)
    currency = getattr(getattr(fact, "value", None), "currency", None)
    if currency and rng.random() < 0.5:
        pool = list(AMOUNT_LINES)
    pool = [line for line in pool if line not in used] or pool
    for _ in range(20):
        earlier = day - dt.timedelta(days=rng.randint(9, 240))
        amount = MoneyValue(amount=f"{rng.randint(8, 480)}.{rng.choice((0, 0, 25, 50, 75, 99)):02d}",
                            currency=currency) if currency else None
        template = rng.choice(pool)
        line = template.format(D=spoken_date(earlier), N=SPOKEN_COUNTS[rng.randint(2, 6)],
                               W=SPOKEN_COUNTS[rng.randint(2, 8)], A=rng.choice(amount.voiced_forms()) if amount else "")
        if free_of(line, guarded):
            used.add(template)
            return line
    return ""


def peer_question(rng: random.Random, plan: ArtifactPlan, context: RenderContext, fact, subject: str,
                  peer: str) -> str:
    """The customer's question quoting ``peer``'s published figure for ``fact``'s subject (a comparable
    subject: a numeric value of a commercial category, no proper name), half the time in the peer's own
    words (the frame a rule's slot uses, quoted), otherwise, at the rate a rule said to a customer gets one
    (:data:`~taugen.generators.corpus.renditions.TWIN_SHARE`), with one of the rule's stand-ins beside the
    figure ("ten dollars, the published amount on their site"): the words beside a rule's value are then
    beside a peer's too. The figure equals no value any fact on the subject ever had nor a value of the
    plan's facts, and the line writes no word twice (a spoken 1.55 % does: another figure is drawn); only a
    fee's figure is said to be charged or quoted (:data:`PEER_PRICE_QUESTIONS`), not a limit, a waiver's
    threshold or a number of days. '' for any other subject."""
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
    guarded = guarded_values(plan, context, fact)
    priced = fact.category in PRICE_CATEGORIES and fact.value.type in ("money", "percent")
    questions = PEER_QUESTIONS + PEER_PRICE_QUESTIONS if priced else PEER_QUESTIONS
    for _ in range(10):
        value = peer_value(rng, fact, avoid)
        line = peer_quote(rng, context, fact, value, peer, True, subject=subject, leads=PEER_QUOTES) \
            if rng.random() < QUOTE_SHARE else ""
        if not line:  # the peer's figure with one of the rule's stand-ins beside it, as often as a rule gets one
            figure, beside = rng.choice(value.voiced_forms()), stand_ins(fact)
            if beside and rng.random() < TWIN_SHARE:
                figure = f"{figure}, {rng.choice(beside)} on their site,"
            line = rng.choice(questions).format(P=peer, V=figure, S=subject).replace(",.", ".")
        if free_of(line, guarded):
            return line
        avoid.add(value.canonical())
    return ""
