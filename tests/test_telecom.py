"""The telecom pack: τ²-bench's telecom task space reproduced, certified, validated and loadable by tau2.

Needs the ``tau2`` extra (``pip install taugen[tau2]``): the tasks are set up on tau2's environment.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from taugen.authoring.pack import load_pack
from taugen.build.pipeline import load_pack_only, validate_files
from taugen.domains.telecom import DOMAIN
from taugen.domains.telecom.build import compose_for_build, pick
from taugen.domains.telecom.check import replay_task
from taugen.domains.telecom.compose import (
    compositions,
    generate,
    id_parts,
    realise,
    telecom_splits,
)
from taugen.domains.telecom.env import TelecomToolkit, load_world
from taugen.domains.telecom.parity import (
    PACK_DIR,
    corrected,
    installed_tau2_tasks,
    parity_report,
)
from taugen.generators.tiers import tier
from taugen.findings import has_errors
from taugen.validators.sufficiency import named_tool_findings, named_tools

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "tau2" / "telecom"
SPLIT_FILE = FIXTURES / "split_tasks.json"
SMALL_FILE = FIXTURES / "tasks_small.json"
needs_fixtures = pytest.mark.skipif(not SPLIT_FILE.is_file(), reason="tau2 telecom fixtures not present")


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK_DIR)


@pytest.fixture(scope="module")
def current(pack):
    """Every task of tau2's current space (3,405), set up and certified once for the module."""
    return generate(pack, "current")


# ---------------------------------------------------------------------------- pack
def test_pack_lints_and_every_problem_names_real_facts_decisive_ones_typed():
    loaded, _ = load_pack_only(PACK_DIR)
    assert len(loaded.facts) >= 40
    assert str(loaded.now) == "2025-02-25 12:08:00-05:00"
    decisive = set()
    for problem in (DOMAIN.opening, *DOMAIN.problems):
        named = (*problem.facts, *problem.context_facts)
        assert named and set(named) <= set(loaded.facts), problem.name
        assert not set(problem.facts) & set(problem.context_facts), problem.name
        # a decisive fact needs a typed value a perturbation can move (free-text procedures are context)
        assert all(loaded.fact(f).value is not None and loaded.fact(f).value.type != "text"
                   for f in problem.facts), problem.name
        decisive |= set(problem.facts)
    assert decisive == {"data_refuel_max", "network_mode_for_speed", "no_resume_after_contract_end"}
    assert loaded.fact("data_refuel_max").value.canonical() == "2 GB"


def test_plan_facts_must_agree_with_the_database(pack):
    from taugen.errors import InputError
    from taugen.domains.telecom.build import check_pack_matches_world

    world = load_world()
    check_pack_matches_world(pack, world)
    world.agent.plans[1].data_limit_gb = 16.0
    with pytest.raises(InputError, match="plan_p1002_data_limit"):
        check_pack_matches_world(pack, world)


# ---------------------------------------------------------------------------- parity
@needs_fixtures
def test_every_released_id_is_reproduced_in_order_with_its_persona(pack):
    report = parity_report(SPLIT_FILE, SMALL_FILE, pack)
    assert report["released_ids"] == 2285 and report["matched"] == 2285
    assert report["missing"] == [] and report["extra"] == [] and report["same_order"]
    assert report["taugen_current"] == 3405
    assert report["current_minus_no_refuel_is_released"]
    small = report["small"]
    assert small["actions_equal"] == small["env_assertions_equal"] == small["all_fields_equal"] == 20, small


@needs_fixtures
def test_small_tasks_match_field_for_field(pack):
    theirs = json.loads(SMALL_FILE.read_text())
    by_id = {c.task_id: c for c in compositions("current")}
    ours = {r.task_id: r.to_tau2() for r in realise([by_id[t["id"]] for t in theirs], pack)}
    for task in theirs:
        mine = ours[task["id"]]
        assert mine["evaluation_criteria"]["actions"] == task["evaluation_criteria"]["actions"]
        assert mine["evaluation_criteria"]["env_assertions"] == task["evaluation_criteria"]["env_assertions"]
        assert mine["initial_state"] == task["initial_state"]
        assert mine == corrected(task)
        text = mine["user_scenario"]["instructions"]["task_instructions"]
        assert "`check_status_bar`" in text and "get_status_bar" not in text


