"""Sealed evaluation of a built agent: a workspace run on the bundle's ``test`` split through tau2.

For every sealed task (and trial) the evaluator opens a client API session on the task's initial state
(the evaluation database with the task's set-up merged in), loads the workspace's ``create_tools`` over
a client bound to that session and its ``create_agent``, and runs tau2's ``Orchestrator`` with a user
simulator (``scripted``: offline, opens with the scenario and ends the call when the agent answers
in text; ``llm:<model>``: tau2's ``UserSimulator``). A conversation scores 1 when the session's final
database hash equals the hash the task's recorded actions give on the same initial state (the tasks'
``reward_basis`` is ``["DB"]``). Every model call goes through :class:`AgentContext`, which meters
tokens with the deployment manifest's credit rates.

Score JSON: ``mean_reward``, ``pass_hat_k`` (k = 1..trials), ``mean_budget_fraction`` (mean credits over
the budget), ``mean_overage_fraction``, ``final_score`` (mean reward − mean overage fraction, floored at
0; 0 when a latency limit is missed), ``latency`` p50/p90 of ``generate_next_message`` and per-task
results. The scoring rule is τ^τ-bench's (sierra-research/hyper-tau-bench, ``performance_profiles.py``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import statistics
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from taugen.construction.bundle import ConstructionBundle
from taugen.construction.server import ApiService, running_server, service_for_bundle
from taugen.errors import InputError
from taugen.generators.environment import deep_merge, dict_hash

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

STOP = "###STOP###"


@dataclass
class ApiResponse:
    """One client API answer: HTTP ``status`` and parsed JSON ``body``."""

    status: int
    body: Any


class ClientApi:
    """The client API as a workspace's tools see it, bound to one session (``X-Session-Key``)."""

    def __init__(self, base_url: str, session_key: str) -> None:
        import httpx

        self._client = httpx.Client(base_url=base_url, headers={"X-Session-Key": session_key}, timeout=30)

    def get(self, operation: str, **query: Any) -> ApiResponse:
        """``GET /v1/<operation>`` with ``query``."""
        answer = self._client.get(f"/v1/{operation}", params={k: v for k, v in query.items() if v is not None})
        return ApiResponse(answer.status_code, answer.json())

    def post(self, operation: str, body: dict[str, Any], idempotency_key: str | None = None) -> ApiResponse:
        """``POST /v1/<operation>`` with a JSON ``body`` (and an ``Idempotency-Key``)."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        answer = self._client.post(f"/v1/{operation}", json=body, headers=headers)
        return ApiResponse(answer.status_code, answer.json())

    def close(self) -> None:
        self._client.close()


@dataclass
class Meter:
    """Tokens and credits of one conversation's model calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    credits: float = 0.0
    calls: int = 0


@dataclass
class Reply:
    """One completion: the tau2 assistant message, its chat form and usage."""

    message: Any
    chat: dict[str, Any]
    usage: dict[str, int]

    def as_chat(self) -> dict[str, Any]:
        return self.chat


