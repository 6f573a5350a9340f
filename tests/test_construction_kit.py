"""The construction kit of a hard bundle: files, contract, neutrality, determinism, the HyperTauTask file."""

from __future__ import annotations

import json

import yaml

from taugen import bundle_layout as layout
from taugen.build.construction.defects import DEFECT_KINDS
from taugen.build.construction.kit import SAMPLE_SCENARIOS
from taugen.generators.tasks import DEV_CUSTOMERS_LEAST, customers_by_split


def test_kit_has_every_part_of_the_construction_contract(built_bundle):
    hard = built_bundle("hard")
    for relative in ("kit/README.md", layout.OPENAPI, layout.DEV_SEED, layout.MANIFEST,
                     "kit/framework/agent_contract.md", "kit/framework/client_api_contract.md",
                     "kit/framework/scenario_contract.md", "kit/workspace/tools.py", "kit/workspace/agent.py",
                     layout.DEPLOYMENTS, layout.WORKSPACE_DEFECTS, layout.HYPERTAU_TASK):
        assert (hard / relative).is_file(), relative
    assert not (hard / "kit/records").exists() and any((hard / layout.RECORDS_DIR).iterdir())
    brief = (hard / "kit/README.md").read_text()
    for heading in ("## What success means", "## Required outputs", "## Simulation tools",
                    "## Performance requirements", "## Scoring"):
        assert heading in brief
    for word in ("hard", "medium", "tier", "variant", "fact", "test split"):
        assert f" {word} " not in brief.lower(), word


def test_openapi_has_every_tool_as_an_operation_with_error_envelope_and_enums(built_bundle):
    hard = built_bundle("hard")
    document = yaml.safe_load((hard / layout.OPENAPI).read_text())
    assert document["openapi"] == "3.1.0"
    tools = json.loads((hard / "kit/tools.json").read_text())
    operations = {op["operationId"]: op for methods in document["paths"].values() for op in methods.values()}
    assert set(operations) == {tool["function"]["name"] for tool in tools}
    for operation in operations.values():
        assert {"200", "400", "404", "409", "422"} <= set(operation["responses"]) and operation["description"]
    schemas = document["components"]["schemas"]
    assert schemas["ApiError"]["properties"]["error"]["properties"]["code"]["enum"]
    assert schemas["Account"]["properties"]["kind"]["enum"] == ["checking", "savings", "credit_card"]
    assert all(p.get("description") for p in schemas["Transaction"]["properties"].values())
    assert "x-api-pagination" in operations["list_transactions"]


def test_development_seed_is_another_world(built_bundle):
    hard = built_bundle("hard")
    seed = json.loads((hard / layout.DEV_SEED).read_text())
    evaluation = json.loads((hard / "tau2/domains/banking/db.json").read_text())
    assert set(seed) == set(evaluation)
    names = {(c["first_name"], c["last_name"]) for c in seed["customers"].values()}
    assert len(names & {(c["first_name"], c["last_name"]) for c in evaluation["customers"].values()}) < 5


def test_samples_come_from_the_dev_split_and_the_manifest_names_defects_only(built_bundle):
    hard = built_bundle("hard")
    splits = json.loads((hard / "tau2/domains/banking/split_tasks.json").read_text())
    dev = set(splits[layout.dev_split_name(splits)])
    sources = json.loads((hard / layout.SAMPLE_SOURCES).read_text())
    assert sources and set(sources.values()) <= dev and not set(sources.values()) & set(splits["test"])
    # the two splits' tasks are about different customers but where a dev-only problem fits no dev customer,
    # so most dev tasks may be shown, and every one whose customer has no sealed task is a sample candidate
    customer = lambda task_id: task_id.split("[CUSTOMER:")[1].split("]")[0]  # noqa: E731
    sealed = {customer(t) for t in splits["test"]}
    showable = {t for t in dev if customer(t) not in sealed}
    assert 2 * len(showable) >= len(dev) and set(sources.values()) <= showable
    assert len(sources) == min(SAMPLE_SCENARIOS, len(showable))
    assert len(list((hard / "kit/simulations").glob("sample_*.json"))) == len(sources)
    kit_text = "\n".join(p.read_text(errors="ignore") for p in (hard / "kit").rglob("*")
                         if p.is_file() and layout.RECORDS_DIR not in str(p))
    assert not any(task_id in kit_text for task_id in splits["test"])
    assert not any(kind in kit_text for kind in DEFECT_KINDS if "_" in kind)
    manifest = json.loads((hard / layout.MANIFEST).read_text())
    assert manifest["client_api"]["known_issues"] == [f"issue-{i:02d}" for i in range(1, 10)]
    assert manifest["agent_credit_budget"]["mean_credits_per_conversation"] > 0
    assert all(m["input_credits_per_million"] > 0 for m in manifest["allowed_models"])


