"""Environments: deterministic tools over a pydantic database.

A domain subclasses :class:`Toolkit`, holds its database model in ``self.db`` and marks public
methods with :func:`tool`. Calls go through :meth:`Toolkit.call`, which validates the tool name,
records the call and turns domain :class:`ToolError` into a result the caller can inspect.

A tool's parameters are typed as an agent needs them: ``Annotated[type, Field(description=...)]``
(pydantic) gives each parameter a description, ``Literal[...]`` gives closed value sets as enums, and
amounts are ``float`` with their unit in the description. :meth:`ToolSpec.as_openai_function` is the
JSON schema tau2 shows agents (the same pydantic model tau2 builds from the signature), and
:meth:`Toolkit.check_arguments` turns a wrong type, an unknown value, a missing or an unknown argument
into a :class:`ToolError` whose message tells the agent what to send instead.

The database hash follows tau2's rule (``tau2.utils.get_dict_hash``): sha256 of
``json.dumps(db.model_dump(), sort_keys=True, default=str)``, so a gold replay in taugen and in tau2's
evaluator agree on what "same state" means.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import inspect
import json
import pickle
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Literal

from pydantic import BaseModel, ValidationError, create_model
from pydantic_core import PydanticUndefined

ToolKind = Literal["read", "write", "generic"]


class ToolError(Exception):
    """A tool refused the call (bad id, precondition not met). The message is shown to the agent."""


def tool(kind: ToolKind) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a toolkit method as a tool the agent may call.

    ``read`` tools must not change the database; ``write`` tools may; ``generic`` tools (transfer,
    think) are neither. The method's docstring is the description agents see.
    """

    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        function.__taugen_tool__ = kind  # type: ignore[attr-defined]
        return function

    return mark


