"""Parity with τ²-bench's released telecom data.

:func:`parity_report` generates the telecom task space with taugen and compares it with tau2's files:

* ids: every id of the released split file's ``full`` list (2,285) must be produced, in the same order,
  with the same persona; the ``current`` space (tau2's generator code today) has 3,405;
* the 20 tasks of ``tasks_small.json``: gold actions and env assertions field for field, and every
  other field equal once tau2's known text defect is corrected (:data:`TEXT_FIXES`);
* optionally every released task (tau2's full ``tasks.json``, shipped inside the ``tau2`` package) in
  the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taugen.authoring.pack import Pack, load_pack
from taugen.domains.telecom.compose import compositions, realise

PACK_DIR = Path(__file__).resolve().parent
TEXT_FIXES = {"`get_status_bar`": "`check_status_bar`"}
"""tau2's grounding sentence names ``get_status_bar``; the user's tool is ``check_status_bar``."""


def corrected(task: dict[str, Any]) -> dict[str, Any]:
    """A tau2 task with :data:`TEXT_FIXES` applied to its text."""
    text = json.dumps(task)
    for wrong, right in TEXT_FIXES.items():
        text = text.replace(wrong, right)
    return json.loads(text)


def field_differences(mine: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Top-level and ``evaluation_criteria`` fields that differ."""
    differences = []
    for key in sorted(set(mine) | set(theirs)):
        if key == "evaluation_criteria":
            ours, ref = mine.get(key) or {}, theirs.get(key) or {}
            differences += [f"evaluation_criteria.{k}" for k in sorted(set(ours) | set(ref)) if ours.get(k) != ref.get(k)]
        elif mine.get(key) != theirs.get(key):
            differences.append(key)
    return differences


def installed_tau2_tasks() -> list[dict[str, Any]] | None:
    """tau2's released ``tasks.json`` from the installed package, if it is there."""
    try:
        from tau2.domains.telecom.utils import TELECOM_TASK_SET_PATH
    except ImportError:
        return None
    path = Path(TELECOM_TASK_SET_PATH)
    return json.loads(path.read_text()) if path.is_file() else None


def parity_report(split_file: str | Path, small_file: str | Path, pack: Pack | None = None,
                  full_tasks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Compare taugen's telecom space with tau2's released files (see the module docstring)."""
    pack = pack or load_pack(PACK_DIR)
    released_ids = json.loads(Path(split_file).read_text())["full"]
    small = json.loads(Path(small_file).read_text())
    released = compositions("released")
    current = compositions("current")
    ours = [c.task_id for c in released]
    by_id = {c.task_id: c for c in current}
    report: dict[str, Any] = {
        "released_ids": len(released_ids), "taugen_released": len(ours), "taugen_current": len(current),
        "matched": len(set(ours) & set(released_ids)), "missing": sorted(set(released_ids) - set(ours)),
        "extra": sorted(set(ours) - set(released_ids)), "same_order": ours == released_ids,
        "current_minus_no_refuel_is_released": [c.task_id for c in current
                                                if "data_usage_exceeded_no_refuel" not in c.issues] == released_ids,
    }
    wanted = [by_id[t["id"]] for t in small if t["id"] in by_id]
    records = {r.task_id: r.to_tau2() for r in realise(wanted, pack)}
    small_report = {"tasks": len(small), "actions_equal": 0, "env_assertions_equal": 0, "all_fields_equal": 0,
                    "differences": {}}
    for task in small:
        mine = records.get(task["id"])
        if mine is None:
            small_report["differences"][task["id"]] = ["not generated"]
            continue
        small_report["actions_equal"] += mine["evaluation_criteria"]["actions"] == task["evaluation_criteria"]["actions"]
        small_report["env_assertions_equal"] += (mine["evaluation_criteria"]["env_assertions"]
                                                 == task["evaluation_criteria"]["env_assertions"])
        differences = field_differences(mine, corrected(task))
        small_report["all_fields_equal"] += not differences
        if differences:
            small_report["differences"][task["id"]] = differences
    report["small"] = small_report
    if full_tasks is not None:
        everything = {r.task_id: r.to_tau2() for r in realise(released, pack)}
        differing = {}
        for task in full_tasks:
            mine = everything.get(task["id"])
            differences = ["not generated"] if mine is None else field_differences(mine, corrected(task))
            if differences:
                differing[task["id"]] = differences
        report["full"] = {"tasks": len(full_tasks), "all_fields_equal": len(full_tasks) - len(differing),
                          "differences": dict(list(differing.items())[:20])}
    return report
