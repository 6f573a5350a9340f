"""Rendition wording: the canonical statement, or a voiced paraphrase that still states the value.

Voiced renditions come first from the domain expert's own ``voiced`` lines; otherwise from spoken
frames filled with the fact's ``subject`` and a voiced form of its value ("thirty-five dollars").
"""

from __future__ import annotations

import random

from taugen.authoring.models import Fact
from taugen.authoring.values import find_surface_form

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


def canonical_text(fact: Fact) -> tuple[str, str]:
    """The canonical statement and the value form it uses ('' when the fact has no value)."""
    form = find_surface_form(fact.value, fact.statement) if fact.value is not None else ""
    return fact.statement, form or ""


def voiced_text(fact: Fact, rng: random.Random) -> tuple[str, str]:
    """A voiced rendition of ``fact`` and the value form it uses.

    Falls back to the canonical statement when the fact has neither hand-written voiced lines nor a
    subject and numeric value to fill a frame with.
    """
    if fact.voiced:
        text = rng.choice(fact.voiced)
        form = find_surface_form(fact.value, text) if fact.value is not None else ""
        return text, form or ""
    value = fact.value
    if (value is None or fact.subject is None or value.type not in _FRAMES
            or fact.category not in _FRAMED_CATEGORIES):
        return canonical_text(fact)
    spoken = rng.choice(value.voiced_forms())
    frame = rng.choice(_FEE_FRAMES if value.type == "money" and fact.category == "fee" else _FRAMES[value.type])
    subject = fact.subject.rstrip(".")
    text = frame.format(subject=subject, Subject=subject[:1].upper() + subject[1:], value=spoken)
    form = find_surface_form(value, text)
    if form is None:  # a frame must always carry the value; fall back rather than emit an unplaceable line
        return canonical_text(fact)
    return text, form
