"""The telecom environment: τ²-bench's own telecom environment behind taugen's :class:`Toolkit` contract.

taugen does not re-implement the phone simulator: tasks are set up, solved and checked on tau2's
``TelecomEnvironment`` (agent ``TelecomTools`` over ``TelecomDB`` plus user ``TelecomUserTools`` over
``TelecomUserDB``), so what a certificate proves is what tau2's evaluator will see.

* :class:`TelecomWorld` is the world taugen builds: both databases in one pydantic model.
* :class:`TelecomToolkit` adapts the environment to :class:`~taugen.generators.environment.Toolkit`:
  ``call`` routes a tool to the agent or the user side, ``call_as`` names the side, ``run`` executes
  environment calls (tau2 ``EnvFunctionCall`` / ``EnvAssertion``: also non-tool methods such as
  ``turn_airplane_mode_on``), and every call is followed by tau2's ``sync_tools``.
* :class:`EnvCall` is a light ``EnvFunctionCall`` / ``EnvAssertion`` (``assert_value`` set) that
  serialises exactly as tau2 dumps them.
* :func:`freeze` / :func:`thaw` snapshot and restore both databases as bytes (a pickle round trip
  is ~40x faster than tau2's ``get_environment``, which re-reads the TOML files).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import inspect
import json
import pickle
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from taugen.errors import InputError
from taugen.generators.environment import Toolkit, ToolResult, ToolSpec

DATA_DIR = Path(__file__).resolve().parent / "data"
Side = Literal["assistant", "user"]


def _tau2():
    """Import tau2's telecom modules (the optional ``tau2`` extra), with a clear error when missing."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        from tau2.domains.telecom import (
            data_model,
            environment,
            tools,
            user_data_model,
            user_tools,
        )
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise InputError(f"the telecom domain needs tau2 (pip install 'taugen[tau2]'): {exc}") from None
    _quiet_loguru()
    return data_model, user_data_model, tools, user_tools, environment


def _quiet_loguru() -> None:
    """tau2's tools log every refuel / roaming change at INFO through loguru; silence tau2's records."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover
        return
    logger.disable("tau2")


@lru_cache(maxsize=1)
def tau2_classes() -> dict[str, Any]:
    """tau2's telecom classes by role (imported once)."""
    data_model, user_data_model, tools, user_tools, environment = _tau2()
    return {"TelecomDB": data_model.TelecomDB, "TelecomUserDB": user_data_model.TelecomUserDB,
            "TelecomTools": tools.TelecomTools, "TelecomUserTools": user_tools.TelecomUserTools,
            "TelecomEnvironment": environment.TelecomEnvironment, "LineStatus": data_model.LineStatus,
            "BillStatus": data_model.BillStatus}


class TelecomWorld(BaseModel):
    """Both telecom databases: ``agent`` (tau2 ``TelecomDB``) and ``user`` (tau2 ``TelecomUserDB``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent: Any
    user: Any


def load_world() -> TelecomWorld:
    """The telecom world as tau2 ships it (``db.toml`` / ``user_db.toml``, stored here as parsed JSON)."""
    classes = tau2_classes()
    agent = classes["TelecomDB"].model_validate(json.loads((DATA_DIR / "db.json").read_text()))
    user = classes["TelecomUserDB"].model_validate(json.loads((DATA_DIR / "user_db.json").read_text()))
    return TelecomWorld(agent=agent, user=user)


def raw_databases() -> tuple[dict[str, Any], dict[str, Any]]:
    """The two databases as parsed from tau2's TOML files (what the bundle writes back as TOML)."""
    return json.loads((DATA_DIR / "db.json").read_text()), json.loads((DATA_DIR / "user_db.json").read_text())


@dataclass(frozen=True)
class EnvCall:
    """A tau2 ``EnvFunctionCall`` (``assert_value`` None) or ``EnvAssertion`` (``assert_value`` a bool)."""

    env_type: Side
    func_name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    assert_value: bool | None = None
    message: str | None = None

    @property
    def is_assertion(self) -> bool:
        return self.assert_value is not None

    def to_tau2(self) -> dict[str, Any]:
        """As tau2's ``model_dump`` writes it (enum arguments become their values); a fresh dict."""
        data: dict[str, Any] = {"env_type": self.env_type, "func_name": self.func_name,
                                "arguments": {key: value.value if isinstance(value, Enum) else value
                                              for key, value in self.arguments.items()}}
        if self.assert_value is not None:
            data["assert_value"] = self.assert_value
            data["message"] = self.message
        return data

    @classmethod
    def from_tau2(cls, data: dict[str, Any], assertion: bool = False) -> EnvCall:
        return cls(env_type=data["env_type"], func_name=data["func_name"], arguments=dict(data.get("arguments") or {}),
                   assert_value=data.get("assert_value", True) if assertion else None, message=data.get("message"))

    def describe(self) -> str:
        args = ", ".join(f"{key}={getattr(value, 'value', value)!r}" for key, value in self.arguments.items())
        suffix = "" if self.assert_value in (None, True) else " is False"
        return f"{self.env_type}.{self.func_name}({args}){suffix}"


