"""One registry for everything taugen can be extended with (floor 0), and one entry-point group.

Kinds of contribution (:data:`KINDS`), each keyed by a name:

* ``genre``: a :class:`taugen.generators.corpus.genre.Genre` instance (``@register_genre``);
* ``vocabulary_section``: a genre's or a shared helper's vocabulary model (``register_vocabulary``);
* ``validator``: a function ``(BundleView) -> list[Finding]`` (``@validator``);
* ``validator_preparation``: a function ``(BundleView, Executor, workers) -> None`` that computes, spread
  over the executor's workers, work several validators share, before they run side by side
  (``@preparation``);
* ``mutation_operator``: a :class:`taugen.mutation.model.MutationOperator`, keyed ``<kind>-<name>``
  (``@mutation``);
* ``domain_pack``: a pack folder (``domain.yaml`` plus facts), keyed by the name ``taugen build NAME``
  takes.

Each stage keeps its own decorator (it knows what a valid contribution is); they all store here. A
third-party package extends taugen through the entry-point group ``taugen.plugins`` only: each entry
point names a module (``airline = "taugen_airline.plugin"``), and importing that module registers its
contributions with the decorators above. :func:`load_plugins` imports every such module once, the first
time any stage asks for its kind.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Callable, TypeVar

from taugen.errors import InputError

GROUP = "taugen.plugins"
"""The one entry-point group taugen reads."""

KINDS = ("genre", "vocabulary_section", "validator", "validator_preparation", "mutation_operator", "domain_pack")

Item = TypeVar("Item")
_ITEMS: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
_PLUGINS_LOADED = False


def origin(item: Any) -> tuple[str, str]:
    """Where ``item`` was defined: ``(module, qualified name)`` of a function or class, else of its type.

    Two registrations with the same origin are the same contribution (a module imported twice, e.g.
    reloaded in a test), so the later one replaces the earlier one instead of failing.
    """
    source = item if callable(item) and hasattr(item, "__qualname__") else type(item)
    return getattr(source, "__module__", ""), getattr(source, "__qualname__", repr(source))


def register(kind: str, name: str, item: Item, origin_of: Callable[[Any], tuple[str, str]] = origin) -> Item:
    """Store ``item`` as the ``kind`` contribution called ``name`` and return it.

    Args:
        origin_of: where a contribution of this kind was defined (default :func:`origin`; a wrapper
            object names what it wraps). Two registrations with one origin are one contribution.

    Raises:
        ValueError: ``kind`` is not one of :data:`KINDS`, ``name`` is empty, or ``name`` is taken by
            another contribution of that kind.
    """
    if kind not in _ITEMS:
        raise ValueError(f"unknown contribution kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not name:
        raise ValueError(f"a {kind} needs a name")
    existing = _ITEMS[kind].get(name)
    if existing is not None and existing is not item and origin_of(existing) != origin_of(item):
        where = ".".join(part for part in origin_of(existing) if part)
        raise ValueError(f"{kind} '{name}' is already registered by {where}")
    _ITEMS[kind][name] = item
    return item


def registered(kind: str) -> dict[str, Any]:
    """A copy of the ``kind`` contributions by name, in registration order, after loading plugins.

    Raises:
        ValueError: ``kind`` is not one of :data:`KINDS`.
        InputError: a plugin module named in the ``taugen.plugins`` group fails to import.
    """
    if kind not in _ITEMS:
        raise ValueError(f"unknown contribution kind {kind!r}; expected one of {', '.join(KINDS)}")
    load_plugins()
    return dict(_ITEMS[kind])


def lookup(kind: str, name: str) -> Any | None:
    """The ``kind`` contribution ``name`` if it is registered already, else None (loads nothing: the
    fast path of a caller that falls back to :func:`registered`).

    Raises:
        KeyError: ``kind`` is not one of :data:`KINDS`.
    """
    return _ITEMS[kind].get(name)


def load_plugins() -> list[str]:
    """Import every module of the ``taugen.plugins`` entry-point group, once per process.

    Returns:
        the entry points' names, sorted (empty after the first call).

    Raises:
        InputError: a plugin fails to import (its name, its module and the error, in one line).
    """
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return []
    _PLUGINS_LOADED = True
    names = []
    for entry in sorted(entry_points(group=GROUP), key=lambda entry: entry.name):
        try:
            entry.load()
        except Exception as exc:  # noqa: BLE001 - any failure of third-party code is the plugin's
            _PLUGINS_LOADED = False  # the next stage that asks reports it again
            raise InputError(f"plugin '{entry.name}' ({entry.value}) failed to import: "
                             f"{type(exc).__name__}: {exc}") from None
        names.append(entry.name)
    return names
