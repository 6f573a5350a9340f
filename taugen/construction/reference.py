"""The reference workspace: an oracle that shows the sealed evaluation can be passed through the API.

It is not a fair agent, and it says so: it knows every task of the bundle (``tasks.json``) and the
deployment's defects (``author/client_api/deployments.json``). It recognises the task from the
customer's opening message, then makes, one per turn, the task's recorded actions (computed at build
time by the pack's problem functions from the policy as code, ``generators/domains/<d>/policy.py``),
through tools over the true client API with the defect workarounds (no retry after a 504 on a write, a
200 with an error body is an error, paged reads with small pages that stop on a repeated page), and
then ends the conversation. It scores what the harness allows an agent to score; the empty scaffold
and the seeded start are measured against it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import Any, Callable

from taugen.construction.bundle import ConstructionBundle
from taugen.construction.evaluate import STOP, Workspace, scripted_user

_TYPES = {"integer": int, "number": float, "boolean": bool}


def _make_tool(name: str, method: str, parameters: dict[str, dict[str, Any]], required: list[str], doc: str,
               client_api, paginated: bool) -> Callable[..., Any]:
    def call(**arguments: Any) -> Any:
        arguments = {k: v for k, v in arguments.items() if v is not None}
        if method == "post":
            digest = hashlib.sha256(json.dumps([name, arguments], sort_keys=True).encode()).hexdigest()[:32]
            answer = client_api.post(name, arguments, idempotency_key=f"ref-{digest}")
            if answer.status == 504:  # committed upstream; a retry would run it again
                return {"status": "accepted; confirmation timed out (not retried)"}
        elif paginated:
            items, cursor, seen = [], None, set()
            while True:
                answer = client_api.get(name, **arguments, limit=3, **({"cursor": cursor} if cursor else {}))
                if answer.status >= 400:
                    break
                page = answer.body["items"]
                fingerprint = json.dumps(page, sort_keys=True)
                if fingerprint in seen:
                    break
                seen.add(fingerprint)
                items += [i for i in page if i not in items]
                cursor = answer.body["next_cursor"]
                if cursor is None:
                    return items
            if answer.status < 400:
                return items
        else:
            answer = client_api.get(name, **arguments)
        body = answer.body
        if answer.status >= 400 or (isinstance(body, dict) and "error" in body):
            raise ValueError(json.dumps(body.get("error", body) if isinstance(body, dict) else body))
        return body

    signature = inspect.Signature([
        inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=_TYPES.get(s.get("type"), str),
                          default=inspect.Parameter.empty if p in required else None)
        for p, s in parameters.items()])
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    call.__name__ = name
    call.__doc__ = doc
    return call


def reference_workspace(bundle: ConstructionBundle) -> Workspace:
    """The oracle as a :class:`Workspace` (see the module docstring)."""
    document = bundle.openapi
    components = document["components"]["parameters"]
    openings = {}
    for task in bundle.tasks.values():
        openings[scripted_user(task).instructions] = task

    def create_tools(client_api) -> list[Callable[..., Any]]:
        tools = []
        for methods in document["paths"].values():
            for method, operation in methods.items():
                if method == "get":
                    own = [p for p in operation["parameters"] if "name" in p]
                    parameters = {p["name"]: p["schema"] for p in own}
                    required = [p["name"] for p in own if p.get("required")]
                else:
                    body = operation["requestBody"]["content"]["application/json"]["schema"]
                    parameters, required = body["properties"], body.get("required", [])
                assert components  # the contract's shared parameters are headers the client sets
                tools.append(_make_tool(operation["operationId"], method, parameters, required,
                                        operation.get("summary", ""), client_api, "x-api-pagination" in operation))
        return tools

    class Oracle:
        def __init__(self, tools, context) -> None:
            self.tools = {t.__name__ for t in tools}

        def get_init_state(self, message_history=None):
            return {"plan": None, "step": 0}

        def generate_next_message(self, message, state):
            from tau2.data_model.message import AssistantMessage, ToolCall

            if state["plan"] is None and getattr(message, "role", "") == "user":
                task = openings.get(message.content or "")
                actions = ((task or {}).get("evaluation_criteria") or {}).get("actions") or []
                state["plan"] = [a for a in actions if a.get("requestor", "assistant") == "assistant"]
            plan = state["plan"] or []
            if state["step"] < len(plan):
                action = plan[state["step"]]
                state["step"] += 1
                call = ToolCall(id=f"ref_{state['step']}", name=action["name"], arguments=dict(action["arguments"]))
                return AssistantMessage(role="assistant", content=None, tool_calls=[call]), state
            text = "Everything you asked for is done." if plan else STOP
            if state["step"] > len(plan):
                text = STOP
            state["step"] += 1
            return AssistantMessage(role="assistant", content=text), state

    return Workspace(create_tools=create_tools, create_agent=lambda tools, context: Oracle(tools, context),
                     label="reference")
