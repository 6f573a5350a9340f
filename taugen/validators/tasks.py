"""Task checks, from the bundle's files alone.

* schema: every task has tau2's required fields in the right shapes (``../shared/reference/
  tau2-format.md`` §2); action ids are unique within a task; ``reward_basis`` names known reward types;
  no ``communicate_info`` string holds a comma (tau2 strips commas from replies, so it could never match);
* splits: ``base`` exists and every split names existing tasks;
* certificate: the build's certificate holds, and a replay of the gold actions with tau2's semantics
  (fresh DB, ``initialization_data`` deep-merged, gold actions in order) raises no tool error, reaches
  the certified gold DB hash, differs from the do-nothing DB, and needs every write (dropping one
  changes the final DB);
* fact sensitivity: every fact a task declares (``author/task_facts.json``) has a row in the certificate's
  proof showing that perturbing it changes the gold outcome (for every domain, including those that replay
  their own tasks, such as telecom);
* duplicates: no two tasks share a normalised scenario (case, spacing and punctuation ignored) and gold
  writes (in order, action ids ignored; reads may differ): defect kind K19, reported with code ``K19``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from typing import Any

from taugen.findings import Finding, error
from taugen.generators.environment import Toolkit
from taugen.generators.policy import ManifestFacts
from taugen.text import normalised_scenario
from taugen.validators.bundle_view import BundleView
from taugen.validators.memo import Memo, digest
from taugen.validators.registry import validator
from taugen.validators.replays import DatabaseReplays

REWARD_TYPES = {"DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"}
_REQUIRED_INSTRUCTIONS = ("domain", "reason_for_call", "task_instructions")


def _schema_findings(task: dict[str, Any]) -> list[str]:
    problems = []
    if not isinstance(task.get("id"), str) or not task["id"]:
        return ["id must be a non-empty string"]
    scenario = task.get("user_scenario")
    if not isinstance(scenario, dict):
        problems.append("user_scenario is required")
    else:
        instructions = scenario.get("instructions")
        if isinstance(instructions, dict):
            problems += [f"user_scenario.instructions.{key} is required" for key in _REQUIRED_INSTRUCTIONS
                         if not isinstance(instructions.get(key), str)]
        elif not isinstance(instructions, str):
            problems.append("user_scenario.instructions must be a string or structured instructions")
    criteria = task.get("evaluation_criteria") or {}
    basis = criteria.get("reward_basis", ["DB", "COMMUNICATE"])
    problems += [f"unknown reward type {kind!r}" for kind in basis if kind not in REWARD_TYPES]
    actions = criteria.get("actions") or []
    ids = [action.get("action_id") for action in actions]
    if len(ids) != len(set(ids)):
        problems.append("action ids repeat within the task")
    for action in actions:
        if not isinstance(action.get("name"), str) or not isinstance(action.get("arguments"), dict):
            problems.append(f"action {action.get('action_id')} needs a name and an arguments object")
        if action.get("requestor", "assistant") not in ("assistant", "user"):
            problems.append(f"action {action.get('action_id')} has requestor {action.get('requestor')!r}")
    for info in criteria.get("communicate_info") or []:
        if "," in info:
            problems.append(f"communicate_info {info!r} contains a comma and can never match")
    return problems


def _toolkit_class(view: BundleView) -> type[Toolkit]:
    """The domain's toolkit, imported from the module the bundle names."""
    return importlib.import_module(view.manifest["environment"]).DOMAIN.toolkit


