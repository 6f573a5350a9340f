"""Chronology: supersession goes forward, records are in order, nothing is dated after the snapshot.

Checks (defect kind K20 in ``reference/defect-kinds.md``):

* every supersession replaces an older fact with a strictly later ``effective_from``;
* each artifact's timestamps lie in ``[history_start, now]`` and never go backwards (a reply never
  precedes the message it answers);
* a record stating a rule as current is dated on or after the rule took effect; one stating a
  superseded version is dated before its successor took effect;
* no date written in a delivered record's text is after the snapshot date;
* the delivered files themselves keep time (:func:`delivered_chronology`, codes
  ``delivered_out_of_order`` and ``delivered_after_now``): the dates a reader sees in an email's
  headers and quote lines, a transcript's turns and cues, a channel's messages and threads, an issue's
  comments and change log, a case extract's rows go forward, and none is after the world's now. The
  manifest is not consulted for these: a file edited after the build is judged on what it shows.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from itertools import pairwise

from taugen.validators.bundle_view import BundleView
from taugen import plugins
from taugen.findings import Finding, error
from taugen.validators.registry import validator

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_LONG_DATE = re.compile(rf"\b({_MONTHS}) (\d{{1,2}}), (\d{{4}})\b")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


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


@validator("chronology")
def check_chronology(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    findings = []
    manifest = view.manifest
    facts = manifest["facts"]
    now = view.now
    floor = view.history_start
    for fact_id, fact in facts.items():
        older = fact.get("supersedes")
        if older and older in facts and facts[older]["effective_from"] >= fact["effective_from"]:
            findings.append(error("chronology", "supersession_backwards", fact_id,
                                  f"supersedes {older} but takes effect {fact['effective_from']}, not after "
                                  f"{facts[older]['effective_from']}", rule="supersession must go forward in time"))
    for artifact_id, entry in sorted(manifest["artifacts"].items()):
        stamps = [dt.datetime.fromisoformat(s) for s in entry["timestamps"]]
        start, end = dt.datetime.fromisoformat(entry["start"]), dt.datetime.fromisoformat(entry["end"])
        if start > end:
            findings.append(error("chronology", "start_after_end", artifact_id, f"starts {start} after it ends {end}"))
        if end > now:
            findings.append(error("chronology", "after_now", artifact_id, f"dated {end}, after the world's now {now}"))
        for earlier, later in zip(stamps, stamps[1:]):
            if later < earlier:
                findings.append(error("chronology", "out_of_order", artifact_id,
                                      f"timestamp {later.isoformat()} comes after {earlier.isoformat()} in the record",
                                      rule="replies and turns never precede what they answer"))
                break
        for stamp in stamps:
            if stamp.date() < floor or stamp > now:
                findings.append(error("chronology", "outside_history", artifact_id,
                                      f"timestamp {stamp.isoformat()} is outside {floor}..{now.date()}"))
                break
        for rendition in entry["renditions"]:
            fact = facts.get(rendition["fact_id"])
            if fact is None or entry["genre"] == "policy_document":
                continue
            day = end.date()
            if rendition["status"] == "current" and day.isoformat() < fact["effective_from"]:
                findings.append(error("chronology", "current_before_effective", f"{rendition['fact_id']}@{artifact_id}",
                                      f"record dated {day} states the rule as current before it took effect "
                                      f"({fact['effective_from']})"))
            newer = fact.get("superseded_by")
            if rendition["status"] == "superseded" and newer and day.isoformat() >= facts[newer]["effective_from"]:
                findings.append(error("chronology", "history_after_successor", f"{rendition['fact_id']}@{artifact_id}",
                                      f"record dated {day} shows a superseded version after its successor took "
                                      f"effect ({facts[newer]['effective_from']})"))
        if entry["genre"] != "policy_document":
            late = [d for d in dates_in_text(view.text(artifact_id)) if d > view.snapshot_date]
            if late:
                findings.append(error("chronology", "dated_after_snapshot", artifact_id,
                                      f"the record mentions {max(late)}, after the snapshot date {view.snapshot_date}"))
    findings += delivered_chronology(view)
    return findings



# ------------------------------------------------------------------------------------------------
# Dates read from the delivered files (K20 on what a reader sees, not on what the manifest says)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_DAY = 86400


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
    """

    label: str
    moment: dt.datetime
    grain: int = 0

    def floor(self, grain: int) -> dt.datetime:
        """:attr:`moment` floored to ``grain`` seconds (a day: local midnight of its own offset)."""
        if grain >= _DAY:
            return self.moment.replace(hour=0, minute=0, second=0, microsecond=0)
        if grain > 0:
            return self.moment - (self.moment - _EPOCH) % dt.timedelta(seconds=grain)
        return self.moment


