"""What every defect check works on: a task set, its gold replays, text helpers and annotations.

A :class:`TaskSet` is the same for a taugen bundle (``sources.taskset_for_view``) and for any tau2
domain folder (``sources.taskset_from_folder``): the tasks, the splits, the agent (and user) database
as JSON, the policy documents, the tools of each actor, the world's ``now`` when known, a replayer
(taugen's toolkit, or tau2's own environment) and, for taugen bundles only, the typed facts and the
domain's policy rules. Checks return :class:`Defect` objects; :func:`to_findings` applies the tasks'
``annotations`` and turns them into :class:`~taugen.findings.Finding` with ``code`` = the
defect kind (``K1`` … ``K20``, see ``../shared/reference/defect-kinds.md``).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterable, Iterator

from taugen.findings import Finding

# ------------------------------------------------------------------------------------------ model


@dataclass(frozen=True)
class ToolInfo:
    """A tool one actor can call.

    Attributes:
        name: the tool name.
        actor: ``assistant`` or ``user``.
        kind: ``read``, ``write``, ``generic`` or ``think``.
        parameters: parameter names in order.
        required: the parameters without a default.
        choices: parameter → allowed values, for enumerated (``Literal``) parameters.
        description: what the actor reads about the tool (its docstring).
    """

    name: str
    actor: str
    kind: str
    parameters: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    description: str = ""


@dataclass
class Step:
    """One replayed gold action: its output (parsed JSON when possible) or its tool error, and whether
    it changed the graded databases (None when not measured)."""

    index: int
    action: dict[str, Any]
    output: Any = None
    error: str | None = None
    changed: bool | None = None


@dataclass
class Replay:
    """A replay of a task's gold actions (or a variant of them).

    Attributes:
        steps: one per action, in order.
        init_error: the task's initial state could not be set up (then ``steps`` is empty).
        initial_hash / final_hash: hash of the graded databases (agent and user) before and after.
        initial_db: the agent database after setup, as JSON (for grounding checks).
        empty_assertions / gold_assertions: each env assertion's result on the untouched initial state
            (a do-nothing run) and after the gold actions: True, False, or None when it raised.
    """

    steps: list[Step] = field(default_factory=list)
    init_error: str | None = None
    initial_hash: str | None = None
    final_hash: str | None = None
    initial_db: dict[str, Any] | None = None
    empty_assertions: list[bool | None] = field(default_factory=list)
    gold_assertions: list[bool | None] = field(default_factory=list)


Replayer = Callable[[dict[str, Any], list[dict[str, Any]]], Replay]


@dataclass
class TaskSet:
    """A set of tau2 tasks and everything needed to check them (see module docstring)."""

    source: str
    domain: str
    tasks: list[dict[str, Any]]
    task_file: str = "tasks.json"
    splits: dict[str, list[str]] | None = None
    split_file: str | None = "split_tasks.json"
    subset: bool = False
    db: dict[str, Any] | None = None
    user_db: dict[str, Any] | None = None
    documents: dict[str, str] = field(default_factory=dict)
    agent_tools: dict[str, ToolInfo] = field(default_factory=dict)
    user_tools: dict[str, ToolInfo] = field(default_factory=dict)
    helpers: dict[str, set[str]] = field(default_factory=dict)
    now: dt.datetime | None = None
    replayer: Replayer | None = None
    facts: Any = None
    rules: tuple = ()
    toolkit_class: Any = None
    taugen: bool = False
    requests: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    targets: tuple[tuple[str, str], ...] = ()
    inherited_world: bool = False
    documented: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    cache: dict[Any, Any] = field(default_factory=dict, repr=False)
    _replays: dict[int, Replay | None] = field(default_factory=dict, repr=False)
    _db_index: "DbIndex | None" = field(default=None, repr=False)

    def replay(self, task: dict[str, Any]) -> Replay | None:
        """The replay of ``task``'s gold actions (cached), or None without a replayer."""
        key = id(task)
        if key not in self._replays:
            self._replays[key] = self.replayer(task, actions(task)) if self.replayer else None
        return self._replays[key]

    @property
    def db_index(self) -> "DbIndex":
        if self._db_index is None:
            self._db_index = DbIndex([self.db or {}, self.user_db or {}])
        return self._db_index

    def tool(self, name: str, requestor: str = "assistant") -> ToolInfo | None:
        return (self.user_tools if requestor == "user" else self.agent_tools).get(name)

    def is_write(self, action: dict[str, Any]) -> bool:
        info = self.tool(action.get("name", ""), action.get("requestor") or "assistant")
        return info is not None and info.kind == "write"

    @property
    def policy_text(self) -> str:
        return "\n".join(self.documents.values())


