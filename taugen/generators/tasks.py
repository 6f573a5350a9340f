"""Compose problems into tasks, prove each task, and emit it in tau2's Task schema.

Composition follows τ²-bench's telecom generator: one problem per slot (selection set), constraints
filter combinations, personas are assigned round-robin, and the task id encodes the composition:
``[banking]problem_a|problem_b[CUSTOMER:C10007][PERSONA:Plain]``.

Every task carries a :class:`Certificate`, computed by replaying the gold actions on the problem
state: the check fails after setup, no gold step errors, the check passes after the gold actions,
removing any single gold write breaks the check, a do-nothing run fails, and, for problems policy
forbids, the tempting wrong write breaks the check. The certificate also holds the *fact-sensitivity
proof*: for every fact the task declares, the fact's typed value is perturbed to another valid value of
its type (:func:`taugen.generators.families.perturbations`), the task is recomposed with the same seed and
customer, and the gold outcome (gold writes, else the final DB hash) must change; a declared fact that
does not change it is listed in ``insensitive_facts`` and fails the certificate.

Besides the domain's hand-written problems, a domain with a family binding contributes one problem per
fact and variant (:mod:`taugen.generators.families`). :func:`compose_tasks` enumerates that task space,
picks ``preset.tasks`` tasks deterministically from the seed (every instance first, so the tier covers the
facts), and splits them into a small ``dev`` split and a sealed ``test`` split that share no problem instance.
"""

from __future__ import annotations

import functools
import gc
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from taugen.authoring.pack import Pack
from taugen.errors import InputError
from taugen.hashing import stable_seed
from taugen.generators.domain import DomainDefinition
from taugen.generators.world_memo import WORLD_MEMO, copy_for, full_hash, static_tables, world_json, world_slice
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
    sensitivity: list[dict[str, Any]] = field(default_factory=list)
    insensitive_facts: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (bool(self.unmet_after_setup) and not self.gold_errors and not self.unmet_after_gold
                and not self.unnecessary_writes and not self.forbidden_writes_not_caught
                and not self.do_nothing_passes and self.initial_hash != self.gold_hash
                and not self.insensitive_facts)

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
    kinds: list[str] = field(default_factory=list)
    split: str = "test"
    context_facts: list[str] = field(default_factory=list)

    def to_tau2(self, domain: str) -> dict[str, Any]:
        """The task as a tau2 ``Task`` dict (see ../shared/reference/tau2-format.md §2)."""
        actions = []
        for action_id, call in self.gold:
            action: dict[str, Any] = {"action_id": action_id, "requestor": call.requestor, "name": call.name,
                                      "arguments": call.arguments, "info": call.info}
            if call.compare_args is not None:
                action["compare_args"] = list(call.compare_args)
            elif call.name == "transfer_to_human_agents":
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
        for fact_id in (*problem.facts, *problem.context_facts):
            if fact_id in pack.facts and pack.is_current(fact_id):
                continue
            file, line = problem.location()  # reading the source is slow: only for an error
            if fact_id not in pack.facts:
                raise InputError(f"problem names unknown fact '{fact_id}'", file, line, problem.name)
            raise InputError(f"problem uses fact '{fact_id}', which is not in force at {pack.now:%Y-%m-%d} "
                             f"(superseded by '{pack.superseded_by(fact_id)}')", file, line, problem.name)


CASE_KINDS = ("routine", "multi-step", "multi-intent", "unusual", "incomplete", "changing", "declined", "redirected")
"""τ^τ's evaluation mix; every task is labelled with the kinds it contains (:func:`case_kinds`)."""
DEV_SHARE = 0.1
"""Share of tasks (and of problem instances) in the ``dev`` split; the rest is the sealed ``test`` split."""
DEV_CUSTOMERS_LEAST = 2
"""The fewest customers the ``dev`` split's tasks are about (when the world has twice as many)."""
HAND_COPIES = 2
"""How many tasks of a split carry each hand-written problem when the split has that many tasks per
hand-written problem (else each is placed once)."""
HAND_TRIES = 8
"""How many customers a hand-written problem is tried on before it stops being forced into a task: a setup may
refuse a customer that ``applicable`` accepts (a product exempt from the fee the problem is about)."""


CORPUS_ONLY = "no problem declares it: the records state it, and no task's gold depends on it"
"""Why no task exercises a current fact that no problem of the task space declares (``author/coverage.json``)."""
FOLLOWED_ONLY = ("a problem follows it as context (context_facts), but no problem's gold depends on it: no "
                 "typed perturbation of it changes a gold")
