"""Evidence validators: client overlay and discovery tiers, contested facts, evidence routes, modality
profile and supersession arcs, all read back from the delivered files.

* ``discovery``: every client-held fact has a discovery tier (``pointer``, ``caveat`` or ``silent``);
  for ``pointer`` and ``caveat`` the named record contains the cue sentence (a pointer names the
  operations lead, a caveat says the matter is decided case by case) and does not state the held value;
  the overlay removed held facts from existing records (the artifacts it names exist);
* ``contested``: every contested fact keeps one owner that states the true value, and has at least two
  decoys in distinct records other than the owner, each stating a distinct wrong value of the fact's own
  value type and not the true value;
* ``routes``: each hop's pointer sentence is in the from-record; it names a kind of record (a title) and a
  date that are both visible in the to-record, and exactly one record of that genre shows both; the
  to-record owns the fact and states its value; the from-record does not state it; a bundle with
  fewer routes than its tier asks for gets a warning that says why (a pack may have too few facts
  that can be routed to: telecom has almost none);
* ``modality``: every delivered file's medium is in the bundle's modality profile, and every
  substituted artifact is of its new genre and its facts are owned nowhere else (moved, not copied);
* ``arcs``: each version of a supersession arc was decided on or before it took effect, and the versions
  of an arc whose history is rendered sit in records of different genres dated inside their windows.
"""

from __future__ import annotations

import datetime as dt

from pydantic import TypeAdapter

from taugen.authoring.values import DateValue, FactValue, find_surface_form, normalise_text
from taugen.validators.bundle_view import BundleView
from taugen.findings import Finding, error, warning
from taugen.validators.registry import validator

_VALUE = TypeAdapter(FactValue)
AUDIO_SUFFIXES = (".wav", ".m4a", ".mp3", ".ogg", ".flac")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")
VIDEO_SUFFIXES = (".mp4", ".webm")


def _strict(view: BundleView):
    """Error on the hard tier (the gates are limits there), warning below."""
    return error if view.manifest.get("tier") == "hard" else warning


def date_in(text: str, day: dt.date) -> bool:
    """True when ``text`` writes ``day`` in any accepted date form."""
    return find_surface_form(DateValue(value=day), text) is not None