@dataclass
class Defect:
    """One defect a check found (converted to a Finding by :func:`to_findings`).

    Attributes:
        kind: ``K1`` … ``K20``.
        severity: ``error`` | ``warning`` | ``info``.
        task: the task id, or None for a file-level defect.
        path: where in the task (``evaluation_criteria.actions[2].arguments.order_id``) or which file.
        message: one sentence a reviewer can act on.
        evidence: an excerpt of the data.
        rule: the rule that catches the kind.
    """

    kind: str
    severity: str
    task: str | None
    path: str
    message: str
    evidence: str = ""
    rule: str = ""


# ------------------------------------------------------------------------------------------ tasks


def actions(task: dict[str, Any]) -> list[dict[str, Any]]:
    return list(((task.get("evaluation_criteria") or {}).get("actions")) or [])


def criteria(task: dict[str, Any]) -> dict[str, Any]:
    return task.get("evaluation_criteria") or {}


def reward_basis(task: dict[str, Any]) -> list[str]:
    basis = criteria(task).get("reward_basis")
    return list(basis) if basis is not None else ["DB", "COMMUNICATE"]


def instructions(task: dict[str, Any]) -> dict[str, str]:
    """The scenario's fields as text: ``persona``, ``reason_for_call``, ``known_info``,
    ``unknown_info``, ``task_instructions`` (a plain-string scenario becomes ``task_instructions``)."""
    scenario = task.get("user_scenario") or {}
    raw = scenario.get("instructions")
    fields = {"persona": scenario.get("persona") or ""}
    if isinstance(raw, dict):
        for key in ("reason_for_call", "known_info", "unknown_info", "task_instructions"):
            fields[key] = raw.get(key) or ""
    else:
        fields["task_instructions"] = raw or ""
    return fields


def user_text(task: dict[str, Any]) -> str:
    """What the simulated user knows and wants (the scenario without ``unknown_info`` and persona)."""
    fields = instructions(task)
    return "\n".join(fields.get(k, "") for k in ("reason_for_call", "known_info", "task_instructions"))


def scenario_text(task: dict[str, Any]) -> str:
    """Every text a user or a solo agent is given about the task: scenario and ticket."""
    fields = instructions(task)
    return "\n".join([*(v for v in fields.values() if v), task.get("ticket") or ""])


def task_id(task: dict[str, Any]) -> str:
    return str(task.get("id"))


