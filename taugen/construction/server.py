"""The client API server: a bundle's database served through its published OpenAPI contract.

:class:`ApiService` answers one request (operation, arguments, headers) on one session's state and
applies the deployment's defects (:mod:`taugen.build.construction.defects`); :func:`create_app` puts it
behind FastAPI routes (one per operation, the paths of ``kit/client_api/openapi.yaml``), and
:func:`running_server` / :func:`serve` run it under uvicorn.

Sessions: the ``X-Session-Key`` header names a session (``default`` without it); a new key gets a fresh
copy of the served database (the evaluation database, or the kit's development seed). Code in the same
process (the evaluator) can open a session on a given state with :meth:`ApiService.open_session` and read
it back with :meth:`ApiService.session_database`; no HTTP route exposes that.

Everything is deterministic: no clock, no randomness; the same requests in the same order on a session
get the same answers.
"""


import base64
import contextlib
import copy
import datetime as dt
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from pydantic import BaseModel

from taugen.build.construction.defects import Defect, Deployment
from taugen.build.construction.openapi import DEFAULT_LIMIT, IDEMPOTENCY_HEADER, SESSION_HEADER
from taugen.generators.environment import Toolkit, clone

_DATETIME = re.compile(r"\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})([+-]\d{2}:\d{2}|Z)\b")


@dataclass
class Answer:
    """One HTTP answer: status code and JSON body."""

    status: int
    body: Any


def error_body(status: int, message: str, operation: str | None) -> dict[str, Any]:
    """The ``ApiError`` envelope."""
    code = {400: "bad_request", 404: "not_found", 409: "conflict", 422: "unprocessable", 504: "timeout"}.get(
        status, "internal")
    return {"error": {"code": code, "status": status, "message": message, "operation": operation}}


def refusal_status(message: str) -> int:
    """The status of a tool's refusal: 404 for an unknown record, 409 for a state conflict, else 422."""
    lowered = message.lower()
    if "not found" in lowered or lowered.startswith("no customer"):
        return 404
    if "already" in lowered:
        return 409
    return 422


@dataclass
class Session:
    """One session's state and the per-session memory defects and idempotency need."""

    toolkit: Toolkit
    before_write: BaseModel | None = None
    stale_reads_left: dict[str, int] = field(default_factory=dict)
    idempotent: dict[tuple[str, str], Answer] = field(default_factory=dict)
    timed_out: set[str] = field(default_factory=set)
    calls: list[dict[str, Any]] = field(default_factory=list)


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o{offset}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int | None:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    if not re.fullmatch(r"o\d{1,9}", text):
        return None
    return int(text[1:])


def _storage_rank(item: Any) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(item, sort_keys=True, default=str).encode()).hexdigest()


def _shift_times(value: Any) -> Any:
    if isinstance(value, str):
        def later(match: re.Match) -> str:
            stamp = dt.datetime.fromisoformat(match.group(1)) + dt.timedelta(hours=1)
            return stamp.isoformat() + match.group(2)
        return _DATETIME.sub(later, value)
    if isinstance(value, list):
        return [_shift_times(v) for v in value]
    if isinstance(value, dict):
        return {k: _shift_times(v) for k, v in value.items()}
    return value


