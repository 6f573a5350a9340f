"""K1, K3, K9, K17 (and policy-required omissions, K11): gold writes replayed through the policy as code.

Needs a domain whose ``DomainDefinition.policy`` holds :class:`~taugen.generators.policy.PolicyRule`
objects and the bundle's typed facts, so it runs on taugen bundles (not on foreign folders).

* K1 / K3 / K2: each gold action is checked, on the state produced by the earlier gold steps and at the
  world's ``now``, against every rule; a violated rule is reported with the fact ids it implements
  (a forbidden write is K1, an amount that differs from what the facts compute is K3, a broken tool
  contract is K2). After the last step, obligations are settled (a write the policy requires but the
  gold lacks is K11).
* K9: each gold write that itself complies is replaced, one at a time, by the rules' alternatives (other
  reasons, shipping options, departments; amounts recomputed from the facts) and by the same write on
  another fee of the same type that the scenario does not tell apart; an alternative that replays
  without a tool error or an error-level violation, reaches a different end state, and does not
  contradict a value the user states is another policy-compliant end state meeting the goal.
* K17: every gold call is a decision "act" with the rules' inputs; every write the customer's state
  invites that the scenario mentions but the gold does not make is a decision "refuse". Two tasks with
  equal inputs for a rule and opposite decisions contradict each other.
"""

from __future__ import annotations

import json
import re
from typing import Any

from taugen.generators.environment import Toolkit, clone
from taugen.generators.policy import (
    PolicyContext, Violation, alternatives, candidates, decision_inputs, evaluate, settle,
)
from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import (
    Defect, TaskSet, actions, looks_like_id, mentions, scenario_text, task_id, to_findings, user_text,
)
from taugen.validators.defects.sources import taskset_for_view, taugen_start, world
from taugen.findings import Finding
from taugen.validators.memo import Memo, digest
from taugen.validators.registry import validator

CHECK = "defect_policy"
_TARGETS = ("account_id",)


def _rule_text(taskset: TaskSet, name: str) -> str:
    rule = next((r for r in taskset.rules if r.name == name), None)
    if rule is None:
        return name
    ids = rule.fact_ids(taskset.facts) if taskset.facts is not None else rule.facts
    shown = ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
    return f"{rule.name}: {rule.description} (facts: {shown})"


def _defect(taskset: TaskSet, task: dict[str, Any], path: str, violation: Violation, evidence: Any) -> Defect:
    return Defect(kind=violation.code, severity=violation.severity, task=task_id(task), path=path,
                  message=f"{violation.message} [facts: {', '.join(violation.facts)}]",
                  evidence=json.dumps(evidence, sort_keys=True, default=str)[:300],
                  rule=_rule_text(taskset, violation.rule))


def _start(taskset: TaskSet, task: dict[str, Any]) -> Toolkit | None:
    return taugen_start(taskset, task)


def run_policy(taskset: TaskSet, task: dict[str, Any], calls: list[dict[str, Any]], toolkit: Toolkit | None = None,
               done: list[tuple[str, dict[str, Any]]] | None = None) -> tuple[list[tuple[int, Violation]], list[str], Toolkit | None]:
    """Replay ``calls`` checking every rule before each; returns ``(index, violation)`` pairs (index -1
    for obligations settled at the end), the tool errors, and the final toolkit.

    ``toolkit`` and ``done`` continue a replay from a prefix already run (indices then count from the
    prefix's length); by default the replay starts from the task's initial state.
    """
    toolkit = toolkit if toolkit is not None else _start(taskset, task)
    if toolkit is None:
        return [], ["initial state does not validate"], None
    scenario = scenario_text(task)
    found: list[tuple[int, Violation]] = []
    errors: list[str] = []
    done = list(done or [])
    offset = len(done)
    for index, call in enumerate(calls, offset):
        name, arguments = call.get("name", ""), call.get("arguments") or {}
        for violation in evaluate(taskset.rules, toolkit.db, name, arguments, taskset.facts, taskset.now, scenario, done):
            found.append((index, violation))
        result = toolkit.call(name, **arguments)
        if not result.ok:
            errors.append(f"{index} {name}: {result.error}")
        done.append((name, arguments))
    for violation in settle(taskset.rules, toolkit.db, taskset.facts, taskset.now, done, scenario):
        found.append((-1, violation))
    return found, errors, toolkit


