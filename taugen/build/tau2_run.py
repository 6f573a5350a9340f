"""Run agents on a bundle with tau2's own orchestrator, user simulator and evaluator (``taugen run``).

One simulation per (task, trial) goes through ``tau2.orchestrator.orchestrator.Orchestrator`` on the
bundle's environment (a registered taugen domain, or tau2's own telecom environment pointed at the
bundle's files) and is graded by ``tau2.evaluator.evaluator.evaluate_simulation``; the results are a
``tau2.data_model.simulation.Results`` (loadable with ``Results.load``) plus a ``taugen`` block with the
policy mode and the metrics per split. pass^k is tau2's (``tau2.metrics.agent_metrics``, from
https://arxiv.org/abs/2406.12045).

Agents: ``llm`` (tau2's ``LLMAgent`` over litellm), and two offline agents for dry runs and tests:
``gold`` (:class:`GoldAgent`: the task's gold calls, in order, through the orchestrator) and ``empty``
(:class:`EmptyAgent`: no tool call). Users: ``llm`` (tau2's ``UserSimulator``) and ``scripted``
(:class:`ScriptedUser`: deterministic, answers from the scenario).

Policy modes: ``bundle`` gives the agent the bundle's own policy; at tiers whose evidence surface
demotes the policy (medium, hard) that policy lacks facts the tasks need, which the run reports (a
construction run is what those tiers measure). ``full`` gives the agent the bundle's policy plus every
current fact of ``author/manifest.json`` (the finished-agent benchmark, as plain tau2 measures).

Each simulation is run the way ``tau2.run.run_task`` runs it; taugen builds the agent and user itself
because tau2 26.3 can only build LLM agents (see :mod:`taugen.build.tau2_workarounds_26_3`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

from taugen.build import tau2_runtime
from taugen.build.tau2_workarounds_26_3 import inside_tau2_package
from taugen.errors import InputError

AgentKind = Literal["llm", "gold", "empty"]
UserKind = Literal["llm", "scripted"]
PolicyMode = Literal["bundle", "full"]

AGENTS: tuple[str, ...] = ("llm", "gold", "empty")
USERS: tuple[str, ...] = ("llm", "scripted")
POLICY_MODES: tuple[str, ...] = ("bundle", "full")

STOP = "###STOP###"  # tau2's user stop token (tau2.user.base.STOP)
_GREETING_CLOSERS = ("anything else",)


# ----------------------------------------------------------------------------------- offline agents


def _gold_actions(task) -> list:
    criteria = task.evaluation_criteria
    return list((criteria.actions or []) if criteria is not None else [])


def _communicate_info(task) -> list[str]:
    criteria = task.evaluation_criteria
    return list((criteria.communicate_info or []) if criteria is not None else [])


def _request_text(action) -> str:
    """What the gold agent says to ask the user to make one of the user's gold calls."""
    return f"Please do this on your side: {action.name} with {json.dumps(action.arguments, sort_keys=True)}."


def _closing_text(task) -> str:
    """The gold agent's last message: every ``communicate_info`` string verbatim (tau2 grades a
    case-insensitive substring of an assistant message with commas removed), then a sign-off."""
    info = _communicate_info(task)
    if info:
        return "Here is what you need to know: " + "; ".join(info) + ". That completes your request."
    return "That completes your request. Goodbye."


@dataclass
class OfflineAgentState:
    """State of :class:`GoldAgent` / :class:`EmptyAgent`: the next gold action and whether the agent waits
    for the user to make a user-side call."""

    next_action: int = 0
    waiting_for_user: bool = False
    messages: list = field(default_factory=list)


class _LazyBase:
    """Placeholder until tau2 is imported (the classes subclass tau2's bases; tau2 is optional)."""


def _agent_classes():
    """The offline agent and user classes (built over tau2's base classes on first use)."""
    global GoldAgent, EmptyAgent, ScriptedUser
    if GoldAgent is _LazyBase:
        GoldAgent, EmptyAgent, ScriptedUser = _define_classes()
    return GoldAgent, EmptyAgent, ScriptedUser


