"""The construction kit: what a developer agent gets to build a bank's customer-service agent.

Written at the medium and hard tiers (:data:`layout.CONSTRUCTION_TIERS`), beside the records::

    kit/README.md                         the brief (what success means, outputs, tools, budget, scoring)
    kit/uploaded_materials/<digest>.<ext> the records (written by assemble.py)
    kit/client_api/openapi.yaml           the client API contract (OpenAPI 3.1, from the toolkit)
    kit/client_api/development_seed.json  a development database: a differently seeded world
    kit/framework/README.md, agent_contract.md, client_api_contract.md, scenario_contract.md
    kit/framework/deployment_manifest.json  models + credit rates, credit budget, latency, issue names
    kit/workspace/tools.py, agent.py      an empty scaffold (or, with seeded=True, a starting implementation)
    kit/simulations/<n>.json              sample scenarios from the dev split only

and, author side, ``author/client_api/deployments.json`` (each deployment's defects with the fix the
client confirms), ``author/workspace_defects.json`` (the defects planted in a seeded start, each
derived from a fact), ``author/seeded_workspace/`` (the seeded start, also when the kit ships the empty
scaffold, so an evaluator can score it) and ``author/hypertau_task.json``.

The layout and the brief follow τ^τ-bench's construction kit (sierra-research/hyper-tau-bench,
``src/tau2/hyper/sandbox/kit.py``); the kit never names tiers, facts, variants or the sealed split.
"""

from __future__ import annotations

import random
from typing import Any

import jinja2

from taugen.authoring.pack import Pack
from taugen import bundle_layout as layout
from taugen.build.construction.defects import FULL_DEPLOYMENT, deployments
from taugen.build.construction.openapi import openapi_document, openapi_yaml
from taugen.build.construction.workspace import seeded_workspace, scaffold_workspace
from taugen.hashing import BundleFiles, json_bytes
from taugen.hashing import stable_seed
from taugen.generators.corpus.vocabulary import business_words
from taugen.generators.domain import DomainDefinition
from taugen.generators.environment import deep_merge
from taugen.generators.tasks import TaskRecord
from taugen.generators.tiers import TierPreset

SAMPLE_SCENARIOS = 5
"""How many dev-split tasks the kit shows as sample scenarios."""

# Model menus (credits per million tokens, frozen rate card). The kit lists one menu and never its name.
_RATE_CARD_DATE = "2026-08-23"
_MENUS: dict[str, list[dict[str, Any]]] = {
    "medium": [
        {"model": "gpt-4.1", "input_credits_per_million": 2.0, "output_credits_per_million": 8.0},
        {"model": "claude-sonnet-4-5", "input_credits_per_million": 3.0, "output_credits_per_million": 15.0},
        {"model": "gpt-4.1-mini", "input_credits_per_million": 0.4, "output_credits_per_million": 1.6},
        {"model": "gemini-2.5-flash", "input_credits_per_million": 0.3, "output_credits_per_million": 2.5},
    ],
    "hard": [
        {"model": "gpt-4.1-mini", "input_credits_per_million": 0.4, "output_credits_per_million": 1.6},
        {"model": "gpt-4o-mini", "input_credits_per_million": 0.15, "output_credits_per_million": 0.6},
        {"model": "claude-haiku-4-5", "input_credits_per_million": 1.0, "output_credits_per_million": 5.0},
        {"model": "gemini-2.5-flash-lite", "input_credits_per_million": 0.1, "output_credits_per_million": 0.4},
    ],
}
# Mean credits per conversation (τ^τ's banking budgets: medium 0.60, hard 0.085).
_BUDGETS = {"medium": 0.60, "hard": 0.085}
_LATENCY = [{"id": "latency_p50", "percentile": 50, "max_seconds": 10.0},
            {"id": "latency_p90", "percentile": 90, "max_seconds": 30.0}]


def list_sizes(toolkit_class, world_json: dict[str, Any], now) -> dict[str, int]:
    """List tool → the most items it returns for one id of the database (tools whose one required
    parameter is a ``<table>_id``; others count 0)."""
    database = toolkit_class.db_model.model_validate(world_json)
    keys: dict[str, list[str]] = {}
    for table, rows in world_json.items():
        for key, row in (rows.items() if isinstance(rows, dict) else []):
            for field_name, value in row.items():
                if field_name.endswith("_id") and value == key:
                    keys.setdefault(field_name, []).append(key)
                    break
    sizes: dict[str, int] = {}
    toolkit = toolkit_class(database, now)
    for name, spec in toolkit_class.tool_specs().items():
        if spec.kind != "read" or len(spec.required) != 1 or spec.required[0] not in keys:
            continue
        best = 0
        for key in keys[spec.required[0]]:
            output = toolkit.call(name, **{spec.required[0]: key}).output
            if isinstance(output, list):
                best = max(best, len(output))
        sizes[name] = best
    return sizes


