"""K20 on the delivered files: ``chronology`` reads the dates a reader sees in the files themselves.

Each edited-file case is planted by its mutation operator on the easy banking bundle (built once per
session); those operators leave ``author/manifest.json`` as built, so only the delivered file shows the
defect, and the finding must name the artifact whose file was edited.
"""

from __future__ import annotations

import datetime as dt

import pytest

from taugen.build.files import read_bundle
from taugen.validators.bundle_view import BundleView
from taugen.generators.corpus.genres.email_thread import client_date
from taugen.generators.corpus.stamps import Stamp
from taugen.validators.chronology import check_chronology, delivered_chronology, delivered_dates, frozen_burst
from taugen.mutation.model import operators, plant

FILE_ONLY = {
    "K20-eml_date_header_before_quoted_parent": ("delivered_out_of_order", "email_thread"),
    "K20-eml_dated_year_after_snapshot": ("delivered_after_now", "email_thread"),
    "K20-chat_turn_clock_before_previous_turn": ("delivered_out_of_order", "support_transcript"),
    "K20-meeting_cue_before_previous_cue": ("delivered_out_of_order", "meeting_transcript"),
    "K20-issue_comment_before_issue_created": ("delivered_out_of_order", "issue_tracker_export"),
}


@pytest.fixture(scope="module")
def clean_files(built_bundle):
    return read_bundle(built_bundle("easy"))


def test_clean_bundle_has_no_delivered_finding(clean_files):
    view = BundleView(clean_files)
    assert delivered_chronology(view) == []
    genres = {entry["genre"] for artifact_id, entry in view.manifest["artifacts"].items()
              if any(delivered_dates(view, artifact_id))}
    assert {"email_thread", "support_transcript", "meeting_transcript", "channel_export",
            "issue_tracker_export", "case_ledger_export"} <= genres


def test_email_chain_reads_every_quoted_message(clean_files):
    view = BundleView(clean_files)
    for artifact_id, entry in view.manifest["artifacts"].items():
        if entry["genre"] == "email_thread":
            (chain,) = delivered_dates(view, artifact_id)
            built = [dt.datetime.fromisoformat(m["date"]) for m in entry["metadata"]["messages"]]
            assert [s.floor(60) for s in chain] == [b.replace(second=0, microsecond=0) for b in built]


@pytest.mark.parametrize("mutant_id", sorted(FILE_ONLY))
def test_file_edit_is_found_with_its_artifact(clean_files, mutant_id):
    code, genre = FILE_ONLY[mutant_id]
    operator = next(op for op in operators() if op.mutant_id == mutant_id)
    mutant = plant(clean_files, operator)
    assert mutant is not None, f"{mutant_id} does not apply to the easy bundle"
    assert "author/manifest.json" not in mutant.changed and all(p.startswith("kit/uploaded_materials/") for p in mutant.changed)
    view = BundleView(mutant.files)
    assert view.manifest["artifacts"][mutant.subject]["genre"] == genre
    found = [(f.code, f.subject) for f in delivered_chronology(view)]
    assert found == [(code, mutant.subject)]
    assert (code, mutant.subject) in [(f.code, f.subject) for f in check_chronology(view) if f.check == "chronology"]


def test_channel_reply_before_its_parent(clean_files):
    import json

    view = BundleView(clean_files)
    artifact_id, entry = next((a, e) for a, e in sorted(view.manifest["artifacts"].items())
                              if e["genre"] == "channel_export")
    path = entry["files"][0]["path"]
    document = json.loads(clean_files[path])
    reply = next(m for m in document["messages"] if m.get("thread_ts") not in (None, m["ts"]))
    reply["ts"] = f"{float(reply['thread_ts']) - 60:.6f}"
    edited = BundleView({**clean_files, path: json.dumps(document).encode()})
    assert [(f.code, f.subject) for f in delivered_chronology(edited)] == [("delivered_out_of_order", artifact_id)]


