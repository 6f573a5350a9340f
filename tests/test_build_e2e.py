"""End to end: `taugen build banking` at every tier, read back with each format's own reader."""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import openpyxl
import pytest
from PIL import Image
from typer.testing import CliRunner

from taugen.build import pipeline
from taugen.build.pipeline import build
from taugen.cli import app
from taugen.findings import error
from bundle_fixtures import TEST_TASKS  # noqa: E402

RUNNER = CliRunner()


RUN_FIRST = 1  # a hard build in another process and the shared hard bundle: long, so scheduled early


@pytest.fixture(scope="module")
def hard(built_bundle) -> Path:
    return built_bundle("hard")


@pytest.fixture(scope="module")
def manifest(hard) -> dict:
    return json.loads((hard / "author/manifest.json").read_text())


def _files_of(bundle: Path, manifest: dict, genre: str, suffix: str) -> list[Path]:
    paths = [bundle / f["path"] for a in manifest["artifacts"].values() if a["genre"] == genre
             for f in a["files"] if f["suffix"] == suffix]
    assert paths, f"no {genre} {suffix} files"
    return paths


def test_bundle_layout_and_counts(hard):
    assert hard.name == "banking-hard-0.3.0"
    for relative in ("bundle.json", "SHA256SUMS", "tau2/domains/banking/policy.md", "tau2/domains/banking/db.json",
                     "tau2/domains/banking/tasks.json", "tau2/domains/banking/split_tasks.json", "kit/README.md",
                     "kit/tools.json", "author/manifest.json", "author/client_prompt.md",
                     "author/validation.json", "author/validation.md", "author/certificates.json"):
        assert (hard / relative).is_file(), relative
    info = json.loads((hard / "bundle.json").read_text())
    assert info["version"] == "0.3.0" and info["tier"] == "hard" and info["seed"] == 0
    assert info["achieved"]["surface"] == "hard_client"
    counts = info["counts"]
    assert counts["facts"] >= 200 and counts["supersession_arcs"] >= 15 and counts["client_held"] >= 10
    assert counts["tasks"] == 45
    assert set(counts["problems_per_task"]) <= {"3", "4"}
    assert set(counts["artifacts_per_genre"]) >= {"email_thread", "support_transcript", "call_recording",
                                                  "spreadsheet", "flowchart", "pdf_document", "policy_document"}
    assert counts["fillers"] > 0 and counts["carriers"] > 0
    assert "domain.yaml" in info["sources"] and all(len(h) == 64 for h in info["sources"].values())
    assert len(json.loads((hard / "kit/tools.json").read_text())) >= 12


def test_validate_passes_on_the_built_bundle(hard):
    result = RUNNER.invoke(app, ["validate", str(hard)])
    assert result.exit_code == 0, result.output
    assert "PASS: 0 errors" in result.output


def test_validate_catches_an_edited_record(hard, tmp_path, manifest):
    copy = tmp_path / hard.name
    shutil.copytree(hard, copy)
    owner = next(a for a in manifest["artifacts"].values() if a["genre"] == "email_thread" and a["carrier"])
    path = copy / owner["files"][0]["path"]
    data = path.read_bytes()
    path.write_bytes(data.replace(b"Subject:", b"Subject: [edited]", 1))
    result = RUNNER.invoke(app, ["validate", str(copy)])
    assert result.exit_code == 1
    assert "sha256sums_mismatch" in result.output


def test_validators_side_by_side_find_what_one_process_finds(hard, tmp_path, manifest):
    """The build runs the validators in forked workers: the findings are those of one process, errors
    included (a carrier's record deleted)."""
    from taugen.build.files import read_bundle
    from taugen.build.pipeline import validate_files

    copy = tmp_path / hard.name
    shutil.copytree(hard, copy)
    owner = next(a for a in manifest["artifacts"].values() if a["genre"] == "email_thread" and a["carrier"])
    (copy / owner["files"][0]["path"]).unlink()  # a carrier's record is gone
    files = read_bundle(copy)
    alone = validate_files(files, str(copy))
    started: list[str] = []
    side_by_side = validate_files(files, str(copy), started.append, workers=2)
    assert side_by_side == alone
    assert sum(f.severity == "error" for f in alone) >= 1
    from taugen.validators.registry import validators

    registered = validators()
    # every validator reported, the longest first (their declared cost), ties in registry order
    assert started == sorted(registered, key=lambda name: -registered[name].validator_cost)
    assert started[0] == "sufficiency" and set(started[:6]) == {"sufficiency", "tasks", "realism", "defect_scenario",
                                                                "leakage", "defect_policy"}


