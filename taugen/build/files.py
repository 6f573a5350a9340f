"""Bundle files in memory and on disk: hashing, digest names, atomic writes.

A bundle is first assembled as ``{relative posix path: bytes}``; validators read that mapping, and
only when they find no error is it written, into a temporary sibling folder that is renamed into
place. An error or a kill before the rename leaves no half bundle and never touches an existing one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping

from taugen.errors import InputError

BundleFiles = dict[str, bytes]


def sha256_hex(data: bytes) -> str:
    """sha256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest_name(data: bytes, suffix: str, length: int = 16) -> str:
    """A neutral file name from the content: ``<first length hex of sha256><suffix>``."""
    return f"{sha256_hex(data)[:length]}{suffix}"


def json_bytes(data: Any) -> bytes:
    """Canonical JSON: sorted keys, two-space indent, UTF-8, trailing newline (stable bytes)."""
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False, default=str) + "\n").encode()


def sha256sums(files: Mapping[str, bytes]) -> bytes:
    """``SHA256SUMS`` text in coreutils format (``<hex>  <path>``), sorted by path."""
    lines = [f"{sha256_hex(files[path])}  {path}\n" for path in sorted(files)]
    return "".join(lines).encode()


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


def write_atomically(files: Mapping[str, bytes], destination: Path) -> None:
    """Write ``files`` as the folder ``destination``, replacing an existing bundle only when complete.

    The files go to a temporary folder beside ``destination`` (same file system, so the rename is
    atomic); an existing ``destination`` is moved aside, the new one renamed in, and the old one
    removed. File modes are fixed (0644) and no timestamps are set from content.
    """
    destination = destination.resolve()
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent))
    try:
        for relative, data in sorted(files.items()):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(target, 0o644)
        os.chmod(staging, 0o755)
        retired = None
        if destination.exists():
            retired = destination.with_name(f".{destination.name}.old-{os.getpid()}")
            os.replace(destination, retired)
        os.replace(staging, destination)
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
