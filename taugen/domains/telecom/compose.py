"""Compose the telecom task space, set every task up on tau2's environment, certify it, emit tau2 tasks.

Composition follows τ²-bench's telecom generator exactly, so the ids, personas and gold match the
released data: per intent, the Cartesian product of the slots (each slot contributes one of its
problems or nothing), kept when the intent's rule holds, issues sorted by name, then a stable sort by
issue count and personas ``None``/``Easy``/``Hard`` round-robin. Ids are
``[intent]issue_a|issue_b[PERSONA:X]``.

Two task spaces:

* ``current``: tau2's generator code as it stands (3,405 tasks): the data-usage slot holds
  ``data_usage_exceeded`` and ``data_usage_exceeded_no_refuel``;
* ``released``: what tau2 released (2,285 tasks): the ``current`` space, in the same order and with
  the same personas, less every task holding ``data_usage_exceeded_no_refuel``. (The personas show it:
  the released mobile-data and MMS tasks carry the personas of their position in the 3,405-task
  space, not of a space built without that issue.)

Speed: a task's broken state depends only on its set of issues, and the issues are applied in sorted
order, so states form a prefix tree. Tasks are realised in lexicographic order of their issue lists
with a stack of frozen states: each break is applied once per distinct prefix, a state is frozen only
when a later task extends it, and the last state is solved and checked in place. Chunks of that order
run in a process pool.

Each task carries a :class:`TelecomCertificate`, tau2's ``verify_task`` plus taugen's checks.
"""

from __future__ import annotations

import gc
import itertools
import os
import pickle
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from taugen.authoring.pack import Pack
from taugen.hashing import stable_seed
from taugen.domains.telecom.env import (
    EnvCall,
    TelecomToolkit,
    TelecomWorld,
    combined_hash,
    load_world,
)
from taugen.domains.telecom.intents import INTENT_BY_NAME, INTENTS, Intent
from taugen.domains.telecom.personas import PERSONAS
from taugen.domains.telecom.problems import (
    PROBLEMS,
    CallerOnLine,
    TelecomProblem,
    apply_breaks,
)
from taugen.generators.problems import GoldCall, ProblemContext
from taugen.generators.tasks import Certificate, TaskRecord, perturbed_packs, proof_row

PERSONA_ORDER = ("None", "Easy", "Hard")
TRANSFER = "transfer_to_human_agents"
TRANSFER_SUMMARY = "I cannot fix the issue."
SPACES = ("released", "current")
EXCLUDED_FROM_RELEASED = ("data_usage_exceeded_no_refuel",)


@contextmanager
def without_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: generation allocates many short-lived, acyclic objects that
    reference counting frees, and the collector's passes over the growing heap would cost a third of
    the time."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


# ---------------------------------------------------------------------------- records
@dataclass
class TelecomCertificate(Certificate):
    """tau2's ``verify_task`` and taugen's checks for one telecom task.

    Fields used as in :class:`Certificate`, with telecom meanings:
        unmet_after_setup: the intent's success assertions failing after setup (must be non-empty).
        gold_errors: gold calls that raised.
        unmet_after_gold: graded env assertions failing after the gold calls; for an unfixable task,
            also "fixed" when the goal was reached anyway.
        unnecessary_writes: gold action ids reached with the goal already met (tau2: "already fixed
            after i actions").
        forbidden_writes_not_caught: for an unfixable task, set when applying every fix of its
            fixable issues reaches the goal (the unfixable issue would not be what blocks it).
        do_nothing_passes: a run with no calls earns the reward (graded assertions hold after setup
            and no action is graded).
        initial_hash / gold_hash: tau2 DB hashes (agent and user) after setup and after gold.
        sensitivity / insensitive_facts: the fact-sensitivity proof of the facts the task declares (when the
            build asks for proofs: :func:`realise`), rows as banking's; a fact no perturbation proves fails it.
    Extra:
        fixable: the task is solved by fixes (else by a transfer).
        fixed_before_setup: the intent's goal holds in the fresh environment (tau2 asserts it).
    """

    fixable: bool = True
    fixed_before_setup: bool = True

    @property
    def ok(self) -> bool:
        return (self.fixed_before_setup and bool(self.unmet_after_setup) and not self.gold_errors
                and not self.unmet_after_gold and not self.unnecessary_writes
                and not self.forbidden_writes_not_caught and not self.do_nothing_passes and not self.insensitive_facts
                and (not self.fixable or not self.initial_hash or self.initial_hash != self.gold_hash))


