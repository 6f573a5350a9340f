"""The retail pack: tau2's retail policy as facts, tau2's retail tools over a tau2-shaped world, problems whose
gold the facts decide, a bundle tau2's own retail environment grades (gold 1.0, doing nothing 0.0).

The build test makes a small easy bundle (12 tasks) with one worker and grades every task in tau2; the
mutation run and the medium builds are ``slow``.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from taugen.authoring.pack import load_pack, packs
from taugen.domains.retail import DOMAIN, REQUEST_WORDS
from taugen.domains.retail.policy import RULES
from taugen.domains.retail.problems import PROBLEMS
from taugen.domains.retail.tools import RetailTools
from taugen.generators.environment import deep_merge, dict_hash
from taugen.generators.policy import PackFacts, evaluate
from taugen.generators.problems import ProblemContext
from taugen.generators.tasks import _set_up, realise_task

ROOT = Path(__file__).resolve().parents[1]
PACK_DIR = ROOT / "taugen" / "domains" / "retail"
FIXTURE = Path("/work/shared/fixtures/tau2/retail")


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK_DIR)


@pytest.fixture(scope="module")
def world(pack):
    return DOMAIN.build_world(pack.config, 0)


def _customer(world, problem, now=None):
    toolkit = RetailTools(world, now)
    return next(user for user in sorted(world.users) if problem().applicable(toolkit, user))


def _start(pack, world, record):
    """The database a task starts from: the world with the task's patch laid over."""
    return DOMAIN.toolkit.db_model.model_validate(deep_merge(world.model_dump(mode="json"), record.patch))


# ---------------------------------------------------------------------------- pack
def test_pack_holds_every_policy_rule_as_a_typed_fact(pack):
    assert packs()["retail"] == PACK_DIR
    assert len(pack.facts) == 145
    assert {f.section for f in pack.facts.values()} == {s.id for s in pack.config.sections}
    assert len(pack.config.sections) == 15
    typed = [f for f in pack.facts.values() if f.value is not None and f.value.type != "text"]
    assert len(typed) == 88
    assert pack.fact("cancel_refund_other_methods_business_days").value.canonical() == "7 business days"
    assert int(pack.fact("product_type_count").value.value) == 50
    assert int(pack.fact("modify_items_once").value.amount) == 1
    assert pack.fact("return_refund_no_other_method").value.value is False
    assert pack.fact("return_ship_back_window").value.canonical() == "14 days"
    assert pack.fact("gift_card_no_expiry").value.value is False
    assert int(pack.fact("delivered_order_one_return_or_exchange").value.amount) == 1
    assert pack.fact("signature_on_delivery_amount").value.canonical() == "$1,000.00"
    statements = [" ".join(f.statement.lower().split()) for f in pack.facts.values()]
    assert len(set(statements)) == len(statements)


def test_problems_name_real_facts_and_there_are_at_least_ten(pack):
    assert len(PROBLEMS) == 16
    for problem in (DOMAIN.opening, *PROBLEMS):
        for fact_id in (*problem.facts, *problem.context_facts):
            assert fact_id in pack.facts, (problem.name, fact_id)
    assert {p.outcome for p in PROBLEMS} == {"resolve", "refuse"}
    assert sum(p.outcome == "refuse" for p in PROBLEMS) == 7
    for rule in RULES:
        for fact_id in rule.fact_ids(PackFacts(pack)):
            assert fact_id in pack.facts, (rule.name, fact_id)
    written = {tool for problem in PROBLEMS for tool in inspect.getsource(problem).split('"')
               if tool in RetailTools.tool_specs() and RetailTools.tool_specs()[tool].kind == "write"}
    assert written >= {"cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items",
                       "modify_pending_order_payment", "modify_user_address", "return_delivered_order_items",
                       "exchange_delivered_order_items"}