class AssertionFailed(AssertionError):
    """A sanity assertion inside a problem's setup did not hold."""


_KINDS = {"read": "read", "write": "write", "generic": "generic", "think": "generic"}


def _specs(toolkit_class: type) -> dict[str, ToolSpec]:
    specs: dict[str, ToolSpec] = {}
    for name, member in inspect.getmembers(toolkit_class, predicate=inspect.isfunction):
        if not getattr(member, "__tool__", False):
            continue
        tool_type = getattr(member, "__tool_type__", "read")
        kind = _KINDS.get(getattr(tool_type, "value", str(tool_type)), "generic")
        signature = inspect.signature(member)
        parameters: dict[str, str] = {}
        required = []
        for parameter in list(signature.parameters.values())[1:]:
            annotation = parameter.annotation
            parameters[parameter.name] = getattr(annotation, "__name__", None) or "str"
            if parameter.default is inspect.Parameter.empty:
                required.append(parameter.name)
        specs[name] = ToolSpec(name, kind, parameters, tuple(required), inspect.getdoc(member) or "",  # type: ignore[arg-type]
                               _parameters_model(member))
    return dict(sorted(specs.items()))


def _parameters_model(member: Any) -> type[BaseModel]:
    """The pydantic ``parameters`` model tau2 builds for a telecom tool (``tau2.environment.tool.as_tool``:
    types from the signature, each parameter's description from the docstring's Args section), without
    ``self``; its JSON schema is what tau2 shows an agent, so ``kit/tools.json`` carries the same."""
    from pydantic import create_model

    from tau2.environment.tool import as_tool

    fields = {name: (info.annotation, info) for name, info in as_tool(member).params.model_fields.items()
              if name != "self"}
    return create_model("parameters", **fields)


