"""Dates read back from delivered records: :class:`Stamp`, :data:`Chain` and the parsers genres share.

A genre says which in-world moments a reader sees in its delivered files, and in which order they must
go, through :meth:`taugen.generators.corpus.genre.Genre.delivered_dates`; the chronology validator
(K20, :mod:`taugen.validators.chronology`) checks that every chain goes forward and that nothing is after
the world's now. This module holds the types of that answer and the small readers several genres use
(calendar dates in running text, ISO and Unix times, UTC offsets, the JSON documents of an export).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taugen.generators.corpus.genre import RenderedFile

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
"""The English month names, as a regular-expression alternation."""
MONTH_NUMBER = {name[:3].lower(): number for number, name in enumerate(MONTHS.split("|"), start=1)}
"""``jan`` -> 1 ... ``dec`` -> 12 (the first three letters of a month name, lower case)."""
_LONG_DATE = re.compile(rf"\b({MONTHS}) (\d{{1,2}}), (\d{{4}})\b")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
DAY = 86400
"""A calendar day in seconds: the grain of a stamp written as a date without a clock."""


def dates_in_text(text: str) -> list[dt.date]:
    """Every calendar date written as ``March 16, 2026`` or ``2026-03-16`` in ``text``."""
    found = []
    for month, day, year in _LONG_DATE.findall(text):
        try:
            found.append(dt.datetime.strptime(f"{month} {day} {year}", "%B %d %Y").date())
        except ValueError:
            continue
    for year, month, day in _ISO_DATE.findall(text):
        try:
            found.append(dt.date(int(year), int(month), int(day)))
        except ValueError:
            continue
    return found


@dataclass(frozen=True)
class Stamp:
    """One in-world moment a reader sees in a delivered file.

    Attributes:
        label: where it is written, for messages (``Date header``, ``turn 7``, ``CRBOPS-3 comment 8791``).
        moment: the moment, time-zone aware. A wall clock written without an offset takes the offset the
            same file states elsewhere (an email's ``Date`` header, a transcript's ``(UTC-05:00)``), else
            the offset of the world's now.
        grain: the resolution it is written with, in seconds: 0 exact, 60 for an ``HH:MM`` clock, 86400
            for a calendar day. Two stamps are compared at the coarser grain of the two (floored), so a
            quote line written to the minute never contradicts a header written to the second.
        restates: the field restates the moment of another event the record states (an issue's
            ``updated`` is its last activity's time, its ``resolutiondate`` the move to Done, an unedited
            comment's ``updated`` its creation): checked for order like any stamp, but no event of its own
            when the chronology validator looks for a frozen clock.
    """

    label: str
    moment: dt.datetime
    grain: int = 0
    restates: bool = False

    def floor(self, grain: int) -> dt.datetime:
        """:attr:`moment` floored to ``grain`` seconds (a day: local midnight of its own offset)."""
        if grain >= DAY:
            return self.moment.replace(hour=0, minute=0, second=0, microsecond=0)
        if grain > 0:
            return self.moment - (self.moment - EPOCH) % dt.timedelta(seconds=grain)
        return self.moment


Chain = list[Stamp]
"""Stamps that must never go backwards, in the order the record relates them: oldest expected first
(thread order, turn order, a parent then its reply, an issue's creation then its comments)."""


def aware(moment: dt.datetime, zone: dt.tzinfo | None) -> dt.datetime:
    """``moment`` itself when it has an offset, else the same wall clock in ``zone`` (UTC if None)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone or dt.timezone.utc)


def iso_moment(text: object, zone: dt.tzinfo | None) -> dt.datetime | None:
    """An ISO 8601 time (one without an offset takes ``zone``), or None when ``text`` is not one."""
    try:
        return aware(dt.datetime.fromisoformat(str(text)), zone)
    except ValueError:
        return None


def utc_offset(sign: str, hours: str, minutes: str) -> dt.timezone:
    """The zone of a written offset ``UTC<sign><hours>:<minutes>`` (its three parts as matched)."""
    delta = dt.timedelta(hours=int(hours), minutes=int(minutes))
    return dt.timezone(-delta if sign == "-" else delta)


def epoch_stamp(value: object, label: str) -> Stamp | None:
    """A stamp of Unix epoch seconds (``1773150000.000100``), or None when ``value`` is not a time."""
    try:
        return Stamp(label, dt.datetime.fromtimestamp(float(value), tz=dt.timezone.utc))
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def json_documents(files: list[RenderedFile]) -> list[dict]:
    """The JSON objects among ``files`` (``.json`` files that parse to an object; others are skipped)."""
    documents = []
    for file in files:
        if file.suffix == ".json":
            try:
                document = json.loads(file.data)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(document, dict):
                documents.append(document)
    return documents


def business_zone(config) -> dt.tzinfo:
    """The business's clock: the pack's IANA ``time_zone`` (``America/Chicago``), whose UTC offset follows
    daylight saving time, so a record dated in January reads ``-06:00`` and one dated in July ``-05:00``
    (every genre took ``now``'s fixed offset before, all year). A pack whose ``now`` disagrees with its
    ``time_zone`` on that day (a ``-05:00`` now in a Chicago January) keeps ``now``'s fixed offset: the
    pack's own clock wins over its zone's name. ``config`` is the pack's
    :class:`~taugen.authoring.models.DomainConfig`; ``now`` must be aware."""
    from zoneinfo import ZoneInfo

    fixed = dt.timezone(config.now.utcoffset())
    zone = ZoneInfo(config.time_zone)
    return zone if config.now.astimezone(zone).utcoffset() == config.now.utcoffset() else fixed


def offset_label(moment: dt.datetime) -> str:
    """``UTC-05:00``: the UTC offset of an aware ``moment`` (its own, so a zone's daylight saving shows)."""
    offset = moment.utcoffset() or dt.timedelta()
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def as_local(moment: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """``moment`` as an aware datetime at offset ``tz`` (naive values are taken to be local already)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=tz)
    return moment.astimezone(tz)
