"""The pack's facts as a render reads them: lookups made once per pack, and every read a render makes recorded.

A record's render reads the pack's facts (:attr:`~taugen.generators.corpus.genre.RenderContext.facts`)
beyond the ones it states: the subjects of its topic it names without a value, the values a figure it
writes in a rule's place must keep clear of, the days schedules change. The render cache
(:mod:`taugen.generators.corpus.render_cache`) may reuse a rendered record only when every one of those
reads would give the same answer in the pack being built, so it renders each record against
:class:`TracedFacts`, which hands out the same facts and answers as the plain mapping and records, for
each read, what it read and a digest of what it got:

* ``("fact", id)``: one fact, whole (its canonical form), or its absence;
* ``("ids",)``: the ids in order (a walk over every fact: then each fact it reads is recorded too);
* ``("nonempty",)``: whether there are facts at all;
* ``("query", name, args)``: the answer of one :class:`FactIndex` lookup (the values of a subject, the
  current facts of a section ...), so a render that asks which values a section holds depends on that
  set, not on every fact of the pack;
* ``("owner", id)`` and ``("owners",)``: the genre owning a fact in the plan
  (:attr:`~taugen.generators.corpus.genre.RenderContext.owner_genres`).

:func:`reads_hold` recomputes those digests against another pack's facts: all equal means the render,
a pure function of its plan, its context and these reads, gives the same bytes there.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from taugen.hashing import canonical_bytes, sha256_hex

if TYPE_CHECKING:
    from taugen.authoring.models import Fact

Read = tuple
"""One recorded read: ``("fact", id)``, ``("ids",)``, ``("nonempty",)``, ``("query", name, args)``,
``("owner", id)`` or ``("owners",)``."""


@functools.lru_cache(maxsize=16384)
def subject_key(subject: str | None) -> str:
    """``subject`` compared case- and space-insensitively (lower case, runs of spaces as one)."""
    return " ".join((subject or "").lower().split())


def digest(value: Any) -> str:
    """Hex SHA-256 of ``value``'s canonical form (:func:`taugen.hashing.canonical_bytes`)."""
    return sha256_hex(canonical_bytes(value))


class FactIndex:
    """The lookups renders make across all of a pack's facts, computed once per facts mapping (``{id: Fact}``).

    Every method is a pure function of the facts and its arguments and returns a fresh value, so its answer
    can be recorded and checked again (:class:`TracedFacts`)."""

    def __init__(self, facts: Mapping[str, "Fact"]) -> None:
        self._canonical = {fact_id: fact.value.canonical() for fact_id, fact in facts.items() if fact.value is not None}
        self._by_subject: dict[str, set[str]] = {}
        self._by_section: dict[str, set[str]] = {}
        self._by_canonical: dict[str, list[tuple[int, Any]]] = {}
        parent = {fact_id: fact_id for fact_id in facts}

        def root(fact_id: str) -> str:
            while parent.setdefault(fact_id, fact_id) != fact_id:
                parent[fact_id] = parent[parent[fact_id]]
                fact_id = parent[fact_id]
            return fact_id

        for position, (fact_id, fact) in enumerate(facts.items()):
            if fact.supersedes:
                parent[root(fact_id)] = root(fact.supersedes)
            if fact.value is None:
                continue
            canonical = self._canonical[fact_id]
            self._by_subject.setdefault(subject_key(fact.subject), set()).add(canonical)
            self._by_section.setdefault(fact.section, set()).add(canonical)
            self._by_canonical.setdefault(canonical, []).append((position, fact.value))
        arcs: dict[str, set[str]] = {}
        for fact_id in parent:
            arcs.setdefault(root(fact_id), set()).add(fact_id)
        self._arc_of = {fact_id: arcs[root(fact_id)] for fact_id in parent}
        replaced = {fact.supersedes for fact in facts.values() if fact.supersedes}
        self._current = sorted(fact_id for fact_id in facts if fact_id not in replaced)
        self._current_by_section: dict[str, list[str]] = {}
        for fact_id in self._current:
            self._current_by_section.setdefault(facts[fact_id].section, []).append(fact_id)
        self._sections = sorted({fact.section for fact in facts.values()})
        self._days = sorted({day for fact in facts.values() for day in (fact.effective_from, fact.decided_on)
                             if day is not None})

    def current(self) -> list[str]:
        """Ids of the facts no other fact supersedes, sorted."""
        return list(self._current)

    def current_in_section(self, section: str) -> list[str]:
        """Ids of the current facts of ``section``, sorted."""
        return list(self._current_by_section.get(section, ()))

    def sections(self) -> list[str]:
        """Every section any fact belongs to, sorted."""
        return list(self._sections)

    def effective_days(self, first: dt.date, last: dt.date) -> list[dt.date]:
        """The days from ``first`` to ``last`` (inclusive) on which a fact took effect or was decided, sorted."""
        return [day for day in self._days if first <= day <= last]

    def subject_values(self, fact_id: str, supersedes: str | None, subject: str | None) -> set[str]:
        """Canonical value forms of the supersession arc of ``fact_id`` (and of ``supersedes``) and of every
        fact on ``subject`` (compared case- and space-insensitively)."""
        chain = self._arc_of.get(fact_id, {fact_id}) | self._arc_of.get(supersedes or "", set())
        values = {self._canonical[other] for other in chain if other in self._canonical}
        key = subject_key(subject)
        return values | (set(self._by_subject.get(key, ())) if key else set())

    def section_values(self, section: str) -> set[str]:
        """Canonical value forms of every fact of ``section`` (every version)."""
        return set(self._by_section.get(section, ()))

    def values_among(self, canonical: frozenset[str]) -> list[Any]:
        """The distinct typed values of the facts whose canonical form is in ``canonical``, each where it
        first occurs in the facts' order. Distinct, not one per fact: callers test whether a line holds any
        of them, which equal values answer alike, and a render that reads this answer then depends on the
        values, not on how many facts hold each ($5.00 is the amount of facts in many sections)."""
        found = sorted((entry for form in canonical for entry in self._by_canonical.get(form, ())),
                       key=lambda entry: entry[0])
        return distinct_values(value for _, value in found)


