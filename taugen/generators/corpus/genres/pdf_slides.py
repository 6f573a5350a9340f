"""What a slide deck of the ``pdf_document`` genre says: one process for carriers and fillers.

A deck's rule slides hold its renditions (:func:`rules_in_force`); slides of the same shape hold other
subjects of the topic with a grounded figure that is no rule of the business (:func:`subject_items`: a
peer's published figure, how often customers asked, a working note); working-note slides
(:func:`working_slides`) bring every deck to the length the planner gave it (:func:`deck_words` counts
it). Layout comes from :mod:`~taugen.generators.corpus.genres.pdf_layout`.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from reportlab.platypus import Flowable, Paragraph, Spacer

from taugen.generators.corpus.genre import ArtifactPlan, RenderContext
from taugen.generators.corpus.genres.benchmarks import month_and_year
from taugen.text import mid_sentence
from taugen.generators.corpus.genres.pdf_layout import (
    HANDBOOK_FRAME,
    heading_for,
    kept_whole,
    make_paragraph,
    products_label,
)

if TYPE_CHECKING:
    from taugen.authoring.models import Fact


_SLOT_COUNTS = (1, 1, 2, 2, 3, 4, 5)
"""How many subjects a deck without rules covers with a grounded figure when the planner gave no
``rule_slots`` (which holds a deck with rules' count)."""
_PEER_BULLETS = ("For comparison, {P} publishes {V} for {S}",
                 "{P}'s published terms list {V} for {S}",
                 "Customers who are also with {P} may quote {V} for {S}; that is {P}'s figure, not ours",
                 "{P}'s current published terms give {V} for {S}")  # any figure: a limit or a day count is not charged
_VOLUME_BULLETS = ("In {MONTH}, {N} customers asked about {S}",
                   "{S} came up in {N} calls and chats in {MONTH}",
                   "We logged {N} questions about {S} in {MONTH}",
                   "{N} complaints in {MONTH} mentioned {S}")
_NOTE_BULLETS = ("Customers often ask about {S} after a bill or statement arrives",
                 "Most questions about {S} come in by phone; some arrive by secure message",
                 "Check which product the customer holds before answering a question about {S}",
                 "Questions about {S} are usually answered on the first contact")
_WORKING_SLIDES = (  # (heading, bullets): working notes of a team briefing; {topic} {team} {brand} {M} month
    ("Why this briefing", ("Customers ask us about {topic} in person, by phone and in chat",
                           "We want every answer to be consistent, accurate and well recorded",
                           "{team} owns the reference material for this subject",
                           "This briefing replaces the notes circulated before {M}",
                           "Team leaders will run a short refresher at the next huddle")),
    ("Handling the conversation", ("Confirm who you are speaking to before discussing the account",
                                   "Listen to the full request and repeat it back",
                                   "Check the staff reference before you quote a rule",
                                   "Offer a written summary when the customer asks for one",
                                   "Use plain words and avoid internal terms")),
    ("Records and referrals", ("Note the outcome and any promise you made in the case notes",
                               "Refer requests outside the reference to {team}",
                               "Log complaints the same day and tell the customer who will contact them",
                               "Attach copies of letters and forms the customer sends in")),
    ("What customers tell us", ("Many customers contact us only after something has gone wrong",
                                "Customers want one clear answer, not a list of options",
                                "Several asked for the rules to be sent by email after the call",
                                "Long hold times are the most common complaint about {topic}")),
    ("Common mistakes", ("Quoting from memory instead of the current reference",
                         "Promising a call back without booking it in the case system",
                         "Closing a case before the customer has confirmed the outcome",
                         "Answering for another product than the one the customer holds")),
    ("Quality review findings", ("Reviewers sampled calls and chats about {topic} in {M}",
                                 "Most answers were accurate and well explained",
                                 "Case notes were the weakest area: outcomes were often missing",
                                 "Good examples will be shared in the team channel")),
    ("Escalations", ("Escalate to a team leader when the customer asks for a decision you cannot make",
                     "Urgent cases go to {team} by phone, not by email",
                     "Tell the customer who will contact them next and by when",
                     "Record the escalation and its reason in the case notes")),
    ("Customer letters and messages", ("Use the approved letters from the library; never edit a template",
                                       "Send the published customer material rather than your own summary",
                                       "Check the customer's preferred contact channel before sending",
                                       "Ask the content team when a letter seems out of date")),
    ("Vulnerable customers", ("Take extra time and check the customer has understood",
                              "Offer to speak with someone the customer trusts, with their consent",
                              "Record any support needs so the customer does not have to repeat them",
                              "Ask a team leader when you are unsure what help to offer")),
    ("Working with other teams", ("{team} answers questions from front-line colleagues",
                                  "Product questions go to the product owners through the usual queue",
                                  "Share feedback on the reference with {team} at any time",
                                  "Do not forward customer data by personal email")),
    ("Keeping up to date", ("Read the reference again after each reissue",
                            "Check the last-reviewed date before quoting a page",
                            "New starters read this briefing during induction",
                            "Ask {team} when the reference and customer material disagree")),
    ("Next steps", ("Team leaders share this deck at the next huddle",
                    "Questions collected in {M} will be answered in the next issue",
                    "Suggestions for the next briefing go to {team}",
                    "Please confirm you have read this briefing")),
)


def word_count(text: str) -> int:
    return len(text.split())


def deck_words(slides: list[tuple[str, list[Flowable], tuple[str, ...]]], footer: str) -> int:
    """Words a deck's slides put on its pages: heading twice (the slide and the agenda), items, footer."""
    total = 0
    for heading, items, _ids in slides:
        total += 2 * word_count(heading) + word_count(footer) + 1
        total += sum(word_count(item.getPlainText()) for item in items if isinstance(item, Paragraph))
    return total


def subject_items(rng, plan: ArtifactPlan, context: RenderContext, day: dt.date,
                   has_rules: bool) -> list[tuple["Fact", str, str]]:
    """Bullets shaped like rule bullets about other subjects of the deck's topic, each holding a grounded
    figure that is no rule of the business: another organisation's published figure (a comparable subject,
    :func:`~taugen.generators.corpus.genres.benchmarks.comparable_facts`, two times in five; equal to no
    value any fact on the subject ever had), how often customers asked about it (a count that is none of
    the subject's values), or a working note. A deck without rules gets the plan's ``rule_slots`` (the
    rule count of a deck with rules; unplanned, one to five), a deck with rules one in two times; the
    subjects are those decks state first (``other_subjects``). Returns ``[(subject fact, text, note)]`` (note: the
    products label, or ''); ``[]`` when the context has no facts."""
    from taugen.authoring.values import find_surface_form
    from taugen.generators.corpus.genres.benchmarks import (
        avoided_values,
        comparable_facts,
        other_subjects,
        peer_names,
        peer_value,
        portable,
        values_among,
    )

    subjects = other_subjects(context, plan, rng)
    if not subjects:
        return []
    wanted = (1 if rng.random() < 0.5 else 0) if has_rules else plan.rule_slots or rng.choice(_SLOT_COUNTS)
    peers = peer_names(plan.faker(context.config.locale, "deck-peers"), context, 3)
    comparable = set(id(f) for f in comparable_facts(context, plan.topic))
    items = []
    for fact in subjects[:wanted]:
        subject = mid_sentence((fact.subject or "").strip().rstrip("."))
        avoid = avoided_values(context, fact, plan.facts.values())
        guarded = values_among(context, avoid)
        draw = rng.random()
        note = f"Applies to: {products_label(fact, context)}" if fact.applies_to else ""
        if draw < 0.4 and id(fact) in comparable and portable(subject, context):
            peer = rng.choice(peers)
            value = peer_value(rng, fact, avoid)
            items.append((fact, _upper_first(rng.choice(_PEER_BULLETS).format(P=peer, V=value.canonical(),
                                                                               S=subject)), ""))
            continue
        line = ""
        if draw < 0.75:
            for _ in range(20):
                month = day - dt.timedelta(days=rng.randint(20, 60))
                candidate = _upper_first(rng.choice(_VOLUME_BULLETS).format(
                    S=subject, N=rng.randint(6, 240), MONTH=month_and_year(month)))
                if not any(find_surface_form(value, candidate) for value in guarded):
                    line = candidate
                    break
        items.append((fact, line or _upper_first(rng.choice(_NOTE_BULLETS).format(S=subject)), note))
    return items


def working_slides(rng, plan: ArtifactPlan, context: RenderContext, values: dict, day: dt.date, room: int,
                    footer: str) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """Working-note slides (:data:`_WORKING_SLIDES`, two to five bullets each) worth about ``room`` words
    of page text, split into those shown before the rules (at most one) and after them. Slides are taken
    in a seeded order while they bring the deck closer to its length; the last one gets as many bullets
    as fit. Returns ``(before, after)`` as ``[(heading, bullets)]``."""
    month = day - dt.timedelta(days=rng.randint(20, 80))
    fill = {"topic": values["topic"], "team": values["team"], "brand": context.config.brand,
            "M": month_and_year(month)}
    pool = list(_WORKING_SLIDES)
    rng.shuffle(pool)
    chosen: list[tuple[str, list[str]]] = []
    for heading, lines in pool:
        overhead = 2 * word_count(heading) + word_count(footer) + 1
        bullets = [_upper_first(line.format(**fill)) for line in rng.sample(lines, k=len(lines))]
        sizes = [overhead + sum(word_count(b) for b in bullets[:k]) for k in range(2, len(bullets) + 1)]
        if not sizes or room < sizes[0] / 2:
            break
        fits = [k for k, size in zip(range(2, len(bullets) + 1), sizes) if size <= room]
        k = max(fits) if fits else 2
        chosen.append((heading, bullets[:k]))
        room -= sizes[k - 2]
    first = [slide for slide in chosen if slide[0] == "Why this briefing"]
    return first, [slide for slide in chosen if slide[0] != "Why this briefing"]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def rules_in_force(story: list, headings: list[str], number: int, current: list, plan: ArtifactPlan,
                    context: RenderContext) -> None:
    """Append section ``number`` "Rules in force": current renditions grouped under sub-headings, each
    followed by its products label (or a spacer). Shared by the long and the short handbook."""
    story.append(make_paragraph(f"{number}  Rules in force", "h1", keepWithNext=1))
    headings.append("Rules in force")
    groups: dict[str, list] = {}
    for rendition in current:
        groups.setdefault(heading_for(plan.facts[rendition.fact_id]), []).append(rendition)
    for sub, (heading, members) in enumerate(groups.items(), start=1):
        story.append(make_paragraph(f"{number}.{sub}  {heading}", "h2", keepWithNext=1))
        headings.append(heading)
        for rendition in members:
            fact = plan.facts[rendition.fact_id]
            story.append(kept_whole(make_paragraph(rendition.text, "rule", (rendition.fact_id,), atomic=True,
                                      keepWithNext=1 if fact.applies_to else 0), *HANDBOOK_FRAME))
            if fact.applies_to:
                story.append(make_paragraph(f"Applies to: {products_label(fact, context)}", "applies"))  # a label, not a sentence
            else:
                story.append(Spacer(1, 6))
