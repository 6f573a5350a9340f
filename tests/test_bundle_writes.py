"""Bundle writes are durable and exclusive (issue 11, item 7).

* The destination holds a complete bundle (old or new; ``SHA256SUMS`` verifies) at every instant: a
  writer in a real subprocess is killed with SIGKILL at each step of the write, at the exact point
  (the test replaces the writer's no-op ``_checkpoint`` hook; polling would miss the moment between
  two renames), on both the Linux exchange path and the symlink fallback.
* The next write removes exactly what the killed one left, and nothing that is not taugen's.
* Two real processes writing one destination are serialised by the lock: the second waits, then
  writes; a lock held too long is one line naming the holder.
* ``--out`` is checked before any work: a file, a file as parent, or a folder that cannot be written
  is exit 2 with one line, and nothing is created.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from taugen.build import files as bundle_files
from taugen.build.files import InputError, check_output_folder, leftovers, lock_destination, write_atomically
from taugen.hashing import json_bytes, sha256sums

REPO = Path(__file__).resolve().parents[1]
NAME = "demo-easy-0.1.0"


def bundle(version: int, extra_files: int = 6) -> dict[str, bytes]:
    """A small sealed bundle whose every file says which ``version`` it is."""
    files = {"bundle.json": json_bytes({"version": version})}
    for index in range(extra_files):
        files[f"tau2/domains/demo/file_{index}.txt"] = f"version {version} file {index}\n".encode()
    files["kit/records/deep/leaf.txt"] = f"version {version} leaf\n".encode()
    files["SHA256SUMS"] = sha256sums(files)  # as taugen.build.assemble.seal does (kept light: subprocesses)
    return files


def complete_version(folder: Path) -> int:
    """The version of the bundle at ``folder``, after checking it is complete: every file listed in
    SHA256SUMS exists with that hash, no other file exists, and every file has the same version."""
    assert folder.is_dir(), f"no bundle at {folder}"
    listed = {}
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        digest, path = line.split("  ", 1)
        listed[path] = digest
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert present == set(listed), (sorted(present ^ set(listed)))
    for path, digest in listed.items():
        assert hashlib.sha256((folder / path).read_bytes()).hexdigest() == digest, path
    import json

    version = json.loads((folder / "bundle.json").read_text())["version"]
    for path in listed:
        if path.endswith(".txt"):
            assert (folder / path).read_text().startswith(f"version {version} "), path
    return version


WRITER = r"""
import os, signal, sys, time
from pathlib import Path
sys.path.insert(0, {repo!r})
sys.path.insert(0, {tests!r})
from taugen.build import files as F
from test_bundle_writes import bundle

destination, version, kill_step, kill_count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
if mode == "fallback":  # a system without renameat2(RENAME_EXCHANGE)
    F._renameat2, F._renameat2_looked_up = None, True
seen = {{}}

def checkpoint(step):
    seen[step] = seen.get(step, 0) + 1
    if step == kill_step and seen[step] == kill_count:
        os.kill(os.getpid(), signal.SIGKILL)
    if step == "staged" and os.environ.get("PAUSE_DIR"):
        pause = Path(os.environ["PAUSE_DIR"])
        (pause / "ready").write_text(str(os.getpid()))
        while not (pause / "go").exists():
            time.sleep(0.02)

F._checkpoint = checkpoint
wait = float(os.environ.get("LOCK_WAIT", "600"))
try:
    with F.lock_destination(Path(destination), wait=wait,
                            on_wait=lambda pid: print(f"WAITING {{pid}}", flush=True)):
        F.write_atomically(bundle(version), Path(destination), locked=True)
except F.InputError as error:
    print(f"error: {{error}}", file=sys.stderr)
    sys.exit(2)
