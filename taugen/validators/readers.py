"""Strong readers: ordinary text-mining tools pointed at ``kit/records`` as an agent sees them.

The project's own probe (:mod:`taugen.validators.realism`) looks at a few surface features it chose
itself. The readers here are what an outsider would try first, so they measure whether the corpus can
be shortcut:

* **carrier-vs-filler classifiers**, each scored by 5-fold stratified cross-validation (ROC AUC of
  the out-of-fold scores), over all artifacts and again within every genre with at least
  :data:`MIN_GENRE` artifacts (a classifier trained inside a genre can learn that genre's markers):

  - ``tfidf``: logistic regression on TF-IDF word 1–2-grams plus character 3–5-grams
    (``char_wb``) of the extracted text;
  - ``numeric``: gradient boosting on numeric density (money amounts, percents, day counts, dates,
    other numbers and number words, per token and as log counts) of the extracted text;
  - ``structure``: gradient boosting on structure (tokens, bytes, lines, blank lines, heading-like
    lines, table rows and their widths, bullet lines, mean line length, file kinds);
  - ``tfidf_facts_removed`` and ``numeric_facts_removed`` (diagnostics, not in ``bundle.json``): the
    first two after deleting every planned sentence about a fact from *every* record: renditions
    from carriers, and cues (mentions, pointers, caveats, route pointers, decoys) from carriers and
    fillers alike. What they find is a marker in the text *around* the fact slots. Deleting
    renditions from carriers only would measure the deletion: a stripped carrier is shorter and
    has fewer subject names than a filler that keeps its mentions;

* **keyword search** (``keyword``): for every fact that a record owns, a BM25 search (Robertson and
  Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009; k1 = 1.5, b = 0.75) with
  the fact's subject words over every record; the share of facts whose owner ranks in the top
  :data:`TOP_K`, overall and per owner genre.

Labels come from ``author/manifest.json`` (``carrier``); texts from each genre's own reader of the
delivered files (:meth:`BundleView.text`), which is also what placement reads values back from.
scikit-learn is an optional dependency (extra ``probes``); :func:`available` says whether it is
installed and :func:`classifiers` and :func:`keyword_search` raise ``ImportError`` when it is not.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

import numpy as np

from taugen.executors import Executor, LocalExecutor
from taugen.validators.bundle_view import BundleView

MAX_AUC = 0.65
"""The target every classifier should stay at or under (overall and per genre)."""
MIN_GENRE = 20
"""Genres with fewer artifacts are not scored on their own (too few for 5 folds)."""
FOLDS = 5
TOP_K = 3
MAX_TOP_K_SHARE = 0.40
"""The target share of facts whose owner a keyword search ranks in the top :data:`TOP_K`."""
SEED = 20240101
_MAX_CHARS = 60_000
"""Character n-grams read at most this many characters of a record (its start); words read it all."""

_WORD = re.compile(r"[a-z0-9$%']+")
_TOKEN = re.compile(r"\S+")
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
                r"hundred|thousand|million)")
_PATTERNS = {
    "money": re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|dollars?)\b|\b" + _NUMBER_WORD
                        + r"(?:[- ]" + _NUMBER_WORD + r")*\s+dollars?\b", re.IGNORECASE),
    "percent": re.compile(r"\d+(?:\.\d+)?\s?%|\b\d+(?:\.\d+)?\s?percent\b|\b" + _NUMBER_WORD + r"(?:[- ]"
                          + _NUMBER_WORD + r")*\s+percent\b", re.IGNORECASE),
    "days": re.compile(r"\b(?:\d+|" + _NUMBER_WORD + r")(?:[- ]" + _NUMBER_WORD + r")*[- ](?:business[- ]|calendar[- ]"
                       r"|banking[- ]|working[- ])?(?:days?|weeks?|months?|years?|hours?)\b", re.IGNORECASE),
    "date": re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b" + _MONTH + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?"
                       r"(?:,?\s+\d{4})?\b|\b\d{1,2}\s+" + _MONTH + r"\b", re.IGNORECASE),
    "time": re.compile(r"\b\d{1,2}:\d{2}\b"),
    "number": re.compile(r"\b\d[\d,]*(?:\.\d+)?\b"),
    "number_word": re.compile(r"\b" + _NUMBER_WORD + r"\b", re.IGNORECASE),
}
_STOP = frozenset(
    "a an the of for on in to and or is are be by with at from as per that this it its any each every after "
    "before within than then when if who whose which what can may must not no only up out into over under "
    "between our your their his her they we you i".split())


def available() -> bool:
    """True when scikit-learn (extra ``probes``) is installed."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True


