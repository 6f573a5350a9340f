"""Validation reports for reviewers: JSON for machines, Markdown for people.

Both list every check family with pass / fail and its findings with evidence; neither carries a
wall-clock time, so a rebuild gives the same bytes.
"""

from __future__ import annotations

from typing import Any

from taugen.findings import Finding
from taugen.validators.registry import validators


def _by_check(findings: list[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {name: [] for name in sorted(validators())}
    for finding in findings:
        grouped.setdefault(finding.check, []).append(finding)
    return grouped


def report_json(findings: list[Finding], bundle: str) -> dict[str, Any]:
    """``{bundle, passed, checks: {name: {passed, errors, warnings}}, annotations: [...], findings: [...]}``;
    ``annotations`` lists the tasks' accepted defects (info findings of the ``annotations`` check)."""
    checks = {}
    for name, items in _by_check(findings).items():
        errors = sum(f.severity == "error" for f in items)
        checks[name] = {"passed": errors == 0, "errors": errors,
                        "warnings": sum(f.severity == "warning" for f in items)}
    return {"bundle": bundle, "passed": all(c["passed"] for c in checks.values()), "checks": checks,
            "annotations": [{"task": f.subject, "annotation": f.message, "path": f.evidence}
                            for f in findings if f.check == "annotations"],
            "findings": [f.model_dump() for f in findings]}


def report_markdown(findings: list[Finding], bundle: str) -> str:
    """A Markdown report: a pass/fail table per check, then findings grouped by check."""
    data = report_json(findings, bundle)
    lines = [f"# Validation report: {bundle}", "",
             f"Overall: **{'PASS' if data['passed'] else 'FAIL'}**", "",
             "| check | result | errors | warnings |", "|---|---|---|---|"]
    for name, check in data["checks"].items():
        lines.append(f"| {name} | {'pass' if check['passed'] else 'FAIL'} | {check['errors']} | {check['warnings']} |")
    lines += ["", "## Annotations (defects tasks accept, with the reason)", ""]
    lines += [f"- {a['task']}: {a['annotation']}" for a in data["annotations"]] or ["- none"]
    for name, items in _by_check(findings).items():
        if not items or name == "annotations":
            continue
        lines += ["", f"## {name}", ""]
        for finding in items:
            lines.append(f"- **{finding.severity}** `{finding.code}` {finding.subject}: {finding.message}")
            if finding.evidence:
                lines.append(f"  - evidence: {finding.evidence!r}")
            if finding.rule:
                lines.append(f"  - rule: {finding.rule}")
    return "\n".join(lines) + "\n"