print("DONE", flush=True)
"""


@pytest.fixture
def writer(tmp_path: Path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(repo=str(REPO), tests=str(REPO / "tests")), encoding="utf-8")

    def run(destination: Path, version: int, kill_step: str = "-", kill_count: int = 1, mode: str = "exchange",
            background: bool = False, **env: str):
        environment = {**os.environ, **env}
        command = [sys.executable, str(script), str(destination), str(version), kill_step, str(kill_count), mode]
        if background:
            return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
        return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120, check=False)

    return run


def entries(parent: Path) -> list[str]:
    return sorted(os.listdir(parent))


# (mode, whether a bundle exists before, kill step, nth time, version expected at the destination after the kill)
KILLS = [
    ("exchange", True, "cleaned", 1, 1),
    ("exchange", True, "wrote_file", 1, 1),
    ("exchange", True, "wrote_file", 5, 1),
    ("exchange", True, "staged", 1, 1),          # all files written and synced, not yet swapped
    ("exchange", True, "exchanged", 1, 2),       # swapped; the old bundle still sits under the staging name
    ("exchange", True, "removed_old", 1, 2),
    ("exchange", False, "staged", 1, None),      # nothing was there: still nothing (never half)
    ("exchange", False, "renamed", 1, 2),
    ("fallback", False, "staged", 1, None),
    ("fallback", False, "renamed", 1, 2),
    ("fallback", True, "staged", 1, 1),          # destination is a symlink to a versioned folder
    ("fallback", True, "linked", 1, 2),          # new symlink in place; the old versioned folder remains
    ("fallback", True, "removed_old", 1, 2),
]


@pytest.mark.parametrize("mode,existing,step,count,expected", KILLS,
                         ids=[f"{m}-{'over' if e else 'fresh'}-{s}{c if c > 1 else ''}" for m, e, s, c, _ in KILLS])
def test_kill_at_each_step_leaves_a_complete_bundle_and_the_next_write_cleans_up(
        mode, existing, step, count, expected, writer, tmp_path):
    destination = tmp_path / "dist" / NAME
    if existing:
        first = writer(destination, 1, mode=mode)
        assert first.returncode == 0, first.stderr
        assert complete_version(destination) == 1
        assert os.path.islink(destination) == (mode == "fallback")

    killed = writer(destination, 2, step, count, mode=mode)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stdout, killed.stderr)
    if expected is None:
        assert not os.path.lexists(destination)
    else:
        assert complete_version(destination) == expected

    again = writer(destination, 3, mode=mode)
    assert again.returncode == 0, again.stderr
    assert complete_version(destination) == 3
    assert leftovers(destination) == []
    expected_entries = [NAME]
    if mode == "fallback":
        expected_entries.append(os.readlink(destination))
    assert entries(destination.parent) == sorted(expected_entries)  # no lock file, no staging, no old version


def test_fallback_over_a_plain_folder_has_one_documented_gap_and_recovers(writer, tmp_path):
    """Without an exchange, a plain folder cannot become a symlink in one step: it is moved aside first.
    A kill exactly there leaves no bundle at the destination (the one gap, only on such systems and only
    once per destination); the old bundle is still complete beside it, and the next write cleans up."""
    destination = tmp_path / "dist" / NAME
    assert writer(destination, 1).returncode == 0  # a plain folder (exchange path)
    killed = writer(destination, 2, "moved_aside", mode="fallback")
    assert killed.returncode == -signal.SIGKILL
    assert not os.path.lexists(destination)
    left = {path.name.split(".taugen-")[1].split("-")[0]: path for path in leftovers(destination)}
    assert sorted(left) == ["link", "staging", "v"]  # the symlink not yet in place, old aside, new staged
    assert complete_version(left["staging"]) == 1 and complete_version(left["v"]) == 2
    assert writer(destination, 3, mode="fallback").returncode == 0
    assert complete_version(destination) == 3 and leftovers(destination) == []


def test_exchange_path_converts_a_fallback_symlink_back_to_a_plain_folder(writer, tmp_path):
    destination = tmp_path / "dist" / NAME
    assert writer(destination, 1, mode="fallback").returncode == 0
    assert os.path.islink(destination)
    assert writer(destination, 2).returncode == 0
    assert not os.path.islink(destination) and complete_version(destination) == 2
    assert entries(destination.parent) == [NAME]


def test_only_taugen_leftovers_are_removed(tmp_path):
    parent = tmp_path / "dist"
    destination = parent / NAME
    write_atomically(bundle(1), destination)
    ours = [f".{NAME}.taugen-staging-123-abc_9", f".{NAME}.taugen-v-77-zz", f".{NAME}.abcd_123.partial",
            f".{NAME}.old-4242"]
    theirs = [f".{NAME}.backup", f".{NAME}.taugen-staging-x", f".other-easy-0.1.0.taugen-staging-1-a",
              f"{NAME}.old-1", ".taugen-notes"]
    for name in ours + theirs:
        (parent / name).mkdir()
        (parent / name / "keep.txt").write_text("x")
    (parent / f".{NAME}.taugen-link-5-q").symlink_to("nowhere")
    assert [p.name for p in leftovers(destination)] == sorted(ours + [f".{NAME}.taugen-link-5-q"])
    write_atomically(bundle(2), destination)
    assert entries(parent) == sorted(theirs + [NAME])
    assert complete_version(destination) == 2


def test_two_processes_are_serialised_by_the_lock(writer, tmp_path):
    destination = tmp_path / "dist" / NAME
    assert writer(destination, 1).returncode == 0
    pause = tmp_path / "pause"
    pause.mkdir()
    first = writer(destination, 2, background=True, PAUSE_DIR=str(pause))
    try:
        deadline = time.monotonic() + 60
        while not (pause / "ready").exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        first_pid = int((pause / "ready").read_text())
        # the first writer holds the lock with its staging folder complete; a second writer must wait
        second = writer(destination, 3, background=True)
        line = second.stdout.readline()
        assert line.strip() == f"WAITING {first_pid}"
        time.sleep(0.5)
        assert second.poll() is None  # still waiting, has written nothing
        assert complete_version(destination) == 1
        (pause / "go").write_text("")
        out_first, err_first = first.communicate(timeout=60)
        out_second, err_second = second.communicate(timeout=60)
        assert (first.returncode, second.returncode) == (0, 0), (err_first, err_second)
        assert "DONE" in out_first and "DONE" in out_second
    finally:
        for process in (first,):
            if process.poll() is None:
                process.kill()
    assert complete_version(destination) == 3  # the second wrote after the first, whole
    assert entries(destination.parent) == [NAME]


def test_a_lock_held_too_long_is_one_line_naming_the_holder(writer, tmp_path):
    destination = tmp_path / "dist" / NAME
    pause = tmp_path / "pause"
    pause.mkdir()
    holder = writer(destination, 1, background=True, PAUSE_DIR=str(pause))
    try:
        deadline = time.monotonic() + 60
        while not (pause / "ready").exists():
            assert holder.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        started = time.monotonic()
        waiter = writer(destination, 2, LOCK_WAIT="0.3")
        assert time.monotonic() - started < 30
        assert waiter.returncode == 2
        lines = waiter.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in waiter.stderr
        assert lines[0] == (f"error: {destination}: another taugen build (pid {holder.pid}) is still writing this "
                            "bundle after 0.3 s; try again when it ends or choose another --out")
    finally:
        (pause / "go").write_text("")
        holder.communicate(timeout=60)
    assert holder.returncode == 0 and complete_version(destination) == 1


def test_lock_of_a_killed_holder_is_free(writer, tmp_path):
    destination = tmp_path / "dist" / NAME
    killed = writer(destination, 1, "staged")
    assert killed.returncode == -signal.SIGKILL
    assert (destination.parent / f".{NAME}.taugen-lock").exists()  # stale file, but no lock on it
    with lock_destination(destination, wait=0):
        pass
    assert not (destination.parent / f".{NAME}.taugen-lock").exists()


# --- --out checked before any work ------------------------------------------------------------------


def test_out_that_is_a_file_is_refused_before_any_work(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "dist"
    target.write_text("not a folder\n")
    started = time.perf_counter()
    # an unknown domain would be the first error of any later stage: the --out check comes first
    result = cli("build", "nosuchdomain", "--difficulty", "easy", "--out", target)
    assert time.perf_counter() - started < 20
    assert result.exit_code == 2 and result.exception is None
    assert result.stderr.splitlines() == ["error: dist: --out must be a folder, but it is a file"]
    assert target.read_text() == "not a folder\n"

    result = cli("build", "banking", "--difficulty", "easy", "--out", target / "sub")
    assert result.stderr.splitlines() == [f"error: dist/sub: --out must be a folder, but {target} is a file"]
    assert entries(tmp_path) == ["dist"]


def test_out_that_cannot_be_written_is_refused_before_any_work(tmp_path, cli):
    if os.geteuid() == 0:
        # permission bits do not stop root; sysfs refuses new folders even to root
        out, shown = Path("/sys/taugen-test-out"), r"error: /sys/taugen-test-out: --out cannot be written: .* \(/sys\)$"
    else:
        locked = tmp_path / "readonly"
        locked.mkdir()
        locked.chmod(0o555)
        out, shown = locked / "dist", rf"error: .*readonly/dist: --out cannot be written: no write permission on "
    import re

    result = cli("build", "nosuchdomain", "--difficulty", "easy", "--out", out)
    assert result.exit_code == 2 and result.exception is None
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.match(shown, lines[0]), lines
    assert not out.exists()
    with pytest.raises(InputError, match="--out cannot be written"):
        check_output_folder(out)


def test_bundle_path_that_is_a_file_is_refused_before_the_world_is_built(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "telecom-easy-0.1.0").write_text("a file where the bundle goes\n")
    from taugen.build.pipeline import build

    stages: list[str] = []
    with pytest.raises(InputError) as info:
        build("telecom", "easy", out=dist, progress=lambda stage, detail: stages.append(stage))
    assert str(info.value) == ("dist/telecom-easy-0.1.0: the bundle path is a file, not a folder; remove it or "
                               "choose another --out")
    assert stages == ["authoring"]  # refused before the world, tasks and corpus
    result = cli("build", "telecom", "--difficulty", "easy", "--out", dist)
    assert result.exit_code == 2 and result.exception is None
    assert result.stderr.splitlines() == [f"error: {info.value}"]
    assert entries(dist) == ["telecom-easy-0.1.0"]


def test_foreign_symlink_at_the_bundle_path_is_refused(tmp_path):
    destination = tmp_path / "dist" / NAME
    destination.parent.mkdir()
    (tmp_path / "elsewhere").mkdir()
    destination.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="is a symlink to .*elsewhere, which taugen did not make"):
        write_atomically(bundle(1), destination)
    assert os.listdir(tmp_path / "elsewhere") == []


# --- a real build, killed between the swap and the clean-up ----------------------------------------

BUILD_KILLER = r"""
import os, signal, sys
sys.path.insert(0, {repo!r})
from taugen.build import files as F
def checkpoint(step):
    if step == {step!r}:
        os.kill(os.getpid(), signal.SIGKILL)
