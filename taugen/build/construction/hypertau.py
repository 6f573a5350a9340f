"""The bundle as a τ^τ-bench task: a JSON file in the shape of hyper-tau's ``HyperTauTask``.

hyper-tau-bench (sierra-research/hyper-tau-bench, ``src/tau2/hyper/data_model.py``) describes a
construction task by a tau2 ``Task`` plus a ``hyper`` block (``HyperMetadata``). We fill the fields we
have a value for and list the others under ``unmapped`` with the reason, so a consumer knows what is
absent rather than guessing.
"""

from __future__ import annotations

from typing import Any

from taugen.authoring.pack import Pack
from taugen import bundle_layout as layout
from taugen.build.construction.defects import Deployment
from taugen.generators.tiers import TierPreset

UNMAPPED = {
    "client_sections": "the client prompt is rendered at build time (author/client_prompt.md); "
                       "client_instructions carries it",
    "live_experiment_task_ids": "no live-experiment pilot traffic is defined",
    "live_experiment_source_task_id": "no live-experiment variant",
    "test_tasks_path": "test tasks stay in tau2/domains/<domain>/tasks.json, selected by test_task_ids",
    "agent_reasoning_effort": "no reasoning constraint is set on the model menu",
    "user_llm": "the evaluator's user simulator is chosen at run time (scripted offline, or an LLM)",
    "user_reasoning_effort": "as user_llm",
    "client_llm": "chosen at run time (taugen client --model)",
    "client_reasoning_effort": "as client_llm",
    "sandbox_config": "no sandbox: the developer works in kit/ directly",
    "sop_variant_manifest_path": "the policy is one document; no SOP variants",
    "composition_pipeline": "no composition stages",
    "knowledge_base_path": "records are uploaded materials; no separate knowledge base",
    "knowledge_base_documents": "as knowledge_base_path",
    "response_phrasing_rules_path": "no response phrasing rules",
    "response_phrasing_rule_ids": "as response_phrasing_rules_path",
    "developer_hint_profile": "the brief gives no solution-direction hint",
}


def hypertau_task(pack: Pack, preset: TierPreset, splits: dict[str, list[str]], manifest: dict[str, Any],
                  deployment: Deployment, scenarios: dict[str, Any], seeded: bool) -> dict[str, Any]:
    """The HyperTauTask-shaped dict: ``id``, ``description``, ``user_scenario`` (the client), ``hyper``
    (HyperMetadata fields we map), ``unmapped`` (field → why absent)."""
    config = pack.config
    dev_name = layout.dev_split_name(splits)
    hyper = {
        "source_domain": config.domain,
        "task_description": f"Build a customer-service agent for {config.brand} from the kit: records, client "
                            "API contract, deployment manifest and workspace; it is scored on sealed conversations.",
        "client_instructions": "(author/client_prompt.md)",
        "training_task_ids": sorted(splits.get(dev_name, [])),
        "test_task_ids": sorted(splits.get(layout.SEALED_SPLIT, [])),
        "agent_llm": manifest["allowed_models"][0]["model"],
        "allowed_agent_models": [{"model": m["model"], "constraints": {},
                                  "input_credits_per_million": m["input_credits_per_million"],
                                  "output_credits_per_million": m["output_credits_per_million"]}
                                 for m in manifest["allowed_models"]],
        "client_enabled": True,
        "sop_document_path": "kit/policy.md",
        "starting_workspace_path": layout.SEEDED_WORKSPACE if seeded else None,
        "client_api_mode": "rest",
        "client_api_deployment_manifest": layout.DEPLOYMENTS + "#" + deployment.name,
        "performance_profile": {"budget": manifest["agent_credit_budget"]["mean_credits_per_conversation"]},
        "performance_requirements": [
            {"id": "credits", "type": "credits", "measurement": "agent_model_calls",
             "budget": manifest["agent_credit_budget"]["mean_credits_per_conversation"], "tier": preset.name},
            *[{"id": l["id"], "type": "latency", "measurement": "agent_generate_next_message",
               "percentile": l["percentile"], "max_seconds": l["max_seconds"]} for l in manifest["latency_limits"]]],
        "modality_profile": preset.modality if hasattr(preset, "modality") else None,
    }
    return {"id": f"{config.domain}-{preset.name}-{config.version}-construction",
            "description": {"purpose": hyper["task_description"]},
            "user_scenario": {"instructions": "(the client: author/client_prompt.md)"},
            "evaluation_criteria": None, "hyper": hyper,
            "mapped_from": {"training_task_ids": f"split_tasks.json:{dev_name}",
                            "test_task_ids": f"split_tasks.json:{layout.SEALED_SPLIT}",
                            "allowed_agent_models": layout.MANIFEST,
                            "performance_requirements": layout.MANIFEST,
                            "client_api_deployment_manifest": layout.DEPLOYMENTS,
                            "sample scenarios": sorted(scenarios)},
            "unmapped": UNMAPPED}