def test_seeded_start_plants_fact_derived_defects(built_bundle):
    hard = built_bundle("hard")
    planted = json.loads((hard / layout.WORKSPACE_DEFECTS).read_text())
    kinds = [d["kind"] for d in planted["defects"]]
    assert {"stale_value", "misread_rule", "missing_branch"} <= set(kinds)
    manifest = json.loads((hard / "author/manifest.json").read_text())
    stale = next(d for d in planted["defects"] if d["kind"] == "stale_value")
    assert not manifest["facts"][stale["superseded_fact_id"]]["current"]
    assert stale["planted"] != stale["correct"]
    tools = (hard / layout.SEEDED_WORKSPACE / "tools.py").read_text()
    assert stale["planted"].lstrip("$") in tools and "def transfer_to_human_agents" not in tools
    compile(tools, "tools.py", "exec")
    compile((hard / layout.SEEDED_WORKSPACE / "agent.py").read_text(), "agent.py", "exec")
    assert "NotImplementedError" in (hard / "kit/workspace/agent.py").read_text()  # shipped: the scaffold


def test_hypertau_task_maps_fields_and_lists_the_rest(built_bundle):
    hard = built_bundle("hard")
    task = json.loads((hard / layout.HYPERTAU_TASK).read_text())
    splits = json.loads((hard / "tau2/domains/banking/split_tasks.json").read_text())
    assert task["hyper"]["test_task_ids"] == sorted(splits["test"])
    assert task["hyper"]["client_api_mode"] == "rest" and task["hyper"]["allowed_agent_models"]
    assert "live_experiment_task_ids" in task["unmapped"] and not set(task["unmapped"]) & set(task["hyper"])


def test_leakage_finds_sealed_ids_and_defect_kinds_planted_in_the_kit(built_bundle):
    from taugen.build.files import read_bundle
    from taugen.validators.bundle_view import BundleView
    from taugen.validators.leakage import _construction_findings

    hard = built_bundle("hard")
    files = {k: v for k, v in read_bundle(hard).items() if not k.startswith(layout.RECORDS_DIR)}
    assert _construction_findings(BundleView(files, source="clean")) == []
    splits = json.loads(files["tau2/domains/banking/split_tasks.json"])
    planted = dict(files)
    planted["kit/framework/README.md"] = files["kit/framework/README.md"] + (
        f"\nSee {splits['test'][0]}; list_transactions has silent_truncation.\n").encode()
    found = {f.message for f in _construction_findings(BundleView(planted, source="planted"))}
    assert any("a sealed task id" in m for m in found) and any("'silent_truncation'" in m for m in found)


def test_dev_and_test_tasks_are_about_different_customers():
    """A new user's hard kit (300 tasks over 40 customers) showed no sample scenario: every dev task's
    customer also had a sealed task, and the kit never shows such a customer. The splits now draw on
    different customers: a seeded tenth (at least two), the same at every run; a world too small to split
    shares its customers, and a build without dev tasks keeps them all for test."""
    customers = [f"C{n:05d}" for n in range(40)]
    split = customers_by_split(customers, 30, seed=0, tier="hard")
    assert len(split["dev"]) == 4 and len(split["test"]) == 36
    assert not set(split["dev"]) & set(split["test"]) and set(split["dev"]) | set(split["test"]) == set(customers)
    assert split == customers_by_split(customers, 30, seed=0, tier="hard")
    assert split["dev"] != customers_by_split(customers, 30, seed=1, tier="hard")["dev"]
    assert len(customers_by_split(customers[:10], 3, seed=0, tier="hard")["dev"]) == DEV_CUSTOMERS_LEAST
    small = customers[:2 * DEV_CUSTOMERS_LEAST - 1]
    assert customers_by_split(small, 3, seed=0, tier="hard") == {"dev": small, "test": small}
    assert customers_by_split(customers, 0, seed=0, tier="easy") == {"dev": customers, "test": customers}
