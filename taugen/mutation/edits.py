"""Edits a task author makes, for mutation operators to compose (see :mod:`taugen.mutation.model` for the
contract): find a task's gold call or the record it names, mistype an id, add a graded assertion, drop a
gold write, copy a task under another persona. They know no domain: a domain's own operators
(``taugen/domains/<domain>/mutations/``) pass them its problem, tool, table and argument names.
"""

from __future__ import annotations

import copy
import hashlib
import re
from decimal import Decimal
from typing import Any

from taugen.mutation.model import MutableBundle, agent_patch, call_index, drop_call, gold, instructions, renumber
from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.grounding import quotable
from taugen.validators.defects.sources import taskset_for_view


# ------------------------------------------------------------------------------------------ gold and records


def gold_call(task: dict[str, Any], name: str, after: int = 0) -> dict[str, Any] | None:
    """The first gold action of ``task`` named ``name`` at or after position ``after``."""
    return next((a for a in gold(task)[after:] if a["name"] == name), None)


def first_task(bundle: MutableBundle, problem: str, *tools: str) -> dict[str, Any] | None:
    """The first task (by id) composing ``problem`` whose gold calls every tool of ``tools``."""
    return next((task for task in bundle.tasks_of(problem)
                 if all(gold_call(task, tool) is not None for tool in tools)), None)


def task_record(bundle: MutableBundle, task: dict[str, Any], table: str, record_id: str) -> dict[str, Any]:
    """A database record as the task starts from it: the shared row with the task's patch laid over."""
    base = copy.deepcopy(bundle.db.get(table, {}).get(record_id) or {})
    patch = (agent_patch(task).get(table) or {}).get(record_id) or {}
    return {**base, **patch}


def task_rows(bundle: MutableBundle, task: dict[str, Any], table: str) -> dict[str, dict[str, Any]]:
    """Every record of ``table`` as the task starts from it (shared rows plus the task's patch)."""
    ids = set(bundle.db.get(table, {})) | set(agent_patch(task).get(table) or {})
    return {record_id: task_record(bundle, task, table, record_id) for record_id in sorted(ids)}


def known_ids(bundle: MutableBundle) -> set[str]:
    """Every id key of the database and of every task's patch (a typo must land on none of them)."""
    found = {key for table in bundle.db.values() if isinstance(table, dict) for key in table}
    for task in bundle.tasks:
        for table in agent_patch(task).values():
            if isinstance(table, dict):
                found |= set(table)
    return found


def typo(value: str, taken: set[str]) -> str:
    """``value`` with its last character replaced (the first replacement that names no existing id)."""
    alphabet = "0123456789ABCDEF" if re.fullmatch(r"[0-9A-Z-]+", value) else "0123456789abcdef"
    for position in range(len(value) - 1, -1, -1):
        for char in alphabet:
            candidate = value[:position] + char + value[position + 1:]
            if candidate != value and candidate not in taken and value[position].isalnum():
                return candidate
    raise LookupError(f"no free one-character variant of {value}")


def fresh_id(prefix: str, seed: str, taken: set[str]) -> str:
    """A new ``PREFIX-XXXXXXXX`` id (sha256 of ``seed``) that names no existing record."""
    for salt in range(100):
        candidate = f"{prefix}-{hashlib.sha256(f'{seed}|{salt}'.encode()).hexdigest()[:8].upper()}"
        if candidate not in taken:
            return candidate
    raise LookupError(f"no free id for {seed}")


# ------------------------------------------------------------------------------------------ grading


def add_assertion(task: dict[str, Any], text: str, basis: str) -> None:
    """Add an nl_assertion or communicate_info entry and grade it (as the author would)."""
    criteria = task["evaluation_criteria"]
    key = "nl_assertions" if basis == "NL_ASSERTION" else "communicate_info"
    criteria[key] = [*(criteria.get(key) or []), text]
    if basis not in criteria["reward_basis"]:
        criteria["reward_basis"].append(basis)


def money(amount: float) -> str:
    return f"{abs(amount):.2f}"


def communicate_sibling_amount(bundle: MutableBundle, amount_arguments: tuple[tuple[str, str], ...]) -> str | None:
    """Grade a task on the amount its sibling's gold write carries, as communicate_info (K4): for each
    ``(tool, argument)`` of ``amount_arguments`` in order, the tasks whose gold calls ``tool``, each paired
    with the next by id (the last with the first); the first task whose sibling's amount differs and is
    foreign to it gets that amount to communicate. Returns the task id, or None when no pair qualifies.

    The sibling's amount must be foreign to the task: an amount the task's own values give (one of its
    amounts, a multiple, a sum or a difference of them: $12.00 when the task holds four $3.00 fees)
    could be what the task tells the user, so communicating it plants no defect; such a pair is skipped.
    "The task's own values give" is K4's own definition (:func:`taugen.validators.defects.grounding.quotable`),
    read on the unedited bundle."""
    taskset = None
    for tool, argument in amount_arguments:
        tasks = sorted((t for t in bundle.tasks if gold_call(t, tool) is not None), key=lambda t: t["id"])
        for task, sibling in zip(tasks, tasks[1:] + tasks[:1]):
            own = gold_call(task, tool)["arguments"][argument]
            other = gold_call(sibling, tool)["arguments"][argument]
            if round(float(other), 2) == round(float(own), 2):
                continue
            taskset = taskset or taskset_for_view(BundleView(bundle.files, "<mutant>"))
            universe = quotable(taskset, next(t for t in taskset.tasks if t["id"] == task["id"]))
            wanted = Decimal(money(other).strip("$").replace(",", ""))
            if wanted not in universe.derived and wanted.normalize() not in universe.derived:
                add_assertion(task, money(other), "COMMUNICATE")
                return task["id"]
    return None


