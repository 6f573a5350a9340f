"""Sealed evaluation through the client API and tau2's orchestrator: the reference oracle, the empty
scaffold and the seeded start on banking hard's test split (offline: scripted users, no model call)."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("tau2")

from taugen.construction.evaluate import evaluate, score  # noqa: E402


@pytest.fixture(scope="module")
def hard(built_bundle):
    return built_bundle("hard")


def test_reference_scores_at_least_095_and_the_empty_scaffold_0(hard, tmp_path):
    from taugen.build.tau2_runtime import silence_tau2_logs

    silence_tau2_logs()
    reference = evaluate(hard, "reference")
    empty = evaluate(hard, hard / "kit" / "workspace")
    seeded = evaluate(hard, "seeded-tools")
    assert reference["conversations"] >= 10
    assert reference["mean_reward"] >= 0.95 and reference["final_score"] >= 0.95
    assert empty["mean_reward"] == 0.0 and empty["final_score"] == 0.0
    assert all("NotImplementedError" in task["error"] for task in empty["tasks"])
    # The reference decided every sealed conversation from the records it read, none by replaying the recorded
    # gold; on the state the gold was recorded on, it picked the recorded problem every time.
    counts = reference["reference"]
    assert counts["decided"] == counts["conversations"] == reference["conversations"]
    assert counts["fallback"] == counts["problems_fallback"] == counts["unrecognised"] == 0
    assert counts["decided_otherwise"] == [] and counts["problems_decided"] > counts["conversations"]
    # The seeded start's tools under the oracle's decisions (no fallback): the planted missing branches cost
    # every case that ends with a human team (no hand-over tool) and every case whose records lie past the first
    # page of a list (its list tools never follow next_cursor), so the oracle decided on less than the reference
    # read, or could not decide. (The seeded agent itself needs a model.)
    assert 0.0 < seeded["mean_reward"] < reference["mean_reward"]
    by_reference = {t["task_id"]: t["agent_report"]["decisions"] for t in reference["tasks"]}
    failed = [t for t in seeded["tasks"] if t["reward"] < 1]
    no_handover = [t for t in failed if any("transfer_to_human_agents" in e for e in t.get("tool_errors", []))]
    short_reads = [t for t in failed if t not in no_handover]
    assert no_handover and short_reads
    assert all(t["agent_report"]["mode"] == "undecided" or t["agent_report"]["decisions"] != by_reference[t["task_id"]]
               for t in short_reads)
    assert set(reference) >= {"mean_reward", "pass_hat_k", "mean_budget_fraction", "final_score", "latency", "tasks"}

    # The three numbers go into the reviewer report from their saved score files (taugen report --scores).
    import json

    from taugen.build.report_html import write_report
    from taugen.errors import InputError

    saved = []
    for name, result in (("reference", reference), ("empty", empty), ("seeded", seeded)):
        saved.append(tmp_path / f"{name}.json")
        saved[-1].write_text(json.dumps(result), encoding="utf-8")
    paths = write_report(hard, tmp_path / "report.html", scores=saved)
    rows = json.loads(paths.json.read_text())["construction_scores"]
    assert [(r["workspace"], r["final_score"]) for r in rows] == [
        (reference["workspace"], reference["final_score"]), (empty["workspace"], 0.0),
        (seeded["workspace"], seeded["final_score"])]
    html = paths.html.read_text()
    assert "Construction scores" in html
    assert f"{counts['decided']} of {counts['conversations']} decided at run time, 0 fallback" in html
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**empty, "bundle": "banking-hard-9.9.9"}), encoding="utf-8")
    with pytest.raises(InputError, match="not 'banking-hard"):
        write_report(hard, tmp_path / "report2.html", scores=[other])
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable score JSON"):
        write_report(hard, tmp_path / "report3.html", scores=[tmp_path / "broken.json"])


DEV_ONLY = ("courtesy_overdraft_refund", "late_reg_e_claim", "stop_payment")
"""Hand-written problems the sealed test split never holds, at any seed: ``generators.tasks.task_space`` reserves
every fifth hand-written problem by name for the ``dev`` split (positions 2, 7 and 12 of banking's 16), so that
dev shows refusals and transfers too. The reference's run-time decisions on them are scored on the dev split."""


def _problems_in(bundle, split: str) -> set[str]:
    records = bundle.json("author/task_facts.json")
    return {p for task_id in bundle.split(split) for p in records[task_id]["problems"]}


def _decided_everything(result: dict) -> dict:
    """The reference's totals, after checking it scored ≥ 0.95 and decided every conversation at run time."""
    counts = result["reference"]
    assert result["mean_reward"] >= 0.95 and result["final_score"] >= 0.95, result["mean_reward"]
    assert counts["decided"] == counts["conversations"] == result["conversations"], counts["fallbacks"]
    assert counts["fallback"] == counts["problems_fallback"] == counts["unrecognised"] == 0
    return counts


def test_the_reference_decides_the_dev_only_problems_on_the_dev_split(hard):
    """The three dev-only hand-written problems are scored where they are: the dev split of seed 0's bundle holds
    each of them, and the reference decides all of its conversations at run time, none by replaying the gold."""
    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.bundle import ConstructionBundle

    silence_tau2_logs()
    bundle = ConstructionBundle.open(hard)
    assert not set(DEV_ONLY) & _problems_in(bundle, "test") and set(DEV_ONLY) <= _problems_in(bundle, "dev")
    counts = _decided_everything(evaluate(hard, "reference", split="dev"))
    assert all(counts["decided_by_problem"].get(name, 0) >= 1 for name in DEV_ONLY), counts["decided_by_problem"]
    assert counts["decided_otherwise"] == []


# Seeds whose deployment rounds get_account (1, 3-5, 8 and 9 of the first ten): seed 1's bundle is built in the
# default run anyway (tests/test_seed_sample.py, same key: no readers), the others are slow.
_ROUNDING_SEEDS = [1] + [pytest.param(seed, marks=pytest.mark.slow) for seed in (3, 4, 5, 8, 9)]


@pytest.mark.parametrize("seed", _ROUNDING_SEEDS)
def test_the_reference_decides_both_splits_where_the_deployment_rounds_balances(built_bundle, seed):
    """At a seed whose deployment rounds ``get_account`` to whole dollars, the reference scores ≥ 0.95 on the
    sealed test split and on the dev split (the dev-only problems), deciding every conversation at run time; the
    empty scaffold scores 0."""
    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.bundle import ConstructionBundle

    silence_tau2_logs()
    path = built_bundle("hard", seed=seed, readers=False)
    bundle = ConstructionBundle.open(path)
    assert [d.operations for d in bundle.deployment(None).defects if d.kind == "rounding"] == [("get_account",)]
    assert set(DEV_ONLY) <= _problems_in(bundle, "dev")
    _decided_everything(evaluate(path, "reference"))
    counts = _decided_everything(evaluate(path, "reference", split="dev"))
    assert all(counts["decided_by_problem"].get(name, 0) >= 1 for name in DEV_ONLY), counts["decided_by_problem"]
    empty = evaluate(path, path / "kit" / "workspace")
    assert empty["mean_reward"] == 0.0 and empty["final_score"] == 0.0


def test_score_subtracts_the_mean_overage_fraction_and_floors_at_zero():
    limits = [{"percentile": 50, "max_seconds": 10.0}, {"percentile": 90, "max_seconds": 30.0}]
    results = [{"task_id": "a", "reward": 1.0, "credits": 0.2, "latencies": [1.0]},
               {"task_id": "b", "reward": 0.0, "credits": 0.05, "latencies": [2.0]}]
    report = score(results, budget=0.1, latency_limits=limits, trials=1)
    assert report["mean_reward"] == 0.5
    assert report["mean_budget_fraction"] == 1.25 and report["mean_overage_fraction"] == 0.5
    assert report["final_score"] == 0.0
    slow = score([{"task_id": "a", "reward": 1.0, "credits": 0.0, "latencies": [40.0]}], 0.1, limits, 1)
    assert slow["final_score"] == 0.0 and slow["latency_gates"] == {"p50": False, "p90": False}
    fine = score([{"task_id": "a", "reward": 1.0, "credits": 0.0, "latencies": [1.0]}], 0.1, limits, 1)
    assert fine["final_score"] == 1.0 and fine["pass_hat_k"] == {"1": 1.0}


def test_local_test_runs_one_sample_scenario(hard):
    from taugen.construction.evaluate import local_test

    sample = sorted((hard / "kit" / "simulations").glob("*.json"))[0]
    assert local_test(hard, "reference", sample)["mean_reward"] == 1.0
    empty = local_test(hard, hard / "kit" / "workspace", sample)
    assert empty["mean_reward"] == 0.0 and "NotImplementedError" in empty["tasks"][0]["error"]


def test_the_seeded_agent_runs_its_model_path_offline_through_litellm_mock_responses(hard, tmp_path):
    """The seeded start's agent (an LLM agent over its planted tools) runs through the evaluator with the
    evaluator's litellm arguments (``--agent-llm-args``): litellm's own mock answers every completion, so no
    provider is reached, the meter counts each call at the manifest's rates, and a reply that never acts
    scores 0. A real score of the seeded agent needs a model; the path to it is this one."""
    import json
    import subprocess
    import sys

    from taugen.build.tau2_runtime import silence_tau2_logs

    silence_tau2_logs()
    mock = {"mock_response": "Thanks for your patience; let me look into that for you."}
    result = evaluate(hard, "seeded", limit=2, llm_args=mock)
    assert result["workspace"].endswith("seeded_workspace") and result["conversations"] == 2
    assert result["mean_reward"] == 0.0
    assert all(task["credits"] > 0 and not task.get("error") for task in result["tasks"]), result["tasks"]
    assert result["mean_budget_fraction"] > 0
    # without the evaluator's arguments the agent's own options stand: a bad JSON object is one line, exit 2
    run = subprocess.run([sys.executable, "-m", "taugen", "evaluate", str(hard), "--workspace", "seeded",
                          "--agent-llm-args", "[1]"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--agent-llm-args must be a JSON object" in run.stderr, run.stderr


# ------------------------------------------------------------------------ a served state the gold was not recorded on
def _money(amount: float) -> str:
    return f"${amount:,.2f}"


def _spliced(actions: list[dict], old_calls: list, new_calls: list) -> list[dict]:
    """The recorded gold ``actions`` with the contiguous run of ``old_calls`` (one problem's ``solve()`` on its
    recorded state) replaced by ``new_calls`` (its ``solve()`` on the changed state), action ids renumbered."""
    recorded = [(a["name"], a["arguments"]) for a in actions]
    old = [(c.name, c.arguments) for c in old_calls]
    start = next((i for i in range(len(recorded) - len(old) + 1) if recorded[i:i + len(old)] == old), None)
    assert start is not None, f"{old} is not a run of the recorded gold {recorded}"
    calls = [(a["name"], a["arguments"], a.get("requestor", "assistant")) for a in actions[:start]]
    calls += [(c.name, c.arguments, c.requestor) for c in new_calls]
    calls += [(a["name"], a["arguments"], a.get("requestor", "assistant")) for a in actions[start + len(old):]]
    return [{"action_id": f"{i}_{name}", "requestor": requestor, "name": name, "arguments": arguments, "info": None,
             **({"compare_args": ["department"]} if name == "transfer_to_human_agents" else {})}
            for i, (name, arguments, requestor) in enumerate(calls)]


def changed_task(bundle_dir, construction: str):
    """A task of the bundle served on a state that differs from the one its gold was recorded on, in a way the
    policy decides, with the gold recomputed by the build's own problem functions for the changed state.

    ``dispute_amount``: the unauthorized debit of an ``unauthorized_debit_dispute`` task (a small claim: same-day
    provisional credit) is made larger than the small-claim threshold, and the caller says the new amount; the
    gold becomes ``UnauthorizedDebitDisputeOverThreshold.solve`` (a claim, no credit yet).
    ``courtesy_date``: the earlier courtesy refund of a ``courtesy_refund_already_used`` task (and the fee it
    refunded) is moved before the courtesy-refund window, and the caller says the new date; the gold becomes
    ``CourtesyOverdraftRefund.solve`` (refund the new overdraft fee).
    ``courtesy_edge``: that earlier refund is moved to the first day inside the courtesy-refund window as counted
    on the bundle's date (one day later it falls outside); the gold stays the recorded refusal.

    Returns ``(bundle, original task, changed task, changed initial database, the problem now expected)``.
    """
    import copy
    import datetime as dt
    import random

    from taugen.construction.bundle import ConstructionBundle
    from taugen.construction.evaluate import initial_database
    from taugen.domains.banking import problems as banking
    from taugen.domains.banking.policy import COURTESY, PROVISIONAL_CREDIT
    from taugen.generators.policy import ManifestFacts, PolicyContext, duration_days
    from taugen.generators.problems import ProblemContext

    bundle = ConstructionBundle.open(bundle_dir)
    records = bundle.json("author/task_facts.json")
    recorded = {"dispute_amount": "unauthorized_debit_dispute", "courtesy_date": "courtesy_refund_already_used",
                "courtesy_edge": "courtesy_refund_already_used"}
    task_id = next(t for t in sorted(bundle.tasks) if recorded[construction] in records[t]["problems"])
    original = bundle.tasks[task_id]
    task = copy.deepcopy(original)
    database = initial_database(bundle, task)
    toolkit = bundle.toolkit_class(database, bundle.now)
    today = bundle.now.date()
    facts = ManifestFacts(bundle.manifest["facts"])
    instructions = task["user_scenario"]["instructions"]
    actions = task["evaluation_criteria"]["actions"]

    def context(state):
        return ProblemContext(toolkit=toolkit, pack=None, customer_id=records[task_id]["customer_id"],
                              rng=random.Random(0), state=state)

    if construction == "dispute_amount":
        opened = next(a for a in actions if a["name"] == "open_dispute")
        charge = database.transactions[opened["arguments"]["transaction_id"]]
        threshold = facts.value("reg_e_small_claim_instant_credit").amount
        old_amount, new_amount = round(-charge.amount, 2), round(float(threshold) + 40.0, 2)
        assert old_amount <= float(threshold) < new_amount
        state = {"account_id": charge.account_id, "transaction_id": charge.transaction_id, "same_day_credit": True,
                 "amount": old_amount}
        old_calls = banking.UnauthorizedDebitDispute().solve(context(state))
        new_calls = banking.UnauthorizedDebitDisputeOverThreshold().solve(
            context({**state, "same_day_credit": False, "amount": new_amount}))
        charge.amount = -new_amount
        account = database.accounts[charge.account_id]
        account.balance = round(account.balance + old_amount - new_amount, 2)
        said = instructions["known_info"].replace(f"The charge is {_money(old_amount)}",
                                                  f"The charge is {_money(new_amount)}")
        expected = "unauthorized_debit_dispute_over_threshold"
        # the policy agrees: once the claim is open, same-day credit on the larger charge is forbidden
        trial = bundle.toolkit_class(database.model_copy(deep=True), bundle.now)
        verify = next(a for a in actions if a["name"] == "verify_identity")["arguments"]
        assert trial.call("verify_identity", **verify).error is None
        assert trial.call("open_dispute", **opened["arguments"]).error is None
        credit = next(a for a in actions if a["name"] == "issue_provisional_credit")["arguments"]
        assert PROVISIONAL_CREDIT.check(PolicyContext(trial.db, facts, bundle.now), "issue_provisional_credit", credit)
    else:
        account_id = next(a for a in actions if a["name"] == "list_fee_refunds")["arguments"]["account_id"]
        refunded = {r.transaction_id: r for r in database.fee_refunds.values()
                    if r.account_id == account_id and r.reason == "courtesy"}
        assert refunded, "the task records no earlier courtesy refund"
        fee_id = next(t.transaction_id for t in database.transactions.values() if t.account_id == account_id
                      and t.fee_type == "overdraft" and t.transaction_id not in refunded)
        state = {"account_id": account_id, "fee_id": fee_id}
        old_calls = banking.CourtesyRefundAlreadyUsed().solve(context(state))
        edge = construction == "courtesy_edge"
        new_calls = old_calls if edge else banking.CourtesyOverdraftRefund().solve(context(state))
        window = duration_days(facts.value("courtesy_refund_window"), today)
        target = today - dt.timedelta(days=window - 1 if edge else window + 35)
        said = instructions["known_info"]
        for transaction_id, refund in refunded.items():
            old_day = dt.date.fromisoformat(refund.refunded_on)
            shift = (old_day - target).days
            for row in database.transactions.values():  # the fee, and the credit the refund posted, move with it
                if row.account_id == account_id and (row.transaction_id == transaction_id or (
                        row.kind == "credit" and row.posted_on == refund.refunded_on)):
                    row.posted_on = (dt.date.fromisoformat(row.posted_on) - dt.timedelta(days=shift)).isoformat()
            new_day = old_day - dt.timedelta(days=shift)
            refund.refunded_on = new_day.isoformat()
            said = said.replace(f"{old_day:%B} {old_day.day}, {old_day.year}",
                                f"{new_day:%B} {new_day.day}, {new_day.year}")
        refund_call = {"transaction_id": fee_id, "reason": "courtesy"}
        tomorrow = bundle.now + dt.timedelta(days=1)
        if edge:  # the policy agrees: refused today, allowed tomorrow
            expected = "courtesy_refund_already_used"
            assert COURTESY.check(PolicyContext(database, facts, bundle.now), "refund_fee", refund_call)
            assert COURTESY.check(PolicyContext(database, facts, tomorrow), "refund_fee", refund_call) == []
        else:  # the policy agrees: with the earlier refund outside the window, this one is allowed
            expected = "courtesy_overdraft_refund"
            assert COURTESY.check(PolicyContext(database, facts, bundle.now), "refund_fee", refund_call) == []
    assert said != instructions["known_info"]
    instructions["known_info"] = said
    task["evaluation_criteria"]["actions"] = _spliced(actions, old_calls, new_calls)
    task["initial_state"] = None  # the changed state is served as a whole (database below)
    return bundle, original, task, database, expected


@pytest.mark.parametrize("construction", ["dispute_amount", "courtesy_date"])
def test_the_reference_decides_on_the_served_state_where_replaying_the_gold_fails(hard, construction):
    """The served state differs from the one the gold was recorded on, in a way the policy decides: the
    run-time reference reads it and passes; the replay of the recorded gold (which passes on the recorded
    state) fails."""
    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.evaluate import _rates, run_conversation
    from taugen.construction.reference import reference_workspace, replay_workspace
    from taugen.construction.server import running_server, service_for_bundle

    silence_tau2_logs()
    bundle, original, task, database, expected = changed_task(hard, construction)
    assert task["evaluation_criteria"]["actions"] != original["evaluation_criteria"]["actions"]
    service = service_for_bundle(bundle, None, "evaluation")
    rates = _rates(bundle)[0]
    reference, replay = reference_workspace(bundle), replay_workspace(bundle)
    with running_server(service) as url:
        on_record = run_conversation(bundle, service, url, replay, original, f"{construction}-0", "scripted", rates)
        replayed = run_conversation(bundle, service, url, replay, task, f"{construction}-1", "scripted", rates,
                                    database=database)
        decided = run_conversation(bundle, service, url, reference, task, f"{construction}-2", "scripted", rates,
                                   database=database)
    assert on_record["reward"] == 1.0  # the replay is right where the gold was recorded
    assert replayed["agent_report"]["task_id"] == task["id"]  # it recognised the task, and replayed its gold
    assert replayed["reward"] == 0.0
    report = decided["agent_report"]
    assert decided["reward"] == 1.0 and report["mode"] == "decided" and report["task_id"] == task["id"]
    chosen = {d["problem"]: d["chosen"] for d in report["decisions"]}
    assert expected in chosen.values() and expected not in chosen  # another alternative than the one recorded


def _deployment_with(bundle, kind: str, operation: str):
    """The bundle's full deployment cut to its one defect of ``kind``, bound to ``operation`` instead (the
    seeds bind each kind to an operation of its shape; the test needs a given one)."""
    only = bundle.deployment("production").only(kind)
    assert len(only.defects) == 1
    return only.model_copy(update={"defects": (only.defects[0].model_copy(update={"operations": (operation,)}),)})


def test_the_reference_reads_an_exact_balance_where_the_deployment_rounds_it(hard):
    """A deployment that rounds ``get_account`` to whole dollars shows an account overdrawn by 30 cents as $0.00,
    which would pass the courtesy refund's good-standing check. The served state: the earlier courtesy refund of a
    ``courtesy_refund_already_used`` task lies outside the window (``courtesy_date``: a refund would be allowed)
    and a purchase has left the account 30 cents overdrawn, so the policy refuses the refund and the gold is the
    task's recorded one (no refund). The reference takes the balance from the account's ledger and refuses."""
    import copy

    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.evaluate import _rates, run_conversation
    from taugen.construction.reference import reference_workspace
    from taugen.construction.server import ApiService, running_server
    from taugen.domains.banking.db import Transaction
    from taugen.domains.banking.policy import COURTESY
    from taugen.generators.policy import ManifestFacts, PolicyContext

    silence_tau2_logs()
    bundle, original, task, database, _ = changed_task(hard, "courtesy_date")
    refund = next(a for a in task["evaluation_criteria"]["actions"] if a["name"] == "refund_fee")["arguments"]
    account = database.accounts[database.transactions[refund["transaction_id"]].account_id]
    assert account.kind == "checking" and account.balance > 0
    database.transactions["TX-TEST-OVERDRAWN"] = Transaction(
        transaction_id="TX-TEST-OVERDRAWN", account_id=account.account_id, posted_on=bundle.now.date().isoformat(),
        description="Target T-0231", amount=-round(account.balance + 0.30, 2), kind="purchase")
    account.balance = -0.30
    facts = ManifestFacts(bundle.manifest["facts"])
    broken = COURTESY.check(PolicyContext(database, facts, bundle.now), "refund_fee", refund)
    assert [v.facts for v in broken] == [("courtesy_refund_good_standing",)]  # the balance alone forbids it
    account.balance = 0.0  # as the rounding deployment shows it: the refund would be allowed
    assert COURTESY.check(PolicyContext(database, facts, bundle.now), "refund_fee", refund) == []
    account.balance = -0.30
    task = {**copy.deepcopy(task), "evaluation_criteria": copy.deepcopy(original["evaluation_criteria"])}

    deployment = _deployment_with(bundle, "rounding", "get_account")
    service = ApiService(bundle.toolkit_class, bundle.database("evaluation"), bundle.now, bundle.openapi, deployment)
    service.open_session("probe", database)
    shown = service.handle("get_account", {"account_id": account.account_id}, None, {"x-session-key": "probe"})
    assert shown.status == 200 and shown.body["balance"] == 0.0  # the rounding hides the overdraft
    with running_server(service) as url:
        result = run_conversation(bundle, service, url, reference_workspace(bundle), task, "rounded", "scripted",
                                  _rates(bundle)[0], database=database)
    report = result["agent_report"]
    assert result["reward"] == 1.0 and report["mode"] == "decided"
    chosen = {d["problem"]: d["chosen"] for d in report["decisions"]}
    assert chosen["courtesy_refund_already_used"] == "courtesy_refund_already_used"
    assert service.session_database("rounded").fee_refunds.keys() == database.fee_refunds.keys()  # no refund made


def test_clock_readings_are_the_dates_an_hour_either_way_allows():
    import datetime as dt

    from taugen.construction.reference import clock_readings

    zone = dt.timezone(dt.timedelta(hours=-5))
    morning, late, early = (dt.datetime(2026, 3, 16, h, m, tzinfo=zone) for h, m in ((10, 30), (23, 30), (0, 30)))
    assert clock_readings(morning) == [morning]
    assert clock_readings(late) == [late, late + dt.timedelta(hours=1)]
    assert clock_readings(early) == [early, early - dt.timedelta(hours=1)]


def test_within_an_hour_of_midnight_the_reference_decides_only_what_the_date_does_not_decide(hard):
    """The bank's clock at 23:30, served by a deployment whose ``get_current_time`` is an hour ahead (it reads
    00:30 the next day, same offset). Where the date decides (``courtesy_edge``: the earlier courtesy refund is
    inside the window today and outside it tomorrow, so today the refund is refused), the reference does not
    decide on the date it read: it falls back explicitly, naming the clock, and makes no refund. Where the date
    does not decide (the task as recorded), it decides at run time as at 10:30."""
    import datetime as dt

    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.evaluate import _rates, initial_database, run_conversation
    from taugen.construction.reference import reference_workspace
    from taugen.construction.server import ApiService, running_server

    silence_tau2_logs()
    bundle, original, task, database, _ = changed_task(hard, "courtesy_edge")
    late = bundle.now.replace(hour=23, minute=30)
    bundle.manifest["now"] = late.isoformat()  # the world's clock: the served one and the gold's
    assert bundle.now == late
    deployment = _deployment_with(bundle, "timezone_off_by_one", "get_current_time")
    service = ApiService(bundle.toolkit_class, bundle.database("evaluation"), bundle.now, bundle.openapi, deployment)
    shown = service.handle("get_current_time", {}, None, {})
    assert shown.body["message"] == (late + dt.timedelta(hours=1)).isoformat()  # tomorrow, 00:30
    rates = _rates(bundle)[0]
    with running_server(service) as url:
        edge = run_conversation(bundle, service, url, reference_workspace(bundle), task, "edge", "scripted", rates,
                                database=database)
        recorded = run_conversation(bundle, service, url, reference_workspace(bundle), original, "recorded",
                                    "scripted", rates, database=initial_database(bundle, original))
    report = edge["agent_report"]
    assert report["mode"] == "fallback" and "within 1:00:00 of midnight, and the date decides" in report["fallback"]
    read = (late + dt.timedelta(hours=1)).date()
    assert f"on {read} the writes are [('refund_fee'" in report["fallback"]  # what the read date alone gave
    today = report["fallback"].split(f"on {late.date()} ", 1)[1]  # what the bank's own date gives: no refund
    assert today.startswith("[(") and "refund_fee" not in today
    assert edge["reward"] == 1.0  # the recorded gold, replayed: no courtesy refund
    assert service.session_database("edge").fee_refunds.keys() == database.fee_refunds.keys()
    assert recorded["reward"] == 1.0 and recorded["agent_report"]["mode"] == "decided"


def test_exact_balances_takes_the_ledger_only_for_a_whole_dollar_balance_it_explains():
    from taugen.domains.banking.readers import exact_balances

    ledger = [{"account_id": "A1", "amount": "812.40"}, {"account_id": "A1", "amount": -812.70},
              {"account_id": "C1", "amount": -40.25}, {"account_id": "B1", "amount": 10.0}]
    accounts = [{"account_id": "A1", "kind": "checking", "balance": 0.0},  # rounded from -0.30
                {"account_id": "C1", "kind": "credit_card", "balance": "40.0"},  # owes 40.25
                {"account_id": "B1", "kind": "savings", "balance": 12.0},  # the ledger does not explain it
                {"account_id": "D1", "kind": "savings", "balance": 7.0},  # no ledger read
                {"account_id": "E1", "kind": "checking", "balance": 3.15}]  # cents: exact as read
    assert [a["balance"] for a in exact_balances(accounts, ledger)] == [-0.3, 40.25, 12.0, 7.0, 3.15]
    assert accounts[0]["balance"] == 0.0  # the reads are not changed


def test_a_problem_the_read_records_do_not_decide_falls_back_explicitly(hard):
    """When the served records lack what a problem needs (here the charge the caller disputes), the reference
    says which problem and why, replays the recorded gold for that task, and the totals count it."""
    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.evaluate import _rates, agent_reports, run_conversation
    from taugen.construction.reference import reference_workspace
    from taugen.construction.server import running_server, service_for_bundle

    silence_tau2_logs()
    bundle, original, task, database, _ = changed_task(hard, "dispute_amount")
    task = {**original, "initial_state": None}  # the recorded scenario and gold, on a state without the charge
    opened = next(a for a in original["evaluation_criteria"]["actions"] if a["name"] == "open_dispute")
    del database.transactions[opened["arguments"]["transaction_id"]]
    service = service_for_bundle(bundle, None, "evaluation")
    with running_server(service) as url:
        result = run_conversation(bundle, service, url, reference_workspace(bundle), task, "no-charge", "scripted",
                                  _rates(bundle)[0], database=database)
    report = result["agent_report"]
    assert report["mode"] == "fallback"
    assert "unauthorized_debit_dispute: " in report["fallback"] and "no undisputed charge" in report["fallback"]
    totals = agent_reports([result])
    assert totals["fallback"] == 1 and totals["decided"] == 0
    assert totals["problems_fallback"] == len(report["problems"]) and totals["fallbacks"][0]["task_id"] == task["id"]