def test_whole_space_is_certified_and_released_tasks_equal_tau2s(current):
    assert len(current) == 3405
    assert [r.task_id for r in current] == [c.task_id for c in compositions("current")]
    bad = [r.certificate for r in current if not r.certificate.ok]
    assert not bad, bad[:2]
    transfers = [r for r in current if not r.certificate.fixable]
    assert transfers and all(r.reward_basis == ["ENV_ASSERTION", "ACTION"] for r in transfers)
    assert all(r.gold[0][1].name == "transfer_to_human_agents" and len(r.gold) == 1 for r in transfers)
    assert Counter(id_parts(r.task_id)[0] for r in current) == {"mms_issue": 2976, "mobile_data_issue": 382,
                                                                 "service_issue": 47}
    released = installed_tau2_tasks()
    if released is None:
        pytest.skip("tau2's full tasks.json is not installed")
    ours = {r.task_id: r for r in current}
    different = [t["id"] for t in released if ours[t["id"]].to_tau2() != corrected(t)]
    assert not different, different[:3]


def test_process_pool_gives_the_same_tasks(pack, current):
    from taugen.domains.telecom.compose import generate_tau2

    items = compositions("current")[:600]
    pooled = realise(items, pack, workers=2)
    assert [r.to_tau2() for r in pooled] == [r.to_tau2() for r in current[:600]]
    tasks, certificates = generate_tau2(pack, "released", workers=2)
    assert len(tasks) == 2285 and all(c["ok"] for c in certificates)


# ---------------------------------------------------------------------------- certificates
def test_certificate_and_replay_catch_broken_gold(current, pack):
    task = next(r for r in current if r.task_id == "[service_issue]overdue_bill_suspension[PERSONA:Easy]").to_tau2()
    now = pack.now
    frozen = TelecomToolkit(load_world(), now).freeze()
    assert replay_task(frozen, task, now)[0] == []
    no_reboot = copy.deepcopy(task)
    no_reboot["evaluation_criteria"]["actions"].pop()  # the reboot after resuming the line
    assert any("do not reach the goal" in p for p in replay_task(frozen, no_reboot, now)[0])
    extra = copy.deepcopy(task)
    extra["evaluation_criteria"]["actions"].append({"action_id": "reboot_device_4", "requestor": "user",
                                                    "name": "reboot_device", "arguments": {}})
    assert any("not needed" in p for p in replay_task(frozen, extra, now)[0])
    wrong_actor = copy.deepcopy(task)
    wrong_actor["evaluation_criteria"]["actions"][1]["requestor"] = "assistant"  # make_payment is the user's
    assert any("failed" in p for p in replay_task(frozen, wrong_actor, now)[0])


def test_unfixable_issue_really_blocks_the_goal(current):
    record = next(r for r in current if r.task_id.startswith("[service_issue]airplane_mode_on|lock_sim_card_pin["))
    certificate = record.certificate
    assert not certificate.fixable and certificate.ok
    assert certificate.unmet_after_setup and not certificate.forbidden_writes_not_caught
    assert not certificate.do_nothing_passes  # the transfer is graded


# ---------------------------------------------------------------------------- fact sensitivity
@pytest.fixture(scope="module")
def proven(pack):
    """Every task of tau2's current space with the fact-sensitivity proofs a build makes."""
    return realise(compositions("current"), pack, proofs=True)


def test_every_task_of_the_space_proves_the_facts_it_declares(proven, current):
    assert [r.to_tau2() for r in proven] == [r.to_tau2() for r in current]  # proofs change no task
    assert all(r.certificate.ok and not r.certificate.insensitive_facts for r in proven)
    rows = Counter((row["fact"], row["original"], row["perturbed"], row["changed"])
                   for r in proven for row in r.certificate.sensitivity)
    assert rows == {("network_mode_for_speed", "4g_5g_preferred", "4g only", "same_world"): 1152,
                    ("data_refuel_max", "2 GB", "3 GB", "same_world"): 1120,  # the refuel the gold makes
                    ("data_refuel_max", "2 GB", "3 GB", "db_hash"): 1120,  # the refuel the setup already made
                    ("no_resume_after_contract_end", "may not lift a suspension", "true", "same_world"): 8}
    assert all([row["fact"] for row in r.certificate.sensitivity] == r.facts for r in proven)
    assert sum(not r.facts for r in proven) == 581


