"""Problem families compile typed facts into tasks; the certificate proves each declared fact decides its task."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal

import pytest

from taugen.authoring.pack import load_pack
from taugen.build.pipeline import PACKS_DIR
from taugen.generators.domain import load_domain
from taugen.generators.families import FamilyProblem, family_of, perturbations
from taugen.generators.problems import Problem
from taugen.generators.tasks import CASE_KINDS, compose_tasks, realise_task, task_space
from taugen.generators.tiers import tier


@pytest.fixture(scope="module")
def banking():
    pack = load_pack(PACKS_DIR / "banking")
    domain = load_domain(pack.config)
    world = domain.build_world(pack.config, 0)
    space = task_space(domain, pack, world, 0)
    return pack, domain, world, space


def _instance(space, family: str, variant: str, fact_id: str | None = None) -> type[FamilyProblem]:
    return next(p for p in space.problems if getattr(p, "family", None) == family and p.variant == variant
                and (fact_id is None or p.fact_id == fact_id))


def _realise(banking, combo, pack=None):
    base_pack, domain, world, _ = banking
    for customer_id in sorted(world.customers):
        record = realise_task(domain, pack or base_pack, world, combo, customer_id, "None", 0, f"t-{customer_id}")
        if record is not None:
            return record
    raise AssertionError("no customer can carry the composition")


def test_every_typed_current_fact_gets_a_family_or_a_reason(banking):
    pack, _, _, space = banking
    exercised = {f for p in space.problems for f in p.facts}
    typed = [f for f in pack.current_facts() if f.value is not None and f.value.type != "text"]
    assert all(f.id in exercised or f.id in space.unexercisable for f in typed)
    assert sum(f.id in exercised for f in typed) / len(typed) >= 0.9
    # the families are keyed on value type and category, not on names
    fee = next(f for f in typed if f.value.type == "money" and f.category == "fee")
    assert family_of(fee, special=False) == "fee"
    assert family_of(next(f for f in typed if f.value.type == "cap"), special=False) == "limit"
    # no fact id shows in a problem name (task ids reach the agent-builder kit)
    assert not any(p.fact_id in p.name for p in space.problems if getattr(p, "family", None))


def test_perturbations_stay_valid_values_of_the_type(banking):
    pack, *_ = banking
    for fact in pack.current_facts():
        if fact.value is None:
            continue
        for other in perturbations(fact.value):
            assert type(other) is type(fact.value) and other != fact.value
            type(other).model_validate(other.model_dump())


@pytest.mark.parametrize("family, variant", [("fee", "charge"), ("limit", "under"), ("limit", "over"),
                                             ("minimum", "below"), ("quote", "quote"), ("rate_fee", "charge"),
                                             ("window", "inside"), ("window", "outside"), ("procedure", "order"),
                                             ("route", "transfer")])
def test_family_task_is_certified_and_its_fact_decides_it(banking, family, variant):
    pack, domain, world, space = banking
    problem = _instance(space, family, variant)
    record = _realise(banking, (problem,))
    certificate = record.certificate
    assert certificate.ok, certificate.as_dict()
    assert record.facts == [problem.fact_id]
    proof = {row["fact"]: row for row in certificate.sensitivity}
    assert proof[problem.fact_id]["changed"] in ("same_world", "gold_writes", "db_hash", "not_realisable")
    assert proof[problem.fact_id]["perturbed"] != proof[problem.fact_id]["original"]
    if variant == "over":
        assert "declined" in record.kinds and "unusual" in record.kinds


@pytest.mark.parametrize("fact_id, unit, within", [("check_fraud_claim_window", "days", "accepted"),
                                                   ("poa_accepted_age_ks", "years", "accepted"),
                                                   ("identity_recent_phone_change_no_otp", "days", "refused")])
def test_window_instances_sit_either_side_of_the_edge_and_the_fact_decides(banking, fact_id, unit, within):
    """A deadline accepts the request just inside and refuses it just outside; a waiting period the other way
    round. The event date is in the scenario as a caller says it, and in the gold's dated request."""
    import datetime as dt

    from taugen.generators.families import spoken_date
    from taugen.generators.policy import within_window

    pack, _, _, space = banking
    fact = pack.facts[fact_id]
    assert fact.value.unit == unit and fact.window.within == within
    today = pack.now.date()
    for variant in ("inside", "outside"):
        problem = _instance(space, "window", variant, fact_id)
        record = _realise(banking, (problem,))
        assert record.certificate.ok, record.certificate.as_dict()
        known = record.scenario["instructions"]["known_info"]
        dated = [c for _, c in record.gold if c.name == "submit_dated_request"]
        accepted = (variant == "inside") == (within == "accepted")
        assert bool(dated) == accepted
        assert ("declined" in record.kinds) == (not accepted) and "unusual" in record.kinds
        event = next(today - dt.timedelta(days=d) for d in range(0, 4000)
                     if spoken_date(today - dt.timedelta(days=d)) in known)
        assert within_window(event, fact.value, today) == (variant == "inside")
        if dated:
            assert dated[0].arguments["event_date"] == event.isoformat()
        proof = {row["fact"]: row for row in record.certificate.sensitivity}
        assert proof[fact_id]["changed"] is not None


