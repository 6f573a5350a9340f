"""taugen diff: what changed between two bundles, whether scores stay comparable, the implied bump."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from taugen.build.diff import diff_bundles, read_side, read_summary, render_text, version_bump, version_warning
from taugen.build.files import read_bundle
from taugen.hashing import sha256sums
from taugen.build.pipeline import version_findings

RUNTIME = "tau2/domains/banking"


def _edited(files: dict[str, bytes], path: str, edit) -> dict[str, bytes]:
    """A copy of ``files`` whose JSON file ``path`` was passed through ``edit`` (SHA256SUMS resealed)."""
    copy = dict(files)
    data = json.loads(copy[path])
    edit(data)
    copy[path] = (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()
    copy["SHA256SUMS"] = sha256sums({p: d for p, d in copy.items() if p != "SHA256SUMS"})
    return copy


@pytest.fixture(scope="module")
def easy_files(built_bundle) -> dict[str, bytes]:
    return read_bundle(built_bundle("easy"))


def test_identical_bundles_need_no_bump(easy_files):
    result = diff_bundles(easy_files, easy_files)
    assert result.bump == "none" and result.comparable and result.version_warning is None
    assert not (result.facts_changed or result.tasks_changed or result.artifacts_changed or result.splits)
    assert "identical" in render_text(result)


def test_changed_gold_is_major_and_named(easy_files):
    tasks_path = f"{RUNTIME}/tasks.json"
    first = json.loads(easy_files[tasks_path])[0]["id"]

    def edit(tasks):
        tasks[0]["evaluation_criteria"]["actions"] = tasks[0]["evaluation_criteria"]["actions"][:-1]

    result = diff_bundles(easy_files, _edited(easy_files, tasks_path, edit))
    assert [c.subject for c in result.tasks_changed] == [first]
    assert result.tasks_changed[0].fields == ["gold"]
    assert result.bump == "major" and not result.comparable
    assert result.reasons == ["1 tasks changed their gold"]
    # same pack version 0.3.0 -> 0.3.0: a breaking change without a bump is a warning
    assert "major version bump" in result.version_warning


def test_scenario_and_grading_changes_are_told_apart(easy_files):
    tasks_path = f"{RUNTIME}/tasks.json"

    def edit(tasks):
        tasks[1]["user_scenario"]["instructions"]["reason_for_call"] += " Quickly."
        tasks[2]["evaluation_criteria"]["reward_basis"] = ["DB", "COMMUNICATE"]

    result = diff_bundles(easy_files, _edited(easy_files, tasks_path, edit))
    assert sorted(tuple(c.fields) for c in result.tasks_changed) == [("grading",), ("scenario",)]


def test_added_task_and_split_membership_is_minor(easy_files):
    tasks_path, split_path = f"{RUNTIME}/tasks.json", f"{RUNTIME}/split_tasks.json"

    def add_task(tasks):
        twin = json.loads(json.dumps(tasks[0]))
        twin["id"] += "[COPY]"
        tasks.append(twin)

    grown = _edited(easy_files, tasks_path, add_task)
    new_id = json.loads(grown[tasks_path])[-1]["id"]
    grown = _edited(grown, split_path, lambda splits: splits["base"].append(new_id))
    result = diff_bundles(easy_files, grown)
    assert result.tasks_added == [new_id] and not result.tasks_removed
    assert result.splits == {"base": {"added": [new_id], "removed": []}}
    assert result.bump == "minor" and result.comparable
    # and the other way round a task disappears: major
    assert diff_bundles(grown, easy_files).bump == "major"


def test_fact_value_change_and_owner_move(easy_files):
    manifest_path = "author/manifest.json"
    manifest = json.loads(easy_files[manifest_path])
    current = sorted(f for f, fact in manifest["facts"].items() if fact["current"] and fact.get("value")
                     and fact.get("owner"))
    changed, moved = current[0], current[1]

    def edit(data):
        data["facts"][changed]["value"] = {**data["facts"][changed]["value"], "edited": True}
        data["facts"][moved]["owner"] = "somewhere_else_001"

    result = diff_bundles(easy_files, _edited(easy_files, manifest_path, edit))
    assert [c.subject for c in result.facts_changed] == [changed]
    assert result.facts_changed[0].fields == ["value"]
    assert [(c.subject, c.values["owner"][1]) for c in result.facts_moved] == [(moved, "somewhere_else_001")]
    assert result.bump == "major" and "1 current facts changed value" in result.reasons


def test_re_rendered_filler_is_patch(easy_files):
    manifest = json.loads(easy_files["author/manifest.json"])
    filler = next(a for a_id, a in sorted(manifest["artifacts"].items()) if not a["carrier"] and a["files"])
    path = filler["files"][0]["path"]
    copy = dict(easy_files)
    copy[path] = copy[path] + b"\n"
    copy["SHA256SUMS"] = sha256sums({p: d for p, d in copy.items() if p != "SHA256SUMS"})
    result = diff_bundles(easy_files, copy)
    assert result.artifacts_changed and result.bump == "patch" and result.comparable


def test_two_seeds_of_one_pack_are_two_builds_not_two_versions(easy_files):
    """Two bundles of the same pack built at other seeds differ in tasks and records; the diff says the
    build settings differ and does not ask for a version bump (it did: "bump `version:` in domain.yaml",
    exit 1, with both sides named banking-hard-0.3.0)."""
    def reseeded(bundle: dict) -> None:
        bundle["seed"] = 7
        bundle["requested"]["tasks"] = 12

    other = _edited(easy_files, "bundle.json", reseeded)
    other = _edited(other, f"{RUNTIME}/tasks.json", lambda tasks: tasks.pop())
    result = diff_bundles(easy_files, other)
    tasks = json.loads(easy_files["bundle.json"])["requested"]["tasks"]
    assert result.build_changed == {"seed": [0, 7], "requested tasks": [tasks, 12]}
    assert result.tasks_removed and result.bump == "major" and result.version_warning is None
    assert result.reasons[0].startswith("built with other settings (seed 0 -> 7")
    text = render_text(result)
    assert "build settings differ: seed 0 -> 7" in text and "warning:" not in text


def test_semver_rules():
    assert version_bump("0.1.0", "0.2.0") == "minor"
    assert version_bump("1.4.2", "2.0.0") == "major"
    assert version_bump("1.4.2", "1.4.3") == "patch"
    assert version_bump("1.4.2", "1.4.2") == "none"
    assert version_bump("1.4.2", "1.3.0") is None
    assert version_warning("1.0.0", "1.1.0", "major") is not None  # breaking after 1.0 needs a major
    assert version_warning("1.0.0", "2.0.0", "major") is None
    assert version_warning("0.1.0", "0.2.0", "major") is None       # before 1.0 a minor bump is the breaking one
    assert version_warning("0.1.0", "0.1.1", "minor") is not None
    assert version_warning("0.1.0", "0.1.1", "patch") is None
    assert "not a forward semver step" in version_warning("0.2.0", "0.1.0", "none")


def test_build_warns_when_destination_holds_other_gold(easy_files, tmp_path):
    tasks_path = f"{RUNTIME}/tasks.json"

    def edit(tasks):
        tasks[0]["evaluation_criteria"]["actions"] = []

    earlier = tmp_path / "banking-easy-0.3.0"
    for relative, data in _edited(easy_files, tasks_path, edit).items():
        (earlier / relative).parent.mkdir(parents=True, exist_ok=True)
        (earlier / relative).write_bytes(data)
    fresh = {p: d for p, d in easy_files.items() if p != "SHA256SUMS"}
    findings = version_findings(fresh, earlier)
    assert [(f.check, f.code, f.severity) for f in findings] == [("versioning", "version_bump_missing", "warning")]
    assert version_findings(fresh, tmp_path / "nothing-here") == []


def test_cli_diff_json_and_exit_codes(built_bundle, tmp_path):
    bundle = built_bundle("easy")
    edited = tmp_path / "edited"
    shutil.copytree(bundle, edited)
    tasks_file = edited / RUNTIME / "tasks.json"
    tasks = json.loads(tasks_file.read_text())
    tasks[0]["evaluation_criteria"]["actions"] = []
    tasks_file.write_text(json.dumps(tasks))
    run = [sys.executable, "-m", "taugen", "diff"]
    same = subprocess.run([*run, str(bundle), str(bundle), "--format", "json"], capture_output=True, text=True)
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["bump"] == "none"
    changed = subprocess.run([*run, str(bundle), str(edited)], capture_output=True, text=True)
    assert changed.returncode == 1  # the version did not move although gold changed
    assert "gold changed (1)" in changed.stdout and "not comparable" in changed.stdout
    bad = subprocess.run([*run, str(bundle), str(tmp_path / "missing")], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr


def test_bundle_against_an_edited_pack(built_bundle, tmp_path):
    """The domain expert's loop: edit one fee in a copy of the pack, diff the release against it."""
    from taugen.build.pipeline import PACKS_DIR

    pack = tmp_path / "pack"
    shutil.copytree(PACKS_DIR / "banking", pack)
    schedule = pack / "facts" / "fee_schedule.csv"
    old_row = "everyday_checking,Everyday Checking,overdraft,overdraft fee,35.00"
    assert old_row in schedule.read_text()
    schedule.write_text(schedule.read_text().replace(old_row, old_row.replace("35.00", "37.50")))
    bundle = built_bundle("easy")
    result = diff_bundles(read_summary(bundle), read_side(str(pack), read_summary(bundle)))
    changed = {c.subject: c for c in result.facts_changed}
    assert changed["fee_everyday_checking_overdraft"].values["value"][1]["amount"] == "37.50"
    assert result.tasks_changed and result.bump == "major"
    assert f"{RUNTIME}/policy.md" in result.runtime_changed


