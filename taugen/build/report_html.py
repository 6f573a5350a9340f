"""The reviewer report: one self-contained HTML page (and its data as JSON) about a built bundle.

``taugen report BUNDLE`` reads a bundle folder and writes ``<name>-report.html`` and
``<name>-report.json`` beside it, never inside it (so ``SHA256SUMS`` stays valid). The page shows:

* a summary: bundle name, version, tier, surface, seed, counts, requested and achieved knobs, pass /
  fail per validation check and whether the files still match ``SHA256SUMS``;
* distributions as inline SVG bar charts drawn here (no plotting library);
* per fact: statement and value, its owner artifact (genre, files), each rendition with its
  register and status and an excerpt of the author source around it, and the tasks exercising it
  (client-held facts are marked as such: no artifact carries them);
* per task: problems and outcomes, persona, each part of the certificate and its findings;
* per artifact: genre, variant, topic, dates, delivered files and the facts it carries;
* per finding: check, code, subject (linked to its fact, task or artifact), message, evidence
  excerpt and rule.

The page loads nothing from the network (a Content-Security-Policy forbids it), carries a few lines
of JavaScript for a text filter over the tables, records any script error in the page itself
(``#report-js-errors``) and sets ``document.body.dataset.ready`` when its script has run, so a
headless browser can check it. It carries no wall-clock time: the same bundle gives the same bytes.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import jinja2

from taugen.build.files import read_bundle
from taugen.hashing import BundleFiles, json_bytes, sums_differences
from taugen.errors import InputError
from taugen.validators.bundle_view import BundleView

CONTEXT_CHARS = 160
"""Characters of author source shown on each side of a rendition."""

_UNSAFE_ANCHOR = re.compile(r"[^A-Za-z0-9_-]+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ReportPaths:
    """Where :func:`write_report` wrote the report."""

    html: Path
    json: Path


# ---------------------------------------------------------------------------------------------
# Collecting the data
# ---------------------------------------------------------------------------------------------


def _load_json(files: Mapping[str, bytes], path: str, source: str, required: bool = True) -> Any:
    if path not in files:
        if required:
            raise InputError(f"bundle is missing {path}", source)
        return None
    try:
        return json.loads(files[path])
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc.msg}", source, exc.lineno) from None


def format_value(value: Any) -> str:
    """A fact value as one short line, e.g. ``duration: amount=7, unit=business_days``."""
    if value is None:
        return ""
    if not isinstance(value, Mapping):
        return str(value)
    kind = value.get("type", "")
    parts = []
    for key, item in value.items():
        if key == "type":
            continue
        if isinstance(item, list):
            item = ", ".join(str(i) for i in item)
        parts.append(f"{key}={item}")
    return f"{kind}: {'; '.join(parts)}" if kind else "; ".join(parts)


def _excerpt(source: str, text: str, width: int = CONTEXT_CHARS) -> dict[str, Any]:
    """The rendition ``text`` located in ``source`` with ``width`` characters either side.

    Whitespace is collapsed first, so a rendition wrapped over lines is still found. Returns
    ``{found, before, match, after}``; when the text is not in the source verbatim (a flowchart
    spreads it over nodes), ``found`` is False and ``match`` is the rendition text alone.
    """
    flat_source = _SPACE.sub(" ", source)
    flat_text = _SPACE.sub(" ", text).strip()
    index = flat_source.find(flat_text) if flat_text else -1
    if index < 0 and flat_text and len(flat_source.lower()) == len(flat_source):
        index = flat_source.lower().find(flat_text.lower())
    if index < 0:
        return {"found": False, "before": "", "match": text, "after": ""}
    start, end = max(0, index - width), min(len(flat_source), index + len(flat_text) + width)
    before, after = flat_source[start:index], flat_source[index + len(flat_text):end]
    if start > 0:
        before = "…" + before.split(" ", 1)[-1] if " " in before else "…" + before
    if end < len(flat_source):
        after = after.rsplit(" ", 1)[0] + "…" if " " in after else after + "…"
    return {"found": True, "before": before, "match": flat_source[index:index + len(flat_text)], "after": after}


def _anchors(ids: Iterable[str], prefix: str) -> dict[str, str]:
    """Unique, URL-safe HTML ids for ``ids``: ``<prefix>-<id with unsafe characters as ->``."""
    anchors: dict[str, str] = {}
    used: set[str] = set()
    for number, ident in enumerate(ids, 1):
        anchor = f"{prefix}-{_UNSAFE_ANCHOR.sub('-', ident).strip('-') or number}"
        if anchor in used:
            anchor = f"{anchor}-{number}"
        used.add(anchor)
        anchors[ident] = anchor
    return anchors


def _certificate_parts(cert: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The certificate as named parts, each ``{name, ok, detail}`` (detail lists what failed or holds)."""
    if not cert:
        return [{"name": "certificate present", "ok": False, "detail": ["no certificate in certificates.json"]}]
    setup = list(cert.get("unmet_after_setup") or [])
    parts = [
        ("setup leaves goals to do", bool(setup), setup),
        ("gold calls run without error", not cert.get("gold_errors"), cert.get("gold_errors") or []),
        ("gold meets every goal", not cert.get("unmet_after_gold"), cert.get("unmet_after_gold") or []),
        ("no unnecessary writes", not cert.get("unnecessary_writes"), cert.get("unnecessary_writes") or []),
        ("forbidden writes are caught", not cert.get("forbidden_writes_not_caught"),
         cert.get("forbidden_writes_not_caught") or []),
        ("doing nothing fails", not cert.get("do_nothing_passes"),
         ["an empty run passes the task"] if cert.get("do_nothing_passes") else []),
        ("gold changes the database", cert.get("initial_hash") != cert.get("gold_hash"),
         [f"{cert.get('writes', 0)} writes"]),
        ("every declared fact decides the gold (sensitivity proof)", not cert.get("insensitive_facts"),
         [f"{row['fact']}: {row['original']} → {row['perturbed']} changes {row['changed']}" if row.get("changed")
          else f"{row['fact']}: no perturbation of {row['original']} changes the gold"
          for row in cert.get("sensitivity") or []]),
    ]
    return [{"name": name, "ok": bool(ok), "detail": [str(d) for d in detail]} for name, ok, detail in parts]