class AgentContext:
    """What ``create_agent(tools, context)`` receives (see ``framework/agent_contract.md``).

    Args:
        policy: the kit's policy text; kit_dir: the kit folder.
        rates: model → (input, output) credits per million tokens (the deployment manifest's menu).
        llm_args: litellm arguments the evaluator adds to every completion the agent asks for (its own
            options win), e.g. ``{"mock_response": "..."}`` (litellm's offline mock) or an ``api_base``.
    """

    def __init__(self, policy: str, kit_dir: Path, rates: dict[str, tuple[float, float]],
                 llm_args: dict[str, Any] | None = None) -> None:
        self.policy = policy
        self.kit_dir = kit_dir
        self.rates = rates
        self.models = list(rates)
        self.meter = Meter()
        self.llm_args = dict(llm_args or {})

    def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                 **options: Any) -> Reply:
        """One chat completion through litellm, metered with the manifest's rates.

        Raises:
            ValueError: ``model`` is not on the deployment manifest's menu.
        """
        if model not in self.rates:
            raise ValueError(f"model {model!r} is not allowed (allowed: {', '.join(self.models)})")
        import litellm
        from tau2.data_model.message import AssistantMessage, ToolCall

        response = litellm.completion(model=model, messages=messages, tools=tools or None,
                                      **{**self.llm_args, **options})
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        rate_in, rate_out = self.rates[model]
        self.meter.input_tokens += prompt
        self.meter.output_tokens += completion
        self.meter.credits += prompt * rate_in / 1e6 + completion * rate_out / 1e6
        self.meter.calls += 1
        choice = response.choices[0].message
        calls = [ToolCall(id=c.id, name=c.function.name, arguments=json.loads(c.function.arguments or "{}"))
                 for c in (getattr(choice, "tool_calls", None) or [])][:1]
        message = AssistantMessage(role="assistant", content=None if calls else (choice.content or ""),
                                   tool_calls=calls or None)
        chat: dict[str, Any] = {"role": "assistant", "content": choice.content or ""}
        if calls:
            chat["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": json.dumps(c.arguments)}} for c in calls]
        return Reply(message=message, chat=chat, usage={"prompt_tokens": prompt, "completion_tokens": completion})

    @staticmethod
    def as_chat(message: Any) -> list[dict[str, Any]]:
        """A tau2 user, tool or multi-tool message as chat message dicts."""
        inner = getattr(message, "tool_messages", None)
        if inner is not None:
            return [{"role": "tool", "tool_call_id": m.id, "content": m.content or ""} for m in inner]
        role = getattr(message, "role", "")
        if role == "tool":
            return [{"role": "tool", "tool_call_id": message.id, "content": message.content or ""}]
        if role == "assistant":
            chat: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
            if message.tool_calls:
                chat["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": json.dumps(c.arguments)}} for c in message.tool_calls]
            return [chat]
        return [{"role": "user", "content": message.content or ""}]

    @staticmethod
    def tool_schema(function: Callable[..., Any]) -> dict[str, Any]:
        """A tool function as an OpenAI function-calling schema (tau2's ``as_tool``)."""
        from tau2.environment.tool import as_tool

        return as_tool(function).openai_schema


# ------------------------------------------------------------------------------------- workspaces
def _load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        sys.modules.pop(name, None)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    finally:
        sys.path.remove(str(path.parent))
    return module


@dataclass
class Workspace:
    """A loaded workspace: ``create_tools(client_api)`` and ``create_agent(tools, context)``."""

    create_tools: Callable[..., list]
    create_agent: Callable[..., Any]
    label: str


def load_workspace(workspace: str | Path, bundle: ConstructionBundle) -> Workspace:
    """``reference`` (the oracle), ``seeded`` (the bundle's seeded start), ``seeded-tools`` (the oracle's
    decisions over the seeded start's tools) or a folder with ``tools.py`` and ``agent.py``.

    Raises:
        InputError: the folder lacks either file.
    """
    if str(workspace) in ("reference", "seeded-tools"):
        from taugen.construction.reference import reference_workspace

        if str(workspace) == "reference":
            return reference_workspace(bundle)
        # the oracle's decisions over the seeded start's tools: what the planted tool defects cost (the missing
        # hand-over tool, list reads that stop at the first page); no fallback to the recorded gold when what
        # those tools read does not decide a task
        oracle = reference_workspace(bundle, fallback=False)
        seeded = _load_module(bundle.path / "author" / "seeded_workspace" / "tools.py", "tools")
        return Workspace(create_tools=seeded.create_tools, create_agent=oracle.create_agent, label="seeded-tools")
    folder = bundle.path / "author" / "seeded_workspace" if str(workspace) == "seeded" else Path(workspace)
    for name in ("tools.py", "agent.py"):
        if not (folder / name).is_file():
            raise InputError(f"workspace has no {name}", folder)
    tools = _load_module(folder / "tools.py", "tools")
    agent = _load_module(folder / "agent.py", "agent")
    return Workspace(create_tools=tools.create_tools, create_agent=agent.create_agent, label=str(folder))


# ------------------------------------------------------------------------------------- tau2 glue
class _Tools:
    """A tau2 toolkit over plain functions (what ``Environment`` calls)."""

    def __init__(self, functions: list[Callable[..., Any]]) -> None:
        from tau2.environment.tool import as_tool

        self.functions = {f.__name__: f for f in functions}
        self.tools = {name: as_tool(f) for name, f in self.functions.items()}

    def get_tools(self):
        return dict(self.tools)

    def has_tool(self, name: str) -> bool:
        return name in self.functions

    def use_tool(self, tool_name: str, **kwargs: Any) -> Any:
        if tool_name not in self.functions:
            raise ValueError(f"tool {tool_name} not found")
        return self.functions[tool_name](**kwargs)


