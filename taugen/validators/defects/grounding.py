"""K4 (assertion or communicate_info disagrees with the gold), K5 (gold arguments contradict the
database) and K15 (wrong ordering for superlatives, with K14 for superlatives that tie).

K4: every amount, date and id written in ``nl_assertions`` and ``communicate_info`` must equal a value
of the gold arguments, the gold tool outputs, the database records they reach, or the scenario, or be
derived from them (a sum of up to three amounts, a multiple, the length of a returned list). A date
written with a year must name that day; one written without ("February 27") names a known day within a year
of the world's ``now``, never an older one that shares its month and day (an account opened years ago). A value that
differs from a known one by one digit or a swap (``May 12`` for ``May 22``; an amount at the same magnitude,
cents included: ``1039.34`` for ``1093.34``, never a dropped digit such as ``1628`` for ``168``) or that
belongs to a sibling task is an error; a value found nowhere is a warning when the gold was replayed (the pool is complete),
and is not judged otherwise.

K5: every id argument of a gold action (``*_id``, ``*_ids``) resolves in the initial database (with the
task's initialization data), or was created by an earlier gold step; a near miss of an existing id is
named. A record given as or inside the arguments (an identity check's customer, date of birth and SSN
digits; a passenger, an address) that matches a database record on two identifying values must agree
with it on the others. The arguments themselves are compared only with the record they name by its own
id (the ``customer_id`` of an identity check): a search's origin, destination and date are a query, and a write
that creates a record (a new booking's cabin) describes a record that does not exist yet, so neither is
compared with records that merely share two values. A record inside the arguments (a passenger) is
resolved among the records of the person the task acts for first (their profile, saved passengers,
reservations, orders): a name shared with a stranger elsewhere in the database is no reference. A
difference on a record the write itself modifies, to a value the scenario states, is the requested
update (a passenger renamed at the user's request). An id a write acts on must belong to the person the task acts for (the
``customer_id`` / ``user_id`` values of the gold arguments): an account or transaction of another
customer is an id copied from the wrong profile. A deliberately invalid reference needs a task
annotation ``{"kind": "K5", "reason": ..., "path": ...}``; in a foreign set, a lookup of an id the
scenario tells the user to give first, after which the gold recovers, is that reason written in the
scenario (:func:`~taugen.validators.defects.base.scripted_try`: tau2 retail 46's "provide 9502126
first"), reported as info.

K15: a scenario that says "newest / latest / most recent / oldest / earliest / first / cheapest / most
expensive / largest / smallest / later / earlier / larger / smaller" picks a record by an explicit sort
key (a date; an amount by its size, whatever its sign); the gold's target is recomputed among its
siblings (same table, same owner, same kind, and the values the scenario states) with that key. A tie
has no answer: that is reported as K14 (the tie-break field does not differ).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from decimal import Decimal
from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import (
    DateRef, Defect, MultiIndex, TaskSet, actions, amount_near_miss, closest, criteria, dates_in, decimal, excerpt,
    leaves, looks_like_id, mentions, near_miss, numbers_in, parse_date, pool, reachable, scenario_text, task_id,
    task_index, to_findings, free_reads, scripted_try,
)
from taugen.validators.defects.sources import taskset_for_view
from taugen.findings import Finding
from taugen.validators.registry import validator

CHECK = "defect_grounding"
RULE_K4 = ("every date, amount and id in nl_assertions and communicate_info must equal a value from gold arguments, "
           "gold tool outputs or the DB; flag near-misses")
RULE_K5 = ("resolve every id and attribute against the initial DB plus ids created by earlier gold steps; deliberate "
           "invalid references need an annotation with a reason")
RULE_K15 = "recompute 'newest / cheapest / first' with an explicit sort key and tie rule"
RULE_K14 = "tie-break fields exist and differ"
_ID_KEYS = ("_id", "_ids")


# ------------------------------------------------------------------------------------------ K4


YEARLESS_REACH = dt.timedelta(days=366)
"""How far from the world's ``now`` a date written without its year can lie: "February 27" in an
assertion names the recent February 27, never one three years back (an account's opening day)."""


class _Universe:
    """What a task's assertions may quote: numbers (with bounded sums and multiples), dates, ids.

    Dates are kept whole (``days``), with the scenario's dates written without a year (``stated``, as
    month and day): a written date names a known day when it has the same year, or, without a year, when
    that day lies within :data:`YEARLESS_REACH` of ``now`` (any year when ``now`` is unknown)."""

    def __init__(self, values: list[Any], text: str, index: MultiIndex | None, now: dt.date | None = None) -> None:
        self.strings = pool(*values)
        self.money: set[Decimal] = set()
        self.days: set[dt.date] = set()
        self.stated: set[tuple[int, int]] = set()
        self.now = now
        self.counts: set[Decimal] = set()
        for value in values:
            self._collect(value, index)
        for number, _ in numbers_in(text):
            self.money.add(number)
        for ref in dates_in(text):
            self._state(ref)
        base = sorted(self.money)[:80]
        self.derived = set(self.money) | self.counts
        for size in (2, 3):
            if len(base) > (60 if size == 2 else 25):
                continue
            for combo in itertools.combinations(base, size):
                self.derived.add(sum(combo))
        for number in base:
            for factor in range(2, 11):
                self.derived.add(number * factor)
        for a, b in itertools.permutations(base[:40], 2):
            if a > b:
                self.derived.add(a - b)

    def _state(self, ref: DateRef) -> None:
        """A date the scenario writes: a whole day with its year, else a month and day."""
        try:
            self.days.add(dt.date(ref.year, ref.month, ref.day))
        except (TypeError, ValueError):  # no year (or no such day): the month and day are what it states
            self.stated.add((ref.month, ref.day))

    def names(self, ref: DateRef) -> bool:
        """The written date ``ref`` names a day the task knows (see the class docstring)."""
        if (ref.month, ref.day) in self.stated:
            return True
        return any(ref.matches(day) and (ref.year is not None or self.now is None
                                         or abs(day - self.now) <= YEARLESS_REACH) for day in self.days)

    @property
    def dates(self) -> set[tuple[int, int]]:
        """Month and day of every known date (near misses are looked for among them)."""
        return {(day.month, day.day) for day in self.days} | self.stated

    def _collect(self, value: Any, index: MultiIndex | None) -> None:
        if isinstance(value, list):
            self.counts.add(Decimal(len(value)))
        for path, leaf in leaves(value):
            number = decimal(leaf) if isinstance(leaf, (int, float)) and not isinstance(leaf, bool) else None
            if number is not None:
                self.money.add(abs(number))
            elif isinstance(leaf, str):
                day = parse_date(leaf)
                if day is not None:
                    self.days.add(day)
                for found, _ in numbers_in(leaf):
                    self.money.add(found)
                if index is not None and looks_like_id(leaf):
                    for record in index.records_with(path.split(".")[-1].split("[")[0], leaf)[:5]:
                        for _, inner in leaves(record):
                            if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                                self.money.add(abs(decimal(inner)))
                            elif isinstance(inner, str):
                                self.strings.add(inner)
                                day = parse_date(inner)
                                if day is not None:
                                    self.days.add(day)
        for container in _containers(value):
            self.counts.add(Decimal(len(container)))
            records = list(container.values()) if isinstance(container, dict) else container
            if records and all(isinstance(r, dict) for r in records):
                for flag in {k for r in records for k, v in r.items() if isinstance(v, bool)}:
                    self.counts.add(Decimal(sum(1 for r in records if r.get(flag) is True)))


def _day(moment: dt.date | None) -> dt.date | None:
    """The calendar day of the world's ``now`` (a datetime or a date; None stays None)."""
    return moment.date() if isinstance(moment, dt.datetime) else moment


def _containers(value: Any):
    """Every list and dict inside a JSON value (their sizes are countable answers)."""
    if isinstance(value, (dict, list)):
        yield value
        for item in (value.values() if isinstance(value, dict) else value):
            yield from _containers(item)


def _task_values(taskset: TaskSet, task: dict[str, Any]) -> list[Any]:
    replay = taskset.replay(task)
    values: list[Any] = [a.get("arguments") for a in actions(task)]
    if replay is not None:
        values += [step.output for step in replay.steps if step.error is None]
    return values


def _group_sums(task: dict[str, Any], values: list[Any]) -> set[Decimal]:
    """Totals over the records a gold action names together: for ``item_ids=[a, b]``, the sum of every
    numeric field of the ``item_id`` a and b records in the outputs (a refund of the items returned)."""
    records: dict[str, list[dict[str, Any]]] = {}
    for value in values:
        stack = [value]
        while stack:
            current = stack.pop()
            if isinstance(current, dict):
                for key, item in current.items():
                    if key.endswith("_id") and isinstance(item, str):
                        records.setdefault(f"{key}={item}", []).append(current)
                    stack.append(item)
            elif isinstance(current, list):
                stack.extend(current)
    sums: set[Decimal] = set()
    for action in actions(task):
        for key, listed in (action.get("arguments") or {}).items():
            if not (key.endswith("_ids") and isinstance(listed, list) and listed):
                continue
            single = key[:-1]
            chosen = [records.get(f"{single}={item}", [None])[0] for item in listed]
            if any(c is None for c in chosen):
                continue
            for field in {k for c in chosen for k, v in c.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}:
                total = sum((decimal(c.get(field)) or Decimal(0)) for c in chosen)
                sums.add(abs(total))
    return sums


def quotable(taskset: TaskSet, task: dict[str, Any]) -> _Universe:
    """What ``task``'s assertions and ``communicate_info`` may quote without a K4 finding: the numbers,
    dates and ids of its gold arguments, their replayed outputs, its scenario and the records it reaches,
    with bounded sums, multiples, differences and group totals (``universe.derived``, Decimals).

    The one definition of "derived from the task's values": K4 reads it, and the K4 mutation operators
    read it too, so a planted amount is a defect only when it lies outside it."""
    universe = _Universe(_task_values(taskset, task), scenario_text(task),
                         task_index(taskset, task) if taskset.db is not None else None,
                         _day(taskset.now))
    universe.strings |= reachable(taskset, task) | pool(free_reads(taskset, task))
    universe.derived |= _group_sums(task, _task_values(taskset, task))
    return universe


def k4_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    sibling_values: dict[str, set[str]] = {}
    for task in taskset.tasks:
        sibling_values[task_id(task)] = pool(*[a.get("arguments") for a in actions(task)],
                                             criteria(task).get("communicate_info") or [])
    for task in taskset.tasks:
        identifier = task_id(task)
        data = criteria(task)
        texts = [(f"evaluation_criteria.communicate_info[{i}]", str(t)) for i, t in enumerate(data.get("communicate_info") or [])]
        texts += [(f"evaluation_criteria.nl_assertions[{i}]", str(t)) for i, t in enumerate(data.get("nl_assertions") or [])]
        if not texts:
            continue
        replay = taskset.replay(task)
        complete = replay is not None and replay.init_error is None
        universe = quotable(taskset, task)
        others = {other: values for other, values in sibling_values.items() if other != identifier}
        for path, text in texts:
            for ref in dates_in(text):
                if universe.names(ref):
                    continue
                near = min(((m, d) for m, d in universe.dates if m == ref.month and near_miss(f"{ref.day:02d}", f"{d:02d}")),
                           key=lambda date: (abs(date[1] - ref.day), date[1]), default=None)
                if near:
                    defects.append(Defect("K4", "error", identifier, path,
                                          f"date {ref.text!r} is not a date of the gold, but {near[0]:02d}-{near[1]:02d} is "
                                          "(one digit apart)", evidence=text, rule=RULE_K4))
                elif complete:
                    defects.append(Defect("K4", "warning", identifier, path,
                                          f"date {ref.text!r} appears in no gold argument, output or record",
                                          evidence=text, rule=RULE_K4))
            for number, written in numbers_in(text):
                bare = written.strip("$").replace(",", "")
                if number in universe.derived or (number < 3 and "$" not in written) or bare in universe.strings:
                    continue
                if re.fullmatch(r"\d{7,}", bare):
                    near = closest(bare, [v for v in universe.strings if v.isdigit()])
                    if near or complete:
                        defects.append(Defect("K4", "error" if near else "warning", identifier, path,
                                              f"number {bare!r} is no id or value of the gold or the records it reaches"
                                              + (f"; {near!r} is (a near miss)" if near else ""), evidence=text,
                                              rule=RULE_K4))
                    continue
                digits = str(number)
                near = next((str(k) for k in sorted(universe.money) if amount_near_miss(number, k)), None)
                amount_like = "." in bare or number >= 100
                copied = next((other for other, values in others.items()
                               if amount_like and (digits in values or bare in values)), None)
                if near:
                    defects.append(Defect("K4", "error", identifier, path,
                                          f"{written!r} is not a gold value but {near} is (a near miss)", evidence=text,
                                          rule=RULE_K4))
                elif copied and complete:
                    defects.append(Defect("K4", "error", identifier, path,
                                          f"{written!r} is no value of this task's gold but is one of task {copied}'s "
                                          "(copied from a sibling task?)", evidence=text, rule=RULE_K4))
                elif complete:
                    defects.append(Defect("K4", "warning", identifier, path,
                                          f"{written!r} is neither a gold value nor derived from gold values",
                                          evidence=text, rule=RULE_K4))
            for token in re.findall(r"#?[A-Za-z0-9][A-Za-z0-9_-]{3,}", text):
                if not looks_like_id(token) or token in universe.strings or re.fullmatch(r"\d+", token):
                    continue
                near = closest(token, universe.strings)
                if near:
                    defects.append(Defect("K4", "error", identifier, path,
                                          f"id {token!r} is not in the gold but {near!r} is (a near miss)", evidence=text,
                                          rule=RULE_K4))
                elif complete:
                    defects.append(Defect("K4", "warning", identifier, path, f"id {token!r} appears nowhere in the gold",
                                          evidence=text, rule=RULE_K4))
    return defects


# ------------------------------------------------------------------------------------------ K5


def _created_ids(replay, index: int) -> set[str]:
    if replay is None:
        return set()
    return pool(*[step.output for step in replay.steps[:index] if step.error is None])


def k5_defects(taskset: TaskSet) -> tuple[list[Defect], set[tuple[str, int]]]:
    """K5 defects and the ``(task id, step)`` pairs they explain (a tool error there is not also K2)."""
    defects: list[Defect] = []
    explained: set[tuple[str, int]] = set()
    if taskset.db is None:
        return defects, explained
    for task in taskset.tasks:
        identifier = task_id(task)
        index = task_index(taskset, task)
        replay = taskset.replay(task)
        if (task.get("initial_state") or {}).get("initialization_actions") and (replay is None or replay.init_error):
            continue  # ids the initialization actions create are unknown without running them
        principals = _principals(task)
        scope = _scope(principals or _owners(task, index), index)
        stated = scenario_text(task)
        for position, action in enumerate(actions(task)):
            created = _created_ids(replay, position)
            arguments = action.get("arguments") or {}
            for path, value in leaves(arguments):
                key = path.split(".")[-1].split("[")[0]
                if not (key.endswith(_ID_KEYS) or key == "id") or not isinstance(value, (str, int)) or value == "":
                    continue
                if index.has(value) or str(value) in created:
                    continue
                pool_ = index.values_under(key) or []
                near = closest(str(value), pool_)
                scripted = scripted_try(taskset, task, position)
                defects.append(Defect("K5", "info" if scripted else "error", identifier,
                                      f"evaluation_criteria.actions[{position}].arguments.{path}",
                                      f"{action.get('name')} uses {key} {value!r}, which exists neither in the initial "
                                      "database nor in an earlier gold output"
                                      + (f"; {near!r} exists (a near miss)" if near else "")
                                      + (f" ({scripted})" if scripted else ""),
                                      evidence=str(value), rule=RULE_K5))
                explained.add((identifier, position))
            modified = ({str(v) for p, v in leaves(arguments) if _is_target_key(p) and isinstance(v, (str, int))}
                        if taskset.is_write(action) else set())
            for path, record in [("", arguments), *_nested_records(arguments)]:
                problem = (_attribute_conflict(record, index) if not path
                           else _nested_conflict(record, index, scope, modified, stated))
                if problem:
                    defects.append(Defect("K5", "error", identifier,
                                          f"evaluation_criteria.actions[{position}].arguments" + (f".{path}" if path else ""),
                                          problem, evidence=excerpt(record), rule=RULE_K5))
                    explained.add((identifier, position))
            if taskset.is_write(action):
                for path, problem in _foreign_owner(arguments, principals, index):
                    defects.append(Defect("K5", "error", identifier,
                                          f"evaluation_criteria.actions[{position}].arguments.{path}", problem,
                                          evidence=excerpt(arguments), rule=RULE_K5))
                    explained.add((identifier, position))
    return defects, explained


def _principals(task: dict[str, Any]) -> set[str]:
    """The owners a task acts for: every value of an owner key (``customer_id``, ``user_id`` …) given as a
    gold argument (the customer the agent looks up or verifies)."""
    return {str(value) for action in actions(task) for path, value in leaves(action.get("arguments") or {})
            if path.split(".")[-1].split("[")[0] in _PRINCIPAL_KEYS and isinstance(value, (str, int))}


def _owners(task: dict[str, Any], index: MultiIndex) -> set[str]:
    """The owners of the records the gold's id arguments name (the user of the reservation a gold
    update acts on): whom a task acts for when no argument names the person."""
    found = set()
    for action in actions(task):
        for path, value in leaves(action.get("arguments") or {}):
            key = path.split(".")[-1].split("[")[0]
            if key.endswith("_id") and isinstance(value, (str, int)):
                owner = _owner_of(value, key, index)
                if owner is not None:
                    found.add(owner[1])
    return found


def _owner_of(value: Any, key: str, index: MultiIndex) -> tuple[str, str] | None:
    """``(owner key, owner)`` of the record whose own id is ``value``: its owner field, or that of the
    record it belongs to (a transaction's account's customer)."""
    record = index.owned(value)
    if not isinstance(record, dict) or str(record.get(key, value)) != str(value):
        return None
    for hop in (record, *[index.owned(v) for k, v in record.items()
                          if k.endswith("_id") and k != key and isinstance(v, (str, int))]):
        if isinstance(hop, dict):
            owner = next(((k, str(hop[k])) for k in _PRINCIPAL_KEYS if isinstance(hop.get(k), (str, int))), None)
            if owner is not None:
                return owner
    return None


def _foreign_owner(arguments: dict[str, Any], principals: set[str], index: MultiIndex) -> list[tuple[str, str]]:
    """Id arguments of a write whose record belongs to someone other than the task's principals."""
    if not principals:
        return []
    found = []
    for path, value in leaves(arguments):
        key = path.split(".")[-1].split("[")[0]
        if not key.endswith("_id") or key in _PRINCIPAL_KEYS or not isinstance(value, (str, int)):
            continue
        owner = _owner_of(value, key, index)
        if owner is not None and owner[1] not in principals:
            found.append((path, f"{key} {value!r} belongs to {owner[0]} {owner[1]!r}, not to the task's "
                                f"{'/'.join(sorted(principals))} (an id from another profile)"))
    return found


def _nested_records(value: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else key
            if isinstance(item, dict):
                found.append((inner, item))
            found += _nested_records(item, inner)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            inner = f"{path}[{position}]"
            if isinstance(item, dict):
                found.append((inner, item))
            found += _nested_records(item, inner)
    return found


def _attribute_conflict(record: dict[str, Any], index: MultiIndex) -> str | None:
    """The top-level arguments of a gold action against the database record they name by its own id:
    that record shares two identifying strings with ``record`` (one of them its id) but disagrees on
    another of its fields (an identity check's date of birth against the customer's profile).

    A record that shares two values without being named by its id is not referenced: a search's
    origin, destination and date are a query, and a creating write (a new booking's cabin)
    describes a new record, which need not match the user's existing ones."""
    scalars = _scalars(record)
    if len(scalars) < 3:
        return None
    first_key, first_value = next(iter(scalars.items()))
    for candidate in index.records_with(first_key, first_value)[:50]:
        same, different = _compare(scalars, candidate)
        if len(same) >= 2 and different and any(_identifies(candidate, k, scalars[k], index) for k in same):
            return _conflict_message(scalars, same, different[0], candidate)
    return None


def _nested_conflict(record: dict[str, Any], index: MultiIndex, scope: list[tuple[str, dict[str, Any]]] | None,
                     modified: set[str], stated: str) -> str | None:
    """A record inside the arguments (a passenger, an address) against the record it refers to.

    With a principal (``scope`` is the list of ``(top-level id, record)`` of the person the task acts
    for), the reference is resolved there only: a record of the scope that shares two identifying
    strings and agrees on every field of ``record`` means no conflict, and so does one that lies in a
    record the write modifies (``modified`` ids) and differs only by values the scenario states (the
    update the user asks for); otherwise the one sharing most values and disagreeing on another is
    the contradiction. A
    record the scope does not know is new (a passenger never saved): a stranger with the same name
    elsewhere in the database is no reference. Without a principal, the whole database is searched."""
    scalars = _scalars(record)
    if len(scalars) < 3:
        return None
    if scope is None:
        first_key, first_value = next(iter(scalars.items()))
        candidates = [("", c) for c in index.records_with(first_key, first_value)[:50]]
    else:
        candidates = scope
    conflicts = []
    for top, candidate in candidates:
        same, different = _compare(scalars, candidate)
        if len(same) < 2:
            continue
        if len(same) == len(scalars):
            return None  # the record is this one
        if not different:
            continue  # a part of a record (a name without the birth date) decides nothing
        if top in modified and all(mentions(stated, scalars[k]) for k in different):
            return None  # the new version of a record the write changes, as the scenario asks
        conflicts.append((len(same), same, different, candidate))
    if not conflicts:
        return None
    _, same, different, candidate = max(conflicts, key=lambda c: c[0])
    return _conflict_message(scalars, same, different[0], candidate)


def _scalars(record: dict[str, Any]) -> dict[str, str]:
    return {k: v for k, v in record.items() if isinstance(v, str) and v}


def _compare(scalars: dict[str, str], candidate: dict[str, Any]) -> tuple[list[str], list[str]]:
    shared = [k for k in scalars if k in candidate and isinstance(candidate[k], str)]
    return [k for k in shared if candidate[k] == scalars[k]], [k for k in shared if candidate[k] != scalars[k]]


def _conflict_message(scalars: dict[str, str], same: list[str], key: str, candidate: dict[str, Any]) -> str:
    return (f"{key} {scalars[key]!r} contradicts the database record with "
            f"{', '.join(f'{k}={scalars[k]!r}' for k in same[:2])}, which has {key} {candidate[key]!r}")


def _identifies(candidate: dict[str, Any], key: str, value: str, index: MultiIndex) -> bool:
    """``key=value`` is ``candidate``'s own id (the record a reference by that id reaches), not an owner
    or a foreign key it shares with other records."""
    if not key.endswith("_id"):
        return False
    return index.owned(value) is candidate or next((k for k in candidate if k.endswith("_id")), None) == key


def _is_target_key(path: str) -> bool:
    """An id argument naming a record the action acts on (not the person it acts for)."""
    key = path.split(".")[-1].split("[")[0]
    return key.endswith(_ID_KEYS) and key not in _PRINCIPAL_KEYS


def _scope(principals: set[str], index: MultiIndex) -> list[tuple[str, dict[str, Any]]] | None:
    """The records of the persons a task acts for, as ``(top-level id, record)``: each principal's own
    record, the records that name the principal as owner (reservations, orders, accounts) and those its
    own record lists by id, with every record nested in them. A record with nested dicts is also given
    flattened (a user's ``name.first_name`` next to its ``dob``), so the person themself can be matched.
    None without a principal (the caller then searches the whole database)."""
    if not principals:
        return None
    tops: dict[int, tuple[str, dict[str, Any]]] = {}
    for principal in sorted(principals):
        own = index.owned(principal)
        if isinstance(own, dict):
            tops[id(own)] = (principal, own)
            for _, value in leaves(own):
                linked = index.owned(value) if isinstance(value, (str, int)) and str(value) != principal else None
                if isinstance(linked, dict):
                    tops[id(linked)] = (str(value), linked)
        for key in _PRINCIPAL_KEYS:
            for record in index.records_with(key, principal):
                own_id = next((str(v) for k, v in record.items() if k.endswith("_id") and isinstance(v, (str, int))), "")
                tops.setdefault(id(record), (own_id, record))
    scope: list[tuple[str, dict[str, Any]]] = []
    for top, record in tops.values():
        for inner in (record, *[r for _, r in _nested_records(record)]):
            scope.append((top, inner))
            children = [v for v in inner.values() if isinstance(v, dict)]
            if children:
                scope.append((top, {**{k: v for c in children for k, v in c.items()}, **inner}))
    return scope


# ------------------------------------------------------------------------------------------ K15

_ORDER_WORDS = {
    "newest": ("time", True), "latest": ("time", True), "most recent": ("time", True), "later": ("time", True),
    "last": ("time", True), "oldest": ("time", False), "earliest": ("time", False), "earlier": ("time", False),
    "first": ("time", False), "cheapest": ("price", False), "least expensive": ("price", False),
    "lowest price": ("price", False), "most expensive": ("price", True), "priciest": ("price", True),
    "highest price": ("price", True), "largest": ("price", True), "biggest": ("price", True),
    "larger": ("price", True), "bigger": ("price", True), "smallest": ("price", False), "smaller": ("price", False),
}
_ENTITY = r"(?:one|order|charge|transaction|purchase|reservation|flight|booking|item|payment|fee|card|bill|claim)s?"
_LOOSE = ("first", "last", "later", "earlier", "larger", "bigger", "smaller")
_ORDER_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, (w for w in _ORDER_WORDS if w not in _LOOSE)), key=len, reverse=True))
    + r"|(?:" + "|".join(_LOOSE) + r")(?=\)?\s+" + _ENTITY + r"\b))\b", re.I)
