"""Print the strong readers' numbers (taugen.validators.readers) for built bundles.

    python3 scripts/strong_readers.py dist/banking-hard-0.3.0 [more bundles...] [--explain] [--chance N]

For each bundle: cross-validated carrier-vs-filler ROC AUC of every classifier overall and per genre
(with >= 20 artifacts): the three readers on the text as an agent sees it, then the two facts-removed
diagnostics (every planned sentence about a fact deleted from every record); and the keyword-search
top-3 share per genre. ``--explain`` adds the TF-IDF
features (facts removed) that weigh most towards carriers and fillers. ``--chance N`` adds, for every
reader and genre over the target, the same reader on the genre with its carrier labels shuffled N times
(``readers.chance_level``): how often labels that mean nothing score as high, to tell a marker from a
small genre's noise. Needs scikit-learn (extra probes).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from taugen.build.files import read_bundle
from taugen.validators.bundle_view import BundleView
from taugen.validators.readers import MAX_AUC, MAX_TOP_K_SHARE, chance_level, classifiers, corpus, keyword_search


def main(argv: list[str]) -> int:
    explain = "--explain" in argv
    rounds = int(argv[argv.index("--chance") + 1]) if "--chance" in argv else 0
    folders = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--chance")]
    for folder in folders:
        started = time.perf_counter()
        view = BundleView(read_bundle(Path(folder)), source=folder)
        data = corpus(view)  # the records' texts, read once for the readers, the keyword search and --chance
        scores = classifiers(view, data, explain=explain)
        keyword = keyword_search(view, data)
        print(f"== {folder}  ({scores['artifacts']} records, {scores['carriers']} carriers, "
              f"{time.perf_counter() - started:.1f} s)")
        names = ["tfidf", "numeric", "structure", "tfidf_facts_removed", "numeric_facts_removed"]
        genres = sorted({g for n in names for g in scores[n]["per_genre"]})
        print(f"{'':24}" + "".join(f"{n:>21}" for n in names))
        for row in ["overall", *genres]:
            cells = []
            for n in names:
                value = scores[n]["overall"] if row == "overall" else scores[n]["per_genre"].get(row)
                mark = "" if value is None or value <= MAX_AUC else " !"
                cells.append(f"{'-' if value is None else f'{value:.3f}'}{mark:>2}".rjust(21))
            print(f"{row:24}" + "".join(cells))
        print(f"keyword top-{keyword['top_k']} share: {keyword['share']} over {keyword['facts']} facts "
              f"(target <= {MAX_TOP_K_SHARE})")
        for genre, stats in keyword["per_genre"].items():
            print(f"  {genre:24}{stats['share']:.3f}  ({stats['facts']} facts)")
        if explain:
            print(json.dumps(scores["top_features"], indent=1))
        if rounds:
            for name in names:
                for genre, value in sorted(scores[name]["per_genre"].items()):
                    if value is not None and value > MAX_AUC:
                        chance = chance_level(data, name, genre, rounds)
                        print(f"chance: {name} on {genre}: {chance['auc']:.3f}; shuffled labels mean "
                              f"{chance['chance_mean']:.3f}, 95th percentile {chance['chance_p95']:.3f}, over "
                              f"{MAX_AUC} in {chance['chance_over_max']:.0%}; p = {chance['p_value']:.3f} "
                              f"({rounds} shuffles)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