def _records(view: BundleView) -> list[str]:
    return sorted(a for a, e in view.manifest["artifacts"].items() if e["genre"] != "policy_document")


def _squash(text: str) -> str:
    return " ".join(text.split())


def without_renditions(text: str, renditions: list[dict[str, Any]]) -> str:
    """``text`` (whitespace squashed) with every rendition's text deleted where it occurs verbatim."""
    squashed = _squash(text)
    for rendition in sorted(renditions, key=lambda r: -len(r["text"])):
        piece = _squash(rendition["text"])
        if piece:
            squashed = squashed.replace(piece, " ")
    return squashed


# --------------------------------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------------------------------

_LOWER_CASE_PATTERNS = {name: re.compile(pattern.pattern) for name, pattern in _PATTERNS.items()}
""":data:`_PATTERNS` without ``IGNORECASE`` (their letters are all lower case), for lower-cased text: Python's
case-insensitive matching costs two to three times as much."""


def _lowers_exactly(text: str) -> bool:
    """Whether ``_PATTERNS`` on ``text`` find what ``_LOWER_CASE_PATTERNS`` find on ``text.lower()``: every
    character lower-cases to one character, and no character outside ASCII has an ASCII upper or lower case
    (the long s, the Kelvin sign, the dotless and dotted i match ASCII letters case-insensitively)."""
    if text.isascii():
        return True
    return all(len(c.lower()) == 1 and not c.lower().isascii() and not c.upper().isascii()
               for c in set(text) if not c.isascii())


def numeric_features(text: str) -> list[float]:
    """Numeric density of ``text``: for each pattern in ``_PATTERNS`` (money, percent, day counts,
    dates, clock times, numbers, number words) the count per 100 tokens and log(1 + count)."""
    tokens = max(1, len(_TOKEN.findall(text)))
    patterns, searched = (_LOWER_CASE_PATTERNS, text.lower()) if _lowers_exactly(text) else (_PATTERNS, text)
    row: list[float] = []
    for pattern in patterns.values():
        count = len(pattern.findall(searched))
        row += [100.0 * count / tokens, math.log1p(count)]
    return row


_HEADING = re.compile(r"^(?:#{1,6}\s|[A-Z0-9][^.!?:]{0,60}$)")


def structure_features(text: str, suffixes: list[str], sizes: list[int], kinds: list[str]) -> list[float]:
    """Structure of a record: log tokens, log bytes, file count, lines, blank-line share, heading-like
    lines (markdown ``#`` or short lines without sentence punctuation), table rows (``|``, tab or
    three+ commas) and their mean cell count, bullet lines, mean and max line length, share of lines
    ending a sentence, plus a one-hot of the record's file kinds (``kinds`` lists every kind)."""
    lines = text.splitlines() or [""]
    nonblank = [line.strip() for line in lines if line.strip()] or [""]
    tokens = len(_TOKEN.findall(text))
    headings = sum(1 for line in nonblank if _HEADING.match(line) and len(line.split()) <= 8)
    tables = [line for line in nonblank if line.count("|") >= 2 or "\t" in line or line.count(",") >= 3]
    cells = [max(line.count("|"), line.count("\t"), line.count(",")) + 1 for line in tables]
    bullets = sum(1 for line in nonblank if re.match(r"^(?:[-*\u2022]|\d+[.)])\s", line))
    lengths = [len(line) for line in nonblank]
    ends = sum(1 for line in nonblank if line.endswith((".", "!", "?")))
    key = "+".join(sorted(set(suffixes)))
    row = [math.log1p(tokens), math.log1p(sum(sizes)), float(len(suffixes)), math.log1p(len(lines)),
           1 - len(nonblank) / len(lines), math.log1p(headings), headings / len(nonblank), math.log1p(len(tables)),
           len(tables) / len(nonblank), float(np.mean(cells)) if cells else 0.0, bullets / len(nonblank),
           float(np.mean(lengths)), float(max(lengths)), ends / len(nonblank)]
    return row + [1.0 if key == kind else 0.0 for kind in kinds]


# --------------------------------------------------------------------------------------------------
# Cross-validated classifiers
# --------------------------------------------------------------------------------------------------