def _define_classes():
    from tau2.agent.base import LocalAgent
    from tau2.data_model.message import AssistantMessage, MultiToolMessage, ToolCall, ToolMessage, UserMessage
    from tau2.user.base import BaseUser, UserState

    class GoldAgent(LocalAgent[OfflineAgentState]):
        """Makes the task's gold calls in order, through the orchestrator, then signs off.

        An assistant gold call is sent as a tool call; a user gold call (telecom: a step on the
        user's phone) is asked of the user in words that name the tool and its arguments
        (:class:`ScriptedUser` makes it). The last message states every ``communicate_info`` string.
        No LLM; ``set_seed`` does nothing.
        """

        def __init__(self, tools, domain_policy: str, task) -> None:
            super().__init__(tools=tools, domain_policy=domain_policy)
            self.task = task
            self.actions = _gold_actions(task)

        def get_init_state(self, message_history=None) -> OfflineAgentState:
            return OfflineAgentState(messages=list(message_history or []))

        def generate_next_message(self, message, state: OfflineAgentState):
            state.messages.append(message)
            if state.waiting_for_user:
                state.waiting_for_user = False
                state.next_action += 1
            while state.next_action < len(self.actions):
                action = self.actions[state.next_action]
                if action.requestor == "user":
                    state.waiting_for_user = True
                    reply = AssistantMessage(role="assistant", content=_request_text(action), cost=0.0)
                    break
                state.next_action += 1
                call = ToolCall(id=f"gold_{state.next_action - 1}", name=action.name,
                                arguments=dict(action.arguments), requestor="assistant")
                reply = AssistantMessage(role="assistant", content=None, tool_calls=[call], cost=0.0)
                break
            else:
                reply = AssistantMessage(role="assistant", content=_closing_text(self.task), cost=0.0)
            state.messages.append(reply)
            return reply, state

        def set_seed(self, seed: int) -> None:
            """Nothing to seed: the agent is deterministic."""

    class EmptyAgent(LocalAgent[OfflineAgentState]):
        """Answers every message with a polite refusal and never calls a tool (the do-nothing run)."""

        def __init__(self, tools, domain_policy: str, task=None) -> None:
            super().__init__(tools=tools, domain_policy=domain_policy)

        def get_init_state(self, message_history=None) -> OfflineAgentState:
            return OfflineAgentState(messages=list(message_history or []))

        def generate_next_message(self, message, state: OfflineAgentState):
            reply = AssistantMessage(role="assistant", content="I am sorry, I cannot do that for you.", cost=0.0)
            state.messages.extend([message, reply])
            return reply, state

        def set_seed(self, seed: int) -> None:
            """Nothing to seed: the agent is deterministic."""

    class ScriptedUserState(UserState):
        """tau2's user state plus the user's pending gold calls and how many questions it answered."""

        pending: list = []
        answers: int = 0
        opened: bool = False

    class ScriptedUser(BaseUser):
        """A deterministic user that answers from the task's user scenario (no LLM).

        * first message: the scenario's ``reason_for_call`` and ``known_info``;
        * an agent message that names the user's next gold call (its tool name, with underscores or
          spaces) gets that call, made with the gold arguments on the user's own tools; the tool's
          answer is then reported back in words;
        * a question (a message with ``?`` that is not "anything else?") gets the ``known_info`` again,
          at most ``max_answers`` times;
        * anything else ends the conversation with tau2's ``###STOP###``.
        """

        def __init__(self, tools=None, instructions=None, task=None, max_answers: int = 3) -> None:
            super().__init__(instructions=str(instructions) if instructions is not None else None)
            self.tools = tools
            self.task = task
            self.max_answers = max_answers
            scenario = getattr(task.user_scenario, "instructions", None) if task is not None else None
            if scenario is None or isinstance(scenario, str):
                self.opening = str(scenario or instructions or "I need help with my account.")
                self.known = ""
            else:
                self.opening = " ".join(p for p in (scenario.reason_for_call, scenario.known_info) if p)
                self.known = scenario.known_info or ""

        def get_init_state(self, message_history=None) -> UserState:
            history = list(message_history or [])
            return ScriptedUserState(system_messages=[], messages=history,
                                     pending=[a for a in _gold_actions(self.task) if a.requestor == "user"],
                                     opened=any(isinstance(m, UserMessage) for m in history))

        @classmethod
        def is_stop(cls, message) -> bool:
            return not message.is_tool_call() and STOP in (message.content or "")

        def set_seed(self, seed: int) -> None:
            """Nothing to seed: the user is deterministic."""

        def _say(self, state, text: str):
            reply = UserMessage(role="user", content=text, cost=0.0)
            state.messages.append(reply)
            return reply, state

        def generate_next_message(self, message, state):
            state.messages.append(message)
            if isinstance(message, (ToolMessage, MultiToolMessage)):
                results = message.tool_messages if isinstance(message, MultiToolMessage) else [message]
                return self._say(state, "Done. It says: " + " ".join(str(r.content) for r in results))
            text = (message.content or "") if isinstance(message, AssistantMessage) else ""
            if not state.opened:
                state.opened = True
                return self._say(state, self.opening)
            pending = state.pending
            if pending and _names_tool(text, pending[0].name):
                action = pending.pop(0)
                call = ToolCall(id=f"user_{len(state.messages)}", name=action.name,
                                arguments=dict(action.arguments), requestor="user")
                reply = UserMessage(role="user", content=None, tool_calls=[call], cost=0.0)
                state.messages.append(reply)
                return reply, state
            lowered = text.lower()
            if ("?" in text and not any(c in lowered for c in _GREETING_CLOSERS)
                    and state.answers < self.max_answers and self.known):
                state.answers += 1
                return self._say(state, self.known)
            return self._say(state, f"Thank you. {STOP}")

    GoldAgent.__module__ = EmptyAgent.__module__ = ScriptedUser.__module__ = __name__
    return GoldAgent, EmptyAgent, ScriptedUser


