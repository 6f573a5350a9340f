"""Bundle files in memory and on disk: hashing, digest names, durable and exclusive writes.

A bundle is first assembled as ``{relative posix path: bytes}``; validators read that mapping, and
only when they find no error is it written. Writing keeps three promises:

* **Always a complete bundle.** The files go to a staging folder beside the destination (same file
  system), are fsynced, and the staging folder then takes the destination's place in one atomic step,
  so at every instant the destination holds the old complete bundle or the new one, never none and
  never half. On Linux the step is ``renameat2(RENAME_EXCHANGE)`` (called through ctypes): the two
  folders swap names in one system call and the destination stays a plain folder, which every tool
  (tau2, ``cp -r``, ``taugen validate``) reads as before. Where the exchange is missing (another OS, a
  file system without it) the destination is a symlink to a versioned folder
  ``.<name>.taugen-v-...`` and a new symlink replaces it with ``os.replace`` (also one atomic step);
  only the very first such write over an existing plain folder has to move it aside first.
* **Leftovers are cleaned.** Every folder taugen makes beside the destination is named
  ``.<name>.taugen-<role>-<pid>-<random>`` (roles ``staging``, ``v``, ``link``), and the names
  earlier taugen versions used (``.<name>.<random>.partial``, ``.<name>.old-<pid>``) are recognised
  too. A kill -9 at any step leaves at most such folders; the next write into the same destination
  removes them (only those names, only under the lock, so never another build's work or a user's
  file).
* **One writer at a time.** :func:`lock_destination` takes an exclusive ``fcntl.flock`` on the file
  ``.<name>.taugen-lock`` beside the destination for the whole write (clean-up, staging, swap). A
  second build into the same destination waits for the first one's write to end (a write takes
  seconds; the build says on screen that it waits), then puts its own complete bundle in place: the
  two never interleave. Locking only the write, not the whole build, keeps ``--out`` untouched by a
  build that fails (bad pack, findings) and lets builds of other bundles share ``--out``. After
  :data:`LOCK_WAIT_SECONDS` the waiting build gives up with one line (exit 2). The lock file is
  removed on release (safely: a contender that locked a removed file retries), and the kernel drops
  the lock of a killed build.

:func:`check_output_folder` checks ``--out`` before a build does any work.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import re
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Mapping

from taugen.errors import InputError
from taugen.hashing import BundleFiles


def read_bundle(directory: Path) -> BundleFiles:
    """Read every file of a bundle folder into memory.

    Raises:
        InputError: the folder does not exist or has no ``bundle.json``.
    """
    if not directory.is_dir():
        raise InputError("bundle folder not found", directory)
    if not (directory / "bundle.json").is_file():
        raise InputError("not a taugen bundle: bundle.json is missing", directory)
    files: BundleFiles = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            files[path.relative_to(directory).as_posix()] = path.read_bytes()
    return files


def _checkpoint(step: str) -> None:
    """Called after each step of a write (``staged``, ``exchanged``, ...); does nothing.

    Tests replace it (in a subprocess) to kill the writer at that exact point.
    """


# --- checking --out --------------------------------------------------------------------------------


def check_output_folder(out: Path) -> None:
    """Check before any work that bundles can be written into the folder ``out``.

    ``out`` may not exist yet (it is made when the bundle is written), but then its nearest existing
    ancestor must be a folder that can be written; a probe folder is made and removed there, which also
    catches read-only file systems and a root user where permission bits say nothing.

    Raises:
        InputError: ``out`` (or an ancestor) is a file, or the folder cannot be written.
    """
    existing = Path(os.path.abspath(out))
    while not os.path.lexists(existing):
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        what = "it" if existing == Path(os.path.abspath(out)) else str(existing)
        raise InputError(f"--out must be a folder, but {what} is a file", out)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"--out cannot be written: no write permission on {existing}", out)
    try:
        probe = tempfile.mkdtemp(prefix=".taugen-probe-", dir=existing)
    except OSError as exc:
        raise InputError(f"--out cannot be written: {exc.strerror} ({existing})", out) from None
    os.rmdir(probe)


def check_destination(destination: Path) -> None:
    """Check that the bundle folder ``destination`` is absent or something taugen may replace.

    Raises:
        InputError: it is a file, or a symlink taugen did not make (taugen replaces only its own).
    """
    if os.path.islink(destination):
        if _own_version_target(destination) is None:
            raise InputError(f"the bundle path is a symlink to {os.readlink(destination)}, which taugen did not "
                             "make; remove it or choose another --out", destination)
    elif destination.exists() and not destination.is_dir():
        raise InputError("the bundle path is a file, not a folder; remove it or choose another --out", destination)


# --- the lock --------------------------------------------------------------------------------------


def _lock_path(destination: Path) -> Path:
    return destination.with_name(f".{destination.name}.taugen-lock")


LOCK_WAIT_SECONDS = 600.0
"""How long a write waits for another build's write into the same destination (a write takes seconds)."""


