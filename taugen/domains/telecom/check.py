"""The ``tasks`` validator's replay for telecom bundles (``DomainDefinition.check_tasks``).

Each task is replayed from the bundle's own files the way tau2 sets it up and grades it: the
bundle's ``db.toml`` and ``user_db.toml``, then ``initialization_actions``, then the gold actions each
by its requestor. Checks (tau2's ``TaskManager.verify_task``, read from the data alone):

* the task has a passing certificate;
* every gold tool exists for its requestor and raises nothing;
* the intent's goal does not hold after setup, nor before any gold action (each one is needed);
* after the gold actions the goal holds, or, for a transfer task, still does not;
* every graded env assertion holds after the gold actions; a do-nothing run fails;
* duplicates (K19): no two tasks share setup, scenario and gold.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from taugen.domains.telecom.compose import TRANSFER, id_parts
from taugen.domains.telecom.env import (
    EnvCall,
    TelecomToolkit,
    TelecomWorld,
    tau2_classes,
)
from taugen.domains.telecom.intents import INTENT_BY_NAME
from taugen.findings import Finding, error
from taugen.text import normalised_scenario


def bundle_world(view: Any) -> TelecomWorld:
    """The world a telecom bundle ships (``db.toml`` and ``user_db.toml``)."""
    import toml

    classes = tau2_classes()
    runtime = view.runtime_dir
    agent = classes["TelecomDB"].model_validate(toml.loads(view.files[f"{runtime}/db.toml"].decode()))
    user = classes["TelecomUserDB"].model_validate(toml.loads(view.files[f"{runtime}/user_db.toml"].decode()))
    return TelecomWorld.model_construct(agent=agent, user=user)


def frozen_bundle_world(view: Any) -> bytes:
    """The bundle's world, frozen once per view."""
    cache = view.__dict__.setdefault("_telecom_cache", {})
    if "frozen" not in cache:
        cache["frozen"] = TelecomToolkit(bundle_world(view), view.now).freeze()
    return cache["frozen"]


class TaskSession:
    """One task on tau2's environment after its initialization actions: gold steps by requestor, and
    read-only probes (for :mod:`taugen.validators.sufficiency`)."""

    def __init__(self, view: Any, task: dict[str, Any]) -> None:
        from taugen.text import as_text

        self._text = as_text
        self.toolkit = TelecomToolkit.thaw(frozen_bundle_world(view), view.now)
        for call in (task.get("initial_state") or {}).get("initialization_actions") or []:
            self.toolkit.run(EnvCall.from_tau2(call))

    def step(self, action: dict[str, Any]) -> str | None:
        result = self.toolkit.call_as(action.get("requestor") or "assistant", action["name"],
                                      **(action.get("arguments") or {}))
        return self._text(result.output) if result.ok else None

    def probe(self, side: str, name: str, arguments: dict[str, Any]) -> str | None:
        if name not in self.toolkit.tools_of(side):  # type: ignore[arg-type]
            return None
        try:
            return self._text(getattr(self.toolkit._side(side), name)(**arguments))  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - a read that refuses returns nothing
            return None


def replay_task(frozen: bytes, task: dict[str, Any], now) -> tuple[list[str], TelecomToolkit]:
    """Problems found replaying one task from the frozen world; also the toolkit after the gold."""
    problems: list[str] = []
    intent_name = id_parts(task["id"])[0]
    intent = INTENT_BY_NAME.get(intent_name)
    if intent is None:
        return [f"unknown intent '{intent_name}'"], TelecomToolkit.thaw(frozen, now)
    toolkit = TelecomToolkit.thaw(frozen, now)
    goal = intent.assertions(True)
    criteria = task.get("evaluation_criteria") or {}
    actions = criteria.get("actions") or []
    assertions = [EnvCall.from_tau2(a, assertion=True) for a in criteria.get("env_assertions") or []]
    basis = criteria.get("reward_basis") or []
    for call in (task.get("initial_state") or {}).get("initialization_actions") or []:
        try:
            toolkit.run(EnvCall.from_tau2(call))
        except Exception as exc:  # noqa: BLE001 - a broken init is a finding, not a crash
            return [f"initialization action {call.get('func_name')} raised {type(exc).__name__}: {exc}"], toolkit
    if not toolkit.unmet(goal):
        problems.append("the goal already holds after setup")
    if not toolkit.unmet(assertions) and "ACTION" not in basis:
        problems.append("a do-nothing run passes every graded assertion")
    transfer = any(a.get("name") == TRANSFER for a in actions)
    for index, action in enumerate(actions):
        if index > 0 and not toolkit.unmet(goal):
            problems.append(f"the goal already holds before {action.get('action_id')}: it is not needed")
        requestor = action.get("requestor", "assistant")
        result = toolkit.call_as(requestor, action["name"], **(action.get("arguments") or {}))
        if not result.ok:
            problems.append(f"gold {action.get('action_id')} ({requestor} {action['name']}) failed: {result.error}")
    reached = not toolkit.unmet(goal)
    if transfer and reached:
        problems.append("a transfer task reaches the goal")
    if not transfer and not reached:
        problems.append("the gold actions do not reach the goal")
    for failed in toolkit.unmet(assertions):
        problems.append(f"graded assertion fails after the gold actions: {failed}")
    return problems, toolkit


def check_tasks(view: Any) -> list[Finding]:
    """See the module docstring."""
    findings: list[Finding] = []
    certificates = view.certificates
    try:
        world = bundle_world(view)
    except Exception as exc:  # noqa: BLE001
        return [error("certificate", "world_unreadable", view.runtime_dir,
                      f"db.toml / user_db.toml cannot be loaded by tau2's telecom models: {exc}")]
    frozen = TelecomToolkit(world, view.now).freeze()
    view.__dict__.setdefault("_telecom_cache", {})["frozen"] = frozen
    signatures: dict[str, str] = {}
    for task in view.tasks:
        task_id = task["id"]
        certificate = certificates.get(task_id)
        if certificate is None or not certificate.get("ok"):
            findings.append(error("certificate", "not_certified", task_id, "the task has no passing certificate",
                                  evidence=json.dumps(certificate)[:400],
                                  rule="tau2 verify_task: broken after setup, every action needed, fixed after "
                                       "gold (or still broken for a transfer), assertions hold"))
        problems, _ = replay_task(frozen, task, view.now)
        for problem in problems:
            findings.append(error("certificate", "replay", task_id, problem,
                                  rule="replaying the task on tau2's telecom environment as tau2 does"))
        setup = json.dumps((task.get("initial_state") or {}).get("initialization_actions"), sort_keys=True)
        scenario = normalised_scenario([task.get("user_scenario"), task.get("ticket")])
        gold = json.dumps([{k: v for k, v in a.items() if k != "action_id"}
                           for a in (task.get("evaluation_criteria") or {}).get("actions") or []], sort_keys=True)
        signature = hashlib.sha256(f"{setup}|{scenario}|{gold}".encode()).hexdigest()
        if signature in signatures:
            findings.append(error("tasks", "K19", task_id, f"duplicate task: same setup, normalised scenario and "
                                  f"gold as {signatures[signature]}", rule="K19: no duplicate tasks"))
        signatures.setdefault(signature, task_id)
    return findings