def distinct_values(values: Iterable[Any]) -> list[Any]:
    """``values`` (typed fact values) with each equal value kept once, where it first occurs."""
    distinct: dict[str, Any] = {}
    for value in values:
        distinct.setdefault(value.identity(), value)
    return list(distinct.values())


class TracedFacts(Mapping):
    """A read-only ``{id: Fact}`` that records every read (see the module docstring) into :attr:`reads`
    (read → digest of what it gave). It answers exactly as ``facts`` does; :attr:`lookup` answers
    :class:`FactIndex` lookups and records them.

    Args:
        facts: the pack's facts.
        index: the :class:`FactIndex` of ``facts``.
        fact_digests: a memo ``{id: digest}`` shared by the renders of one job (filled as facts are read).
        answers: a memo ``{read: digest}`` of lookups' answers shared by the renders of one job.
    """

    def __init__(self, facts: Mapping[str, "Fact"], index: FactIndex, fact_digests: dict[str, str],
                 answers: dict[Read, str]) -> None:
        self.raw = facts
        self.index = index
        self.reads: dict[Read, str] = {}
        self._fact_digests = fact_digests
        self.lookup = _RecordingLookup(index, self.reads, answers)

    def _fact(self, fact_id: str) -> None:
        if ("fact", fact_id) not in self.reads:
            self.reads[("fact", fact_id)] = fact_digest(self.raw, fact_id, self._fact_digests)

    def __getitem__(self, fact_id: str) -> "Fact":
        self._fact(fact_id)
        return self.raw[fact_id]

    def __contains__(self, fact_id: object) -> bool:
        if isinstance(fact_id, str):
            self._fact(fact_id)
        return fact_id in self.raw

    def get(self, fact_id: str, default: Any = None) -> Any:
        self._fact(fact_id)
        return self.raw.get(fact_id, default)

    def _all(self) -> None:
        if ("ids",) not in self.reads:
            self.reads[("ids",)] = digest(list(self.raw))

    def __iter__(self) -> Iterator[str]:
        self._all()
        return iter(self.raw)

    def __len__(self) -> int:
        self._all()
        return len(self.raw)

    def __bool__(self) -> bool:
        if ("nonempty",) not in self.reads:
            self.reads[("nonempty",)] = digest(bool(self.raw))
        return bool(self.raw)


class _RecordingLookup:
    """:class:`FactIndex`'s lookups, each call recorded as ``("query", name, args)`` → digest of the answer."""

    def __init__(self, index: FactIndex, reads: dict[Read, str], answers: dict[Read, str]) -> None:
        self._index = index
        self._reads = reads
        self._answers = answers

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._index, name)

        def call(*args: Any) -> Any:
            answer = method(*args)
            read = ("query", name, args)
            if read not in self._reads:
                if read not in self._answers:
                    self._answers[read] = digest(answer)
                self._reads[read] = self._answers[read]
            return answer

        return call