class TelecomToolkit(Toolkit):
    """taugen's toolkit contract over tau2's ``TelecomEnvironment``.

    Args:
        db: a :class:`TelecomWorld`; the environment mutates its two databases in place.
        now: the world's clock (tau2's telecom tools use their own fixed 2025-02-25).
    """

    db_model: ClassVar[type[BaseModel]] = TelecomWorld
    db: TelecomWorld

    def __init__(self, db: TelecomWorld, now: dt.datetime) -> None:
        super().__init__(db, now)
        classes = tau2_classes()
        self.env = classes["TelecomEnvironment"]("telecom", "", classes["TelecomTools"](db.agent),
                                                 classes["TelecomUserTools"](db.user))

    # ----------------------------------------------------------------- tool catalogues
    @classmethod
    def tool_specs(cls) -> dict[str, ToolSpec]:
        """The agent's tools (tau2 ``TelecomTools``)."""
        cached = cls.__dict__.get("_tool_specs_cache")
        if cached is None:
            cached = _specs(tau2_classes()["TelecomTools"])
            cls._tool_specs_cache = cached
        return cached

    @classmethod
    def user_tool_specs(cls) -> dict[str, ToolSpec]:
        """The simulated user's tools (tau2 ``TelecomUserTools``)."""
        cached = cls.__dict__.get("_user_tool_specs_cache")
        if cached is None:
            cached = _specs(tau2_classes()["TelecomUserTools"])
            cls._user_tool_specs_cache = cached
        return cached

    @classmethod
    def tools_of(cls, side: Side) -> dict[str, ToolSpec]:
        return cls.user_tool_specs() if side == "user" else cls.tool_specs()

    @classmethod
    def task_session(cls, view: Any, task: dict[str, Any]) -> Any:
        """A replay of one bundle task for the sufficiency validator (see :class:`.check.TaskSession`)."""
        from taugen.domains.telecom.check import TaskSession

        return TaskSession(view, task)

    # ----------------------------------------------------------------- calls
    def _side(self, side: Side):
        return self.env.user_tools if side == "user" else self.env.tools

    def call(self, name: str, **arguments: Any) -> ToolResult:
        """Call a tool by name: the agent's if it has one by that name, else the user's."""
        side: Side = "assistant" if name in self.tool_specs() or name not in self.user_tool_specs() else "user"
        return self.call_as(side, name, **arguments)

    def call_as(self, side: Side, name: str, **arguments: Any) -> ToolResult:
        """Call tool ``name`` as ``side`` the way tau2 replays a gold action (``make_tool_call`` then
        ``sync_tools``); a tool that raises becomes ``ToolResult.error``."""
        result = ToolResult(name=name, arguments=dict(arguments))
        if name not in self.tools_of(side):
            result.error = f"Tool '{name}' not found."
        else:
            try:
                result.output = getattr(self._side(side), name)(**arguments)
            except Exception as exc:  # noqa: BLE001 - tau2 tools signal refusals with ValueError and friends
                result.error = f"{type(exc).__name__}: {exc}"
            self.env.sync_tools()
        self.calls.append(result)
        return result

    def run(self, call: EnvCall) -> Any:
        """Run one environment call (any toolkit method) and ``sync_tools``; for an assertion, return
        whether it holds."""
        result = getattr(self._side(call.env_type), call.func_name)(**call.arguments)
        self.env.sync_tools()
        if call.is_assertion:
            if not isinstance(result, bool):
                raise TypeError(f"{call.func_name} returned {type(result).__name__}, not bool")
            return result == call.assert_value
        return result

    def holds(self, call: EnvCall) -> bool:
        """Whether assertion ``call`` holds; an assertion that raises does not hold.

        tau2 runs ``sync_tools`` after an assertion too; assertions only read, and every call that
        changes state is already followed by a sync, so that second sync would change nothing.
        """
        try:
            result = getattr(self._side(call.env_type), call.func_name)(**call.arguments)
        except Exception:  # noqa: BLE001 - tau2 assertions raise for missing ids
            return False
        return isinstance(result, bool) and result == call.assert_value

    def all_hold(self, assertions: list[EnvCall]) -> bool:
        """Whether every assertion holds (stops at the first that does not)."""
        return all(self.holds(assertion) for assertion in assertions)

    def unmet(self, assertions: list[EnvCall]) -> list[str]:
        """The assertions that do not hold, described."""
        return [assertion.describe() for assertion in assertions if not self.holds(assertion)]

    # ----------------------------------------------------------------- state
    def db_hash(self) -> str:
        """sha256 over tau2's two database hashes (``get_dict_hash`` of each, agent then user)."""
        return combined_hash(self.env.tools.get_db_hash(), self.env.user_tools.get_db_hash())

    def db_json(self) -> dict[str, Any]:
        return {"agent": self.db.agent.model_dump(mode="json"), "user": self.db.user.model_dump(mode="json")}

    def rebind(self, agent: Any, user: Any) -> TelecomToolkit:
        """Point this toolkit's environment at other databases, as a fresh environment over them would
        be (tau2 syncs at construction); cheaper than building the environment again."""
        self.db = TelecomWorld.model_construct(agent=agent, user=user)
        self.env.tools.db = agent
        self.env.user_tools.db = user
        self.env.tools.id_generator = type(self.env.tools.id_generator)()
        self.calls = []
        self.env.sync_tools()
        return self

    def use_agent_db(self, agent: Any) -> None:
        """Put another agent database under the environment (copy-on-write sharing, see compose)."""
        self.db.agent = agent
        self.env.tools.db = agent

    def restore(self, snapshot: BaseModel) -> None:
        super().restore(snapshot)
        classes = tau2_classes()
        self.env = classes["TelecomEnvironment"]("telecom", "", classes["TelecomTools"](self.db.agent),
                                                 classes["TelecomUserTools"](self.db.user))

    def freeze(self) -> bytes:
        """Both databases as bytes (for :func:`thaw`)."""
        return pickle.dumps((self.env.tools.db, self.env.user_tools.db), protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def thaw(cls, frozen: bytes, now: dt.datetime) -> TelecomToolkit:
        """A toolkit over a private copy of a frozen state."""
        agent, user = pickle.loads(frozen)
        return cls(TelecomWorld.model_construct(agent=agent, user=user), now)


def combined_hash(agent_hash: str, user_hash: str) -> str:
    """One hash for the pair of tau2 database hashes."""
    return hashlib.sha256(f"{agent_hash}:{user_hash}".encode()).hexdigest()