def _names_tool(text: str, tool_name: str) -> bool:
    lowered = text.lower()
    return tool_name.lower() in lowered or tool_name.lower().replace("_", " ") in lowered


GoldAgent: Any = _LazyBase
EmptyAgent: Any = _LazyBase
ScriptedUser: Any = _LazyBase


# ---------------------------------------------------------------------------------------- policy


def _normalise(text: str) -> str:
    return " ".join(text.split()).lower()


@dataclass
class PolicyInfo:
    """The policy an agent was given and what it lacks.

    Attributes:
        mode: ``bundle`` or ``full``.
        text: the policy text given to the agent.
        current_facts: current facts in ``author/manifest.json``.
        missing: how many of them the bundle's own policy does not state (by canonical statement).
        demoted: the mode is ``bundle`` and facts are missing: the run measures an agent given only a
            demoted policy (a construction run is what the tier measures).
        note: one sentence for the screen and the results.
    """

    mode: str
    text: str
    current_facts: int
    missing: int
    demoted: bool
    note: str


def policy_for(bundle_policy: str, manifest: dict[str, Any], mode: str) -> PolicyInfo:
    """The agent's policy for ``mode`` (``bundle`` or ``full``) from the bundle's policy and manifest.

    ``full`` appends, grouped by section, the canonical statement of every current fact (``current``
    and in force at the manifest's ``now``) that the bundle's policy does not already state.

    Raises:
        ValueError: an unknown mode.
    """
    if mode not in POLICY_MODES:
        raise ValueError(f"policy mode must be one of {', '.join(POLICY_MODES)}, not {mode!r}")
    now = manifest.get("now", "")[:10]
    present = _normalise(bundle_policy)
    current = {fact_id: fact for fact_id, fact in sorted((manifest.get("facts") or {}).items())
               if fact.get("current") and (not now or str(fact.get("effective_from", "")) <= now)}
    missing = {fact_id: fact for fact_id, fact in current.items()
               if _normalise(fact.get("statement", "")) not in present}
    tier, surface = manifest.get("tier", "?"), manifest.get("surface", "?")
    if mode == "full":
        sections: dict[str, list[str]] = {}
        for fact in missing.values():
            sections.setdefault(str(fact.get("section") or "general"), []).append(fact["statement"])
        lines = [bundle_policy.rstrip(), "", "## Every policy fact in force", "",
                 "The rules below are current; where the records disagree, these rules are right."]
        for section in sorted(sections):
            lines += ["", f"### {section.replace('_', ' ').capitalize()}", ""]
            lines += [f"- {statement}" for statement in sections[section]]
        text = "\n".join(lines) + "\n" if missing else bundle_policy
        note = (f"policy full: the bundle's policy plus {len(missing)} current facts it does not state "
                f"({len(current)} current facts in all); a finished-agent benchmark")
        return PolicyInfo("full", text, len(current), len(missing), False, note)
    if missing:
        note = (f"policy demoted: the bundle's policy ({tier} tier, evidence surface {surface}) lacks {len(missing)} "
                f"of {len(current)} current facts, which live only in the records or with the client; a "
                f"construction run is what this tier measures, so this score is not the tier's benchmark "
                f"(use --policy full for the finished-agent benchmark)")
        return PolicyInfo("bundle", bundle_policy, len(current), len(missing), True, note)
    note = f"policy complete: the bundle's policy states all {len(current)} current facts"
    return PolicyInfo("bundle", bundle_policy, len(current), 0, False, note)


