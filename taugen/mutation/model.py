"""Mutants: a good bundle with one realistic task-authoring defect planted, and the operators that plant them.

A *mutation operator* is a function registered with :func:`mutation` under a defect kind (``K1`` …
``K20``, ``../shared/reference/defect-kinds.md``). It receives a :class:`MutableBundle` (a copy of the
bundle's files with parsed, editable ``tasks.json``, ``db.json`` and manifest), makes one small edit of
the kind a task author really makes (change an amount, drop a write, swap a date, add a comma, rename
a tool in the user text, duplicate a task, make a supersession go backwards …) and returns the id of
the thing it changed, or None when the bundle has nothing it can apply to (the operator is then
reported *not applicable*, never silently counted as killed).

Every choice an operator makes is deterministic: it picks tasks, records and values by sorted ids and
fixed rules, never at random, so the same bundle always gives the same mutants.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from taugen import plugins
from taugen.hashing import BundleFiles, json_bytes
from taugen.validators.bundle_view import BundleLayout

KINDS = tuple(f"K{number}" for number in range(1, 21))


@dataclass(frozen=True)
class Mutant:
    """One planted defect.

    Attributes:
        mutant_id: ``<kind>-<operator name>``, stable across runs (also the mutant's folder name).
        kind: the defect kind planted (``K1`` … ``K20``).
        description: what the edit does, in one sentence.
        subject: the task, record or fact id the edit touched.
        changed: the bundle paths whose bytes differ from the clean bundle.
        files: the whole mutant bundle (sealed: ``SHA256SUMS`` and ``bundle.json``'s build hash match
            the edited files, so the integrity check cannot be what kills it).
    """

    mutant_id: str
    kind: str
    description: str
    subject: str
    changed: tuple[str, ...]
    files: BundleFiles = field(repr=False, compare=False)


class NotApplicable(LookupError):
    """Raised inside an operator when the bundle lacks a part it edits (e.g. a telecom bundle has no
    ``db.json``); :func:`plant` reports the operator as not applicable instead of failing."""


class MutableBundle(BundleLayout):
    """An editable copy of a bundle's files for one mutation operator.

    JSON documents are parsed on first access and written back (canonical JSON) when the operator
    returns; text and binary files are replaced with :meth:`set_text` / :meth:`set_bytes`.

    Attributes:
        files: the copy of the bundle's files (path → bytes).
    """

    def __init__(self, files: BundleFiles) -> None:
        self.files: BundleFiles = dict(files)
        self._documents: dict[str, Any] = {}

    # ------------------------------------------------------------------ documents

    def json(self, path: str) -> Any:
        """The parsed JSON document at ``path`` (edits to it are kept).

        Raises:
            NotApplicable: the bundle has no file at ``path``.
        """
        if path not in self._documents:
            if path not in self.files:
                raise NotApplicable(f"the bundle has no {path}")
            self._documents[path] = json.loads(self.files[path])
        return self._documents[path]

    @property
    def manifest(self) -> dict[str, Any]:
        return self.json("author/manifest.json")

    @property
    def tasks(self) -> list[dict[str, Any]]:
        """The bundle's ``tasks.json`` (tau2 Task dicts), editable in place."""
        return self.json(f"{self.runtime_dir}/tasks.json")

    @property
    def db(self) -> dict[str, Any]:
        """The bundle's agent ``db.json``, editable in place."""
        return self.json(f"{self.runtime_dir}/db.json")

    @property
    def splits(self) -> dict[str, list[str]]:
        return self.json(f"{self.runtime_dir}/split_tasks.json")

    def text(self, path: str) -> str:
        """A text file of the bundle (UTF-8)."""
        return self.files[path].decode()

    def set_text(self, path: str, text: str) -> None:
        """Replace (or add) a text file."""
        self._documents.pop(path, None)
        self.files[path] = text.encode()

    def set_bytes(self, path: str, data: bytes) -> None:
        """Replace (or add) a binary file."""
        self._documents.pop(path, None)
        self.files[path] = data

    def rename(self, old: str, new: str) -> None:
        """Move a file to a new path (manifest references are not updated)."""
        self._documents.pop(old, None)
        self.files[new] = self.files.pop(old)

    def finish(self) -> BundleFiles:
        """The files with every parsed document serialised back (tasks and DB keep tau2's plain JSON)."""
        for path, document in self._documents.items():
            self.files[path] = json_bytes(document)
        return self.files

    # ------------------------------------------------------------------ task helpers

    def tasks_of(self, problem: str, alone: bool = False) -> list[dict[str, Any]]:
        """Tasks whose id composes ``problem`` (only it, with ``alone``), in id order."""
        found = [task for task in self.tasks if problem in problems_of(task)
                 and (not alone or problems_of(task) == [problem])]
        return sorted(found, key=lambda task: task["id"])

    def task(self, problem: str, alone: bool = False) -> dict[str, Any] | None:
        """The first task (by id) composing ``problem``, or None."""
        found = self.tasks_of(problem, alone)
        return found[0] if found else None


def problems_of(task: dict[str, Any]) -> list[str]:
    """The problem names composed in a taugen task id ``[domain]a|b[CUSTOMER:..][PERSONA:..]``."""
    match = re.match(r"\[[^\]]*\]([^\[]+)", task.get("id", ""))
    return match.group(1).split("|") if match else []


def gold(task: dict[str, Any]) -> list[dict[str, Any]]:
    """The task's gold actions (editable)."""
    return task["evaluation_criteria"]["actions"]


def instructions(task: dict[str, Any]) -> dict[str, Any]:
    """The task's structured user instructions (editable)."""
    return task["user_scenario"]["instructions"]


def agent_patch(task: dict[str, Any]) -> dict[str, Any]:
    """The task's ``initialization_data.agent_data`` patch (editable; created when absent)."""
    state = task.setdefault("initial_state", {}) or {}
    task["initial_state"] = state
    data = state.setdefault("initialization_data", {}) or {}
    state["initialization_data"] = data
    if data.get("agent_data") is None:
        data["agent_data"] = {}
    return data["agent_data"]


Operator = Callable[[MutableBundle], str | None]


@dataclass(frozen=True)
class MutationOperator:
    """A registered operator: its kind, a short name, what it plants and, for a domain's own operator, the
    domain's module (``taugen.domains.banking``; None for an operator that applies to every domain)."""

    kind: str
    name: str
    description: str
    function: Operator
    domain: str | None = None

    @property
    def mutant_id(self) -> str:
        return f"{self.kind}-{self.name}"


# ------------------------------------------------------------------------------ gold and record edits
def initial_records(bundle: MutableBundle, task: dict[str, Any], table: str) -> dict[str, dict[str, Any]]:
    """A table of the task's initial state: the bundle DB's records with the task's agent_data patch
    merged in (read only)."""
    found = {key: dict(value) for key, value in (bundle.db.get(table) or {}).items()}
    patch = (((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {})
    for key, value in (patch.get(table) or {}).items():
        found[key] = {**found.get(key, {}), **value}
    return found


def fact_amount(bundle: MutableBundle, fact_id: str) -> float | None:
    """A money fact's amount from the bundle manifest (None when absent or not money)."""
    value = (bundle.manifest["facts"].get(fact_id) or {}).get("value") or {}
    return round(float(value["amount"]), 2) if "amount" in value else None


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A gold action of the agent calling ``name`` (tau2's ``Action``; the id is set by :func:`renumber`)."""
    return {"action_id": "", "arguments": arguments, "info": None, "name": name, "requestor": "assistant"}


def renumber(task: dict[str, Any]) -> None:
    """Gold action ids as taugen writes them, ``<index>_<tool>``, after an insertion or removal."""
    for index, action in enumerate(gold(task)):
        action["action_id"] = f"{index}_{action['name']}"


def call_index(task: dict[str, Any], name: str, **arguments: Any) -> int | None:
    """Index of the first gold call of ``name`` whose arguments include ``arguments`` (None: no such call)."""
    for index, call in enumerate(gold(task)):
        if call["name"] == name and all(call["arguments"].get(k) == v for k, v in arguments.items()):
            return index
    return None


def replace_call(task: dict[str, Any], index: int, call: dict[str, Any]) -> None:
    """Put ``call`` in place of the gold action at ``index``."""
    gold(task)[index] = call
    renumber(task)


def insert_call(task: dict[str, Any], index: int, call: dict[str, Any]) -> None:
    """Insert ``call`` into the gold actions before ``index``."""
    gold(task).insert(index, call)
    renumber(task)


def drop_call(task: dict[str, Any], index: int) -> None:
    """Remove the gold action at ``index``."""
    del gold(task)[index]
    renumber(task)


def mutation(kind: str, name: str, description: str) -> Callable[[Operator], Operator]:
    """Decorator: register a mutation operator planting a defect of ``kind``.

    Raises:
        ValueError: ``kind`` is not K1…K20, or the same ``kind``-``name`` is registered twice.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown defect kind {kind!r}; expected one of K1..K20")

    def register(function: Operator) -> Operator:
        # a domain's operators live in its package's ``mutations`` module, or in the modules of a
        # ``mutations`` package (``taugen.domains.banking.mutations.policy``)
        parts = function.__module__.split(".")
        domain = ".".join(parts[:parts.index("mutations")]) if "mutations" in parts[1:] else None
        operator = MutationOperator(kind, name, description, function, domain)
        plugins.register("mutation_operator", operator.mutant_id, operator,
                         origin_of=lambda operator: plugins.origin(operator.function))
        return function

    return register


def operators(environment: str | None = None) -> list[MutationOperator]:
    """Registered operators, ordered by kind number then name: the generic built-ins, those of
    ``taugen.plugins`` modules and, with ``environment`` (a domain's module, as ``domain.yaml`` names it),
    that domain's own operators (its ``mutations`` module or package, imported here) and no other
    domain's. Without ``environment``: every operator registered so far.

    Raises:
        ImportError: the domain's ``mutations`` module exists but fails to import.
    """
    import taugen.mutation.operators  # noqa: F401 - importing registers the built-ins

    if environment and importlib.util.find_spec(environment) is not None \
            and importlib.util.find_spec(f"{environment}.mutations") is not None:
        importlib.import_module(f"{environment}.mutations")
    found = [operator for operator in plugins.registered("mutation_operator").values()
             if environment is None or operator.domain in (None, environment)]
    return sorted(found, key=lambda op: (int(op.kind[1:]), op.name))


def plant(files: BundleFiles, operator: MutationOperator) -> Mutant | None:
    """Apply one operator to a copy of ``files``; None when it does not apply to this bundle.

    The mutant is sealed again (see :class:`Mutant`) and the clean bundle's validation report is
    dropped (it describes the clean bundle, not the mutant).
    """
    from taugen.build.assemble import seal

    bundle = MutableBundle(copy.copy(files))
    try:
        subject = operator.function(bundle)
    except NotApplicable:
        return None
    if subject is None:
        return None
    edited = {path: data for path, data in bundle.finish().items()
              if not path.startswith("author/validation.") and path != "SHA256SUMS"}
    changed = tuple(sorted(path for path in set(edited) | set(files)
                           if path not in ("SHA256SUMS", "bundle.json") and not path.startswith("author/validation.")
                           and edited.get(path) != files.get(path)))
    if not changed:
        raise RuntimeError(f"mutation operator {operator.mutant_id} changed nothing")
    return Mutant(mutant_id=operator.mutant_id, kind=operator.kind, description=operator.description,
                  subject=str(subject), changed=changed, files=seal(edited))


def iter_mutants(files: BundleFiles, kinds: set[str] | None = None
                 ) -> Iterator[tuple[MutationOperator, Mutant | None]]:
    """Each operator (of ``kinds``, default all; the bundle's domain's own included) with its mutant of
    ``files``, or None if not applicable."""
    for operator in operators(MutableBundle(files).manifest.get("environment")):
        if kinds is None or operator.kind in kinds:
            yield operator, plant(files, operator)
