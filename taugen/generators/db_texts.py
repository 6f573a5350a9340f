"""Database states that a replay can compare and hash without dumping the whole database each time.

tau2's DB hash (:func:`taugen.generators.environment.dict_hash` of ``db.model_dump()``) reads one JSON text,
``json.dumps(dump, sort_keys=True, default=str)``. For a database whose fields are tables, that text is

    '{' + ', '.join(f'{json.dumps(name)}: {table text}' for name in sorted(fields)) + '}'

and a table that is a dict of records with string keys has the text

    '{' + ', '.join(f'{json.dumps(key)}: {record text}' for key in sorted(table)) + '}'

(``json.dumps``'s own separators, ``', '`` and ``': '``), so the text, and every comparison of two states, can
be assembled from the texts of tables and records. This module keeps those texts and reuses them:

* :class:`TableTexts` remembers the text of every table object it is shown, for tables nothing changes
  (a replay's starting state), by object identity;
* :func:`copy_on_access` gives a replay a database whose tables are copied only when a tool first reaches
  them (``db.accounts``): a table no tool touched is still the start's own object, whose text is
  remembered; a record of a touched table whose values are still the very objects of the start's record
  (:func:`same_text`) has the start's record text;
* :meth:`TableTexts.state` is a database's state as a tuple of table texts, equal for two databases exactly
  when their DB hashes are equal (the texts are self-delimiting JSON in a fixed table order), and
  :func:`state_hash` turns a state into tau2's DB hash;
* :func:`patched` builds a task's starting database (the base database with the task's patch merged in) by
  validating only what the patch changes, so starting states share tables, records and their texts.

:func:`supports` names the database models this applies to; any other model is replayed by copying and
dumping the whole database (:func:`taugen.generators.environment.clone`, ``Toolkit.db_hash``). The tasks
validator (:mod:`taugen.validators.tasks`) uses both paths; ``tests/test_db_texts.py`` checks them against
each other.
"""

from __future__ import annotations

import hashlib
import json
import typing
from operator import is_
from typing import Any, Callable

from pydantic import BaseModel

from taugen.generators.environment import _IMMUTABLE_TYPES, _PLAIN_MODELS, _copied, _plain_model, merged_for_reading

_JSON = json.JSONEncoder(sort_keys=True, default=str)
"""``_JSON.encode(x)`` is ``json.dumps(x, sort_keys=True, default=str)``: tau2's hash text."""

State = tuple[str, ...]
"""A database's state: the JSON text of each of its tables, in table-name order (:meth:`TableTexts.state`)."""


def supports(db_model: type[BaseModel]) -> bool:
    """Whether the database model's hash text is assembled from its fields' own dumps, so the texts of this
    module are exact: a plain pydantic model (:func:`taugen.generators.environment._plain_model`) with no
    serializer, computed field or extra field of its own (its records may have any)."""
    decorators = db_model.__pydantic_decorators__
    return (_plain_model(db_model) and not decorators.model_serializers and not decorators.field_serializers
            and not db_model.model_computed_fields and db_model.model_config.get("extra") != "allow")


def _record_text(key: str, record: BaseModel) -> str:
    """One record as it stands in its table's text: ``'"key": {...}'``."""
    return f"{json.dumps(key)}: {_JSON.encode(record.model_dump())}"


_RECORD_TYPES: dict[tuple[type, str], type | None] = {}


def record_type(db_model: type[BaseModel], name: str) -> type[BaseModel] | None:
    """The record model of field ``name`` when the field is a table of records, ``dict[str, Model]`` with no
    constraints or serializers of its own (then the field's dump is each record's own ``model_dump()``, for
    records of exactly that model); else None."""
    key = (db_model, name)
    if key not in _RECORD_TYPES:
        field = db_model.model_fields[name]
        arguments = typing.get_args(field.annotation) if typing.get_origin(field.annotation) is dict else ()
        record = arguments[1] if len(arguments) == 2 and arguments[0] is str else None
        plain = isinstance(record, type) and issubclass(record, BaseModel) and not field.metadata
        _RECORD_TYPES[key] = record if plain else None
    return _RECORD_TYPES[key]


