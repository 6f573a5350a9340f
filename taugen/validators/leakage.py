"""Leakage: nothing an agent (or agent builder) sees names facts, authoring, or the answer key.

Scans every agent-visible file (``kit/`` and the runtime's ``policy.md`` and ``db.json``), both the
text a reader extracts and the raw bytes (metadata of xlsx / PDF / SVG), for: fact ids, authoring
words (answer key, fact id, distractor, rendition, carrier, filler, evaluator, ground truth, gold
action, taugen), author paths, and record file names that are not neutral content digests
(defect kind K18).
"""

from __future__ import annotations

import re

from taugen.validators.bundle_view import BundleView
from taugen.validators.findings import Finding, error
from taugen.validators.registry import validator

AUTHOR_WORDS = ("answer key", "fact id", "fact_id", "distractor", "rendition", "carrier", "filler", "evaluator",
                "ground truth", "gold action", "taugen", "client-held", "client_held", "supersession arc",
                "author/", "manifest.json", "evidence surface")
_RECORD_NAME = re.compile(r"^kit/records/[0-9a-f]{16}\.[a-z0-9]+$")


_TEXT_SUFFIXES = (".md", ".txt", ".eml", ".json", ".svg", ".csv", ".html", ".vtt", ".srt", ".dot")


def _scan(text: str, pattern: re.Pattern[str]) -> set[str]:
    return {match.group(0).lower() for match in pattern.finditer(text)}


@validator("leakage")
def check_leakage(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    findings = []
    fact_ids = sorted(view.manifest["facts"])
    alternatives = [re.escape(fid) for fid in sorted(fact_ids, key=len, reverse=True) if "_" in fid]
    alternatives += [re.escape(word) for word in AUTHOR_WORDS]
    needles = re.compile(rf"(?<![A-Za-z0-9_])(?:{'|'.join(alternatives)})(?![A-Za-z0-9_])", re.IGNORECASE)
    paths_to_artifact = {f["path"]: artifact_id for artifact_id, entry in view.manifest["artifacts"].items()
                         for f in entry["files"]}
    checked_artifacts = set()
    for path in view.agent_visible_paths():
        if path.startswith("kit/records/") and not _RECORD_NAME.match(path):
            findings.append(error("leakage", "record_name_not_neutral", path,
                                  "record file name is not a neutral content digest"))
        hits = _scan(view.files[path].decode("utf-8", "replace"), needles) if path.endswith(_TEXT_SUFFIXES) else set()
        artifact_id = paths_to_artifact.get(path)
        if artifact_id and artifact_id not in checked_artifacts and view.manifest["artifacts"][artifact_id]["genre"] != "policy_document":
            checked_artifacts.add(artifact_id)
            hits |= set(_scan(view.text(artifact_id), needles))
        for hit in sorted(hits):
            findings.append(error("leakage", "author_language", path, f"agent-visible file contains '{hit}'",
                                  rule="nothing agents see names facts, owners or the answer key"))
    return findings
