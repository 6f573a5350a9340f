"""A content-addressed cache on disk for pure, slow computations (reading text back out of a PDF, rendering a
record, replaying a task, measuring the corpus with the strong readers).

An entry is keyed by the SHA-256 of exactly what the computation reads (the file's bytes) and of the
versions of the code that computes it, so a hit can only return what computing afresh would return:
validating edited bytes misses the cache and reads them again. Entries are written to a temporary file
and renamed into place (concurrent builds sharing a folder never see half an entry) and carry the
SHA-256 of their payload, so a corrupted or truncated entry is detected, deleted and recomputed, never
used. The cache is best effort: a folder that cannot be written only costs the time. :func:`code_version`
names the code behind a result; :func:`store_object` / :func:`load_object` keep taugen's own objects,
read back by an unpickler that builds nothing else (a tampered entry cannot run code).

Where it lives, in this order: :func:`configure` (the CLI's ``--cache DIR`` / ``--no-cache``), the
``TAUGEN_CACHE`` environment variable (a folder, or ``off``), ``$XDG_CACHE_HOME/taugen``, and
``~/.cache/taugen`` (the XDG Base Directory Specification's default).
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

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


# --------------------------------------------------------------------------------------------------
# The code behind a result, and objects in the cache
# --------------------------------------------------------------------------------------------------

PROGRAMS = ("chromium", "chromium-browser", "dot", "espeak-ng", "ffmpeg", "ffprobe")
"""External programs whose output ends up in records (by path, size and modification time)."""
FONT_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts")
_SKIPPED_PARTS = ("__pycache__",)


def _pack_data(path: Path, package: Path) -> bool:
    """True for a pack's data inside the package (``domains/<name>/facts/``, ``vocabulary.yaml``,
    ``domain.yaml``): keyed by what a render reads of it, not as code."""
    relative = path.relative_to(package).parts
    return len(relative) >= 3 and relative[0] == "domains" and (
        relative[2] == "facts" or relative[2] in ("vocabulary.yaml", "domain.yaml"))


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """Hex digest of the code behind a cached result, everything besides the pack that a record's render or a
    validator's finding depends on: taugen's files (source, templates, assets; not the built-in packs' facts,
    vocabulary and config, which callers key by what they read of them), the Python version, every
    installed distribution and its version, and the path, size and modification time of the external
    programs (:data:`PROGRAMS`) and of the system fonts' files. Computed once per process."""
    import taugen

    package = Path(taugen.__file__).resolve().parent
    parts: list[bytes | str] = [sys.version]
    for path in sorted(package.rglob("*")):
        if path.is_file() and not any(part in _SKIPPED_PARTS for part in path.parts) \
                and not _pack_data(path, package):
            parts += [path.relative_to(package).as_posix(), path.read_bytes()]
    parts.append(";".join(sorted(f"{dist.metadata['Name']}=={dist.version}" for dist in metadata.distributions()
                                 if dist.metadata["Name"])))
    for name in PROGRAMS:
        found = shutil.which(name)
        parts.append(f"{name}={_stat(found) if found else '-'}")
    for folder in FONT_FOLDERS:
        for root, directories, files in os.walk(folder):
            directories.sort()
            parts += [f"{os.path.join(root, name)}={_stat(os.path.join(root, name))}" for name in sorted(files)]
    return content_key(*parts)


def _stat(path: str) -> str:
    try:
        real = os.path.realpath(path)
        status = os.stat(real)
    except OSError:
        return "?"
    return f"{real}:{status.st_size}:{status.st_mtime_ns}"


class SafeUnpickler(pickle.Unpickler):
    """Builds only taugen's classes and plain data (dates, decimals, collections): a function, a dotted name
    (``taugen.build.files.os.system``) or any other module's global fails."""

    _ALLOWED = {("builtins", name) for name in ("set", "frozenset", "list", "dict", "tuple", "bytes", "bytearray",
                                                   "str", "int", "float", "bool", "complex", "slice", "range")}
    _ALLOWED |= {("datetime", name) for name in ("date", "datetime", "time", "timedelta", "timezone")}
    _ALLOWED |= {("decimal", "Decimal"), ("collections", "OrderedDict"), ("copyreg", "_reconstructor"),
                 ("builtins", "object"), ("copyreg", "__newobj__"), ("zoneinfo", "ZoneInfo"),
                 ("pydantic_core._pydantic_core", "TzInfo")}  # the fixed-offset zone of dates pydantic parsed

    def persistent_load(self, pid: Any) -> Any:
        """A time zone :func:`dumps` wrote by its IANA key (``("zoneinfo", "America/Chicago")``): rebuilt with
        :class:`zoneinfo.ZoneInfo`, where a plain pickle would need ``builtins.getattr``, which no entry may
        name."""
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "zoneinfo" and isinstance(pid[1], str):
            from zoneinfo import ZoneInfo

            return ZoneInfo(pid[1])
        raise pickle.UnpicklingError(f"a cache entry names the object {pid!r}")

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._ALLOWED:
            return super().find_class(module, name)
        if (module == "taugen" or module.startswith("taugen.")) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type):  # a record type, never a function (nor a path to another module's)
                return found
        raise pickle.UnpicklingError(f"a cache entry names {module}.{name}")


class _Pickler(pickle.Pickler):
    """Pickles as :mod:`pickle` does, but writes a :class:`zoneinfo.ZoneInfo` (the business's clock in a
    record's timestamps) as its key, which :meth:`SafeUnpickler.persistent_load` rebuilds."""

    def persistent_id(self, obj: Any) -> Any:
        from zoneinfo import ZoneInfo

        return ("zoneinfo", obj.key) if isinstance(obj, ZoneInfo) else None


def dumps(value: Any) -> bytes:
    """``value`` (taugen's classes and plain data) as the pickle :class:`SafeUnpickler` reads back: the same
    bytes for the same value, a time zone written by its key."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def load_object(namespace: str, key: str) -> Any:
    """The object stored by :func:`store_object` under ``namespace``/``key``, read back by
    :class:`SafeUnpickler`; None on a miss, with the cache off, or for an entry that is damaged, of
    another layout or names anything but taugen's classes and plain data."""
    payload = load(namespace, key)
    if payload is None:
        return None
    try:
        return SafeUnpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - an entry of another layout or a damaged one is only a miss
        return None


def store_object(namespace: str, key: str, value: Any) -> None:
    """Keep ``value`` (taugen's classes and plain data only, or :func:`load_object` will not read it back)
    under ``namespace``/``key`` as a pickle (best effort, atomic, see :func:`store`)."""
    store(namespace, key, dumps(value))