@dataclass
class TelecomTaskRecord(TaskRecord):
    """A telecom task: a :class:`TaskRecord` plus tau2's telecom fields."""

    intent: str = ""
    init: list[EnvCall] = field(default_factory=list)
    assertions: list[EnvCall] = field(default_factory=list)
    ticket: str = ""
    reward_basis: list[str] = field(default_factory=list)
    info: str = ""

    @property
    def issues(self) -> list[str]:
        return self.problems[1:]

    def to_tau2(self, domain: str = "telecom") -> dict[str, Any]:
        """The task as tau2's telecom generator dumps it (``Task.model_dump()`` field order)."""
        actions = []
        for action_id, call in self.gold:
            actions.append({"action_id": action_id, "requestor": call.requestor, "name": call.name,
                            "arguments": call.arguments, "info": call.info,
                            "compare_args": [] if call.name == TRANSFER else None})
        return {
            "id": self.task_id,
            "description": {"purpose": self.purpose, "relevant_policies": None, "notes": None},
            "user_scenario": self.scenario,
            "ticket": self.ticket,
            "initial_state": {"initialization_data": None,
                              "initialization_actions": [call.to_tau2() for call in self.init],
                              "message_history": None},
            "evaluation_criteria": {"actions": actions, "env_assertions": [a.to_tau2() for a in self.assertions],
                                    "communicate_info": None, "nl_assertions": None,
                                    "reward_basis": list(self.reward_basis)},
        }


# ---------------------------------------------------------------------------- composition
@dataclass(frozen=True)
class Composition:
    """One task before it is set up: intent, issues (sorted by name) and persona."""

    intent: str
    issues: tuple[str, ...]
    persona: str

    @property
    def task_id(self) -> str:
        return f"[{self.intent}]{'|'.join(self.issues)}[PERSONA:{self.persona}]"


def problems_by_slot() -> dict[str, list[type[TelecomProblem]]]:
    """Slot → its problems in tau2's selection-set order."""
    slots: dict[str, list[type[TelecomProblem]]] = {}
    for problem in PROBLEMS:
        slots.setdefault(problem.slot, []).append(problem)
    return slots


def intent_compositions(intent: Intent, space: str = "current") -> list[Composition]:
    """Every task of one intent in tau2's order, personas assigned (see the module docstring)."""
    if space not in SPACES:
        raise ValueError(f"unknown telecom task space '{space}' (choose from {', '.join(SPACES)})")
    slots = problems_by_slot()
    options = [[*(p.name for p in slots[slot]), None] for slot in intent.slots]
    chosen = []
    for combination in itertools.product(*options):
        if not any(name is not None for name in combination[intent.required_from:]):
            continue
        chosen.append(tuple(sorted(name for name in combination if name is not None)))
    chosen.sort(key=len)  # stable: product order within a size
    every = [Composition(intent.name, issues, PERSONA_ORDER[index % len(PERSONA_ORDER)])
             for index, issues in enumerate(chosen)]
    if space == "released":
        every = [c for c in every if not set(c.issues) & set(EXCLUDED_FROM_RELEASED)]
    return every


def compositions(space: str = "current") -> list[Composition]:
    """The whole task space, intents in tau2's order (mobile data, service, MMS)."""
    return [c for intent in INTENTS for c in intent_compositions(intent, space)]


