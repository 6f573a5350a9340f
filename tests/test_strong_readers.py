"""Strong readers (taugen.validators.readers): ordinary classifiers and keyword search on kit/records.

The synthetic tests show each reader catches the shortcut it is built for (so a low AUC on the real
bundle means something). The bundle tests hold the real hard corpus to the targets of issue 10 items
3 and 4: every classifier <= 0.65 ROC AUC overall and per genre with >= 20 artifacts, and a keyword
search ranking a fact's owner in the top 3 for <= 40% of facts.
"""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("sklearn")

from taugen.build.files import read_bundle  # noqa: E402
from taugen.validators import readers  # noqa: E402
from taugen.validators.bundle_view import BundleView  # noqa: E402
from test_corpus_realism import synthetic  # noqa: E402

WORDS = ("account statement branch teller card balance transfer deposit review customer note queue desk "
         "colleague letter signature request visit address phone online app follow-up case file").split()


def chat(rng: random.Random, extra: str = "") -> str:
    lines = [f"[{n:02d}] {'Agent' if n % 2 else 'Customer'}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))) + "."
             for n in range(1, rng.randint(6, 12))]
    if extra:
        lines.insert(rng.randint(1, len(lines)), extra)
    return "\n".join(lines)


def corpus(marker, count: int = 60, seed: int = 3) -> BundleView:
    """``count`` chats, half carriers; ``marker(rng, carrier)`` gives a line to insert (or '')."""
    rng = random.Random(seed)
    artifacts = {}
    for index in range(count):
        carrier = index % 2 == 0
        artifacts[f"support_transcript_{index:03d}"] = {"text": chat(rng, marker(rng, carrier)), "carrier": carrier}
    return synthetic(artifacts)


def test_every_classifier_catches_a_carrier_only_heading_with_an_amount():
    def marker(rng, carrier):
        return f"THE RULE\n[99] Agent: the charge is ${rng.randint(5, 60)}.{rng.randint(10, 99)} per item." if carrier else ""

    result = readers.classifiers(corpus(marker))
    assert result["tfidf"]["overall"] >= 0.95
    assert result["numeric"]["overall"] >= 0.9
    assert result["structure"]["overall"] >= 0.8
    assert result["artifacts"] == 60 and result["carriers"] == 30


def test_readers_in_worker_processes_give_the_numbers_of_one_process(monkeypatch):
    """The build runs the readers side by side in forked workers; each is seeded, so where it ran changes
    nothing (every reader, the facts-removed ones too, on a corpus where they score apart from 0.5)."""
    def marker(rng, carrier):
        return f"[99] Agent: the charge is ${rng.randint(5, 60)}.{rng.randint(10, 99)} per item." if carrier \
            and rng.random() < 0.6 else ""

    view = corpus(marker, count=80)
    monkeypatch.setenv("TAUGEN_WORKERS", "1")
    assert readers.reader_workers(80) == 1
    alone = readers.classifiers(view)
    monkeypatch.setenv("TAUGEN_WORKERS", "2")
    assert readers.reader_workers(80) == 2
    side_by_side = readers.classifiers(view)
    assert side_by_side == alone and list(side_by_side) == list(alone)
    assert {"tfidf", "tfidf_facts_removed", "numeric", "numeric_facts_removed", "structure"} <= set(alone)
    assert 0.6 < alone["tfidf"]["overall"] < 1.0


def test_the_facts_removed_reader_still_sees_a_marker_outside_the_fact_sentence():
    view = corpus(lambda rng, carrier: "Approved wording follows." if carrier else "")
    result = readers.classifiers(view)
    assert result["tfidf_facts_removed"]["overall"] >= 0.95


def test_the_facts_removed_readers_delete_fact_sentences_from_fillers_too():
    """A carrier's slot holds its rule and a filler's the same kind of sentence naming a rule (a
    mention): the full-text reader may see the difference, but once every planned sentence about a fact
    is deleted from every record, nothing is left to tell them apart. Deleting from carriers only
    would leave the fillers' mention lines as a marker of fillers (it once did)."""
    rng = random.Random(11)
    artifacts = {}
    for index in range(80):
        carrier = index % 2 == 0
        amount = f"${rng.randint(5, 60)}.{rng.randint(10, 99)}"
        line = (f"[99] Agent: the {rng.choice(WORDS)} fee is {amount} per item." if carrier
                else f"[99] Agent: I have flagged the {rng.choice(WORDS)} fee on the case file for review.")
        kind = {"renditions": [{"text": line}]} if carrier else {"cues": [{"kind": "mention", "text": line}]}
        artifacts[f"support_transcript_{index:03d}"] = {"text": chat(rng, line), "carrier": carrier, **kind}
    result = readers.classifiers(synthetic(artifacts))
    assert result["tfidf"]["overall"] >= 0.95 and result["numeric"]["overall"] >= 0.9
    assert result["tfidf_facts_removed"]["overall"] <= 0.7
    assert result["numeric_facts_removed"]["overall"] <= 0.7