# ------------------------------------------------------------------------------------------ values


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """``(path, scalar)`` for every scalar inside a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return Decimal(str(value).replace(",", "")).quantize(Decimal("0.01"))
    except (InvalidOperation, ValueError):
        return None


_NUMBER = re.compile(r"(?<![\w.#-])\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?(?![\w])")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_RE = "|".join(m.capitalize() + "|" + m.capitalize()[:3] + r"\.?" for m in _MONTHS)
_DATE_MD = re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b")
_DATE_DM = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})(?:,?\s+(\d{{4}}))?\b")
_DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DATE_US = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")


@dataclass(frozen=True)
class DateRef:
    """A calendar date written in text; ``year`` may be unknown."""

    month: int
    day: int
    year: int | None
    text: str

    def matches(self, other: dt.date) -> bool:
        return self.month == other.month and self.day == other.day and (self.year is None or self.year == other.year)


def _month(name: str) -> int:
    key = name.lower().rstrip(".")
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(key[:3]))


def dates_in(text: str) -> list[DateRef]:
    """Calendar dates in ``text``: ISO, ``May 12[, 2024]``, ``12 May``, ``5/12/2024``."""
    found = []
    for match in _DATE_ISO.finditer(text):
        year, month, day = (int(g) for g in match.groups())
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.append(DateRef(month, day, year, match.group(0)))
    for match in _DATE_MD.finditer(text):
        day = int(match.group(2))
        if 1 <= day <= 31:
            found.append(DateRef(_month(match.group(1)), day, int(match.group(3)) if match.group(3) else None,
                                 match.group(0)))
    for match in _DATE_DM.finditer(text):
        day = int(match.group(1))
        if 1 <= day <= 31:
            found.append(DateRef(_month(match.group(2)), day, int(match.group(3)) if match.group(3) else None,
                                 match.group(0)))
    for match in _DATE_US.finditer(text):
        month, day, year = (int(g) for g in match.groups())
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.append(DateRef(month, day, year, match.group(0)))
    return found


def date_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for pattern in (_DATE_ISO, _DATE_MD, _DATE_DM, _DATE_US):
        spans += [m.span() for m in pattern.finditer(text)]
    return spans


def numbers_in(text: str, skip_dates: bool = True) -> list[tuple[Decimal, str]]:
    """Numbers written in ``text`` (``$1,126.04`` → 1126.04) with their text, dates left out."""
    spans = date_spans(text) if skip_dates else []
    found = []
    for match in _NUMBER.finditer(text):
        if any(start <= match.start() < end for start, end in spans):
            continue
        number = decimal(match.group(1) + (match.group(2) or ""))
        if number is not None:
            found.append((number, match.group(0)))
    return found


def parse_date(value: Any) -> dt.date | None:
    """A date from an ISO date or datetime string (None otherwise)."""
    if not isinstance(value, str) or not _DATE_ISO.match(value[:10]) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def mentions(text: str, value: Any) -> bool:
    """Whether ``text`` states ``value``: a string as a whole word (case-insensitive), a number in any
    plain or money form, a date in any written form."""
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, (int, float)) or (isinstance(value, str) and re.fullmatch(r"-?\d+(\.\d+)?", value.strip())):
        number = decimal(value)
        if number is None:
            return False
        wanted = {abs(number)}
        return any(found in wanted for found, _ in numbers_in(text, skip_dates=False))
    if not isinstance(value, str) or not value.strip():
        return False
    day = parse_date(value)
    if day is not None and len(value) <= 25:
        return any(ref.matches(day) for ref in dates_in(text))
    return _word_pattern(value.strip().lower()).search(text.lower()) is not None


@functools.lru_cache(maxsize=16384)
def _word_pattern(word: str) -> re.Pattern[str]:
    """``word`` as a whole word (not inside a longer word), compiled once: validators ask about the same
    values of thousands of records, more than ``re``'s own cache of 512 patterns holds."""
    return re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])")


