"""taugen bundles run unchanged in tau2's own runtime: registry, tools, set_state, evaluator (no LLM)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

import taugen  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before tau2 imports litellm)

pytest.importorskip("tau2")

from taugen.build import tau2_runtime
from taugen.domains.banking import BankingTools

pytestmark = pytest.mark.tau2

TIERS = ("easy", pytest.param("medium", marks=pytest.mark.slow), "hard")
"""A sample of the tiers in CI (easy and hard; medium joins with -m slow): CI's 30 minutes."""


@pytest.fixture(scope="module", autouse=True)
def _quiet_tau2():
    tau2_runtime.silence_tau2_logs()  # tau2 logs every tool response at DEBUG


def _tasks(bundle: Path) -> list[dict]:
    return json.loads((bundle / "tau2" / "domains" / "banking" / "tasks.json").read_text())


@pytest.mark.parametrize("tier", TIERS)
def test_every_task_scores_gold_one_and_empty_zero_in_tau2(built_bundle, tier):
    bundle = built_bundle(tier)
    rows = tau2_runtime.check_bundle(bundle)
    assert len(rows) == len(_tasks(bundle)) > 0
    bad = [(row.task_id, row.gold, row.empty) for row in rows if not row.ok]
    assert not bad, bad[:5]


def test_tau2_db_hash_moves_exactly_as_taugen_certified(built_bundle):
    """tau2's set_state (deep merge + re-validate) and gold replay reach taugen's certified hashes."""
    from tau2.registry import registry

    bundle = built_bundle("hard")
    name = tau2_runtime.register_bundle(bundle)
    certificates = json.loads((bundle / "author" / "certificates.json").read_text())
    for task in tau2_runtime.load_with_tau2(bundle, task_split_name=None):
        environment = registry.get_env_constructor(name)()
        environment.set_state(task.initial_state.initialization_data, None, [])
        initial = environment.get_db_hash()
        for action in task.evaluation_criteria.actions:
            environment.make_tool_call(action.name, requestor=action.requestor, **action.arguments)
        certificate = certificates[task.id]
        assert (initial, environment.get_db_hash()) == (certificate["initial_hash"], certificate["gold_hash"]), task.id


def test_tau2_get_tools_lists_every_taugen_tool_with_its_schema_and_type(built_bundle):
    from tau2.environment.toolkit import ToolType
    from tau2.registry import registry

    name = tau2_runtime.register_bundle(built_bundle("easy"))
    environment = registry.get_env_constructor(name)()
    tools = {tool.name: tool for tool in environment.get_tools()}
    specs = BankingTools.tool_specs()
    assert set(tools) == set(specs)
    kinds = {"read": ToolType.READ, "write": ToolType.WRITE, "generic": ToolType.GENERIC}
    json_types = {"str": "string", "float": "number", "int": "integer", "bool": "boolean"}
    for tool_name, spec in specs.items():
        schema = tools[tool_name].openai_schema["function"]
        assert schema["description"].split()[:3] == spec.description.split()[:3]
        assert set(schema["parameters"]["properties"]) == set(spec.parameters)
        assert set(schema["parameters"].get("required", [])) == set(spec.required)
        for parameter, annotation in spec.parameters.items():
            assert schema["parameters"]["properties"][parameter]["type"] == json_types[annotation]
        assert environment.tools.tool_type(tool_name) == kinds[spec.kind]


def test_a_wrong_fee_in_one_write_scores_zero(built_bundle):
    bundle = built_bundle("hard")
    task = next(t for t in _tasks(bundle)
                if any("fee" in a["arguments"] for a in t["evaluation_criteria"]["actions"]))
    calls = [{"name": a["name"], "arguments": dict(a["arguments"]), "requestor": a["requestor"]}
             for a in task["evaluation_criteria"]["actions"]]
    wrong = next(call for call in calls if "fee" in call["arguments"])
    wrong["arguments"]["fee"] = wrong["arguments"]["fee"] + 5.0
    assert tau2_runtime.evaluate_replay(bundle, task["id"], "gold") == 1.0
    info = tau2_runtime.replay_reward_info(bundle, task["id"], calls)
    assert info.reward == 0.0 and info.db_check.db_match is False


def test_registration_is_idempotent_and_never_clobbers_tau2_domains(built_bundle):
    from tau2.registry import registry

    bundle = built_bundle("easy")
    assert tau2_runtime.register_bundle(bundle) == tau2_runtime.register_bundle(bundle) == "banking"
    assert "banking" in registry.get_domains() and "banking" in registry.get_task_sets()
    splits = registry.get_task_splits_loader("banking")()
    assert {t.id for t in tau2_runtime.load_with_tau2(bundle)} == set(splits["base"])
    airline = registry.get_env_constructor("airline")
    with pytest.raises(ValueError, match="airline"):
        tau2_runtime.register_bundle(bundle, domain_name="airline")
    assert registry.get_env_constructor("airline") is airline


def test_load_with_tau2_reads_a_builtin_domain_from_the_bundle(tmp_path):
    """For tau2's own domains the loader's module paths are pointed at the bundle, then restored."""
    import tau2.domains.mock.environment as mock_environment
    from tau2.utils.utils import DATA_DIR

    source = Path(DATA_DIR) / "tau2" / "domains" / "mock"
    target = tmp_path / "tau2" / "domains" / "mock"
    shutil.copytree(source, target)
    tasks = json.loads((target / "tasks.json").read_text())[:2]
    (target / "tasks.json").write_text(json.dumps(tasks))
    (target / "split_tasks.json").write_text(json.dumps({"base": [t["id"] for t in tasks]}))
    original = mock_environment.MOCK_TASK_SET_PATH
    loaded = tau2_runtime.load_with_tau2(tmp_path)
    assert [t.id for t in loaded] == [t["id"] for t in tasks]
    assert mock_environment.MOCK_TASK_SET_PATH == original


def test_cli_tau2_check_passes_a_good_bundle(cli, built_bundle):
    result = cli("tau2-check", built_bundle("easy"))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout


def test_cli_tau2_check_fails_a_bundle_with_a_broken_gold_action(cli, built_bundle, tmp_path):
    """Verification with a wrong SSN fails, so every later write fails too: the gold run does nothing
    and an empty run scores 1.0 instead of 0.0."""
    bundle = tmp_path / "broken"
    shutil.copytree(built_bundle("easy"), bundle)
    tasks_path = bundle / "tau2" / "domains" / "banking" / "tasks.json"
    tasks = json.loads(tasks_path.read_text())
    task = next(t for t in tasks
                if all(a["name"] != "transfer_to_human_agents" for a in t["evaluation_criteria"]["actions"]))
    verify = next(a for a in task["evaluation_criteria"]["actions"] if a["name"] == "verify_identity")
    verify["arguments"]["ssn_last4"] = "0000" if verify["arguments"]["ssn_last4"] != "0000" else "1111"
    kept = [task] + [t for t in tasks if t is not task][:2]  # a few tasks keep the test fast
    tasks_path.write_text(json.dumps(kept, indent=2))
    result = cli("tau2-check", bundle)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "MISMATCH" in result.stdout and "FAIL: 2 of 3 tasks" in result.stdout


def test_cli_tau2_check_without_tau2_says_how_to_install(cli, built_bundle, monkeypatch):
    monkeypatch.setitem(sys.modules, "tau2", None)
    result = cli("tau2-check", built_bundle("easy"))
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: tau2 is not installed: install taugen[tau2]"