def _histogram(values: Iterable[int]) -> dict[str, int]:
    counter = Counter(values)
    return {str(key): counter[key] for key in sorted(counter)}


#: Knobs that are ceilings (achieved may stay below), knobs that are two-sided targets (within 10 %);
#: every other numeric knob is a floor (achieved must reach 95 % of the request).
_CEILING_KNOBS = ("max_calls",)
_TARGET_KNOBS = ("filler_ratio",)


def knob_status(key: str, requested: Any, achieved: Any) -> str:
    """``met``, ``missed`` or ``not compared`` for one knob of ``bundle.json`` (requested vs achieved).

    Numbers: a ceiling (``max_calls``) is met at or below the request, a two-sided target
    (``filler_ratio``) within 10 % of it, any other number (shares, counts) at 95 % of it or more. Ranges
    (``[low, high]``) are met when the achieved range lies inside; other lists are compared as sets
    (``personas``); text is met when equal or a refinement (surface ``hard`` → ``hard_client``). Values
    of different shapes (a number requested, a table achieved) are not compared.
    """
    number = (int, float)
    if isinstance(requested, bool) or isinstance(achieved, bool):
        return "met" if requested == achieved else "missed"
    if isinstance(requested, number) and isinstance(achieved, number):
        if key in _CEILING_KNOBS:
            return "met" if achieved <= requested else "missed"
        if key in _TARGET_KNOBS:
            return "met" if abs(achieved - requested) <= 0.1 * max(abs(requested), 1e-9) else "missed"
        return "met" if achieved >= 0.95 * requested else "missed"
    if isinstance(requested, list) and isinstance(achieved, list):
        if (len(requested) == len(achieved) == 2 and all(isinstance(v, number) for v in requested + achieved)):
            return "met" if requested[0] <= achieved[0] and achieved[1] <= requested[1] else "missed"
        return "met" if {str(v) for v in requested} == {str(v) for v in achieved} else "missed"
    if isinstance(requested, str) and isinstance(achieved, str):
        return "met" if achieved == requested or achieved.startswith(requested + "_") else "missed"
    return "not compared"


