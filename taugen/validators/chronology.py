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
  manifest is not consulted for these: a file edited after the build is judged on what it shows. Each
  genre reads its own files (:meth:`~taugen.generators.corpus.genre.Genre.delivered_dates`).
"""

from __future__ import annotations

import datetime as dt
from itertools import pairwise

from taugen.findings import Finding, error
from taugen.generators.corpus.genre import genres
from taugen.generators.corpus.stamps import DAY, Chain, Stamp, dates_in_text
from taugen.validators.bundle_view import BundleView
from taugen.validators.registry import validator


FROZEN_STAMPS = 3
"""How many of a record's times of day, over half of them, in the same second make a frozen clock
(:func:`frozen_burst`)."""
FROZEN_SPAN = dt.timedelta(seconds=1)
"""Times of day closer than this are the same moment (a channel's message ids differ in microseconds)."""


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
        echoes = [{**echo, "status": "current"} for echo in entry.get("echoes") or []]  # restated as in force
        for rendition in entry["renditions"] + echoes:
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


def frozen_burst(chains: list[Chain]) -> list[Stamp]:
    """The stamps of a frozen clock in ``chains`` (one record's), oldest first, or ``[]``: of its times
    written at the finest grain it uses (finer than a day; one stamp per label; a field that restates
    another event's moment, :attr:`~taugen.generators.corpus.stamps.Stamp.restates`, is no event), the most that fall
    within :data:`FROZEN_SPAN`, when they are :data:`FROZEN_STAMPS` or more and over half of them. (A
    coarser stamp, a quoted email's ``2:10 PM``, says nothing about the seconds between the messages.)"""
    stamps = {stamp.label: stamp for chain in chains for stamp in chain if stamp.grain < DAY and not stamp.restates}
    grain = min((stamp.grain for stamp in stamps.values()), default=0)
    clocked = sorted((stamp for stamp in stamps.values() if stamp.grain == grain), key=lambda stamp: stamp.moment)
    best: list[Stamp] = []
    low = 0
    for high, stamp in enumerate(clocked):
        while stamp.floor(grain) - clocked[low].floor(grain) >= FROZEN_SPAN:
            low += 1
        if high + 1 - low > len(best):
            best = clocked[low:high + 1]
    return best if len(best) >= FROZEN_STAMPS and 2 * len(best) > len(clocked) else []


def delivered_dates(view: BundleView, artifact_id: str) -> list[Chain]:
    """The dated chains of one artifact's delivered files, as its genre reads them
    (:meth:`~taugen.generators.corpus.genre.Genre.delivered_dates`; none for a genre that declares none, or
    for the policy, which is no genre)."""
    entry = view.manifest["artifacts"][artifact_id]
    genre = genres().get(entry["genre"])
    if genre is None:
        return []
    return genre.delivered_dates(view.delivered(artifact_id), view.author_text(artifact_id), view.now.tzinfo)


def delivered_chronology(view: BundleView) -> list[Finding]:
    """K20 on the delivered files: every chain goes forward and nothing is after the world's now.

    Rules, per artifact whose genre reads dates from its files (:func:`delivered_dates`):

    * ``delivered_out_of_order``: in a chain, a stamp is earlier than the one before it (compared at
      the coarser grain of the two). One finding per artifact, naming the first break.
    * ``delivered_after_now``: a stamp, floored to its own grain, is after the manifest's ``now`` (a
      calendar day after the snapshot date is after now). One finding per artifact, naming the latest.
    * ``delivered_frozen_clock``: over half of the record's times of day, and :data:`FROZEN_STAMPS` or
      more, are the same moment (:func:`frozen_burst`): a channel whose joins, question and replies, or an
      issue whose creation, comments and status changes, all happen at once. (A meeting's turns may come
      seconds apart; an email thread's pace is the schedule's, :mod:`~taugen.generators.corpus.genres.email_schedule`.)

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
        burst = frozen_burst(chains)
        if burst:
            findings.append(error("chronology", "delivered_frozen_clock", artifact_id,
                                  f"in the delivered file, {len(burst)} of its times ({burst[0].label} to "
                                  f"{burst[-1].label}) are the same moment, {burst[0].moment.isoformat()}",
                                  rule="people take time: a record's messages, comments and changes are not all "
                                       "written at the same moment"))
    return findings
