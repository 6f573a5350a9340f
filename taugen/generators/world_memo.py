"""What task composition remembers of the world it composes on, and how it copies and hashes it.

Composing and certifying a task space sets up thousands of tasks on one world: :data:`WORLD_MEMO` keeps
that world's JSON dump, its records as hashable text and each customer's slice (dropped when another
world comes), so that :func:`copy_for` (a copy to set one customer's task up on), :func:`world_json` and
:func:`full_hash` (tau2's database hash of the whole world with a slice's records merged in, resumed from the
remembered hash state of the world's text) do not dump and hash the whole world again for every task.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from taugen.generators.domain import DomainDefinition
from taugen.generators.environment import Toolkit, clone


@dataclass
class _WorldMemo:
    """What is remembered about the world :func:`~taugen.generators.tasks.compose_tasks` is composing on
    (never changed while it composes; the memo is dropped at the start of every composition and when
    another world comes).

    Attributes:
        world: the world (kept, so its id is not reused while remembered).
        json: ``world.model_dump(mode="json")``, once asked for.
        texts: ``{table: {key: '"key": JSON text of the record'}}`` of ``world.model_dump()``, once asked for.
        slices: customer id → the domain's slice of the world for that customer (None: the domain has no
            slice); never handed out, only copied.
        slice_json: customer id → the slice as JSON, static tables left out.
        text: the world as hashable text (:func:`_world_text`), once asked for.
    """

    world: BaseModel
    json: dict[str, Any] | None = None
    texts: dict[str, dict[str, str]] | None = None
    slices: dict[str, BaseModel | None] = field(default_factory=dict)
    slice_json: dict[str, dict[str, Any]] = field(default_factory=dict)
    text: _WorldText | None = None


WORLD_MEMO: list[_WorldMemo] = []
"""The memo of the world being composed on (at most one)."""


def _memo(world: BaseModel) -> _WorldMemo:
    """The memo of ``world``, a fresh one when the memo held is another world's."""
    if not WORLD_MEMO or WORLD_MEMO[0].world is not world:
        WORLD_MEMO[:] = [_WorldMemo(world)]
    return WORLD_MEMO[0]


def _world_dumps(world: BaseModel) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """``(model_dump(mode="json"), {table: {key: '"key": JSON text of the record'}})`` of the world
    :func:`~taugen.generators.tasks.compose_tasks` is composing on, remembered (cleared at the start of
    every composition)."""
    memo = _memo(world)
    if memo.json is None or memo.texts is None:
        full = world.model_dump()
        memo.texts = {table: {key: _record_text(key, row) for key, row in rows.items()} for table, rows in full.items()}
        memo.json = world.model_dump(mode="json")
    return memo.json, memo.texts


def world_slice(domain: DomainDefinition, world: BaseModel, customer_id: str) -> BaseModel | None:
    """The domain's slice of ``world`` for one customer (None when the domain has no slice), remembered:
    read it, or copy it with :func:`clone`, never change it."""
    slices = _memo(world).slices
    if customer_id not in slices:
        slices[customer_id] = domain.toolkit.customer_slice(world, customer_id)
    return slices[customer_id]


def static_tables(db: BaseModel) -> set[str]:
    return set(getattr(type(db), "STATIC_TABLES", ()))


def world_json(world: BaseModel, customer_id: str | None = None,
                domain: DomainDefinition | None = None) -> dict[str, Any]:
    """The world as JSON, or only the customer's slice of it (what a sliced set-up starts from; static
    tables left out: no set-up changes them). Remembered: read it, never change it."""
    if customer_id is None or domain is None:
        return _world_dumps(world)[0]
    slice_json = _memo(world).slice_json
    if customer_id not in slice_json:
        slice_json[customer_id] = world_slice(domain, world, customer_id).model_dump(mode="json",
                                                                                       exclude=static_tables(world))
    return slice_json[customer_id]


def copy_for(domain: DomainDefinition, world: BaseModel, customer_id: str) -> BaseModel:
    """A copy of the world to set one customer's task up on: the customer's slice when the domain has one."""
    part = world_slice(domain, world, customer_id)
    return clone(part) if part is not None else clone(world)


_JSON = json.JSONEncoder(sort_keys=True, default=str)
"""``_JSON.encode(x)`` is ``json.dumps(x, sort_keys=True, default=str)`` (tau2's hash text), without making an
encoder for every record."""


def _record_text(key: str, row: Any) -> str:
    """One record as it stands in the hashed JSON text: ``'"key": {...}'``."""
    return f"{json.dumps(key)}: {_JSON.encode(row)}"