# ---------------------------------------------------------------------------- realisation
_PROBLEMS = {problem.name: problem() for problem in PROBLEMS}
_OPENING = CallerOnLine()


class _Realiser:
    """Sets up and certifies compositions on one process, sharing broken states along issue prefixes."""

    def __init__(self, pack: Pack, world: TelecomWorld, hashes: bool, proofs: bool = False) -> None:
        self.pack = pack
        self.world = world
        self.now = pack.now
        self.hashes = hashes or proofs
        self.proofs = proofs
        self._perturbed: dict[str, Any] = {}
        self.rng = random.Random(0)
        toolkit = TelecomToolkit(TelecomWorld.model_construct(agent=world.agent, user=world.user), self.now)
        pristine = toolkit.freeze()
        fresh = TelecomToolkit.thaw(pristine, self.now)
        self.fixed_before = {intent.name: not fresh.unmet(intent.assertions(True)) for intent in INTENTS}
        toolkit = TelecomToolkit.thaw(pristine, self.now)
        state: dict[str, Any] = {}
        _OPENING.setup(self._context(toolkit, state))
        self.caller = {"name": state["name"], "phone_number": state["phone_number"]}
        self.root = ((), pickle.dumps(toolkit.env.user_tools.db, pickle.HIGHEST_PROTOCOL), tuple(state["init"]), ())
        self._agent_bytes: dict[tuple, bytes] = {(): pickle.dumps(toolkit.env.tools.db, pickle.HIGHEST_PROTOCOL)}
        self._agent_shared: dict[tuple, Any] = {}
        self._agent_hashes: dict[tuple, str] = {}
        self._texts = {intent.name: intent.texts(pack) for intent in INTENTS}
        self._goal = {intent.name: intent.assertions(True) for intent in INTENTS}
        self._failure = {intent.name: intent.assertions(False) for intent in INTENTS}
        self._toolkit = TelecomToolkit.thaw(pristine, self.now)  # one environment, rebound per task

    def _context(self, toolkit: TelecomToolkit, state: dict[str, Any]) -> ProblemContext:
        return ProblemContext(toolkit=toolkit, pack=self.pack, customer_id="", rng=self.rng, state=state)

    # -- hashes: the agent DB depends only on the agent-side calls made (and payments), so its
    #    (slow) tau2 hash is memoised by that sequence; the user DB is hashed every time.
    def _hash(self, toolkit: TelecomToolkit, agent_key: tuple) -> str:
        if not self.hashes:
            return ""
        agent_hash = self._agent_hashes.get(agent_key)
        if agent_hash is None:
            agent_hash = self._agent_hashes[agent_key] = toolkit.env.tools.get_db_hash()
        return combined_hash(agent_hash, toolkit.env.user_tools.get_db_hash())

    def realise(self, items: Sequence[Composition]) -> list[TelecomTaskRecord]:
        """Records for ``items``, in the order given.

        States are shared along issue prefixes (see the module docstring). The agent database is
        shared copy-on-write: its state is a function of the agent-side calls made so far (the
        *agent key*), one read-only copy per key serves every task that only reads it, and a task
        gets a private copy before anything would change it. A final self-check proves no shared
        copy was changed.
        """
        with without_gc():
            return self._realise(items)

    def _realise(self, items: Sequence[Composition]) -> list[TelecomTaskRecord]:
        order = sorted(range(len(items)), key=lambda i: items[i].issues)
        records: list[TelecomTaskRecord | None] = [None] * len(items)
        stack = [self.root]  # (issues prefix, frozen user db, init calls, agent key)
        for position, index in enumerate(order):
            issues = items[index].issues
            following = items[order[position + 1]].issues if position + 1 < len(order) else None
            while stack[-1][0] != issues[:len(stack[-1][0])]:
                stack.pop()
            prefix, frozen_user, init, agent_key = stack[-1]
            toolkit = self._thaw(frozen_user, agent_key)
            private = False
            init = list(init)
            for depth in range(len(prefix), len(issues)):
                problem = _PROBLEMS[issues[depth]]
                calls = problem.breaks(self._context(toolkit, {}))
                changes_agent = [c for c in calls if c.env_type == "assistant" and not c.is_assertion]
                if changes_agent and not private:
                    toolkit.use_agent_db(pickle.loads(self._agent_bytes[agent_key]))
                    private = True
                applied: list[EnvCall] = []
                apply_breaks(toolkit, calls, applied, problem.name)
                init += applied
                agent_key = agent_key + tuple(_call_key(c) for c in changes_agent)
                node = issues[:depth + 1]
                if following is not None and following[:len(node)] == node:
                    if agent_key not in self._agent_bytes:
                        self._agent_bytes[agent_key] = pickle.dumps(toolkit.env.tools.db, pickle.HIGHEST_PROTOCOL)
                    stack.append((node, pickle.dumps(toolkit.env.user_tools.db, pickle.HIGHEST_PROTOCOL),
                                  tuple(init), agent_key))
            if not private and agent_key not in self._agent_bytes:
                self._agent_bytes[agent_key] = pickle.dumps(toolkit.env.tools.db, pickle.HIGHEST_PROTOCOL)
            records[index] = self._certified(items[index], toolkit, init, agent_key, private)
        self._check_shared()
        return records  # type: ignore[return-value]

    def _thaw(self, frozen_user: bytes, agent_key: tuple) -> TelecomToolkit:
        agent = self._agent_shared.get(agent_key)
        if agent is None:
            agent = self._agent_shared[agent_key] = pickle.loads(self._agent_bytes[agent_key])
        return self._toolkit.rebind(agent, pickle.loads(frozen_user))

    def _check_shared(self) -> None:
        for key, agent in self._agent_shared.items():
            if agent.model_dump() != pickle.loads(self._agent_bytes[key]).model_dump():
                raise RuntimeError(f"a shared agent database was changed (agent key {key})")

    def perturbed(self, fact_id: str) -> Any:
        """The perturbations of one fact of this realiser's pack and the packs holding them
        (:func:`taugen.generators.tasks.perturbed_packs`), remembered."""
        if fact_id not in self._perturbed:
            self._perturbed[fact_id] = perturbed_packs(self.pack, fact_id)
        return self._perturbed[fact_id]

    def _same_world(self, problems: list[TelecomProblem], toolkit: TelecomToolkit, facts: list[str],
                    gold: list[GoldCall] | None) -> dict[str, dict[str, Any]]:
        """Proof rows of the facts proven on the set-up state: the gold solved again with a perturbed value
        differs (``same_world``: an agent that believed the other value would act otherwise here). Facts not
        proven here are left to :func:`_recomposed_proofs`."""
        rows: dict[str, dict[str, Any]] = {}
        for fact_id in facts:
            packs = self.perturbed(fact_id)
            for candidate, pack in zip(packs.candidates, packs):
                context = ProblemContext(toolkit=toolkit, pack=pack, customer_id="", rng=self.rng, state={})
                try:
                    other = _gold_calls([p.fixes(context) for p in problems])
                except (LookupError, ValueError, KeyError):
                    continue
                if other != gold:
                    rows[fact_id] = proof_row(fact_id, self.pack.facts[fact_id].value, candidate, "same_world")
                    break
        return rows

    def _certified(self, item: Composition, toolkit: TelecomToolkit, init: list[EnvCall],
                   agent_key: tuple, private: bool) -> TelecomTaskRecord:
        intent = INTENT_BY_NAME[item.intent]
        problems = [_PROBLEMS[name] for name in item.issues]
        context = self._context(toolkit, {})
        fixes = [p.fixes(context) for p in problems]  # on the set-up state: None where policy withholds a fix
        fixable = all(calls is not None for calls in fixes)
        surroundings = toolkit.env.user_tools.db.surroundings
        location = "abroad in France" if surroundings.is_abroad else "at home in the United States"
        facts = decisive_facts(problems, fixes)
        proof = self._same_world(problems, toolkit, facts, _gold_calls(fixes)) if self.proofs else {}
        if fixable:
            gold_calls = [call for calls in fixes for call in calls]  # type: ignore[union-attr]
            gold = [(f"{call.name}_{i}", call) for i, call in enumerate(gold_calls)]
            assertions = self._goal[item.intent] + [a for p in problems for a in p.extra_assertions(context)]
            basis = ["ENV_ASSERTION"]
        else:
            gold = [(TRANSFER, GoldCall(TRANSFER, {"summary": TRANSFER_SUMMARY}))]
            assertions = self._failure[item.intent]
            basis = ["ENV_ASSERTION", "ACTION"]
        goal = self._goal[item.intent]
        fix_all = [] if fixable else [call for calls in fixes for call in calls or []]
        if not private and (any(_changes_agent(toolkit, call) for _, call in gold)
                            or any(_changes_agent(toolkit, call) for call in fix_all)):
            toolkit.use_agent_db(pickle.loads(self._agent_bytes[agent_key]))

        # -- certificate (tau2 verify_task, on the set-up state, in place)
        unmet_setup = toolkit.unmet(goal)
        do_nothing = "ACTION" not in basis and toolkit.all_hold(assertions)
        initial_hash = self._hash(toolkit, agent_key)
        errors: list[str] = []
        unnecessary: list[str] = []
        key = list(agent_key)
        for position, (action_id, call) in enumerate(gold):
            if position > 0 and toolkit.all_hold(goal):
                unnecessary.append(action_id)
            result = toolkit.call_as(call.requestor, call.name, **call.arguments)
            if not result.ok:
                errors.append(f"{action_id}: {result.error}")
            if _changes_agent(toolkit, call):
                key.append(_call_key(call))
        unmet_gold = toolkit.unmet(assertions)
        reached = toolkit.all_hold(goal)
        if not fixable and reached:
            unmet_gold.append("the goal is reached although the task is unfixable")
        gold_hash = self._hash(toolkit, tuple(key))
        not_caught: list[str] = []
        if not fixable:
            blocked = [p.name for p in problems if p.outcome == "transfer"]
            for call in fix_all:
                toolkit.call_as(call.requestor, call.name, **call.arguments)
            if toolkit.all_hold(goal):
                not_caught.append(f"{'/'.join(blocked)}: fixing every fixable issue reaches the goal")
        certificate = TelecomCertificate(
            task_id=item.task_id, unmet_after_setup=unmet_setup, gold_errors=errors, unmet_after_gold=unmet_gold,
            unnecessary_writes=unnecessary, forbidden_writes_not_caught=not_caught, do_nothing_passes=do_nothing,
            initial_hash=initial_hash, gold_hash=gold_hash, writes=len(gold), fixable=fixable,
            fixed_before_setup=self.fixed_before[item.intent],
            sensitivity=[proof.get(fact_id) or proof_row(fact_id, self.pack.facts[fact_id].value) for fact_id in facts]
            if self.proofs else [])

        texts = self._texts[item.intent]
        fill = {**self.caller, "location": location}
        scenario = {"persona": PERSONAS[item.persona],
                    "instructions": {"domain": "telecom", "reason_for_call": texts["reason_for_call"],
                                     "known_info": texts["known_info"].format(**fill), "unknown_info": None,
                                     "task_instructions": texts["task_instructions"]}}
        followed = {fact for p in (_OPENING, *problems) for fact in (*p.facts, *p.context_facts)}
        return TelecomTaskRecord(
            task_id=item.task_id, customer_id=_customer_of(init), problems=[_OPENING.name, *item.issues],
            persona=item.persona, facts=facts, context_facts=sorted(followed - set(facts)), patch={}, gold=gold,
            scenario=scenario, purpose=intent.purpose,
            certificate=certificate, outcomes={p.name: p.outcome for p in problems}, intent=item.intent,
            init=init, assertions=assertions, ticket=texts["ticket"].format(**fill), reward_basis=basis,
            info=", ".join(p.description for p in problems))