# ------------------------------------------------------------------------------------------- run


@dataclass
class RunSettings:
    """What ``taugen run`` runs. LLM names are litellm model names (e.g. ``gpt-4.1``).

    Attributes:
        agent: ``llm``, ``gold`` or ``empty``.
        user: ``llm`` or ``scripted``.
        agent_llm / user_llm: litellm models (needed for ``llm``).
        agent_llm_args / user_llm_args: extra litellm arguments (e.g. ``{"temperature": 0}``;
            ``{"mock_response": "..."}`` for an offline test).
        num_trials: trials per task (k of pass^k).
        split: a split of ``split_tasks.json`` (None: ``base``).
        task_ids: only these tasks (within the split).
        max_concurrency: simulations run at once (threads).
        save_to: the results JSON file (default ``runs/<bundle>_<agent>_<user>_<time>.json``).
        overwrite: replace an existing ``save_to``.
        seed: tau2's run seed (trial seeds are drawn from it as ``tau2.run.run_tasks`` draws them).
        policy: ``bundle`` or ``full``.
        max_steps / max_errors: tau2's orchestrator limits.
    """

    agent: str = "llm"
    user: str = "llm"
    agent_llm: Optional[str] = None
    user_llm: Optional[str] = None
    agent_llm_args: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0})
    user_llm_args: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0})
    num_trials: int = 1
    split: Optional[str] = None
    task_ids: Optional[list[str]] = None
    max_concurrency: int = 1
    save_to: Optional[Path] = None
    overwrite: bool = False
    seed: int = 300
    policy: str = "bundle"
    max_steps: int = 200
    max_errors: int = 10


@dataclass
class SplitMetrics:
    """tau2's metrics over the simulations of one split's tasks."""

    split: str
    tasks: int
    simulations: int
    avg_reward: float
    pass_hat_k: dict[int, float]

    def as_json(self) -> dict[str, Any]:
        return {"tasks": self.tasks, "simulations": self.simulations, "avg_reward": self.avg_reward,
                "pass_hat_k": {str(k): v for k, v in self.pass_hat_k.items()}}


@dataclass
class RunOutcome:
    """What :func:`run_bundle` did: the tau2 ``Results``, metrics per split, the policy, the file."""

    results: Any
    splits: list[SplitMetrics]
    policy: PolicyInfo
    path: Path
    domain: str


Progress = Callable[[int, int, Any], None]


