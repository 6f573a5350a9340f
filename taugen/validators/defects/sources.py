"""Build a :class:`~taugen.validators.defects.base.TaskSet` from a taugen bundle or any tau2 domain folder.

* A taugen bundle (:func:`taskset_for_view`) replays gold actions with the domain's own toolkit (as
  ``taugen.validators.tasks`` does) and carries the manifest's typed facts and the domain's policy rules.
* A tau2 folder (:func:`taskset_from_folder`) holds ``tasks.json`` (or ``tasks/task_*.json``, or one
  ``tasks_*.json``), ``split_tasks.json`` (or ``split_<tasks stem>.json``), optionally ``db.json`` /
  ``db.toml`` and ``user_db.*``, and the policy (``policy.md`` or ``main_policy.md`` with its manual).
  When tau2 is installed and the domain is one tau2 ships (airline, retail, telecom, mock), the tools of
  each actor come from tau2's toolkits and gold actions are replayed in tau2's own ``Environment``
  (``set_state`` with the task's initial state, then ``make_tool_call`` + ``sync_tools`` per action), so
  tool errors are the runtime's own.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import hashlib
import importlib
import inspect
import json
import re
import tomllib
import typing
from pathlib import Path
from typing import Any, Iterator

from taugen.errors import InputError
from taugen.validators.defects.base import Replay, Step, TaskSet, ToolInfo, leaves
from taugen.validators.memo import Memo, digest
from taugen.validators.registry import preparation, spread

_NOW = re.compile(r"current (?:time|date)[^0-9]{0,20}(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2})(?::\d{2})?)?", re.I)


# ------------------------------------------------------------------------------------------ taugen bundles


def _view_data(view, stem: str) -> Any:
    """``<stem>.json`` or ``<stem>.toml`` of the bundle's runtime folder, or None."""
    for suffix in (".json", ".toml"):
        path = f"{view.runtime_dir}/{stem}{suffix}"
        if path in view.files:
            text = view.files[path].decode()
            return json.loads(text) if suffix == ".json" else tomllib.loads(text)
    return None


def taskset_for_view(view) -> TaskSet:
    """The task set of a taugen bundle view (cached on the view: every defect family shares it).

    Tools of both actors come from the domain's toolkit (``tool_specs`` and, when it has one,
    ``user_tool_specs``, as ``taugen.validators.sufficiency`` reads them). Gold actions are replayed with
    taugen's DB replay unless the domain checks its own tasks (``DomainDefinition.check_tasks``: a domain
    set up by initialization actions, such as telecom).
    """
    cached = view.__dict__.get("_defects_taskset")
    if cached is not None:
        return cached
    from taugen.generators.policy import ManifestFacts
    from taugen.validators.sufficiency import tool_sets

    definition = importlib.import_module(view.manifest["environment"]).DOMAIN
    toolkit_class = definition.toolkit
    agent_specs, user_specs = tool_sets(toolkit_class)
    tools = {name: ToolInfo(name=name, actor="assistant", kind=spec.kind, parameters=tuple(spec.parameters),
                            required=tuple(spec.required), description=spec.description)
             for name, spec in agent_specs.items()}
    user_tools = {name: ToolInfo(name=name, actor="user", kind=spec.kind, parameters=tuple(spec.parameters),
                                 required=tuple(spec.required), description=spec.description)
                  for name, spec in user_specs.items()}
    documents = {path.rsplit("/", 1)[1]: data.decode() for path, data in sorted(view.files.items())
                 if path.startswith(f"{view.runtime_dir}/") and path.endswith(".md")}
    taskset = TaskSet(
        source=view.source, domain=view.domain, tasks=view.tasks, splits=view.splits, db=_view_data(view, "db"),
        user_db=_view_data(view, "user_db"), documents=documents, agent_tools=tools, user_tools=user_tools,
        now=view.now, facts=ManifestFacts(view.manifest["facts"]),
        rules=tuple(getattr(definition, "policy", ()) or ()), toolkit_class=toolkit_class, taugen=True,
        requests=dict(getattr(definition, "request_words", None) or {}),
        targets=tuple(getattr(definition, "decision_targets", None) or ()))
    if getattr(definition, "check_tasks", None) is None and taskset.db is not None:
        taskset.replayer = taugen_replayer(taskset)
    else:
        taskset.inherited_world = True
        taskset.notes.append(f"domain {view.domain} sets its tasks up with its own checks: gold actions are not "
                             "replayed by the defect validators")
    facts = taskset.facts
    for fact_id in facts.ids():
        value = facts.value(fact_id) if facts.is_current(fact_id) else None
        if value is None:
            continue
        taskset.documented |= {str(n.normalize()) if n == n.to_integral_value() else str(n) for n in value.numbers()}
        taskset.documented |= {f"{n:.2f}" for n in value.numbers()}
        taskset.documented |= set(getattr(value, "key_terms", []) or [])
    view.__dict__["_defects_taskset"] = taskset
    return taskset