Chain = list[Stamp]
"""Stamps that must never go backwards, in the order the record relates them: oldest expected first
(thread order, turn order, a parent then its reply, an issue's creation then its comments)."""

DateReader = Callable[[BundleView, str], list[Chain]]
"""``(view, artifact id) -> chains`` read from the artifact's delivered files (``view.delivered``), or,
for a genre whose delivered file has no text reader, from what its ``extract_text`` returns."""


def date_reader(*genre_names: str) -> Callable[[DateReader], DateReader]:
    """Decorator: register the function that reads the dated chains of the delivered files of ``genre_names``
    (kind ``date_reader`` of :mod:`taugen.plugins`, keyed by genre name).

    Raises:
        ValueError: a genre already has a date reader defined elsewhere.
    """
    def register(function: DateReader) -> DateReader:
        for name in genre_names:
            plugins.register("date_reader", name, function)
        return function

    return register


def delivered_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """The dated chains of one artifact's delivered files (empty for a genre with no date reader)."""
    reader = plugins.registered("date_reader").get(view.manifest["artifacts"][artifact_id]["genre"])
    return reader(view, artifact_id) if reader is not None else []


def delivered_chronology(view: BundleView) -> list[Finding]:
    """K20 on the delivered files: every chain goes forward and nothing is after the world's now.

    Rules, per artifact whose genre has a date reader (:func:`date_reader`):

    * ``delivered_out_of_order``: in a chain, a stamp is earlier than the one before it (compared at
      the coarser grain of the two). One finding per artifact, naming the first break.
    * ``delivered_after_now``: a stamp, floored to its own grain, is after the manifest's ``now`` (a
      calendar day after the snapshot date is after now). One finding per artifact, naming the latest.

    The manifest is read only for the world's now, the genre of each artifact and where its files are;
    the dates themselves come from the files.
    """
    findings: list[Finding] = []
    now = view.now
    for artifact_id in sorted(view.manifest["artifacts"]):
        chains = delivered_dates(view, artifact_id)
        broken = next(((earlier, later) for chain in chains for earlier, later in pairwise(chain)
                       if later.floor(max(earlier.grain, later.grain)) < earlier.floor(max(earlier.grain, later.grain))),
                      None)
        if broken is not None:
            earlier, later = broken
            findings.append(error("chronology", "delivered_out_of_order", artifact_id,
                                  f"in the delivered file, {later.label} is dated {later.moment.isoformat()}, before "
                                  f"{earlier.label} ({earlier.moment.isoformat()}) which it follows",
                                  rule="a reply, turn or later entry never precedes what it answers or follows"))
        late = [stamp for chain in chains for stamp in chain if stamp.floor(stamp.grain) > now]
        if late:
            latest = max(late, key=lambda stamp: stamp.moment)
            findings.append(error("chronology", "delivered_after_now", artifact_id,
                                  f"in the delivered file, {latest.label} is dated {latest.moment.isoformat()}, after "
                                  f"the world's now {now.isoformat()} (snapshot {view.snapshot_date})",
                                  rule="no record is dated after the snapshot"))
    return findings


def _aware(moment: dt.datetime, zone: dt.tzinfo | None) -> dt.datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone or dt.timezone.utc)


def _iso(text: object, zone: dt.tzinfo | None) -> dt.datetime | None:
    try:
        return _aware(dt.datetime.fromisoformat(str(text)), zone)
    except ValueError:
        return None


def _offset(sign: str, hours: str, minutes: str) -> dt.timezone:
    delta = dt.timedelta(hours=int(hours), minutes=int(minutes))
    return dt.timezone(-delta if sign == "-" else delta)