def _validate(settings: RunSettings) -> None:
    if settings.agent not in AGENTS:
        raise InputError(f"--agent must be one of {', '.join(AGENTS)}, not {settings.agent!r}")
    if settings.user not in USERS:
        raise InputError(f"--user must be one of {', '.join(USERS)}, not {settings.user!r}")
    if settings.agent == "llm" and not settings.agent_llm:
        raise InputError("--agent llm needs --agent-llm MODEL (a litellm model name)")
    if settings.user == "llm" and not settings.user_llm:
        raise InputError("--user llm needs --user-llm MODEL (a litellm model name), or use --user scripted")
    if settings.num_trials < 1:
        raise InputError("--num-trials must be at least 1")
    if settings.max_concurrency < 1:
        raise InputError("--max-concurrency must be at least 1")
    if settings.policy not in POLICY_MODES:
        raise InputError(f"--policy must be one of {', '.join(POLICY_MODES)}, not {settings.policy!r}")


def results_path(bundle: Path, settings: RunSettings, cwd: Path | None = None) -> Path:
    """Where the results go: ``settings.save_to``, or ``<cwd>/runs/<bundle>_<agent>_<user>_<time>.json``.

    Raises:
        InputError: the file lies inside the tau2 package, exists without ``overwrite``, or is a folder.
    """
    if settings.save_to is not None:
        path = Path(settings.save_to)
    else:
        stamp = dt.datetime.now().strftime("%Y%m%d_%H%M%S")
        path = (cwd or Path.cwd()) / "runs" / f"{bundle.name}_{settings.agent}_{settings.user}_{stamp}.json"
    path = path.resolve()
    if inside_tau2_package(path):
        raise InputError("--save-to must not be inside the installed tau2 package", path)
    if path.is_dir():
        raise InputError("--save-to is a folder, not a file", path)
    if path.exists() and not settings.overwrite:
        raise InputError("results file already exists (pass --overwrite to replace it)", path)
    return path


def _trial_seeds(seed: int, trials: int) -> list[int]:
    """Per-trial seeds drawn as ``tau2.run.run_tasks`` draws them (``random.seed(seed)`` then
    ``randint(0, 1000000)`` per trial), from a private generator."""
    rng = random.Random(seed)
    return [rng.randint(0, 1000000) for _ in range(trials)]


def _write_results(results, taugen_block: dict[str, Any], path: Path) -> None:
    """Write tau2's results JSON plus a ``taugen`` block (which tau2's ``Results`` model ignores),
    atomically (a temporary file in the same folder, then ``os.replace``)."""
    data = json.loads(results.model_dump_json())
    data["taugen"] = taugen_block
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def split_metrics(results, splits: dict[str, list[str]]) -> list[SplitMetrics]:
    """tau2's ``compute_metrics`` (average reward, pass^1..pass^k) per split, over the split's tasks that
    were run; splits with no task run are left out."""
    from tau2.data_model.simulation import Results
    from tau2.metrics.agent_metrics import compute_metrics

    rows = []
    for name, ids in splits.items():
        wanted = set(ids)
        tasks = [t for t in results.tasks if t.id in wanted]
        simulations = [s for s in results.simulations if s.task_id in wanted]
        if not simulations:
            continue
        metrics = compute_metrics(Results(info=results.info, tasks=tasks, simulations=simulations))
        rows.append(SplitMetrics(name, len(tasks), len(simulations), float(metrics.avg_reward),
                                 {int(k): float(v) for k, v in sorted(metrics.pass_hat_ks.items())}))
    return rows


