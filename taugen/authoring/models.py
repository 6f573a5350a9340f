"""Pydantic models of a domain pack: the domain card, atomic facts and fact families.

These models are the schema domain experts write against; ``taugen schema`` exports them as JSON
Schema for editor completion. Every model forbids unknown keys so that a misspelt key is an error
with a line number instead of being silently dropped.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taugen.authoring.values import FactValue

SNAKE_ID = r"^[a-z][a-z0-9_]*$"
SEMVER = r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Section(_Strict):
    """One policy section, e.g. ``fees`` or ``disputes``."""

    id: str = Field(pattern=SNAKE_ID)
    title: str
    summary: str = ""


class Organisation(_Strict):
    """A company whose staff write records (the bank itself, a vendor, a processor)."""

    id: str = Field(pattern=SNAKE_ID)
    name: str
    email_domain: str = Field(pattern=r"^[a-z0-9.-]+\.[a-z]{2,}$")
    role: Literal["business", "vendor", "partner"] = "business"


class Product(_Strict):
    """A product facts may apply to (``applies_to`` names these ids)."""

    id: str = Field(pattern=SNAKE_ID)
    label: str
    kind: str = "account"


class DomainConfig(_Strict):
    """``domain.yaml``: the card of a domain pack.

    ``now`` is the world's fixed clock (tasks, tools and records all agree on it); ``snapshot_date`` is
    the day the records were exported: no record may be dated after it.
    """

    domain: str = Field(pattern=SNAKE_ID)
    brand: str
    version: str = Field(pattern=SEMVER, description="Semantic version of the pack; names the bundle.")
    locale: str = "en_US"
    time_zone: str = Field(default="America/Chicago", description="IANA time zone of the business's clock "
                           "(records' UTC offsets follow its daylight saving time).")
    now: dt.datetime
    snapshot_date: dt.date
    history_start: dt.date = Field(description="Earliest date a record may carry.")
    environment: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$",
                             description="Python module that provides the world, tools and problem functions.")
    sections: list[Section] = Field(min_length=1)
    organisations: list[Organisation] = Field(min_length=1)
    products: list[Product] = Field(default_factory=list)
    support_phone: str = "+1 800 555 0100"

    @model_validator(mode="after")
    def _dates_agree(self) -> "DomainConfig":
        if self.now.tzinfo is None:
            raise ValueError("now must carry a UTC offset, e.g. 2026-03-16T10:30:00-05:00")
        if self.snapshot_date < self.now.date():
            raise ValueError("snapshot_date is before now")
        if self.history_start >= self.now.date():
            raise ValueError("history_start must be before now")
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"time_zone {self.time_zone!r} is not an IANA time zone (e.g. America/Chicago)") from None
        _unique([s.id for s in self.sections], "section")
        _unique([o.id for o in self.organisations], "organisation")
        _unique([p.id for p in self.products], "product")
        return self

    @property
    def business(self) -> Organisation:
        """The organisation whose policy the pack describes (the first with role ``business``)."""
        for organisation in self.organisations:
            if organisation.role == "business":
                return organisation
        return self.organisations[0]


def _unique(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    for item in ids:
        if item in seen:
            raise ValueError(f"duplicate {what} id '{item}'")
        seen.add(item)


Holder = Literal["records", "client", "both"]

DATED_UNITS = ("days", "calendar_days", "business_days", "weeks", "months", "years")
"""Duration units a window can be counted in on a calendar (minutes and hours fall inside one day)."""


class Window(_Strict):
    """How a duration fact decides a dated request: a span counted back from the world's today to an event.

    ``within: accepted`` is a deadline (a claim reported within 60 days after the statement is taken;
    a later one is refused); ``within: refused`` is a waiting period (no passcode to a number changed
    within the last 30 days; an older change is fine). The problem family ``window``
    (:mod:`taugen.generators.families`) sets the event just inside and just outside the span and the
    gold submits the request only where the fact allows it. Written in the user's voice, because the
    scenario quotes them: ``request`` completes "You want to ..." and ``event`` completes
    "... on <date>.".

    Example::

        window: {request: "report a forged check", event: "the statement showing the check was sent",
                 within: accepted}
    """

    request: str = Field(min_length=3, description="What the customer asks for, completing 'You want to ...' "
                                                   "(second person: 'reopen your closed account').")
    event: str = Field(min_length=3, description="The event the span is counted from, completing '... on <date>.' "
                                                 "('your mobile number was changed').")
    within: Literal["accepted", "refused"] = Field(description="What policy does with a request whose event lies "
                                                               "within the span before today.")


class Fact(_Strict):
    """One atomic policy statement a task can depend on.

    ``holder``: ``records`` (only the records state it), ``client`` (only the simulated client knows
    it; withheld from records on the ``hard_client`` surface), ``both`` (in records, and the client can
    confirm it). ``supersedes`` names the older fact this one replaces from ``effective_from`` on.
    """

    id: str = Field(pattern=SNAKE_ID)
    section: str = Field(pattern=SNAKE_ID)
    category: str = Field(pattern=SNAKE_ID)
    statement: str = Field(min_length=8, description="Canonical sentence, with the value in canonical form.")
    subject: str | None = Field(default=None, description="Short noun phrase the fact is about.")
    value: FactValue | None = None
    applies_to: list[str] = Field(default_factory=list)
    effective_from: dt.date
    decided_on: dt.date | None = Field(default=None, description="When the decision was taken (defaults to "
                                       "some days before effective_from in records).")
    supersedes: str | None = Field(default=None, pattern=SNAKE_ID)
    holder: Holder = "records"
    voiced: list[str] = Field(default_factory=list, description="Hand-written voiced renditions.")
    tags: list[str] = Field(default_factory=list)
    family: str | None = Field(default=None, description="Set when the fact was expanded from a family.")
    window: Window | None = Field(default=None, description="For a duration that decides a dated request: what is "
                                  "asked, the event the span runs from, and whether a request within it is accepted.")
    request: str | None = Field(default=None, min_length=3, description=(
        "For a cap or a minimum a customer asks against: what they ask to do, in their voice, completing "
        "'You want to ...' ('get cash back at checkout', 'open a 3-month CD'); the amount follows it ('... for "
        "$150.00'). Without it the fact is asked about (a quote), never requested: 'go ahead with failed "
        "verification attempts on a call for 4' was no request a customer makes."))

    @field_validator("request")
    @classmethod
    def _plain_request(cls, request: str | None) -> str | None:
        if request is None:
            return None
        request = re.sub(r"\s+", " ", request).strip()
        if request[:1].isupper() or request.endswith((".", "?", "!")) or re.search(r"[{}]", request):
            raise ValueError(f"request {request!r} must complete 'You want to ...': lower-case first word, "
                             "no final punctuation, no braces")
        return request

    @field_validator("statement")
    @classmethod
    def _one_sentence(cls, statement: str) -> str:
        return re.sub(r"\s+", " ", statement).strip()

    @model_validator(mode="after")
    def _value_in_statement(self) -> "Fact":
        from taugen.authoring.values import find_surface_form

        if self.value is not None and find_surface_form(self.value, self.statement) is None:
            raise ValueError(f"statement does not state the value {self.value.canonical()!r} in any accepted form")
        for voiced in self.voiced:
            if self.value is not None and find_surface_form(self.value, voiced) is None:
                raise ValueError(f"voiced rendition {voiced!r} does not state the value")
        if self.window is not None and getattr(self.value, "unit", None) not in DATED_UNITS:
            raise ValueError(f"window needs a duration value in one of {', '.join(DATED_UNITS)}")
        if self.request is not None and getattr(self.value, "type", None) not in ("cap", "money"):
            raise ValueError("request needs a cap or money value (the amount the customer asks for)")
        return self


class FactFamily(_Strict):
    """A table that expands to many atomic facts.

    Each row (inline ``rows`` or a CSV ``table`` beside the YAML file) is rendered through the jinja2
    templates ``id``, ``statement``, ``subject``, ``request`` and every string inside ``value``,
    ``applies_to`` and ``window``. Row columns are the template variables.
    """

    family: str = Field(pattern=SNAKE_ID)
    section: str = Field(pattern=SNAKE_ID)
    category: str = Field(pattern=SNAKE_ID)
    id: str = Field(description="jinja2 template for each fact id")
    statement: str
    subject: str | None = None
    value: dict[str, Any] | None = None
    applies_to: list[str] = Field(default_factory=list)
    effective_from: dt.date
    holder: Holder = "records"
    tags: list[str] = Field(default_factory=list)
    window: dict[str, Any] | None = Field(default=None, description="A Window whose strings are row templates.")
    request: str | None = Field(default=None, description="jinja2 template of each fact's request (see Fact).")
    rows: list[dict[str, Any]] | None = None
    table: str | None = Field(default=None, description="CSV file name, relative to this YAML file.")
    skip_if: str | None = Field(default=None, description="Row column; rows where it is truthy are skipped.")

    @model_validator(mode="after")
    def _one_source(self) -> "FactFamily":
        if (self.rows is None) == (self.table is None):
            raise ValueError("a family needs exactly one of 'rows' or 'table'")
        return self


class FactFile(_Strict):
    """One file under ``facts/``: facts written by hand and/or families."""

    section: str | None = Field(default=None, pattern=SNAKE_ID, description="Default section of this file.")
    facts: list[dict[str, Any]] = Field(default_factory=list)
    families: list[dict[str, Any]] = Field(default_factory=list)