def test_no_classifier_separates_records_from_one_process():
    def marker(rng, carrier):  # both classes draw the same shapes: an amount half the time
        return f"[99] Agent: that came to ${rng.randint(5, 60)}.{rng.randint(10, 99)}." if rng.random() < 0.5 else ""

    result = readers.classifiers(corpus(marker, count=80))
    for name in ("tfidf", "numeric", "structure"):
        assert 0.25 <= result[name]["overall"] <= 0.75, (name, result[name])


def test_chance_level_tells_a_marker_from_a_small_genres_noise():
    """``chance_level`` shuffles a genre's labels: a carrier-only amount scores far above every shuffle (p 0),
    records from one process score where shuffled labels do."""
    def marked(rng, carrier):
        return f"[99] Agent: the charge is ${rng.randint(5, 60)}.{rng.randint(10, 99)} per item." if carrier else ""

    def alike(rng, carrier):
        return f"[99] Agent: that came to ${rng.randint(5, 60)}.{rng.randint(10, 99)}." if rng.random() < 0.5 else ""

    found = readers.chance_level(readers.corpus(corpus(marked, count=30)), "numeric", "support_transcript", rounds=20)
    assert found["auc"] >= 0.9 and found["p_value"] == 0.0 and found["chance_p95"] < found["auc"], found
    assert found["rounds"] == 20 and 0.3 <= found["chance_mean"] <= 0.7, found
    noise = readers.chance_level(readers.corpus(corpus(alike, count=30)), "numeric", None, rounds=20)
    assert noise["p_value"] >= 0.05 and noise["auc"] <= noise["chance_p95"] + 0.1, noise
    with pytest.raises(ValueError, match="no records of genre"):
        readers.chance_level(readers.corpus(corpus(alike, count=30)), "numeric", "web_screenshot", rounds=2)
    with pytest.raises(ValueError, match="unknown reader"):
        readers.chance_level(readers.corpus(corpus(alike, count=30)), "loudness", None, rounds=2)


def test_numeric_features_count_amounts_percents_days_and_dates():
    text = "It is $35.00 or 2.5% within 10 business days, by March 3, 2025 or 2025-03-04; thirty dollars."
    row = readers.numeric_features(text)
    names = list(readers._PATTERNS)
    counts = {name: round(float(row[2 * i + 1]), 3) for i, name in enumerate(names)}
    import math
    assert counts["money"] == round(math.log1p(2), 3)
    assert counts["percent"] == round(math.log1p(1), 3)
    assert counts["days"] == round(math.log1p(1), 3)
    assert counts["date"] == round(math.log1p(2), 3)


def test_keyword_search_ranks_an_owner_that_repeats_the_subject_first():
    rng = random.Random(5)
    artifacts = {f"support_transcript_{i:03d}": {"text": chat(rng), "carrier": i < 2} for i in range(30)}
    artifacts["support_transcript_000"]["text"] += "\nThe dormant account fee is $5.00 a month."
    artifacts["support_transcript_001"]["text"] += "\nShe asked whether anything applies after a long quiet spell; it is 3%."
    for i in range(2, 30):  # the second fact's subject words are everywhere but in its owner
        artifacts[f"support_transcript_{i:03d}"]["text"] += "\nThe overdraft interest rate came up again."
    facts = {"dormant_fee": {"statement": "The dormant account fee is $5.00 a month.", "subject": "the dormant account fee",
                             "owner": "support_transcript_000", "client_held": False},
             "overdraft_rate": {"statement": "Overdraft interest is 3%.", "subject": "the overdraft interest rate",
                                "owner": "support_transcript_001", "client_held": False}}
    result = readers.keyword_search(synthetic(artifacts, facts=facts))
    assert result["facts"] == 2 and result["share"] == 0.5
    assert result["per_genre"]["support_transcript"] == {"facts": 2, "share": 0.5}


def test_subject_words_drop_stop_words_and_digits():
    assert readers.subject_words({"subject": "the fee for a 2nd replacement card"}) == ["fee", "replacement", "card"]
    assert readers.subject_words({"statement": "Wires sent after 5 pm go out next day."}) == [
        "wires", "sent", "pm", "go", "next", "day"]


# --------------------------------------------------------------------------------------------------
# the real hard bundle
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hard_readers(built_bundle):
    """Seed 0's hard bundle, its view and the readers ``bundle.json`` reports, measured again on its files
    (the two facts-removed diagnostics are measured by the slow test below: a minute of a CI worker)."""
    path = built_bundle("hard")
    view = BundleView(read_bundle(path))
    return path, view, readers.summary(view)