def test_a_task_declares_only_the_facts_that_decide_its_gold(proven):
    by_id = {r.task_id: r for r in proven}

    def find(prefix):
        return next(r for task_id, r in by_id.items() if task_id.startswith(prefix))

    alone = find("[service_issue]contract_end_suspension[")
    assert alone.facts == ["no_resume_after_contract_end"] and alone.gold[0][1].name == "transfer_to_human_agents"
    # two issues withhold a fix: allowing a resume after the contract end would still leave the PIN lock
    both = find("[service_issue]contract_end_suspension|lock_sim_card_pin[")
    assert both.facts == [] and "no_resume_after_contract_end" in both.context_facts
    # a transfer task withholds the network fix: the speed mode decides nothing there
    blocked = find("[mobile_data_issue]bad_network_preference|data_usage_exceeded_no_refuel[")
    assert blocked.facts == ["data_refuel_max"] and "network_mode_for_speed" in blocked.context_facts
    fixed = find("[mobile_data_issue]bad_network_preference|data_usage_exceeded[")
    assert fixed.facts == ["data_refuel_max", "network_mode_for_speed"]
    assert {"identify_customer_first", "data_refuel_steps", "plan_p1002_data_limit"} <= set(fixed.context_facts)
    assert "transfer_procedure" not in fixed.context_facts  # only the problems of the task are followed


def test_contract_end_fact_decides_whether_the_task_is_a_transfer(pack):
    from dataclasses import replace

    item = next(c for c in compositions("current") if c.issues == ("contract_end_suspension",))
    fact = pack.facts["no_resume_after_contract_end"]
    allowed = replace(pack, facts={**pack.facts, fact.id: fact.model_copy(
        update={"value": fact.value.model_copy(update={"value": True})})})
    (record,) = realise([item], allowed)
    assert [call.name for _, call in record.gold] == ["send_payment_request", "make_payment", "resume_line",
                                                       "reboot_device"]
    assert record.certificate.fixable


def test_a_declared_fact_the_gold_does_not_turn_on_is_k12(built_bundle):
    bundle = built_bundle("easy", domain="telecom")
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    certificates = json.loads(files["author/certificates.json"])
    proven = {t: [r["fact"] for r in c["sensitivity"]] for t, c in certificates.items() if c["sensitivity"]}
    assert len(proven) == 5 and all(c["ok"] for c in certificates.values())
    assert not [f for f in validate_files(files, "<test>") if f.code == "K12"]
    declared = json.loads(files["author/task_facts.json"])
    task_id = "[service_issue]airplane_mode_on[PERSONA:None]"
    declared[task_id]["facts"] = ["roaming_free_of_charge"]  # typed, in the pack, but nothing here reads it
    planted = dict(files, **{"author/task_facts.json": json.dumps(declared).encode()})
    k12 = [f for f in validate_files(planted, "<test>") if f.code == "K12"]
    assert [(f.subject, f.severity) for f in k12] == [(task_id, "error")]
    assert "roaming_free_of_charge" in k12[0].message
    stale = copy.deepcopy(certificates)  # a proof made for another value of the fact than the bundle's
    task_id, facts = min(proven.items())
    stale[task_id]["sensitivity"][0]["original"] = "1 GB"
    planted = dict(files, **{"author/certificates.json": json.dumps(stale).encode()})
    k12 = [f for f in validate_files(planted, "<test>") if f.code == "K12"]
    assert [(f.subject, f.severity) for f in k12] == [(task_id, "error")] and facts[0] in k12[0].message


def test_coverage_says_why_a_telecom_fact_decides_no_task(built_bundle, pack):
    from taugen.domains.telecom.build import unexercisable

    reasons = unexercisable(pack)
    assert len(reasons) == len(pack.facts) - 3  # all but the three decisive facts
    assert reasons["one_bill_awaiting_payment"].startswith("tau2's send_payment_request enforces")
    assert reasons["plan_p1005_refuel_price"].startswith("the world's plans are tau2's database")
    assert reasons["transfer_procedure"] == (
        "free text: no typed value a perturbation could change (procedure or context); followed as context by "
        "contract_end_suspension, data_usage_exceeded_no_refuel, lock_sim_card_pin")
    bundle = built_bundle("easy", domain="telecom")
    coverage = json.loads((bundle / "author" / "coverage.json").read_text())
    assert coverage["summary"]["facts_exercised"] == 3 and coverage["unexercisable"] == reasons