def decisive_facts(problems: Sequence[TelecomProblem], fixes: Sequence[list[GoldCall] | None]) -> list[str]:
    """The facts a task declares (sorted): a problem's ``facts`` decide the task's gold when the gold is made
    of the problems' fixes (``fixes``: each problem's, None where policy withholds one), or when the problem is
    the only one withholding its fix (its facts then decide whether the task is a transfer). In a transfer task
    the facts of the fixes it withholds decide nothing, nor do those of a problem that another one also blocks:
    they stay context."""
    blocking = [p for p, calls in zip(problems, fixes) if calls is None]
    deciding = problems if not blocking else blocking if len(blocking) == 1 else []
    return sorted({fact for p in deciding for fact in p.facts})


def _gold_calls(fixes: Sequence[list[GoldCall] | None]) -> list[GoldCall] | None:
    """The gold of a task from its problems' fixes: every fix in order, or None (a transfer) when any is None."""
    if any(calls is None for calls in fixes):
        return None
    return [call for calls in fixes for call in calls]  # type: ignore[union-attr]


def _call_key(call: EnvCall | GoldCall) -> str:
    name = getattr(call, "func_name", None) or call.name
    return name + repr(sorted((k, getattr(v, "value", v)) for k, v in call.arguments.items()))


def _changes_agent(toolkit: TelecomToolkit, call: GoldCall) -> bool:
    """Whether a gold call may change the agent database: an agent write, or a user payment (tau2's
    ``sync_tools`` then marks the bill paid)."""
    if call.name == "make_payment":
        return True
    spec = toolkit.tools_of(call.requestor).get(call.name)
    return call.requestor == "assistant" and (spec is None or spec.kind != "read" and spec.kind != "generic")


