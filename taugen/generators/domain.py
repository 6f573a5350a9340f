"""The code half of a domain pack: world, tools and problems, found by module name.

``domain.yaml`` names a Python module in ``environment:``; that module exposes ``DOMAIN``, a
:class:`DomainDefinition`. taugen imports it by name, so a new domain needs no edit to taugen.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
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
        request_words: the domain's own requests for the K10/K11 scenario check, beside the generic ones
            (:data:`taugen.validators.defects.scenario._REQUESTS`): request name → ``(regex of the phrase
            that asks for it, stems of the write tools that carry it out)``, e.g. a desk whose writes
            compensate a traveller names ``be compensated``. A name the generic table has is replaced; a
            tau2 task folder of the domain's name gets these words too.
        decision_targets: ``(argument, database table)`` pairs naming the record a write acts on (no table
            is every domain's), so that the K17 and K10/K11 checks can tell which record a refused or
            omitted write was about and whether the scenario describes it.
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
    request_words: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    decision_targets: tuple[tuple[str, str], ...] = ()


def import_environment(module: str, pack_dir: str | Path | None = None,
                       pack_file: str | Path = "domain.yaml") -> ModuleType:
    """Import a domain's code module ``module`` (``domain.yaml``'s ``environment``).

    A pack folder that is itself the package (the folder's name is ``module``'s top-level name and it holds
    an ``__init__.py``, as ``taugen new-domain`` writes it) is imported from that folder, wherever it lies:
    its ``__init__.py`` is loaded as that package (``sys.path`` is left alone, so nothing else beside the
    folder becomes importable), and ``module``'s submodules resolve inside it. Once imported, the module is in
    ``sys.modules``, so every later ``importlib.import_module(module)`` in this process and in the workers it
    forks (validators, mutants) finds it. Any other module is imported by name, as installed.

    Raises:
        InputError: the module cannot be imported (or fails while importing), or a package of the folder's
            name is importable from elsewhere (installed, or imported already from another folder): taugen
            would run that code, not the pack's.
    """
    top = module.split(".")[0]
    folder = Path(pack_dir).resolve() if pack_dir is not None else None
    if folder is not None and folder.name == top and (folder / "__init__.py").is_file():
        _import_folder_package(top, folder, pack_file)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise InputError(f"environment module '{module}' cannot be imported: {exc}", pack_file) from None
    except Exception as exc:  # noqa: BLE001 - the named module failed while importing: still the pack's choice
        raise InputError(f"environment module '{module}' failed to import: {type(exc).__name__}: {exc}",
                         pack_file) from None


def _import_folder_package(name: str, folder: Path, pack_file: str | Path) -> None:
    """Import ``folder`` (holding ``__init__.py``) as the top-level package ``name``, unless it is already."""
    init = folder / "__init__.py"
    loaded = sys.modules.get(name)
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").resolve() != init:
            raise InputError(f"environment module '{name}' is imported already from "
                             f"{getattr(loaded, '__file__', None) or 'elsewhere'}, not from the pack folder {folder}",
                             pack_file)
        return
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        found = None
    if found is not None:
        if found.origin and Path(found.origin).resolve() == init:
            return  # importable by name already (its parent is on sys.path): the same code
        raise InputError(f"environment module '{name}' would import {found.origin or 'another package'}, not the "
                         f"pack folder {folder}; rename the pack's package", pack_file)
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise InputError(f"environment module '{name}' cannot be loaded from {folder}", pack_file)
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        sys.modules.pop(name, None)
        for submodule in [key for key in sys.modules if key.startswith(f"{name}.")]:
            sys.modules.pop(submodule, None)
        raise


def load_domain(config: DomainConfig, pack_file: str = "domain.yaml", pack_dir: str | Path | None = None
                ) -> DomainDefinition:
    """Import the module named by ``config.environment`` (see :func:`import_environment`: from ``pack_dir``
    when the pack folder is the package) and return its ``DOMAIN``.

    Raises:
        InputError: the module cannot be imported or has no ``DOMAIN`` of the right type.
    """
    module = import_environment(config.environment, pack_dir, pack_file)
    definition = getattr(module, "DOMAIN", None)
    if not isinstance(definition, DomainDefinition):
        raise InputError(f"module '{config.environment}' has no DOMAIN (a DomainDefinition)", pack_file)
    return definition