def _violation_defects(taskset: TaskSet, task: dict[str, Any], found: list[tuple[int, Violation]]) -> list[Defect]:
    gold = actions(task)
    defects = []
    for index, violation in found:
        if index < 0:
            defects.append(_defect(taskset, task, "evaluation_criteria.actions", violation, [a.get("name") for a in gold]))
            continue
        path = f"evaluation_criteria.actions[{index}]"
        if violation.argument:
            path += f".arguments.{violation.argument}"
        defects.append(_defect(taskset, task, path, violation, gold[index]))
    return defects


def _contradicts_user(task: dict[str, Any], index: int, gold: dict[str, Any], option: dict[str, Any]) -> bool:
    """The option changes a value the user asks for: a sentence of the scenario states the gold's value
    and not the option's (a sentence naming both, "standard or expedited", leaves the choice open).

    A number that another gold action (``index`` is this one's position) also carries as an argument is
    no statement about this write: "go ahead with the minimum opening deposit for $25.00" asks for the
    service request's amount, and says nothing about a replacement card fee that happens to be $25 too."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n", user_text(task)) if s.strip()]
    elsewhere = {_number(value) for position, action in enumerate(actions(task)) if position != index
                 for value in (action.get("arguments") or {}).values()} - {None}
    for key, value in option.items():
        if gold.get(key) == value:
            continue
        if _number(gold.get(key)) in elsewhere:
            continue
        stating = [s for s in sentences if mentions(s, gold.get(key))]
        if stating and not any(mentions(s, value) for s in stating):
            return True
    return False


def _number(value: Any) -> float | None:
    """A numeric argument as a float (None for anything else, booleans included)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _k9(task: dict[str, Any], index: int, name: str, arguments: dict[str, Any], option: dict[str, Any]) -> Defect:
    changed = {k: v for k, v in option.items() if arguments.get(k) != v}
    return Defect(
        kind="K9", severity="error", task=task_id(task), path=f"evaluation_criteria.actions[{index}].arguments",
        message=f"{name} with {json.dumps(changed, sort_keys=True)} instead of the gold's "
                f"{json.dumps({k: arguments.get(k) for k in changed}, sort_keys=True)} also complies with every "
                "policy rule and reaches a different end state; the scenario does not say which",
        evidence=json.dumps(option, sort_keys=True)[:300],
        rule="bounded search for other compliant end states meeting the goal; tighten the scenario or accept the set")