def test_window_edges_in_each_unit():
    """Just inside and just outside a span, for every unit a calendar counts (Monday 16 March 2026)."""
    import datetime as dt

    from taugen.authoring.values import DurationValue
    from taugen.generators.policy import business_days_between, window_edge, within_window

    today = dt.date(2026, 3, 16)
    assert window_edge(DurationValue(amount=30, unit="days"), today, True) == dt.date(2026, 2, 15)
    assert window_edge(DurationValue(amount=30, unit="days"), today, False) == dt.date(2026, 2, 13)
    assert within_window(dt.date(2026, 2, 14), DurationValue(amount=30, unit="days"), today)  # the edge is inside
    five = DurationValue(amount=5, unit="business_days")
    inside, outside = window_edge(five, today, True), window_edge(five, today, False)
    assert (inside, outside) == (dt.date(2026, 3, 10), dt.date(2026, 3, 6))  # a Tuesday and a Friday
    assert business_days_between(inside, today) == 4 and business_days_between(outside, today) == 6
    three_years = DurationValue(amount=3, unit="years")
    assert window_edge(three_years, today, True) == dt.date(2023, 3, 17)
    assert not within_window(dt.date(2023, 3, 15), three_years, today)
    assert window_edge(DurationValue(amount=1, unit="months"), dt.date(2026, 3, 31), False) == dt.date(2026, 2, 27)
    with pytest.raises(ValueError):
        within_window(today, DurationValue(amount=10, unit="minutes"), today)


def test_a_window_on_a_value_that_is_not_a_calendar_span_is_refused(tmp_path):
    from typer.testing import CliRunner

    from taugen.cli import app

    pack = tmp_path / "pack"
    (pack / "facts").mkdir(parents=True)
    (pack / "domain.yaml").write_text((PACKS_DIR / "banking" / "domain.yaml").read_text())
    (pack / "facts" / "otp.yaml").write_text(
        "section: identity_verification\nfacts:\n"
        "  - id: otp_expiry\n    category: limit\n"
        "    statement: A passcode expires 10 minutes after it is sent.\n"
        "    value: {type: duration, amount: 10, unit: minutes}\n"
        "    window: {request: have a passcode accepted, event: the passcode was sent, within: accepted}\n"
        "    effective_from: 2024-01-01\n")
    result = CliRunner().invoke(app, ["lint", str(pack)])
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]
    assert "otp.yaml:3" in line and "otp_expiry" in line and "window needs a duration value" in line