"""Order words; the comparatives and "first" / "last" only before an entity noun ("the later charge",
"the larger payment"), never in "first name", "last four digits" or "a larger limit"."""
_TIME_KEYS = re.compile(r"(date|time|_at$|_on$|created|posted|opened|timestamp)", re.I)
_PRICE_KEYS = re.compile(r"(price|amount|total|cost)", re.I)
_OWNER_KEYS = ("user_id", "customer_id", "account_id", "owner_id")
_PRINCIPAL_KEYS = ("user_id", "customer_id", "owner_id")
"""Keys naming the person a record belongs to (an account_id owns transactions but is itself owned)."""
_KIND_KEYS = ("kind", "type", "fee_type", "product_id", "description", "name", "status")


def _sort_value(record: dict[str, Any], key_class: str) -> tuple[str, Any] | None:
    pattern = _TIME_KEYS if key_class == "time" else _PRICE_KEYS
    for key, value in record.items():
        if not pattern.search(key) or value is None or isinstance(value, (dict, list, bool)):
            continue
        if key_class == "time" and parse_date(value) is not None:
            return key, str(value)
        if key_class == "price" and isinstance(value, (int, float)):
            return key, abs(value)
    return None


def k15_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    if taskset.db is None:
        return defects
    for task in taskset.tasks:
        text = scenario_text(task)
        sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]
        windows = [(m.group(1).lower(), " ".join(sentences[max(0, i - 1): i + 1]))
                   for i, sentence in enumerate(sentences) for m in _ORDER_RE.finditer(sentence)]
        if not windows:
            continue
        index = task_index(taskset, task)
        identifier = task_id(task)
        for position, action in enumerate(actions(task)):
            if not taskset.is_write(action):
                continue
            targets = [(path, value) for path, value in leaves(action.get("arguments") or {})
                       if path.split(".")[-1].split("[")[0].endswith(_ID_KEYS) and isinstance(value, str)]
            gold_values = {value for _, value in targets}
            for path, value in targets:
                key = path.split(".")[-1].split("[")[0].removesuffix("s") if path.endswith("_ids") else path.split(".")[-1].split("[")[0]
                key = key if key.endswith("_id") else key.rstrip("s")
                records = [r for r in index.records_with(key, value) if isinstance(r, dict)]
                if len(records) != 1:
                    continue
                record = records[0]
                for word, window in dict.fromkeys(windows):
                    key_class, descending = _ORDER_WORDS[word]
                    own = _sort_value(record, key_class)
                    if own is None or not _describes(record, key, window):
                        continue  # the order word is about another entity of the scenario
                    siblings = _siblings(record, key, index, text)
                    if len(siblings) < 2:
                        continue
                    def sort_key(r: dict[str, Any], field: str = own[0]) -> Any:
                        value = r.get(field)  # amounts rank by size: a debit of -137.95 is the larger charge
                        return abs(value) if key_class == "price" and isinstance(value, (int, float)) else str(value)

                    ranked = sorted(siblings, key=sort_key, reverse=descending)
                    best = sort_key(ranked[0])
                    tied = [r for r in ranked if sort_key(r) == best]
                    chosen = {r.get(key) for r in tied}
                    if len(tied) > 1 and not chosen <= gold_values:
                        defects.append(Defect("K14", "error", identifier,
                                              f"evaluation_criteria.actions[{position}].arguments.{path}",
                                              f"'{word}' ties: {len(tied)} candidates share {own[0]} {best}, so the "
                                              "tie-break field does not differ and the scenario gives no other",
                                              evidence=str(sorted(chosen)), rule=RULE_K14))
                    elif value not in chosen and not chosen & gold_values:
                        defects.append(Defect("K15", "error", identifier,
                                              f"evaluation_criteria.actions[{position}].arguments.{path}",
                                              f"the scenario asks for the {word} one, which by {own[0]} is "
                                              f"{sorted(chosen)[0]!r}, but the gold picks {value!r}",
                                              evidence=f"{own[0]}: {record.get(own[0])} vs {best}", rule=RULE_K15))
    return defects