"""Why no task exercises a current fact that problems follow without deciding on it."""


@dataclass
class TaskSpace:
    """The enumerable space tasks are drawn from.

    Attributes:
        problems: every problem class (hand-written, then family instances).
        dev: names of the problems reserved for the ``dev`` split (the ``test`` split never uses them).
        unexercisable: current fact id → why no problem decides it (a family's reason, else
            :data:`FOLLOWED_ONLY` or :data:`CORPUS_ONLY`); a fact some problem decides has none (when no
            task is drawn for it, the coverage report says that).
        customers: the customers a task can be about.
    """

    problems: list[type[Problem]]
    dev: set[str]
    unexercisable: dict[str, str]
    customers: list[str]

    def size(self, preset: TierPreset) -> dict[str, int]:
        """Counts: problem instances, customers, and compositions of the tier's problem counts (distinct
        problem sets times customers, an upper bound before applicability)."""
        from math import comb

        low, high = preset.problems_per_task
        n = len(self.problems)
        compositions = sum(comb(n, k) for k in range(low, high + 1)) * len(self.customers)
        return {"problem_instances": n, "hand_written": sum(not _is_family(p) for p in self.problems),
                "family_instances": sum(_is_family(p) for p in self.problems), "customers": len(self.customers),
                "compositions": compositions}


def _is_family(problem: type[Problem]) -> bool:
    return getattr(problem, "family", None) is not None


def task_space(domain: DomainDefinition, pack: Pack, world: BaseModel, seed: int,
               special: set[str] = frozenset()) -> TaskSpace:
    """Enumerate the problems of a domain: its hand-written problems and, with a family binding, one family
    instance per fact and variant. Puts the family topic catalogue into ``world`` (in place).

    Args:
        special: client-held or contested fact ids (quoted even when their value is free text).

    Raises:
        InputError: a hand-written problem names an unknown or superseded fact.
    """
    check_problem_facts(domain, pack)
    problems: list[type[Problem]] = list(domain.problems)
    reasons: dict[str, str] = {}
    if domain.families is not None:
        from taugen.generators.families import instantiate

        binding = domain.families(pack)
        taken = {f for p in domain.problems for f in p.facts}
        instances, topics, reasons = instantiate(pack, binding, special, taken)
        binding.prepare_world(world, topics)
        WORLD_MEMO.clear()  # the world changed: what was remembered about it is stale
        problems += instances
    exercised = {f for p in problems for f in p.facts}
    reasons = {f: r for f, r in reasons.items() if f not in exercised}
    followed = {f for p in problems for f in p.context_facts}
    for fact_id in sorted(pack.facts):  # no problem decides it: say so, not "no task was drawn for it"
        if fact_id not in exercised and fact_id not in reasons and pack.is_current(fact_id):
            reasons[fact_id] = FOLLOWED_ONLY if fact_id in followed else CORPUS_ONLY
    # The dev split takes about DEV_SHARE of the instances, stratified by section and family; every fifth
    # hand-written problem (by name) is dev-only too, so dev shows refusals and transfers as well.
    dev: set[str] = set()
    strata: dict[tuple[str, str], list[type[Problem]]] = {}
    for problem in problems:
        if _is_family(problem):
            section = pack.facts[problem.facts[0]].section
            strata.setdefault((section, problem.family), []).append(problem)  # type: ignore[attr-defined]
    for key, members in sorted(strata.items()):
        members = sorted(members, key=lambda p: p.name)
        random.Random(stable_seed(seed, "dev", key)).shuffle(members)
        dev |= {p.name for p in members[:max(1, round(len(members) * DEV_SHARE))] if len(members) > 2}
    hand = sorted((p for p in problems if not _is_family(p)), key=lambda p: p.name)
    dev |= {p.name for index, p in enumerate(hand) if index % 5 == 2}
    return TaskSpace(problems=problems, dev=dev, unexercisable=reasons,
                     customers=sorted(getattr(world, domain.customer_table)))


def _interleaved(instances: list[type[Problem]]) -> list[type[Problem]]:
    """Family instances round-robin across their families and variants (each one's own order kept), so a
    small bundle carries every kind (fees, limits under and over, minimums, quotes ...) before any repeats."""
    groups: dict[str, list[type[Problem]]] = {}
    for problem in instances:
        groups.setdefault(f"{getattr(problem, 'family', problem.name)}/{getattr(problem, 'variant', '')}", []).append(problem)
    ordered = [groups[name] for name in sorted(groups)]
    return [group[i] for i in range(max(map(len, ordered), default=0)) for group in ordered if i < len(group)]


