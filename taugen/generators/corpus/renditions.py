"""Rendition wording: the canonical statement, or a voiced paraphrase that still states the value.

Voiced renditions come first from the domain expert's own ``voiced`` lines; otherwise from spoken
frames filled with the fact's ``subject`` and a voiced form of its value ("thirty-five dollars").
"""

from __future__ import annotations

import random

from taugen.authoring.models import Fact
from taugen.authoring.values import find_surface_form

_FRAMES: dict[str, tuple[str, ...]] = {
    "money": ("For {subject} you're looking at {value}.", "We charge {value} for {subject}.",
              "{Subject} comes to {value} these days.", "It's {value} for {subject}, that's what the system applies.",
              "Right now {subject} runs {value}.", "Heads up that {subject} costs {value}."),
    "percent": ("{Subject} is {value} of the amount.", "We apply {value} for {subject}.",
                "For {subject} it works out to {value}.", "The rate on {subject} sits at {value}."),
    "duration": ("You get {value} for {subject}.", "The clock on {subject} is {value}.",
                 "For {subject} we work with {value}.", "{Subject} has a {value} window, give or take nothing."),
    "cap": ("The most we allow for {subject} is {value}.", "{Subject} tops out at {value}.",
            "There's a ceiling of {value} on {subject}.", "Anything past {value} for {subject} won't go through."),
    "count": ("For {subject} it's {value}.", "We allow {value} for {subject}.", "{Subject} is limited to {value}."),
    "date": ("{Subject} kicked in on {value}.", "Since {value}, {subject} applies.", "As of {value} that's {subject}."),
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
    if value is None or fact.subject is None or value.type not in _FRAMES:
        return canonical_text(fact)
    spoken = rng.choice(value.voiced_forms())
    frame = rng.choice(_FRAMES[value.type])
    subject = fact.subject.rstrip(".")
    text = frame.format(subject=subject, Subject=subject[:1].upper() + subject[1:], value=spoken)
    form = find_surface_form(value, text)
    if form is None:  # a frame must always carry the value; fall back rather than emit an unplaceable line
        return canonical_text(fact)
    return text, form
