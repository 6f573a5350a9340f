"""The client API contract: an OpenAPI 3.1 document generated from a domain's toolkit.

Every tool of the toolkit (:meth:`taugen.generators.environment.Toolkit.tool_specs`) becomes one
operation whose ``operationId`` is the tool name:

* ``read`` tools are ``GET /v1/<tool>`` with the tool's parameters as query parameters;
* ``write`` and ``generic`` tools are ``POST /v1/<tool>`` with a JSON object body; they accept an
  optional ``Idempotency-Key`` header (a retry with the same key returns the first answer and changes
  nothing);
* a tool that returns a list is paginated: optional ``limit`` (1..100, default :data:`DEFAULT_LIMIT`)
  and ``cursor`` (opaque) query parameters, and a ``{items, next_cursor}`` page, sorted as the tool
  sorts (``next_cursor`` is null on the last page);
* every operation takes an optional ``X-Session-Key`` header: each key addresses its own copy of the
  bank's state;
* errors use one envelope (``ApiError``): 400 bad request, 404 unknown record, 409 conflict with the
  record's state, 422 refused by a precondition.

Parameter schemas are the tool's own (``ToolSpec.as_openai_function()``, so descriptions and enums
added to the tool specs flow through); response schemas come from the database model's JSON Schema
(descriptions, enums) when a tool's name names a record (``get_order`` → ``Order``,
``list_line_items`` → ``LineItem``), narrowed to the keys the tool actually returns on the world's
database. Extensions ``x-api-mutation``, ``x-api-retry-safe``, ``x-api-pagination`` and
``x-api-consistency`` state what OpenAPI cannot. The document describes the *intended* behaviour; a
deployment may deviate (:mod:`taugen.build.construction.defects`).

The shape follows the client API contract of τ^τ-bench (sierra-research/hyper-tau-bench,
``data/tau2/hyper/framework_reference/client_api_contract.md``): OpenAPI normative, ``x-api-*``
extensions, one error envelope.
"""

from __future__ import annotations

import copy
import inspect
import re
from typing import Any

import yaml
from pydantic import BaseModel

from taugen.generators.environment import Toolkit

OPENAPI_VERSION = "3.1.0"
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
SESSION_HEADER = "X-Session-Key"
IDEMPOTENCY_HEADER = "Idempotency-Key"
MONEY_BOUND = 1_000_000_000
ERROR_STATUSES = {"400": "The request is malformed: a missing, unknown or mistyped parameter.",
                  "404": "A record the request names does not exist.",
                  "409": "The request conflicts with the record's current state (already done, already closed).",
                  "422": "The request is well formed but refused by a precondition of the operation."}
ERROR_CODES = ("bad_request", "not_found", "conflict", "unprocessable", "timeout", "internal")


def operation_path(name: str) -> str:
    """``/v1/<tool name>``: the path of a tool's operation."""
    return f"/v1/{name}"


def _returns_list(toolkit_class: type[Toolkit], name: str) -> bool:
    annotation = inspect.signature(getattr(toolkit_class, name)).return_annotation
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    return text.startswith(("list", "List"))


def _returns_text(toolkit_class: type[Toolkit], name: str) -> bool:
    annotation = inspect.signature(getattr(toolkit_class, name)).return_annotation
    return annotation in ("str", str)


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(?:\s|$)", flat)
    return match.group(1) if match else flat


def _camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def record_model_name(tool_name: str, model_names: set[str]) -> str | None:
    """The database record a tool's name names, or None (``list_line_items`` → ``LineItem``)."""
    match = re.match(r"^(?:get|list)_(.+)$", tool_name)
    if not match:
        return None
    noun = match.group(1)
    for candidate in (noun, noun[:-1] if noun.endswith("s") else noun, noun[:-2] if noun.endswith("es") else noun):
        if _camel(candidate) in model_names:
            return _camel(candidate)
    return None


