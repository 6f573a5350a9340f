"""One truth per check: lint-tasks on a taugen bundle agrees with validate; tau2-check and lint-tasks
write JSON and JUnit; --version; choice options list their choices in help."""

from __future__ import annotations

import json
import shutil
import xml.dom.minidom

import pytest

import taugen
from taugen.build.files import read_bundle
from taugen.build.pipeline import validate_files
from taugen.validators.foreign import DEFECT_CHECKS, lint_task_folder, taugen_bundle_of


def _defects(findings) -> set[tuple[str, str, str, str]]:
    return {(f.severity, f.code, f.subject, f.message) for f in findings
            if f.check in DEFECT_CHECKS and f.severity in ("error", "warning")}


def test_lint_tasks_on_the_hard_bundle_agrees_with_validate(built_bundle):
    """Linting the runtime folder alone used to replay nothing and report 20 K5 errors: ids created by an
    earlier gold write (open_dispute, then issue_provisional_credit) looked unresolvable."""
    bundle = built_bundle("hard")
    folder = bundle / "tau2" / "domains" / "banking"
    assert taugen_bundle_of(folder) == bundle.resolve()
    linted = lint_task_folder(folder)
    validated = validate_files(read_bundle(bundle), str(bundle))
    assert _defects(linted) == _defects(validated) == set()
    assert any("checked as taugen validate checks it" in f.message for f in linted)


def test_lint_tasks_and_validate_report_the_same_planted_defect(built_bundle, tmp_path):
    copy = tmp_path / built_bundle("easy").name
    shutil.copytree(built_bundle("easy"), copy)
    path = copy / "tau2" / "domains" / "banking" / "tasks.json"
    tasks = json.loads(path.read_text())
    planted = None
    for task in tasks:
        for action in task["evaluation_criteria"]["actions"]:
            if isinstance(action["arguments"].get("fee"), (int, float)) and action["arguments"]["fee"] > 0:
                action["arguments"]["fee"] = round(action["arguments"]["fee"] + 3.0, 2)
                planted = task["id"]
                break
        if planted:
            break
    assert planted
    path.write_text(json.dumps(tasks, indent=2))
    linted = _defects(lint_task_folder(copy / "tau2" / "domains" / "banking"))
    validated = _defects(validate_files(read_bundle(copy), str(copy)))
    assert linted == validated
    assert any(severity == "error" and subject == planted for severity, _, subject, _ in linted)


def test_tau2_check_writes_json_and_junit(cli, built_bundle, tmp_path):
    pytest.importorskip("tau2")
    bundle = built_bundle("easy", domain="telecom")
    as_json = cli("tau2-check", bundle, "--format", "json")
    assert as_json.exit_code == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["passed"] is True and report["tasks"] == len(report["rows"]) > 0 and report["failed"] == 0
    junit = cli("tau2-check", bundle, "--format", "junit", "-o", tmp_path / "check.xml")
    assert junit.exit_code == 0
    document = xml.dom.minidom.parse(str(tmp_path / "check.xml"))
    assert len(document.getElementsByTagName("testcase")) == report["tasks"]
    assert document.getElementsByTagName("failure") == []
    assert cli("tau2-check", bundle, "--format", "yaml").exit_code == 2


def test_version_and_choices_in_help(cli):
    version = cli("--version")
    assert version.exit_code == 0 and version.stdout.strip() == f"taugen {taugen.__version__}"
    build = cli("build", "--help", columns=200).stdout
    assert "sop|core|hard|hard_client" in build and "text|text+image|text+image+audio" in build
    assert "telecom" in build and "airline" in build and "retail" in build
    # rich reads "[llm]" as markup and drops it unless escaped: the extras must be named in full
    assert "taugen[llm]" in build and "taugen[ray]" in build
    assert "text|json" in cli("validate", "--help", columns=200).stdout
    assert "text|json|junit" in cli("lint-tasks", "--help", columns=200).stdout
    assert "text|json|junit" in cli("tau2-check", "--help", columns=200).stdout
    assert "llm|gold|empty" in cli("run", "--help", columns=200).stdout
    bad = cli("build", "banking", "--surface", "nowhere")
    assert bad.exit_code == 2


def test_validate_reports_progress_per_validator(built_bundle, monkeypatch):
    """``taugen validate`` drives a progress bar from the validators it runs (one update per validator)."""
    from taugen.validators.registry import validators

    seen: list[str] = []
    validate_files(read_bundle(built_bundle("easy")), "easy", seen.append)
    assert seen == list(validators())
