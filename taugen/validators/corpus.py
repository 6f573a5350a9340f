"""Corpus validators: coverage, placement and per-genre structure.

* coverage: every fact has exactly one owner artifact, or is client-held (then it has none), or is an
  older version whose history the tier leaves out (``history_omitted``, then it has none); cues (pointers,
  caveats, route pointers, decoys) own nothing, and every decoy is declared in the manifest's
  ``contested`` map; echoes own nothing and restate only current rules that another artifact owns
  (never client-held or contested ones);
* placement: each rendition's (and echo's) value is in the delivered file in an accepted surface form
  and its words are there too; client-held facts appear in no delivered record;
* structure: each genre's own ``validate`` (headers, reply chains, turn numbers, magic bytes).
"""

from __future__ import annotations

from taugen.authoring.values import find_surface_form, normalise_text
from taugen.generators.corpus.genre import get_genre
from taugen.validators.bundle_view import BundleView
from taugen.findings import Finding, error
from taugen.validators.registry import validator


@validator("coverage")
def check_coverage(view: BundleView) -> list[Finding]:
    """One owner per fact; owners exist and really carry the fact; client-held facts are unowned."""
    findings = []
    manifest = view.manifest
    carried: dict[str, list[str]] = {}
    for artifact_id, entry in manifest["artifacts"].items():
        for rendition in entry["renditions"]:
            carried.setdefault(rendition["fact_id"], []).append(artifact_id)
    for fact_id, fact in manifest["facts"].items():
        owners = carried.get(fact_id, [])
        if fact["client_held"]:
            if owners:
                findings.append(error("coverage", "client_fact_in_records", fact_id,
                                      f"client-held fact is rendered in {', '.join(owners)}",
                                      rule="client-held facts are absent from the records"))
            continue
        if fact["effective_from"] > manifest["now"][:10]:
            continue
        if fact.get("history_omitted"):
            if owners:
                findings.append(error("coverage", "omitted_history_rendered", fact_id,
                                      f"a version the tier leaves out is rendered in {', '.join(owners)}"))
            continue
        if len(owners) != 1:
            findings.append(error("coverage", "owner_count", fact_id,
                                  f"fact has {len(owners)} owner artifacts ({', '.join(owners) or 'none'})",
                                  rule="every fact has exactly one owner artifact or is client-held"))
        elif fact["owner"] != owners[0]:
            findings.append(error("coverage", "owner_mismatch", fact_id,
                                  f"manifest names owner {fact['owner']} but {owners[0]} carries it"))
    for fact_id in carried:
        if fact_id not in manifest["facts"]:
            findings.append(error("coverage", "unknown_fact", fact_id, "an artifact carries a fact the pack lacks"))
    declared = {(decoy["artifact"], fact_id, decoy["text"]) for fact_id, entry in (manifest.get("contested") or {}).items()
                for decoy in entry["decoys"]}
    for artifact_id, entry in manifest["artifacts"].items():
        for echo in entry.get("echoes") or []:
            findings += _echo_findings(manifest, artifact_id, echo["fact_id"])
        for cue in entry.get("cues", []):
            if cue["kind"] == "decoy" and (artifact_id, cue["fact_id"], cue["text"]) not in declared:
                findings.append(error("coverage", "undeclared_decoy", f"{cue['fact_id']}@{artifact_id}",
                                      "a record states a wrong value of a fact that is not declared contested",
                                      evidence=cue["text"], rule="decoys are declared, never a second owner"))
    return findings


def _echo_findings(manifest: dict, artifact_id: str, fact_id: str) -> list[Finding]:
    """An echo restates a rule in force that another artifact owns: never a client-held, contested,
    superseded or unknown fact, never in its own owner."""
    subject = f"{fact_id}@{artifact_id}"
    fact = manifest["facts"].get(fact_id)
    if fact is None:
        return [error("coverage", "unknown_fact", subject, "an artifact restates a fact the pack lacks")]
    problem = ("is client-held" if fact["client_held"] else "is contested" if fact.get("contested")
               else "is not current" if not fact.get("current", True)
               else "has no owner" if not fact["owner"]
               else "is owned by this artifact" if fact["owner"] == artifact_id else "")
    if not problem:
        return []
    return [error("coverage", "echo_without_owner", subject, f"an echo restates a fact that {problem}",
                  rule="an echo restates a rule in force that another record owns")]


@validator("placement")
def check_placement(view: BundleView) -> list[Finding]:
    """Read every owner's delivered file back and find each rendition and its typed value in it."""
    findings = []
    manifest = view.manifest
    for artifact_id, entry in sorted(manifest["artifacts"].items()):
        if not entry["renditions"] and not entry.get("cues") and not entry.get("echoes"):
            continue
        text = view.text(artifact_id)
        normalised = normalise_text(text)
        for rendition in entry["renditions"] + (entry.get("echoes") or []):
            fact_id = rendition["fact_id"]
            subject = f"{fact_id}@{artifact_id}"
            value = view.fact_value(fact_id) if fact_id in manifest["facts"] else None
            if value is not None and find_surface_form(value, normalised, normalised=True) is None:
                findings.append(error("placement", "value_not_found", subject,
                                      f"no accepted form of {value.canonical()!r} in the delivered {entry['genre']}",
                                      evidence=rendition["text"],
                                      rule="the typed value appears in the owner in an accepted surface form"))
            if normalise_text(rendition["text"]) not in normalised:
                findings.append(error("placement", "rendition_not_found", subject,
                                      "the rendition's words are not in the delivered file",
                                      evidence=rendition["text"], rule="the manifest's rendition is in the owner"))
        for cue in entry.get("cues", []):
            subject = f"{cue['fact_id']}@{artifact_id}"
            if normalise_text(cue["text"]) not in normalised:
                findings.append(error("placement", "cue_not_found", subject,
                                      f"the {cue['kind']} sentence is not in the delivered file", evidence=cue["text"]))
            value = view.fact_value(cue["fact_id"]) if cue["fact_id"] in manifest["facts"] else None
            if value is not None and find_surface_form(value, cue["text"]) is not None:
                findings.append(error("placement", "cue_states_value", subject,
                                      f"the {cue['kind']} sentence states the fact's value", evidence=cue["text"],
                                      rule="pointers, caveats, route pointers and decoys never state the true value"))
    client_statements = {fid: normalise_text(manifest["facts"][fid]["statement"]) for fid in manifest["client_held"]}
    if client_statements:
        for artifact_id in manifest["artifacts"]:
            normalised = normalise_text(view.text(artifact_id))
            for fact_id, statement in client_statements.items():
                if statement in normalised:
                    findings.append(error("placement", "client_fact_leaked", f"{fact_id}@{artifact_id}",
                                          "a client-held fact's statement is in a delivered record",
                                          evidence=statement))
    return findings


@validator("structure")
def check_structure(view: BundleView) -> list[Finding]:
    """Run each genre's own structural validator over the delivered files."""
    findings: list[Finding] = []
    for artifact_id, entry in sorted(view.manifest["artifacts"].items()):
        if entry["genre"] == "policy_document":
            continue
        for finding in get_genre(entry["genre"]).validate(view.rendered(artifact_id)):
            findings.append(finding if finding.subject.startswith(artifact_id)
                            else finding.model_copy(update={"subject": f"{artifact_id}: {finding.subject}"}))
    return findings