def test_policy_refuses_a_dated_request_on_the_wrong_side_of_its_window(banking):
    """The family_window rule (K1) reads the window from the facts: a forged-check claim dated just past the
    30-day deadline breaks it, one just inside does not."""
    from taugen.domains.banking.families import binding
    from taugen.domains.banking.policy import FAMILY_RULES
    from taugen.generators.policy import PackFacts, PolicyContext, window_edge

    pack, domain, world, _ = banking
    rule = next(r for r in FAMILY_RULES if r.name == "family_window")
    bound = binding(pack)  # one binding: building it reads every fact's subject (a fifth of a second)
    topic = bound.topic(pack.facts["check_fraud_claim_window"])

    class Facts(PackFacts):
        def topic(self, fact_id):
            fact = self.pack.facts[fact_id]
            found = bound.topic(fact) if fact.value is not None else None
            return found.topic_id if found else None

    account = next(a for a in world.accounts.values() if a.product in topic.products and a.status == "open")
    context = PolicyContext(state=world, facts=Facts(pack), now=pack.now)
    value = pack.facts["check_fraud_claim_window"].value
    for inside, broken in ((True, False), (False, True)):
        event = window_edge(value, pack.now.date(), inside)
        violations = rule.check(context, "submit_dated_request", {"account_id": account.account_id,
                                                                  "topic_id": topic.topic_id,
                                                                  "event_date": event.isoformat()})
        assert bool(violations) == broken
        if broken:
            assert violations[0].facts == ("check_fraud_claim_window",) and violations[0].code == "K1"


def test_procedure_steps_are_recorded_in_the_facts_order_and_a_swap_changes_the_gold(banking):
    """The gold records a procedure's steps in the order its fact gives; the catalogue lists them alphabetically
    (it never gives the order away); swapping two neighbouring steps in the pack changes the gold's order and
    the final database, and the family_procedure rule (K1) flags a step recorded before its turn."""
    from taugen.domains.banking.families import binding
    from taugen.domains.banking.policy import FAMILY_RULES
    from taugen.generators.policy import PackFacts, PolicyContext

    pack, _, world, space = banking
    problem = _instance(space, "procedure", "order", "wire_recall_procedure")
    fact = pack.facts["wire_recall_procedure"]
    assert fact.value.steps == ["confirm_wire_details", "submit_recall_request", "explain_recall_not_guaranteed"]
    assert fact.value.canonical() in fact.statement
    record = _realise(banking, (problem,))
    steps = [c.arguments["step"] for _, c in record.gold if c.name == "record_procedure_step"]
    assert steps == fact.value.steps
    assert "multi-step" in record.kinds
    topic = world.service_topics[problem.topic.topic_id]
    assert topic.steps == sorted(fact.value.steps) != fact.value.steps
    assert [p.steps for p in perturbations(fact.value)] == [
        ["submit_recall_request", "confirm_wire_details", "explain_recall_not_guaranteed"],
        ["confirm_wire_details", "explain_recall_not_guaranteed", "submit_recall_request"]]
    swapped = replace(pack, facts={**pack.facts, fact.id: fact.model_copy(
        update={"value": perturbations(fact.value)[0]})})
    after = _realise(banking, (problem,), pack=swapped)
    assert [c.arguments["step"] for _, c in after.gold if c.name == "record_procedure_step"] == \
        perturbations(fact.value)[0].steps
    assert after.certificate.gold_hash != record.certificate.gold_hash

    rule = next(r for r in FAMILY_RULES if r.name == "family_procedure")
    bound = binding(pack)  # one binding: building it reads every fact's subject (a fifth of a second)

    class Facts(PackFacts):
        def topic(self, fact_id):
            found = self.pack.facts[fact_id]
            topic_found = bound.topic(found) if found.value is not None else None
            return topic_found.topic_id if topic_found else None

    context = PolicyContext(state=world, facts=Facts(pack), now=pack.now)
    customer = sorted(world.customers)[0]
    arguments = {"customer_id": customer, "topic_id": topic.topic_id}
    assert rule.check(context, "record_procedure_step", {**arguments, "step": "confirm_wire_details"}) == []
    violations = rule.check(context, "record_procedure_step", {**arguments, "step": "submit_recall_request"})
    assert [(v.rule, v.facts, v.code) for v in violations] == [
        ("family_procedure", ("wire_recall_procedure",), "K1")]


