"""The code half of a domain pack: world, tools and problems, found by module name.

``domain.yaml`` names a Python module in ``environment:``; that module exposes ``DOMAIN``, a
:class:`DomainDefinition`. taugen imports it by name, so a new domain needs no edit to taugen.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from pydantic import BaseModel

from taugen.authoring.models import DomainConfig
from taugen.errors import InputError
from taugen.generators.environment import Toolkit
from taugen.generators.problems import Problem


@dataclass(frozen=True)
class DomainDefinition:
    """What a domain's code provides.

    Attributes:
        name: the domain id (equals ``domain.yaml``'s ``domain``).
        toolkit: the environment class (tools over ``toolkit.db_model``).
        build_world: ``(config, seed) -> database``: the seeded initial world.
        opening: the problem every task starts with (identity verification).
        problems: the composable problems.
        personas: persona name → paragraph (or None) for the user simulator.
        policy_preamble: policy text that is not a fact (how the agent works, tool etiquette).
        customer_table: the database table whose keys are the tasks' customers.
        compose: optional ``(definition, pack, world, preset, seed) -> list[TaskRecord]`` that replaces
            :func:`taugen.generators.tasks.compose_tasks` in the build (a domain with its own task space).
        runtime_files: optional ``(pack, world, tasks, policy_text, seed) -> {name: bytes | None}``:
            files of ``tau2/domains/<domain>/`` to add or replace (None removes the default one).
        check_tasks: optional ``(BundleView) -> list[Finding]`` that replaces the DB replay of the
            ``tasks`` validator (a domain whose tasks tau2 sets up with initialization actions).
        unexercisable: optional ``(pack) -> {fact id: reason}``, with ``compose``: why no task of the domain's
            own task space declares a fact (``author/coverage.json``; the task space compiled from families
            gives its own reasons).
        families: optional ``(pack) -> FamilyBinding``: how the generic problem families
            (:mod:`taugen.generators.families`) act in this domain's world; with it every typed fact a family
            takes becomes problem instances next to the hand-written ``problems``.
        policy: the policy as code (:class:`taugen.generators.policy.PolicyRule`), computed from the
            pack's typed facts; the defect validators replay gold writes through it (K1, K3, K9, K17).
    """

    name: str
    toolkit: type[Toolkit]
    build_world: Callable[[DomainConfig, int], BaseModel]
    opening: type[Problem]
    problems: tuple[type[Problem], ...]
    personas: dict[str, str | None] = field(default_factory=dict)
    policy_preamble: str = ""
    customer_table: str = "customers"
    compose: Callable[..., list] | None = None
    runtime_files: Callable[..., dict] | None = None
    check_tasks: Callable[..., list] | None = None
    unexercisable: Callable[..., dict] | None = None
    policy: tuple = ()
    families: Callable[..., object] | None = None


def load_domain(config: DomainConfig, pack_file: str = "domain.yaml") -> DomainDefinition:
    """Import the module named by ``config.environment`` and return its ``DOMAIN``.

    Raises:
        InputError: the module cannot be imported or has no ``DOMAIN`` of the right type.
    """
    try:
        module = importlib.import_module(config.environment)
    except ImportError as exc:
        raise InputError(f"environment module '{config.environment}' cannot be imported: {exc}", pack_file) from None
    except Exception as exc:  # noqa: BLE001 - the named module failed while importing: still the pack's choice
        raise InputError(f"environment module '{config.environment}' failed to import: {type(exc).__name__}: {exc}",
                         pack_file) from None
    definition = getattr(module, "DOMAIN", None)
    if not isinstance(definition, DomainDefinition):
        raise InputError(f"module '{config.environment}' has no DOMAIN (a DomainDefinition)", pack_file)
    return definition
