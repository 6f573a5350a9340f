"""Chronology: supersession goes forward, records are in order, nothing is dated after the snapshot.

Checks (defect kind K20 in ``reference/defect-kinds.md``):

* every supersession replaces an older fact with a strictly later ``effective_from``;
* each artifact's timestamps lie in ``[history_start, now]`` and never go backwards (a reply never
  precedes the message it answers);
* a record stating a rule as current is dated on or after the rule took effect; one stating a
  superseded version is dated before its successor took effect;
* no date written in a delivered record's text is after the snapshot date.
"""

from __future__ import annotations

import datetime as dt
import re

from taugen.validators.bundle_view import BundleView
from taugen.validators.findings import Finding, error
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
    return findings