def test_same_seed_gives_identical_bytes_in_another_process(built_bundle, tmp_path, repo_root):
    """A hard bundle built in a fresh Python process (another hash seed, fresh module state, its own render
    workers and espeak-ng runs, no cache: every record rendered there) has the bytes of the same build made
    in the test session's process. The seed is the sample's (tests/test_seed_sample.py), without the strong
    readers: that bundle is built anyway, so the comparison costs one build, not two. (Seed 0's shared bundle
    measures the readers; their numbers are seeded and compared with a fresh measurement in
    tests/test_strong_readers.py.)"""
    from test_seed_sample import REBUILT_SEED

    env = {key: value for key, value in os.environ.items() if key != "PYTHONHASHSEED"}
    env["PYTHONHASHSEED"] = "12345"  # a different str-hash order than this process's
    done = subprocess.run([sys.executable, "-m", "taugen", "build", "banking", "--difficulty", "hard", "--seed",
                           str(REBUILT_SEED), "--tasks", str(TEST_TASKS), "--no-readers", "--no-cache", "--out", str(tmp_path)],
                          cwd=repo_root,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    here = built_bundle("hard", seed=REBUILT_SEED, readers=False)  # after the other process's build: by then often built
    again = tmp_path / here.name
    assert (again / "SHA256SUMS").read_text() == (here / "SHA256SUMS").read_text()
    assert (again / "bundle.json").read_bytes() == (here / "bundle.json").read_bytes()


def test_every_genre_opens_with_its_own_reader(hard, manifest):
    for path in _files_of(hard, manifest, "email_thread", ".eml")[:10]:
        message = email.parser.BytesParser(policy=email.policy.default).parsebytes(path.read_bytes())
        assert message["Message-ID"] and message["Date"] and message["From"] and message["Subject"]
        if message["In-Reply-To"]:
            assert message["In-Reply-To"] in message["References"]
    numeric = []
    for path in _files_of(hard, manifest, "spreadsheet", ".xlsx")[:10]:
        workbook = openpyxl.load_workbook(path)
        cells = [c.value for ws in workbook.worksheets for row in ws.iter_rows() for c in row if c.value is not None]
        assert workbook.worksheets and len(cells) > 8, path.name
        # figures are stored as numbers, never as text a spreadsheet would not sum ("30.00" in a string cell);
        # a decision table of yes/no rules alone may hold no figure at all ("exempt from the paper statement fee")
        assert not [v for v in cells if isinstance(v, str) and re.fullmatch(r"\$?-?[\d,]+(\.\d+)?%?", v.strip())], path.name
        numeric += [v for v in cells if isinstance(v, (int, float))]
    assert numeric
    for path in _files_of(hard, manifest, "pdf_document", ".pdf")[:6]:
        text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, check=True, text=True).stdout
        assert len(text.split()) > 30
    for path in _files_of(hard, manifest, "flowchart", ".png")[:6]:
        with Image.open(path) as image:
            assert image.format == "PNG" and image.width > 100 and image.height > 100
    for path in _files_of(hard, manifest, "call_recording", ".wav"):
        with wave.open(str(path)) as audio:
            assert audio.getnchannels() == 1 and audio.getframerate() == 8000
            assert audio.getnframes() / audio.getframerate() > 2.0


def test_every_rendition_is_read_back_from_its_delivered_file(hard, manifest):
    from taugen.build.files import read_bundle
    from taugen.validators.bundle_view import BundleView
    from taugen.authoring.values import normalise_text

    view = BundleView(read_bundle(hard))
    checked = 0
    for artifact_id, entry in manifest["artifacts"].items():
        if not entry["renditions"] or entry["genre"] == "call_recording":
            continue
        text = normalise_text(view.text(artifact_id))
        for rendition in entry["renditions"]:
            assert normalise_text(rendition["text"]) in text, (artifact_id, rendition["fact_id"])
            checked += 1
    assert checked >= 150