def _gold_order(problems: tuple[type[Problem], ...]) -> list[type[Problem]]:
    """Transfers go last: the call ends with them."""
    return sorted(problems, key=lambda p: (p.outcome == "transfer", p.name))


def _compatible(problem: type[Problem], chosen: list[type[Problem]]) -> bool:
    if any(problem.slot == other.slot for other in chosen):
        return False
    if problem.outcome == "transfer" and any(other.outcome == "transfer" for other in chosen):
        return False
    names = {other.name for other in chosen}
    if set(problem.excludes) & names or any(problem.name in other.excludes for other in chosen):
        return False
    topic = getattr(problem, "topic", None)
    return topic is None or all(getattr(other, "topic", None) is None or other.topic.topic_id != topic.topic_id
                                for other in chosen)


def _old_objects_left_uncollected(function: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``function`` with the objects that exist when it starts (the pack, the world, loaded modules) frozen
    out of Python's cyclic garbage collection (:func:`gc.freeze`), and thaw them when it returns or raises.

    Composing allocates many short-lived records, so the collector runs often; without the freeze each full
    collection also walks every long-lived object. Collection never changes what is composed. When objects are
    frozen already (someone else's :func:`gc.freeze`), nothing is frozen or thawed here."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        if gc.get_freeze_count():
            return function(*args, **kwargs)
        gc.freeze()
        try:
            return function(*args, **kwargs)
        finally:
            gc.unfreeze()

    return run


def customers_by_split(customers: list[str], dev_count: int, seed: int, tier: str) -> dict[str, list[str]]:
    """The customers each split's tasks are about: a seeded :data:`DEV_SHARE` of them (at least
    :data:`DEV_CUSTOMERS_LEAST`) for ``dev`` and the rest for ``test``, so that no customer has tasks in both
    while each split's own customers can carry it (:func:`compose_tasks` says when they cannot).
    The construction kit shows dev tasks as sample scenarios with their customer's records; a customer of a
    sealed task would show that task's customer in the evaluation world. With no dev tasks, or fewer than
    twice :data:`DEV_CUSTOMERS_LEAST` customers, both splits draw on every customer (and the kit then shows no
    sample). Returns ``{"dev": [...], "test": [...]}``, each in ``customers``' order."""
    if not dev_count or len(customers) < 2 * DEV_CUSTOMERS_LEAST:
        return {"dev": list(customers), "test": list(customers)}
    shuffled = sorted(customers)
    random.Random(stable_seed(seed, tier, "dev customers")).shuffle(shuffled)
    dev = set(shuffled[:max(DEV_CUSTOMERS_LEAST, round(len(customers) * DEV_SHARE))])
    return {"dev": [c for c in customers if c in dev], "test": [c for c in customers if c not in dev]}


@_old_objects_left_uncollected
def compose_tasks(domain: DomainDefinition, pack: Pack, world: BaseModel, preset: TierPreset, seed: int,
                  special: set[str] = frozenset(), space: TaskSpace | None = None) -> list[TaskRecord]:
    """Compose, set up and certify ``preset.tasks`` tasks from the task space.

    Every problem instance is placed in a task before any is repeated (coverage first, every family before
    a second instance of any), one task in three
    carries a hand-written problem (every other one a transfer, so refusals, transfers and multi-step work
    stay in the mix), every hand-written problem of a split is placed at least once when the split has
    as many tasks as it has hand-written problems (:data:`HAND_COPIES` times when it has that many times
    more), dev tasks draw only on dev problems, and the two splits' tasks are about different customers
    (:func:`customers_by_split`) unless a split's own customers cannot carry it: a hand-written problem that
    fits none of them takes any customer, and a split not filled in half its attempts draws on every
    customer (the kit then shows no sample of such a dev task). All choices are seeded.

    Args:
        domain: the domain's code.
        pack: the loaded pack (fact values).
        world: the initial database; the family topic catalogue is added to it (in place).
        preset: the tier (``tasks``, ``problems_per_task``, ``personas``).
        seed: the build seed.
        special: client-held or contested fact ids.
        space: a task space already enumerated (else :func:`task_space`).

    Returns:
        tasks sorted by id.

    Raises:
        InputError: a problem names an unknown or superseded fact.
    """
    space = space or task_space(domain, pack, world, seed, special)
    WORLD_MEMO.clear()
    _PERTURBED.clear()
    rng = random.Random(stable_seed(seed, preset.name, "compose"))
    low, high = preset.problems_per_task
    shared = domain.toolkit(world, pack.now)
    dev_count = max(1, round(preset.tasks * DEV_SHARE)) if preset.tasks >= 10 else 0
    split_customers = customers_by_split(space.customers, dev_count, seed, preset.name)
    tasks: list[TaskRecord] = []
    seen: set[str] = set()
    for split, count in (("dev", dev_count), ("test", preset.tasks - dev_count)):
        own = split_customers[split]
        pool = [p for p in space.problems if (p.name in space.dev) == (split == "dev")]
        family = [p for p in pool if _is_family(p)]
        hand = [p for p in pool if not _is_family(p)]
        rng.shuffle(family)
        family = _interleaved(family)
        transfers = [p for p in hand if p.outcome == "transfer"]
        others = [p for p in hand if p.outcome != "transfer"]
        queue = list(family)  # uncovered instances, in seeded order
        # Twice each when the split has room (siblings let the K17 checks compare like with like), else once.
        hand_queue = list(hand) * (HAND_COPIES if count >= HAND_COPIES * len(hand) else 1)
        failures: dict[str, int] = {}  # a hand-written problem that fails HAND_TRIES times stops being forced
        made = attempts = 0
        while made < count and attempts < count * 20:
            attempts += 1
            number = len(tasks)
            size = low + (number % (high - low + 1)) if high > low else low
            # a split whose own customers cannot carry its count in half the attempts draws on every customer
            customers = own if attempts <= count * 10 else space.customers
            customer_id = customers[rng.randrange(len(customers))]
            chosen: list[type[Problem]] = []
            # A hand-written problem every third task, and in every task once the slots left are no more than
            # the hand-written problems not yet placed: each one appears whenever the count allows it.
            # A domain without family instances draws every task's problems from its hand-written ones.
            if hand and (not family or number % 3 == 0 or len(hand_queue) >= count - made):
                cycle = transfers if (number // 3) % 2 == 0 and transfers else others or transfers
                fresh = list(dict.fromkeys([p for p in cycle if p in hand_queue] + hand_queue))  # each once
                rotation = cycle[(number // 6) % len(cycle):] + cycle[:(number // 6) % len(cycle)]
                picked = next((p for p in fresh if p().applicable(shared, customer_id)), None)
                if picked is None and fresh:  # no unplaced problem fits the drawn customer: find one it fits,
                    for candidates in (customers, space.customers):  # among the split's, else among all
                        order = sorted(candidates, key=lambda c: stable_seed(seed, preset.name, number, c))
                        found = next((c for c in order if fresh[0]().applicable(shared, c)), None)
                        if found is not None:
                            customer_id, picked = found, fresh[0]
                            break
                if picked is None:
                    picked = next((p for p in rotation if p().applicable(shared, customer_id)), None)
                if picked is not None:
                    chosen.append(picked)
            fillers = family or hand
            for source in (queue, fillers):
                for problem in (source if source is queue else rng.sample(source, min(len(source), 40))):
                    if len(chosen) >= size:
                        break
                    if _compatible(problem, chosen) and problem().applicable(shared, customer_id):
                        chosen.append(problem)
            if not chosen:
                continue
            persona = preset.personas[number % len(preset.personas)]
            combo = tuple(sorted(chosen, key=lambda p: p.name))
            task_id = f"[{domain.name}]{'|'.join(p.name for p in combo)}[CUSTOMER:{customer_id}][PERSONA:{persona}]"
            if task_id in seen:
                continue
            record = realise_task(domain, pack, world, combo, customer_id, persona, seed, task_id)
            if record is None or record.certificate.gold_errors or record.certificate.unmet_after_gold:
                for problem in combo:  # the customer cannot carry it, or its requests collide
                    failures[problem.name] = failures.get(problem.name, 0) + 1
                hand_queue = [p for p in hand_queue if failures.get(p.name, 0) < HAND_TRIES]
                continue
            record.split = split
            tasks.append(record)
            seen.add(task_id)
            made += 1
            placed = set(combo)
            queue = [p for p in queue if p not in placed]
            for problem in placed & set(hand_queue):
                hand_queue.remove(problem)  # one copy placed
    return sorted(tasks, key=lambda t: t.task_id)


def task_purpose(summaries: list[str]) -> str:
    """A task's ``description.purpose``: its problems' summaries as one sentence, each ended by a semicolon
    but the last (a hand-written summary ends with a full stop, a family's does not; run together with
    spaces they read "...at the Old Town branch quote family (quote): ...")."""
    parts = [summary.strip().rstrip(".") for summary in summaries if summary.strip()]
    return "; ".join(parts) + "." if parts else ""


def case_kinds(problems: list[Problem], gold_by_problem: list[list[GoldCall]], specs: dict[str, Any]) -> list[str]:
    """The case kinds a task contains (:data:`CASE_KINDS`): ``multi-intent`` with two or more requests,
    ``multi-step`` when one request needs two or more writes, ``declined`` / ``redirected`` from the
    outcomes, and a family instance's own kinds (edge of a rule, missing value, changed request)."""
    kinds: set[str] = set()
    requests = problems[1:]
    if len(requests) >= 2:
        kinds.add("multi-intent")
    for problem, calls in zip(requests, gold_by_problem[1:]):
        writes = [c for c in calls if specs.get(c.name) and specs[c.name].kind == "write"]
        if len(writes) >= 2:
            kinds.add("multi-step")
        own = getattr(type(problem), "case_kinds", None)
        mine = set(own()) if own is not None else set(getattr(problem, "kinds", ()))
        if problem.outcome == "refuse":
            mine.add("declined")
        elif problem.outcome == "transfer":
            mine.add("redirected")
        kinds |= mine - {"routine"} if mine - {"routine"} else {"routine"}  # a plain request is routine
    return [kind for kind in CASE_KINDS if kind in kinds]


def _contexts(problems: list[Problem], toolkit: Toolkit, pack: Pack, customer_id: str, seed: int,
              task_id: str) -> list[ProblemContext]:
    return [ProblemContext(toolkit=toolkit, pack=pack, customer_id=customer_id,
                           rng=random.Random(stable_seed(seed, task_id, problem.name))) for problem in problems]


def _set_up(domain: DomainDefinition, pack: Pack, world: BaseModel, combo: tuple[type[Problem], ...],
            customer_id: str, seed: int, task_id: str):
    """Set one composition up for one customer: ``(problems, contexts, toolkit, fragments, gold by problem)``,
    or None when the customer cannot carry it."""
    problems = [domain.opening(), *(cls() for cls in _gold_order(combo))]
    if not all(problem.applicable(domain.toolkit(world, pack.now), customer_id) for problem in problems):
        return None  # checked on the shared world, read-only, before paying for a copy
    toolkit = domain.toolkit(copy_for(domain, world, customer_id), pack.now)
    contexts = _contexts(problems, toolkit, pack, customer_id, seed, task_id)
    try:
        fragments = [problem.setup(context) for problem, context in zip(problems, contexts)]
        gold_by_problem = [problem.solve(context) for problem, context in zip(problems, contexts)]
    except (LookupError, ValueError, StopIteration):
        return None
    return problems, contexts, toolkit, fragments, gold_by_problem


def realise_task(domain: DomainDefinition, pack: Pack, world: BaseModel, combo: tuple[type[Problem], ...],
                 customer_id: str, persona: str, seed: int, task_id: str) -> TaskRecord | None:
    """Set up one composition for one customer and certify it; None when the customer cannot carry it."""
    made = _set_up(domain, pack, world, combo, customer_id, seed, task_id)
    if made is None:
        return None
    problems, contexts, toolkit, fragments, gold_by_problem = made
    # A slice holds every record of the customer, so its diff is the whole world's diff.
    before = world_json(world, customer_id if world_slice(domain, world, customer_id) is not None else None,
                         domain)
    sliced = len(getattr(toolkit.db, domain.customer_table)) != len(getattr(world, domain.customer_table))
    patch = diff_patch(before, toolkit.db.model_dump(mode="json", exclude=static_tables(world) if sliced else None))
    initial = toolkit.db  # the set-up state; certificate replays copy it
    gold: list[tuple[str, GoldCall]] = []
    for calls in gold_by_problem:
        for call in calls:
            gold.append((f"{len(gold)}_{call.name}", call))
    certificate = certify(domain, problems, contexts, initial, gold, task_id, pack,
                          hash_of=lambda toolkit: full_hash(domain, world, toolkit))
    facts = sorted({fact for problem in problems for fact in problem.facts})
    certificate.sensitivity, certificate.insensitive_facts = sensitivity(
        domain, pack, world, combo, customer_id, seed, task_id, facts, gold, certificate.gold_hash,
        problems, contexts)
    scenario = _scenario(domain, persona, fragments)
    purpose = task_purpose([problem.summary for problem in problems[1:]])
    context_facts = sorted({fact for problem in problems for fact in getattr(problem, "context_facts", ())})
    return TaskRecord(task_id=task_id, customer_id=customer_id, problems=[p.name for p in problems], persona=persona,
                      facts=facts, patch=patch, gold=gold, scenario=scenario, purpose=purpose,
                      certificate=certificate, outcomes={p.name: p.outcome for p in problems},
                      kinds=case_kinds(problems, gold_by_problem, domain.toolkit.tool_specs()),
                      context_facts=context_facts)


def _writes(calls: list[GoldCall], specs: dict[str, Any]) -> str:
    return json.dumps([(c.name, c.arguments) for c in calls if specs.get(c.name) and specs[c.name].kind != "read"],
                      sort_keys=True, default=str)


class _PerturbedPacks:
    """The perturbations of one fact's value (:func:`taugen.generators.families.perturbations`, ``candidates``)
    and, iterated over, the packs that hold them, in order, each made the first time it is iterated to (a pack
    copy holds every fact; most facts are proven by their first perturbation)."""

    def __init__(self, pack: Pack, fact_id: str) -> None:
        from taugen.generators.families import perturbations

        value = pack.facts[fact_id].value
        self.pack, self.fact_id = pack, fact_id
        self.candidates: list[Any] = perturbations(value) if value is not None else []
        self.made: list[Pack] = []

    def __iter__(self) -> Iterator[Pack]:
        for index, candidate in enumerate(self.candidates):
            if index == len(self.made):
                fact = self.pack.facts[self.fact_id]
                self.made.append(replace(self.pack, facts={**self.pack.facts,
                                                           self.fact_id: fact.model_copy(update={"value": candidate})}))
            yield self.made[index]


_PERTURBED: list[tuple[Pack, dict[str, _PerturbedPacks]]] = []
"""The :class:`_PerturbedPacks` of the facts of the pack being composed with (one pack at a time; dropped at the
start of every composition). A fact's perturbations and their packs depend on the pack only, and are only read."""


def perturbed_packs(pack: Pack, fact_id: str) -> _PerturbedPacks:
    """The perturbations of one fact of ``pack`` (``.candidates``: other values of its type, nearest first,
    from :func:`taugen.generators.families.perturbations`; none for a fact without a typed value) and,
    iterated over, the packs holding them in the same order, made lazily and remembered for this pack.

    Raises:
        KeyError: ``fact_id`` is not in the pack.
    """
    if not _PERTURBED or _PERTURBED[0][0] is not pack:
        _PERTURBED[:] = [(pack, {})]
    by_fact = _PERTURBED[0][1]
    if fact_id not in by_fact:
        by_fact[fact_id] = _PerturbedPacks(pack, fact_id)
    return by_fact[fact_id]


def sensitivity(domain: DomainDefinition, pack: Pack, world: BaseModel, combo: tuple[type[Problem], ...],
                customer_id: str, seed: int, task_id: str, facts: list[str], gold: list[tuple[str, GoldCall]],
                gold_hash: str, problems: list[Problem] | None = None,
                contexts: list[ProblemContext] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The fact-sensitivity proof of one task.

    For each declared fact, try the perturbations of its typed value in order
    (:func:`taugen.generators.families.perturbations`). First in the same world: the gold actions are
    solved again on the set-up state with the perturbed value (``same_world``: an agent that believed the
    other value would act differently here). Else the task is recomposed with the perturbed pack, the same
    seed, customer and task id; the fact is proven when the gold writes differ, or else the final DB hash
    after the gold actions differs, or the perturbed task cannot be set up at all (the fact decides whether
    the situation exists).

    Returns:
        ``(proof rows, insensitive fact ids)``; a row holds the fact, the original and perturbed canonical
        values and what changed (``gold_writes``, ``db_hash``, ``not_realisable``).
    """
    specs = domain.toolkit.tool_specs()
    original = _writes([call for _, call in gold], specs)
    rows: list[dict[str, Any]] = []
    insensitive: list[str] = []
    for fact_id in facts:
        fact = pack.facts[fact_id]
        proven = None
        packs = perturbed_packs(pack, fact_id)
        candidates = packs.candidates
        if problems is not None and contexts is not None:
            for candidate, perturbed in zip(candidates, packs):
                try:
                    calls = [call for problem, context in zip(problems, contexts)
                             for call in problem.solve(replace(context, pack=perturbed))]
                except (LookupError, ValueError, KeyError):
                    continue
                if _writes(calls, specs) != original:
                    proven = (candidate, "same_world")
                    break
        if proven is None:  # not proven in the same world: recompose
            for candidate, perturbed in zip(candidates, packs):
                made = _set_up(domain, perturbed, world, combo, customer_id, seed, task_id)
                if made is None:
                    proven = (candidate, "not_realisable")
                    break
                _, _, toolkit, _, gold_by_problem = made
                calls = [call for calls in gold_by_problem for call in calls]
                if _writes(calls, specs) != original:
                    proven = (candidate, "gold_writes")
                    break
                for call in calls:
                    toolkit.call(call.name, **call.arguments)
                if full_hash(domain, world, toolkit) != gold_hash:
                    proven = (candidate, "db_hash")
                    break
        if proven is None:
            insensitive.append(fact_id)
        rows.append(proof_row(fact_id, fact.value, *(proven or (None, None))))
    return rows, insensitive


def proof_row(fact_id: str, original: Any, perturbed: Any = None, changed: str | None = None) -> dict[str, Any]:
    """One row of a fact-sensitivity proof (``Certificate.sensitivity``), as every domain writes it.

    Args:
        original: the fact's typed value in the pack (None: the fact has none).
        perturbed: the other value that changed the gold outcome (None: none did).
        changed: what changed, one of :data:`taugen.validators.tasks.PROOF_CHANGES` (None: nothing did).

    Returns:
        ``{fact, original, perturbed, changed}``: values in canonical form, except a boolean's perturbed
        value, written ``true`` / ``false`` (both of its values share one canonical phrase).
    """
    if perturbed is None:
        return {"fact": fact_id, "original": original.canonical() if original is not None else None,
                "perturbed": None, "changed": None}
    shown = (str(perturbed.value).lower() if isinstance(getattr(perturbed, "value", None), bool)
             else perturbed.canonical())
    return {"fact": fact_id, "original": original.canonical(), "perturbed": shown, "changed": changed}


def _unmet(problems: list[Problem], contexts: list[ProblemContext], toolkit: Toolkit) -> list[str]:
    unmet = []
    for problem, context in zip(problems, contexts):
        context.toolkit = toolkit
        unmet += [f"{problem.name}: {item}" for item in problem.check(context)]
    return unmet


def _run(toolkit: Toolkit, calls: list[GoldCall], snapshots_before: frozenset[int] = frozenset()
         ) -> tuple[Toolkit, list[str], dict[int, tuple[Toolkit, list[str]]]]:
    """Replay ``calls`` on ``toolkit`` (which they change).

    Returns:
        ``(toolkit, error messages of failed calls, snapshots)``: for each index in ``snapshots_before``, a
        toolkit on a copy of the state just before that call (its call log copied too) and the errors up to it,
        for :func:`_resume`.
    """
    errors: list[str] = []
    snapshots: dict[int, tuple[Toolkit, list[str]]] = {}
    for index, call in enumerate(calls):
        if index in snapshots_before:
            snapshots[index] = (_fork(toolkit), list(errors))
        _call(toolkit, call, errors)
    return toolkit, errors, snapshots


def _same_records(part: BaseModel, whole: BaseModel) -> bool:
    """Whether ``part``, a slice of ``whole`` (:meth:`Toolkit.customer_slice`: deep copies of some of its
    records), kept every record: every table a dict with the same keys in the same order, or the same object."""
    if type(part) is not type(whole):
        return False
    for name in type(whole).model_fields:
        mine, theirs = part.__dict__.get(name), whole.__dict__.get(name)
        if mine is theirs:
            continue
        if type(mine) is not dict or type(theirs) is not dict or list(mine) != list(theirs):
            return False
    return True


def _fork(toolkit: Toolkit) -> Toolkit:
    """A toolkit on a copy of ``toolkit``'s database, with a copy of its call log: replaying on one leaves the
    other as it was."""
    fork = type(toolkit)(clone(toolkit.db), toolkit.now)
    fork.calls = list(toolkit.calls)
    return fork


def _call(toolkit: Toolkit, call: GoldCall, errors: list[str]) -> None:
    """Make one call; a failed call's error message is appended to ``errors``."""
    result = toolkit.call(call.name, **call.arguments)
    if not result.ok:
        errors.append(f"{call.name}: {result.error}")


def _resume(toolkit: Toolkit, errors: list[str], calls: list[GoldCall]) -> tuple[Toolkit, list[str]]:
    """Carry on a replay (a snapshot of :func:`_run`, used once) with ``calls``: the toolkit after them and every
    error since the replay began."""
    for call in calls:
        _call(toolkit, call, errors)
    return toolkit, errors


def certify(domain: DomainDefinition, problems: list[Problem], contexts: list[ProblemContext], initial: BaseModel,
            gold: list[tuple[str, GoldCall]], task_id: str, pack: Pack,
            hash_of: Any = None) -> Certificate:
    """Replay the gold actions and their variants on the set-up state (see module docstring).

    Tools are deterministic (their result and the state after them follow from the state before and the
    arguments), so a variant that shares its first calls with the gold actions resumes from a copy of the state
    the gold replay had there instead of replaying them again: dropping write ``i`` resumes from the state before
    call ``i`` with the calls after it, and a forbidden write resumes from the state after every gold call. The
    states, and so the findings, are those of replaying each variant from the set-up state. Problem checks only
    read the state (as for the set-up state, which every replay copies), so the states after the gold calls can
    be checked and then copied.
    """
    now = pack.now
    specs = domain.toolkit.tool_specs()
    customer_id = contexts[0].customer_id if contexts else None
    start = domain.toolkit(initial, now)  # read only: the replays below work on copies
    unmet_after_setup = _unmet(problems, contexts, start)
    calls = [call for _, call in gold]
    writes = [index for index, call in enumerate(calls) if specs.get(call.name) and specs[call.name].kind != "read"]
    # The variants replay on the customer's slice of the set-up state when the domain can slice (taken once:
    # nothing below changes the set-up state, every replay works on its own copy). A slice that kept every
    # record is a copy of the set-up state: the gold replay runs on it and serves the variants as well.
    part = domain.toolkit.customer_slice(initial, customer_id) if customer_id is not None else None
    if part is None or _same_records(part, initial):
        final, gold_errors, before_write = _run(domain.toolkit(part if part is not None else clone(initial), now),
                                                calls, frozenset(writes))
        variant_gold, variant_errors = final, gold_errors
    else:
        final, gold_errors, _ = _run(domain.toolkit(clone(initial), now), calls)
        variant_gold, variant_errors, before_write = _run(domain.toolkit(part, now), calls, frozenset(writes))
    unmet_after_gold = _unmet(problems, contexts, final)
    unnecessary = []
    for index in writes:
        reduced, _ = _resume(*before_write[index], calls[index + 1:])
        if not _unmet(problems, contexts, reduced):
            unnecessary.append(gold[index][0])
    not_caught = []
    for problem, context in zip(problems, contexts):
        forbidden = getattr(problem, "forbidden_calls", None)
        if forbidden is None:
            continue
        for call in forbidden(context):
            tempted, errors = _resume(_fork(variant_gold), list(variant_errors), [call])
            if not errors and not _unmet(problems, contexts, tempted):
                not_caught.append(f"{problem.name}: {call.name}")
    for problem, context in zip(problems, contexts):
        context.toolkit = start
    hash_of = hash_of or (lambda toolkit: toolkit.db_hash())
    initial_hash, gold_hash = hash_of(start), hash_of(final)
    return Certificate(task_id=task_id, unmet_after_setup=unmet_after_setup, gold_errors=gold_errors,
                       unmet_after_gold=unmet_after_gold, unnecessary_writes=unnecessary,
                       forbidden_writes_not_caught=not_caught,
                       do_nothing_passes=not unmet_after_setup or initial_hash == gold_hash,
                       initial_hash=initial_hash, gold_hash=gold_hash, writes=len(writes))


def _scenario(domain: DomainDefinition, persona: str, fragments: list[ScenarioFragment]) -> dict[str, Any]:
    opening, requests = fragments[0], fragments[1:]
    if len(requests) == 1:
        reason = requests[0].reason_for_call
    else:
        reason = "You have several things to sort out: " + " Also: ".join(f.reason_for_call for f in requests)
    # a sentence two problems both give the user is said once (the same account named by two requests)
    known = list(dict.fromkeys([*opening.known_info, *(line for f in requests for line in f.known_info)]))
    instructions = [*opening.task_instructions]
    if len(requests) > 1:
        instructions.append("Raise your requests one at a time, in the order given here; move to the next only when "
                            "the agent has dealt with the current one.")
    instructions += [line for f in requests for line in f.task_instructions]
    instructions.append("If you are transferred to a human team, end the conversation. When everything is handled, "
                        "thank the agent and end the conversation.")
    # what one request keeps from the user (an account's number) another may give them: then the user knows it,
    # and saying both ("The account is ..., number A2..." beside "You do not know the account number of ...")
    # contradicts itself (K8; banking hard seed 0 had it in 10 of 45 tasks)
    told = " ".join(known)
    unknown = list(dict.fromkeys(line for f in fragments for line in f.unknown_info
                                 if not (line in f.withheld and f.withheld[line] in told)))
    return {"persona": domain.personas.get(persona),
            "instructions": {"domain": domain.name, "reason_for_call": reason, "known_info": " ".join(known),
                             "unknown_info": " ".join(unknown) or None, "task_instructions": " ".join(instructions)}}