@contextmanager
def lock_destination(destination: Path, wait: float = LOCK_WAIT_SECONDS,
                     on_wait: Callable[[int | None], None] | None = None) -> Iterator[None]:
    """Hold the exclusive write lock of ``destination`` (a bundle folder path) for the ``with`` block.

    Makes the parent folder if needed. When another process holds the lock, calls ``on_wait(pid)``
    once and waits up to ``wait`` seconds (0: fail at once).

    Raises:
        InputError: the lock is still held after ``wait`` seconds (one line, naming the holder's pid).
    """
    import fcntl
    import time

    parent = Path(os.path.abspath(destination)).parent
    parent.mkdir(parents=True, exist_ok=True)
    path = _lock_path(parent / destination.name)
    deadline = time.monotonic() + wait
    told = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            if time.monotonic() >= deadline:
                who = f" (pid {holder})" if holder else ""
                raise InputError(f"another taugen build{who} is still writing this bundle after {wait:g} s; "
                                 "try again when it ends or choose another --out", parent / destination.name) from None
            if not told and on_wait is not None:
                on_wait(holder)
            told = True
            time.sleep(0.05)
            continue
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed the file between our open and our lock: lock the new one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        try:
            os.unlink(path)  # while still locked, so no one can hold a lock on a file we then remove
        except FileNotFoundError:
            pass
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


# --- the atomic step -------------------------------------------------------------------------------

_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100
_renameat2: Callable[..., int] | None = None
_renameat2_looked_up = False


def _libc_renameat2() -> Callable[..., int] | None:
    global _renameat2, _renameat2_looked_up
    if not _renameat2_looked_up:
        _renameat2_looked_up = True
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
                function = libc.renameat2  # glibc 2.28+
                function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                function.restype = ctypes.c_int
                _renameat2 = function
            except (OSError, AttributeError):
                _renameat2 = None
    return _renameat2


def exchange_paths(first: Path, second: Path) -> bool:
    """Swap the names of two existing paths in one atomic step (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``; see the renameat2(2) manual page).

    Returns:
        True when swapped; False when this system or file system cannot exchange (nothing changed).

    Raises:
        OSError: the exchange was possible but failed (permissions, a path vanished, ...).
    """
    function = _libc_renameat2()
    if function is None:
        return False
    result = function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # not supported here (Windows): the rename is still atomic, only less durable
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- leftovers -------------------------------------------------------------------------------------


def _leftover_pattern(name: str) -> re.Pattern[str]:
    escaped = re.escape(name)
    return re.compile(rf"^\.{escaped}\.(?:taugen-(?:staging|v|link)-\d+-[A-Za-z0-9_]+|[A-Za-z0-9_]{{8}}\.partial"
                      rf"|old-\d+)$")


def _own_version_target(destination: Path) -> Path | None:
    """The versioned folder a taugen-made symlink ``destination`` points at, or None."""
    try:
        target = os.readlink(destination)
    except OSError:
        return None
    pattern = _leftover_pattern(destination.name)
    if os.sep in target or not pattern.match(target) or ".taugen-v-" not in target:
        return None
    return destination.parent / target


def leftovers(destination: Path) -> list[Path]:
    """Folders (and symlinks) beside ``destination`` that an interrupted taugen write left, sorted.

    Only taugen's own names count (see the module docstring); the versioned folder the destination's
    symlink points at is in use, not a leftover.
    """
    parent = destination.parent
    if not parent.is_dir():
        return []
    pattern = _leftover_pattern(destination.name)
    in_use = _own_version_target(destination) if os.path.islink(destination) else None
    found = []
    for entry in os.scandir(parent):
        if not pattern.match(entry.name) or (in_use is not None and entry.name == in_use.name):
            continue
        if entry.is_symlink() or entry.is_dir(follow_symlinks=False):
            found.append(parent / entry.name)
    return sorted(found)


