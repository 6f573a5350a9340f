"""``taugen lint-tasks``: the defect checks on any tau2 domain folder that taugen did not build.

:func:`lint_task_folder` reads the folder (``taugen.validators.defects.sources.taskset_from_folder``)
and runs every defect check: schema, splits, K2, K4–K8, K10–K16, K18–K20, and K1, K3, K9 and K17 on a
folder of a domain a built-in pack mirrors (airline, retail), whose policy as code and typed facts it
adopts (K13 runs on the folder's Markdown documents). With tau2 installed, airline, retail, telecom and mock tasks are replayed in tau2's own
environment. Renderers give text grouped by task and kind, JSON, or JUnit XML for CI.

A folder that is the runtime folder of a taugen bundle (``<bundle>/tau2/domains/<domain>`` beside
``<bundle>/author/manifest.json``) is checked as ``taugen validate`` checks it: the same defect
validators on the bundle, with the domain's own environment (gold replayed on the bundle's database by
the domain's toolkit, ids created by earlier gold steps known), typed facts and policy as code (K1, K3,
K9, K17). Linting the folder alone (tau2's view of a domain it does not ship) would replay nothing and
report ids that earlier gold writes create (a dispute opened, then credited) as unresolvable (K5).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Iterable
from xml.sax.saxutils import escape, quoteattr

from taugen.validators.defects import data, documents, executability, grader, grounding, policy, scenario
from taugen.validators.defects.base import to_findings
from taugen.validators.defects.sources import quiet_tau2, taskset_from_folder
from taugen.findings import Finding

FORMATS = ("text", "json", "junit")
_ORDER = {"error": 0, "warning": 1, "info": 2}


def _kind_key(code: str) -> tuple[int, str]:
    return (int(code[1:]), code) if code[:1] == "K" and code[1:].isdigit() else (0 if code in ("schema", "splits") else 99, code)


def _task_key(subject: str) -> tuple[int, int | str, str]:
    """Task ids in reading order: numeric ids by number (2 before 10 before 105), others after them by text."""
    return (0, int(subject), subject) if subject.isdigit() else (1, subject, subject)


def lint_task_folder(path: str | Path, tasks_file: str | None = None, replay: bool = True) -> list[Finding]:
    """Every defect finding of a tau2 domain folder, sorted by severity, task and kind.

    Args:
        path: the folder (``tasks.json`` or ``tasks/task_*.json`` or one ``tasks_*.json``; the split file;
            optionally ``db.json``/``db.toml`` and ``user_db.*``; the policy Markdown).
        tasks_file: the task file to read when the folder holds several.
        replay: replay gold actions in tau2 when possible (False: data checks only).

    Raises:
        InputError: the folder cannot be read as a tau2 domain (the CLI exits 2).
    """
    bundle = taugen_bundle_of(path) if tasks_file is None and replay else None
    if bundle is not None:
        return _lint_bundle(bundle, Path(path))
    with quiet_tau2():
        taskset = taskset_from_folder(path, tasks_file, replay)
        root = Path(path)
        visible = sorted(p.name for p in root.iterdir() if p.is_file())
        found_grounding, explained = grounding.grounding_defects(taskset)
        families = [
            (data.CHECK, data.data_defects(taskset, visible)),
            (executability.CHECK, executability.executability_defects(taskset, explained)),
            (grounding.CHECK, found_grounding),
            (scenario.CHECK, scenario.scenario_defects(taskset)),
            (grader.CHECK, grader.grader_defects(taskset)),
            (documents.CHECK, documents.document_defects(taskset)),
            (policy.CHECK, policy.policy_defects(taskset)),
        ]
    findings: list[Finding] = []
    for check, defects in families:
        findings += to_findings(check, defects, taskset.tasks)
    findings += data.annotation_listing(taskset)
    findings += [Finding(check="lint", code="note", severity="info", subject=taskset.source, message=note)
                 for note in taskset.notes]
    return sorted(findings, key=lambda f: (_ORDER[f.severity], _task_key(f.subject), _kind_key(f.code), f.message))


DEFECT_CHECKS = ("defect_data", "annotations", "defect_executability", "defect_grounding", "defect_scenario",
                 "defect_grader", "defect_documents", "defect_policy")
"""The validators ``taugen validate`` runs that ``lint-tasks`` runs on a taugen bundle's folder."""


def taugen_bundle_of(path: str | Path) -> Path | None:
    """The bundle folder when ``path`` is ``<bundle>/tau2/domains/<domain>`` of a taugen bundle (its
    ``author/manifest.json`` names that domain and an environment module), else None."""
    root = Path(path).resolve()
    if len(root.parents) < 3 or root.parent.name != "domains" or root.parents[1].name != "tau2":
        return None
    bundle = root.parents[2]
    manifest = bundle / "author" / "manifest.json"
    if not (bundle / "bundle.json").is_file() or not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return bundle if data.get("domain") == root.name and data.get("environment") else None


