"""Executors (:mod:`taugen.executors`): the same bytes whichever runs the build's units.

The Ray tests start a real local Ray with 2 CPUs once for the module and shut it down after; they are
skipped when Ray (``taugen[ray]``) is not installed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

import pytest

from taugen.errors import InputError
from taugen.executors import LocalExecutor, local_workers, make_executor

HAVE_RAY = importlib.util.find_spec("ray") is not None  # not imported here: every xdist worker collects this
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="needs Ray (pip install 'taugen[ray]')")


@pytest.fixture(scope="module")
def ray_executor():
    """A RayExecutor on a local Ray with 2 CPUs, shut down after the module. Its workers get a temporary
    folder of their own (``TMPDIR``), which must hold no browser profile once the executor is closed: a
    worker stops the browser its screenshots started when it exits."""
    from ray import cloudpickle

    from taugen.executors import RayExecutor

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/ modules
    folder = Path(tempfile.mkdtemp(prefix="tg-ray-"))  # short: Ray's socket paths live under it
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(folder))  # inherited by the local Ray and its workers
        executor = RayExecutor(workers=2)
    try:
        yield executor
    finally:
        executor.close()
        left = sorted(path.name for path in folder.glob("screenshot-browser-*"))
        shutil.rmtree(folder, ignore_errors=True)
        assert left == []


def _square(shared: dict, item: int) -> tuple[int, int, int]:
    return item, item * item + shared["offset"], os.getpid()


def _fails_on(shared: dict, item: int) -> int:
    if item == shared["bad"]:
        raise ValueError(f"unit {item} is bad")
    return item


def _fails_away_from(shared: dict, item: int) -> int:
    """Fails in any process but the test's own (as a unit would on a worker that lacks something)."""
    if os.getpid() != shared["home"]:
        raise RuntimeError("not available on this worker")
    return item * 10


def test_local_executor_keeps_order_and_runs_in_forked_workers():
    results = list(LocalExecutor(workers=2).map(_square, {"offset": 1}, range(50), chunksize=3))
    assert [(item, value) for item, value, _ in results] == [(i, i * i + 1) for i in range(50)]
    workers = {pid for _, _, pid in results}
    assert 1 <= len(workers) <= 2 and os.getpid() not in workers  # forked workers (one may take every chunk)
    alone = list(LocalExecutor(workers=1).map(_square, {"offset": 1}, range(5)))
    assert {pid for _, _, pid in alone} == {os.getpid()}


def test_forked_render_workers_exit_gracefully_and_remove_their_browser(monkeypatch, tmp_path, fresh_renders):
    """Screenshots rendered in 2 forked workers: once the render returns, the pool has been closed and joined
    (not terminated), so each worker has stopped its browser and removed its profile folder."""
    from taugen.authoring.pack import load_pack, packs
    from taugen.generators.corpus.genre import RenderContext, genres
    from taugen.generators.corpus.planner import plan_corpus
    from taugen.generators.corpus.render import render_corpus, template_environment
    from taugen.generators.tiers import tier

    pack = load_pack(packs()["banking"])
    available = genres()
    plan = plan_corpus(pack, tier("medium"), 0, available)
    plan = dataclasses.replace(plan, artifacts=[a for a in plan.artifacts if a.genre == "web_screenshot"][:4])
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=0, tier="medium",
                            facts=pack.facts)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the forked workers inherit it
    texts = {}
    rendered = render_corpus(plan, context, available, texts=texts, executor=LocalExecutor(workers=2))
    assert [a.files[0].data[:8] for a in rendered] == [b"\x89PNG\r\n\x1a\n"] * 4 and len(texts) == 4
    assert sorted(path.name for path in tmp_path.glob("screenshot-browser-*")) == []


def test_local_workers_follow_the_corpus_size_and_taugen_workers(monkeypatch):
    monkeypatch.setenv("TAUGEN_WORKERS", "3")
    assert (local_workers(39), local_workers(40)) == (1, 3)


def test_make_executor_refuses_bad_choices(monkeypatch):
    with pytest.raises(InputError, match="unknown executor 'dask'"):
        make_executor("dask")
    with pytest.raises(InputError, match="--ray-address needs --executor ray"):
        make_executor("local", "auto")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(InputError, match=r"pip install 'taugen\[ray\]'"):
        make_executor("ray")


