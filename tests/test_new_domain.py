"""``taugen new-domain``: a skeleton written outside the package builds, validates and mutates.

Every command runs as ``python -m taugen`` in a fresh process whose working folder is a temporary folder
outside the repository, so the skeleton's package is importable only because taugen imports the pack
folder itself (``build``, ``lint``) or is told where it is (``validate --pack``, ``mutate --pack``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from taugen.errors import InputError
from taugen.generators.domain import import_environment

ROOT = Path(__file__).resolve().parents[1]
NAME = "fitclub"
FILES = ["__init__.py", "db.py", "domain.yaml", "facts/club_services.yaml", "facts/identity_verification.yaml",
         "facts/memberships.yaml", "families.py", "policy.py", "problems.py", "tools.py", "vocabulary.yaml", "world.py"]
TASKS = {"easy": 40, "medium": 20, "hard": 20}


def taugen(*args: str | Path, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """``python -m taugen ARGS`` in a fresh process in ``cwd``, taugen imported from this checkout only."""
    environment = {key: value for key, value in os.environ.items() if key not in {"COLUMNS", "LINES", "FORCE_COLOR"}}
    environment["PYTHONPATH"] = str(ROOT)
    environment["COLUMNS"] = "200"
    return subprocess.run([sys.executable, "-m", "taugen", *map(str, args)], cwd=cwd, env=environment,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("outside_the_package")
    assert ROOT not in folder.resolve().parents
    return folder


@pytest.fixture(scope="module")
def pack(outside) -> Path:
    result = taugen("new-domain", NAME, "--out", outside / "packs", cwd=outside)
    assert result.returncode == 0, result.stderr
    return outside / "packs" / NAME


@pytest.fixture(scope="module")
def bundles(outside, pack) -> dict[str, Path]:
    """The skeleton's bundles by tier, built once (by :func:`build`) for the tests that need them."""
    return {}


def build(outside: Path, pack: Path, bundles: dict, tier: str) -> Path:
    if tier not in bundles:
        result = taugen("build", pack, "--difficulty", tier, "--tasks", str(TASKS[tier]), "--out",
                        outside / "dist", cwd=outside)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        bundles[tier] = outside / "dist" / f"{NAME}-{tier}-0.1.0"
        bundles[(tier, "stderr")] = result.stderr
    return bundles[tier]


def test_new_domain_writes_one_folder_that_is_the_pack_and_its_package(pack, outside):
    written = sorted(p.relative_to(pack).as_posix() for p in pack.rglob("*") if p.is_file()
                     and "__pycache__" not in p.parts)
    assert written == sorted(FILES)
    card = (pack / "domain.yaml").read_text()
    assert f"domain: {NAME}\n" in card and f"environment: {NAME}\n" in card and "brand: Fitclub Fitness Club" in card
    assert not list((outside / "packs").glob(".*")), "the staging folder is renamed into place, none is left"
    lint = taugen("lint", pack, cwd=outside)
    assert lint.returncode == 0, lint.stderr
    assert lint.stdout.startswith("ok: 16 facts in 3 sections, 1 supersession arc, 1 client-held")


@pytest.mark.parametrize("tier", ["easy", "medium", "hard"])
def test_the_skeleton_builds_at_every_tier_from_a_folder_outside_the_package(outside, pack, bundles, tier):
    bundle = build(outside, pack, bundles, tier)
    summary = json.loads((bundle / "bundle.json").read_text())
    counts = summary["counts"]
    assert summary["environment"] == NAME and summary["tier"] == tier
    assert counts["splits"]["base"] == TASKS[tier]
    assert counts["facts"] == 16 and counts["supersession_arcs"] == 1
    # every typed fact the records or the client hold decides a task (the identity facts are free text)
    assert counts["task_coverage"]["facts_exercised"] == 13, counts["task_coverage"]
    runtime = bundle / "tau2" / "domains" / NAME
    tasks = json.loads((runtime / "tasks.json").read_text())
    assert len(tasks) == TASKS[tier]
    assert {"tasks.json", "split_tasks.json", "db.json", "policy.md"} <= {p.name for p in runtime.iterdir()}
    assert all(task["evaluation_criteria"]["actions"][1]["name"] == "verify_identity" for task in tasks)
    freeze = [t for t in tasks if "freeze_membership" in t["id"]]
    assert freeze and all(a["arguments"]["fee"] == 15.0 for t in freeze for a in t["evaluation_criteria"]["actions"]
                          if a["name"] == "freeze_membership"), "the hand-written problem's gold is the pack's fee"
    # the console says how many warnings the validators left in the bundle (they were only in validation.md)
    validation = json.loads((bundle / "author" / "validation.json").read_text())
    warned = [f for f in validation["findings"] if f["severity"] == "warning" and f["check"] != "versioning"]
    if warned:
        noun = "validator warning" if len(warned) == 1 else "validator warnings"
        assert f"note: {len(warned)} {noun} ({warned[0]['code']} {warned[0]['subject']}" in \
            " ".join(bundles[(tier, "stderr")].split())
    if tier == "hard":
        assert warned, "the skeleton's hard build has fewer evidence routes than the tier asks for"
        assert summary["achieved"]["surface"] == "hard_client" and counts["client_held"] == 1
        assert counts["contested"] >= 1


