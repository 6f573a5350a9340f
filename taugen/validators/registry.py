"""The validator registry: every check family registers here and ``run_validators`` runs them all.

A validator is a function ``(BundleView) -> list[Finding]``. Third-party validators register with
:func:`validator` in a module of the ``taugen.plugins`` entry-point group (:mod:`taugen.plugins`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from taugen import plugins
from taugen.executors import Executor, LocalExecutor
from taugen.findings import Finding, error

if TYPE_CHECKING:
    from taugen.validators.bundle_view import BundleView

Validator = Callable[["BundleView"], list[Finding]]


def validator(name: str, cost: float = 1.0) -> Callable[[Validator], Validator]:
    """Decorator: register a validator function under ``name`` (kind ``validator`` of
    :mod:`taugen.plugins`).

    Args:
        cost: how long the validator takes relative to others (roughly its seconds on a 300-task bundle);
            validators run side by side are started longest first, so no long one starts last and runs
            alone. It changes no finding.

    Raises:
        ValueError: ``name`` is taken by a function defined elsewhere.
    """

    def register(function: Validator) -> Validator:
        function.validator_cost = cost  # type: ignore[attr-defined]
        return plugins.register("validator", name, function)

    return register


Preparation = Callable[["BundleView", Executor, int], None]


def preparation(name: str) -> Callable[[Preparation], Preparation]:
    """Decorator: register ``function(view, executor, workers)`` (kind ``validator_preparation`` of
    :mod:`taugen.plugins`), run by :func:`run_validators` before validators run side by side. It computes
    work that several validators share (reading every record's text, replaying every task's gold actions)
    spread over the executor's
    workers and leaves the results in this process's memos, which the validators' forked workers inherit:
    without it each worker would compute the same work again. It must not change what any validator
    finds, only how soon; validators run one by one skip it.

    Raises:
        ValueError: ``name`` is taken by a function defined elsewhere.
    """

    def register(function: Preparation) -> Preparation:
        return plugins.register("validator_preparation", name, function)

    return register


def spread(executor: Executor, function: Callable[[Any, list[Any]], list[Any]], view: "BundleView",
           items: list[Any], workers: int) -> list[tuple[Any, Any]]:
    """``(item, result)`` for every item, ``function(view, chunk)`` run on up to ``workers`` interleaved
    chunks of ``items`` through ``executor`` (a preparation's fan-out: one unit per worker, not per item);
    ``function`` returns one result per item of its chunk, in order. No items: no unit runs."""
    if not items:
        return []
    count = max(1, min(workers, len(items)))
    chunks = [items[start::count] for start in range(count)]
    return [(item, result) for chunk, results in zip(chunks, executor.map(function, view, chunks, workers=count),
                                                     strict=True)
            for item, result in zip(chunk, results, strict=True)]


def validators() -> dict[str, Validator]:
    """Every registered validator by name (built-ins, and their preparations, first imported)."""
    import taugen.validators.bundle_view  # noqa: F401
    import taugen.validators.chronology  # noqa: F401
    import taugen.validators.corpus  # noqa: F401
    import taugen.validators.defects  # noqa: F401
    import taugen.validators.leakage  # noqa: F401
    import taugen.validators.realism  # noqa: F401
    import taugen.validators.routes  # noqa: F401
    import taugen.validators.sufficiency  # noqa: F401
    import taugen.validators.tasks  # noqa: F401

    return plugins.registered("validator")


def _run_one(name: str, function: Validator, view: "BundleView") -> list[Finding]:
    try:
        return function(view)
    except Exception as exc:  # noqa: BLE001 - a broken bundle must be reported, not crash the report
        return [error(name, "validator_crashed", view.source,
                      f"validator could not run on this bundle: {type(exc).__name__}: {exc}")]


def _run_named(view: "BundleView", name: str) -> list[Finding]:
    """The validator ``name`` on ``view``, as an executor's unit (in whatever process runs it)."""
    return _run_one(name, validators()[name], view)


def run_validators(view: "BundleView", on_validator: Callable[[str], None] | None = None,
                   workers: int = 1, executor: Executor | None = None) -> list[Finding]:
    """Run every validator; a validator that crashes becomes an error finding, never a traceback.

    With ``workers`` > 1 (and ``fork`` available) the validators run side by side in that many forked
    processes, each reading the same ``view``; with an ``executor`` (:mod:`taugen.executors`) they run
    wherever it runs units (``workers`` then bounds a local executor only). The findings are the same
    (they are sorted here), but the process-wide memos (:mod:`taugen.validators.memo`) of the caller
    learn nothing from validators run elsewhere, so a caller that validates many similar bundles in one
    process (a mutation run) keeps ``workers`` at 1 and no executor. A validator that crashed elsewhere
    is run again in this process, whose result counts (a worker may lack what this process has imported,
    such as a domain whose code is its pack folder). ``on_validator`` is called with each validator's
    name as it starts (in this process) or finishes (elsewhere).
    """
    registered = validators()
    findings: list[Finding] = []
    if executor is None and workers <= 1:
        for name, function in registered.items():
            if on_validator is not None:
                on_validator(name)
            findings += _run_one(name, function, view)
    else:
        runner = executor or LocalExecutor()
        for prepare in plugins.registered("validator_preparation").values():
            prepare(view, runner, workers)
        names = sorted(registered, key=lambda name: -getattr(registered[name], "validator_cost", 1.0))
        units = runner.map(_run_named, view, names, workers=min(workers, len(names)))
        for name, found in zip(names, units, strict=True):  # strict: resumes the executor to its end
            if executor is not None and executor.remote and any(f.code == "validator_crashed" for f in found):
                found = _run_one(name, registered[name], view)
            if on_validator is not None:
                on_validator(name)
            findings += found
    return sorted(findings, key=lambda f: ({"error": 0, "warning": 1, "info": 2}[f.severity], f.check, f.subject))