def test_kit_names_nothing_of_the_answer_key(hard, manifest):
    records = sorted((hard / "kit/uploaded_materials").iterdir())
    assert records and all(len(p.stem) == 16 and all(c in "0123456789abcdef" for c in p.stem) for p in records)
    kit_text = "\n".join(p.read_text(errors="ignore") for p in (hard / "kit").glob("*.md"))
    for fact_id in list(manifest["facts"])[:300]:
        assert fact_id not in kit_text
    assert "answer key" not in kit_text.lower()


def test_client_held_facts_are_absent_from_records_and_in_the_client_prompt(hard, manifest):
    prompt = (hard / "author/client_prompt.md").read_text()
    assert len(manifest["client_held"]) >= 10
    for fact_id in manifest["client_held"]:
        fact = manifest["facts"][fact_id]
        assert fact["owner"] is None
        assert fact["statement"] in prompt


def test_tasks_are_certified(hard):
    certificates = json.loads((hard / "author/certificates.json").read_text())
    tasks = json.loads((hard / "tau2/domains/banking/tasks.json").read_text())
    assert len(certificates) == len(tasks) == 45
    for certificate in certificates.values():
        assert certificate["ok"] and certificate["unmet_after_setup"] and not certificate["unmet_after_gold"]
        assert certificate["initial_hash"] != certificate["gold_hash"]
    transfers = [t for t in tasks if any(a["name"] == "transfer_to_human_agents"
                                         for a in t["evaluation_criteria"]["actions"])]
    assert transfers, "hard tasks include problems policy forbids"


def test_easy_tier_keeps_policy_in_prose(tmp_path):
    result = build("banking", "easy", seed=3, out=tmp_path, tasks=TEST_TASKS)
    assert result.ok
    manifest = json.loads((result.path / "author/manifest.json").read_text())
    policy = manifest["artifacts"]["policy_document_001"]
    assert manifest["surface"] == "sop" and policy["carrier"]
    owned = sum(1 for f in manifest["facts"].values() if f["owner"] == "policy_document_001")
    assert owned == sum(1 for f in manifest["facts"].values() if f["owner"] is not None) >= 200
    tasks = json.loads((result.path / "tau2/domains/banking/tasks.json").read_text())
    assert {t["id"].count("|") for t in tasks} == {0}
    assert "$35.00" in (result.path / "tau2/domains/banking/policy.md").read_text()


def test_a_validation_error_writes_nothing_and_keeps_the_old_bundle(tmp_path, monkeypatch):
    destination = tmp_path / "banking-easy-0.3.0"  # the write step is the same at every tier: the cheapest one
    destination.mkdir()
    (destination / "sentinel.txt").write_text("previous bundle")
    monkeypatch.setattr(pipeline, "validate_files",
                        lambda files, source, on_validator=None, texts=None, workers=1, executor=None:
                        [error("test", "planted", "x", "planted error")])
    result = build("banking", "easy", seed=1, out=tmp_path, tasks=TEST_TASKS)
    assert not result.ok and result.path is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["banking-easy-0.3.0"]
    assert (destination / "sentinel.txt").read_text() == "previous bundle"


def test_a_kill_while_writing_leaves_the_old_bundle(tmp_path, monkeypatch):
    from taugen.build import files as files_module

    destination = tmp_path / "banking-easy-0.3.0"  # the write step is the same at every tier: the cheapest one
    destination.mkdir()
    (destination / "sentinel.txt").write_text("previous bundle")
    written = []
    real_fsync = files_module.os.fsync

    def dying_fsync(descriptor):
        written.append(descriptor)
        if len(written) == 25:
            raise KeyboardInterrupt  # what a Ctrl-C or SIGINT mid-write raises
        real_fsync(descriptor)

    monkeypatch.setattr(files_module.os, "fsync", dying_fsync)
    with pytest.raises(KeyboardInterrupt):
        build("banking", "easy", seed=1, out=tmp_path, tasks=TEST_TASKS)
    assert len(written) == 25  # the kill came mid-write, not after it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["banking-easy-0.3.0"]
    assert (destination / "sentinel.txt").read_text() == "previous bundle"


