"""The validator registry: every check family registers here and ``run_validators`` runs them all.

A validator is a function ``(BundleView) -> list[Finding]``. Third-party validators register with
:func:`validator` in a module of the ``taugen.plugins`` entry-point group (:mod:`taugen.plugins`).
"""

from __future__ import annotations

import multiprocessing
from typing import TYPE_CHECKING, Callable

from taugen import plugins
from taugen.findings import Finding, error

if TYPE_CHECKING:
    from taugen.validators.bundle_view import BundleView

Validator = Callable[["BundleView"], list[Finding]]


def validator(name: str) -> Callable[[Validator], Validator]:
    """Decorator: register a validator function under ``name`` (kind ``validator`` of
    :mod:`taugen.plugins`).

    Raises:
        ValueError: ``name`` is taken by a function defined elsewhere.
    """

    def register(function: Validator) -> Validator:
        return plugins.register("validator", name, function)

    return register


def validators() -> dict[str, Validator]:
    """Every registered validator by name (built-ins first imported)."""
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


_VIEW: "BundleView | None" = None
"""The bundle a forked validator worker reads (set by :func:`run_validators` around its pool)."""


def _run_in_worker(name: str) -> list[Finding]:
    assert _VIEW is not None
    return _run_one(name, validators()[name], _VIEW)


def run_validators(view: "BundleView", on_validator: Callable[[str], None] | None = None,
                   workers: int = 1) -> list[Finding]:
    """Run every validator; a validator that crashes becomes an error finding, never a traceback.

    With ``workers`` > 1 (and ``fork`` available) the validators run side by side in that many forked
    processes, each reading the same ``view``; the findings are the same (they are sorted here), but the
    process-wide memos (:mod:`taugen.validators.memo`) of the caller learn nothing, so a caller that
    validates many similar bundles in one process (a mutation run) keeps ``workers`` at 1.
    ``on_validator`` is called with each validator's name as it starts (one process) or finishes (several).
    """
    global _VIEW
    registered = validators()
    findings: list[Finding] = []
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        names = list(registered)
        _VIEW = view
        try:
            with multiprocessing.get_context("fork").Pool(min(workers, len(names))) as pool:
                for name, found in zip(names, pool.imap(_run_in_worker, names, chunksize=1)):
                    if on_validator is not None:
                        on_validator(name)
                    findings += found
        finally:
            _VIEW = None
    else:
        for name, function in registered.items():
            if on_validator is not None:
                on_validator(name)
            findings += _run_one(name, function, view)
    return sorted(findings, key=lambda f: ({"error": 0, "warning": 1, "info": 2}[f.severity], f.check, f.subject))