@validator("tasks", cost=3)
def check_tasks(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    findings: list[Finding] = []
    tasks = view.tasks
    ids = [task.get("id") for task in tasks]
    for task in tasks:
        for problem in _schema_findings(task):
            findings.append(error("tasks", "schema", str(task.get("id")), problem,
                                  rule="tau2 Task schema (reference/tau2-format.md §2)"))
    if len(ids) != len(set(ids)):
        findings.append(error("tasks", "duplicate_id", "tasks.json", "task ids repeat"))
    splits = view.splits
    if "base" not in splits:
        findings.append(error("tasks", "no_base_split", "split_tasks.json", "split_tasks.json has no 'base' split"))
    for name, members in splits.items():
        unknown = sorted(set(members) - set(ids))
        if unknown:
            findings.append(error("tasks", "split_unknown_task", f"split {name}", f"names unknown task {unknown[0]}"))
    certificates = view.certificates
    findings += _declared_facts_proven(view, certificates)
    definition = importlib.import_module(view.manifest["environment"]).DOMAIN
    if getattr(definition, "check_tasks", None) is not None:  # the domain replays its own tasks (telecom: tau2 env)
        return findings + definition.check_tasks(view)
    toolkit_class = _toolkit_class(view)
    specs = toolkit_class.tool_specs()
    signatures: dict[str, str] = {}
    db_digest = hashlib.sha256(view.files[f"{view.runtime_dir}/db.json"]).hexdigest()
    replays = DatabaseReplays(toolkit_class, view.db, view.now)
    for task in tasks:
        task_id = task["id"]
        certificate = certificates.get(task_id)
        key = digest(db_digest, view.manifest["environment"], view.manifest["now"], task, certificate)
        findings += _REPLAYED.compute(key, lambda: _replay_findings(replays, specs, task, certificate))
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        if any(a["name"] not in specs for a in actions):
            continue
        writes = [i for i, a in enumerate(actions) if specs[a["name"]].kind != "read"]
        scenario = normalised_scenario(task.get("user_scenario"))
        gold_writes = json.dumps([actions[i] | {"action_id": None} for i in writes], sort_keys=True)
        signature = hashlib.sha256(f"{scenario}|{gold_writes}".encode()).hexdigest()
        if signature in signatures:
            findings.append(error("tasks", "K19", task_id, f"duplicate task: same normalised scenario and gold "
                                  f"writes as {signatures[signature]}", rule="K19: hash normalised scenario + gold writes"))
        signatures.setdefault(signature, task_id)
    return findings


PROOF_CHANGES = ("same_world", "gold_writes", "db_hash", "not_realisable")
"""What a passing fact-sensitivity row may say changed (:func:`taugen.generators.tasks.sensitivity`)."""


def _declared_facts_proven(view: BundleView, certificates: dict[str, Any]) -> list[Finding]:
    """Every fact ``author/task_facts.json`` says a task exercises has a passing row in the task's
    fact-sensitivity proof, made for the fact's value in this bundle (its ``original`` is the manifest's
    canonical value) with another value of it. A dependency declared but not proven inflates the fact load
    and coverage the bundle reports: the task claims to grade a fact its gold does not turn on, so the
    finding's code is K12 (the grader checks fewer things than claimed), naming fact and task."""
    raw = view.files.get("author/task_facts.json")
    if raw is None:
        return []
    values = _canonical_values(view.manifest.get("facts") or {})
    findings = []
    rule = "fact-sensitivity proof: every declared fact changes the gold outcome"
    for task_id, record in sorted(json.loads(raw).items()):
        proof = {row.get("fact"): row for row in (certificates.get(task_id) or {}).get("sensitivity") or []}
        for fact_id in record.get("facts") or []:
            row = proof.get(fact_id) or {}
            if row.get("changed") not in PROOF_CHANGES:
                findings.append(error("certificate", "K12", task_id,
                                      f"task_facts.json declares fact {fact_id}, but the certificate proves no "
                                      "perturbation of it changes the task's gold", rule=rule))
            elif fact_id in values and (row.get("original") != values[fact_id] or row.get("perturbed") in
                                        (None, values[fact_id])):
                findings.append(error("certificate", "K12", task_id,
                                      f"the proof that fact {fact_id} decides the task perturbed "
                                      f"{row.get('original')!r} to {row.get('perturbed')!r}, but the fact's value "
                                      f"in this bundle is {values[fact_id]!r}: nothing proves the current value "
                                      "decides it", rule=rule))
    return findings


def _canonical_values(facts: dict[str, Any]) -> dict[str, str]:
    """Fact id → canonical form of its typed value (as proof rows write it), for facts with a value."""
    source = ManifestFacts(facts)
    return {fact_id: source.value(fact_id).canonical() for fact_id, fact in facts.items()
            if fact.get("value") is not None}


_REPLAYED: Memo[list[Finding]] = Memo(20_000, "validate-tasks")
"""Certificate findings per task, keyed by a digest of everything they depend on (the DB, the domain, the
world's now, the task and its certificate). Validating many variants of one bundle (``taugen mutate``)
replays only the tasks that differ."""


def _replay_findings(replays: DatabaseReplays, specs: dict[str, Any], task: dict[str, Any],
                     certificate: dict[str, Any] | None) -> list[Finding]:
    """The certificate findings of one task: certified, gold runs without tool errors, reaches the
    certified state, changes the DB, and needs every write."""
    findings: list[Finding] = []
    task_id = task["id"]
    if certificate is None or not certificate.get("ok"):
        findings.append(error("certificate", "not_certified", task_id,
                              "the task has no passing certificate", evidence=json.dumps(certificate)[:400],
                              rule="check fails after setup, passes after gold, every write needed, "
                                   "do-nothing fails"))
    patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data")
    actions = (task.get("evaluation_criteria") or {}).get("actions") or []
    unknown_tools = [a["name"] for a in actions if a["name"] not in specs]
    if unknown_tools:
        findings.append(error("certificate", "unknown_tool", task_id, f"gold calls unknown tool {unknown_tools[0]}"))
        return findings
    initial = replays.initial(patch)
    start = replays.state(initial)
    final, errors = replays.run(initial, actions)
    for message in errors:
        findings.append(error("certificate", "gold_tool_error", task_id, message,
                              rule="no gold step raises a tool error (tau2 only warns and skips it)"))
    if final == start:
        findings.append(error("certificate", "do_nothing_passes", task_id,
                              "the gold actions leave the DB as it started: a do-nothing run gets reward 1"))
    if certificate and certificate.get("gold_hash") != replays.hash(final):
        findings.append(error("certificate", "gold_hash_mismatch", task_id,
                              "replaying the gold actions does not reach the certified DB state"))
    writes = [i for i, a in enumerate(actions) if specs[a["name"]].kind != "read"]
    for index in writes:
        reduced, _ = replays.run(initial, actions[:index] + actions[index + 1:])
        if reduced == final:
            findings.append(error("certificate", "unneeded_write", task_id,
                                  f"dropping {actions[index]['action_id']} leaves the graded DB unchanged"))
    return findings