def test_cli_build_prints_stage_times(tmp_path):
    result = RUNNER.invoke(app, ["build", "banking", "--difficulty", "easy", "--seed", "2", "--tasks", str(TEST_TASKS),
                                  "--out", str(tmp_path)])  # the CLI's output, not a tier: easy is the cheapest
    assert result.exit_code == 0, result.output
    for stage in ("authoring", "tasks", "corpus", "validate", "write"):
        assert f"stage {stage}" in result.output
    sums = (tmp_path / "banking-easy-0.3.0" / "SHA256SUMS").read_text().splitlines()
    listed = {line.split("  ", 1)[1] for line in sums}
    on_disk = {p.relative_to(tmp_path / "banking-easy-0.3.0").as_posix()
               for p in (tmp_path / "banking-easy-0.3.0").rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert listed == on_disk
    for line in sums:
        digest, relative = line.split("  ", 1)
        assert hashlib.sha256((tmp_path / "banking-easy-0.3.0" / relative).read_bytes()).hexdigest() == digest


def test_tasks_load_with_tau2s_own_task_model(hard):
    tasks_module = pytest.importorskip("tau2.data_model.tasks")
    tasks = json.loads((hard / "tau2/domains/banking/tasks.json").read_text())
    splits = json.loads((hard / "tau2/domains/banking/split_tasks.json").read_text())
    loaded = [tasks_module.Task.model_validate(task) for task in tasks]
    assert [t.id for t in loaded] == [t["id"] for t in tasks]
    assert set(splits["base"]) == {t.id for t in loaded}
    assert set(splits["train"]).isdisjoint(splits["test"]) and set(splits["train"]) | set(splits["test"]) == set(splits["base"])
    tables = set(json.loads((hard / "tau2/domains/banking/db.json").read_text()))
    for task in loaded:
        assert task.evaluation_criteria.reward_basis
        # A task whose problems need no records beyond the shared world carries an empty update; one whose
        # setup writes the world carries the rows it wrote, keyed by the DB's own tables.
        assert set(task.initial_state.initialization_data.agent_data) <= tables
        assert task.user_scenario.instructions.domain == "banking"
    assert sum(bool(t.initial_state.initialization_data.agent_data) for t in loaded) >= len(loaded) // 4


def test_bundle_reports_task_space_coverage_splits_and_sensitivity(hard):
    info = json.loads((hard / "bundle.json").read_text())
    space, cover = info["counts"]["task_space"], info["counts"]["task_coverage"]
    assert space["family_instances"] > 600 and space["compositions"] > 10**9
    coverage = json.loads((hard / "author/coverage.json").read_text())
    task_facts = json.loads((hard / "author/task_facts.json").read_text())
    # the coverage in bundle.json is recomputed from task_facts.json
    exercised = {f for record in task_facts.values() for f in record["facts"]}
    assert cover["facts_exercised"] == len(exercised) == len(coverage["facts_exercised_by_tasks"])
    assert cover["construction_fact_load"] == len({f for r in task_facts.values() if r["split"] == "test"
                                                   for f in r["facts"]})
    assert all(reason for reason in coverage["unexercisable"].values())
    splits = json.loads((hard / "tau2/domains/banking/split_tasks.json").read_text())
    assert splits["dev"] and splits["test"] and set(splits["dev"]) | set(splits["test"]) == set(splits["base"])
    dev_problems = {p for t in splits["dev"] for p in task_facts[t]["problems"][1:]}
    assert not dev_problems & {p for t in splits["test"] for p in task_facts[t]["problems"][1:]}
    certificates = json.loads((hard / "author/certificates.json").read_text())
    for task_id, record in task_facts.items():
        proof = {row["fact"]: row for row in certificates[task_id]["sensitivity"]}
        assert set(proof) == set(record["facts"]) and all(row["changed"] for row in proof.values())
        assert record["kinds"]