def test_cli_executor_ray_without_ray_is_one_line_and_exit_2(cli, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)
    result = cli("build", "banking", "--difficulty", "easy", "--out", tmp_path, "--executor", "ray")
    assert result.exit_code == 2 and result.exception is None
    assert result.stderr.strip().splitlines() == [
        "error: --executor ray needs Ray: pip install 'taugen[ray]' (or pip install ray)"]
    assert list(tmp_path.iterdir()) == []
    result = cli("build", "banking", "--difficulty", "easy", "--out", tmp_path, "--ray-address", "auto")
    assert (result.exit_code, result.stderr.strip()) == (2, "error: --ray-address needs --executor ray")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@needs_ray
def test_cli_unreachable_ray_address_is_one_line_and_exit_2_in_seconds(cli_subprocess, tmp_path):
    port = _closed_port()
    started = time.perf_counter()
    result = cli_subprocess("build", "banking", "-d", "easy", "--out", tmp_path, "--executor", "ray",
                            "--ray-address", f"127.0.0.1:{port}")
    assert result.exit_code == 2 and time.perf_counter() - started < 30
    assert result.stderr.strip().splitlines() == [
        f"error: cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused"]
    assert list(tmp_path.iterdir()) == []


@needs_ray
def test_ray_executor_keeps_order_runs_in_ray_workers_and_replays_failures_here(ray_executor):
    before = ray_executor.replayed
    results = list(ray_executor.map(_square, {"offset": 7}, range(30), chunksize=4))
    assert ray_executor.replayed == before
    assert [(item, value) for item, value, _ in results] == [(i, i * i + 7) for i in range(30)]
    assert os.getpid() not in {pid for _, _, pid in results}
    # a unit that fails on Ray is run again here: its real error is raised here, after the units before it
    seen = []
    with pytest.raises(ValueError, match="unit 5 is bad"), pytest.warns(RuntimeWarning, match="a Ray task failed"):
        for value in ray_executor.map(_fails_on, {"bad": 5}, range(9), chunksize=2):
            seen.append(value)
    assert seen == [0, 1, 2, 3]
    # a unit that only the workers cannot run gives the result it gives here
    before = ray_executor.replayed
    assert list(ray_executor.map(_fails_away_from, {"home": os.getpid()}, range(6), chunksize=2)) == [
        0, 10, 20, 30, 40, 50]
    assert ray_executor.replayed - before == 6


_UNFINISHED_MAP = """
import os, sys, time
from taugen.executors import RayExecutor

def square(shared, item):
    return item * item

executor = RayExecutor(workers=1)
unfinished = executor.map(square, None, range(40), chunksize=1)
assert next(unfinished) == 0
executor.close()  # the build is over; the unfinished map is collected later
child = os.fork()
if child == 0:  # a validator worker forked by a later build in the same process
    unfinished.close()
    os._exit(0)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    pid, status = os.waitpid(child, os.WNOHANG)
    if pid:
        break
    time.sleep(0.2)
else:
    os.kill(child, 9)
    sys.exit("hung")
unfinished.close()
import ray
sys.exit("a Ray was started again" if ray.is_initialized() else os.waitstatus_to_exitcode(status))
"""


@needs_ray
def test_an_unfinished_ray_map_closed_after_the_executor_starts_no_ray(tmp_path):
    """A Ray map left unfinished is closed when it is collected: after its executor has shut Ray down,
    perhaps in a process forked since (a validator worker of a later build in the same process). Its
    cleanup must not call Ray there: Ray's auto-init started a new Ray in the forked child, which waited
    for it forever (a CI run hung in test_llm_stage after the Ray tests had run in its worker)."""
    import subprocess

    folder = Path(tempfile.mkdtemp(prefix="tg-ray-"))  # short: Ray's socket paths live under it
    try:
        result = subprocess.run([sys.executable, "-c", _UNFINISHED_MAP], capture_output=True, text=True,
                                timeout=300, env=dict(os.environ, TMPDIR=str(folder)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]


@needs_ray
def test_every_genre_renders_the_same_bytes_on_ray(ray_executor, fresh_renders):
    """One artifact of every genre of the hard plan (call audio, screenshots, PDFs, flowcharts included),
    rendered and read back locally and on Ray: the same files, texts and metadata."""
    from taugen.authoring.pack import load_pack, packs
    from taugen.generators.corpus.genre import RenderContext, genres
    from taugen.generators.corpus.planner import plan_corpus
    from taugen.generators.corpus.render import render_corpus, template_environment
    from taugen.generators.corpus.vocabulary import load_vocabulary
    from taugen.generators.tiers import tier

    pack = load_pack(packs()["banking"])
    vocabulary = load_vocabulary(pack.directory, [section.id for section in pack.config.sections])
    available = genres()
    plan = plan_corpus(pack, tier("hard"), 0, available, vocabulary=vocabulary)
    first = {}
    for artifact in plan.artifacts:
        first.setdefault(artifact.genre, artifact)
    plan = dataclasses.replace(plan, artifacts=list(first.values()))
    assert {"call_recording", "web_screenshot", "pdf_document", "flowchart"} <= set(first)
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=0, tier="hard",
                            facts=pack.facts, vocabulary=vocabulary)
    local_texts, ray_texts = {}, {}
    local = render_corpus(plan, context, available, texts=local_texts, executor=LocalExecutor(workers=1))
    on_ray = render_corpus(plan, context, available, texts=ray_texts, executor=ray_executor)
    assert [a.plan.artifact_id for a in on_ray] == [a.plan.artifact_id for a in local]
    for mine, theirs in zip(local, on_ray):
        assert [(f.suffix, f.data) for f in theirs.files] == [(f.suffix, f.data) for f in mine.files], mine.plan.artifact_id
        assert (theirs.author_text, theirs.metadata, theirs.timestamps) == (mine.author_text, mine.metadata,
                                                                            mine.timestamps)
    assert ray_texts == local_texts and len(local_texts) == len(first)