def _environment(domain: str, policy: str, tools: _Tools):
    from tau2.environment.environment import Environment

    class ApiEnvironment(Environment):
        """tau2 Environment whose state lives in the client API session (set up by the evaluator)."""

        def set_state(self, initialization_data=None, initialization_actions=None, message_history=None):
            return None

        def get_db_hash(self):
            return None

    return ApiEnvironment(domain_name=domain, policy=policy, tools=tools)


def _agent_adapter(agent: Any, latencies: list[float]):
    from tau2.agent.base import BaseAgent

    class TimedAgent(BaseAgent):
        def get_init_state(self, message_history=None):
            return agent.get_init_state(message_history)

        def generate_next_message(self, message, state):
            started = time.perf_counter()
            try:
                return agent.generate_next_message(message, state)
            finally:
                latencies.append(time.perf_counter() - started)

        def stop(self, message=None, state=None):
            return None

        @classmethod
        def is_stop(cls, message) -> bool:
            return bool(message.content) and STOP in message.content

    return TimedAgent()


def scripted_user(task: dict[str, Any]):
    """An offline user: opens with the scenario (reason, known details, instructions), answers any further
    assistant text by ending the call (``###STOP###``)."""
    from tau2.data_model.message import UserMessage
    from tau2.user.user_simulator import UserSimulator

    instructions = (task.get("user_scenario") or {}).get("instructions") or {}
    if isinstance(instructions, dict):
        opening = " ".join(str(instructions.get(k) or "") for k in ("reason_for_call", "known_info")).strip()
    else:
        opening = str(instructions)

    class ScriptedUser(UserSimulator):
        def __init__(self) -> None:
            super().__init__(tools=None, instructions=opening, llm=None)

        def get_init_state(self, message_history=None):
            return {"turns": 0}

        def generate_next_message(self, message, state):
            state["turns"] += 1
            content = opening if state["turns"] == 1 else STOP
            return UserMessage(role="user", content=content), state

        def set_seed(self, seed: int) -> None:
            return None

    return ScriptedUser()


def _llm_user(task: dict[str, Any], model: str):
    from tau2.user.user_simulator import UserSimulator

    return UserSimulator(tools=None, instructions=json.dumps(task.get("user_scenario") or {}), llm=model,
                         llm_args={"temperature": 0.0})


# ------------------------------------------------------------------------------------- running
def initial_database(bundle: ConstructionBundle, task: dict[str, Any]):
    """The task's initial state: the evaluation database with the task's set-up patch merged in."""
    base = bundle.json(f"tau2/domains/{bundle.domain}/db.json")
    patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {}
    return bundle.toolkit_class.db_model.model_validate(deep_merge(base, patch))


def expected_hash(bundle: ConstructionBundle, task: dict[str, Any], database) -> str:
    """The database hash the task's recorded actions give on ``database`` (taugen's own toolkit)."""
    toolkit = bundle.toolkit_class(database.model_copy(deep=True), bundle.now)
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        toolkit.call(action["name"], **action["arguments"])
    return toolkit.db_hash()


def run_conversation(bundle: ConstructionBundle, service: ApiService, base_url: str, workspace: Workspace,
                     task: dict[str, Any], key: str, user: str, rates: dict[str, tuple[float, float]],
                     database=None, max_steps: int = 200, llm_args: dict[str, Any] | None = None) -> dict[str, Any]:
    """One conversation of ``workspace`` on ``task``; returns reward, credits, latencies, termination.
    ``llm_args`` go to every completion the agent asks for (:class:`AgentContext`)."""
    from tau2.data_model.tasks import Task
    from tau2.orchestrator.orchestrator import Orchestrator

    database = database if database is not None else initial_database(bundle, task)
    service.open_session(key, database)
    gold = expected_hash(bundle, task, database)
    policy = (bundle.path / "kit" / "policy.md").read_text(encoding="utf-8")
    context = AgentContext(policy, bundle.path / "kit", rates, llm_args)
    latencies: list[float] = []
    client = ClientApi(base_url, key)
    result: dict[str, Any] = {"task_id": task["id"], "session": key}
    built: Any = None
    try:
        tools = _Tools(workspace.create_tools(client))
        built = workspace.create_agent(list(tools.functions.values()), context)
        agent = _agent_adapter(built, latencies)
        simulated = scripted_user(task) if user == "scripted" else _llm_user(task, user.split(":", 1)[1])
        tau2_task = Task.model_validate({**task, "initial_state": None})
        orchestrator = Orchestrator(domain=bundle.domain, agent=agent, user=simulated,
                                    environment=_environment(bundle.domain, policy, tools), task=tau2_task,
                                    max_steps=max_steps)
        run = orchestrator.run()
        result["termination"] = str(getattr(run.termination_reason, "value", run.termination_reason))
        result["messages"] = len(run.messages)
        tool_errors = [m.content for m in run.messages if getattr(m, "role", "") == "tool" and getattr(m, "error", False)]
        if tool_errors:
            result["tool_errors"] = [str(e)[:300] for e in tool_errors[:3]]
    except Exception as exc:  # a broken workspace scores 0 on the task, with the reason recorded
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["traceback"] = traceback.format_exc(limit=-4)
    finally:
        client.close()
    report = getattr(built, "report", None)
    if callable(report):  # an agent that says how it decided (the reference oracle does)
        result["agent_report"] = report()
    final = service.session_database(key)
    result["reward"] = 1.0 if dict_hash(final.model_dump()) == gold else 0.0
    result["credits"] = round(context.meter.credits, 6)
    result["tokens"] = {"input": context.meter.input_tokens, "output": context.meter.output_tokens}
    result["latencies"] = [round(x, 4) for x in latencies]
    return result