# ---------------------------------------------------------------------------- tools
def test_tools_have_tau2s_names_and_arguments():
    tau2_tools = pytest.importorskip("tau2.domains.retail.tools")
    from tau2.domains.retail.data_model import RetailDB as Tau2RetailDB

    toolkit = tau2_tools.RetailTools(Tau2RetailDB(products={}, users={}, orders={}))
    theirs = {name: list(inspect.signature(getattr(toolkit, name)).parameters) for name in toolkit.get_tools()}
    ours = {name: list(spec.parameters) for name, spec in RetailTools.tool_specs().items()}
    assert sorted(ours) == sorted(theirs) and len(ours) == 15
    assert ours == theirs


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_gold_reaches_the_same_database_in_taugen_and_in_tau2s_retail_tools(pack, world, problem):
    """Each problem's gold replayed on its set-up state by taugen's tools and by tau2's own retail tools."""
    tau2_tools = pytest.importorskip("tau2.domains.retail.tools")
    from tau2.domains.retail.data_model import RetailDB as Tau2RetailDB

    customer = _customer(world, problem, now=pack.now)
    made = _set_up(DOMAIN, pack, world, (problem,), customer, 0, f"t-{problem.name}")
    assert made is not None
    _, _, toolkit, _, gold_by_problem = made
    start = toolkit.db.model_dump(mode="json")
    ours = RetailTools(DOMAIN.toolkit.db_model.model_validate(start), pack.now)
    theirs = tau2_tools.RetailTools(Tau2RetailDB.model_validate(start))
    writes = 0
    for call in (call for calls in gold_by_problem for call in calls):
        result = ours.call(call.name, **call.arguments)
        assert result.ok, (call.name, result.error)
        getattr(theirs, call.name)(**call.arguments)
        writes += RetailTools.tool_specs()[call.name].kind == "write"
    assert writes >= 1
    assert ours.db_hash() == dict_hash(theirs.db.model_dump()) != dict_hash(start)


def test_tools_match_tau2_on_its_own_retail_database_including_refusals():
    """On tau2's shipped retail DB, the same calls (two items of different products modified in one call,
    whose line prices tau2 sets from the last new item; a gift card exchange; a payment switch; refused
    calls) leave both databases equal, and a call tau2 refuses taugen refuses too."""
    tau2_tools = pytest.importorskip("tau2.domains.retail.tools")
    from tau2.domains.retail.data_model import RetailDB as Tau2RetailDB

    if not (FIXTURE / "db.json").is_file():
        pytest.skip("tau2's retail fixture is not available")
    data = json.loads((FIXTURE / "db.json").read_text())
    ours = RetailTools(DOMAIN.toolkit.db_model.model_validate(data), None)
    theirs = tau2_tools.RetailTools(Tau2RetailDB.model_validate(data))
    assert ours.db_hash() == dict_hash(theirs.db.model_dump())
    pending = sorted(o for o, order in data["orders"].items() if order["status"] == "pending"
                     and len({i["product_id"] for i in order["items"]}) >= 2)
    order = data["orders"][pending[0]]
    old, new = [], []
    for item in order["items"][:2]:
        variants = data["products"][item["product_id"]]["variants"]
        other = sorted(k for k, v in variants.items() if v["available"] and k != item["item_id"])
        old.append(item["item_id"])
        new.append(other[0])
    user = data["users"][order["user_id"]]
    method = order["payment_history"][0]["payment_method_id"]
    others = sorted(m for m in user["payment_methods"] if m != method and user["payment_methods"][m]["source"] != "gift_card")
    calls = [("modify_pending_order_items", {"order_id": pending[0], "item_ids": old, "new_item_ids": new,
                                             "payment_method_id": method}),
             ("modify_pending_order_items", {"order_id": pending[0], "item_ids": old, "new_item_ids": new,
                                             "payment_method_id": method}),  # refused: no longer pending
             ("cancel_pending_order", {"order_id": pending[1], "reason": "changed my mind"}),  # refused reason
             ("cancel_pending_order", {"order_id": pending[1], "reason": "ordered by mistake"}),
             ("modify_user_address", {"user_id": order["user_id"], "address1": "1 Main St", "address2": "",
                                      "city": "Austin", "state": "TX", "country": "USA", "zip": "78701"})]
    if others:
        calls.append(("modify_pending_order_payment", {"order_id": pending[2], "payment_method_id": others[0]}))
    refused = 0
    for name, arguments in calls:
        result = ours.call(name, **arguments)
        try:
            getattr(theirs, name)(**arguments)
            tau2_ok = True
        except ValueError:
            tau2_ok = False
        assert result.ok == tau2_ok, (name, result.error)
        refused += not tau2_ok
    assert refused == 2
    assert ours.db_hash() == dict_hash(theirs.db.model_dump())
    lines = [i for i in ours.db.orders[pending[0]].items if i.item_id in new]
    assert len({line.price for line in lines}) == 1 and len({json.dumps(line.options) for line in lines}) == 1