def _fee_substitutes(toolkit: Toolkit, task: dict[str, Any], gold: list[dict[str, Any]],
                     arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The same write aimed at another fee: "which of two eligible fees" (K9).

    When a gold write's ``transaction_id`` names a fee (``kind == "fee"``), every other fee of the same
    account and ``fee_type`` that no gold call targets is an option, unless the scenario tells the two
    apart: some field (amount, date, description, id) whose gold value the scenario states and whose
    other value it does not. Policy and replay then decide whether the option is another compliant end
    state. Only fees: purchases are told apart by order words ("the later charge") that K15 judges.
    """
    transactions = getattr(toolkit.db, "transactions", None)
    fee = transactions.get(arguments.get("transaction_id", "")) if transactions is not None else None
    if fee is None or getattr(fee, "kind", None) != "fee":
        return []
    targeted = {(g.get("arguments") or {}).get("transaction_id") for g in gold}
    text = scenario_text(task)
    wanted = fee.model_dump(mode="json")
    options = []
    for other_id, other in sorted(transactions.items()):
        if other_id in targeted or other.kind != "fee" or other.account_id != fee.account_id \
                or other.fee_type != fee.fee_type:
            continue
        found = other.model_dump(mode="json")
        if any(found.get(key) != value and mentions(text, value) and not mentions(text, found.get(key))
               for key, value in wanted.items()):
            continue
        options.append({**arguments, "transaction_id": other_id})
    return options


def task_pass(taskset: TaskSet, task: dict[str, Any]) -> tuple[list[Defect], list[tuple[str, str, str, str]]]:
    """One replay of a task's gold through the policy: K1/K3/K2/K11 defects, K9 alternatives, and the
    task's K17 decision points ``(rule, tool, inputs json, "act"|"refuse")``."""
    toolkit = _start(taskset, task)
    if toolkit is None:
        return [], []
    gold = actions(task)
    scenario = scenario_text(task)
    replay = taskset.replay(task)
    gold_final = replay.final_hash if replay else None
    points = _refused_points(taskset, task, toolkit, scenario, gold)
    found: list[tuple[int, Violation]] = []
    defects: list[Defect] = []
    done: list[tuple[str, dict[str, Any]]] = []
    for index, call in enumerate(gold):
        name, arguments = call.get("name", ""), call.get("arguments") or {}
        context = PolicyContext(state=toolkit.db, facts=taskset.facts, now=taskset.now, scenario=scenario,
                                calls=list(done))
        found += [(index, v) for v in evaluate(taskset.rules, toolkit.db, name, arguments, taskset.facts, taskset.now,
                                               scenario, done)]
        spec = taskset.agent_tools.get(name)
        if spec is not None and spec.kind != "read":
            for rule, inputs in decision_inputs(taskset.rules, context, name, arguments).items():
                points.append((rule, name, json.dumps(inputs, sort_keys=True), "act"))
            erring = any(v.severity == "error" and i == index for i, v in found)
            options = [] if erring else alternatives(taskset.rules, context, name, arguments) + \
                _fee_substitutes(toolkit, task, gold, arguments)
            for option in options:
                if _contradicts_user(task, index, arguments, option):
                    continue
                if any(v.severity == "error" for v in evaluate(taskset.rules, toolkit.db, name, option, taskset.facts,
                                                                 taskset.now, scenario, done)):
                    continue
                branch = taskset.toolkit_class(clone(toolkit.db), taskset.now)
                violations, errors, final = run_policy(taskset, task, [{**call, "arguments": option}, *gold[index + 1:]],
                                                       branch, done)
                if errors or final is None or any(v.severity == "error" for _, v in violations):
                    continue
                if final.db_hash() != gold_final:
                    defects.append(_k9(task, index, name, arguments, option))
        toolkit.call(name, **arguments)
        done.append((name, arguments))
    found += [(-1, v) for v in settle(taskset.rules, toolkit.db, taskset.facts, taskset.now, done, scenario)]
    return _violation_defects(taskset, task, found) + defects, points


def check_policy(taskset: TaskSet, task: dict[str, Any]) -> list[Defect]:
    """K1 / K3 / K2 / K11 / K9 for one task (see module docstring)."""
    return task_pass(taskset, task)[0]


def _customer(task: dict[str, Any]) -> str | None:
    """The customer a task is about: a gold argument ``customer_id``, else the ``[CUSTOMER:...]`` part of a
    taugen task id (a domain whose tools name the customer otherwise, such as a ``user_id``), else the
    ``user_id`` argument of the gold's first call that has one (a tau2 task folder)."""
    for call in actions(task):
        customer = (call.get("arguments") or {}).get("customer_id")
        if customer:
            return customer
    found = re.search(r"\[CUSTOMER:([^\]]+)\]", str(task.get("id") or ""))
    if found:
        return found.group(1)
    # a tau2 task (no taugen id): the user the gold's first call with a user id names
    return next((call["arguments"]["user_id"] for call in actions(task)
                 if isinstance((call.get("arguments") or {}).get("user_id"), str)), None)


def _same_target(a: dict[str, Any], b: dict[str, Any], keys: tuple[str, ...] = _TARGETS) -> bool:
    return any(key in a and a.get(key) == b.get(key) for key in keys)


def _described(record: Any, text: str) -> int:
    """How many of a record's identifying values the scenario states (an identifier, such as a claim
    number, counts twice: it names one record on its own)."""
    data = record.model_dump(mode="json") if hasattr(record, "model_dump") else {}
    hits = 0
    for key, value in data.items():
        if key.endswith("_on") or key in ("kind", "status", "country", "fee_type", "regulation", "reason"):
            continue
        if isinstance(value, (int, float)) and value < 0:
            value = -value
        if mentions(text, value):
            hits += 2 if looks_like_id(value) else 1  # an identifier names one record on its own
    return hits


def _refused_points(taskset: TaskSet, task: dict[str, Any], toolkit: Toolkit, scenario: str,
                    gold: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """Decision points "refuse": writes the customer's initial state invites, that the scenario describes
    (two identifying values or the id) of a record named by a target argument (``taskset.targets``, the
    domain's decision targets), and that the gold does not make."""
    customer = _customer(task)
    if not customer:
        return []
    start = PolicyContext(state=toolkit.db, facts=taskset.facts, now=taskset.now, scenario=scenario)
    points = []
    tables = taskset.targets
    keys = _TARGETS + tuple(key for key, _table in taskset.targets)
    for name, arguments in candidates(taskset.rules, start, customer):
        if any(g.get("name") == name and _same_target(arguments, g.get("arguments") or {}, keys) for g in gold):
            continue
        record = next((getattr(toolkit.db, table).get(arguments[key]) for key, table in tables
                       if key in arguments), None)
        if record is None or _described(record, scenario) < 2:
            continue
        siblings = [g for g in gold if g.get("name") == name]
        if any(_described(record, scenario) <= _described_target(toolkit, g, scenario, tables) for g in siblings):
            continue  # the scenario's reference resolves to the gold's own target (K7/K15 judge siblings)
        for rule, inputs in decision_inputs(taskset.rules, start, name, arguments).items():
            points.append((rule, name, json.dumps(inputs, sort_keys=True), "refuse"))
    return points


def _described_target(toolkit: Toolkit, call: dict[str, Any], text: str,
                      tables: tuple[tuple[str, str], ...]) -> int:
    arguments = call.get("arguments") or {}
    for key, table in tables:
        if key in arguments:
            record = getattr(toolkit.db, table).get(arguments[key])
            return _described(record, text) if record is not None else 0
    return 0


def check_consistency(taskset: TaskSet, points: dict[str, list[tuple[str, str, str, str]]]) -> list[Defect]:
    """K17 across the task set, from each task's decision points."""
    by_key: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for identifier, task_points in points.items():
        for rule, tool, inputs, decision in task_points:
            by_key.setdefault((rule, tool, inputs), {}).setdefault(decision, []).append(identifier)
    defects = []
    for (rule, tool, inputs), outcome in sorted(by_key.items()):
        if "act" in outcome and "refuse" in outcome:
            for refused in sorted(set(outcome["refuse"])):
                defects.append(Defect(
                    kind="K17", severity="error", task=refused, path="evaluation_criteria.actions",
                    message=f"the gold does not {tool} although task {sorted(outcome['act'])[0]} does with equal "
                            f"inputs of rule {rule}: {inputs}",
                    evidence=inputs, rule="compare decisions across tasks with equal rule inputs"))
    return defects


def policy_key(taskset: TaskSet) -> str | None:
    """Digest of what a task's replay through the policy reads besides the task: the world (database,
    clock, toolkit), the facts and the domain's rules; None when the facts are not a manifest's table
    (a fact source whose content the digest cannot name: its work is not remembered)."""
    if "policy_key" not in taskset.cache:
        table = getattr(taskset.facts, "facts", None)
        taskset.cache["policy_key"] = digest(world(taskset), table, [id(rule) for rule in taskset.rules]) \
            if isinstance(table, dict) else None
    return taskset.cache["policy_key"]


def policy_defects(taskset: TaskSet) -> list[Defect]:
    """Every policy-family defect of a task set (empty without rules or facts)."""
    if not taskset.rules or taskset.facts is None or taskset.toolkit_class is None or taskset.replayer is None:
        return []
    defects: list[Defect] = []
    points = {}
    shared = policy_key(taskset)
    for task in taskset.tasks:
        if shared is None:
            found, points[task_id(task)] = task_pass(taskset, task)
        else:
            found, points[task_id(task)] = _PASSES.compute(digest(shared, task), lambda: task_pass(taskset, task))
        defects += found
    return defects + check_consistency(taskset, points)


_PASSES: Memo[tuple[list[Defect], list[tuple[str, str, str, str]]]] = Memo(20_000)
"""Each task's policy pass by the digest of what it reads (:func:`policy_defects`); only read."""


@validator(CHECK, cost=2)
def check_policy_defects(view: BundleView) -> list[Finding]:
    """K1 / K3 / K9 / K17 on a taugen bundle (see module docstring)."""
    taskset = taskset_for_view(view)
    return to_findings(CHECK, policy_defects(taskset), taskset.tasks)