@dataclass
class _TableText:
    """One table of the world as the JSON text tau2's hash reads, with what a merge needs to splice in
    changed or new records without joining every record again, and the hash states inside it.

    Attributes:
        keys: the record keys, sorted (the order ``json.dumps(..., sort_keys=True)`` writes them in).
        index: key → its position in ``keys``.
        texts: key → the record's text (``'"key": {...}'``).
        body: the records' texts in key order, joined with ``", "``.
        starts / ends: where each record's text starts and ends in ``body`` (character offsets).
        encoded: the whole table, ``'"name": {body}'``, as UTF-8 bytes.
        states: sha256 states of the whole world's text up to the start of each record's text, and ``end``:
            up to the end of ``body`` (set by :func:`_world_text`).
    """

    keys: list[str]
    index: dict[str, int]
    texts: dict[str, str]
    body: str
    starts: list[int]
    ends: list[int]
    encoded: bytes
    states: list[Any] = field(default_factory=list)
    end: Any = None

    @classmethod
    def of(cls, name: str, rows: dict[str, str]) -> _TableText:
        """The table ``name`` from ``{key: record text}``."""
        keys = sorted(rows)
        starts, ends, offset = [], [], 0
        for key in keys:
            starts.append(offset)
            offset += len(rows[key])
            ends.append(offset)
            offset += 2  # the ", " between records
        body = ", ".join([rows[key] for key in keys])
        return cls(keys, {key: i for i, key in enumerate(keys)}, dict(rows), body, starts, ends,
                   f"{json.dumps(name)}: {{{body}}}".encode())

    def first_change(self, records: dict[str, str]) -> int | None:
        """Where, in ``body``, the text of the table with ``records`` (key → record text) in place first differs
        from the world's: the start of the first record replaced by another text or of the record a new one
        goes before, or the end of ``body`` for a new last record. None: the same text."""
        change = None
        for key, text in records.items():
            position = self.index.get(key)
            if position is not None:
                if self.texts[key] == text:
                    continue
                offset = self.starts[position]
            else:
                position = bisect.bisect_left(self.keys, key)
                offset = self.starts[position] if position < len(self.keys) else len(self.body)
            change = offset if change is None else min(change, offset)
        return change

    def state_at(self, offset: int) -> Any:
        """A copy of the hash state at ``offset`` of ``body`` (a record's start or the end of ``body``)."""
        if offset == len(self.body):
            return self.end.copy()
        return self.states[bisect.bisect_left(self.starts, offset)].copy()

    def merged(self, records: dict[str, str]) -> str:
        """The table's ``body`` with ``records`` (key → record text) in place: a key the table has is replaced,
        a new one inserted in key order. Byte for byte the body of the merged table's sorted records."""
        edits = []  # (position in keys, 0 for an insertion before it / 1 for a replacement of it, key, text)
        for key, text in records.items():
            position = self.index.get(key)
            edits.append((position, 1, key, text) if position is not None
                         else (bisect.bisect_left(self.keys, key), 0, key, text))
        edits.sort()
        pieces, cursor = [], 0  # cursor: the first record of the table not yet written
        for position, replaces, _, text in edits:
            if position > cursor:
                pieces.append(self.body[self.starts[cursor]:self.ends[position - 1]])
            pieces.append(text)
            cursor = max(cursor, position + replaces)
        if cursor < len(self.keys):
            pieces.append(self.body[self.starts[cursor]:])
        return ", ".join(pieces)


@dataclass
class _WorldText:
    """The world as the JSON text tau2's hash reads (``{"table": {records}, ...}``, tables in name order).

    Attributes:
        tables: name → :class:`_TableText`, in name order.
        digest: tau2's hash of the world itself.
    """

    tables: dict[str, _TableText]
    digest: str


def _world_text(world: BaseModel) -> _WorldText:
    """The world's :class:`_WorldText`, with the hash state at every record boundary, remembered like the
    world's JSON."""
    memo = _memo(world)
    if memo.text is None:
        _, texts = _world_dumps(world)
        tables = {name: _TableText.of(name, texts[name]) for name in sorted(texts)}
        digest = hashlib.sha256(b"{")
        for number, (name, table) in enumerate(tables.items()):
            digest.update(f"{', ' if number else ''}{json.dumps(name)}: {{".encode())
            for position, key in enumerate(table.keys):
                if position:
                    digest.update(b", ")
                table.states.append(digest.copy())
                digest.update(table.texts[key].encode())
            table.end = digest.copy()
            digest.update(b"}")
        digest.update(b"}")
        memo.text = _WorldText(tables, digest.hexdigest())
    return memo.text


def full_hash(domain: DomainDefinition, world: BaseModel, toolkit: Toolkit) -> str:
    """tau2's DB hash of the whole world with ``toolkit``'s records in place: for a slice, the world's records
    with the slice's (every record of the customer, changed or new) merged over them. The bytes hashed are
    byte for byte ``json.dumps(merged, sort_keys=True, default=str)``: the hash resumes from the world's hash
    state where the merged text first differs from the world's (the world's own hash when it never does) and
    reads the rest, the slice's records spliced into the world's remembered table texts."""
    if len(getattr(toolkit.db, domain.customer_table)) == len(getattr(world, domain.customer_table)):  # not a slice
        return toolkit.db_hash()
    world_text = _world_text(world)
    part = toolkit.db.model_dump(exclude=static_tables(toolkit.db))
    digest = None
    for number, (name, table) in enumerate(world_text.tables.items()):
        rows = part.get(name)
        records = {key: _record_text(key, row) for key, row in rows.items()} if rows else None
        if digest is None:  # the text so far is the world's
            change = table.first_change(records) if records else None
            if change is None:
                continue
            digest = table.state_at(change)
            digest.update(table.merged(records)[change:].encode())
            digest.update(b"}")
            continue
        digest.update(b", ")
        if records and table.first_change(records) is not None:
            digest.update(f"{json.dumps(name)}: {{{table.merged(records)}}}".encode())
        else:
            digest.update(table.encoded)
    if digest is None:
        return world_text.digest
    digest.update(b"}")
    return digest.hexdigest()