F._checkpoint = checkpoint
from taugen.cli import main
sys.argv = ["taugen", "build", "telecom", "--difficulty", "easy", "--seed", sys.argv[1], "--out", sys.argv[2]]
main()
"""


def test_real_build_killed_after_the_swap_leaves_the_new_bundle_and_the_next_build_cleans(tmp_path, cli_subprocess):
    dist = tmp_path / "dist"
    destination = dist / "telecom-easy-0.1.0"
    assert cli_subprocess("build", "telecom", "--difficulty", "easy", "--seed", "0", "--out", dist).exit_code == 0
    seed_of = lambda: __import__("json").loads((destination / "bundle.json").read_text())["seed"]  # noqa: E731
    assert seed_of() == 0
    script = tmp_path / "kill_build.py"
    script.write_text(BUILD_KILLER.format(repo=str(REPO), step="exchanged"), encoding="utf-8")
    killed = subprocess.run([sys.executable, str(script), "1", str(dist)], capture_output=True, text=True,
                            timeout=300, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert seed_of() == 1
    verified = subprocess.run(["sha256sum", "--check", "--quiet", "SHA256SUMS"], cwd=destination, capture_output=True,
                              text=True, check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert len(leftovers(destination)) == 1  # the seed-0 bundle under the staging name
    assert cli_subprocess("build", "telecom", "--difficulty", "easy", "--seed", "2", "--out", dist).exit_code == 0
    assert seed_of() == 2 and entries(dist) == ["telecom-easy-0.1.0"]
    assert cli_subprocess("validate", destination).exit_code == 0


def test_lock_is_exclusive_within_one_process_too(tmp_path):
    destination = tmp_path / "dist" / NAME
    with lock_destination(destination):
        with pytest.raises(InputError, match=r"still writing this bundle after 0.2 s"):
            with lock_destination(destination, wait=0.2):
                pass  # pragma: no cover - the lock is held
    assert bundle_files.LOCK_WAIT_SECONDS >= 60  # the default wait outlasts any real write


def test_sums_differences_name_each_file_edited_added_or_removed_since_the_build():
    """``taugen validate`` and the reviewer report name the files that no longer match ``SHA256SUMS``
    (they said only "files differ from SHA256SUMS", with empty evidence)."""
    from taugen.hashing import sums_differences

    files = {"tau2/domains/banking/tasks.json": b"[]", "kit/records/a.txt": b"hello"}
    files["SHA256SUMS"] = sha256sums(files)
    assert sums_differences(files) == []
    tampered = {**files, "tau2/domains/banking/tasks.json": b"[{}]", "kit/records/b.txt": b"new"}
    del tampered["kit/records/a.txt"]
    assert sums_differences(tampered) == ["removed: kit/records/a.txt", "added: kit/records/b.txt",
                                          "edited: tau2/domains/banking/tasks.json"]
    assert sums_differences({"x": b"1"}) == ["added: x"]  # no SHA256SUMS at all