def _model_schemas(db_model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    """Component schemas of every record model under ``db_model`` (not the database itself)."""
    schema = db_model.model_json_schema(ref_template="#/components/schemas/{model}")
    definitions = schema.get("$defs", {})
    for name, definition in definitions.items():
        definition.setdefault("description", f"A {re.sub(r'(?<!^)(?=[A-Z])', ' ', name).lower()} record.")
        for field_name, field in definition.get("properties", {}).items():
            if "description" not in field:
                field["description"] = f"{field.get('title', field_name.replace('_', ' '))}."
    return dict(sorted(definitions.items()))


def _id_tables(db: BaseModel) -> dict[str, tuple[str, str]]:
    """``parameter name`` → (table, first key) for tables keyed by a ``<x>_id`` field."""
    found: dict[str, tuple[str, str]] = {}
    for table, rows in db:
        if not isinstance(rows, dict) or not rows:
            continue
        key, row = sorted(rows.items())[0]
        for field_name, value in row:
            if field_name.endswith("_id") and value == key:
                found.setdefault(field_name, (table, key))
                break
    return found


def _probe_keys(toolkit_class: type[Toolkit], db: BaseModel | None, now, name: str,
                required: tuple[str, ...]) -> list[str] | None:
    """Keys of one record the tool returns on ``db`` (ids taken from the database), or None."""
    if db is None:
        return None
    tables = _id_tables(db)
    if not required or any(p not in tables for p in required):
        return None
    toolkit = toolkit_class(db.model_copy(deep=True), now)
    result = toolkit.call(name, **{p: tables[p][1] for p in required})
    output = result.output
    if isinstance(output, list):
        output = output[0] if output else None
    return sorted(output) if isinstance(output, dict) else None


def _parameter_schema(schema: dict[str, Any]) -> dict[str, Any]:
    schema = copy.deepcopy(schema)
    if schema.get("type") == "number":
        schema.setdefault("minimum", -MONEY_BOUND)
        schema.setdefault("maximum", MONEY_BOUND)
    if schema.get("type") == "integer":
        schema.setdefault("minimum", -MONEY_BOUND)
        schema.setdefault("maximum", MONEY_BOUND)
    return schema


def openapi_document(toolkit_class: type[Toolkit], title: str, version: str, description: str,
                     db: BaseModel | None = None, now=None) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``toolkit_class`` (see the module docstring).

    Args:
        toolkit_class: the domain's toolkit (its ``db_model`` gives the record schemas).
        title, version, description: the ``info`` block.
        db, now: a database and clock to probe which keys record-returning tools answer with
            (optional; without them response schemas list every field of the record, none required).

    Returns:
        the document as JSON-able data (paths and components sorted).
    """
    schemas = _model_schemas(toolkit_class.db_model)
    schemas["ApiError"] = {
        "type": "object", "description": "The error envelope every failed request answers with.",
        "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["code", "message", "status"],
                                 "description": "What went wrong.",
                                 "properties": {
                                     "code": {"type": "string", "enum": list(ERROR_CODES),
                                              "description": "Machine-readable error class."},
                                     "status": {"type": "integer", "description": "The HTTP status code."},
                                     "message": {"type": "string", "description": "Human-readable reason."},
                                     "operation": {"type": ["string", "null"],
                                                   "description": "The operation that failed."}}}}}
    schemas["Message"] = {"type": "object", "required": ["message"], "description": "A confirmation or a value "
                          "the operation answers in words.",
                          "properties": {"message": {"type": "string", "description": "The answer."}}}
    paths: dict[str, Any] = {}
    model_names = set(schemas)
    for name, spec in toolkit_class.tool_specs().items():
        function = spec.as_openai_function()["function"]
        properties = function["parameters"]["properties"]
        is_list = _returns_list(toolkit_class, name)
        record = record_model_name(name, model_names)
        if record is not None:
            keys = _probe_keys(toolkit_class, db, now, name, spec.required)
            full = set(schemas[record]["properties"])
            if keys is not None and set(keys) >= full:
                item_name = record  # the tool returns the whole record
            else:  # a narrowed view: only the keys the tool returns (or, unprobed, none promised)
                view: dict[str, Any] = copy.deepcopy(schemas[record])
                if keys is not None:
                    view["properties"] = {k: v for k, v in view["properties"].items() if k in keys}
                    view["required"] = [k for k in view.get("required", []) if k in keys]
                else:
                    view.pop("required", None)
                view["description"] = schemas[record]["description"].rstrip(".") + " as this operation returns it."
                item_name = f"{record}View"
                schemas.setdefault(item_name, view)
            item_ref: dict[str, Any] = {"$ref": f"#/components/schemas/{item_name}"}
        elif _returns_text(toolkit_class, name):
            item_ref = {"$ref": "#/components/schemas/Message"}
        else:
            item_ref = {"type": "object", "description": "The operation's result."}
        if is_list:
            page_name = f"{_camel(name)}Page"
            schemas[page_name] = {
                "type": "object", "required": ["items", "next_cursor"],
                "description": f"One page of {name.replace('_', ' ')} results, in the operation's order.",
                "properties": {"items": {"type": "array", "items": item_ref, "description": "The page's items."},
                               "next_cursor": {"type": ["string", "null"],
                                               "description": "Pass as cursor to read the next page; "
                                                              "null on the last page."}}}
            response_schema: dict[str, Any] = {"$ref": f"#/components/schemas/{page_name}"}
        else:
            response_schema = item_ref
        parameters: list[dict[str, Any]] = [{"$ref": "#/components/parameters/SessionKey"}]
        operation: dict[str, Any] = {
            "operationId": name, "summary": _first_sentence(spec.description) or name,
            "description": spec.description or name, "tags": [spec.kind],
            "x-api-mutation": spec.kind != "read", "x-api-retry-safe": spec.kind == "read",
            "x-api-consistency": "read-your-writes",
            "responses": {"200": {"description": "Success.",
                                  "content": {"application/json": {"schema": response_schema}}},
                          **{status: {"$ref": f"#/components/responses/Error{status}"} for status in ERROR_STATUSES}},
        }
        if spec.kind == "read":
            for parameter, schema in properties.items():
                parameters.append({"name": parameter, "in": "query", "required": parameter in spec.required,
                                   "description": schema.get("description", parameter.replace("_", " ")),
                                   "schema": _parameter_schema(schema)})
            if is_list:
                parameters.append({"$ref": "#/components/parameters/Limit"})
                parameters.append({"$ref": "#/components/parameters/Cursor"})
                operation["x-api-pagination"] = {"style": "cursor", "default_limit": DEFAULT_LIMIT,
                                                 "max_limit": MAX_LIMIT}
        else:
            parameters.append({"$ref": "#/components/parameters/IdempotencyKey"})
            body = {"type": "object", "additionalProperties": False, "required": list(spec.required),
                    "properties": {p: _parameter_schema(s) for p, s in properties.items()}}
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
        operation["parameters"] = parameters
        paths[operation_path(name)] = {"get" if spec.kind == "read" else "post": operation}
    responses = {f"Error{status}": {"description": text, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/ApiError"}}}} for status, text in ERROR_STATUSES.items()}
    components = {
        "schemas": dict(sorted(schemas.items())),
        "responses": responses,
        "parameters": {
            "SessionKey": {"name": SESSION_HEADER, "in": "header", "required": False,
                           "description": "Names the state this request acts on; each key starts from its own "
                                          "fresh copy of the bank's state.",
                           "schema": {"type": "string", "maxLength": 128}},
            "IdempotencyKey": {"name": IDEMPOTENCY_HEADER, "in": "header", "required": False,
                               "description": "A retry carrying the key of an earlier request to the same operation "
                                              "returns that request's answer and changes nothing.",
                               "schema": {"type": "string", "maxLength": 128}},
            "Limit": {"name": "limit", "in": "query", "required": False,
                      "description": "Items per page.",
                      "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}},
            "Cursor": {"name": "cursor", "in": "query", "required": False,
                       "description": "The next_cursor of the previous page (omitted or empty: the first page).",
                       "schema": {"type": "string"}},
        },
    }
    return {"openapi": OPENAPI_VERSION,
            "info": {"title": title, "version": version, "description": description},
            "servers": [{"url": "http://127.0.0.1:8000", "description": "A local deployment."}],
            "paths": dict(sorted(paths.items())), "components": components,
            "x-api-limits": {"request_max_bytes": 1_048_576, "response_max_bytes": 4_194_304}}


def openapi_yaml(document: dict[str, Any]) -> bytes:
    """The document as YAML bytes (keys in insertion order, which the generator keeps sorted)."""
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100).encode()