def test_a_hard_bundle_against_its_own_pack_is_unchanged(built_bundle):
    """A hard bundle's build resolved the tier's ``hard`` surface to ``hard_client`` (the pack has client-held
    facts). Rebuilt with ``surface="hard"`` passed explicitly, the diff turned the client overlay off: 19
    facts read as moved from the client into the records, 1,584 records as re-rendered, and a one-fee edit
    was lost among them. The pack as shipped now diffs to nothing."""
    from taugen.build.pipeline import PACKS_DIR

    bundle = built_bundle("hard", seed=1, readers=False)
    reference = read_summary(bundle)
    assert json.loads(reference["bundle.json"])["achieved"]["surface"] == "hard_client"
    result = diff_bundles(reference, read_side(str(PACKS_DIR / "banking"), reference))
    assert not result.facts_changed and not result.facts_added and not result.facts_removed
    assert not result.tasks_changed and not result.artifacts_changed and result.bump == "none", \
        render_text(result)[:2000]


def test_report_shows_the_changes(built_bundle, tmp_path):
    from taugen.build.report_html import write_report

    bundle = built_bundle("easy")
    paths = write_report(bundle, tmp_path / "report.html", against=bundle)
    html = paths.html.read_text()
    assert 'id="diff"' in html and "identical: scores are comparable" in html
    assert json.loads(paths.json.read_text())["diff"]["bump"] == "none"