def test_a_routing_fact_decides_the_team_and_the_transfer_rule_reads_it(banking):
    """A routing fact (enum value, category routing) makes a redirected task whose transfer goes to the team the
    fact names; another team in the pack changes the gold; banking's transfer rule (K1) accepts the named team
    when the scenario asks about the fact's subject and flags any other."""
    from taugen.domains.banking.policy import RULES
    from taugen.generators.policy import PackFacts, PolicyContext

    pack, _, world, space = banking
    problem = _instance(space, "route", "transfer", "wire_trace_routing")
    record = _realise(banking, (problem,))
    transfers = [c.arguments["department"] for _, c in record.gold if c.name == "transfer_to_human_agents"]
    assert transfers == ["wire_desk"] and "redirected" in record.kinds
    fact = pack.facts["wire_trace_routing"]
    moved = replace(pack, facts={**pack.facts, fact.id: fact.model_copy(
        update={"value": fact.value.model_copy(update={"value": "general"})})})
    after = _realise(banking, (problem,), pack=moved)
    assert [c.arguments["department"] for _, c in after.gold if c.name == "transfer_to_human_agents"] == ["general"]

    rule = next(r for r in RULES if r.name == "transfer_department")
    scenario = "You need the bank's help with tracing an international wire that has not arrived."
    context = PolicyContext(state=world, facts=PackFacts(pack), now=pack.now, scenario=scenario)
    assert rule.check(context, "transfer_to_human_agents", {"department": "wire_desk", "summary": "trace"}) == []
    wrong = rule.check(context, "transfer_to_human_agents", {"department": "general", "summary": "trace"})
    assert [v.code for v in wrong] == ["K1"] and "wire_trace_routing" in wrong[0].facts
    elsewhere = PolicyContext(state=world, facts=PackFacts(pack), now=pack.now, scenario="You want a new card.")
    assert rule.check(elsewhere, "transfer_to_human_agents", {"department": "wire_desk", "summary": "x"}) != []
    # every routing task's scenario names its fact's subject as the rule looks for it (a subject holding a
    # product label, "goods paid for by debit card", once lost the label in the catalogue wording)
    from taugen.generators.families import routed_by_facts
    for route in (p for p in space.problems if getattr(p, "family", None) == "route"):
        realised = _realise(banking, (route,))
        said = " ".join(str(v) for v in realised.scenario["instructions"].values() if v)
        assert routed_by_facts(PackFacts(pack), said) == {pack.facts[route.fact_id].value.value: (route.fact_id,)}


def test_a_steps_value_needs_distinct_labelled_steps():
    from pydantic import ValidationError

    from taugen.authoring.values import StepsValue

    good = StepsValue(steps=["a", "b"], labels={"a": "do a", "b": "do b"})
    assert good.canonical() == "do a, then do b" and "do a; then do b" in good.surface_forms()
    for bad, message in ((dict(steps=["a", "a"], labels={"a": "do a"}), "steps repeat"),
                         (dict(steps=["a", "b"], labels={"a": "do a"}), "steps without a label: b"),
                         (dict(steps=["a"], labels={"a": "do a"}), "at least 2"),
                         (dict(steps=["a", "b"], labels={"a": "x", "b": "y", "c": "z"}), "not in steps: c")):
        with pytest.raises(ValidationError, match=message):
            StepsValue(**bad)


def test_editing_a_fee_in_the_pack_changes_the_task_that_claims_it(banking):
    pack, _, _, space = banking
    problem = _instance(space, "fee", "charge")
    fact = pack.facts[problem.fact_id]
    edited = replace(pack, facts={**pack.facts, fact.id: fact.model_copy(
        update={"value": fact.value.model_copy(update={"amount": fact.value.amount + Decimal("7.25")})})})
    before, after = _realise(banking, (problem,)), _realise(banking, (problem,), pack=edited)
    charge = [c for _, c in before.gold if c.name == "charge_service_fee"][0]
    changed = [c for _, c in after.gold if c.name == "charge_service_fee"][0]
    assert changed.arguments["fee"] == pytest.approx(charge.arguments["fee"] + 7.25)
    assert before.certificate.gold_hash != after.certificate.gold_hash


def test_a_declared_fact_the_task_does_not_depend_on_fails_the_certificate(banking):
    pack, _, _, space = banking
    problem = _instance(space, "quote", "quote")
    unrelated = next(f.id for f in pack.current_facts() if f.value is not None and f.value.type == "money"
                     and f.id != problem.fact_id)
    padded = type("Padded", (problem,), {"facts": (problem.fact_id, unrelated), "__module__": __name__})
    record = _realise(banking, (padded,))
    assert record.certificate.insensitive_facts == [unrelated]
    assert not record.certificate.ok