# ---------------------------------------------------------------------------- checks and policy
def test_a_refused_refund_method_is_a_violation_and_its_certificate_catches_it(pack, world):
    problem = next(p for p in PROBLEMS if p.name == "return_to_paypal_refused")
    customer = _customer(world, problem, now=pack.now)
    record = realise_task(DOMAIN, pack, world, (problem,), customer, "None", 0, "t-paypal")
    assert record.certificate.ok and not record.certificate.forbidden_writes_not_caught
    start = _start(pack, world, record)
    returned = next(call for _, call in record.gold if call.name == "return_delivered_order_items").arguments
    paypal = next(k for k, m in start.users[customer].payment_methods.items() if m.source == "paypal")
    assert returned["payment_method_id"] != paypal
    assert evaluate(RULES, start, "return_delivered_order_items", returned, PackFacts(pack), pack.now) == []
    wrong = {**returned, "payment_method_id": paypal}
    violations = evaluate(RULES, start, "return_delivered_order_items", wrong, PackFacts(pack), pack.now)
    assert [(v.rule, v.facts) for v in violations] == [("return_rules", ("return_refund_no_other_method",))]
    proven = {row["fact"]: row["changed"] for row in record.certificate.sensitivity}
    assert proven == {"return_refund_no_other_method": "same_world"}


def test_a_problem_check_rejects_a_wrong_final_state(pack, world):
    """The exchange paid with the short gift card: tau2's tool refuses it, the state stays delivered and
    the problem's check names what is unmet; the policy names the gift card fact."""
    problem = next(p for p in PROBLEMS if p.name == "exchange_gift_card_too_low_refused")
    customer = _customer(world, problem, now=pack.now)
    record = realise_task(DOMAIN, pack, world, (problem,), customer, "None", 0, "t-gift")
    assert record.certificate.ok
    start = _start(pack, world, record)
    toolkit = RetailTools(start, pack.now)
    exchange = next(call for _, call in record.gold if call.name == "exchange_delivered_order_items").arguments
    gift = next(k for k, m in start.users[customer].payment_methods.items() if m.source == "gift_card"
                and k in json.dumps(record.scenario))
    wrong = {**exchange, "payment_method_id": gift}
    violations = evaluate(RULES, start, "exchange_delivered_order_items", wrong, PackFacts(pack), pack.now)
    assert [v.facts for v in violations] == [("exchange_gift_card_balance",)]
    result = toolkit.call("exchange_delivered_order_items", **wrong)
    assert not result.ok and "Insufficient gift card balance" in result.error
    context = ProblemContext(toolkit=toolkit, pack=pack, customer_id=customer, rng=None)  # type: ignore[arg-type]
    context.state.update(order_id=exchange["order_id"], new_item=exchange["new_item_ids"][0],
                         card=exchange["payment_method_id"], gift=gift)
    assert problem().check(context) == ["the exchange was not settled with the method the policy allows"]
    assert toolkit.call("exchange_delivered_order_items", **exchange).ok
    assert problem().check(context) == []