def run_bundle(bundle_dir: str | Path, settings: RunSettings, progress: Progress | None = None) -> RunOutcome:
    """Run ``settings.agent`` against ``settings.user`` on a bundle's tasks in tau2 and grade each run.

    For a taugen domain the bundle is registered (:func:`tau2_runtime.register_bundle`); for telecom
    tau2's own telecom environment and loaders read the bundle's files
    (:func:`tau2_runtime.tau2_data_paths`). Every (task, trial) is one ``Orchestrator.run()`` followed by
    ``evaluate_simulation(..., EvaluationType.ALL)``; the results file is rewritten after each
    simulation, so an interrupted run keeps what it finished.

    Args:
        bundle_dir: a bundle folder written by ``taugen build``.
        settings: see :class:`RunSettings`.
        progress: called ``(done, total, simulation)`` after each simulation.

    Returns:
        a :class:`RunOutcome`; ``outcome.path`` holds tau2's results JSON.

    Raises:
        InputError: bad settings, an unknown split or task id, an unusable ``save_to``, a bad bundle.
        Tau2NotInstalled: tau2 is missing.
    """
    _validate(settings)
    tau2_runtime.require_tau2()
    bundle = tau2_runtime._open_bundle(bundle_dir)
    path = results_path(bundle.path, settings)
    with ExitStack() as stack:
        if bundle.domain in tau2_runtime.BUILTIN_DATA_DOMAINS:
            domain = stack.enter_context(tau2_runtime.tau2_data_paths(bundle.path, bundle.domain))
        else:
            domain = tau2_runtime.register_bundle(bundle.path)
        return _run(bundle, domain, settings, path, progress)


def _run(bundle, domain: str, settings: RunSettings, path: Path, progress: Progress | None) -> RunOutcome:
    from tau2.agent.llm_agent import LLMAgent
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.orchestrator.orchestrator import Orchestrator
    from tau2.registry import registry
    from tau2.run import get_info, load_task_splits, load_tasks
    from tau2.user.user_simulator import UserSimulator

    gold_class, empty_class, scripted_class = _agent_classes()
    splits = load_task_splits(domain) or {}
    split = settings.split or "base"
    if split not in splits:
        raise InputError(f"split {split!r} is not in split_tasks.json (splits: {', '.join(splits) or 'none'})",
                         bundle.runtime_dir / "split_tasks.json")
    tasks = load_tasks(domain, split)
    if settings.task_ids:
        known = {task.id for task in tasks}
        unknown = [task_id for task_id in settings.task_ids if task_id not in known]
        if unknown:
            raise InputError(f"task ids not in split {split!r}: {', '.join(unknown)}", bundle.runtime_dir / "tasks.json")
        wanted = set(settings.task_ids)
        tasks = [task for task in tasks if task.id in wanted]
    if not tasks:
        raise InputError(f"split {split!r} holds no task", bundle.runtime_dir / "split_tasks.json")

    environment_constructor = registry.get_env_constructor(domain)
    policy = policy_for(environment_constructor().get_policy(), bundle.manifest, settings.policy)
    llm_args_agent = dict(settings.agent_llm_args) if settings.agent == "llm" else None
    llm_args_user = dict(settings.user_llm_args) if settings.user == "llm" else None
    agent_name = {"llm": "llm_agent", "gold": "taugen_gold_agent", "empty": "taugen_empty_agent"}[settings.agent]
    user_name = {"llm": "user_simulator", "scripted": "taugen_scripted_user"}[settings.user]
    info = get_info(domain=domain, agent=agent_name, user=user_name, llm_agent=settings.agent_llm,
                    llm_args_agent=llm_args_agent, llm_user=settings.user_llm, llm_args_user=llm_args_user,
                    num_trials=settings.num_trials, max_steps=settings.max_steps, max_errors=settings.max_errors,
                    seed=settings.seed)
    info.environment_info.policy = policy.text  # the policy the agent was given
    from tau2.data_model.simulation import Results

    results = Results(info=info, tasks=tasks, simulations=[])
    seeds = _trial_seeds(settings.seed, settings.num_trials)
    lock = threading.Lock()
    total = len(tasks) * settings.num_trials

    def block() -> dict[str, Any]:
        return {"bundle": bundle.path.name, "domain": domain, "split": split, "agent": settings.agent,
                "user": settings.user, "policy_mode": policy.mode, "policy_demoted": policy.demoted,
                "policy_note": policy.note, "policy_missing_facts": policy.missing,
                "current_facts": policy.current_facts,
                "metrics": {m.split: m.as_json() for m in split_metrics(results, splits)} if results.simulations
                else {}}

    def one(task, trial: int):
        environment = environment_constructor()
        user_tools = None
        try:
            user_tools = environment.get_user_tools() or None
        except Exception:  # tau2's own run_task does the same: a domain without user tools raises
            user_tools = None
        tools = environment.get_tools()
        if settings.agent == "gold":
            agent = gold_class(tools=tools, domain_policy=policy.text, task=task)
        elif settings.agent == "empty":
            agent = empty_class(tools=tools, domain_policy=policy.text)
        else:
            agent = LLMAgent(tools=tools, domain_policy=policy.text, llm=settings.agent_llm,
                             llm_args=llm_args_agent)
        if settings.user == "scripted":
            user = scripted_class(tools=user_tools, instructions=task.user_scenario, task=task)
        else:
            user = UserSimulator(tools=user_tools, instructions=str(task.user_scenario), llm=settings.user_llm,
                                 llm_args=llm_args_user)
        orchestrator = Orchestrator(domain=domain, agent=agent, user=user, environment=environment, task=task,
                                    max_steps=settings.max_steps, max_errors=settings.max_errors,
                                    seed=seeds[trial])
        simulation = orchestrator.run()
        simulation.reward_info = evaluate_simulation(domain=domain, task=task, simulation=simulation,
                                                     evaluation_type=EvaluationType.ALL, solo_mode=False)
        simulation.trial = trial
        with lock:
            results.simulations.append(simulation)
            _write_results(results, block(), path)
            if progress is not None:
                progress(len(results.simulations), total, simulation)
        return simulation

    jobs = [(task, trial) for trial in range(settings.num_trials) for task in tasks]
    _write_results(results, block(), path)
    with ThreadPoolExecutor(max_workers=settings.max_concurrency) as executor:
        list(executor.map(lambda job: one(*job), jobs))
    order = {(task.id, trial): index for index, (task, trial) in enumerate(jobs)}
    results.simulations.sort(key=lambda s: order[(s.task_id, s.trial)])
    _write_results(results, block(), path)
    return RunOutcome(results=results, splits=split_metrics(results, splits), policy=policy, path=path,
                      domain=domain)