def customer_slice(database: dict[str, Any], customer_table: str, customer_id: str) -> dict[str, Any]:
    """Every record of ``database`` about one customer: the customer, records naming the customer's id,
    and (transitively) records naming the ids of those records. Tables stay dicts keyed by id.

    Shapes: ``database`` is ``{table: {id: record dict}}``; returns the same shape, only non-empty tables.
    """
    wanted = {customer_id}
    chosen: dict[str, dict[str, Any]] = {}
    changed = True
    while changed:
        changed = False
        for table, rows in database.items():
            if not isinstance(rows, dict):
                continue
            for key, row in rows.items():
                if key in chosen.get(table, {}) or not isinstance(row, dict):
                    continue
                values = {v for v in row.values() if isinstance(v, str)}
                if key in wanted or (values & wanted and table != customer_table):
                    chosen.setdefault(table, {})[key] = row
                    wanted.add(key)
                    changed = True
    return {table: dict(sorted(rows.items())) for table, rows in sorted(chosen.items())}


def sample_scenarios(tasks: list[TaskRecord], dev_ids: list[str], sealed_ids: list[str], world_json: dict[str, Any],
                     domain: str, customer_table: str, seed: int) -> dict[str, dict[str, Any]]:
    """Up to :data:`SAMPLE_SCENARIOS` dev-split tasks as scenario files (``scenario_contract.md``).

    Each carries the records of its customer with the task's set-up applied (``database: scenario_only``),
    its user scenario and its evaluation criteria; task descriptions (which name rules) are left out.
    A dev task whose customer is also a sealed task's customer is never shown (its records would show
    that task's set-up).
    """
    by_id = {task.task_id: task for task in tasks}
    sealed_customers = {by_id[i].customer_id for i in sealed_ids if i in by_id}
    chosen = sorted(i for i in dev_ids if i in by_id and by_id[i].customer_id not in sealed_customers)
    random.Random(stable_seed(seed, "sample-scenarios")).shuffle(chosen)
    scenarios = {}
    for index, task_id in enumerate(sorted(chosen[:SAMPLE_SCENARIOS]), start=1):
        task = by_id[task_id]
        tau2 = task.to_tau2(domain)
        state = deep_merge(world_json, task.patch)
        scenarios[f"sample_{index:02d}.json"] = {
            "id": f"sample_{index:02d}", "database": "scenario_only", "_source": task_id,
            "initial_state": {"initialization_data": {"agent_data": customer_slice(state, customer_table,
                                                                                   task.customer_id)}},
            "user_scenario": tau2["user_scenario"], "evaluation_criteria": tau2["evaluation_criteria"]}
    return scenarios