def _field_text(db_model: type[BaseModel], name: str, value: Any) -> str:
    """The JSON text of field ``name`` holding ``value``, dumped afresh as the database model dumps it."""
    return _JSON.encode(db_model.model_construct(**{name: value}).model_dump(include={name})[name])


class _Table:
    """The remembered text of one table (one field of a database) nothing changes.

    Attributes:
        table: the table object itself (kept, so its id is never reused while remembered).
        text: the table's JSON text (``json.dumps(dump of the table, sort_keys=True, default=str)``).
        records: key → ``'"key": {record text}'`` when the table is a table of records (:func:`record_type`)
            with string keys, each record of exactly the record model; else None.
        keys: the keys in sorted order (the order the text writes them in), or None.
        record: the record model, or None.
    """

    __slots__ = ("keys", "record", "records", "table", "text")

    def __init__(self, db_model: type[BaseModel], name: str, table: Any,
                 record_text: Callable[[str, BaseModel], str]) -> None:
        self.table = table
        self.record = record_type(db_model, name)
        self.records: dict[str, str] | None = None
        self.keys: list[str] | None = None
        if self.record is not None and type(table) is dict and _records_of(table, self.record):
            self.keys = sorted(table)
            self.records = {key: record_text(key, table[key]) for key in self.keys}
            self.text = "{" + ", ".join([self.records[key] for key in self.keys]) + "}"
        else:
            self.text = _field_text(db_model, name, table)


def _records_of(table: dict[Any, Any], record: type) -> bool:
    """Whether every key of ``table`` is a string and every value a ``record`` (that very model)."""
    return all(type(key) is str for key in table) and all(type(value) is record for value in table.values())


def same_text(copy: Any, original: Any) -> bool:
    """Whether ``copy`` certainly has ``original``'s JSON text because it is made of the same values: the same
    object of an immutable type (a string, a number, a date ...), or a list, dict or plain pydantic record of
    the same type whose keys are the same objects in the same order and whose items are, recursively, the
    same. A copy made by :func:`taugen.generators.environment.clone` keeps the very objects of the original's
    keys and immutable values, so a record no tool changed passes; any change (a new value, even an equal
    one; an item appended or removed) fails, and the caller dumps the record afresh. False is always safe."""
    if copy is original:
        return type(copy) in _IMMUTABLE_TYPES
    kind = type(copy)
    if kind is not type(original):
        return False
    if kind is list:
        return len(copy) == len(original) and all(map(same_text, copy, original))
    if kind is dict:
        mine, theirs = copy, original
    elif _PLAIN_MODELS.get(kind) or _plain_model(kind):
        if copy.__pydantic_extra__ or original.__pydantic_extra__:
            return False
        mine, theirs = copy.__dict__, original.__dict__
    else:
        return False
    if len(mine) != len(theirs) or not all(map(is_, mine, theirs)):  # the same key objects, in the same order
        return False
    if all(map(is_, mine.values(), theirs.values())):  # a record of plain values no tool changed
        return _IMMUTABLE_TYPES.issuperset(map(type, mine.values()))
    return all(map(same_text, mine.values(), theirs.values()))


