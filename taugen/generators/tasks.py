"""Compose problems into tasks, prove each task, and emit it in tau2's Task schema.

Composition follows τ²-bench's telecom generator: one problem per slot (selection set), constraints
filter combinations, personas are assigned round-robin, and the task id encodes the composition:
``[banking]problem_a|problem_b[CUSTOMER:C10007][PERSONA:Plain]``.

Every task carries a :class:`Certificate`, computed by replaying the gold actions on the problem
state: the check fails after setup, no gold step errors, the check passes after the gold actions,
removing any single gold write breaks the check, a do-nothing run fails, and, for problems policy
forbids, the tempting wrong write breaks the check.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel

from taugen.authoring.pack import Pack
from taugen.errors import InputError
from taugen.generators.corpus.genre import stable_seed
from taugen.generators.domain import DomainDefinition
from taugen.generators.environment import Toolkit, clone, diff_patch
from taugen.generators.problems import GoldCall, Problem, ProblemContext, ScenarioFragment
from taugen.generators.tiers import TierPreset


@dataclass
class Certificate:
    """Proof that a task is well-formed (see module docstring). ``ok`` is True when every part holds."""

    task_id: str
    unmet_after_setup: list[str]
    gold_errors: list[str]
    unmet_after_gold: list[str]
    unnecessary_writes: list[str]
    forbidden_writes_not_caught: list[str]
    do_nothing_passes: bool
    initial_hash: str
    gold_hash: str
    writes: int

    @property
    def ok(self) -> bool:
        return (bool(self.unmet_after_setup) and not self.gold_errors and not self.unmet_after_gold
                and not self.unnecessary_writes and not self.forbidden_writes_not_caught
                and not self.do_nothing_passes and self.initial_hash != self.gold_hash)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


@dataclass
class TaskRecord:
    """One composed, proven task.

    Attributes:
        task_id: the composition-encoding id.
        customer_id: the customer the task is about.
        problems: problem names in gold order (identity verification first).
        persona: persona name.
        facts: ids of every fact the task exercises.
        patch: the tau2 ``initialization_data.agent_data`` deep-merge patch that sets the problems up.
        gold: gold tool calls with their action ids.
        scenario: tau2 ``user_scenario`` (persona + structured instructions).
        purpose: ``description.purpose`` text.
        certificate: the proof.
    """

    task_id: str
    customer_id: str
    problems: list[str]
    persona: str
    facts: list[str]
    patch: dict[str, Any]
    gold: list[tuple[str, GoldCall]]
    scenario: dict[str, Any]
    purpose: str
    certificate: Certificate
    outcomes: dict[str, str] = field(default_factory=dict)

    def to_tau2(self, domain: str) -> dict[str, Any]:
        """The task as a tau2 ``Task`` dict (see ../shared/reference/tau2-format.md §2)."""
        actions = []
        for action_id, call in self.gold:
            action: dict[str, Any] = {"action_id": action_id, "requestor": call.requestor, "name": call.name,
                                      "arguments": call.arguments, "info": call.info}
            if call.name == "transfer_to_human_agents":
                action["compare_args"] = ["department"]
            actions.append(action)
        return {
            "id": self.task_id,
            "description": {"purpose": self.purpose, "relevant_policies": None, "notes": None},
            "user_scenario": self.scenario,
            "ticket": None,
            "initial_state": {"initialization_data": {"agent_data": self.patch, "user_data": None},
                              "initialization_actions": None, "message_history": None},
            "evaluation_criteria": {"actions": actions, "env_assertions": None, "communicate_info": [],
                                    "nl_assertions": None, "reward_basis": ["DB"]},
        }


def check_problem_facts(domain: DomainDefinition, pack: Pack) -> None:
    """Every fact a problem declares must exist in the pack and be in force at ``now``.

    Raises:
        InputError: at the problem class's source line, naming the fact.
    """
    for problem in (domain.opening, *domain.problems):
        for fact_id in problem.facts:
            # problem.location() parses the module's source: only worth it when there is an error to show.
            if fact_id not in pack.facts:
                raise InputError(f"problem names unknown fact '{fact_id}'", *problem.location(), problem.name)
            if not pack.is_current(fact_id):
                raise InputError(f"problem uses fact '{fact_id}', which is not in force at {pack.now:%Y-%m-%d} "
                                 f"(superseded by '{pack.superseded_by(fact_id)}')", *problem.location(),
                                 problem.name)


def _combinations(domain: DomainDefinition, preset: TierPreset) -> list[tuple[type[Problem], ...]]:
    by_slot: dict[str, list[type[Problem]]] = {}
    for problem in domain.problems:
        by_slot.setdefault(problem.slot, []).append(problem)
    slots = sorted(by_slot)
    low, high = preset.problems_per_task
    combos = []
    for size in range(low, high + 1):
        for chosen_slots in itertools.combinations(slots, size):
            for combo in itertools.product(*(by_slot[slot] for slot in chosen_slots)):
                if sum(p.outcome == "transfer" for p in combo) > 1:
                    continue  # a transfer ends the call: at most one per task
                names = {p.name for p in combo}
                if any(set(p.excludes) & names for p in combo):
                    continue
                combos.append(tuple(sorted(combo, key=lambda p: p.name)))
    return combos


def _gold_order(problems: tuple[type[Problem], ...]) -> list[type[Problem]]:
    """Transfers go last: the call ends with them."""
    return sorted(problems, key=lambda p: (p.outcome == "transfer", p.name))


def compose_tasks(domain: DomainDefinition, pack: Pack, world: BaseModel, preset: TierPreset,
                  seed: int) -> list[TaskRecord]:
    """Compose, set up and certify ``preset.tasks`` tasks.

    Args:
        domain: the domain's code.
        pack: the loaded pack (fact values).
        world: the initial database (not modified).
        preset: the tier.
        seed: the build seed.

    Returns:
        tasks sorted by id; every problem appears in at least one task when the tier allows it.

    Raises:
        InputError: a problem names an unknown or superseded fact.
    """
    check_problem_facts(domain, pack)
    rng = random.Random(stable_seed(seed, preset.name, "compose"))
    combos = _combinations(domain, preset)
    rng.shuffle(combos)
    # Cover every problem first, then fill up to the target with the shuffled rest.
    ordered: list[tuple[type[Problem], ...]] = []
    for problem in domain.problems:
        ordered += [c for c in combos if problem in c and c not in ordered][:1]
    ordered += [c for c in combos if c not in ordered]
    customers = sorted(getattr(world, domain.customer_table))
    tasks: list[TaskRecord] = []
    seen: set[str] = set()
    repeats = max(1, -(-preset.tasks // max(1, len(ordered))))
    for combo in itertools.islice(itertools.cycle(ordered), len(ordered) * repeats):
        if len(tasks) >= preset.tasks:
            break
        persona = preset.personas[len(tasks) % len(preset.personas)]
        candidates = customers[:]
        random.Random(stable_seed(seed, preset.name, [p.name for p in combo], len(tasks))).shuffle(candidates)
        for customer_id in candidates:
            task_id = f"[{domain.name}]{'|'.join(p.name for p in combo)}[CUSTOMER:{customer_id}][PERSONA:{persona}]"
            if task_id in seen:
                continue
            record = realise_task(domain, pack, world, combo, customer_id, persona, seed, task_id)
            if record is not None:
                tasks.append(record)
                seen.add(task_id)
                break
    return sorted(tasks, key=lambda t: t.task_id)


def _contexts(problems: list[Problem], toolkit: Toolkit, pack: Pack, customer_id: str, seed: int,
              task_id: str) -> list[ProblemContext]:
    return [ProblemContext(toolkit=toolkit, pack=pack, customer_id=customer_id,
                           rng=random.Random(stable_seed(seed, task_id, problem.name))) for problem in problems]


def realise_task(domain: DomainDefinition, pack: Pack, world: BaseModel, combo: tuple[type[Problem], ...],
                 customer_id: str, persona: str, seed: int, task_id: str) -> TaskRecord | None:
    """Set up one composition for one customer and certify it; None when the customer cannot carry it."""
    problems = [domain.opening(), *(cls() for cls in _gold_order(combo))]
    if not all(problem.applicable(domain.toolkit(world, pack.now), customer_id) for problem in problems):
        return None  # checked on the shared world, read-only, before paying for a copy
    toolkit = domain.toolkit(clone(world), pack.now)
    contexts = _contexts(problems, toolkit, pack, customer_id, seed, task_id)
    before = toolkit.db.model_dump(mode="json")
    try:
        fragments = [problem.setup(context) for problem, context in zip(problems, contexts)]
    except LookupError:
        return None
    patch = diff_patch(before, toolkit.db.model_dump(mode="json"))
    initial = toolkit.snapshot()
    gold: list[tuple[str, GoldCall]] = []
    for problem, context in zip(problems, contexts):
        for call in problem.solve(context):
            gold.append((f"{len(gold)}_{call.name}", call))
    certificate = certify(domain, problems, contexts, initial, gold, task_id, pack)
    facts = sorted({fact for problem in problems for fact in problem.facts})
    scenario = _scenario(domain, persona, fragments)
    purpose = " ".join(problem.summary for problem in problems[1:])
    return TaskRecord(task_id=task_id, customer_id=customer_id, problems=[p.name for p in problems], persona=persona,
                      facts=facts, patch=patch, gold=gold, scenario=scenario, purpose=purpose,
                      certificate=certificate, outcomes={p.name: p.outcome for p in problems})


def _unmet(problems: list[Problem], contexts: list[ProblemContext], toolkit: Toolkit) -> list[str]:
    unmet = []
    for problem, context in zip(problems, contexts):
        context.toolkit = toolkit
        unmet += [f"{problem.name}: {item}" for item in problem.check(context)]
    return unmet


def _run(domain: DomainDefinition, initial: BaseModel, calls: list[GoldCall], now: dt.datetime) -> tuple[Toolkit, list[str]]:
    toolkit = domain.toolkit(clone(initial), now)
    errors = []
    for call in calls:
        result = toolkit.call(call.name, **call.arguments)
        if not result.ok:
            errors.append(f"{call.name}: {result.error}")
    return toolkit, errors


def certify(domain: DomainDefinition, problems: list[Problem], contexts: list[ProblemContext], initial: BaseModel,
            gold: list[tuple[str, GoldCall]], task_id: str, pack: Pack) -> Certificate:
    """Replay the gold actions and their variants on the set-up state (see module docstring)."""
    now = pack.now
    specs = domain.toolkit.tool_specs()
    start = domain.toolkit(clone(initial), now)
    unmet_after_setup = _unmet(problems, contexts, start)
    calls = [call for _, call in gold]
    final, gold_errors = _run(domain, initial, calls, now)
    unmet_after_gold = _unmet(problems, contexts, final)
    unnecessary = []
    writes = [index for index, call in enumerate(calls) if specs.get(call.name) and specs[call.name].kind != "read"]
    for index in writes:
        reduced, _ = _run(domain, initial, calls[:index] + calls[index + 1:], now)
        if not _unmet(problems, contexts, reduced):
            unnecessary.append(gold[index][0])
    not_caught = []
    for problem, context in zip(problems, contexts):
        forbidden = getattr(problem, "forbidden_calls", None)
        if forbidden is None:
            continue
        for call in forbidden(context):
            tempted, errors = _run(domain, initial, calls + [call], now)
            if not errors and not _unmet(problems, contexts, tempted):
                not_caught.append(f"{problem.name}: {call.name}")
    for problem, context in zip(problems, contexts):
        context.toolkit = start
    return Certificate(task_id=task_id, unmet_after_setup=unmet_after_setup, gold_errors=gold_errors,
                       unmet_after_gold=unmet_after_gold, unnecessary_writes=unnecessary,
                       forbidden_writes_not_caught=not_caught,
                       do_nothing_passes=not unmet_after_setup or start.db_hash() == final.db_hash(),
                       initial_hash=start.db_hash(), gold_hash=final.db_hash(), writes=len(writes))


def _scenario(domain: DomainDefinition, persona: str, fragments: list[ScenarioFragment]) -> dict[str, Any]:
    opening, requests = fragments[0], fragments[1:]
    if len(requests) == 1:
        reason = requests[0].reason_for_call
    else:
        reason = "You have several things to sort out: " + " Also: ".join(f.reason_for_call for f in requests)
    known = [*opening.known_info, *(line for f in requests for line in f.known_info)]
    instructions = [*opening.task_instructions]
    if len(requests) > 1:
        instructions.append("Raise your requests one at a time, in the order given here; move to the next only when "
                            "the agent has dealt with the current one.")
    instructions += [line for f in requests for line in f.task_instructions]
    instructions.append("If you are transferred to a human team, end the conversation. When everything is handled, "
                        "thank the agent and end the conversation.")
    unknown = [line for f in fragments for line in f.unknown_info]
    return {"persona": domain.personas.get(persona),
            "instructions": {"domain": domain.name, "reason_for_call": reason, "known_info": " ".join(known),
                             "unknown_info": " ".join(unknown) or None, "task_instructions": " ".join(instructions)}}
