"""The airline pack: tau2's airline policy as facts, tau2's airline tools over a tau2-shaped world, problems whose
gold the facts decide, a bundle tau2's own airline environment grades (gold 1.0, doing nothing 0.0).

The build test makes a small easy bundle (12 tasks) with one worker and grades every task in tau2;
the medium build is ``slow``.
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
from taugen.domains.airline import DOMAIN
from taugen.domains.airline.policy import RULES
from taugen.domains.airline.problems import PROBLEMS, free_bags
from taugen.domains.airline.tools import EXTRA_BAG_FEE, INSURANCE_FEE_PER_PASSENGER, AirlineTools
from taugen.generators.environment import dict_hash
from taugen.generators.policy import PackFacts, evaluate
from taugen.generators.problems import ProblemContext
from taugen.generators.tasks import _set_up, realise_task

ROOT = Path(__file__).resolve().parents[1]
PACK_DIR = ROOT / "taugen" / "domains" / "airline"


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK_DIR)


@pytest.fixture(scope="module")
def world(pack):
    return DOMAIN.build_world(pack.config, 0)


def _customer(world, problem, toolkit_class=AirlineTools, now=None):
    toolkit = toolkit_class(world, now)
    return next(user for user in sorted(world.users) if problem().applicable(toolkit, user))


# ---------------------------------------------------------------------------- pack
def test_pack_holds_every_policy_rule_as_a_typed_fact(pack):
    assert packs()["airline"] == PACK_DIR
    assert len(pack.facts) == 90
    assert {f.section for f in pack.facts.values()} == {s.id for s in pack.config.sections}
    typed = [f for f in pack.facts.values() if f.value is not None and f.value.type != "text"]
    assert len(typed) >= 60
    allowance = {(m, c): free_bags(pack, m, c) for m in ("regular", "silver", "gold")
                 for c in ("basic_economy", "economy", "business")}
    assert allowance == {("regular", "basic_economy"): 0, ("regular", "economy"): 1, ("regular", "business"): 2,
                         ("silver", "basic_economy"): 1, ("silver", "economy"): 2, ("silver", "business"): 3,
                         ("gold", "basic_economy"): 2, ("gold", "economy"): 3, ("gold", "business"): 4}
    assert pack.fact("cancel_within_24_hours_of_booking").value.canonical() == "24 hours"
    assert pack.fact("compensation_cancelled_flight_per_passenger").value.canonical() == "$100.00"
    assert pack.fact("compensation_delayed_flight_per_passenger").value.canonical() == "$50.00"
    assert int(pack.fact("max_gift_cards_per_reservation").value.amount) == 3
    statements = [" ".join(f.statement.lower().split()) for f in pack.facts.values()]
    assert len(set(statements)) == len(statements)


def test_tool_fees_are_the_facts_fees(pack):
    """tau2's airline tools charge fixed fees; the pack's facts must state the same ones."""
    assert int(pack.fact("checked_bag_extra_fee").value.amount) == EXTRA_BAG_FEE
    assert int(pack.fact("travel_insurance_price_per_passenger").value.amount) == INSURANCE_FEE_PER_PASSENGER


def test_problems_name_real_facts_and_there_are_at_least_ten(pack):
    assert len(PROBLEMS) >= 10
    for problem in (DOMAIN.opening, *PROBLEMS):
        for fact_id in (*problem.facts, *problem.context_facts):
            assert fact_id in pack.facts, (problem.name, fact_id)
    assert {p.outcome for p in PROBLEMS} == {"resolve", "refuse"}
    for rule in RULES:
        for fact_id in rule.fact_ids(PackFacts(pack)):
            assert fact_id in pack.facts, (rule.name, fact_id)


# ---------------------------------------------------------------------------- tools
def test_tools_have_tau2s_names_and_arguments():
    tau2_tools = pytest.importorskip("tau2.domains.airline.tools")
    from tau2.domains.airline.data_model import FlightDB as Tau2FlightDB

    toolkit = tau2_tools.AirlineTools(Tau2FlightDB(flights={}, users={}, reservations={}))
    theirs = {name: [p for p in inspect.signature(getattr(toolkit, name)).parameters]
              for name in toolkit.get_tools()}
    ours = {name: list(spec.parameters) for name, spec in AirlineTools.tool_specs().items()}
    assert sorted(ours) == sorted(theirs)
    assert ours == {name: theirs[name] for name in ours}


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_gold_reaches_the_same_database_in_taugen_and_in_tau2s_airline_tools(pack, world, problem):
    """Each problem's gold replayed on its set-up state by taugen's tools and by tau2's own airline tools."""
    tau2_tools = pytest.importorskip("tau2.domains.airline.tools")
    from tau2.domains.airline.data_model import FlightDB as Tau2FlightDB
    customer = _customer(world, problem, now=pack.now)
    made = _set_up(DOMAIN, pack, world, (problem,), customer, 0, f"t-{problem.name}")
    assert made is not None
    _, _, toolkit, _, gold_by_problem = made
    start = toolkit.db.model_dump(mode="json")
    ours = AirlineTools(DOMAIN.toolkit.db_model.model_validate(start), pack.now)
    theirs = tau2_tools.AirlineTools(Tau2FlightDB.model_validate(start))
    writes = 0
    for call in (call for calls in gold_by_problem for call in calls):
        result = ours.call(call.name, **call.arguments)
        assert result.ok, (call.name, result.error)
        getattr(theirs, call.name)(**call.arguments)
        writes += AirlineTools.tool_specs()[call.name].kind == "write"
    assert writes >= 1
    assert ours.db_hash() == dict_hash(theirs.db.model_dump()) != dict_hash(start)