def _lint_bundle(bundle: Path, folder: Path) -> list[Finding]:
    """The defect findings of ``taugen validate`` on a bundle (:data:`DEFECT_CHECKS`), plus a note."""
    from taugen.validators import defects  # noqa: F401 - registers the defect validators
    from taugen.validators.bundle_view import BundleView
    from taugen.validators.registry import validators

    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in sorted(bundle.rglob("*")) if p.is_file()}
    view = BundleView(files, source=str(bundle))
    registered = validators()
    findings: list[Finding] = []
    with quiet_tau2():
        for name in DEFECT_CHECKS:
            if name in registered:
                findings += registered[name](view)
    findings.append(Finding(check="lint", code="note", severity="info", subject=str(folder),
                            message=f"taugen bundle {bundle.name}: checked as taugen validate checks it (the domain's "
                                    "own environment, typed facts and policy as code)"))
    return sorted(findings, key=lambda f: (_ORDER[f.severity], _task_key(f.subject), _kind_key(f.code), f.message))


def task_ids(path: str | Path, tasks_file: str | None = None) -> list[str]:
    """The ids of the folder's tasks (for JUnit cases of tasks without findings)."""
    from taugen.validators.defects.sources import _find_tasks

    return [str(task.get("id")) for task in _find_tasks(Path(path), tasks_file)[0]]


def counts_by_kind(findings: Iterable[Finding]) -> dict[str, dict[str, int]]:
    """``{kind: {"error": n, "warning": n, "info": n}}`` in kind order."""
    table: dict[str, Counter] = {}
    for finding in findings:
        table.setdefault(finding.code, Counter())[finding.severity] += 1
    return {code: {s: table[code][s] for s in ("error", "warning", "info")}
            for code in sorted(table, key=_kind_key)}


def render_text(findings: list[Finding], source: str) -> str:
    """Findings grouped by subject (task or file), then by kind."""
    totals = Counter(f.severity for f in findings)
    lines = [f"{source}: {totals['error']} errors, {totals['warning']} warnings, {totals['info']} info"]
    by_subject: dict[str, list[Finding]] = {}
    for finding in findings:
        by_subject.setdefault(finding.subject, []).append(finding)
    for subject in sorted(by_subject, key=lambda s: (min(_ORDER[f.severity] for f in by_subject[s]), s)):
        lines += ["", f"== {subject}"]
        for finding in sorted(by_subject[subject], key=lambda f: (_kind_key(f.code), _ORDER[f.severity])):
            lines.append(f"  {finding.code:<10} {finding.severity:<7} {finding.message}")
            if finding.evidence:
                lines.append(f"  {'':<10} {'':<7} at {finding.evidence}")
    lines += ["", "per kind (errors / warnings / info):"]
    for code, row in counts_by_kind(findings).items():
        lines.append(f"  {code:<10} {row['error']:>4} / {row['warning']:>4} / {row['info']:>4}")
    return "\n".join(lines) + "\n"


def render_json(findings: list[Finding], source: str) -> str:
    totals = Counter(f.severity for f in findings)
    return json.dumps({"source": source, "passed": totals["error"] == 0,
                       "totals": {s: totals[s] for s in ("error", "warning", "info")},
                       "kinds": counts_by_kind(findings), "findings": [f.model_dump() for f in findings]},
                      indent=2, sort_keys=False) + "\n"


def render_junit(findings: list[Finding], source: str, subjects: Iterable[str] = ()) -> str:
    """JUnit XML: one test case per task or file; a case fails when it has an error finding, and its
    warnings go to ``system-out``. ``subjects`` adds passing cases for tasks without findings."""
    by_subject: dict[str, list[Finding]] = {subject: [] for subject in subjects}
    for finding in findings:
        by_subject.setdefault(finding.subject, []).append(finding)
    failures = sum(1 for items in by_subject.values() if any(f.severity == "error" for f in items))
    name = Path(source).name or source
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="taugen lint-tasks" tests="{len(by_subject)}" failures="{failures}" errors="0">',
           f'  <testsuite name={quoteattr(name)} tests="{len(by_subject)}" failures="{failures}" errors="0" skipped="0">']
    for subject, items in sorted(by_subject.items()):
        out.append(f'    <testcase classname={quoteattr("lint-tasks." + name)} name={quoteattr(subject)}>')
        errors = [f for f in items if f.severity == "error"]
        if errors:
            kinds = ", ".join(sorted({f.code for f in errors}, key=_kind_key))
            body = "\n".join(f"{f.code} {f.message} ({f.evidence})" for f in errors)
            out.append(f'      <failure message={quoteattr(f"{len(errors)} error(s): {kinds}")} '
                       f'type="defect">{escape(body)}</failure>')
        others = [f for f in items if f.severity != "error"]
        if others:
            body = "\n".join(f"{f.severity} {f.code} {f.message}" for f in others)
            out.append(f"      <system-out>{escape(body)}</system-out>")
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"


def render(findings: list[Finding], output_format: str, source: str, subjects: Iterable[str] = ()) -> str:
    """The report in ``text``, ``json`` or ``junit``."""
    if output_format == "json":
        return render_json(findings, source)
    if output_format == "junit":
        return render_junit(findings, source, subjects)
    return render_text(findings, source)
