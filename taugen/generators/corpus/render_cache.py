"""The render cache: a record rendered once is not rendered again while nothing it read has changed.

A record's render (its delivered files, author text, placed renditions, timestamps, metadata and the text
its genre reads back) is a pure function of

* the code that renders it: taugen's own source and templates, the installed Python distributions, the
  external programs the genres run (Chromium, Graphviz ``dot``, ``espeak-ng``, ``ffmpeg``) and the system
  fonts (:func:`code_version`);
* what every record of the build shares: the pack's domain config and corpus vocabulary, the tier and the
  build seed (:func:`job_key`);
* its own plan item (:class:`~taugen.generators.corpus.genre.ArtifactPlan`: the renditions it states, their
  facts, its dates, its seed, its length);
* what it read of the pack's other facts and of the plan's owner genres while rendering, recorded by
  :class:`~taugen.generators.corpus.fact_reads.TracedFacts` (the facts of its topic it names, the value
  sets its figures keep clear of ...).

An entry is stored under the SHA-256 of the first three (:func:`entry_key`) and holds up to
:data:`MAX_TRACES` traces, each the reads with the digest of what each gave and the id of the result they
produced (results are stored once, by their own digest); a trace is used only when every read gives the
same digest against the pack being built (:func:`~taugen.generators.corpus.fact_reads.reads_hold`). So
after a one-fact edit only the records that state the fact or read it (directly, or through a lookup whose
answer it changes: a new amount changes its section's value set, which every record writing figures on
that section's subjects keeps clear of) are rendered again, and the bundle is byte-identical to a build
without the cache. Entries live in the content cache (:mod:`taugen.content_cache`: atomic writes,
checksummed payloads, ``--cache DIR`` / ``--no-cache``); a corrupt or unreadable entry is a miss.

Payloads are pickles that only :func:`traces` and :func:`result` read back, through an unpickler that
builds nothing but taugen's own record types and plain data (a tampered cache cannot run code). A plug-in
genre's code is covered by its distribution's version only: after editing an installed plug-in in place,
build once with ``--no-cache``.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from taugen.content_cache import content_key
from taugen.content_cache import load as load_entry
from taugen.content_cache import store as store_entry
from taugen.hashing import canonical_bytes

if TYPE_CHECKING:
    from taugen.generators.corpus.genre import ArtifactPlan, RenderContext

NAMESPACE = "render"
RESULTS = "render-result"
MAX_TRACES = 8
"""Traces kept per record (the newest first): a value edited back and forth finds each of its renders."""
FORMAT = "render entry 2"
"""Changes when the layout of an entry changes (old entries are then misses)."""
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
    """Hex digest of everything besides the pack that a render's bytes depend on: taugen's files (source,
    templates, assets; not the built-in packs' facts, vocabulary and config), the Python version, every
    installed distribution and its version, and the path, size and modification time of the external
    programs (:data:`PROGRAMS`) and of the system fonts' files. Computed once per process."""
    import taugen

    package = Path(taugen.__file__).resolve().parent
    parts: list[bytes | str] = [FORMAT, sys.version]
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


def job_key(context: "RenderContext", genre_names: list[str]) -> str:
    """Hex digest of what every record of a build shares: :func:`code_version`, the registered genres, the
    domain config, the corpus vocabulary's words (not the file they came from: a copied pack reuses its
    records), the tier and the build seed (not the facts: each record's reads of them are checked one by one)."""
    return content_key(code_version(), ",".join(sorted(genre_names)), canonical_bytes(context.config),
                       canonical_bytes(context.vocabulary.sections), context.tier, str(context.build_seed))


def entry_key(job: str, plan: "ArtifactPlan") -> str:
    """Hex digest naming one record's entry: the build's :func:`job_key` and the record's plan item."""
    return content_key(job, canonical_bytes(plan))


class _RecordUnpickler(pickle.Unpickler):
    """Builds only taugen's classes and plain data (dates, decimals, collections): a function, a dotted name
    (``taugen.build.files.os.system``) or any other module's global fails."""

    _ALLOWED = {("builtins", name) for name in ("set", "frozenset", "list", "dict", "tuple", "bytes", "bytearray",
                                                   "str", "int", "float", "bool", "complex", "slice", "range")}
    _ALLOWED |= {("datetime", name) for name in ("date", "datetime", "time", "timedelta", "timezone")}
    _ALLOWED |= {("decimal", "Decimal"), ("collections", "OrderedDict"), ("copyreg", "_reconstructor"),
                 ("builtins", "object"), ("copyreg", "__newobj__"), ("zoneinfo", "ZoneInfo"),
                 ("pydantic_core._pydantic_core", "TzInfo")}  # the fixed-offset zone of dates pydantic parsed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._ALLOWED:
            return super().find_class(module, name)
        if (module == "taugen" or module.startswith("taugen.")) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type):  # a record type, never a function (nor a path to another module's)
                return found
        raise pickle.UnpicklingError(f"a render cache entry names {module}.{name}")


def _unpickle(payload: bytes | None) -> Any:
    if payload is None:
        return None
    try:
        return _RecordUnpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - an entry of another layout or a damaged one is only a miss
        return None


def traces(key: str) -> list[tuple[list, str]]:
    """The traces kept under ``key``, newest first: ``(reads, result id)`` with the recorded reads as
    ``[(read, digest)]``; ``[]`` on a miss, with the cache off, or for an entry that cannot be read back."""
    found = _unpickle(load_entry(NAMESPACE, key))
    return found if isinstance(found, list) else []


def result(result_id: str) -> Any:
    """The render result stored as ``result_id``, or None (a miss, or damaged)."""
    return _unpickle(load_entry(RESULTS, result_id))


def lookup(key: str, holds: Callable[[list], bool]) -> Any:
    """The result of the newest trace under ``key`` whose reads ``holds`` accepts, or None."""
    for reads, result_id in traces(key):
        if holds(reads):
            found = result(result_id)
            if found is not None:
                return found
    return None


def store(key: str, reads: dict, rendered: Any) -> None:
    """Keep ``rendered`` (stored once by its digest) and its ``reads`` (read → digest) as the newest trace
    under ``key``, beside at most :data:`MAX_TRACES` - 1 older ones (best effort, atomic; two builds
    storing at once may each drop the other's trace, never damage one)."""
    payload = pickle.dumps(rendered, protocol=pickle.HIGHEST_PROTOCOL)
    result_id = content_key(payload)
    store_entry(RESULTS, result_id, payload)
    recorded = list(reads.items())
    kept = [(recorded, result_id)] + [trace for trace in traces(key) if trace[0] != recorded][:MAX_TRACES - 1]
    store_entry(NAMESPACE, key, pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))
