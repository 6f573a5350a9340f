"""scripts/seed_sweep.py's one-line summary: the strong readers of each swept bundle, so a sweep says
which genre crossed the target at which seed without opening the bundles."""

from __future__ import annotations

from script_module import load_script

sweep = load_script("seed_sweep")

READERS = {
    "classifiers": {"max_auc": 0.65,
                    "tfidf": {"overall": 0.4541, "per_genre": {"email_thread": 0.61}},
                    "numeric": {"overall": 0.467, "per_genre": {"issue_tracker_export": 0.711, "pdf_document": None}},
                    "structure": {"overall": 0.464, "per_genre": {"case_ledger_export": 0.679, "email_thread": 0.65}}},
    "keyword": {"share": 0.3656, "top_k": 3},
}


def test_a_swept_bundle_line_names_its_readers_and_every_genre_over_the_target():
    record = {"domain": "banking", "tier": "hard", "seed": 2, "ok": True, "seconds": 66.2, "tokens": 2_086_078,
              "probe": "0.443", "repairs": {"corpus_redraws": 0, "artifact_redraws": ["a", "b"]},
              "realism": {"readers": READERS}}
    line = sweep.line(record)
    assert line.startswith("banking hard seed 2   PASS")
    assert "readers tfidf 0.454, numeric 0.467, structure 0.464, keyword 36.6 %" in line
    # over the target only (0.65 itself is not over), in reader order, none for a genre without a score
    assert line.endswith("over 0.65: issue_tracker_export numeric 0.711; case_ledger_export structure 0.679")


def test_a_bundle_built_without_readers_says_nothing_of_them():
    record = {"domain": "banking", "tier": "hard", "seed": 3, "ok": False, "seconds": 5.0, "tokens": 0,
              "errors": {"input": 1}, "first": "input: bad pack", "realism": {}}
    line = sweep.line(record)
    assert "readers" not in line and line.endswith("[1 error(s)] input: bad pack")
    assert sweep.readers_summary({"unavailable": "scikit-learn is not installed"}) == ""
