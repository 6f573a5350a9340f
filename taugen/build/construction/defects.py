"""Deterministic client API defects: what a deployment does differently from its published contract.

A deployment (``author/client_api/deployments.json``) is a named list of :class:`Defect`, each of one
of the nine :data:`DEFECT_KINDS` and bound to named operations. The published OpenAPI document still
describes the intended behaviour; the server (:mod:`taugen.construction.server`) applies the defects,
and nothing random is involved: the same requests in the same order get the same answers.

The kinds follow τ^τ-bench's client API defects (sierra-research/hyper-tau-bench,
``src/tau2/hyper/client_api/defects.py``: pagination cursor/truncate/lost_cursor/limit_before_sort,
projection lag, post-commit timeout, ...), named here after what a developer observes:

============================  ==========================================================================
kind                          what the deployment does (bound operation)
============================  ==========================================================================
``pagination``                page n+1 starts one item too late (``mode: drop``) or too early
                              (``mode: repeat``): an item is skipped or returned twice across pages
``lost_cursor``               a request with a cursor is answered with the first page again
``limit_before_sort``         the page is cut to ``limit`` items in storage order, then sorted
``stale_read``                for ``lag_reads`` reads after a write, the record is answered as it was
                              before that write
``non_idempotent_retry``      the first call commits and then answers 504; a retry (even with the
                              same ``Idempotency-Key``) runs the operation again
``wrong_status_code``         a refused request answers 200 (with the error envelope as its body)
``silent_truncation``         a page holds at most ``cap`` items although ``next_cursor`` is null
``timezone_off_by_one``       date-times in the answer are one hour ahead with the offset unchanged
``rounding``                  money amounts in the answer are rounded to whole dollars
============================  ==========================================================================

The binding is chosen from the operations' shapes in the OpenAPI document (lists for the paging kinds,
a record read for stale reads, writes for retries), seeded by the build seed, so it works for any
toolkit that has operations of those shapes; a kind with no fitting operation is left out.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from taugen.hashing import stable_seed

DefectKind = Literal["pagination", "lost_cursor", "limit_before_sort", "stale_read", "non_idempotent_retry",
                     "wrong_status_code", "silent_truncation", "timezone_off_by_one", "rounding"]
DEFECT_KINDS: tuple[str, ...] = ("pagination", "lost_cursor", "limit_before_sort", "stale_read",
                                 "non_idempotent_retry", "wrong_status_code", "silent_truncation",
                                 "timezone_off_by_one", "rounding")
FULL_DEPLOYMENT = "production"
_PAGING = ("pagination", "lost_cursor", "limit_before_sort", "silent_truncation")
CLEAN_DEPLOYMENT = "clean"


class Defect(BaseModel):
    """One deviation of a deployment from the contract (frozen; unknown fields are refused).

    Attributes:
        name: the neutral name the kit's deployment manifest lists (``issue-01``...).
        kind: one of :data:`DEFECT_KINDS`.
        operations: the operationIds it applies to.
        parameters: kind-specific settings (``mode``, ``lag_reads``, ``cap``).
        actual_behavior: what the deployment does.
        intended_behavior: what the contract promises.
        disclosure: the anomaly a developer must report, on which operation, before the client confirms.
        fix: the fix the client confirms (what the bank's platform team will deploy).
        workaround: how an agent can be correct against the deployment as it is.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: DefectKind
    operations: tuple[str, ...]
    parameters: dict[str, Any] = Field(default_factory=dict)
    actual_behavior: str
    intended_behavior: str
    disclosure: str
    fix: str
    workaround: str


class Deployment(BaseModel):
    """A named deployment of the client API: a version and its defects."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: str
    defects: tuple[Defect, ...] = ()

    def for_operation(self, operation: str) -> list[Defect]:
        """The defects bound to ``operation``, in declaration order."""
        return [d for d in self.defects if operation in d.operations]

    def only(self, kind: str) -> "Deployment":
        """This deployment with only the defects of ``kind`` (for probes)."""
        return self.model_copy(update={"name": f"{self.name}-{kind}", "defects": tuple(
            d for d in self.defects if d.kind == kind)})


def _texts(kind: str, operation: str, parameters: dict[str, Any]) -> dict[str, str]:
    if kind == "pagination":
        skipped = "skips one item" if parameters["mode"] == "drop" else "repeats the last item of the previous page"
        return {"actual_behavior": f"{operation}: each page after the first {skipped}.",
                "intended_behavior": "Pages follow one another without gaps or repeats.",
                "disclosure": f"items missing or duplicated between pages of {operation}",
                "fix": f"{operation} cursors resume exactly after the last item returned.",
                "workaround": f"read {operation} in one page (limit at the maximum) and de-duplicate by id."}
    if kind == "lost_cursor":
        return {"actual_behavior": f"{operation}: a request with a cursor answers the first page again.",
                "intended_behavior": "A cursor returns the page after the one that issued it.",
                "disclosure": f"{operation} returns the same first page whatever cursor is passed",
                "fix": f"{operation} honours the cursor.",
                "workaround": f"read {operation} in one page with the maximum limit; stop when a page repeats."}
    if kind == "limit_before_sort":
        return {"actual_behavior": f"{operation}: the page is cut to limit items in storage order, then sorted.",
                "intended_behavior": "Items are sorted first, then the page is cut.",
                "disclosure": f"{operation} pages are not the first items in the documented order",
                "fix": f"{operation} sorts before applying limit.",
                "workaround": f"read {operation} with the maximum limit and sort on the client."}
    if kind == "stale_read":
        return {"actual_behavior": f"{operation}: for {parameters['lag_reads']} read(s) after a write the "
                                   "record is answered as it was before the write.",
                "intended_behavior": "Reads reflect every earlier write of the session.",
                "disclosure": f"{operation} shows an old value right after a change",
                "fix": f"{operation} reads from the primary store.",
                "workaround": f"read {operation} again before relying on a value after a write."}
    if kind == "non_idempotent_retry":
        return {"actual_behavior": f"{operation}: the first call commits and then answers 504; a retry, even "
                                   "with the same Idempotency-Key, runs the operation again.",
                "intended_behavior": "A committed call answers 200; a retry with its Idempotency-Key returns the "
                                     "first answer and changes nothing.",
                "disclosure": f"{operation} times out although the change was made, and a retry fails or repeats it",
                "fix": f"{operation} answers once it commits and honours Idempotency-Key.",
                "workaround": f"after a 504 from {operation}, read the state back instead of retrying."}
    if kind == "wrong_status_code":
        return {"actual_behavior": f"{operation}: a refused request answers 200 with the error envelope as body.",
                "intended_behavior": "A refused request answers 404, 409 or 422.",
                "disclosure": f"{operation} answers 200 when the request was refused",
                "fix": f"{operation} answers refusals with their error status.",
                "workaround": f"treat a body with an error member from {operation} as a failure."}
    if kind == "silent_truncation":
        return {"actual_behavior": f"{operation}: a page holds at most {parameters['cap']} items and next_cursor is "
                                   "null even when more items exist.",
                "intended_behavior": "A page holds up to limit items; next_cursor is null only on the last page.",
                "disclosure": f"{operation} stops at {parameters['cap']} items without a cursor",
                "fix": f"{operation} returns full pages and a cursor when more items exist.",
                "workaround": f"page {operation} with limit {parameters['cap']} (cursors are correct then)."}
    if kind == "timezone_off_by_one":
        return {"actual_behavior": f"{operation}: date-times are one hour ahead and keep the bank's offset.",
                "intended_behavior": "Date-times are the bank's local time with its UTC offset.",
                "disclosure": f"{operation} reports a time one hour off",
                "fix": f"{operation} formats time in the bank's time zone.",
                "workaround": f"subtract one hour from date-times {operation} returns."}
    if kind == "rounding":
        return {"actual_behavior": f"{operation}: money amounts are rounded to whole dollars.",
                "intended_behavior": "Amounts are exact to the cent.",
                "disclosure": f"{operation} shows amounts without cents",
                "fix": f"{operation} returns amounts to the cent.",
                "workaround": f"take exact amounts from another operation than {operation}."}
    raise ValueError(f"unknown defect kind {kind!r}")


def _shapes(document: dict[str, Any]) -> dict[str, list[str]]:
    """Operation ids by shape: lists, record reads (one ``*_id`` query parameter), writes, no-argument reads,
    reads whose answer has a number."""
    schemas = document["components"]["schemas"]
    shapes: dict[str, list[str]] = {"list": [], "record_read": [], "write": [], "clock": [], "money_read": []}
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            name = operation["operationId"]
            if method == "post":
                if operation.get("tags") == ["write"]:
                    shapes["write"].append(name)
                continue
            own = [p for p in operation["parameters"] if "name" in p]
            if "x-api-pagination" in operation:
                shapes["list"].append(name)
                continue
            schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
            target = schemas.get(schema.get("$ref", "").rsplit("/", 1)[-1], {})
            if not own and target.get("required") == ["message"]:
                shapes["clock"].append(name)
            if len(own) == 1 and own[0]["name"].endswith("_id") and "properties" in target and target is not schemas.get("Message"):
                shapes["record_read"].append(name)
                if any(p.get("type") == "number" for p in target["properties"].values()):
                    shapes["money_read"].append(name)
    return {k: sorted(v) for k, v in shapes.items()}


def plan_deployment(document: dict[str, Any], seed: int, version: str,
                    list_sizes: dict[str, int] | None = None) -> Deployment:
    """The full deployment (:data:`FULL_DEPLOYMENT`): every kind that has a fitting operation, bound to
    operations chosen with ``stable_seed(seed, "defects", kind)`` so that no two defects share one.

    ``list_sizes`` (list operation → the most items it answers for one record of the served database)
    orders the list operations: the paging kinds take distinct list operations, largest first, the
    one that needs the most items (silent truncation) first; without sizes the choice is seeded.
    """
    shapes = _shapes(document)
    if list_sizes is not None:
        shapes["list"] = sorted(shapes["list"], key=lambda op: (-list_sizes.get(op, 0), op))
    used: set[str] = set()
    defects: list[Defect] = []

    def pick(kind: str, candidates: list[str]) -> str | None:
        free = [c for c in candidates if c not in used]
        if not free:
            return None
        if kind in _PAGING and list_sizes is not None:
            choice = free[0]
        else:
            choice = random.Random(stable_seed(seed, "defects", kind)).choice(free)
        used.add(choice)
        return choice

    plan: list[tuple[str, list[str], dict[str, Any]]] = [
        ("silent_truncation", shapes["list"], {"cap": 3}),
        ("pagination", shapes["list"], {"mode": random.Random(stable_seed(seed, "defects", "mode")).choice(
            ["drop", "repeat"])}),
        ("lost_cursor", shapes["list"], {}),
        ("limit_before_sort", shapes["list"], {}),
        ("rounding", shapes["money_read"], {}),
        ("stale_read", shapes["money_read"] or shapes["record_read"], {"lag_reads": 1}),
        ("timezone_off_by_one", shapes["clock"], {}),
        ("non_idempotent_retry", [w for w in shapes["write"] if not w.startswith("verify")], {}),
        ("wrong_status_code", [w for w in shapes["write"] if w.startswith("verify")] or shapes["write"], {}),
    ]
    for kind, candidates, parameters in plan:
        operation = pick(kind, candidates)
        if operation is None:
            continue
        defects.append(Defect(name=f"issue-{len(defects) + 1:02d}", kind=kind, operations=(operation,),
                              parameters=parameters, **_texts(kind, operation, parameters)))
    return Deployment(name=FULL_DEPLOYMENT, version=f"{version}+{FULL_DEPLOYMENT}.{len(defects)}",
                      defects=tuple(defects))


def deployments(document: dict[str, Any], seed: int, version: str,
                list_sizes: dict[str, int] | None = None) -> dict[str, Deployment]:
    """Every deployment of a bundle: the full one and the defect-free ``clean`` one."""
    full = plan_deployment(document, seed, version, list_sizes)
    return {FULL_DEPLOYMENT: full, CLEAN_DEPLOYMENT: Deployment(name=CLEAN_DEPLOYMENT, version=version)}