# ------------------------------------------------------------------------------------------ the scenario


def known_info(task: dict[str, Any]) -> str:
    return instructions(task).get("known_info") or ""


def replace_known(task: dict[str, Any], pattern: str, replacement: str) -> bool:
    """Apply one regex substitution to the task's known_info; False when the pattern is absent."""
    text = known_info(task)
    edited, count = re.subn(pattern, replacement, text, count=1)
    if not count or edited == text:
        return False
    instructions(task)["known_info"] = edited
    return True


_CALLER_NAME = re.compile(r"You are ([A-Z][^.]+)\.")


def name_from_sibling(bundle: MutableBundle, problem: str) -> str | None:
    """K8: in the first task of ``problem`` whose ``known_info`` opens "You are NAME.", put the alphabetically
    first other caller's name from a sibling task in its place; the task's id, or None when no task of the
    problem names its caller or no sibling names another."""
    for task in bundle.tasks_of(problem):
        mine = _CALLER_NAME.match(known_info(task))
        others = sorted({m.group(1) for t in bundle.tasks for m in [_CALLER_NAME.match(known_info(t))]
                         if m and mine and m.group(1) != mine.group(1)})
        if mine and others and replace_known(task, rf"You are {re.escape(mine.group(1))}\.", f"You are {others[0]}."):
            return task["id"]
    return None


def without_transfer(bundle: MutableBundle, problem: str) -> dict[str, Any] | None:
    """The first task (by id) composing ``problem`` whose gold hands nothing to a human team."""
    return next((task for task in bundle.tasks_of(problem)
                 if not any("transfer" in action["name"] for action in gold(task))), None)


def append_instruction(task: dict[str, Any], sentence: str) -> None:
    steps = instructions(task)
    steps["task_instructions"] = f"{steps.get('task_instructions') or ''} {sentence}".strip()


# ------------------------------------------------------------------------------------------ dropped writes


def drop_gold(bundle: MutableBundle, problem: str, tool: str, last: bool = False) -> str | None:
    """Remove the first (or last) ``tool`` call from the gold of the first task (by id) composing
    ``problem`` that makes the call and hands nothing to a human team."""
    for task in bundle.tasks_of(problem):
        calls = [index for index, action in enumerate(gold(task)) if action["name"] == tool]
        if calls and not any("transfer" in action["name"] for action in gold(task)):
            del gold(task)[calls[-1] if last else calls[0]]
            return task["id"]
    return None


def drop_writes(task: dict[str, Any], name: str, **arguments: Any) -> bool:
    indices = [i for i, c in enumerate(gold(task)) if c["name"] == name
               and all(c["arguments"].get(k) == v for k, v in arguments.items())]
    for index in reversed(indices):
        del gold(task)[index]
    renumber(task)
    return bool(indices)


# ------------------------------------------------------------------------------------------ copies and records


def add_twin(bundle: MutableBundle, original: dict, twin: dict) -> str:
    """Append ``twin`` to the tasks and to every split that lists ``original``."""
    bundle.tasks.append(twin)
    for members in bundle.splits.values():
        if original["id"] in members:
            members.append(twin["id"])
    return twin["id"]


def other_persona(task_id: str, persona: str) -> str:
    """The id with its ``[PERSONA:..]`` part replaced (a copy filed under another persona)."""
    return re.sub(r"\[PERSONA:[^\]]*\]", f"[PERSONA:{persona}]", task_id) if "[PERSONA:" in task_id \
        else f"{task_id}[PERSONA:{persona}]"


HURRIED = "You are in a hurry and answer in as few words as possible; you want the call over quickly."
"""The persona of a twin filed under ``Hurried`` (:func:`persona_twin_without`)."""


def persona_twin_without(bundle: MutableBundle, problem: str, tool: str) -> str | None:
    """K17: a copy of the first task of ``problem`` whose gold calls ``tool``, filed under the ``Hurried``
    persona (:data:`HURRIED`) with that call dropped from its gold, so the same user and the same record get
    two decisions; the twin's id, or None when no task of the problem calls ``tool`` or every such task's
    ``Hurried`` twin exists already."""
    for task in bundle.tasks_of(problem):
        index = call_index(task, tool)
        if index is None:
            continue
        twin = copy.deepcopy(task)
        twin["id"] = other_persona(task["id"], "Hurried")
        if any(t["id"] == twin["id"] for t in bundle.tasks):
            continue
        twin["user_scenario"]["persona"] = HURRIED
        drop_call(twin, index)
        renumber(twin)
        return add_twin(bundle, task, twin)
    return None


def first_artifact(bundle: MutableBundle, genre: str, suffix: str) -> tuple[str, dict, str] | None:
    """(artifact id, manifest entry, main file path) of the first artifact of ``genre`` by id."""
    for artifact_id, entry in sorted(bundle.manifest["artifacts"].items()):
        if entry["genre"] == genre:
            main = next((f["path"] for f in entry["files"] if f["path"].endswith(suffix)), None)
            if main:
                return artifact_id, entry, main
    return None