def _customer_of(init: list[EnvCall]) -> str:
    for call in init:
        if "customer_id" in call.arguments:
            return call.arguments["customer_id"]
    return "C1001"


_WORKER: dict[str, Any] = {}


def _work(chunk: list[Composition]) -> list[TelecomTaskRecord]:
    return _WORKER["realiser"].realise(chunk)


def _work_tau2(chunk: list[Composition]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    records = _WORKER["realiser"].realise(chunk)
    with without_gc():
        return [(record.to_tau2(), record.certificate.as_dict()) for record in records]


def _pooled(items: Sequence[Composition], realiser: _Realiser, workers: int, work: Any) -> list[Any]:
    """Run ``work`` over chunks of the prefix order in a forked pool; results in the order of ``items``."""
    import multiprocessing

    order = sorted(range(len(items)), key=lambda i: items[i].issues)
    size = -(-len(order) // workers)
    parts = [order[start:start + size] for start in range(0, len(order), size)]
    _WORKER["realiser"] = realiser
    try:
        with without_gc(), multiprocessing.get_context("fork").Pool(len(parts)) as pool:
            results = pool.map(work, [[items[i] for i in part] for part in parts])
    finally:
        _WORKER.clear()
    ordered: list[Any] = [None] * len(items)
    for part, chunk in zip(parts, results):
        for index, result in zip(part, chunk):
            ordered[index] = result
    return ordered


def realise(items: Sequence[Composition], pack: Pack, world: TelecomWorld | None = None, workers: int = 1,
            hashes: bool = True, proofs: bool = False) -> list[TelecomTaskRecord]:
    """Set up and certify ``items`` (order kept).

    Args:
        workers: > 1 forks a process pool over chunks of the prefix order.
        hashes: record tau2's database hashes (after setup, after gold) in the certificates. They are
            not part of what tau2's ``verify_task`` checks (telecom grades env assertions), and cost
            about a fifth of the time, so :func:`generate` leaves them out by default.
        proofs: also prove every fact each task declares (the certificate's ``sensitivity`` rows, as
            banking's: :func:`taugen.generators.tasks.proof_row`): first on the task's set-up state, then by
            :func:`_recomposed_proofs`. Implies ``hashes``. A declared fact no perturbation proves is listed in
            the certificate's ``insensitive_facts``, and the certificate fails.
    """
    world = world or load_world()
    realiser = _Realiser(pack, world, hashes, proofs)
    workers = max(1, min(workers, os.cpu_count() or 1, len(items) // 200 or 1))
    records = realiser.realise(items) if workers == 1 else _pooled(items, realiser, workers, _work)
    if proofs:
        _recomposed_proofs(records, realiser, world)
    return records


_NOT_REALISABLE = (AssertionError, LookupError, ValueError, KeyError)
"""What setting up or solving a perturbed task may raise when the perturbed value makes its situation impossible
(a sanity assertion that no longer holds, a tool refusing a break call)."""


def _recomposed_proofs(records: Sequence[TelecomTaskRecord], realiser: _Realiser, world: TelecomWorld) -> None:
    """Finish the proofs :meth:`_Realiser._same_world` left open (fills the certificates in place).

    For each fact some task still needs proven, and each of its perturbations in order: the tasks still
    waiting for it are realised together on the perturbed pack (one realiser per perturbation, so the
    prefix-shared states serve them all). A task's fact is proven when its perturbed gold calls differ
    (``gold_writes``), else when tau2's hash of both databases after the gold differs (``db_hash``: the fact
    set the situation up), or when the perturbed task cannot be set up (``not_realisable``). What no
    perturbation proves goes to the certificate's ``insensitive_facts``.
    """
    waiting: dict[str, list[TelecomTaskRecord]] = defaultdict(list)
    for record in records:
        for row in record.certificate.sensitivity:
            if row["changed"] is None:
                waiting[row["fact"]].append(record)
    for fact_id in sorted(waiting):
        packs = realiser.perturbed(fact_id)
        pending = waiting[fact_id]
        for candidate, pack in zip(packs.candidates, packs):
            if not pending:
                break
            changed = _perturbed_changes(pending, pack, world)
            for record, what in zip(pending, changed):
                if what is not None:
                    row = proof_row(fact_id, realiser.pack.facts[fact_id].value, candidate, what)
                    rows = record.certificate.sensitivity
                    rows[[r["fact"] for r in rows].index(fact_id)] = row
            pending = [record for record, what in zip(pending, changed) if what is None]
        for record in pending:
            record.certificate.insensitive_facts.append(fact_id)


def _perturbed_changes(records: Sequence[TelecomTaskRecord], pack: Pack, world: TelecomWorld) -> list[str | None]:
    """For each record, what realising it on ``pack`` changes: ``gold_writes``, ``db_hash``, ``not_realisable``
    or None (nothing). The records are realised together; when one of them cannot be set up, each is realised
    alone to tell which."""
    items = [Composition(r.intent, tuple(r.issues), r.persona) for r in records]
    realiser = _Realiser(pack, world, hashes=True)
    try:
        perturbed: list[TelecomTaskRecord | None] = list(realiser.realise(items))
    except _NOT_REALISABLE:
        perturbed = []
        for item in items:
            try:
                perturbed.append(realiser.realise([item])[0])
            except _NOT_REALISABLE:
                perturbed.append(None)
    changes: list[str | None] = []
    for record, other in zip(records, perturbed):
        if other is None:
            changes.append("not_realisable")
        elif [call for _, call in other.gold] != [call for _, call in record.gold]:
            changes.append("gold_writes")
        elif other.certificate.gold_hash != record.certificate.gold_hash:
            changes.append("db_hash")
        else:
            changes.append(None)
    return changes


def generate(pack: Pack, space: str = "current", workers: int = 1, hashes: bool = False) -> list[TelecomTaskRecord]:
    """Every task of a space, set up and certified, in tau2's order."""
    return realise(compositions(space), pack, workers=workers, hashes=hashes)


def emit_tau2(records: Sequence[TelecomTaskRecord]) -> list[dict[str, Any]]:
    """The records as tau2 task dicts (what ``tasks.json`` holds)."""
    with without_gc():
        return [record.to_tau2() for record in records]


def generate_tau2(pack: Pack, space: str = "current", workers: int = 1,
                  hashes: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every task of a space as tau2 task dicts, with their certificates (as dicts), in tau2's order.

    With ``workers`` > 1 each forked worker emits its own tasks, so only plain data crosses processes.
    """
    items = compositions(space)
    realiser = _Realiser(pack, load_world(), hashes)
    workers = max(1, min(workers, os.cpu_count() or 1))
    if workers == 1:
        records = realiser.realise(items)
        with without_gc():
            pairs = [(record.to_tau2(), record.certificate.as_dict()) for record in records]
    else:
        pairs = _pooled(items, realiser, workers, _work_tau2)
    return [task for task, _ in pairs], [certificate for _, certificate in pairs]


# ---------------------------------------------------------------------------- splits
def id_parts(task_id: str) -> tuple[str, int, str]:
    """``(intent, number of issues, persona)`` of a telecom task id."""
    intent = task_id[1:task_id.index("]")]
    persona = task_id[task_id.rindex("[PERSONA:") + 9:-1]
    return intent, len(task_id.split("|")), persona


def stratified_sample(ids: Iterable[str], per_bin: int, seed: int, min_issues: int = 1) -> list[str]:
    """At most ``per_bin`` ids from each (intent, number of issues, persona) bin, drawn with a seeded
    generator per bin (independent of the other bins), bins in sorted order."""
    bins: dict[tuple[str, int, str], list[str]] = defaultdict(list)
    for task_id in ids:
        parts = id_parts(task_id)
        if parts[1] >= min_issues:
            bins[parts].append(task_id)
    chosen = []
    for key in sorted(bins):
        members = sorted(bins[key])
        chosen += random.Random(stable_seed(seed, "telecom-bin", *key)).sample(members, min(per_bin, len(members)))
    return chosen


def train_test(ids: Iterable[str], seed: int, train_share: float = 0.65) -> tuple[list[str], list[str]]:
    """A seeded partition stratified by (intent, number of issues, persona)."""
    bins: dict[tuple[str, int, str], list[str]] = defaultdict(list)
    for task_id in ids:
        bins[id_parts(task_id)].append(task_id)
    train: list[str] = []
    test: list[str] = []
    carry = 0.0
    for key in sorted(bins):
        members = sorted(bins[key])
        random.Random(stable_seed(seed, "telecom-split", *key)).shuffle(members)
        exact = len(members) * train_share + carry
        cut = int(exact + 0.5) if len(members) > 1 else int(exact >= 0.5)
        carry = exact - cut
        train += members[:cut]
        test += members[cut:]
    return sorted(train), sorted(test)


def telecom_splits(ids: Sequence[str], seed: int = 42, per_bin: int = 3) -> dict[str, list[str]]:
    """tau2's telecom splits over a task space: ``full`` (all), ``small`` (one issue), ``base`` (at most
    ``per_bin`` tasks with two or more issues per (intent, issues, persona) bin), ``train``/``test``
    (a stratified partition of ``base``)."""
    base = sorted(stratified_sample(ids, per_bin, seed, min_issues=2))
    train, test = train_test(base, seed)
    return {"full": list(ids), "small": [i for i in ids if id_parts(i)[1] == 1], "base": base,
            "train": train, "test": test}
