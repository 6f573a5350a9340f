"""Shared fixtures: a private copy of the banking pack, and two ways to run the ``taugen`` command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
BANKING_PACK = REPO / "taugen" / "domains" / "banking"


@dataclass
class CliResult:
    """What one ``taugen`` run did."""

    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None = None


@pytest.fixture
def repo_root() -> Path:
    """The repository root (holds ``taugen/`` and ``tests/``)."""
    return REPO


@pytest.fixture
def banking_src() -> Path:
    """The real banking pack shipped with taugen (read only: never edit it)."""
    return BANKING_PACK


@pytest.fixture
def banking_pack(tmp_path: Path) -> Path:
    """A private copy of the banking pack at ``tmp_path / "banking"``, safe to edit."""
    destination = tmp_path / "banking"
    shutil.copytree(BANKING_PACK, destination)
    return destination


@pytest.fixture
def cli() -> Callable[..., CliResult]:
    """Run ``taugen ARGS...`` in process with typer's CliRunner.

    ``columns`` is the terminal width the CLI sees (rich wraps long lines at it); it defaults to a
    wide terminal so that tests can check the content of a long error line. Any exception other than
    ``SystemExit`` escaping the command is kept in ``exception`` (it would be a traceback for users).
    """

    def run(*args: str | Path, columns: int = 1000) -> CliResult:
        from taugen.cli import app

        runner = CliRunner()
        result = runner.invoke(app, [str(arg) for arg in args], env={"COLUMNS": str(columns)})
        exception = result.exception
        if isinstance(exception, SystemExit):
            exception = None
        return CliResult(result.exit_code, result.stdout, result.stderr, exception)

    return run


@pytest.fixture
def cli_subprocess() -> Callable[..., CliResult]:
    """Run ``python -m taugen.cli ARGS...`` as a real process (stdin closed, COLUMNS unset unless
    given): what a user sees when stderr goes to a pipe or a log."""

    def run(*args: str | Path, cwd: Path | None = None, columns: int | None = None) -> CliResult:
        env = {key: value for key, value in os.environ.items() if key not in {"COLUMNS", "LINES", "FORCE_COLOR"}}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        if columns is not None:
            env["COLUMNS"] = str(columns)
        done = subprocess.run([sys.executable, "-m", "taugen.cli", *map(str, args)], cwd=cwd or REPO, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False)
        return CliResult(done.returncode, done.stdout, done.stderr)

    return run


_RUN_CACHE: list[str] = []


def pytest_configure(config) -> None:
    """One content cache (read-back PDF texts, :mod:`taugen.content_cache`) per test run, shared by the
    xdist workers and the CLI subprocesses (they inherit the environment), never the user's own cache."""
    import tempfile

    from taugen.content_cache import CACHE_ENV

    if not hasattr(config, "workerinput") and CACHE_ENV not in os.environ:
        _RUN_CACHE.append(tempfile.mkdtemp(prefix="taugen-test-cache-"))
        os.environ[CACHE_ENV] = _RUN_CACHE[0]


@pytest.fixture
def fresh_renders(monkeypatch):
    """No content cache in this test (and the processes it starts): every record is rendered and read back
    afresh. For tests about rendering itself (the same bytes in another process, on another executor),
    which a record reused from the run's cache would pass without rendering anything."""
    from taugen import content_cache

    monkeypatch.setenv(content_cache.CACHE_ENV, "off")
    monkeypatch.setattr(content_cache, "_configured", [])


def pytest_unconfigure(config) -> None:
    for folder in _RUN_CACHE:
        shutil.rmtree(folder, ignore_errors=True)
        from taugen.content_cache import CACHE_ENV

        os.environ.pop(CACHE_ENV, None)


KILL_TABLES: list[str] = []
"""Kill-rate tables that tests/test_mutation.py computed, printed in the session's terminal summary."""


def pytest_sessionfinish(session) -> None:
    """Under pytest-xdist a worker hands its kill-rate tables to the controller, which prints the summary."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["kill_tables"] = list(KILL_TABLES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist's controller side: collect the tables a worker computed (see :func:`pytest_sessionfinish`)."""
    KILL_TABLES.extend(getattr(node, "workeroutput", {}).get("kill_tables", []))


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the mutation kill rate per kind (the issue asks for it in every test run)."""
    for table in KILL_TABLES:
        terminalreporter.write_sep("-", "mutation kill rate per kind")
        terminalreporter.write_line(table)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``--dist loadgroup``), keep each module on one worker, so its module-scoped
    fixtures are computed once, unless the module sets ``SPREAD_OVER_WORKERS = True`` (independent,
    long tests such as one hard build per seed): those are spread test by test. ``tryfirst``: xdist's
    worker turns the markers into node-id groups in its own hook of this name, which must run after
    this one (without it every module was spread, and test_mutation's 10-minute fixture ran twice)."""
    for item in items:
        module = getattr(item, "module", None)
        if module is None or getattr(module, "SPREAD_OVER_WORKERS", False):
            continue
        if not any(mark.name == "xdist_group" for mark in item.iter_markers()):
            item.add_marker(pytest.mark.xdist_group(module.__name__))
    # Long modules first (a module's ``RUN_FIRST = n``, larger first): xdist hands out groups in collection
    # order, and the longest one started last is the run's tail. That order holds only with
    # ``--no-loadscope-reorder`` (pyproject's addopts): by default xdist 3.8 re-sorts groups by their number
    # of tests, which sent each one-test hard-seed build to the end of the run.
    items.sort(key=lambda item: -int(getattr(getattr(item, "module", None), "RUN_FIRST", 0)))
