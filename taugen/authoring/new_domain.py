"""``taugen new-domain NAME``: write a working domain skeleton into one new folder.

The skeleton is the templates in ``taugen/templates/new_domain/`` (each ``*.j2`` file rendered with
jinja2's sandbox into the same relative path without ``.j2``): a pack a domain expert edits
(``domain.yaml``, ``facts/*.yaml``, ``vocabulary.yaml``) beside the Python package taugen imports
(``environment: NAME`` names the folder itself): a database, a seeded world, tools, the opening problem
(identity verification), one hand-written problem whose gold depends on a fact, the family binding that
turns the other typed facts into problems, the policy as code, personas and a policy preamble. The
example business is a fitness club; every value comes from the facts, so editing them changes the tasks.

Nothing is ever overwritten: the target folder must not exist or be empty, and the files are written
into a hidden folder beside it that is renamed into place at the end.
"""

from __future__ import annotations

import importlib.util
import keyword
import os
import re
import shutil
import tempfile
from pathlib import Path

from jinja2 import StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

from taugen.errors import InputError

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "new_domain"
"""The skeleton's files, as jinja2 templates (``facts/memberships.yaml.j2`` → ``facts/memberships.yaml``)."""

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def check_name(name: str, target: Path | None = None) -> None:
    """Refuse a NAME that cannot be both a domain id and the top-level Python package of the folder
    (``target``: the folder to be written, which an empty folder of that name in the current folder makes
    importable as a namespace package already: that one is no clash).

    Raises:
        InputError: not snake_case (lower-case letters, digits, underscores, starting with a letter), a
            Python keyword, or the name of a module that is importable already (the folder would be shadowed
            by it, or shadow it).
    """
    if not _NAME.match(name) or name.endswith("_") or "__" in name:
        raise InputError(f"domain name '{name}' must be snake_case: lower-case letters, digits and single "
                         "underscores, starting with a letter (it names the domain and its Python package)")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise InputError(f"domain name '{name}' is a Python keyword; it must name the domain's Python package")
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        found = None
    locations = [Path(location).resolve() for location in (found.submodule_search_locations or [])] if found else []
    itself = target is not None and found is not None and found.origin in (None, "namespace") \
        and locations == [target.resolve()]
    if found is not None and not itself:
        raise InputError(f"domain name '{name}' is already an importable Python module; choose another name "
                         "(the folder is imported as the package of that name)")


def render_skeleton(name: str) -> dict[str, str]:
    """The skeleton's files for domain ``name``: relative path → text."""
    environment = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False,
                                                keep_trailing_newline=True)
    title = " ".join(part.capitalize() for part in name.split("_"))
    variables = {"name": name, "title": title, "brand": f"{title} Fitness Club",
                 "email_domain": f"{name.replace('_', '')}fitness.com"}
    files = {}
    for template in sorted(TEMPLATES.rglob("*.j2")):
        relative = template.relative_to(TEMPLATES).with_suffix("").as_posix()
        files[relative] = environment.from_string(template.read_text(encoding="utf-8")).render(**variables)
    return files


def new_domain(name: str, out: str | Path = ".") -> Path:
    """Write the skeleton of domain ``name`` into ``out/name`` and return that folder.

    Raises:
        InputError: a bad ``name`` (:func:`check_name`), ``out/name`` exists and is not an empty folder,
            or ``out`` is not a folder that can be written. Nothing is written then.
    """
    out = Path(out)
    target = out / name
    check_name(name, target)
    if out.exists() and not out.is_dir():
        raise InputError("--out is not a folder", out)
    if target.is_symlink() or (target.exists() and (not target.is_dir() or any(target.iterdir()))):
        raise InputError("exists and is not an empty folder; new-domain never overwrites", target)
    files = render_skeleton(name)
    created_out = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.taugen-", dir=out))
    except OSError as exc:
        raise InputError(f"cannot write into {out}: {exc.strerror or exc}", out) from None
    try:
        for relative, text in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if target.is_dir():
            target.rmdir()  # empty (checked above); os.rename below refuses a non-empty one anyway
        os.rename(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if created_out:
            shutil.rmtree(out, ignore_errors=True)
        raise InputError(f"cannot write {target}: {exc.strerror or exc}", target) from None
    return target