# ---------------------------------------------------------------------------- checks and policy
def test_a_problem_check_rejects_a_wrong_final_state_and_the_policy_names_the_fact(pack, world):
    problem = next(p for p in PROBLEMS if p.name == "add_checked_bags_gold_economy")
    customer = _customer(world, problem, now=pack.now)
    record = realise_task(DOMAIN, pack, world, (problem,), customer, "None", 0, "t-bags")
    from taugen.generators.environment import deep_merge

    start = DOMAIN.toolkit.db_model.model_validate(deep_merge(world.model_dump(mode="json"), record.patch))
    toolkit = AirlineTools(start, pack.now)
    update = next(call for _, call in record.gold if call.name == "update_reservation_baggages")
    wrong = {**update.arguments, "nonfree_baggages": update.arguments["total_baggages"]}  # every bag paid
    violations = evaluate(RULES, toolkit.db, "update_reservation_baggages", wrong, PackFacts(pack), pack.now)
    assert [v.facts for v in violations] == [("free_bags_gold_economy",)]
    assert violations[0].expected == update.arguments["nonfree_baggages"]
    assert toolkit.call("update_reservation_baggages", **wrong).ok
    instance = problem()
    context = ProblemContext(toolkit=toolkit, pack=pack, customer_id=customer, rng=None)  # type: ignore[arg-type]
    context.state.update(reservation_id=update.arguments["reservation_id"], bags=update.arguments["total_baggages"],
                         passengers=len(toolkit.db.reservations[update.arguments["reservation_id"]].passengers))
    assert instance.check(context) == [f"{wrong['nonfree_baggages']} paid bags instead of "
                                       f"{update.arguments['nonfree_baggages']}"]


def test_a_refused_cancellation_is_a_violation_and_its_certificate_catches_it(pack, world):
    problem = next(p for p in PROBLEMS if p.name == "cancel_refused_change_instead")
    customer = _customer(world, problem, now=pack.now)
    record = realise_task(DOMAIN, pack, world, (problem,), customer, "None", 0, "t-refused")
    assert record.certificate.ok and not record.certificate.forbidden_writes_not_caught
    from taugen.generators.environment import deep_merge

    start = DOMAIN.toolkit.db_model.model_validate(deep_merge(world.model_dump(mode="json"), record.patch))
    reservation = next(call for _, call in record.gold if call.name == "get_reservation_details").arguments
    scenario = json.dumps(record.scenario)
    violations = evaluate(RULES, start, "cancel_reservation", reservation, PackFacts(pack), pack.now, scenario)
    assert violations and violations[0].rule == "cancellation_rules"
    proven = {row["fact"]: row["changed"] for row in record.certificate.sensitivity}
    assert proven == {"cancel_otherwise_refused": "same_world"}


def test_world_is_seeded_and_shaped_like_tau2s(pack):
    first, again, other = (DOMAIN.build_world(pack.config, seed) for seed in (0, 0, 1))
    assert first.model_dump() == again.model_dump() and first.model_dump() != other.model_dump()
    assert len(first.users) == 40 and all(u.reservations for u in first.users.values())
    statuses = {s.status for f in first.flights.values() for s in f.dates.values()}
    assert statuses == {"available", "landed", "cancelled", "delayed", "flying", "on time"}
    tau2_model = pytest.importorskip("tau2.domains.airline.data_model")
    tau2_model.FlightDB.model_validate(first.model_dump(mode="json"))


