"""Assemble a bundle in memory: tau2 runtime files, the agent-facing kit and the author side.

Layout (DESIGN.md §5)::

    bundle.json  SHA256SUMS  README.md (dataset card)  croissant.json  LICENSE  data/<split>.jsonl
    tau2/domains/<domain>/  policy.md db.json tasks.json split_tasks.json
    kit/         README.md policy.md tools.json uploaded_materials/<content digest>.<ext>
                 (medium, hard: client_api/ framework/ workspace/ simulations/, see construction/kit.py)
    author/      manifest.json client_prompt.md coverage.json certificates.json sources/<artifact>.txt

Nothing under ``kit/`` names a fact, an owner or the answer key; record names are content digests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import jinja2

import taugen
from taugen.authoring.pack import Pack
from taugen import bundle_layout as layout
from taugen.build.dataset_card import dataset_files
from taugen.build.reference_mix import reference_mix
from taugen.hashing import BundleFiles, digest_name, json_bytes, sha256_hex, sha256sums
from taugen.generators.corpus.genre import CUE_STATUSES, RenderedArtifact, Rendition, get_genre
from taugen.generators.corpus.planner import POLICY_DOCUMENT, CorpusPlan
from taugen.generators.corpus.vocabulary import business_words
from taugen.generators.domain import DomainDefinition
from taugen.generators.tasks import TaskRecord
from taugen.generators.tiers import TierPreset
from taugen.manifest import MANIFEST_PATH, manifest_bytes
from taugen.text import count_tokens

POLICY_ARTIFACT_ID = f"{POLICY_DOCUMENT}_001"
@dataclass
class AssembledBundle:
    """The bundle's files plus what the build reports about them."""

    name: str
    files: BundleFiles
    counts: dict[str, Any] = field(default_factory=dict)


def bundle_name(pack: Pack, preset: TierPreset) -> str:
    """``<domain>-<tier>-<version>``, the bundle folder name."""
    return f"{pack.config.domain}-{preset.name}-{pack.config.version}"


def splits(tasks: list[TaskRecord], seed: int) -> dict[str, list[str]]:
    """tau2 split file: ``base`` (every task), ``dev`` (examples an agent builder may see in the kit),
    ``test`` (sealed; shares no problem instance with ``dev``, see
    :func:`taugen.generators.tasks.compose_tasks`), and ``train``, kept equal to ``dev`` for tools that
    read tau2's train/test names."""
    dev = sorted(t.task_id for t in tasks if t.split == "dev")
    test = sorted(t.task_id for t in tasks if t.split != "dev")
    return {"base": sorted(t.task_id for t in tasks), "dev": dev, "test": test, "train": dev}


def task_coverage(pack: Pack, tasks: list[TaskRecord], plan: CorpusPlan,
                  unexercisable: dict[str, str] | None = None) -> dict[str, Any]:
    """Which facts decide which tasks, per section and value type, and the facts no task exercises with the
    reason (``author/coverage.json``; summarised in ``bundle.json``).

    Targets (issue 9): at hard, >= 90% of current record-held facts with a typed non-text value decide a
    task, every client-held and contested fact decides one, and the ``test`` split's fact load (distinct
    facts its tasks exercise) is reported as the construction task's fact load.
    """
    exercised: dict[str, list[str]] = {}
    for task in tasks:
        for fact_id in task.facts:
            exercised.setdefault(fact_id, []).append(task.task_id)
    current = [f for f in pack.facts.values() if pack.is_current(f.id)]
    special = set(plan.client_held) | set(plan.contested)

    def share(members: list) -> dict[str, Any]:
        hit = sum(1 for f in members if f.id in exercised)
        return {"facts": len(members), "exercised": hit, "share": round(hit / len(members), 4) if members else None}

    typed = [f for f in current if f.holder == "records" and f.value is not None and f.value.type != "text"]
    per_section: dict[str, list] = {}
    per_type: dict[str, list] = {}
    for fact in current:
        per_section.setdefault(fact.section, []).append(fact)
        per_type.setdefault(fact.value.type if fact.value else "none", []).append(fact)
    reasons = dict(unexercisable or {})
    never = {}
    for fact in pack.facts.values():
        if fact.id in exercised:
            continue
        if not pack.is_current(fact.id):
            never[fact.id] = "not in force at the world's now (superseded or not yet effective): history only"
        else:
            never[fact.id] = reasons.get(fact.id, "no task was drawn for it at this task count")
    test_facts = {f for t in tasks if t.split != "dev" for f in t.facts}
    kinds: dict[str, int] = {}
    for task in tasks:
        for kind in task.kinds:
            kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "summary": {
            "typed_record_facts": share(typed),
            "client_held": share([pack.facts[i] for i in plan.client_held]),
            "contested": share([pack.facts[i] for i in plan.contested]),
            "special_not_exercised": sorted(i for i in special if i not in exercised),
            "facts_exercised": len(exercised),
            "construction_fact_load": len(test_facts),
            "per_section": {k: share(v) for k, v in sorted(per_section.items())},
            "per_value_type": {k: share(v) for k, v in sorted(per_type.items())},
            "case_kinds": {k: {"tasks": v, "share": round(v / max(1, len(tasks)), 4)} for k, v in sorted(kinds.items())},
        },
        "task_fact_load": {t.task_id: len(t.facts) for t in tasks},
        "facts_exercised_by_tasks": {k: sorted(v) for k, v in sorted(exercised.items())},
        "facts_never_exercised": sorted(never),
        "unexercisable": dict(sorted(never.items())),
    }


