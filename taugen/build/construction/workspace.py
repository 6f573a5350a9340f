"""The kit's workspace: the empty scaffold, or a seeded starting implementation with planted defects.

The seeded start is a working tool-calling agent over the client API (``framework/agent_contract.md``)
with three defects planted on purpose, each derived from a fact of the pack and recorded author side
(``author/workspace_defects.json``):

* ``stale_value``: a fee the agent is told to charge is the value of a superseded version of a rule
  (the first supersession arc whose versions are money amounts that differ);
* ``misread_rule``: a time window of a current rule is stated with the wrong length (the first current
  duration fact, its amount one and a half times as long);
* ``missing_branch``: the tool that hands a caller to a human team is not written, so every case whose
  rule sends the caller to a team fails.

Nothing in the workspace names a fact id; the values are the ones the records themselves state.
"""

from __future__ import annotations

from typing import Any

from taugen.authoring.pack import Pack

_SCAFFOLD_TOOLS = '''"""The agent's tools over the bank's client API (see framework/agent_contract.md).

Write create_tools(client_api): return plain functions, each with type-annotated parameters and a
docstring; the agent may call them. client_api.get(operation, **query) and
client_api.post(operation, body, idempotency_key=None) answer ApiResponse(status, body).
"""


def create_tools(client_api):
    """Return the list of tool functions the agent may call."""
    raise NotImplementedError("write the agent's tools over client_api")
'''

_SCAFFOLD_AGENT = '''"""The customer-service agent (see framework/agent_contract.md).

Write create_agent(tools, context): return an object with get_init_state(message_history=None) and
generate_next_message(message, state) -> (assistant message, state). Call models only through
context.complete(...), which meters credits against framework/deployment_manifest.json.
"""


def create_agent(tools, context):
    """Return the agent."""
    raise NotImplementedError("build the agent here")
'''

_SEEDED_TOOLS = '''"""Tools over the bank's client API (see framework/agent_contract.md)."""

from __future__ import annotations

import json
import uuid

{fee_line}


def _answer(response):
    if response.status >= 400:
        return "Error: " + json.dumps(response.body.get("error", response.body) if isinstance(response.body, dict) else response.body)
    return response.body


def create_tools(client_api):
    """Return the agent's tools: one function per client API operation the agent needs."""
    tools = []
{functions}
    return tools
'''

_READ_FUNCTION = '''
    def {name}({signature}):
        """{doc}"""
        body = _answer(client_api.get("{name}", {call}))
        if isinstance(body, dict) and "items" in body:
            return body["items"]
        return body
    tools.append({name})
'''

_WRITE_FUNCTION = '''
    def {name}({signature}):
        """{doc}"""
        return _answer(client_api.post("{name}", {{{call}}}, idempotency_key=uuid.uuid4().hex))
    tools.append({name})
'''

_SEEDED_AGENT = '''"""A tool-calling customer-service agent over the client API (see framework/agent_contract.md)."""

from __future__ import annotations

import json

from tools import FEE_NOTES

NOTES = """Operational notes:
- {misread}
- Fee reminders: """ + "; ".join(f"{{k}}: ${{v:.2f}}" for k, v in FEE_NOTES.items())


class Agent:
    def __init__(self, tools, context):
        self.tools = {{tool.__name__: tool for tool in tools}}
        self.context = context
        self.model = context.models[-1]
        self.schemas = [context.tool_schema(tool) for tool in tools]

    def get_init_state(self, message_history=None):
        system = {{"role": "system", "content": self.context.policy + "\\n\\n" + NOTES}}
        history = [chat for m in (message_history or []) for chat in self.context.as_chat(m)]
        return {{"messages": [system] + history}}

    def generate_next_message(self, message, state):
        state["messages"].extend(self.context.as_chat(message))
        reply = self.context.complete(model=self.model, messages=state["messages"], tools=self.schemas)
        state["messages"].append(reply.as_chat())
        return reply.message, state


def create_agent(tools, context):
    """Return the agent."""
    return Agent(tools, context)
'''


def _python_type(schema: dict[str, Any]) -> str:
    return {"integer": "int", "number": "float", "boolean": "bool"}.get(schema.get("type"), "str")


def _stale_fee(pack: Pack, exercised: dict[str, int]) -> dict[str, Any] | None:
    arcs = sorted(pack.arcs(), key=lambda arc: -sum(exercised.get(f, 0) for f in arc))  # stable: keeps arc order
    for arc in arcs:
        current = [f for f in arc if pack.is_current(f)]
        if not current:
            continue
        new = pack.facts[current[0]]
        for old_id in arc:
            old = pack.facts[old_id]
            if old_id == new.id or old.value is None or new.value is None:
                continue
            if getattr(old.value, "type", None) == "money" and getattr(new.value, "type", None) == "money" \
                    and old.value.amount != new.value.amount:
                return {"old": old, "new": new}
    return None


