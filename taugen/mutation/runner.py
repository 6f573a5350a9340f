"""Mutation testing of the validators: plant every operator's defect, validate, count kills per kind.

A mutant of kind K is *killed* when validating it gives at least one **error** finding attributed to
K: a defect finding with ``code == K`` (the K1–K20 families in :mod:`taugen.validators.defects`), or an
error from a validator that exists for that kind alone (:data:`KIND_VALIDATORS`: ``chronology`` and
``arcs`` for K20, ``leakage`` for K18). Errors of other kinds are recorded as *also flagged* but do not
count: a mutant caught only by a neighbouring check means the kind's own validator missed it.

Validation runs on the mutant's files in memory with every registered validator, exactly as
``taugen validate`` would from disk, except that artifact texts read back from unchanged corpus files
are reused from the clean bundle (reading PDFs and audio again would give the same text).
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from taugen.hashing import BundleFiles, json_bytes
from taugen.validators.bundle_view import BundleView
from taugen.findings import Finding
from taugen.mutation.model import KINDS, Mutant, MutationOperator, iter_mutants
from taugen.validators.registry import run_validators

#: Validators dedicated to one kind: any error they report on a mutant of that kind is a kill.
KIND_VALIDATORS: dict[str, frozenset[str]] = {
    "K18": frozenset({"leakage"}),
    "K20": frozenset({"chronology", "arcs"}),
}


def attributed(finding: Finding, kind: str) -> bool:
    """True when ``finding`` is an error that the validator for ``kind`` raised (see module docstring)."""
    return finding.severity == "error" and (finding.code == kind or finding.check in KIND_VALIDATORS.get(kind, ()))


@dataclass
class MutantResult:
    """What validation found on one mutant.

    Attributes:
        operator: the operator that planted it.
        mutant: the mutant, or None when the operator does not apply to this bundle.
        killed_by: error findings attributed to the mutant's kind (empty: the mutant survived).
        also_flagged: other error findings (other kinds, certificates, placement …).
        seconds: validation wall time.
    """

    operator: MutationOperator
    mutant: Mutant | None
    killed_by: list[Finding] = field(default_factory=list)
    also_flagged: list[Finding] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def applicable(self) -> bool:
        return self.mutant is not None

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of one row of ``kill_report.json``."""
        def brief(finding: Finding) -> dict[str, str]:
            return {"check": finding.check, "code": finding.code, "subject": finding.subject,
                    "message": finding.message}

        return {"mutant_id": self.operator.mutant_id, "kind": self.operator.kind,
                "description": self.operator.description, "applicable": self.applicable,
                "subject": self.mutant.subject if self.mutant else None,
                "changed": list(self.mutant.changed) if self.mutant else [],
                "killed": self.killed, "killed_by": [brief(f) for f in self.killed_by],
                "also_flagged": [brief(f) for f in self.also_flagged]}


@dataclass
class MutationReport:
    """The clean bundle's findings and one :class:`MutantResult` per operator."""

    source: str
    clean_findings: list[Finding]
    results: list[MutantResult]

    @property
    def clean_errors(self) -> list[Finding]:
        return [f for f in self.clean_findings if f.severity == "error"]

    def per_kind(self) -> dict[str, dict[str, int]]:
        """kind → {"operators", "applicable", "killed"} for every kind K1…K20 (zeros included)."""
        table = {kind: {"operators": 0, "applicable": 0, "killed": 0} for kind in KINDS}
        for result in self.results:
            row = table[result.operator.kind]
            row["operators"] += 1
            row["applicable"] += result.applicable
            row["killed"] += result.killed
        return table

    @property
    def survivors(self) -> list[MutantResult]:
        return [r for r in self.results if r.applicable and not r.killed]

    def kill_rate(self) -> float:
        """Killed over applicable mutants, 0..1 (1.0 when there are none)."""
        applicable = [r for r in self.results if r.applicable]
        return sum(r.killed for r in applicable) / len(applicable) if applicable else 1.0

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of ``kill_report.json``."""
        return {"source": self.source, "clean_errors": len(self.clean_errors),
                "kill_rate": round(self.kill_rate(), 4), "per_kind": self.per_kind(),
                "mutants": [r.as_dict() for r in self.results]}


def _stale_artifacts(clean: BundleView, mutant: BundleView, changed: tuple[str, ...]) -> set[str]:
    """Artifacts whose text must be read again in ``mutant``: a delivered or author-source file among
    the ``changed`` paths, or a manifest entry that reads other files (paths, genre, author source)."""
    paths = set(changed)

    def reads(entry: dict[str, Any]) -> tuple:
        return (entry["genre"], entry.get("author_source"), tuple((f["path"], f["role"]) for f in entry["files"]))

    before = clean.manifest["artifacts"]
    return {artifact_id for artifact_id, entry in mutant.manifest["artifacts"].items()
            if paths & {f["path"] for f in entry["files"]} or entry.get("author_source") in paths
            or artifact_id not in before or reads(before[artifact_id]) != reads(entry)}


def _content(files: BundleFiles) -> BundleFiles:
    return {p: d for p, d in files.items() if not p.startswith("author/validation.") and p != "SHA256SUMS"}


_SHARED: dict[str, Any] = {}
"""What forked validation workers inherit: the mutants, the clean texts and the clean findings' keys."""