def assemble_bundle(pack: Pack, domain: DomainDefinition, preset: TierPreset, seed: int, world_json: dict[str, Any],
                    tasks: list[TaskRecord], plan: CorpusPlan, rendered: list[RenderedArtifact], policy_text: str,
                    extract: dict[str, str], templates: jinja2.Environment, seeded: bool = False,
                    repairs: dict[str, Any] | None = None, unexercisable: dict[str, str] | None = None,
                    task_space_size: dict[str, int] | None = None) -> AssembledBundle:
    """Lay out every file of the bundle (except the validation report, added after validation).

    Args:
        extract: artifact id → text read back from its delivered files (for token counts).
        seeded: at the construction tiers, ship the seeded starting implementation in ``kit/workspace/``
            instead of the empty scaffold.
        repairs: what the build re-drew to meet the realism gates (``corpus_redraws``: times the corpus
            was re-planned with a derived seed, and why; ``artifact_redraws``: records re-rendered with
            a derived seed); reported in ``bundle.json`` under ``achieved.repairs``.
    """
    config = pack.config
    files: BundleFiles = {}
    runtime = f"tau2/domains/{config.domain}"
    policy_bytes = policy_text.encode()
    files[f"{runtime}/policy.md"] = policy_bytes
    files[f"{runtime}/db.json"] = json_bytes(world_json)
    files[f"{runtime}/tasks.json"] = json_bytes([task.to_tau2(config.domain) for task in tasks])
    split_ids = splits(tasks, seed)
    files[f"{runtime}/split_tasks.json"] = json_bytes(split_ids)
    if domain.runtime_files is not None:  # a domain whose tau2 loader reads other files (telecom: TOML databases)
        for name, data in domain.runtime_files(pack, world_json, tasks, policy_text, seed).items():
            if data is None:
                files.pop(f"{runtime}/{name}", None)
            else:
                files[f"{runtime}/{name}"] = data

    artifacts: dict[str, Any] = {}
    owners: dict[str, str] = {}
    record_suffixes: dict[str, int] = {}
    for artifact in rendered:
        plan_ = artifact.plan
        delivered = []
        for rendered_file in artifact.files:
            path = f"{layout.RECORDS_DIR}/{digest_name(rendered_file.data, rendered_file.suffix)}"
            files[path] = rendered_file.data
            delivered.append({"path": path, "role": rendered_file.role, "suffix": rendered_file.suffix})
            record_suffixes[rendered_file.suffix] = record_suffixes.get(rendered_file.suffix, 0) + 1
        source = f"author/sources/{plan_.artifact_id}.txt"
        files[source] = artifact.author_text.encode()
        owned = [r for r in artifact.renditions if r.owns]  # cues and echoes own nothing
        echoes = [r for r in artifact.renditions if r.echo]
        cues = [r for r in artifact.renditions if r.status in CUE_STATUSES]
        for rendition in owned:
            owners[rendition.fact_id] = plan_.artifact_id
        artifacts[plan_.artifact_id] = {
            "genre": plan_.genre, "variant": plan_.variant, "topic": plan_.topic, "carrier": bool(owned),
            "start": plan_.start.isoformat(), "end": plan_.end.isoformat(), "files": delivered, "author_source": source,
            "timestamps": [stamp.isoformat() for stamp in artifact.timestamps],
            "renditions": [{**_stated(r), "status": r.status} for r in owned],
            "echoes": [_stated(r) for r in echoes],
            "cues": [{"fact_id": r.fact_id, "kind": r.status, "text": r.text, "value_form": r.value_form,
                      "date": r.date.isoformat()} for r in cues],
            "target_words": plan_.target_words,
            "metadata": artifact.metadata,
        }
    policy_renditions = []
    if plan.policy_owns:
        for fact in pack.facts.values():
            if fact.effective_from > pack.now.date():
                continue
            if not pack.is_current(fact.id) and fact.id not in plan.history_facts:
                continue  # this tier renders no history for the arc
            owners[fact.id] = POLICY_ARTIFACT_ID
            status = "current" if pack.is_current(fact.id) else "superseded"
            policy_renditions.append({"fact_id": fact.id, "text": fact.statement,
                                      "value_form": "", "register": "canonical", "status": status,
                                      "date": pack.now.date().isoformat()})
    files["kit/policy.md"] = policy_bytes
    artifacts[POLICY_ARTIFACT_ID] = {
        "genre": POLICY_DOCUMENT, "variant": "", "topic": "", "carrier": plan.policy_owns,
        "start": pack.now.isoformat(), "end": pack.now.isoformat(),
        "files": [{"path": "kit/policy.md", "role": "main", "suffix": ".md"},
                  {"path": f"{runtime}/policy.md", "role": "runtime", "suffix": ".md"}],
        "author_source": None, "timestamps": [], "renditions": policy_renditions, "cues": [], "echoes": [],
        "target_words": 0,
        "metadata": {},
    }
    specs = domain.toolkit.tool_specs()
    files["kit/tools.json"] = json_bytes([spec.as_openai_function() for spec in specs.values()])
    kinds = sorted({a["genre"].replace("_", " ") for a in artifacts.values() if a["genre"] != POLICY_DOCUMENT})
    business = business_words(pack)
    files["kit/README.md"] = templates.get_template("kit/README.md.j2").render(
        brand=config.brand, record_count=sum(record_suffixes.values()), record_kinds=", ".join(kinds),
        client=bool(plan.client_held), now=pack.now.isoformat(), **business).encode()
    if preset.name in layout.CONSTRUCTION_TIERS and domain.runtime_files is None:
        from taugen.build.construction.kit import construction_files  # the brief replaces the README above

        files.update(construction_files(pack, domain, preset, seed, world_json, tasks, split_ids,
                                        bool(plan.client_held), sum(record_suffixes.values()), ", ".join(kinds),
                                        policy_text, templates, seeded=seeded))

    facts_manifest = {}
    binding = domain.families(pack) if domain.families is not None else None
    for fact in pack.facts.values():
        newer = pack.superseded_by(fact.id)
        facts_manifest[fact.id] = {
            "section": fact.section, "category": fact.category, "statement": fact.statement, "subject": fact.subject,
            "value": fact.value.model_dump(mode="json") if fact.value is not None else None,
            "applies_to": list(fact.applies_to),
            "holder": fact.holder, "effective_from": fact.effective_from.isoformat(), "supersedes": fact.supersedes,
            "superseded_by": newer, "current": pack.is_current(fact.id),
            "owner": owners.get(fact.id), "client_held": fact.id in plan.client_held,
            "contested": fact.id in plan.contested,
            "discovery_tier": plan.discovery.get(fact.id, {}).get("tier"),
            "history_omitted": (not pack.is_current(fact.id) and fact.effective_from <= pack.now.date()
                                and fact.id not in plan.history_facts),
        }
        if fact.window is not None:
            facts_manifest[fact.id]["window"] = fact.window.model_dump()
        if fact.family is not None:  # the fact table it was expanded from: its rows are siblings
            facts_manifest[fact.id]["family"] = fact.family
        topic = binding.topic(fact) if binding is not None and fact.value is not None else None
        if topic is not None:
            facts_manifest[fact.id]["topic"] = topic.topic_id
            facts_manifest[fact.id]["topic_products"] = list(topic.products)
    manifest = {"domain": config.domain, "surface": plan.surface, "tier": preset.name,
                "now": pack.now.isoformat(), "snapshot_date": config.snapshot_date.isoformat(),
                "history_start": config.history_start.isoformat(), "environment": config.environment,
                "facts": facts_manifest, "artifacts": artifacts, "client_held": plan.client_held,
                "client_confirmable": plan.client_confirmable, "modality": plan.modality,
                "arcs": plan.arcs, "discovery": plan.discovery, "contested": plan.contested, "routes": plan.routes,
                "modality_substitutions": plan.modality_substitutions, "client_overlay": plan.overlay}
    files[MANIFEST_PATH] = manifest_bytes(manifest)
    files["author/certificates.json"] = json_bytes({t.task_id: t.certificate.as_dict() for t in tasks})
    files["author/task_facts.json"] = json_bytes({t.task_id: {"problems": t.problems, "facts": t.facts,
                                                              "context_facts": t.context_facts,
                                                              "customer_id": t.customer_id, "persona": t.persona,
                                                              "outcomes": t.outcomes, "kinds": t.kinds,
                                                              "split": t.split} for t in tasks})
    coverage = task_coverage(pack, tasks, plan, unexercisable)
    files["author/coverage.json"] = json_bytes(coverage)
    held = [pack.facts[i] for i in plan.client_held]
    confirmable = [pack.facts[i] for i in plan.client_confirmable]
    contested = [{"statement": pack.facts[i].statement, "subject": pack.facts[i].subject or pack.facts[i].statement,
                  "readings": len(entry["decoys"]) + 1} for i, entry in sorted(plan.contested.items())]
    files["author/client_prompt.md"] = templates.get_template("author/client_prompt.md.j2").render(
        brand=config.brand, held=held, confirmable=confirmable, contested=contested, **business).encode()

    per_genre: dict[str, int] = {}
    tokens_per_genre: dict[str, int] = {}
    by_kind: list[tuple[str, int]] = []
    for artifact in rendered:
        genre = artifact.plan.genre
        tokens = count_tokens(extract[artifact.plan.artifact_id])
        per_genre[genre] = per_genre.get(genre, 0) + 1
        tokens_per_genre[genre] = tokens_per_genre.get(genre, 0) + tokens
        by_kind.append((get_genre(genre).reference_kind(artifact.plan.variant), tokens))
    tokens_per_genre[POLICY_DOCUMENT] = count_tokens(policy_text)
    per_genre[POLICY_DOCUMENT] = 1
    counts = {
        "facts": len(pack.facts), "facts_current": sum(pack.is_current(f) for f in pack.facts),
        "supersession_arcs": len(pack.arcs()), "client_held": len(plan.client_held), "tasks": len(tasks),
        "artifacts": sum(per_genre.values()), "artifacts_per_genre": dict(sorted(per_genre.items())),
        "carriers": sum(1 for a in artifacts.values() if a["carrier"]),
        "fillers": sum(1 for a in artifacts.values() if not a["carrier"]),
        "tokens": sum(tokens_per_genre.values()), "tokens_per_genre": dict(sorted(tokens_per_genre.items())),
        "reference_mix": reference_mix(by_kind),
        "problems_per_task": _histogram(len(t.problems) - 1 for t in tasks),
        "voiced_renditions": sum(1 for a in artifacts.values() for r in a["renditions"] if r["register"] == "voiced"),
        "renditions": sum(len(a["renditions"]) for a in artifacts.values()),
        "contested": len(plan.contested), "decoys": sum(len(c["decoys"]) for c in plan.contested.values()),
        "evidence_routes": len(plan.routes),
        "discovery_tiers": _histogram(entry["tier"] for entry in plan.discovery.values()),
        "modality_substitutions": len(plan.modality_substitutions),
        "task_space": task_space_size or {},
        "task_coverage": {key: coverage["summary"][key] for key in (
            "typed_record_facts", "client_held", "contested", "facts_exercised", "construction_fact_load",
            "per_section", "per_value_type")},
        "splits": {name: len(ids) for name, ids in splits(tasks, seed).items()},
    }
    achieved = {
        "surface": plan.surface,
        "problems_per_task": [min((len(t.problems) - 1 for t in tasks), default=0),
                              max((len(t.problems) - 1 for t in tasks), default=0)],
        "personas": sorted({t.persona for t in tasks}), "tasks": len(tasks),
        "voiced_share": round(counts["voiced_renditions"] / max(1, counts["renditions"]), 3),
        "filler_ratio": round(counts["fillers"] / max(1, counts["carriers"]), 3),
        "superseded_renditions": sum(1 for a in artifacts.values() for r in a["renditions"] if r["status"] == "superseded"),
        "superseded_share": round(sum(1 for arc in plan.arcs if arc["history_rendered"]) / max(1, len(plan.arcs)), 3),
        "evidence_routes": len(plan.routes),
        "max_calls": sum(1 for a in artifacts.values() if a["genre"] == "call_recording" and a["carrier"]),
        "modality": plan.modality, "contested": len(plan.contested),
        "repairs": {"corpus_redraws": 0, "artifact_redraws": []} if repairs is None else dict(repairs),
        "case_kinds": coverage["summary"]["case_kinds"],
    }
    achieved["long_documents"] = {"artifacts": sum(1 for a in artifacts.values() if a["target_words"]),
                                  "tokens": sum(count_tokens(extract[a.plan.artifact_id]) for a in rendered
                                                if a.plan.target_words)}
    from taugen.validators.bundle_view import BundleView  # late: validators import this module
    from taugen.validators.realism import summary as realism_summary

    view = BundleView(files, source="<build>")
    view._text_cache.update(extract)
    name = f"{config.domain}-{preset.name}-{config.version}"
    bundle_json = {
        "name": name, "domain": config.domain, "version": config.version, "taugen_version": taugen.__version__,
        "seed": seed, "tier": preset.name, "requested": preset.knobs(), "achieved": achieved,
        "sources": pack.sha256_by_file(), "counts": counts, "environment": config.environment,
        "realism": realism_summary(view),
    }
    files["bundle.json"] = json_bytes(bundle_json)
    from taugen.build.tau2_runtime import BUILTIN_DATA_DOMAINS

    info = {"name": name, "domain": config.domain, "brand": config.brand, "tier": preset.name, "seed": seed,
            "version": config.version, "taugen_version": taugen.__version__, "counts": counts,
            "date": config.snapshot_date.isoformat()}
    files.update(dataset_files(info, json.loads(files[f"{runtime}/tasks.json"]),
                               json.loads(files[f"{runtime}/split_tasks.json"]),
                               tau2_derived=config.domain in BUILTIN_DATA_DOMAINS))
    return AssembledBundle(name=name, files=files, counts=counts)


def _stated(rendition: Rendition) -> dict[str, str]:
    """A rule a record states, as the manifest lists it (an echo; a rendition adds its ``status``)."""
    return {"fact_id": rendition.fact_id, "text": rendition.text, "value_form": rendition.value_form,
            "register": rendition.register, "date": rendition.date.isoformat()}


def _histogram(values) -> dict[str, int]:
    histogram: dict[str, int] = {}
    for value in values:
        histogram[str(value)] = histogram.get(str(value), 0) + 1
    return dict(sorted(histogram.items()))


def seal(files: BundleFiles) -> BundleFiles:
    """Add the build hash to ``bundle.json`` and write ``SHA256SUMS`` over every other file."""
    import json

    content = {path: data for path, data in files.items() if path not in ("bundle.json", "SHA256SUMS")}
    bundle_json = json.loads(files["bundle.json"])
    bundle_json["build_hash"] = sha256_hex(sha256sums(content))
    sealed = dict(content)
    sealed["bundle.json"] = json_bytes(bundle_json)
    sealed["SHA256SUMS"] = sha256sums(sealed)
    return sealed