def construction_files(pack: Pack, domain: DomainDefinition, preset: TierPreset, seed: int,
                       world_json: dict[str, Any], tasks: list[TaskRecord], splits: dict[str, list[str]],
                       client: bool, record_count: int, record_kinds: str, policy_text: str,
                       templates: jinja2.Environment, seeded: bool = False) -> BundleFiles:
    """Every construction-kit file (kit and author side) of one bundle; see the module docstring.

    Args:
        world_json: the evaluation database (tau2 ``db.json``).
        splits: the bundle's ``split_tasks.json``; the kit shows only the dev split (or its stand-in).
        client: whether the bank's operations lead holds rules the records do not state.
        seeded: ship the seeded starting implementation in ``kit/workspace/`` instead of the scaffold.
    """
    config = pack.config
    files: BundleFiles = {}
    toolkit = domain.toolkit
    development = domain.build_world(config, stable_seed(seed, "development-seed") % 1_000_000)
    document = openapi_document(
        toolkit, title=f"{config.brand} client API", version=config.version,
        description=f"The operations {config.brand}'s customer-service systems expose to agents. Every "
                    "operation acts on the bank's records as of the bank's clock.",
        db=development, now=pack.now)
    files[layout.OPENAPI] = openapi_yaml(document)
    files[layout.DEV_SEED] = json_bytes(development.model_dump(mode="json"))
    deployed = deployments(document, seed, config.version, list_sizes(toolkit, world_json, pack.now))
    files[layout.DEPLOYMENTS] = json_bytes({name: d.model_dump(mode="json") for name, d in deployed.items()})
    full = deployed[FULL_DEPLOYMENT]
    menu = _MENUS.get(preset.name, _MENUS["medium"])
    budget = _BUDGETS.get(preset.name, _BUDGETS["medium"])
    manifest = {
        "client_api": {"contract": "client_api/openapi.yaml", "published_version": config.version,
                       "deployment": full.name, "deployed_version": full.version,
                       "known_issues": [d.name for d in full.defects],
                       "known_issues_note": "The deployment is known to differ from the contract in the listed "
                                            "ways; which operations and how is for you to find out."},
        "deployment": full.name,
        "allowed_models": menu, "rate_card_date": _RATE_CARD_DATE,
        "credit_unit": "credits per million tokens; one credit is one US dollar",
        "agent_credit_budget": {"id": "credits", "measurement": "agent_model_calls",
                                "mean_credits_per_conversation": budget},
        "latency_limits": [{**limit, "measurement": "agent_generate_next_message"} for limit in _LATENCY],
        "scoring": {"final_score": "mean task reward minus mean per-conversation fraction over the credit "
                                   "budget, floored at 0", "latency": "p50 and p90 limits are hard gates"},
    }
    files[layout.MANIFEST] = json_bytes(manifest)
    dev_name = layout.dev_split_name(splits)
    scenarios = sample_scenarios(tasks, splits.get(dev_name, []), splits.get(layout.SEALED_SPLIT, []), world_json,
                                 config.domain, domain.customer_table, seed)
    sources = {name: scenario.pop("_source") for name, scenario in scenarios.items()}
    files[layout.SAMPLE_SOURCES] = json_bytes(sources)
    for name, scenario in scenarios.items():
        files[f"{layout.SIMULATIONS}/{name}"] = json_bytes(scenario)
    kinds = sorted({label for task in tasks for label in _case_kinds(task)})
    context = {"brand": config.brand, "record_count": record_count, "record_kinds": record_kinds, "client": client,
               "now": pack.now.isoformat(), "operations": len(document["paths"]), "models": menu, "budget": budget,
               "latency": _LATENCY, "issues": len(full.defects), "samples": sorted(scenarios), "case_kinds": kinds,
               "max_limit": 100, **business_words(pack)}
    files["kit/README.md"] = templates.get_template("kit/construction_README.md.j2").render(**context).encode()
    for name in ("README.md", "agent_contract.md", "client_api_contract.md", "scenario_contract.md"):
        files[f"{layout.FRAMEWORK}/{name}"] = templates.get_template(f"kit/framework/{name}.j2").render(
            **context).encode()
    seeded_files, planted = seeded_workspace(pack, document, _exercised(tasks))
    for name, data in sorted(seeded_files.items()):
        files[f"{layout.SEEDED_WORKSPACE}/{name}"] = data
    shipped = seeded_files if seeded else scaffold_workspace()
    for name, data in sorted(shipped.items()):
        files[f"{layout.WORKSPACE}/{name}"] = data
    files[layout.WORKSPACE_DEFECTS] = json_bytes({"shipped": "seeded" if seeded else "scaffold",
                                                  "defects": planted})
    from taugen.build.construction.hypertau import hypertau_task

    files[layout.HYPERTAU_TASK] = json_bytes(hypertau_task(pack, preset, splits, manifest, full, scenarios, seeded))
    return files


def _case_kinds(task: TaskRecord) -> list[str]:
    """Kinds of evaluation case a task is (words the brief may use; no tier, fact or variant names)."""
    kinds = ["routine"] if len(task.problems) <= 2 else ["multi-intent"]
    outcomes = set(task.outcomes.values()) if task.outcomes else set()
    if any("refus" in o or "declin" in o for o in outcomes):
        kinds.append("declined")
    if any("transfer" in o for o in outcomes) or any("transfer" in name for name, _ in
                                                      [(c.name, c) for _, c in task.gold]):
        kinds.append("redirected")
    return kinds


def _exercised(tasks: list[TaskRecord]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for task in tasks:
        for fact_id in task.facts:
            counts[fact_id] = counts.get(fact_id, 0) + 1
    return counts