def taugen_start(taskset: TaskSet, task: dict[str, Any]):
    """A fresh toolkit on a full copy of the task's initial state (``initialization_data.agent_data``
    deep-merged into the database, made once per task by :func:`_database_replays`: only what the patch
    changes is validated), or None when the merged database does not validate. The copy is a
    :func:`~taugen.generators.environment.clone`, so callers may dump it or clone it again."""
    from taugen.generators.environment import clone

    model = _initial(taskset, task)
    if isinstance(model, Exception):
        return None
    return taskset.toolkit_class(clone(model), taskset.now)


def _initial(taskset: TaskSet, task: dict[str, Any]) -> Any:
    """The task's starting database (read or copy it, never change it), or the error validating it raised;
    made once per task."""
    key = ("initial", id(task))
    if key not in taskset.cache:
        patch = (((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data"))
        try:
            taskset.cache[key] = _database_replays(taskset).initial(patch)
        except Exception as exc:  # noqa: BLE001 - a patch that breaks the DB model is a finding, not a crash
            taskset.cache[key] = exc
    return taskset.cache[key]


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (dict, list, str, int, float, bool)) or value is None:
        return json.loads(json.dumps(value, default=str))
    return str(value)


_WORLDS: Memo[Any] = Memo(4)
"""The :class:`~taugen.validators.replays.DatabaseReplays` of a world (toolkit class, clock, database) by its
digest (:func:`world`): a mutation run validates dozens of bundles of one world, whose replays then share one
validated base database and its table texts."""
_REPLAYS: Memo[Replay] = Memo(50_000, "validate-gold-replays")
"""Replays by the digest of everything they read (:func:`taugen_replayer`), shared by every bundle view in
this process. A mutation run validates dozens of bundles that differ from the clean one in a task or
two; the other tasks' replays are the same and are not run again. Replays are only read."""


def world(taskset: TaskSet) -> str:
    """Digest of what every replay of ``taskset`` reads besides the task: the toolkit class, the clock and
    the database (cached on the task set)."""
    if "world" not in taskset.cache:
        toolkit_class = taskset.toolkit_class
        taskset.cache["world"] = digest(f"{toolkit_class.__module__}.{toolkit_class.__qualname__}", taskset.now,
                                        taskset.db)
    return taskset.cache["world"]


def _database_replays(taskset: TaskSet):
    """The :class:`~taugen.validators.replays.DatabaseReplays` of ``taskset``'s world, shared by the task sets of
    every bundle view in this process that has the same toolkit, clock and database (:data:`_WORLDS`)."""
    from taugen.validators.replays import DatabaseReplays

    if "replays" not in taskset.cache:
        taskset.cache["replays"] = _WORLDS.compute(
            world(taskset), lambda: DatabaseReplays(taskset.toolkit_class, taskset.db, taskset.now))
    return taskset.cache["replays"]


def taugen_replayer(taskset: TaskSet):
    """A replayer over a taugen toolkit: the task's initial state, then the actions in order, as tau2's gold
    environment runs them. Starts and states come from :func:`_database_replays` (a start shares every
    table its patch leaves alone; a replay copies only the tables its tools reach), so the hashes are the
    DB hashes a whole copy and dump would give.

    A replay reads the database, the toolkit class, the clock, the task's ``initial_state`` and the
    actions, and nothing else (the toolkit is built from the database and the clock alone), so it is
    remembered under the digest of exactly those (:data:`_REPLAYS`)."""
    def run(task: dict[str, Any], actions: list[dict[str, Any]]) -> Replay:
        key = digest(world(taskset), task.get("initial_state"), actions)
        remembered = _REPLAYS.get(key)
        if remembered is not None:
            return remembered
        replays = _database_replays(taskset)
        initial = _initial(taskset, task)
        if isinstance(initial, Exception):
            return Replay(init_error=f"the initial state does not validate: {initial}")
        toolkit = replays.toolkit(initial)
        replay = Replay(initial_hash=replays.start_hash(initial))
        for index, action in enumerate(actions):
            result = toolkit.call(action.get("name", ""), **(action.get("arguments") or {}))
            # per-step changes are not measured: unneeded writes are the certificate's check on bundles
            replay.steps.append(Step(index=index, action=action, output=_jsonable(result.output), error=result.error))
        replay.final_hash = replays.hash(replays.state_of(toolkit))
        return _REPLAYS.put(key, replay)

    return run


def replay_key(taskset: TaskSet, task: dict[str, Any]) -> str:
    """The key of ``task``'s gold replay in the process-wide memo (see :func:`taugen_replayer`)."""
    from taugen.validators.defects.base import actions

    return digest(world(taskset), task.get("initial_state"), actions(task))


def _replayed(view: Any, indexes: list[int]) -> list[Replay | None]:
    """The gold replays of the tasks at ``indexes`` of ``view`` (an executor's unit: replays are small and
    picklable, the databases they ran on stay in the worker); None where a replay raised (the validators
    that replay the task report it)."""
    taskset = taskset_for_view(view)
    replays: list[Replay | None] = []
    for index in indexes:
        try:
            replays.append(taskset.replay(taskset.tasks[index]))
        except Exception:  # noqa: BLE001 - a crash is the validators' finding, not this preparation's
            replays.append(None)
    return replays


@preparation("gold replays")
def share_replays(view: Any, executor: Any, workers: int) -> None:
    """Replay every task's gold actions once, spread over ``executor``'s workers, into the process-wide
    memo (:data:`_REPLAYS`) that the defect validators read: they run in separate workers, and each used
    to replay every task itself. Nothing for a domain that checks its own tasks or a bundle without a
    database; a task whose replay is already remembered is not run again."""
    try:
        taskset = taskset_for_view(view)
    except Exception:  # noqa: BLE001 - a bundle the validators cannot read is theirs to report
        return
    if taskset.replayer is None:
        return
    keys = [replay_key(taskset, task) for task in taskset.tasks]
    wanted = [index for index, key in enumerate(keys) if _REPLAYS.get(key) is None]
    for index, replay in spread(executor, _replayed, view, wanted, workers):
        if replay is not None:
            _REPLAYS.put(keys[index], replay)


# ------------------------------------------------------------------------------------------ tau2 folders

TAU2_DOMAINS: dict[str, dict[str, str]] = {
    "airline": {"tools": "tau2.domains.airline.tools:AirlineTools", "db": "tau2.domains.airline.data_model:FlightDB"},
    "retail": {"tools": "tau2.domains.retail.tools:RetailTools", "db": "tau2.domains.retail.data_model:RetailDB"},
    "telecom": {"tools": "tau2.domains.telecom.tools:TelecomTools", "db": "tau2.domains.telecom.data_model:TelecomDB",
                "user_tools": "tau2.domains.telecom.user_tools:TelecomUserTools",
                "user_db": "tau2.domains.telecom.user_data_model:TelecomUserDB",
                "environment": "tau2.domains.telecom.environment:TelecomEnvironment"},
    "mock": {"tools": "tau2.domains.mock.tools:MockTools", "db": "tau2.domains.mock.data_model:MockDB"},
}
"""Where tau2 keeps each shipped domain's toolkits and database models."""


@contextlib.contextmanager
def quiet_tau2() -> Iterator[None]:
    """Silence tau2's loguru output (import warnings, tool debug lines) for the duration."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - loguru comes with tau2
        yield
        return
    logger.disable("tau2")
    try:
        yield
    finally:
        logger.enable("tau2")


def _load(reference: str):
    module, name = reference.split(":")
    with quiet_tau2():
        return getattr(importlib.import_module(module), name)


def tau2_available() -> bool:
    try:
        with quiet_tau2():
            importlib.import_module("tau2.environment.environment")
    except ImportError:
        return False
    return True


def _choices(annotation: Any) -> tuple[str, ...]:
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(annotation))
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum):
        return tuple(str(member.value) for member in annotation)
    for inner in typing.get_args(annotation):
        found = _choices(inner)
        if found:
            return found
    return ()


def tau2_tools(reference: str, actor: str) -> tuple[dict[str, ToolInfo], set[str]]:
    """The tools of a tau2 toolkit class, and every public method (usable in initialization actions
    and env assertions)."""
    cls = _load(reference)
    instance = cls.__new__(cls)
    tools = {}
    for name, function in instance._func_tools.items():
        kind = getattr(function, "__tool_type__", "read")
        signature = inspect.signature(function)
        try:
            hints = typing.get_type_hints(function)
        except Exception:  # noqa: BLE001 - unresolvable forward references: no enumerations then
            hints = {}
        parameters = [p for p in signature.parameters.values() if p.name != "self"]
        tools[name] = ToolInfo(
            name=name, actor=actor, kind=str(getattr(kind, "value", kind)),
            parameters=tuple(p.name for p in parameters),
            required=tuple(p.name for p in parameters if p.default is inspect.Parameter.empty),
            choices={p.name: c for p in parameters if (c := _choices(hints.get(p.name)))},
            description=inspect.getdoc(function) or "")
    helpers = {name for name in dir(cls) if not name.startswith("_") and callable(getattr(cls, name, None))}
    return tools, helpers


def tau2_replayer(domain: str, db: dict[str, Any], user_db: dict[str, Any] | None, policy: str):
    """A replayer in tau2's own environment for a shipped domain, over the folder's databases."""
    spec = TAU2_DOMAINS[domain]
    with quiet_tau2():
        from tau2.data_model.tasks import Action, Task
        from tau2.environment.environment import Environment

        tools_class, db_class = _load(spec["tools"]), _load(spec["db"])
        user_tools_class = _load(spec["user_tools"]) if "user_tools" in spec else None
        user_db_class = _load(spec["user_db"]) if "user_db" in spec else None
        environment_class = _load(spec["environment"]) if "environment" in spec else Environment
        agent_db = db_class.model_validate(db)
        user_model = user_db_class.model_validate(user_db or {}) if user_db_class is not None else None

    large = len(json.dumps(db, default=str)) > 500_000
    tables = {name: value for name, value in agent_db if isinstance(value, dict)} if large else {}

    def task_database(task: dict[str, Any]):
        """A copy of the agent database for one task. A large database (retail: 2.8 MB) is copied only
        where the task can touch it: every table record whose key occurs in the task, and the records
        those name (an order's user); the rest is shared read-only, and :func:`fingerprint` hashes the
        copied part (equal fingerprints mean equal databases, since nothing else can change)."""
        if not large:
            return agent_db.model_copy(deep=True), None
        wanted = {str(value) for _, value in leaves(task) if isinstance(value, (str, int))}
        touched: dict[str, set[str]] = {name: {key for key in table if key in wanted} for name, table in tables.items()}
        for name, keys in list(touched.items()):
            for key in list(keys):
                for _, value in leaves(tables[name][key].model_dump(mode="json")):
                    for other, table in tables.items():
                        if isinstance(value, str) and value in table:
                            touched[other].add(value)
        copy = agent_db.model_copy()
        for name, table in tables.items():
            fresh = dict(table)
            for key in touched[name]:
                fresh[key] = table[key].model_copy(deep=True)
            setattr(copy, name, fresh)
        return copy, touched

    def make_environment(task: dict[str, Any]):
        database, touched = task_database(task)
        tools = tools_class(database)
        tools.__dict__["_taugen_touched"] = touched
        user_tools = user_tools_class(user_model.model_copy(deep=True)) if user_tools_class is not None else None
        if environment_class is Environment:
            return Environment(domain_name=domain, policy=policy, tools=tools, user_tools=user_tools)
        return environment_class(domain_name=domain, policy=policy, tools=tools, user_tools=user_tools)

    def fingerprint(environment) -> str:
        touched = environment.tools.__dict__.get("_taugen_touched")
        if touched is None:
            return environment.get_db_hash()
        database = environment.tools.db
        parts = {}
        for name, table in tables.items():
            current = getattr(database, name)
            keys = sorted(touched[name] | (set(current) - set(table)))
            parts[name] = [len(current), {key: current[key].model_dump() for key in keys if key in current}]
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()

    def combined_hash(environment) -> str:
        return f"{fingerprint(environment)}|{environment.get_user_db_hash()}"

    def assertions(environment, task_model) -> list[bool | None]:
        results = []
        for assertion in (task_model.evaluation_criteria.env_assertions or []) if task_model.evaluation_criteria else []:
            try:
                results.append(bool(environment.run_env_assertion(assertion, raise_assertion_error=False)))
            except Exception:  # noqa: BLE001 - an assertion that cannot run is reported as None
                results.append(None)
        return results

    def run(task: dict[str, Any], actions: list[dict[str, Any]]) -> Replay:
        with quiet_tau2():
            try:
                task_model = Task.model_validate(task)
            except Exception as exc:  # noqa: BLE001
                return Replay(init_error=f"task does not validate: {str(exc).splitlines()[0]}")
            environment = make_environment(task)
            initial = task_model.initial_state
            try:
                environment.set_state(initialization_data=initial.initialization_data if initial else None,
                                      initialization_actions=initial.initialization_actions if initial else None,
                                      message_history=(initial.message_history or []) if initial else [])
            except Exception as exc:  # noqa: BLE001
                return Replay(init_error=f"{type(exc).__name__}: {exc}")
            replay = Replay(initial_hash=combined_hash(environment))
            if initial is not None and (initial.initialization_actions or initial.initialization_data
                                        or initial.message_history):
                replay.initial_db = environment.tools.db.model_dump(mode="json")
            replay.empty_assertions = assertions(environment, task_model)
            for index, raw in enumerate(actions):
                try:
                    action = Action.model_validate({"action_id": f"step_{index}", **raw})
                except Exception as exc:  # noqa: BLE001
                    replay.steps.append(Step(index=index, action=raw, error=f"invalid action: {str(exc).splitlines()[0]}"))
                    continue
                toolkit = environment.user_tools if action.requestor == "user" else environment.tools
                write = toolkit is not None and toolkit.has_tool(action.name) and \
                    str(getattr(toolkit.tool_type(action.name), "value", "")) == "write"
                before = combined_hash(environment) if write else None
                try:
                    output = environment.make_tool_call(action.name, requestor=action.requestor, **action.arguments)
                    environment.sync_tools()
                    text = environment.to_json_str(output)
                    try:
                        parsed = json.loads(text)
                    except (json.JSONDecodeError, TypeError):
                        parsed = text
                    step = Step(index=index, action=raw, output=parsed)
                except Exception as exc:  # noqa: BLE001 - a tool error in gold is what we look for
                    step = Step(index=index, action=raw, error=f"{type(exc).__name__}: {exc}")
                step.changed = None if before is None else combined_hash(environment) != before
                replay.steps.append(step)
            replay.final_hash = combined_hash(environment)
            replay.gold_assertions = assertions(environment, task_model)
            return replay

    return run


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", path, exc.lineno) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path) from None


def _read_data(path: Path) -> Any:
    if path.suffix == ".toml":
        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"not valid TOML: {exc}", path) from None
    return _read_json(path)


def _find_tasks(folder: Path, tasks_file: str | None) -> tuple[list[dict[str, Any]], str]:
    if tasks_file:
        path = folder / tasks_file
        if not path.is_file():
            raise InputError(f"task file {tasks_file} not found", folder)
        candidates = [path]
    elif (folder / "tasks.json").is_file():
        candidates = [folder / "tasks.json"]
    elif (folder / "tasks").is_dir() and sorted((folder / "tasks").glob("task_*.json")):
        files = sorted((folder / "tasks").glob("task_*.json"))
        tasks = []
        for path in files:
            data = _read_json(path)
            if not isinstance(data, dict):
                raise InputError("a task file must hold one task object", path)
            tasks.append(data)
        return tasks, "tasks/"
    else:
        candidates = sorted(p for p in folder.glob("tasks_*.json") if p.name != "tasks_voice.json")
        if not candidates:
            raise InputError("no tasks.json, tasks/task_*.json or tasks_*.json in the folder", folder)
        if len(candidates) > 1:
            raise InputError(f"several task files ({', '.join(p.name for p in candidates)}): choose one with --tasks",
                             folder)
    data = _read_json(candidates[0])
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise InputError("the task file must hold a JSON list of task objects", candidates[0])
    return data, candidates[0].name


def _domain_name(folder: Path, tasks: list[dict[str, Any]]) -> str:
    if folder.name in TAU2_DOMAINS:
        return folder.name
    for task in tasks:
        raw = (task.get("user_scenario") or {}).get("instructions")
        if isinstance(raw, dict) and isinstance(raw.get("domain"), str):
            return raw["domain"]
    return folder.name


def world_now(policy: str) -> dt.datetime | None:
    """The world's fixed clock when the policy states it ("The current time is 2024-05-15 15:00:00")."""
    match = _NOW.search(policy)
    if not match:
        return None
    return dt.datetime.fromisoformat(f"{match.group(1)} {match.group(2) or '00:00'}")


def built_in_definition(domain: str):
    """The ``DomainDefinition`` of the built-in pack named ``domain`` (taugen's airline and telecom packs
    mirror tau2's domains of those names: the same tools, so the same request words; a folder of one of
    taugen's own bundles is named after its pack), or None when taugen ships no pack of that name."""
    from taugen.authoring.pack import BUILT_IN_PACKS, load_domain_config

    folder = next((f for f in BUILT_IN_PACKS.iterdir() if f.name == domain and (f / "domain.yaml").is_file()), None)
    if folder is None:  # a task file's domain name never becomes a path of its own
        return None
    return importlib.import_module(load_domain_config(folder).environment).DOMAIN


def _adopt_policy(taskset: TaskSet, mirror, domain: str) -> None:
    """Give a tau2 folder of a domain a built-in pack mirrors (same tools, same database shape) that pack's
    policy as code: its rules, its typed facts, its toolkit (the policy replay runs the gold on the folder's
    database with taugen's tools, equal in effect to tau2's) and its decision targets, so that lint-tasks runs
    the policy kinds (K1, K3, K9, K17) there too. Nothing is adopted when the folder's database does not
    validate as the pack's database model (another version of the domain)."""
    from taugen.authoring.pack import BUILT_IN_PACKS, load_pack
    from taugen.generators.policy import PackFacts

    try:
        mirror.toolkit.db_model.model_validate(taskset.db)
    except Exception:  # noqa: BLE001 - a database of another shape: the policy kinds do not run
        taskset.notes.append(f"the database does not have the {domain} pack's shape: its policy as code is not run")
        return
    taskset.facts = PackFacts(load_pack(BUILT_IN_PACKS / domain))
    taskset.rules = tuple(mirror.policy)
    taskset.toolkit_class = mirror.toolkit
    taskset.targets = tuple(getattr(mirror, "decision_targets", None) or ())


def taskset_from_folder(folder: str | Path, tasks_file: str | None = None, replay: bool = True) -> TaskSet:
    """Read a tau2 domain folder (see module docstring).

    Raises:
        InputError: not a folder, no task file, unreadable JSON/TOML, or a task file that is not a list.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError("not a folder", root)
    tasks, task_file = _find_tasks(root, tasks_file)
    stem = Path(task_file).stem if task_file.endswith(".json") else "tasks"
    split_path = next((p for p in (root / f"split_{stem}.json", root / "split_tasks.json") if p.is_file()), None)
    splits = _read_json(split_path) if split_path else None
    if splits is not None and not isinstance(splits, dict):
        raise InputError("the split file must map split names to lists of task ids", split_path)
    db_path = next((root / name for name in ("db.json", "db.toml") if (root / name).is_file()), None)
    user_db_path = next((root / name for name in ("user_db.json", "user_db.toml") if (root / name).is_file()), None)
    db = _read_data(db_path) if db_path else None
    user_db = _read_data(user_db_path) if user_db_path else None
    documents = {path.name: path.read_text(encoding="utf-8") for path in sorted(root.glob("*.md"))
                 if path.name.lower() not in ("readme.md", "source.md")}
    policy_order = [name for name in ("policy.md", "main_policy.md", "tech_support_manual.md") if name in documents]
    policy = "\n".join(documents[name] for name in policy_order) or "\n".join(documents.values())
    domain = _domain_name(root, tasks)
    mirror = built_in_definition(domain)
    taskset = TaskSet(source=str(root), domain=domain, tasks=tasks, task_file=task_file, splits=splits,
                      split_file=split_path.name if split_path else None,
                      subset=task_file not in ("tasks.json", "tasks/"), db=db, user_db=user_db,
                      documents=documents, now=world_now(policy),
                      requests=dict(getattr(mirror, "request_words", None) or {}))
    if getattr(mirror, "policy", None) and db is not None:
        _adopt_policy(taskset, mirror, domain)
    if domain in TAU2_DOMAINS and tau2_available():
        spec = TAU2_DOMAINS[domain]
        taskset.agent_tools, agent_helpers = tau2_tools(spec["tools"], "assistant")
        taskset.helpers["assistant"] = agent_helpers
        if "user_tools" in spec:
            taskset.user_tools, user_helpers = tau2_tools(spec["user_tools"], "user")
            taskset.helpers["user"] = user_helpers
        else:
            taskset.helpers["user"] = set()
        if db is None:
            taskset.notes.append(f"no db.json/db.toml: gold actions of {domain} are not replayed (checks that need "
                                 "tool outputs or the database are skipped)")
        elif replay:
            taskset.replayer = tau2_replayer(domain, db, user_db, policy)
    else:
        taskset.notes.append(f"tau2 is not installed or does not ship domain {domain!r}: tool inventories and gold "
                             "replay are unavailable (only data checks run)")
    if taskset.now is None:
        taskset.notes.append("the policy states no current time: chronology checks against 'now' are skipped")
    return taskset
