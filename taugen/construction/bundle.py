"""What the construction runtime reads from a built bundle (server, client, evaluator).

A construction bundle holds, besides the tau2 runtime files, ``kit/client_api/openapi.yaml`` (the
published contract), ``kit/client_api/development_seed.json``, ``kit/framework/deployment_manifest.json``
and, author side, ``author/client_api/deployments.json`` (every deployment's defects, with the fix the
client confirms), ``author/client_prompt.md`` and the sealed split in ``split_tasks.json``.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from taugen.build.construction.defects import Deployment
from taugen.bundle_layout import (
    DEPLOYMENTS, DEV_SEED, MANIFEST, OPENAPI, SEALED_SPLIT, dev_split_name,
)
from taugen.errors import InputError
from taugen.generators.environment import Toolkit


@dataclass
class ConstructionBundle:
    """A bundle folder opened for the construction runtime.

    Raises (on open): InputError when the folder is not a construction bundle (built at medium or
    hard with a kit).
    """

    path: Path
    manifest: dict[str, Any] = field(repr=False)

    @classmethod
    def open(cls, bundle_dir: str | Path) -> "ConstructionBundle":
        """Open ``bundle_dir``; see the class docstring for what it must hold."""
        path = Path(bundle_dir).resolve()
        manifest_path = path / "author" / "manifest.json"
        if not manifest_path.is_file():
            raise InputError("not a taugen bundle (author/manifest.json is missing)", path)
        if not (path / OPENAPI).is_file():
            raise InputError(f"bundle has no {OPENAPI}: construction kits are built at medium and hard", path)
        return cls(path=path, manifest=json.loads(manifest_path.read_text(encoding="utf-8")))

    @property
    def domain(self) -> str:
        return self.manifest["domain"]

    @property
    def runtime_dir(self) -> Path:
        return self.path / "tau2" / "domains" / self.domain

    @property
    def now(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.manifest["now"])

    @cached_property
    def toolkit_class(self) -> type[Toolkit]:
        module = self.manifest.get("environment")
        try:
            return importlib.import_module(module).DOMAIN.toolkit
        except (ImportError, AttributeError, TypeError) as exc:
            raise InputError(f"cannot load the domain's toolkit from {module!r}: {exc}", self.path) from None

    def json(self, relative: str) -> Any:
        """A JSON file of the bundle.

        Raises:
            InputError: missing or not JSON.
        """
        target = self.path / relative
        if not target.is_file():
            raise InputError(f"bundle has no {relative}", self.path)
        try:
            return json.loads(target.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", target, exc.lineno) from None

    @cached_property
    def openapi(self) -> dict[str, Any]:
        """The published OpenAPI document."""
        return yaml.safe_load((self.path / OPENAPI).read_text(encoding="utf-8"))

    @cached_property
    def deployments(self) -> dict[str, Deployment]:
        """Every deployment by name (author side)."""
        return {name: Deployment.model_validate(data) for name, data in self.json(DEPLOYMENTS).items()}

    def deployment(self, name: str | None) -> Deployment:
        """The deployment ``name`` (default: the one the kit's manifest names).

        Raises:
            InputError: no such deployment.
        """
        name = name or self.json(MANIFEST)["deployment"]
        if name not in self.deployments:
            raise InputError(f"unknown deployment {name!r} (this bundle has: {', '.join(sorted(self.deployments))})",
                             self.path / DEPLOYMENTS)
        return self.deployments[name]

    def database(self, which: str = "evaluation"):
        """A fresh database model: ``evaluation`` (the tau2 ``db.json``) or ``development`` (the kit's seed)."""
        relative = DEV_SEED if which == "development" else f"tau2/domains/{self.domain}/db.json"
        return self.toolkit_class.db_model.model_validate(self.json(relative))

    @cached_property
    def tasks(self) -> dict[str, dict[str, Any]]:
        """tau2 tasks by id."""
        return {task["id"]: task for task in self.json(f"tau2/domains/{self.domain}/tasks.json")}

    @cached_property
    def splits(self) -> dict[str, list[str]]:
        return self.json(f"tau2/domains/{self.domain}/split_tasks.json")

    def split(self, name: str) -> list[str]:
        """Task ids of split ``name``; ``dev`` falls back as :func:`dev_split_name` documents.

        Raises:
            InputError: the bundle has no such split.
        """
        if name == "dev":
            name = dev_split_name(self.splits)
        if name not in self.splits:
            raise InputError(f"bundle has no split {name!r} (it has {', '.join(sorted(self.splits))})", self.path)
        return list(self.splits[name])

    def sealed_task_ids(self) -> list[str]:
        """The sealed evaluation split (:data:`SEALED_SPLIT`)."""
        return self.split(SEALED_SPLIT)
