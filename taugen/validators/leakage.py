"""Leakage: nothing an agent (or agent builder) sees names facts, authoring, or the answer key.

Scans every agent-visible file (``kit/`` and the runtime's ``policy.md`` and ``db.json``) byte for byte:
the raw bytes (so document metadata of PDF, SVG, PNG text chunks and WAV chunks is read), every member
of a ZIP-based file (xlsx, docx) decompressed, compressed PNG text chunks, and the text a reader extracts
from each record. It looks for:

* fact ids and authoring words (answer key, fact id, distractor, rendition, carrier, filler, evaluator,
  ground truth, gold action, taugen, ...);
* author paths: the folder taugen runs from, the build machine's temporary and home folders,
  ``site-packages``;
* generation timestamps: ISO timestamps or dates after the world's ``now``, the build machine's current
  date (when it is after ``now``) in ISO, compact (``D:20261129``) or EXIF (``2026:11:29``) form, and ZIP
  member times after ``now``;
* answer language in a record's text ("refund the $40 fee", "should be approved": the instruction a
  task's gold carries out, :data:`taugen.validators.defects.data.ANSWER_LANGUAGE`; the policy document
  states rules this way and is not scanned for it);
* record file names that are not neutral content digests (defect kind K18);
* in a construction kit (``kit/client_api/``, ``framework/``, ``workspace/``, ``simulations/``): the
  sealed split's task ids, ids that only the sealed tasks' set-up creates, the defect kinds of the
  client API deployment and of a seeded start (the kit names its issues by neutral names only), and
  sample scenarios of any split but the dev split.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import tempfile
import zipfile
import zlib
from pathlib import Path

from taugen.bundle_layout import (
    DEPLOYMENTS, RECORDS_DIR, SAMPLE_SOURCES, SEALED_SPLIT, SIMULATIONS, dev_split_name,
)
from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.data import ANSWER_LANGUAGE
from taugen.findings import Finding, error
from taugen.validators.registry import validator
from taugen.text import AUTHOR_WORDS

_RECORD_NAME = re.compile(r"^" + re.escape(RECORDS_DIR) + r"/[0-9a-f]{16}\.[a-z0-9]+$")
_TEXT_SUFFIXES = (".md", ".txt", ".eml", ".json", ".svg", ".csv", ".html", ".vtt", ".srt", ".dot")
_WORDS = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(re.escape(w) for w in AUTHOR_WORDS) + r")(?![A-Za-z0-9_])",
                    re.IGNORECASE)
_SNAKE = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+")
_ISO_STAMP = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})")
_ISO_DAY = re.compile(rb"(?<![0-9])(\d{4})-(\d{2})-(\d{2})(?![0-9])")
_ZIP_SUFFIXES = (".xlsx", ".docx", ".pptx", ".zip")
_LOWER_WORDS = tuple(word.lower() for word in AUTHOR_WORDS)


def _author_paths() -> list[str]:
    """Folders of the build machine that must never appear in a delivered byte."""
    paths = {str(Path(__file__).resolve().parents[2]), tempfile.gettempdir().rstrip("/") + "/", "site-packages"}
    home = str(Path.home())
    if home not in ("/", ""):
        paths.add(home.rstrip("/") + "/")
    return sorted(p for p in paths if len(p) > 4)


def _raw(path: str, data: bytes) -> bytes:
    """The bytes of a file that can carry words: everything but compressed or sampled payloads (PDF
    streams, which the extracted text covers; audio frames; PNG image data)."""
    if data.startswith(b"%PDF"):
        return re.sub(rb"stream\r?\n.*?endstream", b"stream endstream", data, flags=re.DOTALL)
    if data[:4] == b"RIFF" or path.endswith((".mp3", ".m4a", ".ogg", ".flac", ".mp4", ".webm")):
        return data[:65536] + data[-65536:]
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        chunks, position = [], 8
        while position + 8 <= len(data):
            length = int.from_bytes(data[position:position + 4], "big")
            kind = data[position + 4:position + 8]
            if kind != b"IDAT":
                chunks.append(kind + data[position + 8:position + 8 + length])
            position += 12 + length
        return b"\n".join(chunks)
    if path.endswith((".jpg", ".jpeg", ".webp", ".gif")):
        return data[:65536]
    return data


def _views(path: str, data: bytes) -> list[tuple[str, str]]:
    """(where, text) pairs to scan for one delivered file: the raw bytes, ZIP members, PNG text."""
    views = [(path, _raw(path, data).decode("utf-8" if path.endswith(_TEXT_SUFFIXES) else "latin-1", "replace"))]
    if path.endswith(_ZIP_SUFFIXES) and data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for member in archive.infolist():
                    views.append((f"{path}!{member.filename}", archive.read(member).decode("utf-8", "replace")))
        except (zipfile.BadZipFile, OSError):
            pass
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        position = 8
        while position + 8 <= len(data):
            length = int.from_bytes(data[position:position + 4], "big")
            kind = data[position + 4:position + 8]
            body = data[position + 8:position + 8 + length]
            if kind in (b"zTXt", b"iTXt") and b"\x00" in body:
                keyword, rest = body.split(b"\x00", 1)
                try:
                    text = zlib.decompress(rest[1:] if kind == b"zTXt" else rest[2:].split(b"\x00", 2)[-1])
                    views.append((f"{path}!{keyword.decode('latin-1')}", text.decode("utf-8", "replace")))
                except zlib.error:
                    pass
            position += 12 + length
    return views


def _zip_times(path: str, data: bytes, now: dt.datetime) -> list[str]:
    if not (path.endswith(_ZIP_SUFFIXES) and data[:2] == b"PK"):
        return []
    late = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                stamp = dt.datetime(*member.date_time)
                if stamp > now.replace(tzinfo=None) + dt.timedelta(days=1):
                    late.append(f"{member.filename} {stamp.isoformat()}")
    except (zipfile.BadZipFile, OSError):
        pass
    return late


@validator("leakage", cost=2)
def check_leakage(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    findings = []
    fact_ids = {fid.lower() for fid in view.manifest["facts"] if "_" in fid}
    now = view.now
    today = dt.date.today()
    today_forms = []
    if today > now.date():  # the build machine's clock must not leak into a record
        today_forms = [today.isoformat(), f"D:{today:%Y%m%d}", f"{today:%Y:%m:%d}"]
    author_paths = _author_paths()
    paths_to_artifact = {f["path"]: artifact_id for artifact_id, entry in view.manifest["artifacts"].items()
                         for f in entry["files"]}
    checked_artifacts = set()
    for path in view.agent_visible_paths():
        if path.startswith(f"{RECORDS_DIR}/") and not _RECORD_NAME.match(path):
            findings.append(error("leakage", "record_name_not_neutral", path,
                                  "record file name is not a neutral content digest"))
        data = view.files[path]
        scans = _views(path, data)
        artifact_id = paths_to_artifact.get(path)
        if artifact_id and artifact_id not in checked_artifacts and view.manifest["artifacts"][artifact_id]["genre"] != "policy_document":
            checked_artifacts.add(artifact_id)
            scans.append((f"{path} (text)", view.text(artifact_id)))
        hits: set[str] = set()
        stamps: set[str] = set()
        for where, text in scans:
            if where.endswith(" (text)") and (answer := ANSWER_LANGUAGE.search(text)):
                hits.add(answer.group(0).lower())
            lowered = text.lower()
            if any(word in lowered for word in _LOWER_WORDS):  # cheap prefilter before the word regex
                hits |= {m.group(0).lower() for m in _WORDS.finditer(text)}
            if "_" in text:
                hits |= {token for token in _SNAKE.findall(lowered) if token in fact_ids}
            hits |= {p for p in author_paths if p in text}
            for match in _ISO_STAMP.finditer(text):
                try:
                    stamp = dt.datetime(*(int(g) for g in match.groups()))
                except ValueError:
                    continue
                if stamp.date() > now.date():
                    stamps.add(match.group(0))
            stamps |= {form for form in today_forms if form in text}
        if path.endswith((".json", ".md", ".txt", ".eml", ".csv", ".html", ".svg")) or not path.startswith(f"{RECORDS_DIR}/"):
            pass
        else:  # binary metadata: ISO days after now
            for match in _ISO_DAY.finditer(_raw(path, data)):
                try:
                    day = dt.date(*(int(g) for g in match.groups()))
                except ValueError:
                    continue
                if day > now.date():
                    stamps.add(match.group(0).decode())
        for hit in sorted(hits):
            findings.append(error("leakage", "author_language", path, f"agent-visible file contains '{hit}'",
                                  rule="nothing agents see names facts, owners or the answer key"))
        for stamp in sorted(stamps) + _zip_times(path, data, now):
            findings.append(error("leakage", "generation_timestamp", path,
                                  f"agent-visible file carries a time after the world's now: '{stamp}'",
                                  rule="no wall-clock or build-machine time in delivered bytes"))
    return findings + _construction_findings(view)


_WORKSPACE_DEFECT_KINDS = ("stale_value", "misread_rule", "missing_branch")


def _ids_in(data: object, found: set[str]) -> set[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            found.add(str(key))
            _ids_in(value, found)
    elif isinstance(data, list):
        for value in data:
            _ids_in(value, found)
    elif isinstance(data, str):
        found.add(data)
    return found


def _construction_findings(view: BundleView) -> list[Finding]:
    """The construction kit's own leaks (see the module docstring)."""
    if DEPLOYMENTS not in view.files:
        return []
    import json

    runtime = view.runtime_dir
    splits = json.loads(view.files[f"{runtime}/split_tasks.json"])
    tasks = {t["id"]: t for t in json.loads(view.files[f"{runtime}/tasks.json"])}
    sealed = [tasks[i] for i in splits.get(SEALED_SPLIT, []) if i in tasks]
    database = json.loads(view.files[f"{runtime}/db.json"])
    known = _ids_in(database, set())
    created: set[str] = set()
    for task in sealed:
        patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {}
        for table, rows in patch.items():
            if isinstance(rows, dict):
                created |= {key for key in rows if key not in known and len(key) >= 6}
    deployment_kinds = {d["kind"] for dep in json.loads(view.files[DEPLOYMENTS]).values() for d in dep["defects"]}
    needles = {**{task["id"]: "a sealed task id" for task in sealed},
               **{key: "an id only a sealed task's set-up creates" for key in created},
               **{kind: "a client API defect kind" for kind in deployment_kinds | set(_WORKSPACE_DEFECT_KINDS)
                  if "_" in kind}}  # identifiers only: 'pagination' is also a plain word of the contract
    findings = []
    dev_ids = set(splits.get(dev_split_name(splits), []))
    sources = json.loads(view.files[SAMPLE_SOURCES]) if SAMPLE_SOURCES in view.files else {}
    for path in view.agent_visible_paths():
        if not path.startswith(("kit/client_api/", "kit/framework/", "kit/workspace/", f"{SIMULATIONS}/", "kit/README")):
            continue
        text = view.files[path].decode("utf-8", "replace")
        for needle, what in sorted(needles.items()):
            if needle in text:
                findings.append(error("leakage", "construction_kit_leak", path, f"kit file contains {what}: '{needle}'",
                                      rule="the kit never shows the sealed split, its set-up or the defect catalogue"))
        if path.startswith(f"{SIMULATIONS}/") and path.endswith(".json"):
            source = sources.get(path.rsplit("/", 1)[-1])
            if source is None or source not in dev_ids:
                findings.append(error("leakage", "sample_not_from_dev_split", path,
                                      f"sample scenario comes from task {source}, not from the dev split"))
    return findings