def looks_like_id(value: Any) -> bool:
    """An identifier rather than a word or an amount: letters and digits mixed (``#W6390527``,
    ``emma_kim_9957``, ``TX-571132FD``, ``L1002``) or a long digit string (``8538875209``)."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    if not text or " " in text or len(text) < 4:
        return False
    if re.fullmatch(r"\d{7,}", text):
        return True
    return bool(re.search(r"\d", text) and re.search(r"[A-Za-z]", text)) and not re.fullmatch(
        r"\d+(\.\d+)?\s*[A-Za-z]{1,3}", text) and parse_date(text) is None


def is_free_text(value: Any) -> bool:
    """A sentence (a summary, a reason in words) rather than a value that must be known exactly."""
    return isinstance(value, str) and len(value.split()) >= 4


def near_miss(found: str, known: str) -> bool:
    """``found`` differs from ``known`` by one substituted, missing or extra character, or one swap of
    neighbours: the signature of a typo or a value copied from a neighbouring record."""
    if found == known or len(found) < 2:
        return False
    if abs(len(found) - len(known)) == 1:
        longer, shorter = (found, known) if len(found) > len(known) else (known, found)
        return len(shorter) >= 4 and any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))
    if len(found) != len(known):
        return False
    diffs = [i for i, (a, b) in enumerate(zip(found, known)) if a != b]
    if len(diffs) == 1:
        return True
    return len(diffs) == 2 and diffs[1] == diffs[0] + 1 and found[diffs[0]] == known[diffs[1]] \
        and found[diffs[1]] == known[diffs[0]]


def amount_near_miss(found: Decimal, known: Decimal) -> bool:
    """``found`` is ``known`` mistyped at the same magnitude: written to the cent, the two amounts have
    the same number of digits and differ by one changed digit or one swap of neighbouring digits
    (``1039.34`` for ``1093.34``, ``481.05`` for ``481.50``, ``$126`` for ``$127``).

    A dropped or added digit is not a near miss of an amount: it changes the magnitude tenfold
    (``1628`` against ``168``), so the written amount is another amount (a total, a sum), not a typo
    of this one. Whole numbers below 10 are never near misses (any digit is one change from any other).
    """
    found, known = abs(found), abs(known)
    if found == known or (found < 10 and found == found.to_integral_value()):
        return False
    written, target = f"{found:.2f}", f"{known:.2f}"
    return len(written) == len(target) and near_miss(written, target)


def closest(value: str, pool: Iterable[str]) -> str | None:
    """A near miss of ``value`` in ``pool`` (see :func:`near_miss`), if any."""
    return next((candidate for candidate in pool if near_miss(value, candidate)), None)


# ------------------------------------------------------------------------------------------ database index


class DbIndex:
    """Every scalar of a database by value, with the key it sits under and its record path.

    Used to resolve ids and attributes without knowing the schema: ``where("#W6390527")`` lists the
    places the value occurs, ``records_with(key, value)`` the dict records holding it.
    """

    def __init__(self, databases: list[dict[str, Any]]) -> None:
        self.places: dict[str, list[tuple[str, str]]] = {}
        self.records: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.paths: dict[int, str] = {}
        self.children: dict[str, list[dict[str, Any]]] = {}
        self.keys: set[str] = set()
        self.numbers: set[Decimal] = set()
        self.by_value: dict[str, list[dict[str, Any]]] = {}
        self.top_of: dict[int, dict[str, Any]] = {}
        self.own: dict[str, dict[str, Any]] = {}
        self._children_by_path: dict[str, dict[str, dict[str, Any]]] = {}
        for database in databases:
            self._walk(database, "", depth=0)

    def _walk(self, value: Any, path: str, key: str = "", depth: int = 0, top: dict[str, Any] | None = None) -> None:
        if isinstance(value, dict):
            if depth == 2 or (depth == 1 and not _is_table(value)):
                top = value
                own = key if depth == 2 and not path.endswith("]") else next(
                    (str(v) for k, v in value.items() if k.endswith("_id") and isinstance(v, (str, int))), key)
                self.own.setdefault(own, value)
            if path:
                self.paths[id(value)] = path
                self.children.setdefault(parent_path(path), []).append(value)
            if top is not None:
                self.top_of[id(value)] = top
            for child_key, child in value.items():
                self.keys.add(str(child_key))
                self.places.setdefault(str(child_key), []).append(("<key>", path))
                if not isinstance(child, (dict, list)) and child is not None:
                    self.records.setdefault((str(child_key), str(child)), []).append(value)
                    self.by_value.setdefault(str(child), []).append(value)
                self._walk(child, f"{path}.{child_key}" if path else str(child_key), str(child_key), depth + 1, top)
        elif isinstance(value, list):
            for index, child in enumerate(value):
                if isinstance(child, dict):
                    self._walk(child, f"{path}[{index}]", key, depth + 1 if depth == 1 else depth + 1, top)
                else:
                    if top is not None and child is not None and not isinstance(child, (dict, list)):
                        self.by_value.setdefault(str(child), []).append(top)
                    self._walk(child, f"{path}[{index}]", key, depth + 1, top)
        elif value is not None:
            self.places.setdefault(str(value), []).append((key, path))
            number = decimal(value) if isinstance(value, (int, float)) else None
            if number is not None:
                self.numbers.add(abs(number))

    def where(self, value: Any) -> list[tuple[str, str]]:
        return self.places.get(str(value), [])

    def has(self, value: Any) -> bool:
        return str(value) in self.places

    def records_with(self, key: str, value: Any) -> list[dict[str, Any]]:
        return self.records.get((key, str(value)), [])

    def values_under(self, key: str) -> list[str]:
        """Every value stored under ``key`` (or used as a dict key of a table keyed by it)."""
        return [value for value, places in self.places.items() if any(k == key for k, _ in places)]

    def path_of(self, record: dict[str, Any]) -> str | None:
        return self.paths.get(id(record))

    def siblings(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """The records in the same container as ``record`` (a table, or a list inside a record)."""
        path = self.path_of(record)
        return self.children.get(parent_path(path), []) if path else []

    def children_by_path(self, parent: str) -> dict[str, dict[str, Any]]:
        """The records directly under ``parent`` by their own path (a record without one by its object id),
        records of one path merged in the order met; made once per container."""
        known = self._children_by_path.get(parent)
        if known is None:
            known = {}
            for child in self.children.get(parent, []):
                key = self.path_of(child) or str(id(child))
                known[key] = {**known[key], **child} if key in known else child
            self._children_by_path[parent] = known
        return known


def _is_table(value: dict[str, Any]) -> bool:
    """A dict of records (``{id: {...}}``) rather than one record."""
    return bool(value) and all(isinstance(v, dict) for v in value.values())


def parent_path(path: str) -> str:
    """``orders.#W1.items[2]`` → ``orders.#W1.items``; ``transactions.TX-1`` → ``transactions``."""
    if path.endswith("]"):
        return path[: path.rindex("[")]
    return path.rsplit(".", 1)[0] if "." in path else ""