def collect_report(bundle: Path, page: Path | None = None) -> dict[str, Any]:
    """Read a bundle folder and gather everything the report shows, as JSON-ready data.

    Args:
        bundle: a folder written by ``taugen build`` (holds ``bundle.json``).
        page: where the HTML page will be written (record paths link to the bundle's files relative to
            it); default beside the bundle folder (:func:`default_report_path`).

    Returns:
        ``{bundle, integrity, counts, requested, achieved, validation, facts, tasks, findings,
        artifacts, facts_anchor, distributions}``; facts and tasks carry their anchors, renditions their excerpts.

    Raises:
        InputError: not a bundle, or one of its JSON files is missing or unreadable.
    """
    files: BundleFiles = read_bundle(bundle)
    page_dir = page.resolve().parent if page is not None else bundle.resolve().parent
    source = str(bundle)
    view = BundleView(files, source)
    meta = view.bundle
    manifest = view.manifest
    certificates = view.certificates
    task_facts = _load_json(files, "author/task_facts.json", source)
    tasks_json = _load_json(files, f"{view.runtime_dir}/tasks.json", source, required=False) or []
    listed = {task["id"] for task in tasks_json}
    tasks_json = tasks_json + [{"id": task_id} for task_id in task_facts if task_id not in listed]
    validation = _load_json(files, "author/validation.json", source, required=False)
    coverage = _load_json(files, "author/coverage.json", source, required=False) or {}

    differing = sums_differences(files)
    integrity = {"ok": not differing,
                 "message": "files match SHA256SUMS" if not differing else
                 ("SHA256SUMS is missing" if "SHA256SUMS" not in files else
                  f"files differ from SHA256SUMS since the build ({len(differing)}): " + ", ".join(differing[:5])
                  + (", ..." if len(differing) > 5 else ""))}

    facts_meta: dict[str, Any] = manifest["facts"]
    artifacts: dict[str, Any] = manifest["artifacts"]
    task_ids = [task["id"] for task in tasks_json]
    task_labels = {task_id: f"T{number:02d}" for number, task_id in enumerate(task_ids, 1)}
    task_anchor = _anchors(task_ids, "task")
    fact_anchor = _anchors(facts_meta, "fact")
    artifact_anchor = _anchors(artifacts, "artifact")
    confirmable = set(manifest.get("client_confirmable") or [])

    findings = list((validation or {}).get("findings") or [])
    findings_for: dict[str, list[int]] = {}
    finding_rows = []
    for number, finding in enumerate(findings):
        subject = str(finding.get("subject", ""))
        parts = [subject] if subject in task_anchor else [p.strip() for p in subject.split(",") if p.strip()]
        links = []
        for part in parts or [subject]:  # a subject may name several ids: "call_recording_012, email_thread_004"
            findings_for.setdefault(part, []).append(number)
            links.append({"text": part, "label": task_labels.get(part, ""),
                          "anchor": task_anchor.get(part) or fact_anchor.get(part) or artifact_anchor.get(part)})
        finding_rows.append({**{k: finding.get(k, "") for k in ("check", "code", "severity", "subject", "message",
                                                                  "evidence", "rule")},
                             "anchor": f"finding-{number + 1}", "subject_links": links})

    exercised: dict[str, list[str]] = {}
    for task_id in task_ids:
        for fact_id in (task_facts.get(task_id) or {}).get("facts", []):
            exercised.setdefault(fact_id, []).append(task_id)

    sources: dict[str, str] = {}

    def source_text(artifact_id: str) -> str:
        if artifact_id not in sources:
            entry = artifacts[artifact_id]
            text = view.author_text(artifact_id)
            if not text:  # the policy document has no author source: its delivered text is the source
                text = b"\n".join(files.get(f["path"], b"") for f in entry["files"] if f["role"] != "runtime").decode(
                    errors="replace")
            sources[artifact_id] = text
        return sources[artifact_id]

    renditions_of: dict[str, list[dict[str, Any]]] = {}
    cues_of: dict[str, list[dict[str, Any]]] = {}
    for artifact_id, entry in artifacts.items():
        for rendition in entry.get("renditions", []):
            renditions_of.setdefault(rendition["fact_id"], []).append(
                {"artifact": artifact_id, "anchor": artifact_anchor[artifact_id], "genre": entry["genre"],
                 "text": rendition["text"], "register": rendition["register"], "status": rendition["status"],
                 "date": rendition["date"], "value_form": rendition.get("value_form", ""),
                 "excerpt": _excerpt(source_text(artifact_id), rendition["text"])})
        # sentences that mention a fact without owning it, and rules owned elsewhere restated (echoes)
        for cue in (entry.get("cues") or []) + [{**echo, "kind": "echo"} for echo in entry.get("echoes") or []]:
            cues_of.setdefault(cue["fact_id"], []).append(
                {"artifact": artifact_id, "anchor": artifact_anchor[artifact_id], "genre": entry["genre"],
                 "kind": cue.get("kind", ""), "text": cue.get("text", ""), "date": cue.get("date", ""),
                 "excerpt": _excerpt(source_text(artifact_id), cue.get("text", ""))})

    fact_rows = []
    for fact_id, fact in facts_meta.items():
        owner = fact.get("owner")
        owner_row = None
        if owner and owner in artifacts:
            entry = artifacts[owner]
            owner_row = {"artifact": owner, "anchor": artifact_anchor[owner], "genre": entry["genre"],
                         "variant": entry.get("variant", ""),
                         "files": [f["path"] for f in entry["files"] if f["role"] != "runtime"],
                         "source": entry.get("author_source")}
        fact_rows.append({
            "id": fact_id, "anchor": fact_anchor[fact_id], "section": fact.get("section", ""),
            "category": fact.get("category", ""), "statement": fact.get("statement", ""),
            "value": format_value(fact.get("value")), "holder": fact.get("holder", ""),
            "current": bool(fact.get("current", True)), "effective_from": fact.get("effective_from", ""),
            "supersedes": fact.get("supersedes"), "superseded_by": fact.get("superseded_by"),
            "client_held": bool(fact.get("client_held")), "client_confirmable": fact_id in confirmable,
            "contested": bool(fact.get("contested")), "discovery_tier": fact.get("discovery_tier") or "",
            "history_omitted": bool(fact.get("history_omitted")),
            "owner": owner_row, "renditions": renditions_of.get(fact_id, []), "cues": cues_of.get(fact_id, []),
            "tasks": [{"id": t, "label": task_labels[t], "anchor": task_anchor[t]} for t in exercised.get(fact_id, [])],
            "findings": findings_for.get(fact_id, []),
        })

    task_rows = []
    for task in tasks_json:
        task_id = task["id"]
        record = task_facts.get(task_id) or {}
        cert = certificates.get(task_id) or {}
        outcomes = record.get("outcomes") or {}
        scenario = task.get("user_scenario") or {}
        instructions = scenario.get("instructions") or {}
        actions = ((task.get("evaluation_criteria") or {}).get("actions")) or []
        task_rows.append({
            "id": task_id, "label": task_labels[task_id], "anchor": task_anchor[task_id],
            "customer_id": record.get("customer_id", ""), "persona": record.get("persona", ""),
            "persona_text": scenario.get("persona") or "",
            "reason_for_call": instructions.get("reason_for_call", "") if isinstance(instructions, dict) else "",
            "purpose": (task.get("description") or {}).get("purpose") or "",
            "problems": [{"name": p, "outcome": outcomes.get(p, "")} for p in record.get("problems", [])],
            "facts": [{"id": f, "anchor": fact_anchor.get(f, "")} for f in record.get("facts", [])],
            "gold": [{"name": a.get("name", ""), "arguments": json.dumps(a.get("arguments", {}), sort_keys=True)}
                     for a in actions],
            "kinds": record.get("kinds") or [], "split": record.get("split", ""),
            "fact_load": len(record.get("facts") or []),
            "context_facts": record.get("context_facts") or [],
            "certificate": {"ok": bool(cert.get("ok")), "writes": cert.get("writes", 0),
                            "parts": _certificate_parts(cert)},
            "findings": findings_for.get(task_id, []),
        })

    counts = meta.get("counts") or {}
    register_status = Counter((r["register"], r["status"]) for a in artifacts.values() for r in a.get("renditions", []))
    distributions = {
        "artifacts_per_genre": dict(counts.get("artifacts_per_genre") or
                                    Counter(a["genre"] for a in artifacts.values())),
        "tokens_per_genre": dict(counts.get("tokens_per_genre") or {}),
        # records per τ^τ kit kind, in percent, labelled with the published bundle's share of that kind
        "records_per_reference_kind": {f"{kind} (τ^τ {row['reference_share']:.0%})": round(100 * row["share"], 1)
                                       for kind, row in sorted(((counts.get("reference_mix") or {}).get("kinds") or {}).items(),
                                                               key=lambda item: (-item[1]["share"],
                                                                                 -item[1]["reference_share"], item[0]))},
        # as the tier knob and bundle.json count them: problems besides identity verification, which opens every task
        "tasks_per_problem_count": dict(counts.get("problems_per_task") or
                                        _histogram(max(0, len(row["problems"]) - 1) for row in task_rows)),
        "facts_per_artifact": _histogram(len({r["fact_id"] for r in a.get("renditions", [])})
                                         for a in artifacts.values()),
        "renditions_by_register_status": {f"{register} · {status}": number
                                          for (register, status), number in sorted(register_status.items())},
        "cues_by_kind": dict(sorted(Counter([cue.get("kind", "") for a in artifacts.values() for cue in a.get("cues") or []]
                                            + ["echo" for a in artifacts.values() for _ in a.get("echoes") or []]).items())),
        "tasks_per_persona": dict(sorted(Counter(row["persona"] for row in task_rows).items())),
        "tasks_per_fact_load": _histogram(row["fact_load"] for row in task_rows),
        "tasks_per_case_kind": dict(sorted(Counter(k for row in task_rows for k in row["kinds"]).items())),
        "coverage_per_section": {k: round(100 * (v.get("share") or 0), 1)
                                 for k, v in (coverage.get("summary", {}).get("per_section") or {}).items()},
        "coverage_per_value_type": {k: round(100 * (v.get("share") or 0), 1)
                                    for k, v in (coverage.get("summary", {}).get("per_value_type") or {}).items()},
    }
    checks = (validation or {}).get("checks") or {}
    return {
        "bundle": {key: meta.get(key) for key in ("name", "domain", "version", "tier", "seed", "taugen_version",
                                                    "build_hash")}
                  | {"surface": manifest.get("surface"), "now": manifest.get("now"),
                     "snapshot_date": manifest.get("snapshot_date"), "history_start": manifest.get("history_start")},
        "integrity": integrity,
        "counts": counts,
        "readers": _readers_rows((meta.get("realism") or {}).get("readers")),
        "requested": meta.get("requested") or {},
        "achieved": meta.get("achieved") or {},
        "knobs": [{"knob": key, "requested": (meta.get("requested") or {}).get(key),
                   "achieved": (meta.get("achieved") or {}).get(key),
                   "status": knob_status(key, (meta.get("requested") or {}).get(key),
                                         (meta.get("achieved") or {}).get(key))
                   if key in (meta.get("requested") or {}) and key in (meta.get("achieved") or {}) else "not compared"}
                  for key in sorted(set(meta.get("requested") or {}) | set(meta.get("achieved") or {}))
                  if key != "name"],
        "bundle_href": Path(os.path.relpath(bundle.resolve(), page_dir)).as_posix().rstrip("/") + "/",
        "validation": {"present": validation is not None,
                       "passed": bool(validation and validation.get("passed")) and not any(
                           f.get("severity") == "error" for f in findings),
                       "checks": checks},
        "facts": fact_rows,
        "tasks": task_rows,
        "findings": finding_rows,
        "artifacts": [{"id": aid, "anchor": artifact_anchor[aid], "genre": a["genre"], "variant": a.get("variant", ""),
                       "topic": a.get("topic", ""), "start": a.get("start", ""), "end": a.get("end", ""),
                       "carrier": bool(a.get("carrier")),
                       "files": [f["path"] for f in a.get("files", []) if f["role"] != "runtime"],
                       "source": a.get("author_source"),
                       "facts": [{"id": f, "anchor": fact_anchor.get(f, "")}
                                 for f in dict.fromkeys(r["fact_id"] for r in a.get("renditions", []))],
                       "findings": findings_for.get(aid, [])}
                      for aid, a in sorted(artifacts.items())],
        "facts_anchor": fact_anchor,
        "distributions": distributions,
        "coverage": {"summary": coverage.get("summary") or {},
                     "unexercisable": [{"id": f, "anchor": fact_anchor.get(f, ""), "reason": reason}
                                       for f, reason in sorted((coverage.get("unexercisable") or {}).items())]},
    }