@validator("discovery")
def check_discovery(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    manifest = view.manifest
    findings: list[Finding] = []
    discovery = manifest.get("discovery") or {}
    artifacts = manifest["artifacts"]
    for fact_id in manifest.get("client_held", []):
        entry = discovery.get(fact_id)
        if entry is None or entry.get("tier") not in ("pointer", "caveat", "silent"):
            findings.append(error("discovery", "tier_missing", fact_id, "client-held fact has no discovery tier",
                                  rule="each held fact is pointer, caveat or silent"))
            continue
        if entry["tier"] == "silent":
            continue
        artifact_id = entry.get("artifact")
        if artifact_id not in artifacts:
            findings.append(error("discovery", "cue_record_missing", fact_id,
                                  f"the {entry['tier']} names record {artifact_id!r}, which is not in the bundle"))
            continue
        subject = f"{fact_id}@{artifact_id}"
        text = view.text(artifact_id)
        if normalise_text(entry.get("text", "")) not in normalise_text(text) or not entry.get("text"):
            findings.append(error("discovery", "cue_sentence_missing", subject,
                                  f"the {entry['tier']} sentence is not in the named record", evidence=entry.get("text", "")))
        wording = normalise_text(entry.get("text", ""))
        if entry["tier"] == "pointer" and "operations lead" not in wording:
            findings.append(error("discovery", "pointer_names_nobody", subject,
                                  "a pointer must send the reader to the operations lead", evidence=entry["text"]))
        if entry["tier"] == "caveat" and "case by case" not in wording:
            findings.append(error("discovery", "caveat_not_case_by_case", subject,
                                  "a caveat must say the matter is decided case by case", evidence=entry["text"]))
        value = view.fact_value(fact_id)
        if value is not None and find_surface_form(value, text) is not None:
            findings.append(error("discovery", "held_value_in_cue_record", subject,
                                  f"the record that points to the client states the held value "
                                  f"{find_surface_form(value, text)!r}", rule="held values are absent from the records"))
    for entry in manifest.get("client_overlay") or []:
        if entry["artifact"] not in artifacts:
            findings.append(error("discovery", "overlay_added_artifact", entry["artifact"],
                                  "the client overlay names an artifact that is not in the bundle",
                                  rule="substitution, never addition"))
            continue
        carried = {r["fact_id"] for r in artifacts[entry["artifact"]]["renditions"]}
        for fact_id in entry["removed"]:
            if fact_id in carried:
                findings.append(error("discovery", "overlay_not_carved", f"{fact_id}@{entry['artifact']}",
                                      "the overlay says it removed this held fact, but the record still owns it"))
    return findings


@validator("contested")
def check_contested(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    manifest = view.manifest
    findings: list[Finding] = []
    artifacts = manifest["artifacts"]
    for fact_id, entry in sorted((manifest.get("contested") or {}).items()):
        fact = manifest["facts"].get(fact_id)
        if fact is None:
            findings.append(error("contested", "unknown_fact", fact_id, "contested fact is not in the pack"))
            continue
        value = view.fact_value(fact_id)
        owner = fact.get("owner")
        if owner is None or owner not in artifacts:
            findings.append(error("contested", "no_owner", fact_id, "a contested fact keeps one record with the true value"))
        elif value is not None and find_surface_form(value, view.text(owner)) is None:
            findings.append(error("contested", "true_value_missing", f"{fact_id}@{owner}",
                                  "the owner does not state the true value"))
        decoys = entry.get("decoys", [])
        if len(decoys) < 2:
            findings.append(error("contested", "too_few_decoys", fact_id,
                                  f"{len(decoys)} decoy(s); a contested fact needs at least 2",
                                  rule="at least two conflicting readings in different records"))
        seen_records: set[str] = set()
        seen_values: set[str] = set()
        for decoy in decoys:
            artifact_id = decoy["artifact"]
            subject = f"{fact_id}@{artifact_id}"
            wrong = _VALUE.validate_python(decoy["value"])
            if artifact_id == owner or artifact_id in seen_records:
                findings.append(error("contested", "decoy_record_reused", subject,
                                      "each decoy sits in its own record, never the owner"))
            seen_records.add(artifact_id)
            if value is not None and (wrong.type != value.type or wrong.canonical() == value.canonical()):
                findings.append(error("contested", "decoy_not_wrong_value", subject,
                                      f"decoy value {wrong.canonical()!r} is not a wrong value of type {value.type}"))
            if wrong.canonical() in seen_values:
                findings.append(error("contested", "decoys_agree", subject,
                                      f"two decoys state the same value {wrong.canonical()!r}"))
            seen_values.add(wrong.canonical())
            if artifact_id not in artifacts:
                findings.append(error("contested", "decoy_record_missing", subject, "the decoy's record is not in the bundle"))
                continue
            text = view.text(artifact_id)
            if normalise_text(decoy["text"]) not in normalise_text(text):
                findings.append(error("contested", "decoy_not_found", subject, "the decoy sentence is not in its record",
                                      evidence=decoy["text"]))
            if find_surface_form(wrong, decoy["text"]) is None:
                findings.append(error("contested", "decoy_value_missing", subject,
                                      "the decoy sentence does not state its wrong value", evidence=decoy["text"]))
            if value is not None and find_surface_form(value, decoy["text"]) is not None:
                findings.append(error("contested", "decoy_states_truth", subject,
                                      "the decoy sentence states the true value", evidence=decoy["text"]))
    return findings


@validator("routes")
def check_routes(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    manifest = view.manifest
    findings: list[Finding] = []
    artifacts = manifest["artifacts"]
    lowered: dict[str, str] = {}

    def low(artifact_id: str) -> str:
        if artifact_id not in lowered:
            lowered[artifact_id] = view.text(artifact_id).lower()
        return lowered[artifact_id]

    requested = (view.bundle.get("requested") or {}).get("evidence_routes") if "bundle.json" in view.files else None
    placed = len(manifest.get("routes") or [])
    if requested and placed < requested:
        findings.append(warning("routes", "fewer_than_requested", "routes",
                                f"the tier asks for {requested} evidence routes; {placed} were placed (too few "
                                "facts qualify: current money, percent or duration facts owned by a uniquely "
                                "dated schedule, decision table, handbook or briefing)",
                                rule="every knob a tier requests is achieved or reported short"))
    for route in manifest.get("routes") or []:
        fact_id = route["fact_id"]
        hops = route.get("hops", [])
        if not hops:
            findings.append(error("routes", "no_hops", route["id"], "an evidence route needs at least one hop"))
            continue
        value = view.fact_value(fact_id) if fact_id in manifest["facts"] else None
        terminal = hops[-1]["to"]
        if manifest["facts"].get(fact_id, {}).get("owner") != terminal:
            findings.append(error("routes", "terminal_not_owner", route["id"],
                                  f"the route ends at {terminal}, which does not own {fact_id}"))
        for number, hop in enumerate(hops, start=1):
            subject = f"{route['id']} hop {number}: {hop['from']} -> {hop['to']}"
            if hop["from"] not in artifacts or hop["to"] not in artifacts or hop["from"] == hop["to"]:
                findings.append(error("routes", "hop_unresolved", subject, "a hop joins two distinct records of the bundle"))
                continue
            source, target = view.text(hop["from"]), view.text(hop["to"])
            day = dt.date.fromisoformat(hop["anchor_date"])
            title = hop["anchor_title"].lower()
            pointer = hop["text"]
            if normalise_text(pointer) not in normalise_text(source):
                findings.append(error("routes", "pointer_missing", subject, "the pointer sentence is not in the from-record",
                                      evidence=pointer))
            if title not in pointer.lower() or not date_in(pointer, day):
                findings.append(error("routes", "pointer_names_nothing", subject,
                                      f"the pointer does not name the {title!r} of {day}", evidence=pointer))
            if title not in target.lower() or not date_in(target, day):
                findings.append(error("routes", "anchor_not_visible", subject,
                                      f"the to-record does not show {title!r} and {day}"))
            genre = artifacts[hop["to"]]["genre"]
            matches = [a for a, e in sorted(artifacts.items()) if e["genre"] == genre
                       and title in low(a) and date_in(view.text(a), day)]
            if matches != [hop["to"]]:
                findings.append(error("routes", "anchor_ambiguous", subject,
                                      f"{len(matches)} {genre} records show {title!r} and {day}: "
                                      f"{', '.join(matches[:5]) or 'none'}", rule="a pointer identifies exactly one record"))
            if value is not None and number == len(hops) and find_surface_form(value, target) is None:
                findings.append(error("routes", "value_not_in_terminal", subject, "the to-record does not state the value"))
            if value is not None and find_surface_form(value, source) is not None:
                findings.append(error("routes", "value_in_pointer_record", subject,
                                      f"the from-record already states the value {find_surface_form(value, source)!r}",
                                      rule="the value is learnable only by following the pointer"))
    return findings


def medium_of(suffix: str) -> str:
    """``audio``, ``image``, ``video`` or ``text`` for a delivered file suffix."""
    suffix = suffix.lower()
    if suffix in AUDIO_SUFFIXES:
        return "audio"
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix in VIDEO_SUFFIXES:
        return "video"
    return "text"


@validator("modality")
def check_modality(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    manifest = view.manifest
    profile = manifest.get("modality")
    findings: list[Finding] = []
    if profile is None:
        return findings
    allowed = set(profile.split("+"))
    artifacts = manifest["artifacts"]
    owners: dict[str, list[str]] = {}
    for artifact_id, entry in artifacts.items():
        for rendition in entry["renditions"]:
            owners.setdefault(rendition["fact_id"], []).append(artifact_id)
        for file in entry["files"]:
            medium = medium_of(file["suffix"])
            if medium not in allowed:
                findings.append(error("modality", "medium_outside_profile", artifact_id,
                                      f"delivers a {medium} file ({file['suffix']}) under the {profile!r} profile"))
    for move in manifest.get("modality_substitutions") or []:
        entry = artifacts.get(move["artifact"])
        if entry is None or entry["genre"] != move["to_genre"]:
            findings.append(error("modality", "substitution_missing", move["artifact"],
                                  f"substituted artifact is not a {move['to_genre']} in the bundle"))
            continue
        for rendition in entry["renditions"]:
            if owners.get(rendition["fact_id"]) != [move["artifact"]]:
                findings.append(error("modality", "rendition_duplicated", f"{rendition['fact_id']}@{move['artifact']}",
                                      f"a moved rendition is also owned by {owners.get(rendition['fact_id'])}",
                                      rule="a rendition moves medium, it is never duplicated"))
    return findings


@validator("arcs")
def check_arcs(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    manifest = view.manifest
    findings: list[Finding] = []
    report = _strict(view)
    for arc in manifest.get("arcs") or []:
        versions = arc["versions"]
        for earlier, later in zip(versions, versions[1:]):
            if later["decision_date"] < earlier["effective_from"] and later["decision_date"] != later["effective_from"]:
                findings.append(warning("arcs", "decided_before_predecessor", later["fact_id"],
                                        f"decided {later['decision_date']}, before its predecessor took effect"))
        for number, version in enumerate(versions):
            if version["decision_date"] > version["effective_from"]:
                findings.append(error("arcs", "decided_after_effective", version["fact_id"],
                                      f"decided {version['decision_date']} after taking effect {version['effective_from']}"))
            if version["record_date"] is None:
                continue
            if version["record_date"] < version["effective_from"]:
                findings.append(error("arcs", "record_before_effective", version["fact_id"],
                                      f"its record is dated {version['record_date']}, before it took effect"))
            if number + 1 < len(versions) and version["status"] == "superseded" \
                    and version["record_date"] >= versions[number + 1]["effective_from"]:
                findings.append(error("arcs", "record_after_successor", version["fact_id"],
                                      f"its record is dated {version['record_date']}, after its successor took effect"))
        if arc.get("history_rendered"):
            genres = [v["genre"] for v in versions if v["genre"]]
            if len(genres) != len(set(genres)):
                findings.append(report("arcs", "arc_in_one_genre", arc["arc_id"],
                                       f"the versions of this arc sit in the same genre ({', '.join(genres)})",
                                       rule="a supersession arc is spread over records of different genres"))
    return findings