class MultiIndex:
    """Several :class:`DbIndex` read as one (the shared database plus one task's own records)."""

    def __init__(self, parts: list[DbIndex]) -> None:
        self.parts = parts

    def has(self, value: Any) -> bool:
        return any(part.has(value) for part in self.parts)

    def where(self, value: Any) -> list[tuple[str, str]]:
        return [place for part in self.parts for place in part.where(value)]

    def records_with(self, key: str, value: Any) -> list[dict[str, Any]]:
        return [record for part in self.parts for record in part.records_with(key, value)]

    def values_under(self, key: str) -> list[str]:
        return [value for part in self.parts for value in part.values_under(key)]

    def path_of(self, record: dict[str, Any]) -> str | None:
        return next((path for part in self.parts if (path := part.path_of(record))), None)

    def siblings(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Records in the same container; a task's patched record is merged over the shared one of that path
        (its keys win). The records returned are shared between calls: read them, never change them."""
        path = self.path_of(record)
        if not path:
            return []
        parent = parent_path(path)
        maps = [known for part in self.parts if (known := part.children_by_path(parent))]
        if len(maps) == 1:
            return list(maps[0].values())
        found: dict[str, dict[str, Any]] = {}
        for known in maps:
            for key, sibling in known.items():
                found[key] = {**found[key], **sibling} if key in found else sibling
        return list(found.values())

    def containing(self, value: Any) -> list[dict[str, Any]]:
        """Top-level records holding ``value`` anywhere."""
        found = []
        for part in self.parts:
            for record in part.by_value.get(str(value), []):
                found.append(part.top_of.get(id(record), record))
        return found

    def owned(self, value: Any) -> dict[str, Any] | None:
        """The top-level record whose own id is ``value``."""
        return next((part.own[str(value)] for part in self.parts if str(value) in part.own), None)

    @property
    def keys(self) -> set[str]:
        return set().union(*(part.keys for part in self.parts))

    @property
    def numbers(self) -> set[Decimal]:
        return set().union(*(part.numbers for part in self.parts))


def task_index(taskset: TaskSet, task: dict[str, Any]) -> MultiIndex:
    """The databases a task starts from: the shared ones plus its ``initialization_data`` patches and,
    when initialization actions ran, the database they produced (cached per task)."""
    key = ("index", id(task))
    if key not in taskset.cache:
        data = ((task.get("initial_state") or {}).get("initialization_data") or {})
        extra = [part for part in (data.get("agent_data"), data.get("user_data")) if isinstance(part, dict)]
        replay = taskset.replay(task)
        if replay is not None and replay.initial_db:
            extra.append(replay.initial_db)
        taskset.cache[key] = MultiIndex([taskset.db_index, DbIndex(extra)] if extra else [taskset.db_index])
    return taskset.cache[key]


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_PHONE = re.compile(r"\+?\d[\d\s().-]{6,}\d")
_NAME = re.compile(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b")


def anchors(taskset: TaskSet, task: dict[str, Any]) -> list[dict[str, Any]]:
    """Database records the user can identify from what the scenario states: a stated id, email or phone
    number, or a first and last name held by one record."""
    index = task_index(taskset, task)
    text = user_text(task) + "\n" + (task.get("ticket") or "")
    values = {token.strip(".,;:()'\"") for token in text.split()}
    values = {v for v in values if looks_like_id(v)} | set(_EMAIL.findall(text))
    values |= {m.group(0).strip() for m in _PHONE.finditer(text)}
    found: dict[int, dict[str, Any]] = {}
    for value in values:
        for record in index.containing(value):
            found[id(record)] = record
    for first, last in _NAME.findall(text):
        for record in index.records_with("first_name", first):
            if record.get("last_name") == last:
                for top in index.containing(first):
                    if any(v == last for _, v in leaves(top)):
                        found[id(top)] = top
    return list(found.values())


def reachable(taskset: TaskSet, task: dict[str, Any], depth: int = 3) -> set[str]:
    """Every value an agent can reach by lookups from what the user states: the anchors' records, the
    records whose own id they hold (to ``depth`` hops), and the records that refer to an anchor's own id
    (an account's transactions, a user's orders) (cached per task)."""
    key = ("reachable", id(task))
    if key in taskset.cache:
        return taskset.cache[key]
    if taskset.db is None:
        taskset.cache[key] = set()
        return set()
    index = task_index(taskset, task)
    frontier = anchors(taskset, task)
    seen: dict[int, dict[str, Any]] = {id(r): r for r in frontier}
    for record in list(frontier):
        own = [v for k, v in record.items() if isinstance(v, (str, int)) and (k.endswith("_id") or k == "id")]
        for value in own:
            for referring in index.containing(value):
                seen.setdefault(id(referring), referring)
    frontier = list(seen.values())
    for _ in range(depth):
        following = []
        for record in frontier:
            for _, value in leaves(record):
                if isinstance(value, (str, int)) and not isinstance(value, bool):
                    target = index.owned(value)
                    if target is not None and id(target) not in seen:
                        seen[id(target)] = target
                        following.append(target)
        frontier = following
    values = pool(*seen.values())
    taskset.cache[key] = values
    return values


def free_reads(taskset: TaskSet, task: dict[str, Any]) -> list[Any]:
    """Outputs of the agent's read tools that take no argument (a listing of every product type or of every
    airport): facts any agent can look up at any time (replayed once per task set, on the
    first task's initial state)."""
    key = ("free_reads",)
    if key not in taskset.cache:
        calls = [{"name": name, "requestor": "assistant", "arguments": {}} for name, info in
                 sorted(taskset.agent_tools.items()) if info.kind == "read" and not info.required]
        replay = taskset.replayer(task, calls) if taskset.replayer is not None and calls else None
        taskset.cache[key] = [s.output for s in replay.steps if s.error is None] if replay and not replay.init_error else []
    return taskset.cache[key]


def pool(*values: Any) -> set[str]:
    """Every scalar (as text; numbers also as cents) and every dict key inside ``values``."""
    found: set[str] = set()
    for value in values:
        for path, leaf in leaves(value):
            if leaf is None or isinstance(leaf, bool):
                continue
            found.add(str(leaf))
            number = decimal(leaf) if isinstance(leaf, (int, float)) else None
            if number is not None:
                found.add(str(abs(number)))
        for key in _dict_keys(value):
            found.add(key)
    return found


def _dict_keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _dict_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _dict_keys(item)


def outputs_before(replay: Replay | None, index: int, actor: str | None = None) -> list[Any]:
    """Outputs of the successful steps before ``index`` (of one actor's tools when ``actor`` is given)."""
    if replay is None:
        return []
    return [step.output for step in replay.steps[:index] if step.error is None
            and (actor is None or (step.action.get("requestor") or "assistant") == actor)]


def history_calls(task: dict[str, Any]) -> list[Any]:
    """Tool calls and tool results already in the task's message history."""
    history = ((task.get("initial_state") or {}).get("message_history")) or []
    found = []
    for message in history:
        for call in message.get("tool_calls") or []:
            found.append(call.get("arguments"))
        if message.get("role") == "tool":
            try:
                found.append(json.loads(message.get("content") or "null"))
            except json.JSONDecodeError:
                found.append(message.get("content"))
        elif message.get("content"):
            found.append(message.get("content"))
    return found


def scripted_try(taskset: TaskSet, task: dict[str, Any], index: int) -> str | None:
    """Why gold step ``index`` that fails (a tool error, or an id the database lacks) is the scenario's own
    wrong try rather than a defect, in words; None when it is not.

    tau2's authors script a user who first gives a wrong value ("say that it is 98178 first (common
    mistake), then correct yourself"; "provide 9502126 first"; two emails, one of them unknown) and copy
    the failing lookup into the gold, which then goes on. Such a step is deliberate, as a taugen task's
    ``annotations`` entry would declare it (defect-kinds.md K5: "deliberate invalid references need an
    annotation with a reason"), and in a foreign set the scenario text is where that reason is written.
    It counts as scripted when (1) the set is not a taugen bundle (a bundle must annotate), (2) the step
    is a read (a write that fails leaves the graded database wrong: never excused), (3) one of its
    argument values is stated in the scenario (:func:`mentions`, an order number's ``#`` ignored) and is
    a wrong value, not a right one given to the wrong tool: the initial database lacks it, or no later
    successful gold step uses it again (tau2 retail 21 looks item ids up as product ids, then writes them:
    not excused; 39's user gives the new zip code the profile does not hold yet, then has it written), and
    (4) a later read of the gold succeeds on replay (the gold recovers from the wrong try). Never raises.
    """
    if taskset.taugen:
        return None
    gold = actions(task)
    if not 0 <= index < len(gold):
        return None
    action = gold[index]
    info = taskset.tool(action.get("name", ""), action.get("requestor") or "assistant")
    replay = taskset.replay(task)
    if info is None or info.kind != "read" or replay is None or replay.init_error is not None:
        return None
    text = scenario_text(task)
    stated = [value for _, value in leaves(action.get("arguments") or {})
              if isinstance(value, (str, int)) and not isinstance(value, bool)
              and mentions(text, str(value).lstrip("#") if isinstance(value, str) else value)]
    reused = {str(value) for step in replay.steps[index + 1:] if step.error is None
              for _, value in leaves(step.action.get("arguments") or {})}
    wrong = [value for value in stated if str(value) not in reused or not taskset.db_index.has(value)]
    if not wrong:
        return None
    for step in replay.steps[index + 1:]:
        later = taskset.tool(step.action.get("name", ""), step.action.get("requestor") or "assistant")
        if step.error is None and later is not None and later.kind == "read":
            return (f"the scenario states {wrong[0]!r} and the gold recovers with a later "
                    f"{step.action.get('name')}: a scripted wrong try")
    return None


# ------------------------------------------------------------------------------------------ findings


def annotations(task: dict[str, Any]) -> list[dict[str, Any]]:
    """The task's ``annotations`` list (unknown task keys are ignored by tau2); null means none."""
    raw = task.get("annotations")
    return [a for a in raw if isinstance(a, dict)] if isinstance(raw, list) else []


def _annotated(defect: Defect, notes: list[dict[str, Any]]) -> dict[str, Any] | None:
    for note in notes:
        if note.get("kind") != defect.kind or not str(note.get("reason") or "").strip():
            continue
        path = str(note.get("path") or "")
        if not path or defect.path == path or defect.path.startswith(path + ".") or defect.path.startswith(path + "["):
            return note
    return None


def to_findings(check: str, defects: Iterable[Defect], tasks: Iterable[dict[str, Any]]) -> list[Finding]:
    """Findings from defects, with ``code`` = the kind; a defect that a task annotation of the same kind
    (and path, when given) accepts with a reason becomes ``info`` and says so."""
    by_id = {task_id(task): annotations(task) for task in tasks}
    findings = []
    for defect in defects:
        severity, message = defect.severity, defect.message
        note = _annotated(defect, by_id.get(defect.task or "", [])) if defect.task is not None else None
        if note is not None:
            severity, message = "info", f"{message} (accepted by annotation: {note['reason']})"
        evidence = f"{defect.path}: {defect.evidence}" if defect.path and defect.evidence else defect.path or defect.evidence
        findings.append(Finding(check=check, code=defect.kind, severity=severity, subject=defect.task or defect.path,
                                message=message, evidence=evidence[:400], rule=defect.rule))
    return findings


def excerpt(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
