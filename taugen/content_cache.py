"""A content-addressed cache on disk for pure, slow computations (reading text back out of a PDF).

An entry is keyed by the SHA-256 of exactly what the computation reads (the file's bytes) and of the
versions of the code that computes it, so a hit can only return what computing afresh would return:
validating edited bytes misses the cache and reads them again. Entries are written to a temporary file
and renamed into place (concurrent builds sharing a folder never see half an entry) and carry the
SHA-256 of their payload, so a corrupted or truncated entry is detected, deleted and recomputed, never
used. The cache is best effort: a folder that cannot be written only costs the time.

Where it lives, in this order: :func:`configure` (the CLI's ``--cache DIR`` / ``--no-cache``), the
``TAUGEN_CACHE`` environment variable (a folder, or ``off``), ``$XDG_CACHE_HOME/taugen``, and
``~/.cache/taugen`` (the XDG Base Directory Specification's default).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

CACHE_ENV = "TAUGEN_CACHE"
"""Environment variable naming the cache folder; ``off`` (or ``0``, ``none``, empty) turns the cache off."""
_OFF = {"", "off", "0", "none", "no"}
_configured: list[Path | None] = []  # empty: not configured, follow the environment


def configure(folder: str | Path | None, enabled: bool = True) -> None:
    """Use ``folder`` (None: the default place) for this process, or no cache at all when not ``enabled``.
    Exported to ``TAUGEN_CACHE`` too, so worker processes the build starts follow the same choice."""
    _configured.clear()
    if not enabled:
        _configured.append(None)
        os.environ[CACHE_ENV] = "off"
    elif folder is not None:
        _configured.append(Path(folder))
        os.environ[CACHE_ENV] = str(Path(folder).resolve())


def cache_root() -> Path | None:
    """The cache folder in use, or None when the cache is off."""
    if _configured:
        return _configured[0]
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in _OFF else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "taugen"


def content_key(*parts: bytes | str) -> str:
    """Hex SHA-256 over ``parts`` (each length-prefixed, so ``("ab", "c")`` and ``("a", "bc")`` differ)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def _path(root: Path, namespace: str, key: str) -> Path:
    return root / namespace / key[:2] / key


def load(namespace: str, key: str) -> bytes | None:
    """The payload stored under ``namespace``/``key``, or None (a miss, the cache off, or an entry whose
    checksum does not match its payload, which is deleted)."""
    root = cache_root()
    if root is None:
        return None
    path = _path(root, namespace, key)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    checksum, payload = raw[:32], raw[32:]
    if len(raw) < 32 or hashlib.sha256(payload).digest() != checksum:
        try:
            path.unlink()
        except OSError:
            pass
        return None
    return payload


def store(namespace: str, key: str, payload: bytes) -> None:
    """Keep ``payload`` under ``namespace``/``key`` (atomically; errors are ignored: the cache is best effort)."""
    root = cache_root()
    if root is None:
        return
    path = _path(root, namespace, key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{key[:8]}-", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return