def tau2_cli(bundle_dir: str | Path, args: list[str], results_dir: Path | None = None) -> int:
    """Run tau2's own command line (``tau2.cli.main``) with ``args``, with the bundle's domain available.

    A taugen domain is registered first; a telecom bundle's files replace tau2's own for the call. The
    tau2 26.3 workarounds apply: ``run`` writes under ``results_dir`` (default ``./tau2-results``) unless
    ``--results-dir`` is given, never inside site-packages; an existing ``--save-to`` file is refused
    instead of tau2's interactive prompt; non-LLM agents do not hit ``NameError: GymAgent``.

    Returns:
        the exit code (0 ok; ``SystemExit`` codes from tau2's argparse pass through).

    Raises:
        InputError: a bad bundle, a results folder inside tau2, an existing results file.
    """
    import sys

    from taugen.build import tau2_workarounds_26_3 as workarounds

    tau2_runtime.require_tau2()
    bundle = tau2_runtime._open_bundle(bundle_dir)
    try:
        args = workarounds.results_dir_args(args, (results_dir or Path.cwd() / "tau2-results").resolve())
        workarounds.refuse_existing_results(args)
    except (ValueError, FileExistsError) as exc:
        raise InputError(str(exc)) from None
    workarounds.bind_gym_agent()
    with ExitStack() as stack:
        if bundle.domain in tau2_runtime.BUILTIN_DATA_DOMAINS:
            stack.enter_context(tau2_runtime.tau2_data_paths(bundle.path, bundle.domain))
        else:
            tau2_runtime.register_bundle(bundle.path)
        from tau2.cli import main as tau2_main

        saved = sys.argv
        sys.argv = ["tau2", *args]
        try:
            tau2_main()
        except SystemExit as exc:
            return int(exc.code or 0) if not isinstance(exc.code, str) else 2
        finally:
            sys.argv = saved
    return 0