@dataclass(frozen=True)
class ToolSpec:
    """A tool as agents see it: name, kind, parameters (name → annotation text), description.

    ``model`` is the pydantic model of the parameters (named ``parameters``, as tau2's ``Tool`` names
    its own), whose JSON schema carries each parameter's description and enum; None for a tool
    catalogue that has no typed signature (then every parameter is a string in the schema).
    """

    name: str
    kind: ToolKind
    parameters: dict[str, str]
    required: tuple[str, ...]
    description: str
    model: type[BaseModel] | None = field(default=None, compare=False, repr=False)

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema of the parameters (``{"type": "object", "properties": ..., "required": ...}``)."""
        if self.model is not None:
            return self.model.model_json_schema()
        types = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
        properties = {name: {"type": types.get(annotation, "string")} for name, annotation in self.parameters.items()}
        return {"type": "object", "properties": properties, "required": list(self.required)}

    def as_openai_function(self) -> dict[str, Any]:
        """The tool in OpenAI function-calling form, as tau2 shows it to agents (description reflowed
        into one line per paragraph, parameters from :meth:`parameters_schema`)."""
        return {"type": "function", "function": {"name": self.name, "description": reflow(self.description),
                                                  "parameters": self.parameters_schema()}}


def reflow(doc: str) -> str:
    """A docstring with each paragraph on one line (tau2's docstring parser takes the first *line* as
    the short description, which would cut a wrapped sentence)."""
    paragraphs = [" ".join(block.split()) for block in doc.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def parameters_model(function: Callable[..., Any]) -> type[BaseModel]:
    """The pydantic model ``parameters`` of a tool method's parameters (``self`` left out), with the
    ``Annotated`` descriptions and ``Literal`` enums of its signature.

    Raises:
        NameError: an annotation does not resolve in the method's module.
    """
    hints = typing.get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in list(inspect.signature(function).parameters.values())[1:]:
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints.get(parameter.name, Any), default)
    return create_model("parameters", **fields)


_TYPE_WORDS = {"float_type": "a number", "int_type": "a whole number", "string_type": "a string",
               "bool_type": "true or false", "int_from_float": "a whole number", "list_type": "a list",
               "dict_type": "an object"}


def _argument_error(tool_name: str, spec: ToolSpec, error: dict[str, Any]) -> str:
    """One pydantic validation error as a sentence an agent can act on."""
    name = str(error["loc"][0]) if error.get("loc") else "?"
    schema = spec.parameters_schema().get("properties", {}).get(name, {})
    described = f" ({name}: {schema['description'].rstrip('.')})" if schema.get("description") else ""
    kind = error.get("type", "")
    given = error.get("input")
    if kind == "missing":
        return f"{tool_name}: missing required argument '{name}'{described}"
    if kind == "literal_error" or "enum" in schema:
        allowed = ", ".join(str(v) for v in schema.get("enum", [])) or error.get("ctx", {}).get("expected", "")
        return f"{tool_name}: '{name}' must be one of {allowed}; got {given!r}"
    if kind in _TYPE_WORDS:
        return f"{tool_name}: '{name}' must be {_TYPE_WORDS[kind]}, not {type(given).__name__} {given!r}{described}"
    return f"{tool_name}: '{name}': {error.get('msg', 'invalid value')}; got {given!r}"


@dataclass
class ToolResult:
    """The outcome of one call: ``output`` (JSON-able) or ``error`` (the ToolError message)."""

    name: str
    arguments: dict[str, Any]
    output: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_CHECKED_ARGUMENTS: set[tuple[type, str, tuple[tuple[str, type, Any], ...]]] = set()
"""Calls whose arguments passed :meth:`Toolkit.check_arguments`: ``(toolkit class, tool, ((name, type, value),
...))`` with plain values only (strings, numbers, booleans, None), so an equal key is an identical call."""


class Toolkit:
    """Base class of a domain environment.

    Subclasses set ``db_model`` (a pydantic model class) and define tools with :func:`tool`.

    Args:
        db: the database (an instance of ``db_model``); the toolkit owns and mutates it.
        now: the world's fixed clock; tools never read the wall clock.
    """

    db_model: ClassVar[type[BaseModel]]

    def __init__(self, db: BaseModel, now: dt.datetime) -> None:
        self.db = db
        self.now = now
        self.calls: list[ToolResult] = []

    @classmethod
    def tool_specs(cls) -> dict[str, ToolSpec]:
        """Every tool of this toolkit by name, sorted (computed once per class)."""
        cached = cls.__dict__.get("_tool_specs_cache")
        if cached is not None:
            return cached
        specs: dict[str, ToolSpec] = {}
        for name, member in inspect.getmembers(cls, predicate=inspect.isfunction):
            kind = getattr(member, "__taugen_tool__", None)
            if kind is None:
                continue
            signature = inspect.signature(member)
            model = parameters_model(member)
            parameters = {}
            required = []
            for parameter in list(signature.parameters.values())[1:]:
                annotation = model.model_fields[parameter.name].annotation
                parameters[parameter.name] = getattr(annotation, "__name__", None) or "str"
                if typing.get_origin(annotation) is Literal:
                    parameters[parameter.name] = type(typing.get_args(annotation)[0]).__name__
                if parameter.default is inspect.Parameter.empty:
                    required.append(parameter.name)
            specs[name] = ToolSpec(name, kind, parameters, tuple(required), inspect.getdoc(member) or "", model)
        cls._tool_specs_cache = dict(sorted(specs.items()))
        return cls._tool_specs_cache

    @classmethod
    def check_arguments(cls, name: str, arguments: dict[str, Any]) -> None:
        """Check one call's arguments against the tool's typed parameters, without converting them.

        Types are checked strictly (a number for a ``float``, never the string ``"25.00"``; an integer
        is a number); a ``Literal`` parameter takes only its listed values.

        Raises:
            ToolError: an unknown tool, an unknown or missing argument, a wrong type or a value outside
                the parameter's enum; the message names the argument, what it must be and what was given.
        """
        try:  # arguments of plain values checked before pass again (the check depends on nothing else)
            known = (cls, name, tuple([(key, type(value), value) for key, value in arguments.items()]))
            if known in _CHECKED_ARGUMENTS:
                return
        except TypeError:  # an unhashable value: checked every time
            known = None
        specs = cls.tool_specs()
        if name not in specs:
            raise ToolError(f"unknown tool '{name}'; the tools are: {', '.join(specs)}")
        spec = specs[name]
        unknown = [key for key in arguments if key not in spec.parameters]
        if unknown:
            takes = ", ".join(spec.parameters) or "no arguments"
            raise ToolError(f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} "
                            f"{', '.join(repr(k) for k in unknown)}; {name} takes: {takes}")
        if spec.model is None:
            missing = [key for key in spec.required if key not in arguments]
            if missing:
                raise ToolError(f"{name}: missing required argument '{missing[0]}'")
            return
        try:
            spec.model.model_validate(arguments, strict=True)
        except ValidationError as exc:
            raise ToolError("; ".join(_argument_error(name, spec, error) for error in exc.errors())) from None
        if known is not None and all(type(value) in _IMMUTABLE_TYPES for value in arguments.values()):
            if len(_CHECKED_ARGUMENTS) >= 65536:
                _CHECKED_ARGUMENTS.clear()
            _CHECKED_ARGUMENTS.add(known)

    @classmethod
    def customer_slice(cls, db: BaseModel, customer_id: str) -> BaseModel | None:
        """A deep copy of only the records of one customer (None: the domain has no slice, copy the whole
        database). Certificate replays that compare one customer's end states run on slices: tools of a
        customer-service domain touch only the caller's records, so the comparison is the same and a copy
        costs a few records instead of the whole world."""
        return None

    def call(self, name: str, **arguments: Any) -> ToolResult:
        """Call tool ``name`` with keyword ``arguments``; never raises for tool-level problems.

        An unknown tool, wrong arguments (:meth:`check_arguments`) or a :class:`ToolError` become
        ``ToolResult.error``.
        """
        result = ToolResult(name=name, arguments=dict(arguments))
        try:
            self.check_arguments(name, arguments)
            result.output = getattr(self, name)(**arguments)
        except ToolError as exc:
            result.error = str(exc)
        self.calls.append(result)
        return result

    def db_json(self) -> dict[str, Any]:
        """The database as JSON-able data (``model_dump(mode="json")``)."""
        return self.db.model_dump(mode="json")

    def db_hash(self) -> str:
        """sha256 of the database, computed as tau2's ``get_dict_hash`` does (the JSON of static tables,
        see :func:`clone`, is computed once per table object: the bytes hashed are the same)."""
        static = getattr(type(self.db), "STATIC_TABLES", ())
        if not static:
            return dict_hash(self.db.model_dump())
        parts = []
        for name in sorted(type(self.db).model_fields):
            if name in static:
                table = self.db.__dict__[name]
                cached = _STATIC_JSON.get(id(table))
                if cached is None or cached[0] is not table:
                    cached = (table, json.dumps({k: v.model_dump() for k, v in table.items()}, sort_keys=True,
                                                default=str))
                    _STATIC_JSON[id(table)] = cached
                text = cached[1]
            elif isinstance(getattr(self.db, name), dict):
                text = json.dumps({k: v.model_dump() if isinstance(v, BaseModel) else v
                                   for k, v in getattr(self.db, name).items()}, sort_keys=True, default=str)
            else:  # any other field as the model dumps it (a list of records included)
                text = json.dumps(self.db.model_dump(include={name})[name], sort_keys=True, default=str)
            parts.append(f"{json.dumps(name)}: {text}")
        return hashlib.sha256(("{" + ", ".join(parts) + "}").encode()).hexdigest()

    def snapshot(self) -> BaseModel:
        """A deep copy of the database, for :meth:`restore`."""
        return clone(self.db)

    def restore(self, snapshot: BaseModel) -> None:
        """Put the database back to ``snapshot`` (a copy is taken, the snapshot stays reusable)."""
        self.db = clone(snapshot)
        self.calls = []


def clone(model: BaseModel, static: tuple[str, ...] | None = None) -> BaseModel:
    """A deep copy of a pydantic model, equal field by field to a pickle round trip (shared objects stay
    shared within the copy) and several times faster than one: plain pydantic models, dicts and lists are
    rebuilt directly (:func:`_copied`), any other value goes through :func:`copy.deepcopy`. A model class
    that customises pickling or copying is copied by a pickle round trip, as before.

    ``static`` names top-level tables no tool ever changes (default: the model class's ``STATIC_TABLES``,
    e.g. a service catalogue): the copy shares them with the original instead of copying them."""
    static = getattr(type(model), "STATIC_TABLES", ()) if static is None else static
    if _plain_model(type(model)):
        return _copied(model, {}, shared=frozenset(static))
    if not static:
        return pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    kept = {name: model.__dict__[name] for name in static}
    try:
        for name in static:
            model.__dict__[name] = {}
        copy_ = pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        model.__dict__.update(kept)
    copy_.__dict__.update(kept)
    return copy_


_IMMUTABLE_TYPES = frozenset({str, int, float, bool, type(None), bytes, complex, dt.date, dt.datetime})
"""Types whose values a copy may share: nothing can change them in place."""
_PLAIN_MODELS: dict[type, bool] = {}


def _plain_model(kind: type) -> bool:
    """Whether instances of ``kind`` are pydantic models whose state is exactly what pydantic's pickling
    carries (``__dict__``, extra, fields set, private attributes): no override of pickling or copying."""
    plain = _PLAIN_MODELS.get(kind)
    if plain is None:
        plain = issubclass(kind, BaseModel) and all(
            getattr(kind, name) is getattr(BaseModel, name)
            for name in ("__getstate__", "__setstate__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__"))
        _PLAIN_MODELS[kind] = plain
    return plain


def _copied(value: Any, memo: dict[int, Any], shared: frozenset[str] = frozenset()) -> Any:
    """A deep copy of ``value`` (a database or a part of one). ``memo`` maps the id of every container
    already copied to its copy, so an object reached twice is copied once, as pickle does; ``shared``
    names fields of ``value`` (a model) that the copy takes over without copying."""
    kind = type(value)
    immutable = _IMMUTABLE_TYPES
    if kind in immutable:
        return value
    done = memo.get(id(value))
    if done is not None:
        return done
    if kind is dict:
        result: Any = {}
        memo[id(value)] = result
        for key, item in value.items():
            result[key] = item if type(item) in immutable else _copied(item, memo)
    elif kind is list:
        result = []
        memo[id(value)] = result
        result.extend([item if type(item) in immutable else _copied(item, memo) for item in value])
    elif _PLAIN_MODELS.get(kind) or _plain_model(kind):
        result = kind.__new__(kind)
        memo[id(value)] = result
        state = value.__dict__
        if not shared and immutable.issuperset(map(type, state.values())):  # a record of plain values
            fields = state.copy()
        else:
            fields = {key: item if type(item) in immutable or key in shared else _copied(item, memo)
                      for key, item in state.items()}
        set_slot = object.__setattr__
        set_slot(result, "__dict__", fields)
        extra, private = value.__pydantic_extra__, value.__pydantic_private__
        if private:  # as BaseModel.__getstate__: unset private attributes are left out
            private = {key: _copied(item, memo) for key, item in private.items() if item is not PydanticUndefined}
        elif private is not None:
            private = {}
        set_slot(result, "__pydantic_extra__", None if extra is None else _copied(extra, memo))
        set_slot(result, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
        set_slot(result, "__pydantic_private__", private)
    else:
        result = copy.deepcopy(value, memo)
        memo[id(value)] = result
    return result


_STATIC_JSON: dict[int, tuple[Any, str]] = {}
"""JSON text of static tables by object id (the table is kept in the entry, so an id is never reused)."""


def dict_hash(data: Any) -> str:
    """sha256 hex of ``json.dumps(data, sort_keys=True, default=str)`` (tau2's ``get_dict_hash``)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Merge ``patch`` into a copy of ``base`` the way tau2 applies ``initialization_data``.

    tau2 (``update_pydantic_model_with_dict``) uses ``addict.Dict.update``: dicts merge recursively,
    every other value (lists included) replaces the old one.
    """
    return copy.deepcopy(merged_for_reading(base, patch))


def merged_for_reading(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``deep_merge(base, patch)`` without copying what ``patch`` leaves alone: the dicts on a patched path
    are new (shallow copies), every other value is ``base``'s own object. For a reader that does not
    mutate the result (``model_validate`` builds new models from it); ``base`` is never changed. Equal to
    :func:`deep_merge`'s result value for value."""
    merged = dict(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merged_for_reading(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def diff_patch(before: dict[str, Any], after: dict[str, Any], path: str = "") -> dict[str, Any]:
    """The smallest patch ``p`` with ``deep_merge(before, p) == after``.

    Raises:
        ValueError: ``after`` lacks a key that ``before`` has (a merge patch cannot delete).
    """
    patch: dict[str, Any] = {}
    for key in before:
        if key not in after:
            raise ValueError(f"setup deleted '{path}{key}', which an initialization patch cannot express")
    for key, value in after.items():
        if key not in before:
            patch[key] = copy.deepcopy(value)
        elif isinstance(value, dict) and isinstance(before[key], dict):
            inner = diff_patch(before[key], value, f"{path}{key}.")
            if inner:
                patch[key] = inner
        elif value != before[key]:
            patch[key] = copy.deepcopy(value)
    return patch