def test_cancellation_rule_reads_the_reason_and_the_status(pack, world):
    problem = next(p for p in PROBLEMS if p.name == "cancel_processed_refused")
    customer = _customer(world, problem, now=pack.now)
    record = realise_task(DOMAIN, pack, world, (problem,), customer, "None", 0, "t-processed")
    start = _start(pack, world, record)
    reads = [call.arguments["order_id"] for _, call in record.gold if call.name == "get_order_details"]
    pending, processed = reads
    assert start.orders[processed].status == "processed" and start.orders[pending].status == "pending"
    facts, scenario = PackFacts(pack), json.dumps(record.scenario)
    assert evaluate(RULES, start, "cancel_pending_order", {"order_id": pending, "reason": "no longer needed"}, facts,
                    pack.now, scenario) == []
    on_processed = evaluate(RULES, start, "cancel_pending_order", {"order_id": processed, "reason": "no longer needed"},
                            facts, pack.now, scenario)
    assert [v.facts for v in on_processed] == [("cancel_only_pending",)]
    other_reason = evaluate(RULES, start, "cancel_pending_order", {"order_id": pending, "reason": "too expensive"},
                            facts, pack.now, scenario)
    assert [v.facts for v in other_reason] == [("cancel_other_reasons_refused",)]
    assert {row["fact"]: row["changed"] for row in record.certificate.sensitivity} == {"cancel_only_pending": "same_world"}


def test_world_is_seeded_and_shaped_like_tau2s(pack):
    first, again, other = (DOMAIN.build_world(pack.config, seed) for seed in (0, 0, 1))
    assert first.model_dump() == again.model_dump() and first.model_dump() != other.model_dump()
    assert len(first.products) == 50 and len(first.users) == 40 and all(u.orders for u in first.users.values())
    assert {o.status for o in first.orders.values()} == {"pending", "processed", "delivered", "cancelled"}
    assert all(len(p.product_id) == 10 and all(len(i) == 10 for i in p.variants) for p in first.products.values())
    assert all(o.order_id.startswith("#W") and len(o.order_id) == 9 for o in first.orders.values())
    sources = {m.source for u in first.users.values() for m in u.payment_methods.values()}
    assert sources == {"credit_card", "paypal", "gift_card"}
    tau2_model = pytest.importorskip("tau2.domains.retail.data_model")
    tau2_model.RetailDB.model_validate(first.model_dump(mode="json"))


# ---------------------------------------------------------------------------- the desk's words for the defect checks
def test_the_desks_request_words_reach_the_k10_check_and_leave_the_generic_table():
    from taugen.validators.defects import scenario
    from taugen.validators.defects.base import TaskSet

    assert DOMAIN.request_words is REQUEST_WORDS and set(REQUEST_WORDS) == {"return", "exchange"}
    assert not set(REQUEST_WORDS) & set(scenario._REQUESTS)
    table = scenario.request_table(TaskSet(source="", domain="retail", tasks=[], requests=DOMAIN.request_words))
    task = {"user_scenario": {"instructions": {
        "reason_for_call": "You want to exchange the Water Bottle from your delivered order #W1234567.",
        "task_instructions": "You want to return everything in your order #W7654321."}}}
    writes = {name for name, spec in RetailTools.tool_specs().items() if spec.kind == "write"}
    found = {request: sorted(tools) for request, _s, tools, _a in scenario._requests(task, writes, table)}
    assert found == {"exchange": ["exchange_delivered_order_items", "modify_pending_order_items"],
                     "return": ["cancel_pending_order", "return_delivered_order_items"]}
    assert {request for request, *_ in scenario._requests(task, writes)} == set()