def test_the_bundle_records_no_path_so_the_same_pack_elsewhere_gives_the_same_bytes(outside, pack, bundles):
    first = build(outside, pack, bundles, "easy")
    elsewhere = outside / "elsewhere" / NAME
    shutil.copytree(pack, elsewhere, ignore=shutil.ignore_patterns("__pycache__"))
    result = taugen("build", elsewhere, "--difficulty", "easy", "--tasks", str(TASKS["easy"]), "--out",
                    outside / "dist-elsewhere", cwd=outside)
    assert result.returncode == 0, result.stderr
    second = outside / "dist-elsewhere" / f"{NAME}-easy-0.1.0"
    assert (first / "SHA256SUMS").read_bytes() == (second / "SHA256SUMS").read_bytes()


def test_validate_in_a_fresh_process_finds_the_code_with_pack(outside, pack, bundles):
    bundle = build(outside, pack, bundles, "easy")
    result = taugen("validate", bundle, "--pack", pack, cwd=outside)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "PASS: 0 errors" in result.stdout
    missing = taugen("validate", bundle, cwd=outside)
    assert missing.returncode == 2
    lines = missing.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0].endswith(
        f"{bundle.name}: the bundle's domain code '{NAME}' is not importable here: give the pack folder it was "
        "built from with --pack DIR (or put that folder's parent on PYTHONPATH)")
    wrong = taugen("validate", bundle, "--pack", ROOT / "taugen" / "domains" / "banking", cwd=outside)
    assert wrong.returncode == 2 and "is domain 'banking' with code 'taugen.domains.banking'" in wrong.stderr


def _mutate(outside: Path, pack: Path, bundle: Path, out: Path) -> dict:
    result = taugen("mutate", bundle, "--pack", pack, "--out", out, cwd=outside, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "SURVIVED" not in result.stdout
    report = json.loads((out / "kill_report.json").read_text())
    assert report["clean_errors"] == 0 and report["kill_rate"] == 1.0
    applicable = {row["mutant_id"] for row in report["mutants"] if row["applicable"]}
    # The generic operators that find something to plant in a skeleton: wrong fees and routes (K1, K3),
    # fact-sensitivity and duplicate defects (K12, K13, K18, K19), record chronology (K20). The others edit
    # banking's problems (a refund, a wire, a dispute) or task parts the skeleton's tasks do not have.
    assert {"K1-routed_to_the_wrong_team", "K1-limit_request_just_over_submitted",
            "K3-quote_off_by_one_unit", "K12-dependency_declared_but_not_real"} <= applicable
    assert {row["kind"] for row in report["mutants"] if row["applicable"]} >= {"K1", "K3", "K12", "K20"}
    assert len(applicable) >= 15
    return report


def test_mutate_kills_every_applicable_mutant_of_the_easy_skeleton(outside, pack, bundles):
    _mutate(outside, pack, build(outside, pack, bundles, "easy"), outside / "mutants-easy")


@pytest.mark.slow
@pytest.mark.parametrize("tier", ["medium", "hard"])
def test_mutate_kills_every_applicable_mutant_at_medium_and_hard(outside, pack, bundles, tier):
    _mutate(outside, pack, build(outside, pack, bundles, tier), outside / f"mutants-{tier}")


@pytest.mark.parametrize("name, message", [
    ("Fitness", "must be snake_case"),
    ("my-club", "must be snake_case"),
    ("2club", "must be snake_case"),
    ("class", "is a Python keyword"),
    ("json", "is already an importable Python module"),
])
def test_a_bad_name_is_one_line_exit_2_and_nothing_written(tmp_path, name, message):
    result = taugen("new-domain", name, "--out", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: domain name '{name}' ") and message in lines[0]
    assert not (tmp_path / "out").exists()


def test_an_existing_folder_is_never_overwritten(tmp_path):
    target = tmp_path / NAME
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    result = taugen("new-domain", NAME, cwd=tmp_path)  # --out defaults to the current folder
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {NAME}: exists and is not an empty folder; new-domain never overwrites"]
    assert [p.name for p in target.iterdir()] == ["notes.txt"] and (target / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == [NAME]
    (tmp_path / "afile").write_text("")
    result = taugen("new-domain", NAME, "--out", tmp_path / "afile", cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


def test_an_empty_folder_is_filled(tmp_path):
    (tmp_path / NAME).mkdir()
    result = taugen("new-domain", NAME, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / NAME / "domain.yaml").is_file()


def test_a_pack_folder_that_an_installed_module_would_shadow_is_refused(tmp_path):
    folder = tmp_path / "tabnanny"  # a standard-library module this process has not imported
    folder.mkdir()
    (folder / "__init__.py").write_text("raise RuntimeError('never run')\n")
    with pytest.raises(InputError, match="environment module 'tabnanny' (would import|is imported already from) "
                                         ".*not (from )?the pack folder"):
        import_environment("tabnanny", folder)


def test_a_registered_pack_folder_is_found_without_pack(tmp_path, monkeypatch):
    """A plugin that registers a new-domain folder (``register_pack``) needs no ``--pack``: the bundle's
    module is looked up among the registered folders by name."""
    from taugen import plugins
    from taugen.authoring.new_domain import new_domain
    from taugen.authoring.pack import register_pack
    from taugen.build.pipeline import load_bundle_code

    monkeypatch.setattr(plugins, "_ITEMS", {kind: dict(items) for kind, items in plugins._ITEMS.items()})
    folder = new_domain("regclub", tmp_path)
    register_pack("regclub", folder)
    files = {"author/manifest.json": json.dumps({"domain": "regclub", "environment": "regclub"}).encode()}
    try:
        assert load_bundle_code(files, "bundle") == "regclub"
        assert sys.modules["regclub"].DOMAIN.name == "regclub"
        assert Path(sys.modules["regclub"].__file__) == (folder / "__init__.py").resolve()
    finally:
        for module in [m for m in sys.modules if m == "regclub" or m.startswith("regclub.")]:
            del sys.modules[module]