class _LazyRecords(dict):
    """A table (a ``dict`` with string keys) of a :func:`copy_on_access` database whose items are deep-copied
    one by one, the first time a reader reaches them, instead of the whole table when the table is first read.

    Until then the table's storage holds the source's own item (its key is in :attr:`shared`): nothing hands
    it out, so nothing can change it, and :meth:`TableTexts.state` takes its text from the source without
    looking at it. Every way Python code reaches an item copies it first: indexing, ``get``, ``setdefault``,
    ``pop``, ``popitem``, ``values``, ``items``, ``copy`` and the merges (``dict(table)``, ``{**table}``,
    ``update``), which CPython runs through ``keys`` and indexing because the class has its own ``__iter__``.
    ``values()`` and ``items()`` are lists, not views. What reads the storage directly (``json.dumps``,
    pydantic's ``model_dump``, ``==``) sees the source's values for the items not reached, which are the
    values a full copy would hold. A key written (``table[key] = ...``) or deleted is no longer shared.

    Attributes:
        shared: the keys whose item is still the source's own object.
        memo: the copy's memo (:func:`taugen.generators.environment._copied`), shared by every table of the
            database, so an object reached twice is copied once.
    """

    __slots__ = ("shared", "memo")

    def __init__(self, source: dict, memo: dict[int, Any]) -> None:
        super().__init__(source)
        self.shared = set(source)
        self.memo = memo

    def _take(self, key: Any) -> Any:
        """The item at ``key`` (which must be present), copied into the storage first if it is still shared."""
        value = dict.__getitem__(self, key)
        if key in self.shared:
            self.shared.discard(key)
            if type(value) not in _IMMUTABLE_TYPES:
                value = _copied(value, self.memo)
                dict.__setitem__(self, key, value)
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._take(key)

    def get(self, key: Any, default: Any = None) -> Any:
        return self._take(key) if dict.__contains__(self, key) else default

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return self._take(key)
        dict.__setitem__(self, key, default)
        return default

    def pop(self, key: Any, *default: Any) -> Any:
        if dict.__contains__(self, key):
            value = self._take(key)
            dict.__delitem__(self, key)
            return value
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[Any, Any]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self._take(key) for key in dict.keys(self)]

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return [(key, self._take(key)) for key in dict.keys(self)]

    def __iter__(self):  # its own __iter__: CPython then merges a subclass through keys() and [] (copies)
        return dict.__iter__(self)

    def copy(self) -> dict:
        return dict(self.items())

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> dict:
        import copy as copying

        return {key: copying.deepcopy(value, memo) for key, value in self.items()}

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return dict, (self.copy(),)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.shared.discard(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self.shared.discard(key)
        dict.__delitem__(self, key)

    def update(self, *others: Any, **items: Any) -> None:
        for key, value in dict(*others, **items).items():
            self[key] = value

    def __ior__(self, other: Any) -> "_LazyRecords":
        self.update(other)
        return self

    def __or__(self, other: Any) -> dict:
        return {**self.copy(), **other}

    def clear(self) -> None:
        self.shared.clear()
        dict.clear(self)


class _CopyOnAccess:
    """The ``__getattr__`` of a :func:`copy_on_access` database: the first read of a field that is not yet in
    the instance's ``__dict__`` takes it from the source and keeps it there, so every later read is an
    ordinary attribute read: a static table as it is, a table that is a plain ``dict`` with string keys as a
    :class:`_LazyRecords` (its items copied one by one as they are reached), any other value deep-copied."""

    def __getattr__(self, name: str) -> Any:
        source, memo, static = object.__getattribute__(self, "_cow_source")
        if name in type(self).model_fields:
            value = source.__dict__[name]
            if name in static or type(value) in _IMMUTABLE_TYPES:
                pass
            elif type(value) is dict and all(type(key) is str for key in value):
                value = _LazyRecords(value, memo)
            else:
                value = _copied(value, memo)
            self.__dict__[name] = value
            return value
        return super().__getattr__(name)  # type: ignore[misc]  # pydantic's: private attributes


_LAZY_CLASSES: dict[type, type] = {}


def _lazy_class(kind: type[BaseModel]) -> type[BaseModel]:
    """The copy-on-access subclass of database model ``kind`` (made once per model)."""
    lazy = _LAZY_CLASSES.get(kind)
    if lazy is None:
        lazy = type(f"CopyOnAccess{kind.__name__}", (_CopyOnAccess, kind),
                    {"__slots__": ("_cow_source",), "__module__": __name__, "__doc__": kind.__doc__})
        _LAZY_CLASSES[kind] = lazy
    return lazy


def copy_on_access(source: BaseModel) -> BaseModel:
    """A database equal to ``clone(source)`` for every reader that reaches its tables as attributes
    (``db.accounts``, as tools do): each table is deep-copied the first time it is read, and only then; a
    static table (the model's ``STATIC_TABLES``) is taken over uncopied, as :func:`clone` does. A table never
    read is absent from the copy's ``__dict__``, so read the state with :meth:`TableTexts.state`, not
    ``model_dump``.

    ``source`` must stay unchanged while the copy lives, and its tables must share no mutable object with
    one another (true of any database ``model_validate`` built): a copy made table by table shares nothing
    between tables either. One ``memo`` serves all tables, so objects reached twice within them are copied
    once, as :func:`clone` does.

    Args:
        source: a database model instance of a model :func:`supports` accepts.

    Returns:
        an instance of a subclass of ``type(source)`` (``isinstance`` holds; ``type(...) is`` does not).
    """
    kind = type(source)
    lazy = _lazy_class(kind)
    copy = lazy.__new__(lazy)
    set_slot = object.__setattr__
    set_slot(copy, "__dict__", {})
    set_slot(copy, "__pydantic_fields_set__", set(source.__pydantic_fields_set__))
    set_slot(copy, "__pydantic_extra__", None)
    set_slot(copy, "__pydantic_private__", _copied(source.__pydantic_private__, {}))
    set_slot(copy, "_cow_source", (source, {}, frozenset(getattr(kind, "STATIC_TABLES", ()))))
    return copy


class TableTexts:
    """Table and record texts of databases, remembered for the tables and records nothing changes.

    Tables and records are remembered by object identity, so one shown to :meth:`state` as part of a
    database that is not a :func:`copy_on_access` copy must never change afterwards (the starting states of
    replays: replays work on copies). Starting states that share tables or records (a base database and
    the tasks' patched versions of it) share their texts too. The remembered objects are kept alive by this
    object; drop it when the replays are done.
    """

    def __init__(self) -> None:
        self._tables: dict[tuple[int, type, str], _Table] = {}
        self._records: dict[tuple[int, str], tuple[Any, str]] = {}

    def _of(self, db_model: type[BaseModel], name: str, table: Any) -> _Table:
        key = (id(table), db_model, name)
        known = self._tables.get(key)
        if known is None:
            known = self._tables[key] = _Table(db_model, name, table, self._record_text)
        return known

    def _record_text(self, key: str, record: Any) -> str:
        """``_record_text(key, record)`` of a record nothing changes, remembered."""
        known = self._records.get((id(record), key))
        if known is None:
            known = self._records[(id(record), key)] = (record, _record_text(key, record))
        return known[1]

    def state(self, db: BaseModel) -> State:
        """``db``'s state: its tables' texts in table-name order. Two states are equal exactly when the two
        databases have the same DB hash, and :func:`state_hash` gives that hash.

        For a :func:`copy_on_access` copy, a table never read is the source's (remembered text); a table read
        is re-assembled from the source's record texts, dumping only the records :func:`same_text` cannot
        vouch for, and is the very source text (the same ``str`` object) when nothing in it changed.
        """
        lazy = getattr(db, "_cow_source", None) if isinstance(db, _CopyOnAccess) else None
        source = lazy[0] if lazy is not None else None
        db_model = type(source if source is not None else db)
        texts = []
        for name in sorted(db_model.model_fields):
            if source is None:
                texts.append(self._of(db_model, name, db.__dict__[name]).text)
                continue
            original = source.__dict__[name]
            if name not in db.__dict__ or db.__dict__[name] is original:
                texts.append(self._of(db_model, name, original).text)
            else:
                table = self._of(db_model, name, original)
                texts.append(self._changed_text(db_model, name, db.__dict__[name], table))
        return tuple(texts)

    @staticmethod
    def _changed_text(db_model: type[BaseModel], name: str, table: Any, original: _Table) -> str:
        """The text of field ``name`` holding ``table``, a copy of ``original``'s table that a replay may have
        changed."""
        lazy = type(table) is _LazyRecords
        if original.records is None or (type(table) is not dict and not lazy):
            return _field_text(db_model, name, table)
        source = original.table
        same_keys = table.keys() == source.keys()
        if not same_keys and not all(type(key) is str for key in table):
            return _field_text(db_model, name, table)
        shared = table.shared if lazy else ()  # items nothing reached: still the source's own
        if same_keys and len(shared) == len(source):
            return original.text
        texts, changed = [], not same_keys
        for key in original.keys if same_keys else sorted(table):
            if key in shared:
                texts.append(original.records[key])
                continue
            record, before = dict.__getitem__(table, key), source.get(key)
            if before is not None and same_text(record, before):
                texts.append(original.records[key])
            elif type(record) is not original.record:  # another model, or not a record: the field as a whole
                return _field_text(db_model, name, table)
            else:
                text = _record_text(key, record)
                changed = changed or text != original.records.get(key)
                texts.append(text)
        return "{" + ", ".join(texts) + "}" if changed else original.text


def state_hash(db_model: type[BaseModel], state: State) -> str:
    """tau2's DB hash of a database of model ``db_model`` in ``state`` (sha256 of its JSON text)."""
    names = sorted(db_model.model_fields)
    text = "{" + ", ".join([f"{json.dumps(name)}: {table}" for name, table in zip(names, state)]) + "}"
    return hashlib.sha256(text.encode()).hexdigest()


def validates_by_field(db_model: type[BaseModel]) -> bool:
    """Whether validating a database of this model validates each field on its own: a plain model with no
    model or field validators, no private attributes or ``model_post_init``, and a default for every field.
    Then :func:`patched` may validate only what a patch changes."""
    decorators = db_model.__pydantic_decorators__
    return (_plain_model(db_model) and not decorators.model_validators and not decorators.field_validators
            and not decorators.validators and not decorators.root_validators and not db_model.__private_attributes__
            and db_model.model_post_init is BaseModel.model_post_init
            and not any(field.is_required() for field in db_model.model_fields.values()))


def patched(base: BaseModel, raw: dict[str, Any], patch: dict[str, Any]) -> BaseModel:
    """``type(base).model_validate(merged_for_reading(raw, patch))`` (a task's starting database), validating
    only what ``patch`` changes: ``base`` must be ``type(base).model_validate(raw)``, and the result shares
    with it every table the patch leaves alone and, in a table of records (``dict[str, Model]``), every record
    it leaves alone. Neither ``base`` nor the result may be changed afterwards (copy them to change them).

    Raises:
        ValueError: the model does not validate field by field (:func:`validates_by_field`) or the patch names
            a field the model does not have; the caller validates the merged database instead.
        pydantic.ValidationError: the patched data is not valid (validating the merged database raises too).
    """
    kind = type(base)
    if not validates_by_field(kind) or not set(patch) <= set(kind.model_fields):
        raise ValueError(f"{kind.__name__} cannot be validated patch by patch")
    merged = merged_for_reading(raw, patch)
    fields = dict(base.__dict__)
    for name in patch:
        fields[name] = _validated_field(kind, name, merged[name], raw.get(name), base.__dict__[name])
    result = kind.__new__(kind)
    set_slot = object.__setattr__
    set_slot(result, "__dict__", fields)
    set_slot(result, "__pydantic_fields_set__", set(base.__pydantic_fields_set__) | set(patch))
    set_slot(result, "__pydantic_extra__", None)
    set_slot(result, "__pydantic_private__", None)
    return result


def _validated_field(kind: type[BaseModel], name: str, value: Any, raw: Any, validated: Any) -> Any:
    """Field ``name`` of model ``kind`` validated from ``value``; for a table of records (:func:`record_type`)
    whose raw data was ``raw`` and validated ``validated``, a record ``value``
    holds unchanged (the very object of ``raw``) is taken from ``validated`` and only the others are
    validated, each as ``Model.model_validate``."""
    record = record_type(kind, name)
    if (record is None or kind.model_config.get("strict") or type(value) is not dict or type(raw) is not dict
            or type(validated) is not dict or not all(type(key) is str for key in value)):
        return kind.model_validate({name: value}).__dict__[name]
    return {key: validated[key] if key in raw and item is raw[key] and key in validated else record.model_validate(item)
            for key, item in value.items()}