# ---------------------------------------------------------------------------- a bundle graded by tau2
def _build(tmp: Path, tier: str, tasks: int | None = None, seed: int = 0) -> Path:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TAUGEN_WORKERS": "1", "COLUMNS": "200",
                   "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    args = [sys.executable, "-m", "taugen", "build", "retail", "--difficulty", tier, "--seed", str(seed),
            "--out", str(tmp)] + (["--tasks", str(tasks)] if tasks else [])
    result = subprocess.run(args, cwd=tmp, env=environment, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    return tmp / f"retail-{tier}-0.1.0"


def test_small_easy_bundle_builds_validates_and_tau2_grades_gold_1_and_empty_0(tmp_path):
    pytest.importorskip("tau2.domains.retail.tools")
    from taugen.build.tau2_runtime import check_bundle

    bundle = _build(tmp_path, "easy", tasks=12)
    tasks = json.loads((bundle / "tau2/domains/retail/tasks.json").read_text())
    assert len(tasks) == 12
    assert all(t["evaluation_criteria"]["reward_basis"] == ["DB"] for t in tasks)
    database = json.loads((bundle / "tau2/domains/retail/db.json").read_text())
    assert sorted(database) == ["orders", "products", "users"] and len(database["products"]) == 50
    rows = check_bundle(bundle)
    assert len(rows) == 12
    assert [(row.task_id, row.gold, row.empty) for row in rows if not row.ok] == []
    assert all(row.gold == 1.0 and row.empty == 0.0 for row in rows)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_medium_bundle_builds_at_every_seed(tmp_path, seed):
    bundle = _build(tmp_path, "medium", seed=seed)
    assert len(json.loads((bundle / "tau2/domains/retail/tasks.json").read_text())) == 120


@pytest.mark.slow
def test_every_retail_mutant_is_killed_by_its_kinds_validator(tmp_path):
    """``taugen mutate`` on an easy retail bundle: the clean bundle has no error and every applicable mutant
    of every kind is killed by that kind's own validator, the retail operators included (K10's refused
    cancellation needs the scripted fallback, K17's persona twin the order as a decision target)."""
    from taugen.build.files import read_bundle
    from taugen.mutation.runner import run_mutation

    bundle = _build(tmp_path, "easy")
    report = run_mutation(read_bundle(bundle), str(bundle), workers=1)
    assert report.clean_errors == []
    assert [r.operator.mutant_id for r in report.survivors] == []
    per_kind = report.per_kind()
    for kind in ("K1", "K2", "K4", "K5", "K6", "K10", "K11"):
        assert per_kind[kind]["killed"] == per_kind[kind]["applicable"] >= 2, kind
    for kind in ("K8", "K14", "K16", "K17"):
        assert per_kind[kind]["killed"] == per_kind[kind]["applicable"] >= 1, kind


# ---------------------------------------------------------------------------- lint-tasks on tau2's own retail folder
def test_lint_tasks_runs_the_retail_policy_kinds_on_tau2s_retail_folder():
    """tau2's retail folder adopts the retail pack's policy as code: K1 names the failing gold exchange paid
    with a gift card short of the difference (105), the exchange of a pending order (64) and the cancellation
    for a reason the policy does not accept ("the wait time is unreasonable", 59); nothing else is K1, K3 or
    K17 there. K9 names the item changes and returns whose scenario never says how to pay or be refunded
    while the user has another method the policy and the tool accept (16: the watch's refund may go to
    PayPal or to the user's gift card); the tasks fixed for it say so now ("prefer PayPal for any payment
    or refund", 15; "you want to use your credit card", 100)."""
    pytest.importorskip("tau2.domains.retail.tools")
    if not (FIXTURE / "tasks.json").is_file():
        pytest.skip("tau2's retail fixture is not available")
    from taugen.validators.defects.sources import taskset_from_folder
    from taugen.validators.foreign import lint_task_folder

    taskset = taskset_from_folder(FIXTURE, replay=False)
    assert taskset.rules == RULES and taskset.toolkit_class is RetailTools and taskset.targets == (("order_id", "orders"),)
    findings = lint_task_folder(FIXTURE)
    policy = sorted((f.subject, f.code, f.message.split("[facts: ")[-1].rstrip("]")) for f in findings
                    if f.check == "defect_policy" and f.severity == "error")
    assert [p for p in policy if p[1] != "K9"] == [
        ("105", "K1", "exchange_gift_card_balance"), ("59", "K1", "cancel_other_reasons_refused"),
        ("64", "K1", "exchange_only_delivered")]
    k9 = {subject: message for subject, code, message in policy if code == "K9"}
    assert sorted(k9, key=int) == ["16", "41", "60", "61", "63"]
    assert '{"payment_method_id": "gift_card_1675628"} instead of the gold\'s {"payment_method_id": ' \
           '"paypal_5364164"}' in k9["16"]
    assert not any(f.code in ("K3", "K17") for f in findings)


def test_coverage_says_why_no_task_exercises_a_fact_no_problem_decides(pack, world):
    """A fact no retail problem declares (a shipping rule) is reported as corpus-only, a fact problems only
    follow as context as such, and a fact a problem decides gets no reason from the task space (when no task
    is drawn for it, the coverage report says that instead)."""
    from taugen.generators.tasks import CORPUS_ONLY, FOLLOWED_ONLY, task_space

    space = task_space(DOMAIN, pack, world.model_copy(deep=True), 0)
    decided = {f for problem in PROBLEMS for f in problem.facts}
    followed = {f for problem in PROBLEMS for f in problem.context_facts} - decided
    assert space.unexercisable["free_standard_shipping"] == CORPUS_ONLY
    assert followed and all(space.unexercisable[f] == FOLLOWED_ONLY for f in followed)
    assert decided and not decided & set(space.unexercisable)
    current = {f for f in pack.facts if pack.is_current(f)}
    assert set(space.unexercisable) == current - decided


def test_k9_a_payment_method_the_scenario_never_names_is_a_choice_it_must_make(pack):
    """K9 "two different refunds are both allowed and the task does not say which": tau2 retail 15 modifies
    the pending boots with PayPal while the user also holds a gift card, and the scenario said nothing about
    paying (fixed by "prefer PayPal for any payment or refund"). The retail policy offers the item write with
    every other method of the user as an alternative, and none when the scenario names a method ("PayPal",
    "your credit card ending in 7447", "the other card as payment or refund method", "the original payment
    method"); the K9 check keeps the ones the policy and the tool accept and that change the end state."""
    if not (FIXTURE / "db.json").is_file():
        pytest.skip("tau2's retail fixture is not available")
    from taugen.domains.retail.policy import _payment_options
    from taugen.generators.policy import PolicyContext

    state = DOMAIN.toolkit.db_model.model_validate(json.loads((FIXTURE / "db.json").read_text()))
    boots = {"order_id": "#W5199551", "item_ids": ["1615379700"], "new_item_ids": ["3613716226"],
             "payment_method_id": "paypal_5364164"}  # tau2 retail 15's gold

    def options(scenario: str, tool: str = "modify_pending_order_items") -> list[str]:
        context = PolicyContext(state=state, facts=PackFacts(pack), now=pack.now, scenario=scenario)
        return [o["payment_method_id"] for o in _payment_options(context, tool, boots)]

    silent = ("You want to modify the pending boots to a size 8, and want the material, but do not care about "
              "waterproof or not. You are a private person that does not want to reveal much about yourself.")
    assert options(silent) == ["gift_card_1675628"]
    assert options(silent, "modify_pending_order_address") == []
    for named in ("You prefer PayPal for any payment or refund.", "Pay with your credit card ending in 7447.",
                  "Mention that you'd prefer the other card as payment or refund method.",
                  "The refund goes to the original payment method."):
        assert options(f"{silent} {named}") == [], named