def _validate_mutant(index: int) -> tuple[list[Finding], float]:
    """Validate mutant ``index`` of ``_SHARED["mutants"]``; new error findings and the wall time."""
    mutant: Mutant = _SHARED["mutants"][index]
    texts: dict[str, str] = _SHARED["texts"]
    started = time.perf_counter()
    content = _content(mutant.files)
    source = f"{_SHARED['source']}#{mutant.mutant_id}"
    stale = _stale_artifacts(_SHARED["clean_view"], BundleView(content, source=source), mutant.changed)
    view = BundleView(content, source=source, _text_cache={a: t for a, t in texts.items() if a not in stale})
    new = [f for f in run_validators(view)
           if f.severity == "error" and (f.check, f.code, f.subject) not in _SHARED["clean_keys"]]
    return new, time.perf_counter() - started


def run_mutation(files: BundleFiles, source: str, kinds: set[str] | None = None,
                 on_result: Callable[[MutantResult], None] | None = None,
                 workers: int | None = None) -> MutationReport:
    """Validate the clean bundle, then plant and validate every applicable mutant.

    Args:
        files: a bundle's files (``read_bundle``).
        source: where they came from, for messages.
        kinds: restrict to these kinds (default all K1–K20).
        on_result: called after each mutant is validated, in operator order (for progress output).
        workers: validation processes (default: the CPUs available, at most 4; 1 runs in this
            process). Workers are forked, so they share the planted mutants without copying them;
            where ``fork`` is unavailable validation runs in this process. Results do not depend on it.
    """
    clean_view = BundleView(_content(files), source=source)
    clean_findings = run_validators(clean_view)
    planted = list(iter_mutants(files, kinds))
    mutants = [mutant for _, mutant in planted if mutant is not None]
    _SHARED.update(mutants=mutants, texts=dict(clean_view._text_cache), source=source, clean_view=clean_view,
                   clean_keys={(f.check, f.code, f.subject) for f in clean_findings if f.severity == "error"})
    if workers is None:
        workers = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    try:
        if workers > 1 and len(mutants) > 1 and "fork" in multiprocessing.get_all_start_methods():
            with multiprocessing.get_context("fork").Pool(min(workers, len(mutants))) as pool:
                validated = iter(pool.imap(_validate_mutant, range(len(mutants))))
                results = _collect(planted, validated, on_result)
        else:
            results = _collect(planted, map(_validate_mutant, range(len(mutants))), on_result)
    finally:
        _SHARED.clear()
    return MutationReport(source=source, clean_findings=clean_findings, results=results)


def _collect(planted: list[tuple[MutationOperator, Mutant | None]], validated: Iterator[tuple[list[Finding], float]],
             on_result: Callable[[MutantResult], None] | None) -> list[MutantResult]:
    """One result per operator, pairing applicable mutants with their validation in order."""
    results = []
    for operator, mutant in planted:
        result = MutantResult(operator=operator, mutant=mutant)
        if mutant is not None:
            findings, result.seconds = next(validated)
            for finding in findings:
                (result.killed_by if attributed(finding, mutant.kind) else result.also_flagged).append(finding)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def write_mutants(report: MutationReport, source_dir: Path, out: Path) -> None:
    """Write each applicable mutant as a complete bundle ``out/<mutant_id>/`` plus ``out/kill_report.json``.

    Unchanged files are hard links to the clean bundle's files when the file system allows it (a
    mutant of a 200 MB bundle costs only its edited files), else copies. The folder is staged beside
    ``out`` and renamed into place, so a failed run leaves an existing ``out`` as it was.
    """
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir()
        for result in report.results:
            if result.mutant is None:
                continue
            root = staging / result.mutant.mutant_id
            for relative, data in sorted(result.mutant.files.items()):
                target = root / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                original = source_dir / relative
                if relative not in result.mutant.changed and relative not in ("SHA256SUMS", "bundle.json") \
                        and original.is_file():
                    try:
                        os.link(original, target)
                        continue
                    except OSError:
                        pass
                target.write_bytes(data)
        (staging / "kill_report.json").write_bytes(json_bytes(report.as_dict()))
        if out.exists():
            retired = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, retired)
            os.replace(staging, out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
