"""The finding: what every validator returns (floor 0: every stage may build findings, even a genre's own
read-back checks).

Validators never print and never exit; they return lists of :class:`Finding`. A build fails when any
finding has severity ``error``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Severity = Literal["error", "warning", "info"]


class Finding(BaseModel):
    """One result of one check.

    Attributes:
        check: the validator family (``placement``, ``coverage``, ``chronology``, ``leakage``,
            ``certificate``, ``structure`` ...).
        code: a stable machine name of the rule broken, e.g. ``value_not_found``.
        severity: ``error`` blocks a build; ``warning`` and ``info`` are reported only.
        subject: the id concerned (fact id, artifact id, task id, file name).
        message: one sentence a reviewer can act on.
        evidence: an excerpt of the data that shows the problem (may be empty).
        rule: the rule, in words, or its source.
    """

    model_config = ConfigDict(frozen=True)

    check: str
    code: str
    severity: Severity
    subject: str
    message: str
    evidence: str = ""
    rule: str = ""


def error(check: str, code: str, subject: str, message: str, evidence: str = "", rule: str = "") -> Finding:
    """Shorthand for an error finding."""
    return Finding(check=check, code=code, severity="error", subject=subject, message=message,
                   evidence=evidence[:400], rule=rule)


def warning(check: str, code: str, subject: str, message: str, evidence: str = "", rule: str = "") -> Finding:
    """Shorthand for a warning finding."""
    return Finding(check=check, code=code, severity="warning", subject=subject, message=message,
                   evidence=evidence[:400], rule=rule)


def has_errors(findings: list[Finding]) -> bool:
    """True when any finding is an error."""
    return any(finding.severity == "error" for finding in findings)