@needs_ray
def test_an_easy_bundle_built_on_ray_has_the_local_bundles_sha256sums(built_bundle, ray_executor, tmp_path,
                                                                       fresh_renders):
    from taugen.build.pipeline import build

    local = built_bundle("easy")
    before = ray_executor.replayed
    result = build("banking", "easy", seed=0, out=tmp_path, tasks=45, executor=ray_executor)
    assert result.ok and result.path is not None
    assert ray_executor.replayed == before  # every unit ran on Ray
    assert (result.path / "SHA256SUMS").read_bytes() == (local / "SHA256SUMS").read_bytes()


@needs_ray
def test_the_strong_readers_give_the_same_numbers_on_ray(ray_executor):
    """The readers a hard build reports (``realism.readers``) on Ray actors, whose BLAS may use other thread
    counts than this process: every one scores as it does here."""
    pytest.importorskip("sklearn")
    from taugen.validators import readers
    from test_strong_readers import corpus

    def marker(rng, carrier):
        return f"[99] Agent: the charge is ${rng.randint(5, 60)}.{rng.randint(10, 99)}." if carrier \
            and rng.random() < 0.6 else ""

    view = corpus(marker, count=80)
    before = ray_executor.replayed
    on_ray = readers.classifiers(view, facts_removed=False, executor=ray_executor)
    assert ray_executor.replayed == before
    assert on_ray == readers.classifiers(view, facts_removed=False, executor=LocalExecutor(workers=1))
    assert 0.6 < on_ray["tfidf"]["overall"] < 1.0 and {"numeric", "structure"} <= set(on_ray)


@needs_ray
def test_a_template_error_on_ray_is_raised_here_with_its_file_and_line(ray_executor):
    """A record whose template breaks fails on its actor; it is rendered again here, which raises the error
    a local build raises (the template's file and line, the record's id), after the records before it."""
    import jinja2

    from taugen.authoring.pack import load_pack, packs
    from taugen.generators.corpus.genre import RenderContext, genres
    from taugen.generators.corpus.planner import plan_corpus
    from taugen.generators.corpus.render import render_corpus, template_environment
    from taugen.generators.tiers import tier

    pack = load_pack(packs()["banking"])
    available = genres()
    plan = plan_corpus(pack, tier("easy"), 0, available)
    email = next(index for index, artifact in enumerate(plan.artifacts) if artifact.genre == "email_thread")
    assert email >= 2
    templates = template_environment()
    templates.loader = jinja2.ChoiceLoader([jinja2.DictLoader({"email_thread/signature.txt.j2": "Regards,\n{{ name(\n"}),
                                            templates.loader])
    context = RenderContext(config=pack.config, templates=templates, build_seed=0, tier="easy", facts=pack.facts)
    errors = []
    before = ray_executor.replayed
    for executor in (LocalExecutor(workers=1), ray_executor):
        seen = []
        with pytest.raises(InputError) as raised:
            render_corpus(plan, context, available, on_artifact=lambda a: seen.append(a.plan.artifact_id),
                          executor=executor)
        assert seen == [artifact.artifact_id for artifact in plan.artifacts[:email]]
        errors.append(str(raised.value))
    assert ray_executor.replayed == before  # the actor rendered and returned the failure; Ray itself did not fail
    assert errors[0] == errors[1]
    assert errors[1].startswith(f"taugen/templates/email_thread/signature.txt.j2:2: {plan.artifacts[email].artifact_id}: "
                                "template error")
