"""Replays of tasks' actions on a bundle's database, as tau2's gold environment runs them.

A task starts from the bundle's database with its ``initialization_data.agent_data`` deep-merged in
(tau2's ``update_pydantic_model_with_dict``), then its actions run in order on a copy of that start.
:class:`DatabaseReplays` makes the starts and reads the states after replays as cheaply as the toolkit
allows (see :mod:`taugen.generators.db_texts`); the tasks validator and the defect validators' gold
replays share it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from taugen.generators import db_texts
from taugen.generators.environment import Toolkit, clone, merged_for_reading


def initial_state(toolkit_class: type[Toolkit], db: dict[str, Any], patch: dict[str, Any] | None):
    """The task's starting database: ``db`` with ``patch`` deep-merged, validated (tau2's
    ``update_pydantic_model_with_dict``)."""
    return toolkit_class.db_model.model_validate(merged_for_reading(db, patch or {}))


def replay(toolkit_class: type[Toolkit], start, actions: list[dict[str, Any]], now,
           copy: Callable[[BaseModel], BaseModel] = clone) -> tuple[Toolkit, list[str]]:
    """Replay ``actions`` on a copy of the ``start`` database as tau2's gold environment does; returns the
    toolkit and the tool errors met. ``copy`` makes the copy (:func:`clone`, or
    :func:`taugen.generators.db_texts.copy_on_access`, which copies only the tables the tools reach)."""
    toolkit = toolkit_class(copy(start), now)
    errors = []
    for action in actions:
        result = toolkit.call(action["name"], **action["arguments"])
        if not result.ok:
            errors.append(f"{action['action_id']} {action['name']}: {result.error}")
    return toolkit, errors


class DatabaseReplays:
    """The tasks' starting databases and the DB states of replays on them, for one bundle's database.

    The tasks validator compares DB states (the final state with the starting one and with each replay that
    drops a write) and hashes one (the final state, against the certificate); the defect validators' gold
    replays (:func:`taugen.validators.defects.sources.taugen_replayer`) hash the states before and after.
    Replays run as tau2 runs them (:func:`replay`); a state is taken as cheaply as the toolkit allows, the
    findings being the same:

    * fast path, for a toolkit that hashes its database by tau2's rule (``Toolkit.db_hash`` not overridden)
      over a model :func:`db_texts.supports` (tables of records): the bundle's database is validated once
      and a task's starting database shares every table and record its patch leaves alone
      (:func:`db_texts.patched`); a replay runs on a :func:`db_texts.copy_on_access` copy, which copies only
      the tables the tools reach; a state is the tuple of table texts (:meth:`db_texts.TableTexts.state`), in
      which a table or record no tool changed keeps the text remembered for the starting database, so a
      table's text is dumped once per bundle, a patched record's once per task, and a changed record's
      once per replay;
    * otherwise: each starting database validated from the merged data (:func:`initial_state`), each replay
      on a :func:`clone` of it, a state the toolkit's ``db_hash()``.

    Either way two states are equal exactly when their DB hashes are, and :meth:`hash` is the DB hash.

    Args:
        toolkit_class: the domain's toolkit.
        db: the bundle's database as JSON data (``db.json``), never changed.
        now: the world's clock, given to every toolkit.
    """

    def __init__(self, toolkit_class: type[Toolkit], db: dict[str, Any], now: Any) -> None:
        self.toolkit_class, self.db, self.now = toolkit_class, db, now
        self.fast = toolkit_class.db_hash is Toolkit.db_hash and db_texts.supports(toolkit_class.db_model)
        self.texts = db_texts.TableTexts() if self.fast else None
        self._base: BaseModel | None = None
        self._start_hashes: dict[int, tuple[BaseModel, str]] = {}

    def initial(self, patch: dict[str, Any] | None) -> BaseModel:
        """The task's starting database, equal to :func:`initial_state`'s (read it or copy it, never change it)."""
        if self.fast:
            try:
                if self._base is None:
                    self._base = initial_state(self.toolkit_class, self.db, None)
                return db_texts.patched(self._base, self.db, patch) if patch else self._base
            except Exception:  # noqa: BLE001 - validated whole instead, which raises what the validator always raised
                pass
        return initial_state(self.toolkit_class, self.db, patch)

    def state(self, db: BaseModel) -> db_texts.State | str:
        """The state of a starting database from :meth:`initial`: table texts, or the DB hash."""
        if self.texts is not None:
            return self.texts.state(db)
        return self.toolkit_class(db, self.now).db_hash()

    def start_hash(self, initial: BaseModel) -> str:
        """The DB hash of a starting database from :meth:`initial`, computed once per start object (every task
        without a patch starts from the same one; the start is kept, so its id stays its own)."""
        known = self._start_hashes.get(id(initial))
        if known is None:
            known = self._start_hashes[id(initial)] = (initial, self.hash(self.state(initial)))
        return known[1]

    def toolkit(self, initial: BaseModel) -> Toolkit:
        """A toolkit on a copy of ``initial`` (from :meth:`initial`), for a replay whose state
        :meth:`state_of` reads afterwards: a :func:`db_texts.copy_on_access` copy on the fast path (read its
        tables as attributes only, as tools do; never ``model_dump`` or :func:`clone` it), else a
        :func:`clone`."""
        return self.toolkit_class(db_texts.copy_on_access(initial) if self.fast else clone(initial), self.now)

    def state_of(self, toolkit: Toolkit) -> db_texts.State | str:
        """The state of a toolkit's database from :meth:`toolkit`, after tools ran on it."""
        return self.texts.state(toolkit.db) if self.texts is not None else toolkit.db_hash()

    def run(self, initial: BaseModel, actions: list[dict[str, Any]]) -> tuple[db_texts.State | str, list[str]]:
        """Replay ``actions`` on a copy of ``initial``: the state after them and the tool errors met."""
        copy = db_texts.copy_on_access if self.fast else clone
        toolkit, errors = replay(self.toolkit_class, initial, actions, self.now, copy)
        return self.state_of(toolkit), errors

    def hash(self, state: db_texts.State | str) -> str:
        """The DB hash of a state from :meth:`state` or :meth:`run`."""
        return state if isinstance(state, str) else db_texts.state_hash(self.toolkit_class.db_model, state)