# ---------------------------------------------------------------------------- a bundle graded by tau2
def _build(tmp: Path, tier: str, tasks: int | None = None, seed: int = 0) -> Path:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TAUGEN_WORKERS": "1", "COLUMNS": "200",
                   "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    args = [sys.executable, "-m", "taugen", "build", "airline", "--difficulty", tier, "--seed", str(seed),
            "--out", str(tmp)] + (["--tasks", str(tasks)] if tasks else [])
    result = subprocess.run(args, cwd=tmp, env=environment, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    return tmp / f"airline-{tier}-0.1.0"


def test_small_easy_bundle_builds_validates_and_tau2_grades_gold_1_and_empty_0(tmp_path):
    pytest.importorskip("tau2.domains.airline.tools")
    from taugen.build.tau2_runtime import check_bundle

    bundle = _build(tmp_path, "easy", tasks=12)
    tasks = json.loads((bundle / "tau2/domains/airline/tasks.json").read_text())
    assert len(tasks) == 12
    assert all(t["evaluation_criteria"]["reward_basis"] == ["DB"] for t in tasks)
    database = json.loads((bundle / "tau2/domains/airline/db.json").read_text())
    assert sorted(database) == ["flights", "reservations", "users"]
    rows = check_bundle(bundle)
    assert len(rows) == 12
    assert [(row.task_id, row.gold, row.empty) for row in rows if not row.ok] == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_medium_bundle_builds_at_every_seed(tmp_path, seed):
    bundle = _build(tmp_path, "medium", seed=seed)
    assert len(json.loads((bundle / "tau2/domains/airline/tasks.json").read_text())) == 120


# ---------------------------------------------------------------------------- the desk's words for the defect checks
REFUSED_COMPENSATION = ("The airline cancelled the flight of your reservation A6S7TS; you want to cancel the "
                        "reservation and be compensated. Ask to cancel the reservation, then ask for compensation.")


def test_the_desks_request_words_reach_the_k10_check_and_leave_the_generic_table_alone():
    """A refused compensation is a refused request only if the K10/K11 check knows the request: the airline
    declares it (``request_words``), and a domain that declares none reads the generic table unchanged."""
    from taugen.validators.defects import scenario
    from taugen.validators.defects.base import TaskSet

    table = scenario.request_table(TaskSet(source="", domain="airline", tasks=[], requests=DOMAIN.request_words))
    assert table["be compensated"] == (r"\bcompensat\w*", ("certificate",))
    assert scenario.request_table(TaskSet(source="", domain="banking", tasks=[])) is scenario._REQUESTS
    assert "be compensated" not in scenario._REQUESTS
    task = {"user_scenario": {"instructions": {"reason_for_call": "", "task_instructions": REFUSED_COMPENSATION}}}
    found = [(request, sorted(tools)) for request, _s, tools, _a in
             scenario._requests(task, {"send_certificate", "cancel_reservation"}, table)]
    assert ("be compensated", ["send_certificate"]) in found and ("cancel", ["cancel_reservation"]) in found
    sentence = "Ask to cancel the reservation, then ask for compensation."
    assert not scenario._scripted_refusal(REFUSED_COMPENSATION, "be compensated", sentence, table=table)
    scripted = REFUSED_COMPENSATION + " If the agent says you cannot be compensated, accept it."
    assert scenario._scripted_refusal(scripted, "be compensated", sentence, table=table)


def test_a_compensation_request_proposes_the_certificate_the_policy_then_refuses(pack, world):
    """The compensation rule's candidates: asked for compensation on a reservation with a cancelled flight,
    the certificate is the per-passenger amount times the passengers; for the regular member without
    insurance in economy (compensation_refused_regular_member) the rule's check forbids it, so the refusal
    is justified and its reaction must be scripted; without a request there is no candidate."""
    from taugen.domains.airline.policy import COMPENSATION
    from taugen.generators.environment import deep_merge
    from taugen.generators.policy import PolicyContext

    problem = next(p for p in PROBLEMS if p.name == "compensation_refused_regular_member")
    customer = _customer(world, problem, now=pack.now)
    record = realise_task(DOMAIN, pack, world, (problem,), customer, "None", 0, "t-compensation")
    start = DOMAIN.toolkit.db_model.model_validate(deep_merge(world.model_dump(mode="json"), record.patch))
    reservation_id = next(call for _, call in record.gold
                          if call.name == "get_reservation_details").arguments["reservation_id"]
    rate = int(pack.facts["compensation_cancelled_flight_per_passenger"].value.amount)
    facts = PackFacts(pack)
    context = PolicyContext(state=start, facts=facts, now=pack.now, scenario=json.dumps(record.scenario))
    calls = COMPENSATION.candidates(context, customer)
    passengers = len(start.reservations[reservation_id].passengers)
    assert calls == [("send_certificate", {"user_id": customer, "amount": rate * passengers})]
    assert all(COMPENSATION.check(context, name, arguments) for name, arguments in calls)
    assert COMPENSATION.candidates(PolicyContext(state=start, facts=facts, now=pack.now,
                                                 scenario=f"Cancel {reservation_id}."), customer) == []


@pytest.mark.slow
def test_every_airline_mutant_is_killed_by_its_kinds_validator(tmp_path):
    """``taugen mutate`` on an easy airline bundle: the clean bundle has no error and every applicable
    mutant of every kind is killed by that kind's own validator (K10's refused compensation needs the desk's
    request words, K17's persona twin the reservation as a decision target)."""
    from taugen.build.files import read_bundle
    from taugen.mutation.runner import run_mutation

    bundle = _build(tmp_path, "easy")
    report = run_mutation(read_bundle(bundle), str(bundle), workers=1)
    assert report.clean_errors == []
    assert [r.operator.mutant_id for r in report.survivors] == []
    per_kind = report.per_kind()
    assert per_kind["K10"]["killed"] == per_kind["K10"]["applicable"] == 2
    assert per_kind["K17"]["killed"] == per_kind["K17"]["applicable"] >= 1


# ---------------------------------------------------------------------------- the hard corpus's length gate
def test_bunched_flowcharts_are_re_drawn_into_buckets_with_room(pack):
    """A first corpus plan whose flowcharts bunch in length: airline hard seed 10 draws 22 charts whose lengths
    take 9 buckets of 25 tokens with 7 in one (the gate wants at most a quarter in one). The repair names the
    records the full bucket holds beyond the share, renders candidates with derived seeds and keeps those that
    land where there is room: one round passes. (Seed 8 bunched this way, 22 charts in 10 buckets with 6 in
    one, until fillers were dealt evenly over their carriers and dated by them; seed 10, 16 charts in 7
    buckets with 5 in one, until fillers' rule places held echoes; seed 0, 13 charts in 7 buckets with 4 in
    one, until the planner stopped giving a day's facts to records in id order.)"""
    import dataclasses
    from collections import Counter

    from taugen.build.pipeline import _redraw
    from taugen.generators.corpus.genre import RenderContext, genres
    from taugen.generators.corpus.planner import plan_corpus
    from taugen.generators.corpus.render import render_corpus, template_environment
    from taugen.generators.corpus.vocabulary import load_vocabulary
    from taugen.generators.tiers import tier
    from taugen.text import count_tokens
    from taugen.validators.realism import BUCKET, length_surplus

    available = genres()
    vocabulary = load_vocabulary(pack.directory, [s.id for s in pack.config.sections])
    plan = plan_corpus(pack, tier("hard"), 10, available, vocabulary=vocabulary)
    charts = dataclasses.replace(plan, artifacts=[a for a in plan.artifacts if a.genre == "flowchart"])
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=10, tier="hard",
                            facts=pack.facts, vocabulary=vocabulary)
    texts: dict[str, str] = {}
    rendered = render_corpus(charts, context, available, texts=texts)

    def spread(texts):
        buckets = Counter(count_tokens(text) // BUCKET for text in texts.values())
        return len(buckets), max(buckets.values())

    assert len(texts) == 22 and spread(texts) == (9, 7)
    carriers = {a.plan.artifact_id: a.plan.is_carrier for a in rendered}
    moved = length_surplus({a: count_tokens(t) for a, t in texts.items()}, carriers)
    assert moved == ["flowchart_012", "flowchart_014"]
    rendered, texts = _redraw(rendered, texts, moved, 1, context, available, {"flowchart"})
    assert spread(texts) == (10, 5)
    assert length_surplus({a: count_tokens(t) for a, t in texts.items()}, carriers) == []