def test_hand_written_problems_declare_only_facts_that_decide_them(banking):
    _, domain, _, _ = banking
    for cls in domain.problems:
        record = _realise(banking, (cls,))
        assert not record.certificate.insensitive_facts, (cls.name, record.certificate.sensitivity)


def test_composition_splits_and_case_kinds(banking):
    pack, domain, world, space = banking
    tasks = compose_tasks(domain, pack, world, replace(tier("hard"), tasks=24), 0, space=space)
    assert len(tasks) == 24 and all(t.certificate.ok for t in tasks)
    dev = [t for t in tasks if t.split == "dev"]
    test = [t for t in tasks if t.split == "test"]
    assert dev and test
    assert not {p for t in dev for p in t.problems[1:]} & {p for t in test for p in t.problems[1:]}
    assert all(t.kinds and set(t.kinds) <= set(CASE_KINDS) for t in tasks)
    assert all("multi-intent" in t.kinds for t in tasks)  # hard composes three or four requests
    again = compose_tasks(domain, pack, world, replace(tier("hard"), tasks=24), 0, space=space)
    assert [t.task_id for t in again] == [t.task_id for t in tasks]
    assert json.dumps([t.to_tau2("banking") for t in again]) == json.dumps([t.to_tau2("banking") for t in tasks])


def test_a_composed_scenario_never_withholds_what_another_request_tells(banking):
    """Two requests on one account, one of them testing that the agent looks the account up: the scenario
    gives the user the account's number once and does not also say they do not know it (K8), and a sentence
    two requests share is said once. Banking hard seed 0 said both in 10 of 45 tasks, and the same
    account sentence twice in others."""
    from taugen.validators.defects.scenario import _told_and_withheld

    pack, domain, world, space = banking
    tasks = compose_tasks(domain, pack, world, replace(tier("hard"), tasks=45), 0, space=space)
    scenarios = [t.to_tau2("banking") for t in tasks]
    assert not [s["id"] for s in scenarios if _told_and_withheld(s)]
    for scenario in scenarios:
        known = scenario["user_scenario"]["instructions"]["known_info"]
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", known) if s]
        assert len(sentences) == len(set(sentences)), known
    withheld = [s["id"] for s in scenarios
                if "You do not know the account number" in (s["user_scenario"]["instructions"]["unknown_info"] or "")]
    assert withheld  # the look-up variant still exists where no other request names the account


def test_a_rule_in_force_is_never_a_numbered_catalogue_topic(banking):
    """Facts whose subjects coincide get numbered catalogue topics ("... (2)"), and the user says a topic's
    description: numbered in id order, 41 rules in force read "daily ATM withdrawal limit on Premier Checking
    (3)" in their tasks while their superseded versions kept the plain words. The rule in force keeps them
    now, and no two rules in force share a subject (daily and 30-day mobile deposit limits, the ways a
    customer reactivates a dormant account and the agent's procedure were written alike)."""
    from taugen.domains.banking.families import binding

    pack = banking[0]
    bound = binding(pack)
    numbered = [fact.id for fact in pack.facts.values() if fact.value is not None
                and (topic := bound.topic(fact)) is not None and re.search(r"\(\d+\)$", topic.description)]
    assert numbered  # superseded versions still share their successor's subject
    assert not [fact_id for fact_id in numbered if pack.is_current(fact_id)]


def test_quote_values_are_normalised_by_the_tool():
    from taugen.domains.banking.tools import normalise_quote

    assert normalise_quote("$1,000.00") == normalise_quote("1000") == normalise_quote(1000.0) == "1000"
    assert normalise_quote("3.75 percent") == normalise_quote("3.75%") == "3.75"
    assert normalise_quote("4:00 PM Central Time") == normalise_quote("4:00 pm") == "4:00 pm"
    assert normalise_quote("10 Business Days.") == normalise_quote("10") == "10"
    assert normalise_quote("3 incorrect attempts") == "3"
    assert normalise_quote("April 1, 2026") == "april 1 2026"
    assert normalise_quote("in person at a branch") == "in person at a branch"
    # a clock time is one value however it is written: records say "4 PM Central", labels "4:00 PM Central Time"
    assert {normalise_quote(form) for form in ("4 PM Central", "4pm", "4 p.m. CT", "four pm central",
                                               "4:00 PM Central Time")} == {"4:00 pm"}
    assert normalise_quote("9:30 AM") == "9:30 am" != normalise_quote("9 AM")


