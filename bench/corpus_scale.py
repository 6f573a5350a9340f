"""Corpus scaling benchmark: artifacts/s and tokens/s per genre, and wall time, at 1x, 2x and 4x facts.

Not a test. Run from the repository root::

    python bench/corpus_scale.py                 # banking, hard tier, scales 1 2 4
    python bench/corpus_scale.py --scales 1 2 --tier medium

For each scale the banking pack is copied to a temporary folder and its family tables (CSV) get
synthetic extra rows (a copy of each plain row with a suffixed key column) until the pack has about
``scale`` times the facts. The corpus is then planned and rendered the way ``taugen build`` does it
(worker processes included), timing each stage; per-genre rates come from the wall time each genre's
artifacts took to render and read back, summed over the workers.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taugen.authoring.pack import load_pack  # noqa: E402
from taugen.text import count_tokens  # noqa: E402
from taugen.generators.corpus.genre import RenderContext, genres  # noqa: E402
from taugen.generators.corpus.planner import plan_corpus  # noqa: E402
from taugen.generators.corpus.render import render_corpus, template_environment  # noqa: E402
from taugen.generators.tiers import tier  # noqa: E402

PACK = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking"
# The column whose value is part of each family's fact id and nowhere a reference to another item.
KEY_COLUMNS = {"state": "state", "branch": "branch", "fee_type": "fee_type", "limit_type": "limit_type",
               "currency": "currency", "tier": "tier", "months": "months", "network": "network",
               "category": "category"}


def scaled_pack(scale: float, into: Path) -> Path:
    """A copy of the banking pack with about ``scale`` times its facts."""
    pack_dir = into / f"banking_x{scale:g}"
    shutil.copytree(PACK, pack_dir)
    base = len(load_pack(pack_dir).facts)
    wanted = int(base * scale)
    tables = []
    for table in sorted((pack_dir / "facts").glob("*.csv")):
        with table.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        if not rows:
            continue
        key = next((column for column in KEY_COLUMNS if column in rows[0]), None)
        plain = [row for row in rows if not row.get("supersedes") and not row.get("version")]
        if key and plain:
            tables.append((table, list(rows[0]), key, plain))
    copy = 1
    while tables and len(load_pack(pack_dir).facts) < wanted:
        for table, header, key, plain in tables:
            with table.open("a", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
                for row in plain:
                    writer.writerow({**row, key: f"{row[key]}_x{copy}"})
            if len(load_pack(pack_dir).facts) >= wanted:
                break
        copy += 1
    return pack_dir


def run(scale: float, tier_name: str, seed: int, workdir: Path) -> None:
    pack = load_pack(scaled_pack(scale, workdir))
    preset = tier(tier_name)
    available = genres()
    seconds: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    tokens: dict[str, int] = defaultdict(int)
    started = time.perf_counter()
    plan = plan_corpus(pack, preset, seed, available)
    planned = time.perf_counter() - started
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=seed, tier=preset.name)
    texts: dict[str, str] = {}
    spent: dict[str, float] = {}
    begun = time.perf_counter()
    rendered = render_corpus(plan, context, available, texts=texts, seconds=spent)
    rendering = time.perf_counter() - begun
    for artifact in rendered:
        genre = artifact.plan.genre
        seconds[genre] += spent.get(artifact.plan.artifact_id, 0.0)
        count[genre] += 1
        tokens[genre] += count_tokens(texts[artifact.plan.artifact_id])
    total_tokens = sum(tokens.values())
    print(f"\n== scale {scale:g}x: {len(pack.facts)} facts, {len(rendered)} artifacts, {total_tokens:,} tokens; "
          f"plan {planned:.2f} s, render {rendering:.2f} s wall "
          f"({len(rendered) / rendering:.1f} artifacts/s, {total_tokens / rendering:,.0f} tokens/s)")
    print(f"{'genre':<24}{'artifacts':>10}{'tokens':>12}{'render s':>9}{'artifacts/s':>13}{'tokens/s':>12}")
    for genre in sorted(count):
        spent = max(seconds[genre], 1e-6)
        print(f"{genre:<24}{count[genre]:>10}{tokens[genre]:>12,}{spent:>9.2f}{count[genre] / spent:>13.1f}"
              f"{tokens[genre] / spent:>12,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=float, nargs="+", default=[1, 2, 4])
    parser.add_argument("--tier", default="hard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for scale in args.scales:
            run(scale, args.tier, args.seed, Path(folder))


if __name__ == "__main__":
    main()
