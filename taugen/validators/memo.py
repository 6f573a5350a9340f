"""Process-wide memos of validator work, keyed by the digest of exactly what the work reads.

A validator's unit of work (one task's replay, one task's policy pass, one corpus-wide check) is a pure
function of some bundle content: the database, the clock, a task, the facts, the records' texts. A
:class:`Memo` remembers its result under :func:`digest` of those inputs, so a bundle that differs from one
already validated in a task or two (every mutant of a mutation run, a rebuild after a small edit)
recomputes only the work whose inputs changed. The key must name *everything* the work reads; results are
shared between callers and must be treated as read-only.

A memo given a ``namespace`` also keeps its results in the content cache (:mod:`taugen.content_cache`), under
its key and :func:`~taugen.content_cache.code_version`, while :func:`persisted` is in effect (a build and
``taugen validate`` turn it on; validators called directly, as tests do, never read it): a later process
validating a bundle that shares tasks with one validated before (a rebuild after a one-fact edit, the same
bundle again) reads those tasks' results back instead of replaying them. Entries are checksummed and read
back by :class:`~taugen.content_cache.SafeUnpickler`; a damaged one is recomputed.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Callable, Generic, Iterator, TypeVar

from taugen import content_cache
from taugen.generators.environment import dict_hash

T = TypeVar("T")
_MEMOS: "weakref.WeakSet[Memo[Any]]" = weakref.WeakSet()
_PERSISTED: list[bool] = []


@contextlib.contextmanager
def persisted(environment: str | None) -> Iterator[None]:
    """Within the block, memos with a namespace read and keep their results in the content cache (when it
    is on), if the bundle's domain code (module ``environment``) is part of what
    :func:`~taugen.content_cache.code_version` names: a built-in domain, inside the taugen package. A domain
    whose code is its pack folder (``taugen new-domain``) or another distribution is validated afresh.
    Processes forked inside the block (validators run side by side) inherit it."""
    _PERSISTED.append(code_is_versioned(environment))
    try:
        yield
    finally:
        _PERSISTED.pop()


def code_is_versioned(module: str | None) -> bool:
    """Whether module ``module`` is a file of the taugen package (so :func:`~taugen.content_cache.code_version`
    changes when it does); False for anything else or a module that cannot be found."""
    import importlib.util
    from pathlib import Path

    import taugen

    if not module or not (module == "taugen" or module.startswith("taugen.")):
        return False
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin:
        return False
    return Path(spec.origin).resolve().is_relative_to(Path(taugen.__file__).resolve().parent)


def digest(*parts: Any) -> str:
    """sha256 (hex) of the list ``parts`` as canonical JSON (sorted keys; anything not JSON-able by its
    ``str``), as :func:`taugen.generators.environment.dict_hash` computes it."""
    return dict_hash(list(parts))


class Memo(Generic[T]):
    """A bounded map from input digests to results (cleared when full, so a long-lived process stays
    bounded; a cleared entry is only recomputed).

    Args:
        limit: entries kept before the memo is cleared.
        namespace: content cache namespace of its results (see the module docstring; None: this process only).
            Results must be taugen's classes and plain data.
    """

    def __init__(self, limit: int, namespace: str | None = None) -> None:
        self.limit = limit
        self.namespace = namespace
        self._entries: dict[str, T] = {}
        _MEMOS.add(self)

    def _stored_key(self, key: str) -> str | None:
        if self.namespace is None or not _PERSISTED or not _PERSISTED[-1] or content_cache.cache_root() is None:
            return None
        return content_cache.content_key(content_cache.code_version(), key)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> T | None:
        """The result remembered under ``key`` (in this process, else in the content cache), or None."""
        found = self._entries.get(key)
        if found is None and (stored := self._stored_key(key)) is not None:
            found = content_cache.load_object(self.namespace, stored)  # type: ignore[arg-type]
            if found is not None:
                self._remember(key, found)
        return found

    def put(self, key: str, value: T) -> T:
        """Remember ``value`` under ``key`` (and keep it in the content cache, see :func:`persisted`)."""
        self._remember(key, value)
        if (stored := self._stored_key(key)) is not None:
            content_cache.store_object(self.namespace, stored, value)  # type: ignore[arg-type]
        return value

    def _remember(self, key: str, value: T) -> None:
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[key] = value

    def compute(self, key: str, work: Callable[[], T]) -> T:
        """The result remembered under ``key`` (:meth:`get`), else ``work()`` remembered (:meth:`put`)."""
        if key in self._entries:
            return self._entries[key]
        found = self.get(key)
        return found if found is not None else self.put(key, work())

    def clear(self) -> None:
        self._entries.clear()


def clear_all() -> None:
    """Forget every memo's entries (the next validation computes everything cold)."""
    for memo in list(_MEMOS):
        memo.clear()