def _cv_auc(make, x, labels: np.ndarray, rows: np.ndarray) -> float | None:
    """Out-of-fold ROC AUC of ``make()`` on ``x[rows]``; None when a class has fewer than 2 members."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    y = labels[rows]
    minority = int(min(y.sum(), len(y) - y.sum()))
    if minority < 2:
        return None
    folds = StratifiedKFold(n_splits=min(FOLDS, minority), shuffle=True, random_state=SEED)
    scores = np.zeros(len(rows))
    sub = x[rows]
    for train, test in folds.split(np.zeros(len(y)), y):
        model = make()
        model.fit(sub[train], y[train])
        scores[test] = model.predict_proba(sub[test])[:, 1]
    return round(float(roc_auc_score(y, scores)), 3)


def _logistic():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=4.0, solver="liblinear", dual=True, class_weight="balanced", max_iter=1000, random_state=SEED)


def _boosted():
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(n_estimators=100, max_depth=3, learning_rate=0.1, subsample=0.9,
                                      random_state=SEED)


def _tfidf_matrix(texts: list[str]):
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer

    words = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_df=0.95, sublinear_tf=True, max_features=200_000,
                            token_pattern=r"(?u)\b\w+\b|[$%]", dtype=np.float32)
    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), min_df=2, max_df=0.95, sublinear_tf=True,
                            max_features=200_000, dtype=np.float32)
    return hstack([words.fit_transform(texts), chars.fit_transform([t[:_MAX_CHARS] for t in texts])]).tocsr(), \
        list(words.get_feature_names_out()) + list(chars.get_feature_names_out())


def _score(make, x, labels: np.ndarray, genres: list[str]) -> dict[str, Any]:
    by_genre: dict[str, list[int]] = defaultdict(list)
    for index, genre in enumerate(genres):
        by_genre[genre].append(index)
    result: dict[str, Any] = {"overall": _cv_auc(make, x, labels, np.arange(len(labels))), "per_genre": {}}
    for genre, rows in sorted(by_genre.items()):
        if len(rows) >= MIN_GENRE:
            result["per_genre"][genre] = _cv_auc(make, x, labels, np.asarray(rows))
    scored = [v for v in [result["overall"], *result["per_genre"].values()] if v is not None]
    result["max"] = max(scored) if scored else None
    return result


def top_features(x, labels: np.ndarray, names: list[str], count: int = 25) -> dict[str, list[str]]:
    """The ``count`` features a logistic regression fitted on every row weighs most towards carriers
    and towards fillers (to find what gives carriers away)."""
    model = _logistic().fit(x, labels)
    order = np.argsort(model.coef_[0])
    return {"carrier": [names[i] for i in order[::-1][:count]], "filler": [names[i] for i in order[:count]]}


def corpus(view: BundleView) -> dict[str, Any]:
    """The records as an agent sees them: ids, texts, genres, carrier labels and file facts, and each
    text with every planned sentence about a fact (renditions and cues) deleted (``stripped``)."""
    entries = view.manifest["artifacts"]
    ids = _records(view)
    texts = [view.text(a) for a in ids]
    files = {a: view.delivered(a) for a in ids}
    return {"ids": ids, "texts": texts, "genres": [entries[a]["genre"] for a in ids],
            "labels": np.asarray([1 if entries[a]["carrier"] else 0 for a in ids]),
            "suffixes": [[f.suffix for f in files[a]] for a in ids], "sizes": [[len(f.data) for f in files[a]] for a in ids],
            "stripped": [without_renditions(t, entries[a]["renditions"] + (entries[a].get("echoes") or [])
                                                + (entries[a].get("cues") or []))
                         for a, t in zip(ids, texts)]}


def classifiers(view: BundleView, data: dict[str, Any] | None = None, explain: bool = False,
                facts_removed: bool = True, executor: Executor | None = None) -> dict[str, Any]:
    """Cross-validated ROC AUC of every carrier-vs-filler classifier, overall and per genre.

    Returns ``{"tfidf": {"overall": auc, "per_genre": {genre: auc}, "max": auc}, "numeric": ...,
    "structure": ..., "tfidf_facts_removed": ..., "numeric_facts_removed": ..., "artifacts": n,
    "carriers": n}`` (AUC rounded to 3 places; None where a class has fewer than 2 members). With
    ``explain`` also ``top_features`` of the TF-IDF reader with facts removed; without
    ``facts_removed`` the two facts-removed diagnostics are skipped. The readers are independent and run in
    :func:`reader_workers` forked processes, or wherever ``executor`` runs them (each is seeded, so the
    numbers do not depend on where it ran). Raises ImportError without scikit-learn.
    """
    data = data or corpus(view)
    labels = data["labels"]
    result: dict[str, Any] = {"artifacts": len(labels), "carriers": int(labels.sum()), "max_auc": MAX_AUC,
                              "folds": FOLDS}
    readers = ["tfidf", "numeric", "structure"] + (["tfidf_facts_removed", "numeric_facts_removed"]
                                                   if facts_removed else [])
    readers.sort(key=lambda name: not name.startswith("tfidf"))  # the slowest first
    workers = min(len(readers), reader_workers(len(labels)))
    # independent readers, each deterministic: the same numbers in any process (``data`` is sent once)
    scores = list((executor or LocalExecutor()).map(_reader_unit, data, readers, workers=workers))
    result.update(zip(readers, scores))
    if explain:
        x, names = _tfidf_matrix(data["stripped"])
        if "tfidf_facts_removed" not in result:
            result["tfidf_facts_removed"] = _score(_logistic, x, labels, data["genres"])
        result["top_features"] = top_features(x, labels, names)
    return {key: result[key] for key in sorted(result, key=_RESULT_ORDER.index)}


_RESULT_ORDER = ["artifacts", "carriers", "max_auc", "folds", "tfidf", "tfidf_facts_removed", "top_features",
                 "numeric", "numeric_facts_removed", "structure"]


def reader_workers(count: int) -> int:
    """Worker processes for the readers of ``count`` records: ``TAUGEN_WORKERS`` if set, else the CPU count
    (at most four), and 1 for small corpora or where ``fork`` is unavailable (as the corpus renders)."""
    from taugen.generators.corpus.render import render_workers

    return render_workers(count)


def _reader_unit(data: dict[str, Any], name: str) -> dict[str, Any]:
    """:func:`_reader` as an executor's unit (shared input first)."""
    return _reader(name, data)