def _remove(path: Path) -> None:
    if os.path.islink(path) or not os.path.isdir(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    else:
        shutil.rmtree(path, ignore_errors=True)


def remove_leftovers(destination: Path) -> list[Path]:
    """Remove what interrupted taugen writes left beside ``destination``; returns what was removed.
    Call it only while holding :func:`lock_destination`."""
    removed = leftovers(destination)
    for path in removed:
        _remove(path)
    return removed


# --- writing ---------------------------------------------------------------------------------------


def _stage(files: Mapping[str, bytes], staging: Path) -> None:
    folders = {staging}
    for relative, data in sorted(files.items()):
        target = staging / relative
        if not target.resolve().is_relative_to(staging.resolve()):
            raise ValueError(f"bundle path {relative!r} leaves the bundle")  # a bug, not user input
        target.parent.mkdir(parents=True, exist_ok=True)
        folders.update(parent for parent in target.parents if parent.is_relative_to(staging))
        with open(target, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(target, 0o644)
        _checkpoint("wrote_file")
    for folder in sorted(folders, key=lambda path: len(path.parts), reverse=True):
        os.chmod(folder, 0o755)
        _fsync_folder(folder)


def write_atomically(files: Mapping[str, bytes], destination: Path, locked: bool = False,
                     on_wait: Callable[[int | None], None] | None = None) -> None:
    """Write ``files`` as the folder ``destination``, which holds a complete bundle at every instant.

    Args:
        files: ``{relative posix path: bytes}``.
        destination: the bundle folder (its parent is made if needed).
        locked: True when the caller already holds :func:`lock_destination` for ``destination``.
        on_wait: called with the holder's pid when another build's write must be waited for.

    File modes are fixed (0644, folders 0755) and no timestamps are set from content.

    Raises:
        InputError: another build holds the lock; the destination is a file or a foreign symlink.
        OSError: the disk refused a write (full, read-only); the destination is then untouched.
    """
    destination = Path(os.path.abspath(destination))
    if not locked:
        with lock_destination(destination, on_wait=on_wait):
            write_atomically(files, destination, locked=True)
        return
    check_destination(destination)
    parent = destination.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(destination)
    _checkpoint("cleaned")
    use_exchange = _libc_renameat2() is not None
    role = "staging" if use_exchange else "v"
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.taugen-{role}-{os.getpid()}-", dir=parent))
    try:
        _stage(files, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _checkpoint("staged")
    if not os.path.lexists(destination):
        if use_exchange:
            os.rename(staging, destination)
        else:
            _link_in(staging, destination)
        _fsync_folder(parent)
        _checkpoint("renamed")
        return
    previous = _own_version_target(destination)  # set when a system without the exchange wrote it
    if use_exchange and exchange_paths(staging, destination):
        _fsync_folder(parent)
        _checkpoint("exchanged")
        _remove(staging)  # the staging name now holds the previous bundle (or the symlink to it)
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
        _checkpoint("removed_old")
        return
    if use_exchange:  # the file system cannot exchange: fall back to a versioned folder behind a symlink
        versioned = Path(tempfile.mkdtemp(prefix=f".{destination.name}.taugen-v-{os.getpid()}-", dir=parent))
        os.rmdir(versioned)
        os.rename(staging, versioned)
        staging = versioned
    _link_in(staging, destination)
    _fsync_folder(parent)
    _checkpoint("linked")
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)
    _checkpoint("removed_old")


def _link_in(versioned: Path, destination: Path) -> None:
    """Point ``destination`` at ``versioned`` (a sibling) through a symlink, replacing it atomically.

    A plain folder at ``destination`` (from an exchange-capable system, or an old taugen) cannot be
    replaced by a symlink in one step: it is renamed aside first (the one moment without a bundle,
    once per destination on systems without an exchange) and removed after.
    """
    link = Path(tempfile.mktemp(prefix=f".{destination.name}.taugen-link-{os.getpid()}-", dir=destination.parent))
    os.symlink(versioned.name, link)
    aside = None
    if os.path.isdir(destination) and not os.path.islink(destination):
        aside = Path(tempfile.mkdtemp(prefix=f".{destination.name}.taugen-staging-{os.getpid()}-",
                                      dir=destination.parent))
        os.rmdir(aside)
        os.rename(destination, aside)
        _checkpoint("moved_aside")
    os.replace(link, destination)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