def _misread(pack: Pack, exercised: dict[str, int]) -> dict[str, Any] | None:
    for fact_id in sorted(pack.facts, key=lambda f: (-exercised.get(f, 0), f)):
        fact = pack.facts[fact_id]
        if fact.value is not None and getattr(fact.value, "type", None) == "duration" and pack.is_current(fact_id) \
                and fact.value.amount >= 2 and fact.value.canonical() in fact.statement:
            wrong = fact.value.model_copy(update={"amount": fact.value.amount * 3 // 2})
            return {"fact": fact, "wrong_text": fact.statement.replace(fact.value.canonical(), wrong.canonical())}
    return None


def seeded_workspace(pack: Pack, document: dict[str, Any],
                     exercised: dict[str, int]) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """The seeded start's files (``tools.py``, ``agent.py``) and its planted defects.

    ``exercised`` (fact id → number of tasks exercising it) picks the facts the defects come from: the
    most exercised arc and duration fact, so the defects cost reward.

    Returns:
        ({file name: bytes}, [{"kind", "file", "fact_id", "planted", "correct", "effect"}]).
    """
    planted: list[dict[str, Any]] = []
    stale = _stale_fee(pack, exercised)
    if stale is not None:
        subject = stale["new"].subject or stale["new"].statement.split(",")[0]
        fee_line = f"FEE_NOTES = {{{subject!r}: {float(stale['old'].value.amount):.2f}}}"
        planted.append({"kind": "stale_value", "file": "tools.py", "fact_id": stale["new"].id,
                        "superseded_fact_id": stale["old"].id, "planted": str(stale["old"].value.canonical()),
                        "correct": str(stale["new"].value.canonical()),
                        "effect": "the agent charges or quotes the superseded amount"})
    else:
        fee_line = "FEE_NOTES = {}"
    misread = _misread(pack, exercised)
    misread_text = misread["wrong_text"] if misread else "Follow the handbook."
    if misread:
        planted.append({"kind": "misread_rule", "file": "agent.py", "fact_id": misread["fact"].id,
                        "planted": misread["wrong_text"], "correct": misread["fact"].statement,
                        "effect": "the agent applies the window with the wrong length"})
    functions = []
    skipped = None
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            name = operation["operationId"]
            if operation.get("tags") == ["generic"] and name.startswith("transfer"):
                skipped = name
                continue
            doc = (operation.get("summary") or name).replace('"""', "'")
            if method == "get":
                params = [p for p in operation["parameters"] if "name" in p]
                signature = ", ".join(f"{p['name']}: {_python_type(p['schema'])}" for p in params)
                call = ", ".join(f"{p['name']}={p['name']}" for p in params)
                functions.append(_READ_FUNCTION.format(name=name, signature=signature, doc=doc, call=call))
            else:
                body = operation["requestBody"]["content"]["application/json"]["schema"]
                props = body["properties"]
                signature = ", ".join(f"{p}: {_python_type(s)}" for p, s in props.items())
                call = ", ".join(f"{p!r}: {p}" for p in props)
                functions.append(_WRITE_FUNCTION.format(name=name, signature=signature, doc=doc, call=call))
    planted.append({"kind": "missing_branch", "file": "tools.py", "fact_id": None,
                    "planted": "list tools return the first page only (next_cursor is never followed)",
                    "correct": "follow next_cursor until it is null",
                    "effect": "records past the first page are never seen"})
    if skipped:
        planted.append({"kind": "missing_branch", "file": "tools.py", "fact_id": None, "planted": f"no {skipped} tool",
                        "correct": f"a {skipped} tool over the client API operation of that name",
                        "effect": "cases whose rules send the caller to a human team cannot be handed over"})
    tools = _SEEDED_TOOLS.format(fee_line=fee_line, functions="".join(functions))
    agent = _SEEDED_AGENT.format(misread=misread_text.replace('"', "'"))
    return {"tools.py": tools.encode(), "agent.py": agent.encode()}, planted


def scaffold_workspace() -> dict[str, bytes]:
    """The empty scaffold: ``tools.py`` and ``agent.py`` whose entry points raise NotImplementedError."""
    return {"tools.py": _SCAFFOLD_TOOLS.encode(), "agent.py": _SCAFFOLD_AGENT.encode()}