def test_case_action_after_the_extract(clean_files):
    import json

    view = BundleView(clean_files)
    artifact_id, entry = next((a, e) for a, e in sorted(view.manifest["artifacts"].items())
                              if e["genre"] == "case_ledger_export")
    path = entry["files"][0]["path"]
    document = json.loads(clean_files[path])
    taken = dt.datetime.fromisoformat(document["snapshot_at"])
    document["rows"][0]["last_action_at"] = (taken + dt.timedelta(hours=2)).isoformat()
    edited = BundleView({**clean_files, path: json.dumps(document).encode()})
    assert [(f.code, f.subject) for f in delivered_chronology(edited)] == [("delivered_out_of_order", artifact_id)]


def test_a_channel_whose_messages_all_share_one_moment_has_a_frozen_clock(clean_files):
    """Every join, question and reply posted at once (a zero-length export window gave message ids a few
    microseconds apart): ``delivered_frozen_clock``, and nothing else, since the order still holds."""
    import json

    view = BundleView(clean_files)
    artifact_id, entry = next((a, e) for a, e in sorted(view.manifest["artifacts"].items())
                              if e["genre"] == "channel_export" and len(json.loads(clean_files[e["files"][0]["path"]])["messages"]) >= 3)
    path = entry["files"][0]["path"]
    document = json.loads(clean_files[path])
    first = float(min(m["ts"] for m in document["messages"]))
    by_ts = {m["ts"]: f"{first + index / 1e6:.6f}" for index, m in
             enumerate(sorted(document["messages"], key=lambda m: float(m["ts"])))}
    for message in document["messages"]:
        message["ts"] = by_ts[message["ts"]]
        if message.get("thread_ts") in by_ts:
            message["thread_ts"] = by_ts[message["thread_ts"]]
    edited = BundleView({**clean_files, path: json.dumps(document).encode()})
    found = [(f.code, f.subject) for f in delivered_chronology(edited)]
    assert found == [("delivered_frozen_clock", artifact_id)]


def _stamp(label: str, moment: str, grain: int = 0) -> Stamp:
    return Stamp(label, dt.datetime.fromisoformat(moment), grain)


def test_a_frozen_burst_is_over_half_of_the_finest_times_in_one_second():
    same = [_stamp(f"comment {i}", "2025-03-03T10:00:00-05:00") for i in range(3)]
    assert [s.label for s in frozen_burst([same])] == ["comment 0", "comment 1", "comment 2"]
    # two in one second are a coincidence, not a frozen clock
    assert frozen_burst([same[:2]]) == []
    # three at once among seven spread over a day: under half
    spread = [_stamp(f"change {i}", f"2025-03-03T1{i}:15:00-05:00") for i in range(4)]
    assert frozen_burst([same + spread]) == []
    # a quoted message's minute says nothing about seconds: only the finest grain counts
    emails = [_stamp(f"quoted message {i}", "2025-03-03T10:00:00-05:00", 60) for i in range(4)]
    assert frozen_burst([[*emails, _stamp("the Date header", "2025-03-03T10:00:40-05:00")]]) == []
    # turns seconds apart are a conversation, not a frozen clock
    turns = [_stamp(f"turn {i}", f"2025-03-03T10:00:{10 * i:02d}-05:00") for i in range(5)]
    assert frozen_burst([turns]) == []


@pytest.mark.parametrize("text, expected", [
    ("Tue, Mar 10, 2026 at 2:14 PM jo@example.com", dt.datetime(2026, 3, 10, 14, 14)),
    ("Tuesday, March 10, 2026 12:05 AM", dt.datetime(2026, 3, 10, 0, 5)),
    ("Mar 10, 2026, at 12:30 PM, jo@example.com", dt.datetime(2026, 3, 10, 12, 30)),
    ("Sent from my iPhone", None),
])
def test_client_date_reads_each_mail_client(text, expected):
    zone = dt.timezone(dt.timedelta(hours=-5))
    assert client_date(text, zone) == (expected.replace(tzinfo=zone) if expected else None)
