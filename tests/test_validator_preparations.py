"""Validators run side by side share work prepared once (record texts, gold replays) and find exactly what
validators run one by one find; the value searches that made ``sufficiency`` slow match their regular
expressions."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taugen.build.files import read_bundle
from taugen.executors import LocalExecutor
from taugen.validators import memo
from taugen.validators.bundle_view import BundleView, share_texts
from taugen.validators.defects.base import actions
from taugen.validators.defects.sources import _REPLAYS, replay_key, share_replays, taskset_for_view, taugen_replayer
from taugen.validators.registry import run_validators
from taugen.validators.sufficiency import _number_at, stated_text

TASKS = "tau2/domains/banking/tasks.json"


@pytest.fixture(scope="module")
def files(built_bundle) -> dict[str, bytes]:
    return {path: data for path, data in read_bundle(built_bundle("medium")).items()
            if not path.startswith("author/validation.") and path != "SHA256SUMS"}


def _as_rows(findings) -> list[tuple[str, ...]]:
    return [(f.severity, f.check, f.code, f.subject, f.message) for f in findings]


# Letters that case folding treats specially (dotless i, long s, Kelvin sign, dotted capital I), digits of
# another script, and the punctuation that borders tokens and numbers.
_ALPHABET = "aAbB19_ .,-$%\u0131\u017f\u212a\u0130\u0663"


@settings(max_examples=3000, deadline=None)
@given(needle=st.text(_ALPHABET, min_size=1, max_size=4), text=st.text(_ALPHABET, max_size=16))
def test_value_searches_match_the_regular_expressions_they_replace(needle, text):
    token = needle.lower() in text.lower() and re.search(
        rf"(?<![A-Za-z0-9_]){re.escape(needle)}(?![A-Za-z0-9_])", text, re.IGNORECASE) is not None
    number = needle in text and re.search(rf"(?<![\d.]){re.escape(needle)}(?!\d|\.\d)", text) is not None
    assert stated_text(needle, text) is token
    assert _number_at(needle, text) is number


def test_whole_token_and_number_boundaries():
    assert stated_text("ACC-12", "see acc-12.") and not stated_text("ACC-12", "see ACC-123")
    assert not stated_text("wire", "wires") and stated_text("wire", "a Wire, then")
    assert _number_at("25.00", "costs $25.00.") and not _number_at("25.00", "costs $125.00")
    assert not _number_at("5", "5.5 percent") and _number_at("5", "within 5. Then")


def test_shared_replays_are_the_replays_each_validator_would_run(files):
    memo.clear_all()
    view = BundleView(dict(files), source="<shared>")
    share_replays(view, LocalExecutor(), 2)
    taskset = taskset_for_view(view)
    keys = [replay_key(taskset, task) for task in taskset.tasks]
    assert len(taskset.tasks) == 45 and all(_REPLAYS.get(key) is not None for key in keys)
    shared = [_REPLAYS.get(key) for key in keys]
    memo.clear_all()
    alone = BundleView(dict(files), source="<alone>")
    fresh = taskset_for_view(alone)
    run = taugen_replayer(fresh)
    replays = [run(task, actions(task)) for task in fresh.tasks]
    assert replays == shared
    assert sum(len(replay.steps) for replay in replays) > len(replays)  # gold actions were replayed
    assert all(replay.initial_hash and replay.final_hash for replay in replays)


def test_gold_replays_hash_as_a_whole_copy_and_dump_does(files):
    """The defect validators' gold replays start from a patched base and copy only the tables their tools
    reach (:class:`DatabaseReplays`); their hashes, step outputs and errors are those of validating the
    merged database whole, replaying on a full clone and dumping the whole database (tau2's way), and a
    patch that breaks the database model gives the whole validation's error."""
    from taugen.generators.environment import clone, merged_for_reading

    tasks = json.loads(files[TASKS])
    broken = json.loads(json.dumps(next(t for t in tasks if t["initial_state"]["initialization_data"]["agent_data"])))
    broken["id"] += "-broken"
    account = next(iter(json.loads(files["tau2/domains/banking/db.json"])["accounts"]))
    broken["initial_state"]["initialization_data"]["agent_data"]["accounts"] = {account: {"balance": "not a number"}}
    planted = dict(files, **{TASKS: json.dumps(tasks + [broken]).encode()})
    memo.clear_all()
    taskset = taskset_for_view(BundleView(planted, source="<fast>"))
    run = taugen_replayer(taskset)
    checked = 0
    for task in taskset.tasks:
        fast = run(task, actions(task))
        data = merged_for_reading(taskset.db, task["initial_state"]["initialization_data"]["agent_data"] or {})
        try:
            start = taskset.toolkit_class.db_model.model_validate(data)
        except Exception as exc:  # noqa: BLE001 - the planted task
            assert task is taskset.tasks[-1] and fast.init_error == f"the initial state does not validate: {exc}"
            assert "not a number" in fast.init_error and not fast.steps
            continue
        toolkit = taskset.toolkit_class(clone(start), taskset.now)
        assert fast.initial_hash == toolkit.db_hash()
        for step, action in zip(fast.steps, actions(task), strict=True):
            result = toolkit.call(action["name"], **action["arguments"])
            assert (step.error, step.output) == (result.error, json.loads(json.dumps(
                result.output.model_dump(mode="json") if hasattr(result.output, "model_dump") else result.output,
                default=str)))
        assert fast.final_hash == toolkit.db_hash() != fast.initial_hash
        checked += 1
    assert checked == 45


def test_side_by_side_validation_finds_what_one_by_one_finds(files):
    tasks = json.loads(files[TASKS])
    action = next(a for task in tasks for a in task["evaluation_criteria"]["actions"] if a.get("arguments"))
    key = next(iter(action["arguments"]))
    action["arguments"][key] = "ZZ-40417"  # stated nowhere: sufficiency and the defect checks report it
    planted = dict(files, **{TASKS: json.dumps(tasks).encode()})
    memo.clear_all()
    one_by_one = _as_rows(run_validators(BundleView(dict(planted), source="<planted>")))
    memo.clear_all()
    side_by_side = _as_rows(run_validators(BundleView(dict(planted), source="<planted>"), workers=2))
    assert side_by_side == one_by_one
    assert any(row[0] == "error" and "ZZ-40417" in row[4] for row in one_by_one)


def test_a_record_that_cannot_be_read_is_left_to_the_validators(files):
    manifest = json.loads(files["author/manifest.json"])
    broken = next(a for a, entry in sorted(manifest["artifacts"].items()) if entry["genre"] == "spreadsheet")
    path = manifest["artifacts"][broken]["files"][0]["path"]
    damaged = dict(files, **{path: b"\x00not a workbook\xff"})  # its reader raises (not a ZIP)
    view = BundleView(damaged, source="<damaged>")
    share_texts(view, LocalExecutor(), 2)
    readable = len(manifest["artifacts"]) - 1
    assert len(view._text_cache) == readable and broken not in view._text_cache
    memo.clear_all()
    findings = run_validators(BundleView(dict(damaged), source="<damaged>"), workers=2)
    assert any(f.severity == "error" and broken in f"{f.subject} {f.message}" for f in findings)


def test_sufficiency_replays_on_the_database_each_task_starts_from(files):
    """Sufficiency's replay session starts each task from the bundle's database validated once, patched
    where the task patches it and copied table by table as the tools reach them: after every gold step the
    database has the DB hash of the same steps replayed on the merged data validated whole (tau2's way)."""
    from taugen.generators import db_texts
    from taugen.generators.environment import merged_for_reading
    from taugen.validators.sufficiency import _DbSession, _domain

    memo.clear_all()
    view = BundleView(dict(files), source="<sessions>")
    toolkit_class = _domain(view).toolkit
    tasks = json.loads(files[TASKS])
    patched = [t for t in tasks if ((t.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data")]
    assert patched and len(patched) < len(tasks)  # both kinds of start are exercised
    texts = db_texts.TableTexts()
    steps = 0
    for task in tasks:
        session = _DbSession(toolkit_class, view, task)
        patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {}
        whole = toolkit_class(toolkit_class.db_model.model_validate(merged_for_reading(view.db, patch)), view.now)
        for action in task["evaluation_criteria"]["actions"]:
            if action.get("requestor", "assistant") != "assistant":
                continue
            assert (session.step(action) is None) == (not whole.call(action["name"], **action["arguments"]).ok)
            state = db_texts.state_hash(toolkit_class.db_model, texts.state(session.toolkit.db))
            assert state == whole.db_hash(), (task["id"], action["name"])
            steps += 1
    assert steps > len(tasks)


def test_per_task_results_are_read_back_from_the_content_cache_by_a_later_validation(files, tmp_path, monkeypatch):
    """validate_files keeps each task's certificate replay, gold replay and sufficiency findings in the content
    cache: a later process (memos cleared) reads them back and finds the same; a damaged entry is recomputed;
    validators run directly (as tests do) never read the cache."""
    from taugen import content_cache
    from taugen.build.pipeline import validate_files
    from taugen.validators import tasks as tasks_validator

    monkeypatch.setenv(content_cache.CACHE_ENV, str(tmp_path / "cache"))
    replayed = []
    real = tasks_validator._replay_findings
    monkeypatch.setattr(tasks_validator, "_replay_findings",
                        lambda *args: replayed.append(args[2]["id"]) or real(*args))

    memo.clear_all()
    first = _as_rows(validate_files(dict(files), "<first>"))
    entries = sorted(p for p in (tmp_path / "cache" / "validate-tasks").rglob("*") if p.is_file())
    assert len(replayed) == len(entries) == 45
    assert (tmp_path / "cache" / "validate-gold-replays").is_dir() and (tmp_path / "cache" / "validate-sufficiency").is_dir()

    memo.clear_all()  # as a new process starts
    replayed.clear()
    assert _as_rows(validate_files(dict(files), "<second>")) == first and replayed == []

    data = bytearray(entries[0].read_bytes())
    data[-3] ^= 0x20
    entries[0].write_bytes(bytes(data))
    memo.clear_all()
    assert _as_rows(validate_files(dict(files), "<damaged>")) == first and len(replayed) == 1

    memo.clear_all()
    replayed.clear()
    assert _as_rows(run_validators(BundleView(dict(files), source="<direct>"))) == first and len(replayed) == 45


def test_only_the_taugen_package_s_own_domain_code_is_versioned():
    from taugen.validators.memo import code_is_versioned

    assert code_is_versioned("taugen.domains.banking") and code_is_versioned("taugen.domains.telecom")
    assert not code_is_versioned("json") and not code_is_versioned("taugen_elsewhere.domain")
    assert not code_is_versioned("taugen.domains.no_such_domain") and not code_is_versioned(None)