def _reader(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """One reader's cross-validated scores (see :func:`classifiers`): its features (:func:`_features`),
    then :func:`_score`. Raises ValueError for an unknown name."""
    make, x = _features(name, data)
    return _score(make, x, data["labels"], data["genres"])


def _features(name: str, data: dict[str, Any]):
    """``(model factory, feature matrix)`` of reader ``name`` over ``data``'s records (``*_facts_removed``:
    from the texts with every planned sentence about a fact deleted). Raises ValueError for an unknown
    name."""
    texts = data["stripped"] if name.endswith("_facts_removed") else data["texts"]
    if name.startswith("tfidf"):
        return _logistic, _tfidf_matrix(texts)[0]
    if name.startswith("numeric"):
        return _boosted, np.asarray([numeric_features(t) for t in texts])
    if name == "structure":
        kinds = sorted({"+".join(sorted(set(s))) for s in data["suffixes"]})
        return _boosted, np.asarray([structure_features(t, s, z, kinds) for t, s, z in
                                     zip(texts, data["suffixes"], data["sizes"])])
    raise ValueError(f"unknown reader {name!r}")


def chance_level(data: dict[str, Any], name: str, genre: str | None = None, rounds: int = 40,
                 seed: int = SEED) -> dict[str, Any]:
    """How far reader ``name`` (``tfidf``, ``numeric``, ``structure`` or a facts-removed diagnostic) is from
    chance on one genre's records (``None``: all of them): the cross-validated ROC AUC with the true
    carrier labels, and again with the labels shuffled among those records ``rounds`` times (a
    permutation test: Ojala and Garriga, "Permutation Tests for Studying Classifier Performance", JMLR
    11, 2010). With a dozen carriers a genre's AUC swings widely on labels that mean nothing; this says
    how often.

    Args:
        data: :func:`corpus` of a bundle.
        name: the reader.
        genre: the genre whose records are scored, or None for every record.
        rounds: label shuffles (each a full cross-validation).
        seed: the shuffles' seed.

    Returns:
        ``{"auc": real, "chance_mean": m, "chance_p95": q, "chance_over_max": share of shuffles above
        MAX_AUC, "p_value": share of shuffles at or above the real AUC, "rounds": rounds}`` (rounded to 3
        places); ``auc`` None (and no chance figures) when a class has fewer than 2 members.

    Raises:
        ValueError: an unknown reader or a genre without records.
    """
    rows = np.asarray([i for i, g in enumerate(data["genres"]) if genre is None or g == genre])
    if not len(rows):
        raise ValueError(f"no records of genre {genre!r}")
    make, x = _features(name, data)
    labels = data["labels"]
    real = _cv_auc(make, x, labels, rows)
    if real is None:
        return {"auc": None, "rounds": 0}
    shuffler = np.random.default_rng(seed)
    chance = []
    for _ in range(rounds):
        shuffled = labels.copy()
        shuffled[rows] = shuffler.permutation(labels[rows])
        chance.append(_cv_auc(make, x, shuffled, rows))
    values = np.asarray(chance, dtype=float)
    return {"auc": real, "chance_mean": round(float(values.mean()), 3),
            "chance_p95": round(float(np.percentile(values, 95)), 3),
            "chance_over_max": round(float(np.mean(values > MAX_AUC)), 3),
            "p_value": round(float(np.mean(values >= real)), 3), "rounds": rounds}


# --------------------------------------------------------------------------------------------------
# Keyword search
# --------------------------------------------------------------------------------------------------

def subject_words(fact: dict[str, Any]) -> list[str]:
    """The words a reader would search for a fact: its ``subject`` (or, without one, its statement),
    lower-cased, without stop words, digits or the value's own words."""
    text = fact.get("subject") or fact.get("statement", "")
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and not any(c.isdigit() for c in w)
            and w not in ("$", "%")]