# ---------------------------------------------------------------------------- splits and sampling
def test_splits_are_stratified_seeded_and_partition_base():
    ids = [c.task_id for c in compositions("released")]
    splits = telecom_splits(ids, seed=42)
    assert len(splits["full"]) == 2285 and len(splits["small"]) == 20
    bins = Counter(id_parts(i) for i in splits["base"])
    assert max(bins.values()) <= 3 and all(n >= 2 for _, n, _ in bins)
    assert len(bins) == len({id_parts(i) for i in ids if id_parts(i)[1] >= 2})
    assert sorted(splits["train"] + splits["test"]) == sorted(splits["base"])
    assert not set(splits["train"]) & set(splits["test"])
    assert telecom_splits(ids, seed=42) == splits and telecom_splits(ids, seed=7)["base"] != splits["base"]


def test_tier_selection_follows_issue_counts(pack):
    pool = [c for c in compositions("current") if len(c.issues) == 2]
    chosen = pick(pool, 45, seed=0)
    assert len(chosen) == 45 and len(set(chosen)) == 45
    assert chosen == pick(pool, 45, seed=0)
    assert {c.intent for c in chosen} == {"service_issue", "mobile_data_issue", "mms_issue"}
    easy = compose_for_build(DOMAIN, pack, load_world(), tier("easy"), 0)
    assert len(easy) == 21 and all(len(r.issues) == 1 for r in easy)


# ---------------------------------------------------------------------------- validator K16
@needs_fixtures
def test_sufficiency_flags_tau2s_get_status_bar_text(current):
    agent, user = TelecomToolkit.tool_specs(), TelecomToolkit.user_tool_specs()
    theirs = json.loads(SMALL_FILE.read_text())
    flagged = [f for task in theirs for f in named_tool_findings(task, agent, user)]
    assert len(flagged) == 20 and all("get_status_bar" in f.message and f.severity == "error" for f in flagged)
    assert not [f for r in current[:300] for f in named_tool_findings(r.to_tau2(), agent, user)]
    assert named_tools("use `check_sim_status()` then toggle_data() or the reboot_device tool") == [
        "check_sim_status", "toggle_data", "reboot_device"]
    agent_only = {"id": "x", "user_scenario": {"instructions": {"task_instructions": "call `refuel_data` yourself"}}}
    assert "agent tool" in named_tool_findings(agent_only, agent, user)[0].message


# ---------------------------------------------------------------------------- build
def test_build_telecom_easy_validates_and_loads_in_tau2(built_bundle):
    bundle = built_bundle("easy", domain="telecom")
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    findings = validate_files(files, str(bundle))
    assert not has_errors(findings), [f for f in findings if f.severity == "error"][:3]
    runtime = "tau2/domains/telecom/"
    assert {f"{runtime}{name}" for name in ("db.toml", "user_db.toml", "main_policy.md", "tech_support_manual.md",
                                            "tasks.json", "split_tasks.json")} <= set(files)
    assert f"{runtime}db.json" not in files
    tasks = json.loads(files[f"{runtime}tasks.json"])
    assert len(tasks) == 21 and all(t["initial_state"]["initialization_actions"] for t in tasks)
    from tau2.registry import registry

    from taugen.build import tau2_runtime

    rows = tau2_runtime.check_bundle(bundle)  # tau2's own telecom environment, reading the bundle's files
    assert len(rows) == 21 and [r.task_id for r in rows if not r.ok] == []
    assert len(tau2_runtime.load_with_tau2(bundle, "base")) == 21
    with tau2_runtime.tau2_data_paths(bundle) as domain:
        policy = registry.get_env_constructor(domain)().get_policy()
    for name in ("main_policy.md", "tech_support_manual.md"):  # tau2 composes the agent policy from both files
        assert (bundle / runtime / name).read_text().strip() in policy


def test_telecom_duplicate_task_is_reported_as_k19(built_bundle):
    bundle = built_bundle("easy", domain="telecom")
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    path = "tau2/domains/telecom/tasks.json"
    tasks = json.loads(files[path])
    twin = copy.deepcopy(tasks[0])
    twin["id"] = tasks[0]["id"] + "[COPY]"
    instructions = twin["user_scenario"]["instructions"]
    instructions["task_instructions"] = "  " + instructions["task_instructions"].upper().replace(". ", ".\n")
    files[path] = json.dumps(tasks + [twin]).encode()
    k19 = [f for f in validate_files(files, "<test>") if f.code == "K19"]
    assert [(f.subject, f.severity) for f in k19] == [(twin["id"], "error")] and tasks[0]["id"] in k19[0].message
