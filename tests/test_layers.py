"""The import graph follows the pipeline: nothing imports a later stage.

Floors, lowest first (DESIGN.md, "Layout"):

0. the package's top-level modules (``taugen/errors.py``, ``findings.py``, ``hashing.py``, ``text.py``,
   ``bundle_layout.py``, ``content_cache.py``): helpers every stage may use;
1. ``authoring`` (fact packs, models, the sandbox);
2. ``generators`` (worlds, tasks, the corpus and its genres);
3. ``validators``;
4. ``build`` (assemble, write, report);
5. what consumes built bundles: ``mutation`` (mutation testing of the validators) and ``construction``
   (the τ^τ runtime), which do not import each other;
6. the command line (``cli.py``, ``__main__.py``);
7. ``domains``: a domain is a plug-in that may use every stage; no stage imports it (the build imports the
   module ``domain.yaml`` names, by name).

A module may import its own stage and any lower floor, never a higher floor or another stage of its
own floor. Imports inside functions count too: a late import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "taugen"

FLOORS = {"authoring": 1, "generators": 2, "validators": 3, "build": 4, "mutation": 5, "construction": 5,
          "cli": 6, "domains": 7}


def stage_of(module: str) -> str:
    """The stage of a dotted module name: its first part below ``taugen`` (``""`` for the package;
    ``__main__`` is the command line's)."""
    parts = module.split(".")
    stage = parts[1] if len(parts) > 1 else ""
    return "cli" if stage == "__main__" else stage


def floor_of(stage: str) -> int:
    """The floor of a stage; every other top-level module is floor 0."""
    return FLOORS.get(stage, 0)


def module_name(path: Path) -> str:
    """``taugen/validators/realism.py`` -> ``taugen.validators.realism`` (a package -> its name)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, source: str) -> list[tuple[int, str]]:
    """``(line, dotted module)`` of every ``taugen`` import in ``source`` (relative ones resolved)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return [(line, target) for line, target in found if target == "taugen" or target.startswith("taugen.")]


def wrong_imports(path: Path, source: str) -> list[str]:
    """``file:line imports module (stage floor N -> stage floor M)`` for every import of ``source``
    that reaches a higher floor, or another stage of the same floor."""
    here = stage_of(module_name(path))
    wrong = []
    for line, target in imported_modules(path, source):
        there = stage_of(target)
        if there == here or floor_of(there) < floor_of(here) or (floor_of(there) == 0 and floor_of(here) == 0):
            continue
        wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target} "
                     f"({here or 'taugen'} floor {floor_of(here)} -> {there} floor {floor_of(there)})")
    return wrong


def test_no_module_imports_a_later_stage():
    wrong = [finding for path in sorted(PACKAGE.rglob("*.py"))
             for finding in wrong_imports(path, path.read_text(encoding="utf-8"))]
    assert wrong == []


def test_every_stage_folder_has_a_floor():
    stages = {path.name for path in PACKAGE.iterdir()
              if path.is_dir() and any(path.rglob("*.py")) and path.name != "__pycache__"}
    assert stages == set(FLOORS) - {"cli"}


@pytest.mark.parametrize(("where", "source", "expected"), [
    ("validators/realism.py", "from taugen.build.assemble import seal\n", 1),
    ("generators/corpus/genre.py", "def late():\n    from taugen.validators import leakage\n", 1),
    ("findings.py", "import taugen.authoring.pack\n", 1),
    ("mutation/runner.py", "from taugen.construction import server\n", 1),
    ("validators/defects/data.py", "from ..registry import validator\nfrom ...build import files\n", 1),
    ("build/assemble.py", "from taugen.validators.registry import run_validators\nfrom taugen.text import count_tokens\n", 0),
    ("cli.py", "from taugen.mutation.runner import run_mutation\n", 0),
])
def test_the_floor_rule_catches_upward_imports(where, source, expected):
    assert len(wrong_imports(PACKAGE / where, source)) == expected