def _describes(record: dict[str, Any], key: str, window: str) -> bool:
    """The order word's sentence (or the one before it) states a value of the record: its id, a
    name or description, or an amount (so "the later charge" is about the charge described there)."""
    for field, value in record.items():
        if field in _OWNER_KEYS or isinstance(value, (dict, list, bool)) or value is None:
            continue
        if isinstance(value, (int, float)) and abs(value) >= 1 and mentions(window, abs(value)):
            return True
        if isinstance(value, str) and len(value) >= 4 and field not in ("kind", "type", "status") and mentions(window, value):
            return True
    return False


def _siblings(record: dict[str, Any], key: str, index: MultiIndex, text: str) -> list[dict[str, Any]]:
    """Records like ``record``: same owner, same kind, every value the scenario states about ``record``."""
    owner = next(((k, record[k]) for k in _OWNER_KEYS if k in record and k != key), None)
    if owner is None:
        return []
    same = [r for r in index.records_with(*owner) if key in r and set(r) == set(record)]
    for kind in _KIND_KEYS:
        if kind in record and kind != key:
            same = [r for r in same if r.get(kind) == record[kind] or kind == "description" and not mentions(text, record[kind])]
    stated = [k for k, v in record.items() if k not in (key, *_OWNER_KEYS) and isinstance(v, (str, int, float))
              and not isinstance(v, bool) and mentions(text, abs(v) if isinstance(v, (int, float)) else v)]
    same = [r for r in same if all(r.get(k) == record.get(k) for k in stated)]
    unique = {r.get(key): r for r in same}
    return list(unique.values())


def grounding_defects(taskset: TaskSet) -> tuple[list[Defect], set[tuple[str, int]]]:
    k5, explained = k5_defects(taskset)
    return k4_defects(taskset) + k5 + k15_defects(taskset), explained


@validator(CHECK)
def check_grounding(view: BundleView) -> list[Finding]:
    """K4, K5 and K15 on a taugen bundle (see module docstring)."""
    taskset = taskset_for_view(view)
    return to_findings(CHECK, grounding_defects(taskset)[0], taskset.tasks)