def test_bundle_json_reports_what_the_readers_measure_on_the_delivered_files(hard_readers):
    path, view, measured = hard_readers
    reported = json.loads((path / "bundle.json").read_text())["realism"]["readers"]
    assert reported["keyword"] == measured["keyword"]
    for name in ("tfidf", "numeric", "structure"):
        assert reported["classifiers"][name] == measured["classifiers"][name]
    assert reported["classifiers"]["artifacts"] == len([a for a, e in view.manifest["artifacts"].items()
                                                       if e["genre"] != "policy_document"])


READERS = ("tfidf", "numeric", "structure")
DIAGNOSTICS = ("tfidf_facts_removed", "numeric_facts_removed")

def _over(result: dict) -> dict:
    return {scope: auc for scope, auc in [("overall", result["overall"]), *result["per_genre"].items()]
            if auc is not None and auc > readers.MAX_AUC}


@pytest.mark.parametrize("name", READERS)
def test_no_strong_reader_tells_carriers_from_fillers(hard_readers, name):
    """Issue 10 item 3 at seed 0: every reader at or under 0.65 overall and in every genre of 20 records or
    more. Before fillers' rule places held echoes (rules owned elsewhere, restated): tfidf 0.822 overall (web
    0.850, support 0.744), numeric 0.772 (web 0.906, PDFs 0.865), structure 0.592 (case ledgers 0.855)."""
    _path, _view, measured = hard_readers
    over = _over(measured["classifiers"][name])
    assert not over, f"{name}: ROC AUC above {readers.MAX_AUC}: {over}"


@pytest.mark.parametrize("seed", [1, 2])
def test_no_strong_reader_tells_carriers_from_fillers_at_the_sampled_seeds(built_bundle, seed):
    """The same readers on the non-zero hard seeds the suite builds anyway (tests/test_seed_sample.py):
    overall and in every genre of 20 records or more, at or under 0.65. Seed 2 failed until session 28:
    spreadsheets numeric 0.724 (fillers' workbooks longer than carriers'; 0.643 once they took planned
    lengths) and knowledge-base exports structure 0.725 (only carriers' articles held rule-shaped,
    comma-rich sentences; 0.578 once fillers quoted peers in rule frames)."""
    view = BundleView(read_bundle(built_bundle("hard", seed=seed, readers=False)))
    measured = readers.classifiers(view, facts_removed=False)
    over = {name: _over(measured[name]) for name in READERS}
    assert all(measured[name]["overall"] <= readers.MAX_AUC for name in READERS), over
    assert not any(over.values()), f"ROC AUC above {readers.MAX_AUC}: {over}"


@pytest.mark.slow
def test_no_marker_outside_the_fact_sentences(hard_readers):
    """The facts-removed diagnostics: with every planned sentence about a fact deleted from every record, what
    is left (headings, steps, structure around the slots) tells carriers from fillers no better than 0.65.
    A strict expected failure until session 31: the numeric reader measured 0.718 on seed 0's 42 flowcharts
    (13 carriers, p = 0.033); with 30 carriers a genre and fillers mirroring their own layout's rules it
    measures 0.465 overall and no genre over 0.60 (TF-IDF 0.455)."""
    _path, view, _measured = hard_readers
    measured = readers.classifiers(view)
    over = {name: _over(measured[name]) for name in DIAGNOSTICS}
    assert not any(over.values()), f"ROC AUC above {readers.MAX_AUC}: {over}"


KEYWORD_SEEDS = {0: True, 1: False, 2: False}
"""The hard seeds the suite builds anyway (seed -> whether that bundle measured the readers), so the keyword
check reads bundles that exist (see tests/test_seed_sample.py)."""


def test_keyword_search_on_subject_words_rarely_finds_the_owner(built_bundle):
    """Issue 10 item 4: a BM25 search on a fact's subject words ranks its owner in the top 3 for at most
    40 % of the facts records own, at every hard seed the suite builds. It was 0.504 at seed 0 before
    subjects were said in the pack's spoken wordings, and 0.42-0.43 at seeds 0-2 (300 tasks) while a
    record held a whole family's rules side by side (the planner took a day's facts in id order), and 0.401 at
    seed 0 once a record named its own genre's subjects first with three mentions per fact (four at hard
    since)."""
    shares = {seed: readers.keyword_search(BundleView(read_bundle(built_bundle("hard", seed=seed, readers=measured))))
              ["share"] for seed, measured in KEYWORD_SEEDS.items()}
    assert all(share <= readers.MAX_TOP_K_SHARE for share in shares.values()), shares