def _json_files(view: BundleView, artifact_id: str) -> list[dict]:
    documents = []
    for file in view.delivered(artifact_id):
        if file.suffix == ".json":
            try:
                document = json.loads(file.data)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(document, dict):
                documents.append(document)
    return documents


# email: the Date header, then every quote header of the body ---------------------------------------

_QUOTE_HEADER = re.compile(r"^(?:>[ \t]?)*(?:On (?P<on>.+) wrote:|Sent: (?P<sent>.+)|Date: (?P<date>.+))[ \t]*$",
                           re.MULTILINE)
"""Quote headers mail clients write above a quoted message (any depth of ``>``): Gmail and Apple Mail
``On <date> <sender> wrote:``, Outlook's ``Sent: <date>``, a forwarded block's ``Date: <date>``."""
_CLIENT_DATE = re.compile(r"\b(?P<month>[A-Z][a-z]{2,8})\.? (?P<day>\d{1,2}), (?P<year>\d{4}),?(?: at)? "
                          r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::\d{2})? ?(?P<half>[AaPp]\.?[Mm]\.?)?")
"""A client's date and clock: ``Tue, Mar 10, 2026 at 2:14 PM``, ``Tuesday, March 10, 2026 2:14 PM``,
``Mar 10, 2026, at 2:14 PM`` (weekday optional, month full or abbreviated, 12- or 24-hour clock)."""
_MONTH_NUMBER = {name[:3].lower(): number for number, name in enumerate(_MONTHS.split("|"), start=1)}


def client_date(text: str, zone: dt.tzinfo | None) -> dt.datetime | None:
    """The first date-and-clock a mail client wrote in ``text`` (see :data:`_CLIENT_DATE`), in ``zone``."""
    for match in _CLIENT_DATE.finditer(text):
        month = _MONTH_NUMBER.get(match.group("month")[:3].lower())
        hour, half = int(match.group("hour")), (match.group("half") or "").lower().replace(".", "")
        if half:
            hour = hour % 12 + (12 if half == "pm" else 0)
        try:
            return dt.datetime(int(match.group("year")), month or 0, int(match.group("day")), hour,
                               int(match.group("minute")), tzinfo=zone)
        except (TypeError, ValueError):
            continue
    return None


@date_reader("email_thread")
def email_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """One chain per ``.eml``, in thread order: the quoted messages from the deepest (oldest) quote up to
    the one right under the top message (each its quote header's date, to the minute), then the top
    message's ``Date`` header (to the second). The page shows the newest message first, so reading the
    quote headers bottom-up must never go back in time, and the header is not before what it quotes.
    Quote lines carry no offset and take the header's. The body is read with the same parser as the
    genre's ``extract_text`` (``email.parser.BytesParser``, ``policy.default``)."""
    chains = []
    for file in view.delivered(artifact_id):
        if file.suffix != ".eml":
            continue
        mail = BytesParser(policy=policy.default).parsebytes(file.data)
        try:
            header = _aware(parsedate_to_datetime(str(mail["Date"])), None) if mail["Date"] is not None else None
        except (TypeError, ValueError):
            header = None
        zone = header.tzinfo if header is not None else view.now.tzinfo
        part = mail.get_body(preferencelist=("plain",))
        body = part.get_content() if part is not None else ""
        quoted = []
        for match in _QUOTE_HEADER.finditer(body):
            moment = client_date(match.group("on") or match.group("sent") or match.group("date"), zone)
            if moment is not None:
                line = match.group(0).lstrip("> \t").strip()
                quoted.append(Stamp(f"quoted message {len(quoted) + 1} ({line[:70]})", moment, 60))
        chain = quoted[::-1]
        if header is not None:
            chain.append(Stamp(f"the Date header ({mail['Date']})", header, 0))
        chains.append(chain)
    return chains


# transcripts: the header's date and start clock, then each turn's clock -----------------------------

_START_CLOCK = re.compile(r"^[A-Z][A-Za-z ]*: (\d{1,2}):(\d{2}) \(UTC([+-])(\d{2}):(\d{2})\)[ \t]*$", re.MULTILINE)
"""A header line giving a start clock with its offset: ``Started: 17:49 (UTC-05:00)``, ``Call start: ...``."""


