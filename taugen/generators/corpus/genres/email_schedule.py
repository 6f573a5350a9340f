"""When the messages of an email thread are sent: :func:`schedule` places them in the thread's window,
on the dates the plan anchors, in office hours, with the reply gaps people leave (minutes to days)."""

from __future__ import annotations

import datetime as dt
import random
from itertools import pairwise


def schedule(rng: random.Random, count: int, start: dt.datetime, end: dt.datetime,
             anchors: dict[int, dt.date]) -> list[dt.datetime]:
    """``count`` strictly increasing message times in ``[start, end]`` (aware, whole seconds).

    Messages listed in ``anchors`` (index → date) are placed on that date when the window allows
    (clamped into it), in office hours; the others are spaced from their neighbours by reply gaps of
    minutes to a few days, nudged into office hours (07:30–18:30, Monday–Friday) when that keeps the
    order. When a stretch is too short for natural gaps the messages are spread evenly across it.

    Raises:
        ValueError: the window holds fewer whole seconds than ``count``.
    """
    tz = start.tzinfo
    start = start.replace(microsecond=0) + (dt.timedelta(seconds=1) if start.microsecond else dt.timedelta())
    end = end.replace(microsecond=0)
    if (end - start).total_seconds() < count:
        raise ValueError(f"window {start.isoformat()} .. {end.isoformat()} is too short for {count} messages")
    times: list[dt.datetime | None] = [None] * count

    def office(day: dt.date) -> dt.datetime:
        minute = rng.randint(7 * 60 + 30, 18 * 60 + 15)
        return dt.datetime.combine(day, dt.time(minute // 60, minute % 60, rng.randint(0, 59)), tz)

    previous = start - dt.timedelta(seconds=1)
    for index in sorted(anchors):
        day = min(max(anchors[index], start.date()), end.date())
        # leave the later messages ten minutes each before the window closes: an anchor drawn after the
        # close was clamped to it, and the messages after it were squeezed into its last minute
        room = dt.timedelta(minutes=10 * (count - index - 1))
        moment = min(max(office(day), start), end - room if end - room > start else end)
        if moment <= previous:
            moment = previous + dt.timedelta(minutes=rng.randint(20, 180))
        if moment > end - dt.timedelta(seconds=count - index - 1):
            break  # anchors do not fit in order; fall back to an even spread below
        times[index] = moment
        previous = moment
    if not any(times):
        span = (end - start).total_seconds()
        guess = sum(_gap(rng) for _ in range(count - 1))
        slack = max(span - guess, 0)
        first = start + dt.timedelta(seconds=rng.uniform(0, slack) if slack else 0)
        times[0] = _office_nudge(first.replace(microsecond=0), start, end, forward=True)
    anchored = [i for i, t in enumerate(times) if t is not None]
    lo_index, hi_index = anchored[0], anchored[-1]
    for index in range(lo_index - 1, -1, -1):  # before the first anchor: step back
        candidate = times[index + 1] - dt.timedelta(seconds=_gap(rng))
        times[index] = _office_nudge(candidate, start, times[index + 1], forward=False)
    for index in range(hi_index + 1, count):  # after the last anchor: step forward
        candidate = times[index - 1] + dt.timedelta(seconds=_gap(rng))
        times[index] = _office_nudge(candidate, times[index - 1], end, forward=True)
    for a, b in pairwise(anchored):  # between anchors: random points in the stretch
        if b - a > 1:
            span = (times[b] - times[a]).total_seconds()
            points = sorted(rng.uniform(0, span) for _ in range(b - a - 1))
            for offset, index in zip(points, range(a + 1, b), strict=True):
                candidate = (times[a] + dt.timedelta(seconds=offset)).replace(microsecond=0)
                times[index] = _office_nudge(candidate, times[index - 1], times[b], forward=True)
    result = [t for t in times if t is not None]
    if len(result) != count or any(not start <= t <= end for t in result) or \
            any(b <= a for a, b in pairwise(result)):
        return _even(rng, count, start, end)
    return result


def _gap(rng: random.Random) -> float:
    """Seconds between a message and its reply: usually minutes to hours, sometimes days."""
    roll = rng.random()
    if roll < 0.55:
        return rng.uniform(6 * 60, 4 * 3600)
    if roll < 0.9:
        return rng.uniform(16 * 3600, 30 * 3600)
    return rng.uniform(40 * 3600, 96 * 3600)


def _office_nudge(moment: dt.datetime, low: dt.datetime, high: dt.datetime, *, forward: bool) -> dt.datetime:
    """Move ``moment`` into office hours (07:30–18:30, Monday–Friday), forward or backward in time.

    The shifted time keeps ``moment``'s minutes and seconds as jitter. It is used only when it lies
    strictly between ``low`` and ``high``; else the shift the other way in time when that one does (a
    Saturday reply in a stretch that closes on Sunday goes back to Friday: shifted forward only, a
    quarter of seed 0's messages stayed on weekends); otherwise ``moment`` itself (when inside), else the
    midpoint.
    """
    moment = moment.replace(microsecond=0)
    jitter = dt.timedelta(minutes=(moment.minute * 3 + moment.second) % 150, seconds=moment.second)
    for direction in (forward, not forward):  # the other way when the first leaves the stretch
        candidate = _in_office(moment, jitter, direction)
        if low < candidate < high and candidate.weekday() < 5:
            return candidate
    if low < moment < high:
        return moment
    middle = (low + (high - low) / 2).replace(microsecond=0)
    return middle if low < middle < high else high


def _in_office(moment: dt.datetime, jitter: dt.timedelta, forward: bool) -> dt.datetime:
    """The nearest office-hours time (07:30-18:30, Monday-Friday, ``jitter`` inside the edges) from ``moment``,
    forward or backward in time (``moment`` itself when it is one)."""
    candidate = moment
    for _ in range(8):
        opening = candidate.replace(hour=7, minute=30, second=0) + jitter
        closing = candidate.replace(hour=18, minute=30, second=0) - jitter
        if candidate.weekday() >= 5:
            day = candidate + dt.timedelta(days=1 if forward else -1)
            candidate = (day.replace(hour=7, minute=30, second=0) + jitter if forward
                         else day.replace(hour=18, minute=30, second=0) - jitter)
        elif candidate < opening:
            candidate = opening if forward else (closing - dt.timedelta(days=1))
        elif candidate > closing:
            candidate = (opening + dt.timedelta(days=1)) if forward else closing
        else:
            break
    return candidate


def _even(rng: random.Random, count: int, start: dt.datetime, end: dt.datetime) -> list[dt.datetime]:
    step = (end - start) / (count + 1)
    return [(start + step * (i + 1)).replace(microsecond=0) for i in range(count)] if step.total_seconds() >= 1 \
        else [start + dt.timedelta(seconds=i) for i in range(count)]
