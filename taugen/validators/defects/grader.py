"""K12: the grader checks the wrong or too few things.

tau2's reward is the product of the parts named in ``reward_basis`` (``../shared/reference/
tau2-format.md`` §4). Rules:

* something is graded: an empty ``reward_basis`` is an error (tau2 multiplies no parts: every run
  scores 1);
* every populated criterion is graded: a ``communicate_info`` string that neither COMMUNICATE nor a
  graded NL assertion checks is an error (the task says what the agent must say, and nothing looks);
  ``nl_assertions`` or ``env_assertions`` filled in but absent from ``reward_basis`` is a warning (often
  kept as documentation); when every task of the set does it, it is the set's grading convention, not a
  task's defect, and is one file-level note instead (tau2's airline fills ``nl_assertions`` in all 50
  tasks and grades them in none: 50 warnings, one per task, flagged fixed and unfixed tasks alike).
  Ungraded NL assertions that only restate what a graded part checks lose nothing and are not reported
  (:func:`restated_by_graded_parts`: "Agent should process the exchange." beside a gold exchange graded
  on DB; tau2 retail 105-113 before its fix: 8 warnings, 2 on tasks later fixed, 1 for its grading);
* something graded is not vacuous: when every graded part's criterion is empty, every run scores 1
  (error). One empty part beside parts that grade is not reported: tau2 multiplies the parts, so it
  gives 1.0 and the others decide (tau2's default basis ``[DB, COMMUNICATE]`` leaves COMMUNICATE empty
  on most tasks; as a warning it fired on 44 of 50 airline and 76 of 114 retail tasks, no more often on
  the tasks tau2 later fixed than on the others: precision 0.52 and 0.20 against base rates 0.54 and
  0.25, ``scripts/fix_history.py``);
* a ``communicate_info`` string must be able to match and must not match by accident: a comma (tau2
  strips commas from the agent's replies, so it never matches), a sentence about the agent (a judge
  statement, not words the agent says), or a bare short token (``"5"``, ``"IL"``) that any answer or a
  list of every option contains. tau2 needs every string in a reply, so such a weak string is an error
  only when the task's other strings are weak too (``["10"]``, ``["polyester", "cotton"]``); beside a
  specific one (``["840887978435", "IL"]``) it adds no check but the part is not vacuous, so the reward
  is not affected: info (as errors they flagged 12 tau2 tasks, 4 later fixed, none for this reason; as
  warnings, retail 5 tasks, none fixed, and airline 14, fixed for a wrong amount beside it);
* a do-nothing run scores 0 and the gold run scores 1: computed from the replay (initial and final
  database hash, env assertions before and after the gold). In a foreign set, a task whose gold leaves
  the graded database as it starts, graded on that database alone, is one entry of a set-level warning,
  not an error each: a do-nothing run passes it exactly as a correct refusal, explanation or transfer
  does, whatever its (ungraded) NL assertions say, so the per-task finding would only restate the set's
  grading choice (tau2 grades its refusals, transfers and explanations on the database). What differs
  between such tasks is reported by the kinds that own it: an ungraded expectation by the "filled in but
  not graded" rule above, a request the gold leaves undone by K11. As per-task errors, first for the
  refusals ("Agent does not cancel 3RK2T9"): tau2's airline has 15, which flagged 3 of the 27 tasks tau2
  later fixed and 12 it kept, none fixed for its grading (precision 20% against a base rate of 54%); then
  for the rest (a transfer, "Agent identifies that the user is a Regular member", no NL assertion):
  airline 5 tasks, 2 fixed, retail 7, 2 fixed, none for its grading (``scripts/fix_history.py``). A gold
  write that raises leaves the database as it starts because the gold is broken, not the grader: K2
  names it, and K12 says nothing. Taugen bundles keep the per-task error: they must grade each refusal;
* one wrong write flips the reward: a gold write that leaves the graded databases unchanged is not
  graded at all (a wrong version of it, or none, scores the same).

For taugen bundles the unneeded-write and failing-env-assertion parts are already certificate checks
(``taugen.validators.tasks``) and are not repeated here; the do-nothing run is checked for every task
set, since it is this kind's own rule.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import (
    Defect, TaskSet, actions, criteria, excerpt, reward_basis, task_id, to_findings,
)
from taugen.validators.defects.sources import taskset_for_view
from taugen.findings import Finding
from taugen.validators.registry import validator

CHECK = "defect_grader"
RULE = ("every populated criterion is graded; no graded part is vacuous; a do-nothing run and a list-every-answer "
        "run both score 0; one wrong DB write flips the reward")
_PARTS = {"COMMUNICATE": "communicate_info", "NL_ASSERTION": "nl_assertions", "ENV_ASSERTION": "env_assertions",
          "ACTION": "actions"}
_JUDGE = re.compile(r"^\s*(the\s+)?agent\b|\b(should|must|confirm(ed|s)?|acknowledg\w+)\b", re.I)


def _never_matches(info: str) -> str | None:
    """Why the ``communicate_info`` string ``info`` can never occur in a reply (a comma, a sentence about
    the agent), or None."""
    text = str(info)
    if "," in text:
        return "contains a comma; tau2 removes commas from the agent's replies, so it can never match"
    if _JUDGE.search(text) and len(text.split()) >= 4:
        return "is a statement about the agent, not words the agent says; as a substring it will never match"
    return None


def _matches_by_accident(info: str, taskset: TaskSet) -> str | None:
    """Why ``info`` would occur in almost any reply (too short, a common option value in the database), or
    None."""
    token = str(info).strip()
    if len(token) <= 2 or re.fullmatch(r"\d{1,2}", token):
        return "is so short that almost any reply contains it"
    if re.fullmatch(r"[A-Za-z]+", token) and taskset.db is not None:
        owners = {path.rsplit(".", 1)[0].split("[")[0] for key, path in taskset.db_index.where(token)}
        lower = {path for key, path in taskset.db_index.where(token.lower())}
        if len(owners) + len(lower) >= 5:
            return f"'{token}' is a common option value in the database; a reply listing every option contains it"
    return None


def specific_communicate_info(infos: list[Any], problems: list[str | None]) -> list[str]:
    """The ``communicate_info`` strings that no reply contains by accident: those without a problem
    (``problems[i]``: :func:`_never_matches` or :func:`_matches_by_accident` of ``infos[i]``; the two lists have equal length).

    tau2's COMMUNICATE part scores 1 only when *every* string occurs in some reply
    (``tau2.evaluator.evaluator_communicate``: ``all(result.met ...)``), so the part is as strong as its
    most specific string: ``["840887978435", "IL"]`` is not vacuous although "IL" alone would be, while
    ``["10"]`` or ``["polyester", "cotton"]`` is (defect-kinds.md K12: "no graded part is vacuous"; "a bare
    '5' as communicate_info that any answer contains"). Returns them in order; empty when every string
    is weak or there is none. Never raises.
    """
    return [str(info) for info, problem in zip(infos, problems) if problem is None]


def _ungraded_communicate(data: dict[str, Any], basis: list[str]) -> list[str]:
    """The communicate_info strings no graded part checks: COMMUNICATE is not graded and no graded NL
    assertion states the string (case and commas ignored)."""
    if "COMMUNICATE" in basis:
        return []
    said = " ".join(data.get("nl_assertions") or []) if "NL_ASSERTION" in basis else ""
    said = said.replace(",", "").lower()
    return [str(info) for info in data.get("communicate_info") or []
            if str(info).replace(",", "").lower().strip() not in said]


def _do_nothing(taskset: TaskSet, task: dict[str, Any]) -> tuple[float | None, str]:
    """(reward of a run that makes no tool call, why), None when it cannot be told."""
    data = criteria(task)
    gold = actions(task)
    reasons = []
    reward = 1.0
    replay = taskset.replay(task)
    for part in reward_basis(task):
        if part == "DB":
            if data.get("actions") is None and data.get("env_assertions") is None:
                reasons.append("DB is not compared (no actions and no env assertions)")
            elif replay is not None and replay.init_error is None:
                if replay.initial_hash != replay.final_hash:
                    return 0.0, ""
                reasons.append("the gold leaves the database as it starts")
            elif any(taskset.is_write(a) or taskset.tool(a.get("name", ""), a.get("requestor") or "assistant") is None
                     for a in gold):
                return 0.0, ""
            else:
                reasons.append("the gold makes no write, so the database stays as it starts")
        elif part == "ENV_ASSERTION":
            assertions = data.get("env_assertions") or []
            if not assertions:
                reasons.append("no env assertions")
            elif replay is None or replay.init_error is not None:
                return None, ""
            elif all(result is True for result in replay.empty_assertions):
                reasons.append("every env assertion already holds before the agent acts")
            else:
                return 0.0, ""
        elif part == "ACTION":
            if gold:
                return 0.0, ""
            reasons.append("no gold actions")
        elif part == "COMMUNICATE":
            if data.get("communicate_info"):
                return 0.0, ""
            reasons.append("nothing to communicate")
        elif part == "NL_ASSERTION":
            if data.get("nl_assertions"):
                return 0.0, ""
            reasons.append("no NL assertions")
    return reward, "; ".join(reasons)


def grader_defects(taskset: TaskSet) -> list[Defect]:
    """Every K12 defect of ``taskset`` (see the module docstring), per task in task order, then the
    criteria filled in but never graded (per task, or one file-level note where every task does it)."""
    defects: list[Defect] = []
    ungraded: dict[str, list[tuple[Defect, str, bool]]] = defaultdict(list)  # criterion -> (warning, basis, restated)
    refusals: list[str] = []  # tasks whose whole documented expectation is that nothing changes
    for task in taskset.tasks:
        identifier = task_id(task)
        data = criteria(task)
        if not task.get("evaluation_criteria"):
            defects.append(Defect("K12", "error", identifier, "evaluation_criteria",
                                  "the task has no evaluation criteria: tau2 gives every run reward 1", rule=RULE))
            continue
        basis = reward_basis(task)
        if not basis:
            defects.append(Defect("K12", "error", identifier, "evaluation_criteria.reward_basis",
                                  "reward_basis is empty: tau2's reward is the product of no parts, so every run "
                                  "scores 1", rule=RULE))
            continue
        for info in _ungraded_communicate(data, basis):
            defects.append(Defect("K12", "error", identifier, "evaluation_criteria.communicate_info",
                                  f"communicate_info {info!r} is never graded: COMMUNICATE is not in reward_basis "
                                  f"{basis} and no graded NL assertion states it", evidence=str(info), rule=RULE))
        for part, key in _PARTS.items():
            if part in ("ACTION", "COMMUNICATE"):
                continue  # actions also derive the gold database; communicate_info is checked above
            if data.get(key) and part not in basis:
                restated = key == "nl_assertions" and restated_by_graded_parts(taskset, task)
                ungraded[key].append((Defect("K12", "warning", identifier, f"evaluation_criteria.{key}",
                                             f"{key} is filled in but {part} is not in reward_basis {basis}: it is "
                                             "never graded", evidence=excerpt(data.get(key)), rule=RULE), str(basis),
                                      restated))
        vacuous = [part for part in basis if part in _PARTS and not data.get(_PARTS[part])]
        if "DB" in basis and data.get("actions") is None and data.get("env_assertions") is None:
            vacuous.append("DB")
        grades_nothing = bool(vacuous) and len(vacuous) == len(set(basis))
        if grades_nothing:
            defects.append(Defect("K12", "error", identifier, "evaluation_criteria.reward_basis",
                                  f"graded part(s) {', '.join(vacuous)} have nothing to check and always give 1.0: "
                                  "every run scores 1", evidence=str(basis), rule=RULE))
        graded = "COMMUNICATE" in basis
        infos = data.get("communicate_info") or []
        never = [_never_matches(info) for info in infos]
        accidental = [None if reason else _matches_by_accident(info, taskset) for info, reason in zip(infos, never)]
        problems = [reason or accident for reason, accident in zip(never, accidental)]
        specific = specific_communicate_info(infos, problems)
        for position, (info, problem) in enumerate(zip(infos, problems)):
            if not problem:
                continue
            if accidental[position] and specific:
                # tau2 needs every string in a reply: the part still checks the specific one (no defect)
                defects.append(Defect("K12", "info", identifier, f"evaluation_criteria.communicate_info[{position}]",
                                      f"communicate_info {info!r} {problem}; it adds no check, though the "
                                      f"COMMUNICATE part still needs {specific[0]!r}", evidence=str(info), rule=RULE))
                continue
            defects.append(Defect("K12", "error" if graded else "warning", identifier,
                                  f"evaluation_criteria.communicate_info[{position}]",
                                  f"communicate_info {info!r} {problem}" + ("" if graded else " (not graded)"),
                                  evidence=str(info), rule=RULE))
        for position, action in enumerate(actions(task)):
            if "ACTION" in basis and action.get("compare_args") == [] and taskset.is_write(action):
                defects.append(Defect("K12", "warning", identifier, f"evaluation_criteria.actions[{position}].compare_args",
                                      f"ACTION grading of write {action.get('name')} compares no argument: any "
                                      "arguments pass", rule=RULE))
        reward, why = _do_nothing(taskset, task)
        if reward == 1.0 and not grades_nothing:
            expected = expected_beyond_no_change(taskset, task)
            if not taskset.taugen and _failed_write(taskset, task):
                pass  # the gold's own write raises (K2): the database stays as it starts because the gold is broken
            elif not taskset.taugen and (expected is None or _graded_on_unchanged_db(task)):
                refusals.append(identifier)  # a taugen bundle must grade each refusal itself
            else:
                defects.append(Defect("K12", "error", identifier, "evaluation_criteria",
                                      f"a do-nothing run scores 1 ({why})" + (f", yet {expected}" if expected else ""),
                                      evidence=str(basis), rule=RULE))
        if taskset.taugen:
            continue  # failing env assertions and unneeded writes are certificate checks of taugen bundles
        replay = taskset.replay(task)
        if replay is None or replay.init_error is not None:
            continue
        if "ENV_ASSERTION" in basis and any(result is not True for result in replay.gold_assertions):
            failing = [i for i, result in enumerate(replay.gold_assertions) if result is not True]
            if actions(task):
                defects.append(Defect("K12", "error", identifier, f"evaluation_criteria.env_assertions[{failing[0]}]",
                                      "the gold run fails its own env assertion(s) "
                                      f"{failing}: the gold actions do not reach the graded state", rule=RULE))
            else:
                defects.append(Defect("K11", "warning", identifier, "evaluation_criteria.actions",
                                      f"the task lists no gold actions, yet env assertion(s) {failing} need a change "
                                      "the initial state lacks: the gold omits the writes the task asks for",
                                      rule="map each request in the scenario to gold writes"))
        if "DB" in basis:
            for step in replay.steps:
                if step.error is None and step.changed is False:
                    defects.append(Defect("K12", "warning", identifier, f"evaluation_criteria.actions[{step.index}]",
                                          f"gold write {step.action.get('name')} leaves the graded databases unchanged: "
                                          "doing it wrong or not at all scores the same",
                                          evidence=excerpt(step.action.get("arguments")), rule=RULE))
    if refusals:
        defects.append(_refusals_warning(refusals))
    for key, found in ungraded.items():
        if len(found) == len(taskset.tasks) >= _CONVENTION:
            defects.append(_convention(key, [(defect, basis) for defect, basis, _restated in found]))
        else:
            defects += [defect for defect, _basis, restated in found if not restated]
    return defects


_TELLS = re.compile(r"\b(confirm\w*|tell\w*|told|inform\w*|communicat\w*|explain\w*|say\w*|said|mention\w*|"
                    r"notif\w*|acknowledg\w*|let\w* the user know)\b", re.I)
"""An NL assertion about what the agent says: a write graded on the database does not show it."""

_INFLECTIONS = {"", "e", "es", "ed", "ing", "s", "y", "ies", "ied", "ication", "ications", "ation", "ations",
                "led", "ling", "lation", "lations"}
"""Endings after a verb stem that keep the act ("exchang" + "ed", "modif" + "ication", "cancel" + "lation"),
not another word that begins the same ("book" + "shelf")."""


def _act_words(tool: str) -> tuple[str, set[str]]:
    """A write tool's act as words: the stem of its verb (a tool ``exchange_shipped_items`` -> ``exchang``,
    ``modify_profile_address`` -> ``modif``) and its longer name words (``modify``, ``profile``, ``address``)."""
    words = [w for w in tool.lower().split("_") if w]
    verb = words[0] if words else ""
    stem = verb[:-1] if len(verb) > 4 and verb[-1] in "ey" else verb
    return stem, {w for w in words if len(w) >= 4}


def restated_by_graded_parts(taskset: TaskSet, task: dict[str, Any]) -> bool:
    """Whether every NL assertion of ``task`` states only what a graded part of it already checks, so
    leaving NL_ASSERTION out of its basis loses no check: an act of one of its gold writes while DB is
    graded (a word starting with the write tool's verb stem, "Agent should process the exchange." for a
    tool ``exchange_shipped_items``, or two of its name words, "changes to address on order and user
    profile" for ``modify_profile_address``; a prohibition is not an act, and an assertion that the agent tells
    the user something, "The agent confirmed the task was created successfully", expects words no write
    shows), or a ``communicate_info`` string while COMMUNICATE is graded ("Agent tells the user the refund is
    $346.93" with "346.93"). False when an assertion expects something else ("Agent should communicate the
    refund to user." with nothing to match it). Never raises."""
    data = criteria(task)
    basis = reward_basis(task)
    assertions = [str(a) for a in data.get("nl_assertions") or [] if str(a).strip()]
    acts = [_act_words(a.get("name") or "") for a in actions(task) if taskset.is_write(a)] if "DB" in basis else []
    said = [str(i).replace(",", "").lower() for i in data.get("communicate_info") or []
            if str(i).strip()] if "COMMUNICATE" in basis else []

    def restates(assertion: str) -> bool:
        text = assertion.replace(",", "").lower()
        if any(info in text for info in said):
            return True
        if _PROHIBITION.search(assertion) or _TELLS.search(assertion):
            return False
        words = set(re.findall(r"[a-z]+", text))
        return any(any(w.startswith(stem) and w[len(stem):] in _INFLECTIONS for w in words) or len(words & names) >= 2
                   for stem, names in acts if stem)

    return bool(assertions) and all(restates(a) for a in assertions)


_PROHIBITION = re.compile(
    r"^\W*(?:check\s+that\s+)?(?:the\s+)?agent\s+(?:(?:should|must|does|did|will|shall|correctly|properly)\s+)*"
    r"(?:not\b|never\b|n't\b|(?:does|did|should|must|will|would)n['’]?t\b|refus|declin|den(?:y|ies)\b)", re.IGNORECASE)
"""An NL assertion that forbids an act ("Agent does not cancel …", "Agent should refuse to proceed"):
satisfied by an agent that does nothing."""


def expected_beyond_no_change(taskset: TaskSet, task: dict[str, Any]) -> str | None:
    """What the task expects that a do-nothing run does not do, in words; None when the task's whole
    documented expectation is that nothing changes.

    A do-nothing run scoring 1 is a defect of *this task's* grader only when doing nothing fails the task
    (defect-kinds.md K12: "a do-nothing run ... score[s] 0" is about runs that do not do the task). The
    task expects more than no change when (1) a gold action that is not a read (a transfer to a human
    agent, a write the database hash does not see) is missing from a do-nothing run, (2) it fills
    ``communicate_info`` (something must be said), (3) it documents nothing in ``nl_assertions`` (nothing
    shows that doing nothing is right, so the finding stays), or (4) one of its NL assertions is not a
    prohibition (:data:`_PROHIBITION`): "Agent identifies that the user is a Regular member". A task
    whose every NL assertion forbids an act ("Agent does not cancel 3RK2T9") is passed by a do-nothing
    run exactly as by a correct refusal; that grading choice is reported once per set
    (:func:`_refusals_warning`), not per task. In a foreign set the same holds for every task graded on
    a database its gold leaves unchanged (:func:`_graded_on_unchanged_db`): there the words returned here
    only name the finding of a task graded otherwise (an env assertion that already holds). Never raises.
    """
    data = criteria(task)
    for action in actions(task):
        info = taskset.tool(action.get("name", ""), action.get("requestor") or "assistant")
        if info is None or info.kind != "read":
            return f"the gold calls {action.get('name')}, which a do-nothing run never does"
    if data.get("communicate_info"):
        return f"the task asks the agent to say {excerpt(data.get('communicate_info'), 80)}"
    assertions = [str(a) for a in data.get("nl_assertions") or [] if str(a).strip()]
    if not assertions:
        return "nothing in the task (no NL assertion) shows that doing nothing is the right outcome"
    positive = [a for a in assertions if not _PROHIBITION.search(a)]
    if positive:
        return f"the task expects {excerpt(positive[0], 120)!r}, which a do-nothing run does not do"
    return None


def _failed_write(taskset: TaskSet, task: dict[str, Any]) -> bool:
    """Whether a gold write (or a tool the actor lacks) raised on replay: then the database stays as it
    starts because the gold is broken (K2 names the step), not because the grader is weak."""
    replay = taskset.replay(task)
    if replay is None or replay.init_error is not None:
        return False
    return any(step.error is not None and (taskset.is_write(step.action) or taskset.tool(
        step.action.get("name", ""), step.action.get("requestor") or "assistant") is None) for step in replay.steps)


def _graded_on_unchanged_db(task: dict[str, Any]) -> bool:
    """For a task a do-nothing run passes (:func:`_do_nothing` gives 1): whether it is graded on the
    database (``DB`` in its basis, with gold actions), which its gold therefore leaves as it starts, and on
    no other part that has something to check. Whatever else the task expects (a transfer, an explanation
    in an ungraded NL assertion), its grader sees only "nothing changed", as for a refusal."""
    basis = reward_basis(task)
    data = criteria(task)
    if "DB" not in basis or data.get("actions") is None:
        return False
    return not any(data.get(_PARTS[part]) for part in basis if part in _PARTS and part != "ACTION")


def _refusals_warning(tasks: list[str]) -> Defect:
    """One set-level warning for the tasks a do-nothing run passes because their gold changes nothing and
    they are graded on the database alone (see the module docstring): their grader cannot tell a correct
    refusal, explanation or transfer from a silent run."""
    shown = ", ".join(tasks[:12]) + (", …" if len(tasks) > 12 else "")
    return Defect("K12", "warning", None, "evaluation_criteria.reward_basis",
                  f"{len(tasks)} task(s) ({shown}) expect no change of the database and are graded on it alone (the "
                  "gold makes no write that changes it): a do-nothing run scores 1 on them, as a correct refusal, "
                  "explanation or transfer does; grading the outcome itself needs a graded NL assertion or "
                  "communicate_info", evidence=shown, rule=RULE)


_CONVENTION = 5
"""Tasks from which "every task leaves this criterion ungraded" is a set's convention, not a coincidence."""


def _convention(key: str, found: list[tuple[Defect, str]]) -> Defect:
    """One file-level note for criterion ``key``, filled in and never graded in every task (``found``:
    each task's warning and its reward_basis)."""
    bases = sorted({basis for _defect, basis in found})
    return Defect("K12", "info", None, f"evaluation_criteria.{key}",
                  f"all {len(found)} tasks fill {key} and none grades it (reward_basis {' or '.join(bases)}): the set "
                  "keeps it as documentation; a task that needs it graded must add its part to reward_basis",
                  evidence=found[0][0].evidence, rule=RULE)


@validator(CHECK)
def check_grader(view: BundleView) -> list[Finding]:
    """K12 on a taugen bundle (see module docstring)."""
    taskset = taskset_for_view(view)
    return to_findings(CHECK, grader_defects(taskset), taskset.tasks)