@date_reader("support_transcript", "call_recording")
def transcript_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """One chain: the header's start (``Date:`` day plus the ``HH:MM (UTC±hh:mm)`` start clock, or the day
    alone), then every timed turn (``[NN] Speaker (HH:MM): ...``, read with the genre's
    :func:`~taugen.generators.corpus.genres.support_transcript.parse_turns`) on that day, to the minute.
    Text is the genre's ``extract_text`` (the delivered ``.txt``; for ``call_recording`` the transcript
    that stands in for its audio). A conversation does not cross midnight: a clock going back is an error."""
    from taugen.generators.corpus.genres.support_transcript import parse_turns

    text = view.text(artifact_id)
    head = text.split("\n\n", 1)[0]
    day_line = re.search(r"^Date: (.+)$", head, re.MULTILINE)
    days = dates_in_text(day_line.group(1)) if day_line else []
    if not days:
        return []
    clock = _START_CLOCK.search(head)
    zone = _offset(*clock.group(3, 4, 5)) if clock else view.now.tzinfo
    if clock:
        chain = [Stamp("the start time", dt.datetime.combine(days[0], dt.time(int(clock.group(1)), int(clock.group(2))),
                                                              zone), 60)]
    else:
        chain = [Stamp("the date", dt.datetime.combine(days[0], dt.time(), zone), _DAY)]
    turns, _bad = parse_turns(text)
    for turn in turns:
        if turn.clock is not None:
            try:
                moment = dt.datetime.combine(days[0], dt.time(*turn.clock), zone)
            except ValueError:
                continue
            chain.append(Stamp(f"turn {turn.number}", moment, 60))
    return [chain]


_RECORDED = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?: \(UTC([+-])(\d{2}):(\d{2})\))?")


@date_reader("meeting_transcript")
def meeting_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """One chain per ``.vtt`` (read with the genre's
    :func:`~taugen.generators.corpus.genres.meeting_transcript.parse_vtt`): the recording start from the
    ``NOTE`` block (``Recorded: YYYY-MM-DD HH:MM (UTC±hh:mm)``, to the minute), then each cue's start
    in file order (start + cue offset), then the end of the last cue. Without a recording line the cue
    order is still checked (counted from the Unix epoch)."""
    from taugen.generators.corpus.genres.meeting_transcript import parse_vtt

    chains = []
    for file in view.delivered(artifact_id):
        if file.suffix != ".vtt":
            continue
        notes, cues, _problems = parse_vtt(file.data)
        recorded = next((match for line in notes if (match := _RECORDED.search(line))), None)
        if recorded is not None:
            zone = _offset(*recorded.group(5, 6, 7)) if recorded.group(5) else view.now.tzinfo
            base = dt.datetime.combine(dt.date.fromisoformat(recorded.group(1)),
                                       dt.time(int(recorded.group(2)), int(recorded.group(3)),
                                               int(recorded.group(4) or 0)), zone)
            chain = [Stamp("the recording start", base, 60)]
        else:
            base, chain = _EPOCH, []
        for position, cue in enumerate(cues, start=1):
            chain.append(Stamp(f"cue {cue.identifier or position}", base + dt.timedelta(seconds=cue.start)))
        if cues:
            chain.append(Stamp(f"the end of cue {cues[-1].identifier or len(cues)}",
                               base + dt.timedelta(seconds=cues[-1].end)))
        chains.append(chain)
    return chains


# exports: channel messages and threads, issues with comments and change logs, case extracts -------


def _epoch(value: object, label: str) -> Stamp | None:
    try:
        return Stamp(label, dt.datetime.fromtimestamp(float(value), tz=dt.timezone.utc))
    except (TypeError, ValueError, OverflowError, OSError):
        return None