class TracedOwners(Mapping):
    """A read-only ``{fact id: genre}`` (the plan's owner genres) that records every read into ``reads``."""

    def __init__(self, owners: Mapping[str, str], reads: dict[Read, str]) -> None:
        self.raw = owners
        self.reads = reads

    def _owner(self, fact_id: object) -> None:
        if isinstance(fact_id, str) and ("owner", fact_id) not in self.reads:
            self.reads[("owner", fact_id)] = digest(self.raw.get(fact_id))

    def _all(self) -> None:
        if ("owners",) not in self.reads:
            self.reads[("owners",)] = digest(sorted(self.raw.items()))

    def __getitem__(self, fact_id: str) -> str:
        self._owner(fact_id)
        return self.raw[fact_id]

    def get(self, fact_id: str, default: Any = None) -> Any:
        self._owner(fact_id)
        return self.raw.get(fact_id, default)

    def __contains__(self, fact_id: object) -> bool:
        self._owner(fact_id)
        return fact_id in self.raw

    def __iter__(self) -> Iterator[str]:
        self._all()
        return iter(self.raw)

    def __len__(self) -> int:
        self._all()
        return len(self.raw)


def fact_digest(facts: Mapping[str, "Fact"], fact_id: str, memo: dict[str, str]) -> str:
    """Digest of fact ``fact_id``'s canonical form in ``facts`` (of None when absent), memoised in ``memo``."""
    if fact_id not in memo:
        memo[fact_id] = digest(facts.get(fact_id))
    return memo[fact_id]


def reads_hold(reads: Iterable[tuple[Read, str]], facts: Mapping[str, "Fact"], index: FactIndex,
               owners: Mapping[str, str], fact_digests: dict[str, str], answers: dict[Read, str]) -> bool:
    """Whether every recorded ``(read, digest)`` gives the same digest against ``facts`` (its ``index``) and
    ``owners``. ``fact_digests`` and ``answers`` are memos shared by the checks of one job (many records
    make the same lookups). An unknown kind of read, or a lookup :class:`FactIndex` does not have, does not
    hold."""
    try:
        return all(_read_again(read, facts, index, owners, fact_digests, answers) == expected
                   for read, expected in reads)
    except Exception:  # noqa: BLE001 - a read of another layout (arguments this lookup refuses) is a miss
        return False


def _read_again(read: Read, facts: Mapping[str, "Fact"], index: FactIndex, owners: Mapping[str, str],
                fact_digests: dict[str, str], answers: dict[Read, str]) -> str | None:
    """The digest ``read`` gives now (see :func:`reads_hold`), or None for a read this code cannot make."""
    kind = read[0]
    if kind == "fact":
        return fact_digest(facts, read[1], fact_digests)
    if read in answers:
        return answers[read]
    if kind == "query":
        method = getattr(FactIndex, read[1], None)
        if not callable(method) or read[1].startswith("_"):
            return None  # a lookup this code does not make
        found = digest(method(index, *read[2]))
    elif kind == "ids":
        found = digest(list(facts))
    elif kind == "nonempty":
        found = digest(bool(facts))
    elif kind == "owner":
        found = digest(owners.get(read[1]))
    elif kind == "owners":
        found = digest(sorted(owners.items()))
    else:
        return None
    answers[read] = found
    return found


_INDEXES: dict[int, tuple[Mapping[str, "Fact"], int, FactIndex]] = {}


def index_of(facts: Mapping[str, "Fact"]) -> FactIndex:
    """The :class:`FactIndex` of ``facts`` (a :class:`TracedFacts`' own; else made once per mapping, held with
    it so its id is not reused while cached, and made again if the mapping's size changed)."""
    if isinstance(facts, TracedFacts):
        return facts.index
    held = _INDEXES.get(id(facts))
    if held is None or held[0] is not facts or held[1] != len(facts):
        if len(_INDEXES) >= 8:
            _INDEXES.clear()
        held = _INDEXES[id(facts)] = (facts, len(facts), FactIndex(facts))
    return held[2]


def lookup_of(facts: Mapping[str, "Fact"]) -> Any:
    """What answers :class:`FactIndex` lookups over ``facts``: a :class:`TracedFacts`' recording lookup, else
    the plain index (:func:`index_of`)."""
    return facts.lookup if isinstance(facts, TracedFacts) else index_of(facts)


def raw_facts(facts: Mapping[str, "Fact"]) -> Mapping[str, "Fact"]:
    """The plain mapping behind ``facts`` (itself when it is not traced): for identity checks that are a
    property of the plan, not a read."""
    return facts.raw if isinstance(facts, TracedFacts) else facts