def _percentile(values: list[float], percentile: int) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = max(0, math.ceil(percentile / 100 * len(ordered)) - 1)
    return ordered[index]


def _pass_hat_k(rewards_per_task: list[list[float]], k: int) -> float:
    """τ-bench's pass^k: mean over tasks of C(c, k) / C(n, k), c = successes of n trials."""
    values = []
    for rewards in rewards_per_task:
        n, c = len(rewards), sum(1 for r in rewards if r >= 1.0)
        if n >= k:
            values.append(math.comb(c, k) / math.comb(n, k))
    return round(sum(values) / len(values), 4) if values else 0.0


def score(results: list[dict[str, Any]], budget: float, latency_limits: list[dict[str, Any]],
          trials: int) -> dict[str, Any]:
    """The score JSON from per-conversation results (see the module docstring)."""
    rewards = [r["reward"] for r in results]
    fractions = [r["credits"] / budget for r in results] if budget > 0 else [0.0 for _ in results]
    overage = [max(0.0, f - 1.0) for f in fractions]
    latencies = [x for r in results for x in r["latencies"]]
    latency = {"p50": round(_percentile(latencies, 50), 4), "p90": round(_percentile(latencies, 90), 4)}
    gates = {f"p{l['percentile']}": latency[f"p{l['percentile']}"] <= l["max_seconds"] for l in latency_limits}
    mean_reward = round(statistics.fmean(rewards), 4) if rewards else 0.0
    mean_overage = round(statistics.fmean(overage), 4) if overage else 0.0
    final = max(0.0, mean_reward - mean_overage) if all(gates.values()) else 0.0
    by_task: dict[str, list[float]] = {}
    for r in results:
        by_task.setdefault(r["task_id"], []).append(r["reward"])
    return {"mean_reward": mean_reward,
            "pass_hat_k": {str(k): _pass_hat_k(list(by_task.values()), k) for k in range(1, trials + 1)},
            "mean_budget_fraction": round(statistics.fmean(fractions), 4) if fractions else 0.0,
            "mean_overage_fraction": mean_overage, "final_score": round(final, 4),
            "latency": latency, "latency_gates": gates, "conversations": len(results),
            "tasks": [{k: v for k, v in r.items() if k != "traceback"} for r in results]}


