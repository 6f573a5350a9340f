"""How ``taugen build telecom`` uses the telecom domain: world, task selection per tier, runtime files.

* world: tau2's telecom databases (:func:`build_world`; the seed changes nothing, the world is tau2's);
* tasks: the ``current`` task space (3,405 tasks), restricted to the tier's issue counts, sampled
  round-robin over (intent, number of issues, persona) bins with the build seed, each task set up and
  certified on tau2's environment;
* runtime files: what tau2's telecom loader reads: ``db.toml``, ``user_db.toml``, ``main_policy.md``,
  ``tech_support_manual.md``, ``tasks.json`` and ``split_tasks.json`` (``base``, ``full``, ``small``,
  ``train``, ``test``); there is no ``db.json``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from decimal import Decimal
from typing import Any

from taugen.authoring.models import DomainConfig
from taugen.authoring.pack import Pack
from taugen.hashing import json_bytes
from taugen.errors import InputError
from taugen.hashing import stable_seed
from taugen.domains.telecom.compose import (
    Composition,
    TelecomTaskRecord,
    compositions,
    id_parts,
    realise,
    train_test,
)
from taugen.domains.telecom.env import (
    TelecomToolkit,
    TelecomWorld,
    load_world,
    raw_databases,
)
from taugen.domains.telecom.problems import (
    PROBLEMS,
    TYPED_CONTEXT,
    CallerOnLine,
)
from taugen.generators.tiers import TierPreset


def build_world(config: DomainConfig, seed: int) -> TelecomWorld:
    """tau2's telecom world (fixed: the tasks are defined against it)."""
    return load_world()


def check_pack_matches_world(pack: Pack, world: TelecomWorld) -> None:
    """The plan facts must state what the database holds (one fact, one value: defect kind K13).

    Raises:
        InputError: at the fact, naming the database value.
    """
    for plan in world.agent.plans:
        key = plan.plan_id.lower()
        expected = {f"plan_{key}_data_limit": Decimal(str(plan.data_limit_gb)),
                    f"plan_{key}_monthly_price": Decimal(str(plan.price_per_month)),
                    f"plan_{key}_refuel_price": Decimal(str(plan.data_refueling_price_per_gb))}
        for fact_id, amount in expected.items():
            if fact_id not in pack.facts:
                raise InputError(f"the pack has no fact '{fact_id}' for plan {plan.plan_id}", pack.directory)
            value = pack.fact(fact_id).value
            if value is None or Decimal(str(value.amount)) != amount:  # type: ignore[union-attr]
                where = pack.location(fact_id)
                raise InputError(f"states {value.canonical() if value else None} but the database has {amount} "
                                 f"for plan {plan.plan_id}", where.file if where else pack.directory,
                                 where.line if where else None, fact_id)


def unexercisable(pack: Pack) -> dict[str, str]:
    """Why no telecom task declares a fact: fact id → reason, for every fact no problem counts among its
    decisive ``facts`` (``DomainDefinition.unexercisable``; a decisive fact that no drawn task holds gets the
    coverage report's own reason). Free text is context; a typed fact's reason is in
    :data:`~taugen.domains.telecom.problems.TYPED_CONTEXT`.

    Raises:
        KeyError: a typed fact is neither decisive nor explained there (a new fact needs a reason or a task).
    """
    problems = (CallerOnLine, *PROBLEMS)
    decisive = {fact for problem in problems for fact in problem.facts}
    reasons = {}
    for fact in pack.facts.values():
        if fact.id in decisive:
            continue
        followed = sorted(p.name for p in problems if fact.id in p.context_facts)
        if fact.value is None or fact.value.type == "text":
            reason = "free text: no typed value a perturbation could change (procedure or context)"
        else:
            key = (fact.id if fact.id in TYPED_CONTEXT else fact.family if fact.family in TYPED_CONTEXT
                   else "plan" if fact.id.startswith("plan_") else fact.id)
            reason = TYPED_CONTEXT[key]
        reasons[fact.id] = reason + (f"; followed as context by {', '.join(followed)}" if followed else "")
    return reasons


def pick(pool: list[Composition], count: int, seed: int) -> list[Composition]:
    """Up to ``count`` compositions, round-robin over (intent, issues, persona) bins in sorted order,
    each bin shuffled with a seed of its own."""
    bins: dict[tuple[str, int, str], list[Composition]] = defaultdict(list)
    for item in pool:
        bins[(item.intent, len(item.issues), item.persona)].append(item)
    queues = []
    for key in sorted(bins):
        members = sorted(bins[key], key=lambda c: c.task_id)
        random.Random(stable_seed(seed, "telecom-pick", *key)).shuffle(members)
        queues.append(members)
    chosen: list[Composition] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen


def compose_for_build(definition: Any, pack: Pack, world: TelecomWorld, preset: TierPreset,
                      seed: int) -> list[TelecomTaskRecord]:
    """The tier's telecom tasks, certified, sorted by id (``DomainDefinition.compose``).

    The tier's ``problems_per_task`` bounds the number of issues; its ``tasks`` caps the count. tau2's
    persona scheme (None / Easy / Hard, by position in the task space) is kept, so the tier's persona
    names are not used. Every task's certificate proves the facts the task declares (``proofs``).
    """
    from taugen.generators.tasks import check_problem_facts

    check_problem_facts(definition, pack)
    check_pack_matches_world(pack, world)
    low, high = preset.problems_per_task
    pool = [c for c in compositions("current") if low <= len(c.issues) <= high]
    records = realise(pick(pool, preset.tasks, seed), pack, world, proofs=True)
    return sorted(records, key=lambda r: r.task_id)


def bundle_splits(task_ids: list[str], seed: int) -> dict[str, list[str]]:
    """Splits of a bundle: ``base`` and ``full`` (every task), ``small`` (one issue), ``train``/``test``
    (stratified by intent, issues and persona)."""
    ids = sorted(task_ids)
    train, test = train_test(ids, seed)
    return {"base": ids, "full": ids, "small": [i for i in ids if id_parts(i)[1] == 1], "train": train, "test": test}


def device_actions() -> str:
    """The technical support manual's list of what the user can do on the device (from the user tools)."""
    lines = ["# Technical support manual", "",
             ("The user's phone is in the user's hands. These are the actions the user can take on it; guide the "
              "user through them by name. Read actions only report; write actions change the phone."), ""]
    for kind, title in (("read", "Diagnostic actions (read-only)"), ("write", "Fix actions (write)")):
        lines += [f"## {title}", ""]
        specs = [s for s in TelecomToolkit.user_tool_specs().values() if s.kind == kind]
        for number, spec in enumerate(specs, 1):
            params = ", ".join(f"{name}: {annotation}" for name, annotation in spec.parameters.items())
            summary = " ".join(spec.description.split())
            lines.append(f"{number}. **{spec.name}({params})** - {summary}")
        lines.append("")
    return "\n".join(lines)


def runtime_files(pack: Pack, world: Any, tasks: list[TelecomTaskRecord], policy_text: str,
                  seed: int) -> dict[str, bytes | None]:
    """Files of ``tau2/domains/telecom/`` for tau2's telecom loader (``DomainDefinition.runtime_files``)."""
    import toml

    agent_db, user_db = raw_databases()
    return {
        "db.json": None,
        "db.toml": toml.dumps(agent_db).encode(),
        "user_db.toml": toml.dumps(user_db).encode(),
        "main_policy.md": policy_text.encode(),
        "tech_support_manual.md": device_actions().encode(),
        "split_tasks.json": json_bytes(bundle_splits([t.task_id for t in tasks], seed)),
    }