def _round_money(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return float(int(value + 0.5) if value >= 0 else -int(-value + 0.5))
    if isinstance(value, list):
        return [_round_money(v) for v in value]
    if isinstance(value, dict):
        return {k: _round_money(v) for k, v in value.items()}
    return value


class ApiService:
    """The API's behaviour, independent of the HTTP framework.

    Args:
        toolkit_class: the domain's toolkit; every tool is an operation.
        database: the state a new session starts from (copied per session).
        now: the world's clock.
        document: the published OpenAPI document (parameter schemas are validated against it).
        deployment: the defects to apply (an empty deployment behaves as the contract says).
    """

    def __init__(self, toolkit_class: type[Toolkit], database: BaseModel, now: dt.datetime,
                 document: dict[str, Any], deployment: Deployment) -> None:
        import jsonschema

        self.toolkit_class = toolkit_class
        self.database = database
        self.now = now
        self.document = document
        self.deployment = deployment
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()
        self.operations: dict[str, dict[str, Any]] = {}
        components = document.get("components", {})
        for path, methods in document["paths"].items():
            for method, operation in methods.items():
                query = {}
                for parameter in operation.get("parameters", []):
                    if "$ref" in parameter:
                        parameter = components["parameters"][parameter["$ref"].rsplit("/", 1)[-1]]
                    if parameter["in"] == "query":
                        query[parameter["name"]] = parameter
                body = None
                if "requestBody" in operation:
                    body = operation["requestBody"]["content"]["application/json"]["schema"]
                self.operations[operation["operationId"]] = {
                    "path": path, "method": method, "query": query, "body": body,
                    "paginated": "x-api-pagination" in operation, "mutation": operation.get("x-api-mutation", False)}
        self._validator = jsonschema.Draft202012Validator

    # ------------------------------------------------------------------------------ sessions
    def open_session(self, key: str, database: BaseModel) -> None:
        """Start (or restart) session ``key`` on a copy of ``database``."""
        with self.lock:
            self.sessions[key] = Session(toolkit=self.toolkit_class(clone(database), self.now))

    def session(self, key: str) -> Session:
        """Session ``key``, created on a fresh copy of the served database on first use."""
        with self.lock:
            if key not in self.sessions:
                self.sessions[key] = Session(toolkit=self.toolkit_class(clone(self.database), self.now))
            return self.sessions[key]

    def session_database(self, key: str) -> BaseModel:
        """The current (true) state of session ``key``."""
        return self.session(key).toolkit.db

    # ------------------------------------------------------------------------------ requests
    def _arguments(self, name: str, query: dict[str, str], body: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """(tool arguments, paging arguments) or raise ValueError with a 400 message."""
        operation = self.operations[name]
        paging: dict[str, Any] = {}
        arguments: dict[str, Any] = {}
        if operation["method"] == "get":
            unknown = sorted(set(query) - set(operation["query"]))
            if unknown:
                raise ValueError(f"unknown query parameter(s): {', '.join(unknown)}")
            for parameter_name, parameter in operation["query"].items():
                if parameter_name not in query:
                    if parameter.get("required"):
                        raise ValueError(f"missing query parameter: {parameter_name}")
                    continue
                raw = query[parameter_name]
                schema = parameter.get("schema", {})
                kind = schema.get("type")
                try:
                    value: Any = (int(raw) if kind == "integer" else float(raw) if kind == "number"
                                  else {"true": True, "false": False}[raw] if kind == "boolean" else raw)
                except (ValueError, KeyError):
                    raise ValueError(f"query parameter {parameter_name} must be of type {kind}") from None
                errors = sorted(e.message for e in self._validator(schema).iter_errors(value))
                if errors:
                    raise ValueError(f"query parameter {parameter_name}: {errors[0]}")
                if parameter_name in ("limit", "cursor") and operation["paginated"]:
                    paging[parameter_name] = value
                else:
                    arguments[parameter_name] = value
        else:
            if not isinstance(body, dict):
                raise ValueError("the request body must be a JSON object")
            errors = sorted(e.message for e in self._validator(operation["body"]).iter_errors(body))
            if errors:
                raise ValueError(f"request body: {errors[0]}")
            arguments = dict(body)
        return arguments, paging

    def handle(self, name: str, query: dict[str, str], body: Any, headers: dict[str, str]) -> Answer:
        """Answer one request to operation ``name`` (the intended behaviour, then the defects)."""
        if name not in self.operations:
            return Answer(404, error_body(404, f"unknown operation {name}", None))
        for header in (SESSION_HEADER, IDEMPOTENCY_HEADER):
            if len(headers.get(header.lower(), "")) > 128:
                return Answer(400, error_body(400, f"header {header} is longer than 128 characters", name))
        key = headers.get(SESSION_HEADER.lower()) or "default"
        session = self.session(key)
        try:
            arguments, paging = self._arguments(name, query, body)
        except ValueError as exc:
            return Answer(400, error_body(400, str(exc), name))
        defects = {d.kind: d for d in self.deployment.for_operation(name)}
        with self.lock:
            answer = self._call(session, name, arguments, paging, headers, defects)
            session.calls.append({"operation": name, "arguments": arguments, "status": answer.status})
        return answer

    def _call(self, session: Session, name: str, arguments: dict[str, Any], paging: dict[str, Any],
              headers: dict[str, str], defects: dict[str, Defect]) -> Answer:
        operation = self.operations[name]
        idempotency = headers.get(IDEMPOTENCY_HEADER.lower())
        retry_defect = "non_idempotent_retry" in defects
        if operation["mutation"] and idempotency and not retry_defect:
            stored = session.idempotent.get((name, idempotency))
            if stored is not None:
                return copy.deepcopy(stored)
        toolkit = session.toolkit
        stale = defects.get("stale_read")
        if stale is not None and session.stale_reads_left.get(name, 0) > 0 and session.before_write is not None:
            session.stale_reads_left[name] -= 1
            toolkit = self.toolkit_class(clone(session.before_write), self.now)
        snapshot = clone(session.toolkit.db) if operation["mutation"] else None
        result = toolkit.call(name, **arguments)
        if result.error is not None:
            status = refusal_status(result.error)
            answer = Answer(200 if "wrong_status_code" in defects else status, error_body(status, result.error, name))
        else:
            output = result.output
            if isinstance(output, str):
                output = {"message": output}
            if operation["paginated"]:
                page = self._page(output, paging, defects)
                if isinstance(page, Answer):
                    return page
                output = page
            if "timezone_off_by_one" in defects:
                output = _shift_times(output)
            if "rounding" in defects:
                output = _round_money(output)
            answer = Answer(200, output)
            if operation["mutation"] and session.toolkit.db != snapshot:
                session.before_write = snapshot
                for other in self.deployment.defects:
                    if other.kind == "stale_read":
                        for target in other.operations:
                            session.stale_reads_left[target] = int(other.parameters.get("lag_reads", 1))
            if retry_defect and name not in session.timed_out:
                session.timed_out.add(name)
                answer = Answer(504, error_body(504, "the upstream service did not answer in time", name))
        if operation["mutation"] and idempotency and not retry_defect and answer.status < 500:
            session.idempotent[(name, idempotency)] = copy.deepcopy(answer)
        return answer

    def _page(self, items: list[Any], paging: dict[str, Any], defects: dict[str, Defect]) -> dict[str, Any] | Answer:
        limit = int(paging.get("limit", DEFAULT_LIMIT))
        offset = 0
        if paging.get("cursor"):  # an empty cursor is the first page, as an omitted one is
            decoded = _decode_cursor(str(paging["cursor"]))
            if decoded is None:
                return Answer(400, error_body(400, "cursor is not one this operation issued", None))
            offset = decoded
        if "lost_cursor" in defects:
            offset = 0
        start = offset
        if "pagination" in defects and offset > 0:
            start = offset + 1 if defects["pagination"].parameters.get("mode") == "drop" else offset - 1
        if "limit_before_sort" in defects:
            position = {id(item): index for index, item in enumerate(items)}
            stored = sorted(items, key=_storage_rank)
            page = sorted(stored[start:start + limit], key=lambda item: position[id(item)])
        else:
            page = items[start:start + limit]
        following = offset + limit
        next_cursor = _encode_cursor(following) if following < len(items) else None
        if "silent_truncation" in defects:
            cap = int(defects["silent_truncation"].parameters.get("cap", 3))
            if len(page) > cap:
                page, next_cursor = page[:cap], None
        return {"items": page, "next_cursor": next_cursor}


def create_app(service: ApiService):
    """A FastAPI app with one route per operation of ``service``'s document, plus ``GET /openapi.json``
    and ``GET /openapi.yaml`` (the published contract, unchanged by the deployment)."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse

    from taugen.build.construction.openapi import openapi_yaml

    app = FastAPI(title=service.document["info"]["title"], openapi_url=None, docs_url=None, redoc_url=None)
    app.state.service = service

    def route(name: str):
        async def endpoint(request: Request):
            body = None
            if service.operations[name]["method"] == "post":
                raw = await request.body()
                try:
                    body = json.loads(raw) if raw else None
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return JSONResponse(error_body(400, "the request body is not JSON", name), status_code=400)
            answer = service.handle(name, dict(request.query_params), body, {k.lower(): v for k, v in request.headers.items()})
            return JSONResponse(answer.body, status_code=answer.status)
        endpoint.__name__ = name
        return endpoint

    for name, operation in service.operations.items():
        app.add_api_route(operation["path"], route(name), methods=[operation["method"].upper()])

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_json():
        return JSONResponse(service.document)

    @app.get("/openapi.yaml", include_in_schema=False)
    async def openapi_text():
        return PlainTextResponse(openapi_yaml(service.document).decode(), media_type="application/yaml")

    return app


def service_for_bundle(bundle, deployment: str | None = None, database: str = "evaluation") -> ApiService:
    """An :class:`ApiService` over a :class:`taugen.construction.bundle.ConstructionBundle`."""
    return ApiService(bundle.toolkit_class, bundle.database(database), bundle.now, bundle.openapi,
                      bundle.deployment(deployment))


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_server(service: ApiService, port: int | None = None, host: str = "127.0.0.1") -> Iterator[str]:
    """Run ``service`` under uvicorn in a background thread for the ``with`` block; yields the base URL.

    The server is stopped (and its port released) when the block ends, also on error.

    Raises:
        RuntimeError: the server did not start within 20 seconds.
    """
    import uvicorn

    port = port or free_port()
    config = uvicorn.Config(create_app(service), host=host, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"client-api-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the client API server did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def serve(service: ApiService, port: int, host: str = "127.0.0.1") -> None:
    """Run ``service`` in the foreground until interrupted (``taugen serve-api``)."""
    import uvicorn

    uvicorn.run(create_app(service), host=host, port=port, log_level="info", lifespan="off")