def test_reviewer_report_rows_name_the_worst_genre_and_the_target():
    from taugen.build.report_html import _readers_rows

    measured = {"classifiers": {"artifacts": 10, "carriers": 5,
                                "tfidf": {"overall": 0.9, "per_genre": {"email_thread": 0.97, "spreadsheet": None}},
                                "numeric": {"overall": 0.5, "per_genre": {"email_thread": 0.6}}},
                "keyword": {"top_k": 3, "share": 0.3, "facts": 4, "per_genre": {}}}
    rows = {row["reader"]: row for row in _readers_rows(measured)}
    assert rows["tfidf (ROC AUC)"]["worst_genre"] == "email_thread" and rows["tfidf (ROC AUC)"]["met"] is False
    assert rows["numeric (ROC AUC)"]["met"] is True
    assert rows["keyword search (owner in top 3)"]["overall"] == 0.3 and rows["keyword search (owner in top 3)"]["met"]
    assert _readers_rows(None) == [] and _readers_rows({"unavailable": "x"}) == []


def test_a_rebuild_reuses_the_readers_summary_of_exactly_the_same_inputs(built_bundle, monkeypatch, tmp_path):
    """The build keeps the readers' summary in the content cache under every file, text and the code: the
    same inputs reuse it (the same data), a damaged entry or one changed record text measures again."""
    from taugen import content_cache
    from taugen.build import pipeline

    monkeypatch.setenv(content_cache.CACHE_ENV, str(tmp_path / "cache"))
    path = built_bundle("medium")
    files = {name: data for name, data in read_bundle(path).items() if name != "SHA256SUMS"}
    view = BundleView(dict(files))
    texts = {record: view.text(record) for record in view.manifest["artifacts"]}
    measured = []
    real = readers.summary
    monkeypatch.setattr(readers, "summary", lambda *args, **kwargs: measured.append(1) or real(*args, **kwargs))

    first = pipeline.readers_summary(files, texts)
    assert len(measured) == 1 and first["classifiers"]["artifacts"] == len(texts) - 1  # the policy is no record
    assert pipeline.readers_summary(files, texts) == first and len(measured) == 1

    [entry] = [p for p in (tmp_path / "cache" / pipeline.READERS_CACHE).rglob("*") if p.is_file()]
    data = bytearray(entry.read_bytes())
    data[-2] ^= 0x01
    entry.write_bytes(bytes(data))
    assert pipeline.readers_summary(files, texts) == first and len(measured) == 2

    record = next(name for name, entry in sorted(view.manifest["artifacts"].items()) if entry["carrier"])
    changed = dict(texts, **{record: texts[record] + " A closing note."})
    pipeline.readers_summary(files, changed)
    assert len(measured) == 3


def _numeric_features_case_insensitive(text: str) -> list[float]:
    """The numeric reader's features the plain way: every pattern case-insensitive on the text as written."""
    import math

    tokens = max(1, len(readers._TOKEN.findall(text)))
    row: list[float] = []
    for pattern in readers._PATTERNS.values():
        count = len(pattern.findall(text))
        row += [100.0 * count / tokens, math.log1p(count)]
    return row


@pytest.mark.parametrize("text", [
    "Twenty-Five Dollars, 10 PERCENT, three Business Days and MARCH 5, 2026 at 10:30",
    "caf\u00e9 \u00e0 la carte costs five dollars on Jan 5 \u2014 \u201cSept 3\u201d",
    "the Kelvin sign \u212a, a long \u017f in \u017feven percent, a dotted \u0130 and a dotless \u0131 in f\u0131ve days",
    "",
])
def test_numeric_features_on_lower_cased_text_equal_case_insensitive_matching(text):
    """The numeric reader matches lower-case patterns on lower-cased text when that finds exactly what the
    case-insensitive patterns find on the text (faster); characters whose case maps to or from ASCII (the
    Kelvin sign, the long s, the dotted and dotless i) keep the case-insensitive path."""
    assert readers.numeric_features(text) == _numeric_features_case_insensitive(text)
    assert readers._lowers_exactly(text) == ("\u212a" not in text)


def test_the_numeric_patterns_have_no_upper_case_letter():
    """Lower-cased text is matched with the patterns as written: a literal upper-case letter would never match."""
    import re

    for name, pattern in readers._PATTERNS.items():
        assert not re.search(r"[A-Z]", re.sub(r"\\.", "", pattern.pattern)), name


def test_numeric_features_equal_case_insensitive_matching_on_any_text():
    from hypothesis import given, settings, strategies as st

    alphabet = st.sampled_from(list("0123456789$%,.:-/ \n") + list("aAbBdDeEfFhHiIlLmMnNoOpPrRsStTuUvVwWyY")
                               + ["\u212a", "\u017f", "\u0130", "\u0131", "\u00e9", "\u00c9", "\u2019"]
                               + [" five ", " Twenty ", " dollars", " PERCENT", " days", " Jan ", " business "])

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(alphabet, max_size=40).map("".join))
    def check(text):
        assert readers.numeric_features(text) == _numeric_features_case_insensitive(text)

    check()