def _readers_rows(readers: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Rows of the strong-reader card: ``{reader, overall, worst_genre, worst, target, met}`` per
    classifier and one for the keyword search (empty when the bundle's tier does not measure them)."""
    if not readers or "classifiers" not in readers:
        return []
    from taugen.validators.readers import MAX_AUC, MAX_TOP_K_SHARE

    rows = []
    for name, result in readers["classifiers"].items():
        if not isinstance(result, dict) or "overall" not in result:
            continue
        per_genre = {g: v for g, v in (result.get("per_genre") or {}).items() if v is not None}
        worst = max(per_genre.items(), key=lambda item: item[1]) if per_genre else ("", None)
        highest = max([v for v in (result["overall"], worst[1]) if v is not None], default=None)
        rows.append({"reader": f"{name} (ROC AUC)", "overall": result["overall"], "worst_genre": worst[0],
                     "worst": worst[1], "target": f"≤ {MAX_AUC}",
                     "met": highest is not None and highest <= MAX_AUC})
    keyword = readers.get("keyword") or {}
    if "share" in keyword:
        rows.append({"reader": f"keyword search (owner in top {keyword.get('top_k', 3)})", "overall": keyword["share"],
                     "worst_genre": "", "worst": None, "target": f"≤ {MAX_TOP_K_SHARE}",
                     "met": keyword["share"] <= MAX_TOP_K_SHARE})
    return rows


# ---------------------------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------------------------


def bar_chart(title: str, data: Mapping[str, int | float], caption: str = "", width: int = 460) -> dict[str, Any]:
    """Geometry of a horizontal bar chart for the ``bar_chart`` template macro.

    Args:
        title: shown above the bars (and as the SVG's accessible name).
        data: label → value, drawn in the given order.
        caption: what the labels and values mean, shown under the title.
        width: SVG width in pixels.

    Returns:
        ``{title, caption, width, height, label_width, bars: [{label, value, text, y, length}]}``.
    """
    row, top, label_width, value_room = 22, 6, 170, 70
    span = width - label_width - value_room
    largest = max([v for v in data.values()] + [0]) or 1
    bars = []
    for number, (label, value) in enumerate(data.items()):
        length = round(span * value / largest, 1) if value > 0 else 0
        bars.append({"label": str(label), "value": value, "text": f"{value:,}", "y": top + number * row,
                     "length": max(length, 1.0) if value else 0})
    return {"title": title, "caption": caption, "width": width, "height": top * 2 + max(1, len(bars)) * row,
            "label_width": label_width, "bars": bars}


def charts(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's bar charts from :func:`collect_report` data."""
    dist = data["distributions"]
    facts_per_artifact = {(f"{k} (filler)" if k == "0" else k): v for k, v in dist["facts_per_artifact"].items()}
    return [
        bar_chart("Artifacts per genre", dist["artifacts_per_genre"], "genre → artifacts"),
        bar_chart("Tokens per genre", dist["tokens_per_genre"], "genre → word-piece tokens of the delivered text"),
        bar_chart("Records per τ^τ kit kind", dist["records_per_reference_kind"],
                  "kind (share of τ^τ-bench's airline hard evidence bundle) → % of this bundle's records"),
        bar_chart("Tasks per number of problems", dist["tasks_per_problem_count"],
                  "problems besides identity verification (the tier knob) → tasks"),
        bar_chart("Facts per artifact", facts_per_artifact, "facts an artifact carries → artifacts"),
        bar_chart("Renditions by register and status", dist["renditions_by_register_status"],
                  "register · status → renditions"),
        bar_chart("Tasks per persona", dist["tasks_per_persona"], "persona → tasks"),
    ] + [bar_chart(title, dist[key], caption) for key, title, caption in (
        ("coverage_per_section", "Fact coverage per section (%)", "section → % of current facts that decide a task"),
        ("coverage_per_value_type", "Fact coverage per value type (%)",
         "value type → % of current facts that decide a task"),
        ("tasks_per_case_kind", "Tasks per case kind", "case kind → tasks labelled with it"),
        ("tasks_per_fact_load", "Tasks per fact load", "distinct facts a task's gold depends on → tasks"),
    ) if dist.get(key)] + ([bar_chart("Cues by kind", dist["cues_by_kind"], "mentions that own no fact: kind → cues")]
         if dist.get("cues_by_kind") else [])


def _show(value: Any) -> str:
    """A knob or count for the page: lists joined with commas, mappings as ``key: value``, else ``str``."""
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_show(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(item) for item in value)
    if isinstance(value, float):
        return f"{value:g}"
    return "" if value is None else str(value)


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates/report"), autoescape=True,
                                     undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                     keep_trailing_newline=True)
    environment.filters["show"] = _show
    return environment


def render_html(data: Mapping[str, Any]) -> str:
    """Render :func:`collect_report` data as one self-contained HTML page (every value escaped)."""
    return _environment().get_template("report.html.j2").render(report=data, charts=charts(data))


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _bundle_name(bundle: Path) -> str:
    """``bundle.json``'s name (the folder's name when it cannot be read; collect_report reports why)."""
    try:
        return json.loads((bundle / "bundle.json").read_text(encoding="utf-8")).get("name") or bundle.resolve().name
    except (OSError, ValueError, AttributeError):
        return bundle.resolve().name


def default_report_path(bundle: Path, name: str) -> Path:
    """``<bundle>/../<name>-report.html``: beside the bundle folder, never inside it."""
    return bundle.resolve().parent / f"{name}-report.html"


def load_kill_report(mutants: Path) -> dict[str, Any]:
    """The ``kill_report.json`` that ``taugen mutate`` wrote into ``mutants`` (a folder, or the file itself),
    shaped for the report's mutation section: ``{source, kill_rate, clean_errors, kinds: [{kind, operators,
    applicable, killed, rate}], mutants: [...]}``.

    Raises:
        InputError: the file is missing or is not a kill report.
    """
    path = mutants / "kill_report.json" if mutants.is_dir() else mutants
    if not path.is_file():
        raise InputError("no kill_report.json here: run taugen mutate BUNDLE --out DIR first", path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        kinds = [{"kind": kind, **row, "rate": f"{row['killed'] / row['applicable']:.0%}" if row["applicable"] else "-"}
                 for kind, row in sorted(data["per_kind"].items(), key=lambda item: int(item[0][1:]))
                 if row["operators"]]
        return {"source": data["source"], "kill_rate": data["kill_rate"], "clean_errors": data["clean_errors"],
                "kinds": kinds, "mutants": data["mutants"]}
    except (json.JSONDecodeError, KeyError, TypeError, ZeroDivisionError) as exc:
        raise InputError(f"not a taugen kill report ({type(exc).__name__}: {exc})", path) from None


def load_scores(paths: list[Path], bundle_name: str) -> list[dict[str, Any]]:
    """The construction scores of ``taugen evaluate --save-to`` files, one row per file, in the order given.

    Each row: ``workspace`` (``reference``, ``empty``, ``seeded`` or a folder's label), ``mean_reward``,
    ``final_score``, ``pass_hat_k`` (``{"1": ...}``), ``mean_budget_fraction``, ``conversations``,
    ``split``, ``deployment`` and, for the reference oracle, ``reference`` (conversations decided at run
    time, fallen back, undecided). Issue 12 item 5 asks for the reference, empty and seeded numbers in
    the reviewer report: they come from evaluation runs, which take minutes, so the report reads their
    saved scores instead of running them.

    Raises:
        InputError: a file that is not a score JSON of ``taugen evaluate``, or one scored on another
            bundle than ``bundle_name`` (a score belongs to the bundle it was measured on).
    """
    rows = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"not a readable score JSON: {exc}", path) from None
        missing = [k for k in ("mean_reward", "final_score", "workspace", "bundle", "conversations")
                   if not isinstance(data, dict) or k not in data]
        if missing:
            raise InputError(f"not a score of taugen evaluate (no {', '.join(missing)})", path)
        if data["bundle"] != bundle_name:
            raise InputError(f"scored on bundle {data['bundle']!r}, not {bundle_name!r}", path)
        rows.append({key: data.get(key) for key in ("workspace", "mean_reward", "final_score", "pass_hat_k",
                                                     "mean_budget_fraction", "conversations", "split",
                                                     "deployment", "reference")})
    return rows


def write_report(bundle: Path, out: Path | None = None, mutants: Path | None = None,
                 against: Path | None = None, scores: list[Path] | None = None) -> ReportPaths:
    """Write the HTML report and its JSON data for a bundle folder.

    Args:
        bundle: a folder written by ``taugen build``.
        out: the HTML file to write; default :func:`default_report_path`. The JSON goes beside it
            with the suffix ``.json`` (so by default ``<name>-report.json``).
        mutants: optionally, the ``--out`` folder of ``taugen mutate`` on this bundle: the report then
            shows the kill rate per kind and what killed each mutant (:func:`load_kill_report`).
        against: optionally, an earlier bundle folder: the report then shows what changed since it
            and whether scores stay comparable (:func:`taugen.build.diff.diff_bundles`).
        scores: optionally, score files of ``taugen evaluate --save-to`` on this bundle (the reference,
            the empty scaffold, the seeded start ...): the report then shows them (:func:`load_scores`).

    Raises:
        InputError: not a bundle, ``out`` lies inside the bundle (it would break ``SHA256SUMS``), or a
            score file that is not one or belongs to another bundle.
    """
    name = _bundle_name(bundle)
    html_path = (out or default_report_path(bundle, name)).resolve()
    data = collect_report(bundle, html_path)
    data["mutation"] = load_kill_report(mutants) if mutants is not None else None
    data["construction_scores"] = load_scores(scores, name) if scores else []
    if against is not None:
        from taugen.build.diff import diff_bundles, read_summary

        data["diff"] = diff_bundles(read_summary(against), read_summary(bundle), str(against), str(bundle)).as_dict()
    if html_path.is_relative_to(bundle.resolve()):
        raise InputError("the report must be written outside the bundle folder (SHA256SUMS covers every file)",
                         html_path)
    if html_path.is_dir():
        raise InputError("--out names a folder; give a file name ending in .html", html_path)
    json_path = html_path.with_suffix(".json")
    html_path.parent.mkdir(parents=True, exist_ok=True)
    html_path.write_text(render_html(data), encoding="utf-8")
    json_path.write_bytes(json_bytes(data))
    return ReportPaths(html=html_path, json=json_path)
