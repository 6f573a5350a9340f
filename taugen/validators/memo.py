"""Process-wide memos of validator work, keyed by the digest of exactly what the work reads.

A validator's unit of work (one task's replay, one task's policy pass, one corpus-wide check) is a pure
function of some bundle content: the database, the clock, a task, the facts, the records' texts. A
:class:`Memo` remembers its result under :func:`digest` of those inputs, so a bundle that differs from one
already validated in a task or two (every mutant of a mutation run, a rebuild after a small edit)
recomputes only the work whose inputs changed. The key must name *everything* the work reads; results are
shared between callers and must be treated as read-only.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Generic, TypeVar

from taugen.generators.environment import dict_hash

T = TypeVar("T")
_MEMOS: "weakref.WeakSet[Memo[Any]]" = weakref.WeakSet()


def digest(*parts: Any) -> str:
    """sha256 (hex) of the list ``parts`` as canonical JSON (sorted keys; anything not JSON-able by its
    ``str``), as :func:`taugen.generators.environment.dict_hash` computes it."""
    return dict_hash(list(parts))


class Memo(Generic[T]):
    """A bounded map from input digests to results (cleared when full, so a long-lived process stays
    bounded; a cleared entry is only recomputed).

    Args:
        limit: entries kept before the memo is cleared.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: dict[str, T] = {}
        _MEMOS.add(self)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> T | None:
        return self._entries.get(key)

    def put(self, key: str, value: T) -> T:
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[key] = value
        return value

    def compute(self, key: str, work: Callable[[], T]) -> T:
        """The result remembered under ``key``, else ``work()`` remembered."""
        if key in self._entries:
            return self._entries[key]
        return self.put(key, work())

    def clear(self) -> None:
        self._entries.clear()


def clear_all() -> None:
    """Forget every memo's entries (the next validation computes everything cold)."""
    for memo in list(_MEMOS):
        memo.clear()
