"""Realism gates: the corpus must not be told apart from real records by its shape.

Every gate measures a distribution, never a list of banned phrases:

* ``lengths``: per genre (with at least :data:`MIN_ARTIFACTS` artifacts), lengths in tokens bucketed by
  :data:`BUCKET` tokens take at least :data:`MIN_DISTINCT` distinct buckets, and the most common bucket
  holds at most :data:`MAX_MODAL_SHARE` of the artifacts;
* ``openings``: no two customers open a conversation (chats, phone transcripts, calls) with the same
  message of :data:`MIN_WORDS` words or more (each genre of conversations reads its customer's first
  message, :meth:`~taugen.generators.corpus.genre.Genre.customer_opening`);
* ``repeated_sentences``: no sentence of :data:`MIN_WORDS` words or more appears in two long documents
  (at least :data:`LONG_TOKENS` tokens) of the same genre;
* ``doubled_words``: no record writes a word twice in a row ("the the"; a few English doubles such as
  "had had" aside, :data:`DOUBLED_ALLOWED`);
* ``voiced_overlap``: a voiced rendition shares no run of :data:`SHINGLE` words with its fact's
  canonical statement;
* ``probe``: a logistic regression over surface features (file suffixes, sizes, token counts, subject
  lines, first lines, document titles) trained on half of the artifacts (seeded, stratified) and scored
  on the other half (and the other way round) separates carriers from fillers with AUC at most
  :data:`MAX_AUC`.

:func:`measure` also reports, per genre, the repetition of sentences (:func:`repetition`: share of
distinct sentences, count of the commonest sentence skeleton); the skeleton count is reported, not
gated (handbook prose is still recombined from templates).

On the ``hard`` tier the gates are errors; below it they are warnings. :func:`measure` returns the raw
numbers (the build writes them into ``bundle.json`` under ``realism``), cached by the bundle's bytes.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections import Counter, defaultdict
from email.parser import BytesHeaderParser
from typing import Any

import numpy as np

from taugen.text import (
    LENGTH_BUCKET,
    LENGTH_MAX_SHARE,
    LENGTH_MIN_ARTIFACTS,
    LENGTH_MIN_BUCKETS,
    LONG_TOKENS,
    count_tokens,
)
from taugen.generators.corpus.genre import genres
from taugen.generators.corpus.renditions import SHINGLE, shares_run
from taugen.bundle_layout import RECORDS_DIR
from taugen.validators.bundle_view import BundleView
from taugen.findings import Finding, error, warning
from taugen.validators.registry import validator

BUCKET, MIN_DISTINCT, MAX_MODAL_SHARE, MIN_ARTIFACTS = (LENGTH_BUCKET, LENGTH_MIN_BUCKETS, LENGTH_MAX_SHARE,
                                                       LENGTH_MIN_ARTIFACTS)
MIN_WORDS = 8
MAX_AUC = 0.6
PROBE_SEED = 20240101
_HASH_BINS = 48
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_WORD = re.compile(r"[a-z0-9']+")
_CACHE: dict[str, dict[str, Any]] = {}

def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def sentence_pieces(text: str) -> list[str]:
    """Raw sentences of ``text``: pieces split at sentence ends and blank lines (lines wrapped by a layout
    stay joined) that end like a sentence; headings, page footers, table rows and titles are not
    sentences."""
    pieces: list[str] = []
    for piece in _SENTENCE.split(text):
        if pieces and piece.lstrip()[:1].islower():  # a sentence broken by a page or column break
            pieces[-1] += " " + piece
        elif piece.strip():
            pieces.append(piece)
    return [piece for piece in pieces
            if piece.rstrip().rstrip("\"')\u201d\u2019").endswith((".", "!", "?"))]  # headers, footers, rows: not sentences


def sentences(text: str) -> list[str]:
    """:func:`sentence_pieces` as normalised word strings (lower case, punctuation dropped)."""
    return [" ".join(_words(piece)) for piece in sentence_pieces(text)]


_RAW_WORD = re.compile(r"[A-Za-z0-9\u2019']+")
_DIGIT = re.compile(r"[0-9]")


def skeleton(piece: str) -> str:
    """The shape of a sentence: its words in lower case, with every word holding a digit written ``#``
    and every capitalised word after the first (names, towns, teams, months) written ``N``. Two
    sentences from one template with different names and numbers share a skeleton."""
    out = []
    for index, word in enumerate(_RAW_WORD.findall(piece)):
        if not word.isalpha() and _DIGIT.search(word):  # isalpha first: most words hold no digit
            out.append("#")
        elif index and word[:1].isupper():
            out.append("N")
        else:
            out.append(word.lower().replace("\u2019", "'"))
    return " ".join(out)


DOUBLED_ALLOWED = frozenset({"had", "that", "bye", "no", "very", "so", "ha", "really", "is"})
"""Words English writes twice in a row on purpose ("had had", "that that", "bye bye")."""
_DOUBLED = re.compile(r"(?<![\w'-])([A-Za-z]+)[ \t]+\1\b(?!['-])", re.IGNORECASE)  # "opt-in in" is English
_DOUBLED_WRAPPED = re.compile(r"(?<![\w'-])([a-z]+)[ \t]*\n[ \t]*\1\b(?!['-])")


def doubled_words(text: str) -> list[str]:
    """Every word written twice in a row ("the the"), outside :data:`DOUBLED_ALLOWED`, lower case: in one
    line in any case (but a word in capitals beside it in lower case, "Roaming ON on", is a label), or across a line break (a layout's wrap) in lower case on both sides, so that a
    label line "Verify the customer's identity" followed by "Identity verified?", or a sign-off "Curtis"
    above the signature "Curtis Lee", is not a doubled word."""
    found = [m.group(1) for m in _DOUBLED.finditer(text) if not _capitals_beside_lower(m.group(0).split())]
    found += [m.group(1) for m in _DOUBLED_WRAPPED.finditer(text)]
    return [word.lower() for word in found if word.lower() not in DOUBLED_ALLOWED]


def _capitals_beside_lower(pair: list[str]) -> bool:
    """A word in capitals beside the same word in lower case is a label and a word, not a slip: "turn Data
    Roaming ON on the phone" (a switch's state, then the preposition). "The the" and "the the" still count."""
    first, second = pair[0], pair[-1]
    return len(first) > 1 and (first.isupper() != second.isupper()) and (first.islower() or second.islower())


@functools.lru_cache(maxsize=8192)
def _shapes(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """One record's part of :func:`repetition`: its doubled words, and each sentence of :data:`MIN_WORDS`
    words or more as ``(its words joined, its skeleton)``. Remembered by the text: a build measures the
    corpus again after re-drawing a few records, and the others' texts are the same."""
    pieces = []
    for piece in sentence_pieces(text):
        words = _words(piece)
        if len(words) >= MIN_WORDS:
            pieces.append((" ".join(words), skeleton(piece)))
    return tuple(doubled_words(text)), tuple(pieces)


def repetition(texts: list[str]) -> dict[str, Any]:
    """Repetition statistics of a genre's records: sentences of :data:`MIN_WORDS` words or more, the share
    of them that are distinct, the count of the most common :func:`skeleton` (and the skeleton), and the
    number of doubled words (with the commonest)."""
    counted: Counter = Counter()
    shapes: Counter = Counter()
    doubled: Counter = Counter()
    for text in texts:
        words_of_text, sentences_of_text = _shapes(text)
        doubled.update(words_of_text)
        for sentence, shape in sentences_of_text:
            counted[sentence] += 1
            shapes[shape] += 1
    total = sum(counted.values())
    top = shapes.most_common(1)[0] if shapes else ("", 0)
    return {"sentences": total, "distinct_share": round(len(counted) / total, 3) if total else 1.0,
            "top_skeleton_count": top[1], "top_skeleton": top[0][:200],
            "doubled_words": sum(doubled.values()), "doubled_examples": [w for w, _n in doubled.most_common(3)]}


def gates_are_errors(tier_name: str | None) -> bool:
    """The realism gates are errors on the ``hard`` tier and warnings below it."""
    return tier_name == "hard"


def _strict(view: BundleView):
    return error if gates_are_errors(view.manifest.get("tier")) else warning


def _digest(view: BundleView) -> str:
    digest = hashlib.sha256()
    for path in sorted(view.files):
        if path.startswith(f"{RECORDS_DIR}/") or path == "author/manifest.json":
            digest.update(path.encode())
            digest.update(hashlib.sha256(view.files[path]).digest())
    return digest.hexdigest()


def _artifacts(view: BundleView) -> list[str]:
    return sorted(a for a, e in view.manifest["artifacts"].items() if e["genre"] != "policy_document")


# --------------------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------------------

def measure(view: BundleView) -> dict[str, Any]:
    """Every realism number of a bundle: length distributions, repeated openings and sentences,
    voiced overlaps and the probe AUC. Cached by the digest of the records and the manifest."""
    key = _digest(view)
    if key in _CACHE:
        return _CACHE[key]
    manifest = view.manifest
    ids = _artifacts(view)
    tokens = {a: count_tokens(view.text(a)) for a in ids}
    by_genre: dict[str, list[str]] = defaultdict(list)
    for artifact_id in ids:
        by_genre[manifest["artifacts"][artifact_id]["genre"]].append(artifact_id)
    lengths = {}
    for genre, members in sorted(by_genre.items()):
        buckets = Counter(tokens[a] // BUCKET for a in members)
        lengths[genre] = {"artifacts": len(members), "distinct_buckets": len(buckets),
                          "modal_share": round(max(buckets.values()) / len(members), 3),
                          "min_tokens": min(tokens[a] for a in members), "max_tokens": max(tokens[a] for a in members)}
    openings: dict[str, list[str]] = defaultdict(list)
    known = genres()
    for artifact_id in ids:
        genre = known.get(manifest["artifacts"][artifact_id]["genre"])
        first = genre.customer_opening(view.text(artifact_id)) if genre is not None else None
        if first and len(_words(first)) >= MIN_WORDS:
            openings[" ".join(_words(first))].append(artifact_id)
    repeated_openings = {text: owners for text, owners in openings.items() if len(owners) > 1}
    repeated_sentences: dict[str, dict[str, list[str]]] = {}
    long_docs = {}
    for genre, members in sorted(by_genre.items()):
        long_members = [a for a in members if tokens[a] >= LONG_TOKENS]
        long_docs[genre] = len(long_members)
        seen: dict[str, set[str]] = defaultdict(set)
        for artifact_id in long_members:
            for sentence in set(sentences(view.text(artifact_id))):
                if sentence.count(" ") + 1 >= MIN_WORDS:
                    seen[sentence].add(artifact_id)
        repeats = {s: sorted(owners) for s, owners in seen.items() if len(owners) > 1}
        if repeats:
            repeated_sentences[genre] = repeats
    overlaps = []
    for artifact_id in ids:
        for rendition in manifest["artifacts"][artifact_id]["renditions"]:
            statement = manifest["facts"].get(rendition["fact_id"], {}).get("statement", "")
            if rendition["register"] == "voiced" and shares_run(rendition["text"], statement):
                overlaps.append({"artifact": artifact_id, "fact_id": rendition["fact_id"], "text": rendition["text"]})
    repeats = {genre: repetition([view.text(a) for a in members]) for genre, members in sorted(by_genre.items())}
    voiced = sum(1 for a in ids for r in manifest["artifacts"][a]["renditions"] if r["register"] == "voiced")
    auc, probe_n = probe_auc(view, ids, tokens)
    result = {
        "lengths": lengths, "repeated_openings": repeated_openings, "openings_checked": sum(map(len, openings.values())),
        "long_documents": long_docs, "repeated_sentences": repeated_sentences,
        "voiced_checked": voiced, "voiced_overlaps": overlaps,
        "probe": {"auc": auc, "artifacts": probe_n, "max_auc": MAX_AUC}, "repetition": repeats,
    }
    _CACHE.clear()
    _CACHE[key] = result
    return result


def summary(view: BundleView) -> dict[str, Any]:
    """The realism numbers ``bundle.json`` reports (counts, not the full lists)."""
    result = measure(view)
    return {
        "probe_auc": result["probe"]["auc"],
        "length_distinct_buckets": {g: v["distinct_buckets"] for g, v in result["lengths"].items()},
        "length_modal_share": {g: v["modal_share"] for g, v in result["lengths"].items()},
        "repeated_openings": len(result["repeated_openings"]),
        "repeated_long_sentences": sum(len(v) for v in result["repeated_sentences"].values()),
        "voiced_overlaps": len(result["voiced_overlaps"]),
        "long_documents": result["long_documents"],
        "repetition": {g: {k: v[k] for k in ("sentences", "distinct_share", "top_skeleton_count", "doubled_words")}
                       for g, v in result["repetition"].items()},
    }


def repairable(view: BundleView) -> tuple[list[str], list[str]]:
    """What a build can re-draw to meet the gates, from :func:`measure`.

    Returns ``(artifacts, corpus)``: ``artifacts`` are artifact ids whose own text breaks a gate and that a
    re-render with a derived seed can fix (every owner but the first of a repeated opening or a repeated
    long sentence, fillers before carriers; every record with a doubled word; in a genre whose lengths
    bunch, on the tier where that is an error, the records a bucket holds beyond the gate's share and,
    when too few buckets are taken, one record of each of the fullest shared buckets,
    :func:`length_surplus`); ``corpus`` names the gates that
    failed and that a re-drawn plan can fix when re-rendered records do not
    (``length_distribution:<genre>``, ``probe``). Both are empty when the gates pass. Never changes
    a gate: the same numbers as :func:`check_realism`.
    """
    result = measure(view)
    entries = view.manifest["artifacts"]

    def redraw_order(owners: list[str]) -> list[str]:
        ordered = sorted(set(owners), key=lambda a: (entries[a]["carrier"], a))
        return ordered[:-1]  # keep one owner (a carrier if any): the rest say something else

    artifacts: set[str] = set()
    for owners in result["repeated_openings"].values():
        artifacts.update(redraw_order(owners))
    for repeats in result["repeated_sentences"].values():
        for owners in repeats.values():
            artifacts.update(redraw_order(owners))
    artifacts.update(a for a in _artifacts(view) if doubled_words(view.text(a)))  # names drawn twice, say
    failing = {genre for genre, stats in result["lengths"].items() if _lengths_fail(stats)}
    if failing and gates_are_errors(view.manifest.get("tier")):  # below hard a bunched genre is a warning
        ids = _artifacts(view)
        tokens = {a: count_tokens(view.text(a)) for a in ids}
        for genre in sorted(failing):
            members = [a for a in ids if entries[a]["genre"] == genre]
            artifacts.update(length_surplus({a: tokens[a] for a in members}, {a: entries[a]["carrier"] for a in members}))
    corpus = [f"length_distribution:{genre}" for genre in sorted(failing)]
    if result["probe"]["auc"] > MAX_AUC:
        corpus.append("probe")
    return sorted(artifacts), corpus


def _lengths_fail(stats: dict[str, Any]) -> bool:
    return stats["artifacts"] >= MIN_ARTIFACTS and (stats["distinct_buckets"] < MIN_DISTINCT
                                                    or stats["modal_share"] > MAX_MODAL_SHARE)


def length_surplus(tokens: dict[str, int], carriers: dict[str, bool]) -> list[str]:
    """The records of one genre (``tokens``: artifact id → length in tokens) to re-draw so that their
    lengths spread: in every :data:`BUCKET` bucket holding more than :data:`MAX_MODAL_SHARE` of the
    genre, the records beyond that share, fillers before carriers, then by id; and when the genre takes
    fewer than :data:`MIN_DISTINCT` buckets, one more record (the first filler, else carrier) of each of
    the fullest buckets that hold two or more, as many as buckets are missing. A re-drawn record lands
    in a bucket with room (the build renders a few seeded candidates, or planned lengths, and keeps
    the first that lands there: ``taugen.build.pipeline._redraw``). Sorted ids."""
    cap = int(MAX_MODAL_SHARE * len(tokens))
    buckets: dict[int, list[str]] = defaultdict(list)
    for artifact_id in sorted(tokens):
        buckets[tokens[artifact_id] // BUCKET].append(artifact_id)
    order = {bucket: sorted(owners, key=lambda a: (carriers[a], a)) for bucket, owners in buckets.items()}
    chosen: list[str] = []
    for bucket, owners in sorted(order.items()):
        if len(owners) > cap:
            chosen += owners[:len(owners) - cap]
    missing = MIN_DISTINCT - len(buckets)
    for bucket in sorted((b for b in order if len(order[b]) > 1), key=lambda b: (-len(order[b]), b)):
        if missing <= 0:
            break
        spare = [a for a in order[bucket] if a not in chosen]
        if len(spare) < len(order[bucket]) or not spare:  # this bucket already gives one up
            continue
        chosen.append(spare[0])
        missing -= 1
    return sorted(chosen)


# --------------------------------------------------------------------------------------------------
# The carrier-vs-filler probe
# --------------------------------------------------------------------------------------------------

def _bin(token: str, salt: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{salt}:{token}".encode(), digest_size=4).digest(), "big") % _HASH_BINS


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _subject_line(view: BundleView, artifact_id: str) -> str:
    for file in view.delivered(artifact_id):
        if file.suffix == ".eml":
            headers = BytesHeaderParser().parsebytes(file.data)
            return str(headers.get("Subject", ""))
    return ""


def _title_line(view: BundleView, artifact_id: str) -> str:
    """A document's own title: PDF ``/Title``, HTML ``<title>``, else ''."""
    for file in view.delivered(artifact_id):
        if file.suffix == ".pdf":
            match = re.search(rb"/Title \((.*?)\)", file.data)
            if match:
                return match.group(1).decode("latin-1", "replace")
        if file.suffix in (".html", ".htm"):
            match = re.search(rb"<title>(.*?)</title>", file.data, re.IGNORECASE | re.DOTALL)
            if match:
                return match.group(1).decode("utf-8", "replace")
    return ""


def features(view: BundleView, ids: list[str], tokens: dict[str, int]) -> np.ndarray:
    """One row of surface features per artifact: suffix set, file count, log bytes, log tokens, hashed
    words of the subject line, the first line and the title."""
    entries = view.manifest["artifacts"]
    suffix_sets = sorted({"+".join(sorted({f["suffix"] for f in entries[a]["files"]})) for a in ids})
    rows = []
    for artifact_id in ids:
        entry = entries[artifact_id]
        files = view.delivered(artifact_id)
        row = [0.0] * (len(suffix_sets) + 3 + 3 * _HASH_BINS)
        row[suffix_sets.index("+".join(sorted({f["suffix"] for f in entry["files"]})))] = 1.0
        base = len(suffix_sets)
        row[base] = float(len(files))
        row[base + 1] = math.log1p(sum(len(f.data) for f in files))
        row[base + 2] = math.log1p(tokens[artifact_id])
        offset = base + 3
        for slot, line in enumerate((_subject_line(view, artifact_id), _first_line(view.text(artifact_id)),
                                     _title_line(view, artifact_id))):
            for token in _words(line):
                row[offset + slot * _HASH_BINS + _bin(token, str(slot))] += 1.0
        rows.append(row)
    return np.asarray(rows, dtype=float)


def _fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method (weights, bias last)."""
    design = np.hstack([x, np.ones((x.shape[0], 1))])
    weights = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 1e-6
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ weights, -30, 30)))
        gradient = design.T @ (p - y) + penalty * weights
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return weights


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve (Mann–Whitney U with tied ranks averaged)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    position = 0
    while position < len(scores):
        end = position
        while end + 1 < len(scores) and sorted_scores[end + 1] == sorted_scores[position]:
            end += 1
        ranks[order[position:end + 1]] = (position + end) / 2 + 1
        position = end + 1
    positives = labels.sum()
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return 0.5
    return float((ranks[labels == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def probe_auc(view: BundleView, ids: list[str], tokens: dict[str, int]) -> tuple[float, int]:
    """Mean held-out AUC of the probe over a seeded, stratified two-fold split, and the sample size."""
    labels = np.asarray([1.0 if view.manifest["artifacts"][a]["carrier"] else 0.0 for a in ids])
    if len(ids) < 20 or labels.sum() < 5 or (1 - labels).sum() < 5:
        return 0.5, len(ids)
    x = features(view, ids, tokens)
    rng = np.random.default_rng(PROBE_SEED)
    fold = np.zeros(len(ids), dtype=int)
    for label in (0.0, 1.0):
        members = np.flatnonzero(labels == label)
        rng.shuffle(members)
        fold[members[len(members) // 2:]] = 1
    scores = []
    for held_out in (0, 1):
        train, test = fold != held_out, fold == held_out
        mean = x[train].mean(axis=0)
        spread = x[train].std(axis=0)
        spread[spread == 0] = 1.0
        weights = _fit((x[train] - mean) / spread, labels[train])
        test_x = np.hstack([(x[test] - mean) / spread, np.ones((int(test.sum()), 1))])
        scores.append(auc(test_x @ weights, labels[test]))
    return round(float(np.mean(scores)), 3), len(ids)


# --------------------------------------------------------------------------------------------------
# The gates
# --------------------------------------------------------------------------------------------------

@validator("realism", cost=3)
def check_realism(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    result = measure(view)
    report = _strict(view)
    findings: list[Finding] = []
    for genre, stats in result["lengths"].items():
        if stats["artifacts"] < MIN_ARTIFACTS:
            continue
        if stats["distinct_buckets"] < MIN_DISTINCT or stats["modal_share"] > MAX_MODAL_SHARE:
            findings.append(report("realism", "length_distribution", genre,
                                   f"{stats['artifacts']} artifacts take {stats['distinct_buckets']} length buckets of "
                                   f"{BUCKET} tokens (need {MIN_DISTINCT}); the commonest holds "
                                   f"{stats['modal_share']:.0%} (at most {MAX_MODAL_SHARE:.0%})",
                                   rule="lengths spread like real records"))
    for text, owners in sorted(result["repeated_openings"].items()):
        findings.append(report("realism", "repeated_opening", ", ".join(owners[:4]),
                               f"{len(owners)} customers open with the same message", evidence=text,
                               rule=f"no two customers open with the same message of {MIN_WORDS}+ words"))
    for genre, repeats in sorted(result["repeated_sentences"].items()):
        examples = sorted(repeats.items(), key=lambda item: (-len(item[1]), item[0]))
        findings.append(report("realism", "repeated_long_sentence", genre,
                               f"{len(repeats)} sentence(s) of {MIN_WORDS}+ words repeat across long {genre} documents "
                               f"(e.g. in {', '.join(examples[0][1][:3])})", evidence=examples[0][0],
                               rule="no long sentence is shared by two long documents of a genre"))
    for overlap in result["voiced_overlaps"]:
        findings.append(report("realism", "voiced_copies_statement", f"{overlap['fact_id']}@{overlap['artifact']}",
                               f"a voiced rendition shares a run of {SHINGLE} words with the canonical statement",
                               evidence=overlap["text"], rule="voiced renditions are not the statement"))
    for genre, stats in result["repetition"].items():
        if stats["doubled_words"]:
            findings.append(report("realism", "doubled_words", genre,
                                   f"{stats['doubled_words']} doubled word(s) in {genre} records (e.g. "
                                   f"{', '.join(stats['doubled_examples'])})",
                                   rule="no word is written twice in a row"))
    probe = result["probe"]
    if probe["auc"] > MAX_AUC:
        findings.append(report("realism", "carriers_distinguishable", "probe",
                               f"a surface-feature probe tells carriers from fillers with AUC {probe['auc']:.3f} "
                               f"(at most {MAX_AUC})", rule="carrier-vs-filler probe at chance"))
    findings.append(Finding(check="realism", code="probe_auc", severity="info", subject="probe",
                            message=f"carrier-vs-filler probe AUC {probe['auc']:.3f} over {probe['artifacts']} "
                                    f"artifacts (held-out halves, seeded)"))
    return findings
