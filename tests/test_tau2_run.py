"""`taugen run` and `taugen tau2`: agents run through tau2's own orchestrator, user simulator and
evaluator on taugen bundles, all offline (offline agents, a scripted user, litellm's mock_response)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import taugen  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before tau2 imports litellm)

pytest.importorskip("tau2")

from taugen.build import tau2_runtime
from taugen.build import tau2_workarounds_26_3 as workarounds
from taugen.build.tau2_run import RunSettings, policy_for, run_bundle
from taugen.errors import InputError

pytestmark = pytest.mark.tau2


@pytest.fixture(scope="module", autouse=True)
def _quiet_tau2():
    tau2_runtime.silence_tau2_logs()


def _task_ids(bundle: Path) -> list[str]:
    domain = json.loads((bundle / "author" / "manifest.json").read_text())["domain"]
    return [task["id"] for task in json.loads((bundle / "tau2" / "domains" / domain / "tasks.json").read_text())]


def _rewards(outcome) -> dict[str, float]:
    return {s.task_id: s.reward_info.reward for s in outcome.results.simulations}


@pytest.mark.parametrize("tier,domain", [("easy", "banking"), ("hard", "banking"), ("easy", "telecom")])
def test_gold_agent_with_scripted_user_scores_one_on_every_task(built_bundle, tmp_path, tier, domain):
    from tau2.data_model.simulation import Results

    bundle = built_bundle(tier, domain=domain)
    outcome = run_bundle(bundle, RunSettings(agent="gold", user="scripted", save_to=tmp_path / "gold.json"))
    rewards = _rewards(outcome)
    assert sorted(rewards) == sorted(_task_ids(bundle))
    assert {task_id: r for task_id, r in rewards.items() if r != 1.0} == {}
    assert {s.termination_reason.value for s in outcome.results.simulations} == {"user_stop"}
    loaded = Results.load(outcome.path)  # tau2's own results model reads the file
    assert len(loaded.simulations) == len(rewards) and loaded.info.agent_info.implementation == "taugen_gold_agent"
    base = next(row for row in outcome.splits if row.split == "base")
    assert (base.tasks, base.avg_reward, base.pass_hat_k) == (len(rewards), 1.0, {1: 1.0})
    splits = json.loads((bundle / "tau2" / "domains" / domain / "split_tasks.json").read_text())
    assert [row.split for row in outcome.splits] == [name for name, ids in splits.items() if ids]


@pytest.mark.parametrize("tier,domain", [("easy", "banking"), ("easy", "telecom")])
def test_empty_agent_scores_zero_on_every_task(built_bundle, tmp_path, tier, domain):
    bundle = built_bundle(tier, domain=domain)
    outcome = run_bundle(bundle, RunSettings(agent="empty", user="scripted", save_to=tmp_path / "empty.json"))
    rewards = _rewards(outcome)
    assert len(rewards) == len(_task_ids(bundle))
    assert {task_id: r for task_id, r in rewards.items() if r != 0.0} == {}


def test_telecom_user_side_gold_steps_are_made_by_the_scripted_user_on_its_own_tools(built_bundle, tmp_path):
    bundle = built_bundle("easy", domain="telecom")
    outcome = run_bundle(bundle, RunSettings(agent="gold", user="scripted", save_to=tmp_path / "t.json"))
    user_calls = [call for s in outcome.results.simulations for m in s.messages if m.role == "user"
                  for call in (m.tool_calls or [])]
    assert user_calls and {call.requestor for call in user_calls} == {"user"}
    # the tasks come from the bundle, not from tau2's own telecom data
    assert {t.id for t in outcome.results.tasks} == set(_task_ids(bundle))


def test_llm_agent_path_runs_one_conversation_through_litellm_mock_response(built_bundle, tmp_path):
    bundle = built_bundle("easy")
    task_id = _task_ids(bundle)[0]
    settings = RunSettings(agent="llm", agent_llm="gpt-4o-mini",
                           agent_llm_args={"mock_response": "I can look into that card for you."},
                           user="llm", user_llm="gpt-4o-mini", user_llm_args={"mock_response": "Thanks. ###STOP###"},
                           task_ids=[task_id], save_to=tmp_path / "llm.json", num_trials=2)
    outcome = run_bundle(bundle, settings)
    assert len(outcome.results.simulations) == 2
    for simulation in outcome.results.simulations:
        texts = [(m.role, m.content) for m in simulation.messages]
        assert texts == [("assistant", "Hi! How can I help you today?"), ("user", "Thanks. ###STOP###")]
        assert simulation.reward_info.reward == 0.0
    assert outcome.results.info.agent_info.llm == "gpt-4o-mini"
    # trial seeds are drawn as tau2.run.run_tasks draws them
    import random

    random.seed(300)
    assert sorted(s.seed for s in outcome.results.simulations) == sorted(random.randint(0, 1000000) for _ in range(2))

    agent_only = RunSettings(agent="llm", agent_llm="gpt-4o-mini",
                             agent_llm_args={"mock_response": "Your card is being replaced."}, user="scripted",
                             task_ids=[task_id], save_to=tmp_path / "llm2.json")
    simulation = run_bundle(bundle, agent_only).results.simulations[0]
    assert [m.role for m in simulation.messages][:3] == ["assistant", "user", "assistant"]
    assert simulation.messages[2].content == "Your card is being replaced."
    assert simulation.reward_info.reward == 0.0


def test_policy_modes_full_states_every_current_fact_and_bundle_mode_says_it_is_demoted(built_bundle, tmp_path):
    bundle = built_bundle("hard")
    manifest = json.loads((bundle / "author" / "manifest.json").read_text())
    policy = (bundle / "tau2" / "domains" / "banking" / "policy.md").read_text()
    demoted = policy_for(policy, manifest, "bundle")
    full = policy_for(policy, manifest, "full")
    current = [f for f in manifest["facts"].values() if f["current"] and f["effective_from"] <= manifest["now"][:10]]
    assert demoted.demoted and demoted.missing > 0 and "construction run" in demoted.note
    assert not full.demoted and full.current_facts == len(current)
    assert all(" ".join(f["statement"].split()) in " ".join(full.text.split()) for f in current)
    task_id = _task_ids(bundle)[0]
    outcome = run_bundle(bundle, RunSettings(agent="gold", user="scripted", task_ids=[task_id],
                                             save_to=tmp_path / "demoted.json"))
    block = json.loads(outcome.path.read_text())["taugen"]
    assert block["policy_mode"] == "bundle" and block["policy_demoted"] is True
    assert "construction run" in block["policy_note"]
    outcome = run_bundle(bundle, RunSettings(agent="gold", user="scripted", task_ids=[task_id], policy="full",
                                             save_to=tmp_path / "full.json"))
    assert outcome.results.info.environment_info.policy == full.text
    assert json.loads(outcome.path.read_text())["taugen"]["policy_demoted"] is False

    easy = built_bundle("easy")
    easy_manifest = json.loads((easy / "author" / "manifest.json").read_text())
    easy_policy = (easy / "tau2" / "domains" / "banking" / "policy.md").read_text()
    assert policy_for(easy_policy, easy_manifest, "bundle").missing == 0  # sop: the policy states every fact


def test_results_file_rules(built_bundle, tmp_path):
    bundle = built_bundle("easy")
    task_id = _task_ids(bundle)[0]
    existing = tmp_path / "r.json"
    existing.write_text("{}")
    with pytest.raises(InputError, match="already exists"):
        run_bundle(bundle, RunSettings(agent="gold", user="scripted", task_ids=[task_id], save_to=existing))
    assert existing.read_text() == "{}"
    run_bundle(bundle, RunSettings(agent="gold", user="scripted", task_ids=[task_id], save_to=existing,
                                   overwrite=True))
    assert json.loads(existing.read_text())["simulations"][0]["task_id"] == task_id
    inside = workarounds.tau2_data_dir() / "simulations" / "x.json"
    with pytest.raises(InputError, match="inside the installed tau2"):
        run_bundle(bundle, RunSettings(agent="gold", user="scripted", task_ids=[task_id], save_to=inside))
    with pytest.raises(InputError, match="split 'nope'"):
        run_bundle(bundle, RunSettings(agent="gold", user="scripted", split="nope", save_to=tmp_path / "n.json"))
    with pytest.raises(InputError, match="task ids not in split"):
        run_bundle(bundle, RunSettings(agent="gold", user="scripted", task_ids=["T404"], save_to=tmp_path / "n.json"))
    with pytest.raises(InputError, match="--agent-llm"):
        run_bundle(bundle, RunSettings(agent="llm", user="scripted", save_to=tmp_path / "n.json"))


def test_cli_run_prints_pass_hat_k_per_split_and_refuses_an_existing_file(cli, built_bundle, tmp_path):
    bundle = built_bundle("easy")
    ids = _task_ids(bundle)[:2]
    out = tmp_path / "cli.json"
    result = cli("run", bundle, "--agent", "gold", "--num-trials", "2", "--task-ids", ",".join(ids),
                 "--save-to", out)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "pass^1" in result.stdout and "pass^2" in result.stdout and "policy complete" in result.stdout
    assert "│ base  │     2 │           4 │      1.000 │  1.000 │  1.000 │" in result.stdout
    again = cli("run", bundle, "--agent", "gold", "--task-ids", ids[0], "--save-to", out)
    assert again.exit_code == 2 and "already exists" in again.stderr
    hard = cli("run", built_bundle("hard"), "--agent", "empty", "--task-ids", _task_ids(built_bundle("hard"))[0],
               "--save-to", tmp_path / "hard.json")
    assert hard.exit_code == 0 and "policy demoted" in hard.stdout and "construction run" in hard.stdout


def test_cli_tau2_passthrough_runs_tau2s_own_run_command_on_the_bundle(cli, built_bundle, tmp_path, monkeypatch):
    from tau2.data_model.simulation import Results

    monkeypatch.chdir(tmp_path)
    before = set((workarounds.tau2_data_dir() / "simulations").glob("*")) \
        if (workarounds.tau2_data_dir() / "simulations").exists() else set()
    for tier, domain in (("easy", "banking"), ("easy", "telecom")):
        bundle = built_bundle(tier, domain=domain)
        result = cli("tau2", bundle, "--", "run", "--domain", domain, "--agent-llm", "gpt-4o-mini",
                     "--agent-llm-args", '{"mock_response": "Sorry."}', "--user-llm", "gpt-4o-mini",
                     "--user-llm-args", '{"mock_response": "Bye ###STOP###"}', "--num-tasks", "1",
                     "--save-to", f"pass-{domain}", "--max-concurrency", "1")
        assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
        results = Results.load(tmp_path / "tau2-results" / f"pass-{domain}.json")
        assert results.tasks[0].id == _task_ids(bundle)[0]  # the bundle's tasks, not tau2's own
        again = cli("tau2", bundle, "--", "run", "--domain", domain, "--save-to", f"pass-{domain}")
        assert again.exit_code == 2 and "already exists" in again.stderr  # no interactive prompt
    after = set((workarounds.tau2_data_dir() / "simulations").glob("*")) \
        if (workarounds.tau2_data_dir() / "simulations").exists() else set()
    assert after == before  # nothing written inside site-packages


# ------------------------------------------------------------------ tau2 26.3 workarounds, one by one


def test_workarounds_are_for_the_installed_tau2():
    assert workarounds.TAU2_VERSION == "26.3"
    assert workarounds.check_version() is True


def test_run_domain_still_needs_llm_args_judge_and_run_config_supplies_it(built_bundle, tmp_path):
    from tau2.data_model.simulation import RunConfig
    from tau2.run import run_domain

    bundle = built_bundle("easy")
    name = tau2_runtime.register_bundle(bundle)
    fields = dict(domain=name, task_ids=[_task_ids(bundle)[0]], llm_agent="gpt-4o-mini",
                  llm_args_agent={"mock_response": "Sorry."}, llm_user="gpt-4o-mini",
                  llm_args_user={"mock_response": "Bye ###STOP###"}, results_dir=str(tmp_path), max_concurrency=1)
    with pytest.raises(AttributeError):  # tau2 26.3: None.copy()
        run_domain(RunConfig(save_to="plain", **fields))
    results = run_domain(workarounds.run_config(save_to="patched", **fields))
    assert [s.task_id for s in results.simulations] == fields["task_ids"]
    assert (tmp_path / "patched.json").is_file()


def test_gym_agent_name_is_still_missing_in_tau2_run_and_is_bound_by_the_workaround():
    code = ("import taugen, tau2.run, sys; missing = not hasattr(tau2.run, 'GymAgent');"
            "from taugen.build.tau2_workarounds_26_3 import bind_gym_agent; bound = bind_gym_agent();"
            "from tau2.gym.gym_agent import GymAgent; print(missing, bound, tau2.run.GymAgent is GymAgent)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.split()[-3:] == ["True", "True", "True"], done.stderr[-2000:]


def test_data_paths_are_frozen_at_import_and_patched_for_the_block(tmp_path):
    import tau2.domains.telecom.utils as telecom_utils

    original = telecom_utils.TELECOM_TASK_SET_PATH
    assert workarounds.tau2_data_dir() in original.parents  # tau2 26.3: under site-packages
    with workarounds.patched_data_paths("telecom", tmp_path) as patched:
        assert ("tau2.domains.telecom.utils", "TELECOM_TASK_SET_PATH") in patched
        assert tmp_path in telecom_utils.TELECOM_TASK_SET_PATH.parents
    assert telecom_utils.TELECOM_TASK_SET_PATH == original


def test_results_dir_defaults_outside_site_packages_and_existing_files_are_refused(tmp_path):
    assert workarounds.results_dir_args(["run", "--domain", "x"], tmp_path) == [
        "run", "--domain", "x", "--results-dir", str(tmp_path)]
    assert workarounds.results_dir_args(["view"], tmp_path) == ["view"]
    assert workarounds.results_dir_args(["run", "--results-dir", str(tmp_path / "r")], tmp_path)[-1] == str(
        tmp_path / "r")
    with pytest.raises(ValueError, match="inside the installed tau2"):
        workarounds.results_dir_args(["run", "--results-dir", str(workarounds.tau2_data_dir() / "simulations")],
                                     tmp_path)
    (tmp_path / "old.json").write_text("{}")
    with pytest.raises(FileExistsError):
        workarounds.refuse_existing_results(["run", "--save-to", "old", "--results-dir", str(tmp_path)])
    workarounds.refuse_existing_results(["run", "--save-to", "new", "--results-dir", str(tmp_path)])


def test_registry_replacement_swaps_a_taugen_domain(built_bundle):
    from tau2.registry import registry

    easy, hard = built_bundle("easy"), built_bundle("hard")
    tau2_runtime.register_bundle(easy)
    easy_ids = {t.id for t in registry.get_tasks_loader("banking")(task_split_name=None)}
    tau2_runtime.register_bundle(hard)
    hard_ids = {t.id for t in registry.get_tasks_loader("banking")(task_split_name=None)}
    assert easy_ids == set(_task_ids(easy)) and hard_ids == set(_task_ids(hard)) and easy_ids != hard_ids