@date_reader("channel_export")
def channel_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """Chains of a Slack-style export (``ts`` and ``created`` are Unix epoch seconds): the channel's
    ``created`` then every message in file order (the export is in ``ts`` order); the channel's
    ``created`` then its topic's and purpose's ``last_set``; each reply after the thread parent its
    ``thread_ts`` names; each thread parent before every reply its ``replies`` list and its
    ``latest_reply``."""
    chains: list[Chain] = []
    for document in _json_files(view, artifact_id):
        channel = document.get("channel") if isinstance(document.get("channel"), dict) else {}
        created = _epoch(channel.get("created"), "the channel's creation") if "created" in channel else None
        messages = [m for m in document.get("messages") or [] if isinstance(m, dict)]
        chains.append([s for s in [created, *(_epoch(m.get("ts"), f"message {m.get('ts')}") for m in messages)] if s])
        for part in ("topic", "purpose"):
            value = channel.get(part)
            if created is not None and isinstance(value, dict) and "last_set" in value:
                chains.append([s for s in (created, _epoch(value["last_set"], f"the {part}'s last_set")) if s])
        for message in messages:
            ts, thread = message.get("ts"), message.get("thread_ts")
            if thread is not None and thread != ts:
                chains.append([s for s in (_epoch(thread, f"thread parent {thread}"), _epoch(ts, f"reply {ts}")) if s])
            listed = [r.get("ts") for r in message.get("replies") or [] if isinstance(r, dict)]
            if message.get("latest_reply") is not None:
                listed.append(message["latest_reply"])
            for reply in listed:
                chains.append([s for s in (_epoch(ts, f"thread parent {ts}"), _epoch(reply, f"its listed reply {reply}"))
                               if s])
    return chains


@date_reader("issue_tracker_export")
def issue_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """Chains of a Jira search export (times read with the genre's
    :func:`~taugen.generators.corpus.genres.issue_tracker_export.parse_jira_time`), per issue: ``created``,
    the comments in order, ``updated``; ``created``, the change-log histories in order, ``updated``;
    each comment's ``created`` then its ``updated``; ``created`` then ``resolutiondate``."""
    from taugen.generators.corpus.genres.issue_tracker_export import parse_jira_time

    def stamp(text: object, label: str) -> Stamp | None:
        try:
            return Stamp(label, _aware(parse_jira_time(str(text)), view.now.tzinfo)) if text else None
        except ValueError:
            return None

    chains: list[Chain] = []
    for document in _json_files(view, artifact_id):
        for issue in document.get("issues") or []:
            if not isinstance(issue, dict):
                continue
            key, fields = issue.get("key", "?"), issue.get("fields") or {}
            created, updated = stamp(fields.get("created"), f"{key} created"), stamp(fields.get("updated"),
                                                                                     f"{key} updated")
            comments = [c for c in (fields.get("comment") or {}).get("comments") or [] if isinstance(c, dict)]
            histories = [h for h in (issue.get("changelog") or {}).get("histories") or [] if isinstance(h, dict)]
            chains.append([created, *(stamp(c.get("created"), f"{key} comment {c.get('id')}") for c in comments),
                           updated])
            chains.append([created, *(stamp(h.get("created"), f"{key} change {h.get('id')}") for h in histories),
                           updated])
            chains += [[stamp(c.get("created"), f"{key} comment {c.get('id')} created"),
                        stamp(c.get("updated"), f"{key} comment {c.get('id')} updated")] for c in comments]
            chains.append([created, stamp(fields.get("resolutiondate"), f"{key} resolved")])
    return [[s for s in chain if s is not None] for chain in chains]


@date_reader("case_ledger_export")
def ledger_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """Chains of a case extract: per row, its time columns (names ending ``_at``) in column order
    (``opened_at`` before ``last_action_at``), then the extract's ``snapshot_at`` (no case acts after the
    extract was taken). Times are ISO 8601; one without an offset takes the world's now's."""
    chains: list[Chain] = []
    for document in _json_files(view, artifact_id):
        zone = view.now.tzinfo
        columns = [c for c in document.get("columns") or [] if isinstance(c, str) and c.endswith("_at")]
        key = document.get("primary_key")
        snapshot = _iso(document.get("snapshot_at"), zone)
        tail = [Stamp("the extract's snapshot_at", snapshot)] if snapshot else []
        for position, row in enumerate(document.get("rows") or [], start=1):
            if not isinstance(row, dict):
                continue
            name = row.get(key, f"row {position}")
            stamps = [Stamp(f"{name} {column}", moment) for column in columns
                      if (moment := _iso(row.get(column), zone)) is not None]
            chains.append(stamps + tail)
        if not document.get("rows") and tail:
            chains.append(tail)
    return chains