def test_every_written_form_of_a_quoted_enum_is_recorded_as_one_value(banking):
    from taugen.authoring.values import EnumValue
    from taugen.domains.banking.tools import normalise_quote

    pack = banking[0]
    enums = [f for f in pack.facts.values() if isinstance(f.value, EnumValue) and family_of(f, False) == "quote"]
    assert enums
    forms = {f.id: f.value.surface_forms() + f.value.voiced_forms() for f in enums}
    split = {fact_id: written for fact_id, written in forms.items() if len({normalise_quote(w) for w in written}) > 1}
    assert split == {}


class _NoReads:
    """A task session whose tools return nothing: only the scenario and the records can state a value."""

    def step(self, action):
        return None

    def probe(self, side, name, arguments):
        return None


def test_k6_takes_any_written_form_of_a_declared_fact():
    from taugen.validators.sufficiency import argument_findings

    task = {"id": "t", "user_scenario": {"instructions": {"reason_for_call": "wire cut-off"}},
            "evaluation_criteria": {"actions": [{"action_id": "0", "name": "record_quote", "requestor": "assistant",
                                                 "arguments": {"value": "4:00 PM Central Time"}}]}}
    records = "If we have it by 4 PM Central it goes out today."
    forms = ["4 PM Central", "4:00 PM Central Time", "four pm central"]
    assert [f.code for f in argument_findings(task, _NoReads(), {}, {}, records)] == ["K6"]
    assert argument_findings(task, _NoReads(), {}, {}, records, equivalents={f.lower(): forms for f in forms}) == []
    assert [f.code for f in argument_findings(task, _NoReads(), {}, {}, "by 5 PM Central",
                                              equivalents={f.lower(): forms for f in forms})] == ["K6"]


def test_problem_base_class_keeps_context_facts_apart():
    assert Problem.context_facts == ()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_default_task_count_meets_the_coverage_targets(seed):
    """Issue 9's targets at hard with the default 300 tasks, from the composed tasks and the corpus plan (about
    7 s of CPU a seed since certificates got faster, so three seeds run by default)."""
    from taugen.build.assemble import task_coverage
    from taugen.generators.corpus.genre import genres
    from taugen.generators.corpus.planner import plan_corpus

    pack = load_pack(PACKS_DIR / "banking")
    domain = load_domain(pack.config)
    world = domain.build_world(pack.config, seed)
    preset = tier("hard")
    plan = plan_corpus(pack, preset, seed, genres())
    space = task_space(domain, pack, world, seed, set(plan.client_held) | set(plan.contested))
    tasks = compose_tasks(domain, pack, world, preset, seed, space=space)
    summary = task_coverage(pack, tasks, plan, space.unexercisable)["summary"]
    assert len(tasks) == preset.tasks >= 300 and all(t.certificate.ok for t in tasks)
    assert summary["typed_record_facts"]["share"] >= 0.9
    assert summary["client_held"]["exercised"] == summary["client_held"]["facts"]
    assert summary["contested"]["exercised"] == summary["contested"]["facts"]
    assert summary["construction_fact_load"] >= 500
    assert all(summary["case_kinds"].get(kind, {}).get("share", 0) >= 0.05 for kind in CASE_KINDS)


