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


def test_reference_scores_at_least_095_and_the_empty_scaffold_0(hard):
    from taugen.build.tau2_runtime import silence_tau2_logs

    silence_tau2_logs()
    reference = evaluate(hard, "reference")
    empty = evaluate(hard, hard / "kit" / "workspace")
    seeded = evaluate(hard, "seeded-tools")
    assert reference["conversations"] >= 10
    assert reference["mean_reward"] >= 0.95 and reference["final_score"] >= 0.95
    assert empty["mean_reward"] == 0.0 and empty["final_score"] == 0.0
    assert all("NotImplementedError" in task["error"] for task in empty["tasks"])
    # The seeded start's tools under the oracle's decisions: the planted missing branch (no hand-over tool)
    # fails every case that ends with a human team, the rest pass. (The seeded agent itself needs a model.)
    assert 0.0 < seeded["mean_reward"] < reference["mean_reward"]
    failed = [t for t in seeded["tasks"] if t["reward"] < 1]
    assert failed and all(any("transfer_to_human_agents" in e for e in t.get("tool_errors", [])) for t in failed)
    assert set(reference) >= {"mean_reward", "pass_hat_k", "mean_budget_fraction", "final_score", "latency", "tasks"}


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
