"""The validator registry: every check family registers here and ``run_validators`` runs them all.

A validator is a function ``(BundleView) -> list[Finding]``. Third-party validators can register with
:func:`validator` or through the ``taugen.validators`` entry-point group.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Callable

from taugen.validators.findings import Finding, error

if TYPE_CHECKING:
    from taugen.validators.bundle_view import BundleView

Validator = Callable[["BundleView"], list[Finding]]
_VALIDATORS: dict[str, Validator] = {}


def validator(name: str) -> Callable[[Validator], Validator]:
    """Decorator: register a validator function under ``name``."""

    def register(function: Validator) -> Validator:
        _VALIDATORS[name] = function
        return function

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

    for entry in entry_points(group="taugen.validators"):
        if entry.name not in _VALIDATORS:
            _VALIDATORS[entry.name] = entry.load()
    return dict(_VALIDATORS)


def run_validators(view: "BundleView", on_validator: Callable[[str], None] | None = None) -> list[Finding]:
    """Run every validator; a validator that crashes becomes an error finding, never a traceback."""
    findings: list[Finding] = []
    for name, function in validators().items():
        if on_validator is not None:
            on_validator(name)
        try:
            findings += function(view)
        except Exception as exc:  # noqa: BLE001 - a broken bundle must be reported, not crash the report
            findings.append(error(name, "validator_crashed", view.source,
                                  f"validator could not run on this bundle: {type(exc).__name__}: {exc}"))
    return sorted(findings, key=lambda f: ({"error": 0, "warning": 1, "info": 2}[f.severity], f.check, f.subject))
