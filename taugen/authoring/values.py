"""Typed fact values and the surface forms by which a record may state them.

A fact's ``value`` is one of the models below, told apart by its ``type`` key. Each value knows

* ``canonical()``: the one form used in canonical statements (``$35.00``, ``60 days``, ``3%``);
* ``surface_forms()``: every accepted way a rendition may state it (``$35``, ``35.00 USD``,
  ``thirty-five dollars``, ...). The placement validator accepts a rendition when any surface form
  appears in the owner artifact's text, compared after :func:`normalise_text`;
* ``voiced_forms()``: the spoken or casual forms generators may use in voiced renditions.

Money follows ISO 4217 currency codes; durations distinguish calendar and business days because
Regulation E and Regulation Z count them differently (12 CFR 1005.11, 12 CFR 1026.13).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from decimal import Decimal
from typing import Annotated, Any, Literal, Union

from num2words import num2words
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
CURRENCY_WORDS = {"USD": ("dollar", "dollars", "cent", "cents"), "EUR": ("euro", "euros", "cent", "cents"),
                  "GBP": ("pound", "pounds", "penny", "pence")}


_MEMO_HELD = 65536


def _memoised(method):
    """``method`` (a method, or a function of one value) computed once per value object.

    Values are frozen, and a build asks the same value for its forms thousands of times (every figure
    written near a rule is checked against every value of its section). Keyed by object identity, with
    the value held so its id cannot be reused while cached; emptied when it holds too many. Lists are
    returned as copies, so a caller that changes one changes nothing cached."""
    held: dict[int, tuple[Any, Any]] = {}

    @functools.wraps(method)
    def cached(self):
        found = held.get(id(self))
        if found is None or found[0] is not self:
            if len(held) >= _MEMO_HELD:
                held.clear()
            found = held[id(self)] = (self, method(self))
        return list(found[1]) if isinstance(found[1], list) else found[1]

    return cached


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("canonical", "surface_forms", "voiced_forms"):
            if name in cls.__dict__:
                setattr(cls, name, _memoised(cls.__dict__[name]))

    def canonical(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def surface_forms(self) -> list[str]:
        return [self.canonical()]

    def voiced_forms(self) -> list[str]:
        return self.surface_forms()

    def numbers(self) -> list[Decimal]:
        """Numbers this value contains (used by consistency checks); empty when not numeric."""
        return []

    @_memoised
    def identity(self) -> str:
        """The value's JSON (``model_dump_json()``): equal for equal values of one type, computed once per value
        object (renders compare the values of a section for equality thousands of times)."""
        return self.model_dump_json()


def _words(number: Decimal | int) -> str:
    """``number`` in English words, without commas ("one thousand two hundred"). Cached by type and exact
    text, not by value: 1, Decimal("1") and Decimal("1.0") are equal, and num2words need not say them alike."""
    return _words_of(type(number), str(number))


@functools.lru_cache(maxsize=65536)
def _words_of(kind: type, text: str) -> str:
    return num2words(kind(text), lang="en").replace(",", "")


def _plain_number(number: Decimal) -> str:
    """``35`` for 35.00, ``2.5`` for 2.50."""
    text = format(number.normalize(), "f")
    return text


def _grouped(number: Decimal, places: int) -> str:
    return f"{number:,.{places}f}"


class MoneyValue(_Value):
    """An amount of money. ``{type: money, amount: 35.00, currency: USD}``."""

    type: Literal["money"] = "money"
    amount: Decimal = Field(ge=0, description="Amount in major units (dollars), at most 2 decimals.")
    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$", description="ISO 4217 code.")

    @field_validator("amount")
    @classmethod
    def _two_places(cls, amount: Decimal) -> Decimal:
        if amount.as_tuple().exponent < -2:
            raise ValueError("money has at most 2 decimal places")
        return amount

    def canonical(self) -> str:
        symbol = CURRENCY_SYMBOLS.get(self.currency)
        text = _grouped(self.amount, 2)
        return f"{symbol}{text}" if symbol else f"{text} {self.currency}"

    def surface_forms(self) -> list[str]:
        symbol = CURRENCY_SYMBOLS.get(self.currency, "")
        forms = {self.canonical()}
        for number in {_grouped(self.amount, 2), f"{self.amount:.2f}"}:
            forms |= {f"{number} {self.currency}", f"{self.currency} {number}"}
            if symbol:
                forms.add(f"{symbol}{number}")
        if self.amount == self.amount.to_integral_value():
            whole = int(self.amount)
            for number in {f"{whole:,}", str(whole)}:
                if symbol:
                    forms.add(f"{symbol}{number}")
                forms.add(f"{number} {self.currency}")
        forms |= set(self.voiced_forms())
        return sorted(forms)

    def voiced_forms(self) -> list[str]:
        unit, units, sub, subs = CURRENCY_WORDS.get(self.currency, ("unit", "units", "cent", "cents"))
        whole = int(self.amount)
        cents = int((self.amount - whole) * 100)
        whole_words = f"{_words(whole)} {unit if whole == 1 else units}"
        if cents == 0:
            spoken = whole_words
        elif whole == 0:
            spoken = f"{_words(cents)} {sub if cents == 1 else subs}"
        else:
            spoken = f"{whole_words} and {_words(cents)} {sub if cents == 1 else subs}"
        return [spoken]

    def numbers(self) -> list[Decimal]:
        return [self.amount]


class PercentValue(_Value):
    """A rate in percent. ``{type: percent, value: 3}`` means 3%."""

    type: Literal["percent"] = "percent"
    value: Decimal = Field(ge=0, le=1000)

    def canonical(self) -> str:
        return f"{_plain_number(self.value)}%"

    def surface_forms(self) -> list[str]:
        plain = _plain_number(self.value)
        forms = {f"{plain}%", f"{plain} percent", f"{plain} per cent"}
        for places in (1, 2):  # "3.0%" and "3.00%" say 3%, but "4.2%" does not say 4.25%
            if Decimal(f"{self.value:.{places}f}") == self.value:
                forms.add(f"{self.value:.{places}f}%")
        forms |= set(self.voiced_forms())
        return sorted(forms)

    def voiced_forms(self) -> list[str]:
        return [f"{_words(self.value)} percent"]

    def numbers(self) -> list[Decimal]:
        return [self.value]


DurationUnit = Literal["minutes", "hours", "days", "calendar_days", "business_days", "weeks", "months", "years"]
_UNIT_WORDS: dict[str, tuple[str, str]] = {
    "minutes": ("minute", "minutes"), "hours": ("hour", "hours"), "days": ("day", "days"),
    "calendar_days": ("calendar day", "calendar days"), "business_days": ("business day", "business days"),
    "weeks": ("week", "weeks"), "months": ("month", "months"), "years": ("year", "years"),
}
_UNIT_ALIASES = {"business_days": ["working day", "banking day"], "calendar_days": []}


class DurationValue(_Value):
    """A span of time. ``{type: duration, amount: 10, unit: business_days}``."""

    type: Literal["duration"] = "duration"
    amount: int = Field(ge=0)
    unit: DurationUnit

    def _unit_words(self) -> list[str]:
        singular, plural = _UNIT_WORDS[self.unit]
        word = singular if self.amount == 1 else plural
        words = [word]
        for alias in _UNIT_ALIASES.get(self.unit, []):
            words.append(alias if self.amount == 1 else alias + "s")
        return words

    def canonical(self) -> str:
        return f"{self.amount} {self._unit_words()[0]}"

    def surface_forms(self) -> list[str]:
        forms: set[str] = set()
        singular = _UNIT_WORDS[self.unit][0]
        for word in self._unit_words():
            forms |= {f"{self.amount} {word}", f"{_words(self.amount)} {word}", f"{_words(self.amount)} ({self.amount}) {word}"}
        # Compound adjectives take the singular: "a 60-day window", "a ten-business-day deadline".
        for alias in [singular, *_UNIT_ALIASES.get(self.unit, [])]:
            hyphenated = alias.replace(" ", "-")
            forms |= {f"{self.amount}-{hyphenated}", f"{_words(self.amount)}-{hyphenated}"}
        return sorted(forms)

    def voiced_forms(self) -> list[str]:
        return [f"{_words(self.amount)} {word}" for word in self._unit_words()]

    def days(self) -> int | None:
        """The span in calendar days when the unit allows it exactly, else None."""
        return {"days": self.amount, "calendar_days": self.amount, "weeks": self.amount * 7}.get(self.unit)

    def numbers(self) -> list[Decimal]:
        return [Decimal(self.amount)]


class CountValue(_Value):
    """A whole number of things. ``{type: count, value: 4, unit: withdrawals}``."""

    type: Literal["count"] = "count"
    value: int = Field(ge=0)
    unit: str | None = Field(default=None, description="Plural noun counted, e.g. 'withdrawals'.")

    def canonical(self) -> str:
        return f"{self.value} {self.unit}" if self.unit else str(self.value)

    def surface_forms(self) -> list[str]:
        numbers = {str(self.value), _words(self.value)}
        if self.unit:
            return sorted({f"{number} {self.unit}" for number in numbers})
        return sorted(numbers)

    def voiced_forms(self) -> list[str]:
        return [f"{_words(self.value)} {self.unit}" if self.unit else _words(self.value)]

    def numbers(self) -> list[Decimal]:
        return [Decimal(self.value)]


class CapValue(_Value):
    """An upper limit per period. ``{type: cap, amount: 500, currency: USD, per: day}``.

    Without ``currency`` the cap counts things (``unit``), e.g. six withdrawals per month.
    """

    type: Literal["cap"] = "cap"
    amount: Decimal = Field(ge=0)
    currency: str | None = Field(default=None, pattern=r"^[A-Z]{3}$")
    unit: str | None = None
    per: str | None = Field(default=None, description="Period: day, month, statement cycle, transaction ...")

    def _inner(self) -> _Value:
        if self.currency:
            return MoneyValue(amount=self.amount, currency=self.currency)
        return CountValue(value=int(self.amount), unit=self.unit)

    def canonical(self) -> str:
        return self._inner().canonical()

    def surface_forms(self) -> list[str]:
        return self._inner().surface_forms()

    def voiced_forms(self) -> list[str]:
        return self._inner().voiced_forms()

    def numbers(self) -> list[Decimal]:
        return [self.amount]


class DateValue(_Value):
    """A calendar date. ``{type: date, value: 2026-04-01}``."""

    type: Literal["date"] = "date"
    value: dt.date

    def canonical(self) -> str:
        return f"{self.value:%B} {self.value.day}, {self.value.year}"

    def surface_forms(self) -> list[str]:
        day = self.value
        return sorted({self.canonical(), day.isoformat(), f"{day.month}/{day.day}/{day.year}",
                       f"{day.month:02d}/{day.day:02d}/{day.year}", f"{day.day} {day:%B} {day.year}",
                       f"{day:%b} {day.day}, {day.year}"})

    def voiced_forms(self) -> list[str]:
        return [f"{self.value:%B} {num2words(self.value.day, to='ordinal')}"]


class EnumValue(_Value):
    """One choice from a closed set. ``{type: enum, value: branch_only, options: [...], labels: {...}}``.

    ``labels`` maps the chosen value to the phrases that state it ("in a branch", "at a branch").
    """

    type: Literal["enum"] = "enum"
    value: str
    options: list[str] = Field(default_factory=list)
    labels: dict[str, list[str]] = Field(default_factory=dict)

    def canonical(self) -> str:
        return self.labels.get(self.value, [self.value.replace("_", " ")])[0]

    def surface_forms(self) -> list[str]:
        return sorted(set(self.labels.get(self.value, [])) | {self.value.replace("_", " ")})


class BooleanValue(_Value):
    """A yes/no rule. ``{type: boolean, value: false, key_terms: ["not available", "no longer offer"]}``.

    A boolean has no number to find, so ``key_terms`` lists the phrases that state it.
    """

    type: Literal["boolean"] = "boolean"
    value: bool
    key_terms: list[str] = Field(min_length=1)

    def canonical(self) -> str:
        return self.key_terms[0]

    def surface_forms(self) -> list[str]:
        return sorted(set(self.key_terms))


class StepsValue(_Value):
    """The required order of a procedure's steps. ``{type: steps, steps: [a, b, c], labels: {a: "...", ...}}``.

    ``steps`` are the step names in the order policy requires (two or more, no repeats); ``labels`` words each
    step as a record states it ("block the card"). The canonical form is the labels in order joined by
    ", then " ("block the card, then review the recent transactions, then order the replacement card"), so
    a statement that states the order contains it and placement reads the order back.

    Raises:
        ValueError: fewer than two steps, a repeated step, or a step without a label.
    """

    type: Literal["steps"] = "steps"
    steps: list[str] = Field(min_length=2)
    labels: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _complete(self) -> "StepsValue":
        if len(set(self.steps)) != len(self.steps):
            raise ValueError(f"steps repeat: {self.steps}")
        missing = [step for step in self.steps if not self.labels.get(step)]
        if missing:
            raise ValueError(f"steps without a label: {', '.join(missing)}")
        extra = sorted(set(self.labels) - set(self.steps))
        if extra:
            raise ValueError(f"labels for steps not in steps: {', '.join(extra)}")
        return self

    def canonical(self) -> str:
        return ", then ".join(self.labels[step] for step in self.steps)

    def surface_forms(self) -> list[str]:
        return [self.canonical(), "; then ".join(self.labels[step] for step in self.steps)]


class TextValue(_Value):
    """A rule with no number (a procedure step). ``key_terms`` are the phrases that must appear."""

    type: Literal["text"] = "text"
    key_terms: list[str] = Field(min_length=1)

    def canonical(self) -> str:
        return self.key_terms[0]

    def surface_forms(self) -> list[str]:
        return sorted(set(self.key_terms))


FactValue = Annotated[
    Union[MoneyValue, PercentValue, DurationValue, CountValue, CapValue, DateValue, EnumValue, BooleanValue, StepsValue,
          TextValue],
    Field(discriminator="type"),
]
"""Any typed fact value; YAML picks the kind with ``type:``."""


_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
                         "\u00a0": " "})


@functools.lru_cache(maxsize=16384)
def normalise_text(text: str) -> str:
    """Lower-case, straighten quotes and dashes, fold white space: the form placement compares in.
    Remembered (a record's text is normalised once, not once per fact searched in it)."""
    return _SPACE.sub(" ", text.translate(_QUOTES)).strip().lower()


@functools.lru_cache(maxsize=16384)
def _standalone(needle: str) -> re.Pattern[str]:
    """``needle`` (normalised) as a pattern that does not match inside a larger number or word:
    "$350", "twenty-five", "one hundred and sixty", "two dollars and fifty cents" (compiled once; re's
    own cache holds 512 patterns, fewer than a pack's surface forms)."""
    pattern = re.escape(needle)
    if needle[0].isalnum() or needle[0] in "$€£":
        pattern = r"(?<![\w.,$€£-])(?<!\band )" + pattern
    if needle[-1].isalnum():
        pattern = pattern + r"(?![\w]|[.,]\d|-\w| and [\w-]+ (?:cents?|pence|penny)\b)"
    return re.compile(pattern)


@_memoised
def _needles(value: _Value) -> tuple[tuple[str, str], ...]:
    """``value``'s surface forms with their normalised text, longest first, empty needles left out;
    computed once per value object (a record checks the same values against many sentences; a tuple,
    so the memo hands out the same one instead of a copy)."""
    return tuple((form, needle) for form in sorted(value.surface_forms(), key=len, reverse=True)
                 if (needle := normalise_text(form)))


def find_surface_form(value: _Value, text: str, normalised: bool = False) -> str | None:
    """Return the first accepted surface form of ``value`` found in ``text``, or None.

    Numbers must stand alone: ``$35`` does not match inside ``$350``. Pass ``normalised=True`` when
    ``text`` already went through :func:`normalise_text` (spares normalising a long record per value).
    """
    haystack = text if normalised else normalise_text(text)
    for form, needle in _needles(value):
        if needle not in haystack:  # the plain substring test rules most forms out cheaply
            continue
        compiled = _standalone(needle)
        # A match starts where the needle does (the boundary tests are zero-width), so test only those
        # places; lookbehinds still see the characters before them.
        start = haystack.find(needle)
        while start != -1:
            if compiled.match(haystack, start):
                return form
            start = haystack.find(needle, start + 1)
    return None