def keyword_search(view: BundleView, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """How often a BM25 search on a fact's subject words ranks its owner in the top :data:`TOP_K`.

    Only facts owned by a record (not client-held, not owned by the policy document) count. Returns
    ``{"facts": n, "top_k": 3, "share": s, "per_genre": {genre: {"facts": n, "share": s}}, "max_share":
    0.4}`` with shares rounded to 3 places.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    data = data or corpus(view)
    ids = data["ids"]
    index = {a: i for i, a in enumerate(ids)}
    vectorizer = CountVectorizer(token_pattern=r"[a-z0-9']+", lowercase=True, dtype=np.float32)
    counts = vectorizer.fit_transform(data["texts"]).tocsc()
    vocabulary = vectorizer.vocabulary_
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    average = float(lengths.mean()) if len(lengths) else 1.0
    documents = np.asarray((counts > 0).sum(axis=0)).ravel()
    k1, b = 1.5, 0.75
    hits: dict[str, list[int]] = defaultdict(list)
    for fact_id, fact in sorted(view.manifest["facts"].items()):
        owner = fact.get("owner")
        if not owner or owner not in index or fact.get("client_held"):
            continue
        terms = sorted({vocabulary[w] for w in subject_words(fact) if w in vocabulary})
        if not terms:
            continue
        scores = np.zeros(len(ids))
        for term in terms:
            column = counts.getcol(term)
            rows, tf = column.indices, column.data
            idf = math.log(1 + (len(ids) - documents[term] + 0.5) / (documents[term] + 0.5))
            scores[rows] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[rows] / average))
        rank = int((scores > scores[index[owner]]).sum())
        hits[view.manifest["artifacts"][owner]["genre"]].append(1 if rank < TOP_K else 0)
    every = [h for values in hits.values() for h in values]
    return {"facts": len(every), "top_k": TOP_K, "max_share": MAX_TOP_K_SHARE,
            "share": round(sum(every) / len(every), 3) if every else None,
            "per_genre": {g: {"facts": len(v), "share": round(sum(v) / len(v), 3)} for g, v in sorted(hits.items())}}


def summary(view: BundleView, executor: Executor | None = None) -> dict[str, Any]:
    """The strong-reader numbers ``bundle.json`` reports under ``realism.readers``: ``{"classifiers":
    :func:`classifiers` without the two facts-removed diagnostics (``scripts/strong_readers.py`` and the
    tests add those), "keyword": :func:`keyword_search`}``, the classifiers run through ``executor``; or
    ``{"unavailable": "..."}`` when scikit-learn is not installed."""
    if not available():
        return {"unavailable": "scikit-learn is not installed (pip install 'taugen[probes]')"}
    data = corpus(view)
    return {"classifiers": classifiers(view, data, facts_removed=False, executor=executor),
            "keyword": keyword_search(view, data)}
