"""Print the strong readers' numbers (taugen.validators.readers) for built bundles.

    python3 scripts/strong_readers.py dist/banking-hard-0.3.0 [more bundles...] [--explain]

For each bundle: cross-validated carrier-vs-filler ROC AUC of every classifier overall and per genre
(with >= 20 artifacts): the three readers on the text as an agent sees it, then the two facts-removed
diagnostics (every planned sentence about a fact deleted from every record); and the keyword-search
top-3 share per genre. ``--explain`` adds the TF-IDF
features (facts removed) that weigh most towards carriers and fillers. Needs scikit-learn (extra probes).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from taugen.build.files import read_bundle
from taugen.validators.bundle_view import BundleView
from taugen.validators.readers import MAX_AUC, MAX_TOP_K_SHARE, measure


def main(argv: list[str]) -> int:
    explain = "--explain" in argv
    for folder in [a for a in argv if not a.startswith("--")]:
        started = time.perf_counter()
        view = BundleView(read_bundle(Path(folder)), source=folder)
        result = measure(view, explain=explain)
        classifiers = result["classifiers"]
        print(f"== {folder}  ({classifiers['artifacts']} records, {classifiers['carriers']} carriers, "
              f"{time.perf_counter() - started:.1f} s)")
        names = ["tfidf", "numeric", "structure", "tfidf_facts_removed", "numeric_facts_removed"]
        genres = sorted({g for n in names for g in classifiers[n]["per_genre"]})
        print(f"{'':24}" + "".join(f"{n:>21}" for n in names))
        for row in ["overall", *genres]:
            cells = []
            for n in names:
                value = classifiers[n]["overall"] if row == "overall" else classifiers[n]["per_genre"].get(row)
                mark = "" if value is None or value <= MAX_AUC else " !"
                cells.append(f"{'-' if value is None else f'{value:.3f}'}{mark:>2}".rjust(21))
            print(f"{row:24}" + "".join(cells))
        keyword = result["keyword"]
        print(f"keyword top-{keyword['top_k']} share: {keyword['share']} over {keyword['facts']} facts "
              f"(target <= {MAX_TOP_K_SHARE})")
        for genre, stats in keyword["per_genre"].items():
            print(f"  {genre:24}{stats['share']:.3f}  ({stats['facts']} facts)")
        if explain:
            print(json.dumps(classifiers["top_features"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