def test_k6_takes_a_rate_fee_when_the_declared_rate_is_written_in_words():
    """Seed 2 at hard: the records said "we apply five percent" for a 5 % balance-transfer fee, so the fee of
    a $1,250.00 transaction (62.50) was a false K6 until the declared fact's written forms counted."""
    from taugen.validators.sufficiency import Knowledge, argument_findings

    task = {"id": "t", "user_scenario": {"instructions": {"known_info": "It concerns a transaction of $1,250.00."}},
            "evaluation_criteria": {"actions": [{"action_id": "0", "name": "charge_service_fee", "requestor": "assistant",
                                                 "arguments": {"fee": 62.5}}]}}
    records = Knowledge("On the Rewards Visa balance transfer fee we apply five percent.")
    assert [f.code for f in argument_findings(task, _NoReads(), {}, {}, records)] == ["K6"]
    assert argument_findings(task, _NoReads(), {}, {}, records, rates=[5.0]) == []
    assert [f.code for f in argument_findings(task, _NoReads(), {}, {}, records, rates=[4.0])] == ["K6"]


def test_a_limit_task_asks_in_the_customers_words_and_a_cap_no_one_requests_is_quoted(banking):
    """A limit or minimum task says what the customer asks to do (the fact's authored ``request``), not
    "go ahead with cash back limit at checkout"; a cap that no customer asks against (failed verification
    attempts, a liability limit) is a quote, since "go ahead with failed verification attempts on a call
    for 4" was no request anyone makes."""
    pack, _, _, space = banking
    assert family_of(pack.facts["identity_failed_attempts_lockout"], False) == "quote"
    assert family_of(pack.facts["reg_e_liability_two_business_days"], False) == "quote"
    assert family_of(pack.facts["channel_limit_everyday_checking_cash_back"], False) == "limit"
    assert family_of(pack.facts["cd_minimum_3_month"], False) == "minimum"
    seen = set()
    for family, variant in (("limit", "under"), ("limit", "over"), ("minimum", "at"), ("minimum", "below")):
        for problem in [p for p in space.problems if getattr(p, "family", None) == family and p.variant == variant][:6]:
            record = _realise(banking, (problem,))
            instructions = record.scenario["instructions"]
            said = f"{instructions['reason_for_call']} {instructions['task_instructions']}"
            assert "go ahead with" not in said
            assert re.search(rf"[Aa]sk to {re.escape(problem.request)}\b[^.]* for \$?[\d,.]+\.", said), said
            assert f"You want to {problem.request}" in said
            if family == "minimum":
                assert " from your " in said  # the opening deposit comes from the account the task binds
            seen.add(problem.fact_id)
    assert len(seen) >= 12


def test_a_request_completes_you_want_to_and_needs_an_amount():
    from pydantic import ValidationError

    from taugen.authoring.models import Fact

    base = {"id": "cash_back_cap", "section": "cards", "category": "limit",
            "statement": "Cash back at checkout is limited to $100.00 per purchase.",
            "value": {"type": "cap", "amount": "100.00", "currency": "USD", "per": "transaction"},
            "effective_from": "2025-01-01"}
    assert Fact(**base, request="get  cash back at checkout").request == "get cash back at checkout"
    for bad in ("Get cash back at checkout", "get cash back at checkout.", "get {amount} cash back"):
        with pytest.raises(ValidationError, match="You want to"):
            Fact(**base, request=bad)
    with pytest.raises(ValidationError, match="cap or money"):
        Fact(**{**base, "statement": "Cash back is offered at checkout.", "value": None}, request="get cash back")


def test_a_tasks_purpose_reads_its_problems_apart():
    """``description.purpose`` ran its problems' summaries together with spaces ("...at the Old Town branch
    quote family (quote): the High Yield Savings Plus tier yield Replacement card ..."): each now ends with a
    semicolon but the last, which ends the sentence, whether or not a summary had its own full stop."""
    from taugen.generators.tasks import task_purpose

    assert task_purpose(["fee family (charge): the medium safe deposit box rent at the Old Town branch",
                         "quote family (quote): the High Yield Savings Plus tier yield",
                         "Replacement card to an address changed in the hold window: transfer to the fraud team."]) == (
        "fee family (charge): the medium safe deposit box rent at the Old Town branch; quote family (quote): the "
        "High Yield Savings Plus tier yield; Replacement card to an address changed in the hold window: transfer "
        "to the fraud team.")
    assert task_purpose(["Verify the caller first."]) == "Verify the caller first."
    assert task_purpose([]) == "" and task_purpose(["", " "]) == ""
