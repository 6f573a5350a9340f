"""One registry, one entry-point group: what a third-party package can add to taugen and how it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from taugen import plugins
from taugen.authoring.pack import BUILT_IN_PACKS, packs, register_pack
from taugen.errors import InputError
from taugen.generators.corpus.genre import Genre, genres
from taugen.mutation.model import operators
from taugen.validators.registry import validators

ROOT = Path(__file__).resolve().parents[1]


def test_every_stage_stores_its_contributions_in_the_one_registry():
    known_genres, known_validators = genres(), validators()  # each imports its stage's built-ins
    assert set(plugins.registered("genre")) == set(known_genres) >= {"email_thread", "web_screenshot", "flowchart"}
    assert plugins.registered("validator") == known_validators
    assert {"tasks", "leakage", "chronology"} <= set(known_validators)
    assert [op.mutant_id for op in operators()] == sorted(
        plugins.registered("mutation_operator"),
        key=lambda mutant_id: (int(mutant_id.split("-")[0][1:]), mutant_id.split("-", 1)[1]))
    assert packs() == {name: BUILT_IN_PACKS / name for name in ("airline", "banking", "retail", "telecom")}
    declared = {method: {name for name, genre in known_genres.items()
                         if getattr(type(genre), method) is not getattr(Genre, method)}
                for method in ("delivered_dates", "customer_opening")}
    assert {"email_thread", "support_transcript", "call_recording"} <= declared["delivered_dates"]
    assert declared["customer_opening"] == {"support_transcript", "call_recording"}


def test_a_name_taken_by_another_contribution_is_refused(monkeypatch):
    # a copy of the registry for this test: the validators of other tests in this process stay as they are
    monkeypatch.setattr(plugins, "_ITEMS", {kind: dict(items) for kind, items in plugins._ITEMS.items()})

    def first(view):
        return []

    def second(view):
        return []

    plugins.register("validator", "test_plugins_taken", first)
    plugins.register("validator", "test_plugins_taken", first)  # the same function again: fine
    with pytest.raises(ValueError, match="validator 'test_plugins_taken' is already registered by "
                                         r"(tests\.)?test_plugins\.\S*first"):
        plugins.register("validator", "test_plugins_taken", second)
    with pytest.raises(ValueError, match="unknown contribution kind 'genres'"):
        plugins.register("genres", "x", first)
    with pytest.raises(ValueError, match="needs a name"):
        plugins.register("validator", "", first)


def test_a_pack_without_domain_yaml_or_a_second_folder_for_a_name_is_refused(tmp_path):
    with pytest.raises(InputError, match="pack 'empty' has no domain.yaml"):
        register_pack("empty", tmp_path)
    assert "banking" in packs()
    with pytest.raises(ValueError, match="domain_pack 'banking' is already registered"):
        register_pack("banking", BUILT_IN_PACKS / "telecom")


def _installed_plugin(site: Path, name: str, module_source: str) -> None:
    """A distribution ``name`` in ``site`` (a folder put on ``PYTHONPATH``) whose ``taugen.plugins``
    entry point is its module ``name``: what ``pip install`` of a plugin package leaves behind."""
    (site / name).mkdir(parents=True)
    (site / name / "__init__.py").write_text(textwrap.dedent(module_source))
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[taugen.plugins]\n{name} = {name}\n")


def _run(site: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=environment, timeout=120,
                          cwd=site)


def test_an_installed_plugin_adds_a_validator_and_a_pack(tmp_path):
    site = tmp_path / "site"
    _installed_plugin(site, "taugen_tinyplugin", """
        from pathlib import Path

        from taugen.authoring.pack import register_pack
        from taugen.findings import warning
        from taugen.validators.registry import validator

        register_pack("tinytelecom", Path(__file__).parent / "pack")


        @validator("tiny_plugin_check")
        def tiny_check(view):
            return [warning("tiny_plugin_check", "tiny", view.source, "the plugin ran")]
        """)
    shutil.copytree(BUILT_IN_PACKS / "telecom", site / "taugen_tinyplugin" / "pack")
    probe = _run(site, "-c", textwrap.dedent("""
        from taugen.build.pipeline import resolve_pack
        from taugen.validators.registry import validators
        print(sorted(validators())[-3:])
        print(resolve_pack("tinytelecom").relative_to(__import__("pathlib").Path.cwd()))
        """))
    assert probe.returncode == 0, probe.stderr
    assert "'tiny_plugin_check'" in probe.stdout.splitlines()[0]
    assert probe.stdout.splitlines()[1] == "taugen_tinyplugin/pack"
    lint = _run(site, "-m", "taugen", "lint", "taugen_tinyplugin/pack")
    assert lint.returncode == 0 and lint.stdout.startswith("ok: "), lint.stdout + lint.stderr


def test_a_plugin_that_fails_to_import_is_one_line_and_exit_code_2(tmp_path):
    site = tmp_path / "site"
    _installed_plugin(site, "taugen_brokenplugin", "raise RuntimeError('missing settings')\n")
    out = tmp_path / "out"
    result = _run(site, "-m", "taugen", "build", "someplugin_pack", "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "error: plugin 'taugen_brokenplugin' (taugen_brokenplugin) failed to import: RuntimeError: missing settings")
    assert not out.exists() or not any(out.iterdir())


def test_a_domains_own_mutation_operators_come_with_its_bundles_only():
    banking = {op.mutant_id: op for op in operators("taugen.domains.banking")}
    telecom = {op.mutant_id: op for op in operators("taugen.domains.telecom")}
    assert banking["K1-provisional_credit_too_early"].domain == "taugen.domains.banking"
    assert "K1-provisional_credit_too_early" not in telecom
    generic = {mutant_id for mutant_id, op in banking.items() if op.domain is None}
    assert generic == set(telecom) and len(generic) >= 20
    own = [op for op in banking.values() if op.domain is not None]
    assert len(own) >= 60 and {op.function.__module__.rpartition(".")[0] for op in own} == {
        "taugen.domains.banking.mutations"}  # a domain's operators live in its folder, split by defect kind