def agent_reports(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Totals of the reference oracle's own reports (``agent_report`` per conversation), or None when the agent
    reported nothing: conversations decided at run time, fallen back to the recorded gold, left undecided (no
    writes: the oracle over other tools, without fallback) or not recognised, with the reasons; problems decided and
    fallen back (or left undecided), by name; problems settled by another alternative than the one the task records;
    writes the policy refused."""
    reports = [(r["task_id"], r["agent_report"]) for r in results if isinstance(r.get("agent_report"), dict)]
    if not reports:
        return None
    modes = [report.get("mode") for _, report in reports]
    decided: dict[str, int] = {}
    fallen: dict[str, int] = {}
    otherwise, refused = [], 0
    for task_id, report in reports:
        for decision in report.get("decisions") or []:
            problem = decision["problem"]
            if report.get("mode") == "decided":
                decided[problem] = decided.get(problem, 0) + 1
            refused += len(decision.get("refused") or [])
            if decision.get("chosen") and decision["chosen"] != problem:
                otherwise.append({"task_id": task_id, "problem": problem, "chosen": decision["chosen"]})
        if report.get("mode") != "decided":
            for problem in report.get("problems") or []:
                fallen[problem] = fallen.get(problem, 0) + 1
    return {"conversations": len(reports), "decided": modes.count("decided"), "fallback": modes.count("fallback"),
            "undecided": modes.count("undecided"), "unrecognised": modes.count("unrecognised"),
            "problems_decided": sum(decided.values()), "problems_fallback": sum(fallen.values()),
            "decided_by_problem": dict(sorted(decided.items())), "fallback_by_problem": dict(sorted(fallen.items())),
            "fallbacks": [{"task_id": task_id, "mode": report.get("mode"), "reason": report.get("fallback")}
                          for task_id, report in reports if report.get("mode") in ("fallback", "undecided")],
            "decided_otherwise": otherwise, "refused_writes": refused}


def _rates(bundle: ConstructionBundle) -> tuple[dict[str, tuple[float, float]], float, list[dict[str, Any]]]:
    manifest = bundle.json("kit/framework/deployment_manifest.json")
    rates = {m["model"]: (m["input_credits_per_million"], m["output_credits_per_million"])
             for m in manifest["allowed_models"]}
    return rates, manifest["agent_credit_budget"]["mean_credits_per_conversation"], manifest["latency_limits"]


def evaluate(bundle_dir: str | Path, workspace: str | Path, split: str = "test", trials: int = 1,
             user: str = "scripted", deployment: str | None = None, limit: int | None = None,
             llm_args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score ``workspace`` on the bundle's sealed split (see the module docstring).

    Args:
        workspace: a folder, ``reference`` or ``seeded``.
        split: the split to score (``test``, sealed).
        trials: conversations per task (pass^k for k up to trials).
        user: ``scripted`` or ``llm:<model>``.
        deployment: client API deployment (default: the kit's).
        limit: score only the first ``limit`` tasks of the split (sorted ids).
        llm_args: litellm arguments added to every completion the agent asks for (``--agent-llm-args``).

    Raises:
        InputError: not a construction bundle, unknown split, deployment or workspace.
    """
    bundle = ConstructionBundle.open(bundle_dir)
    loaded = load_workspace(workspace, bundle)
    task_ids = sorted(bundle.split(split))[:limit] if limit else sorted(bundle.split(split))
    service = service_for_bundle(bundle, deployment, "evaluation")
    rates, budget, latency_limits = _rates(bundle)
    results = []
    with running_server(service) as url:
        for task_id in task_ids:
            for trial in range(trials):
                key = hashlib.sha256(f"{task_id}#{trial}".encode()).hexdigest()[:24]  # headers stay short
                results.append(run_conversation(bundle, service, url, loaded, bundle.tasks[task_id], key, user,
                                                rates, llm_args=llm_args))
    report = score(results, budget, latency_limits, trials)
    decided = agent_reports(results)
    if decided is not None:
        report["reference"] = decided
    report.update({"bundle": bundle.path.name, "split": split, "workspace": loaded.label,
                   "deployment": service.deployment.name, "user": user, "trials": trials})
    return report


def local_test(bundle_dir: str | Path, workspace: str | Path, scenario_file: str | Path,
               user: str = "scripted", deployment: str | None = None,
               llm_args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one developer-authored scenario (``framework/scenario_contract.md``) against ``workspace``
    (``llm_args`` as in :func:`evaluate`).

    Raises:
        InputError: the scenario file is unreadable.
    """
    bundle = ConstructionBundle.open(bundle_dir)
    path = Path(scenario_file)
    try:
        scenario = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read scenario: {exc}", path) from None
    base = ({} if scenario.get("database") == "scenario_only"
            else bundle.json("kit/client_api/development_seed.json"))
    patch = ((scenario.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {}
    database = bundle.toolkit_class.db_model.model_validate(deep_merge(base, patch))
    loaded = load_workspace(workspace, bundle)
    service = service_for_bundle(bundle, deployment, "development")
    rates, budget, latency_limits = _rates(bundle)
    task = {"id": scenario.get("id", path.stem), "user_scenario": scenario.get("user_scenario"),
            "evaluation_criteria": scenario.get("evaluation_criteria")}
    with running_server(service) as url:
        result = run_conversation(bundle, service, url, loaded, task, "local-" + hashlib.sha256(str(task["id"]).encode()).hexdigest()[:16], user, rates,
                                  database=database, llm_args=llm_args)
    report = score([result], budget, latency_limits, 1)
    report.update({"scenario": str(path), "workspace": loaded.label})
    return report
