"""Build a range of seeds at chosen tiers and print, per seed and tier, whether the build passed.

Not a test: a sweep for "every seed builds". Run from the repository root, one build at a time
(each build already uses the machine's cores)::

    python scripts/seed_sweep.py --seeds 0-19 --tiers hard                     # banking
    python scripts/seed_sweep.py --domains banking telecom --seeds 0-4 --tiers easy medium hard
    python scripts/seed_sweep.py --seeds 1,2,3,7 --pack /tmp/my-pack --json sweep.jsonl
    python scripts/seed_sweep.py --seeds 6-19 --tasks 45 --no-readers   # the corpus gates, as CI's sample

Each line is ``<domain> <tier> seed <n>  PASS|FAIL  <seconds> s  <tokens> tokens  probe <AUC>  redraws
<corpus>/<records>  readers tfidf <AUC>, numeric <AUC>, structure <AUC>, keyword <share>  over 0.65: <genre>
<reader> <AUC>; ...  [<check>/<code> <subject>: <message>]``: the probe AUC, how often the build re-drew
its corpus and how many records it re-rendered to meet the realism gates, the strong readers (overall,
and every genre over the target; without ``--no-readers`` at hard), and for a failing build its first
error finding and how many errors it had. Bundles are built
into a temporary folder and deleted unless ``--keep DIR`` is given. With ``--json FILE`` every result
is also appended to FILE as one JSON object per line (seed, tier, ok, seconds, tokens, realism
summary, errors by check/code). Exit code 1 when any build failed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taugen.build.pipeline import build  # noqa: E402
from taugen.errors import InputError  # noqa: E402
from taugen.validators.readers import MAX_AUC  # noqa: E402


def parse_seeds(text: str) -> list[int]:
    """``"0-19"``, ``"1,2,7"`` or ``"0-4,9"`` → sorted unique seeds.

    Raises:
        argparse.ArgumentTypeError: a part is not an integer or a range ``a-b`` with ``a <= b``.
    """
    seeds: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                if low > high:
                    raise ValueError
                seeds.update(range(low, high + 1))
            elif part:
                seeds.add(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad seed range '{part}' (use e.g. 0-19 or 1,2,7)") from None
    return sorted(seeds)


def sweep_one(domain: str, tier_name: str, seed: int, keep: Path | None, tasks: int | None = None,
              readers: bool = True) -> dict:
    """Build one bundle (``tasks`` tasks, default the tier's; the strong readers unless ``readers`` is
    False); return ``{domain, tier, seed, ok, seconds, tokens, errors, first, realism}``.

    ``first`` is the first error finding as ``check/code subject: message`` ('' when the build passed);
    ``errors`` counts error findings by ``check/code``. A bad pack (InputError) is a failure whose
    ``first`` is the one-line error.
    """
    out = keep if keep is not None else Path(tempfile.mkdtemp(prefix="taugen-sweep-"))
    started = time.perf_counter()
    record = {"domain": domain, "tier": tier_name, "seed": seed}
    try:
        result = build(domain, tier_name, seed=seed, out=out / f"{Path(domain).name}-{tier_name}-{seed}",
                       tasks=tasks, readers=readers)
    except InputError as exc:
        if keep is None:
            shutil.rmtree(out, ignore_errors=True)
        record.update(ok=False, seconds=round(time.perf_counter() - started, 1), tokens=0, errors={"input": 1},
                      first=f"input: {exc}", realism={})
        return record
    realism = {}
    if result.path is not None:
        realism = json.loads((result.path / "bundle.json").read_text()).get("realism", {})
    if keep is None:
        shutil.rmtree(out, ignore_errors=True)
    errors = [f for f in result.findings if f.severity == "error"]
    first = f"{errors[0].check}/{errors[0].code} {errors[0].subject}: {errors[0].message}" if errors else ""
    probe = next((f.message for f in result.findings if f.code == "probe_auc"), "")
    record.update(ok=result.ok, seconds=round(time.perf_counter() - started, 1),
                  tokens=result.counts.get("tokens", 0), probe=probe.split(" over ")[0].replace(
                      "carrier-vs-filler probe AUC ", ""), repairs=result.repairs, timings=result.timings,
                  errors=dict(Counter(f"{f.check}/{f.code}" for f in errors)), first=first, realism=realism)
    return record


def line(record: dict) -> str:
    """The one-line summary of a :func:`sweep_one` record."""
    verdict = "PASS" if record["ok"] else "FAIL"
    repairs = record.get("repairs") or {}
    text = (f"{Path(record['domain']).name} {record['tier']} seed {record['seed']:<3} {verdict}  "
            f"{record['seconds']:6.1f} s  {record['tokens']:>9,} tokens  probe {record.get('probe') or '-'}  "
            f"redraws {repairs.get('corpus_redraws', 0)}/{len(repairs.get('artifact_redraws', []))}")
    text += readers_summary((record.get("realism") or {}).get("readers") or {})
    if not record["ok"]:
        count = sum(record["errors"].values())
        text += f"  [{count} error(s)] {record['first']}"
    return text


def readers_summary(readers: dict) -> str:
    """The strong readers of a bundle's ``realism.readers`` in a line: each classifier's overall ROC AUC,
    the keyword share, and every genre where a classifier is over the target (``max_auc``); '' when the
    readers were not measured."""
    classifiers, keyword = readers.get("classifiers") or {}, readers.get("keyword") or {}
    names = [name for name in ("tfidf", "numeric", "structure") if isinstance(classifiers.get(name), dict)]
    if not names and keyword.get("share") is None:
        return ""
    limit = classifiers.get("max_auc", MAX_AUC)
    parts = [f"{name} {classifiers[name]['overall']:.3f}" for name in names if classifiers[name].get("overall") is not None]
    if keyword.get("share") is not None:
        parts.append(f"keyword {100 * keyword['share']:.1f} %")
    over = [f"{genre} {name} {auc:.3f}" for name in names
            for genre, auc in sorted((classifiers[name].get("per_genre") or {}).items()) if auc is not None and auc > limit]
    return "  readers " + ", ".join(parts) + (f"  over {limit}: " + "; ".join(over) if over else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", nargs="+", default=["banking"], help="built-in pack names or pack folders")
    parser.add_argument("--pack", help="one pack folder (instead of --domains)")
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("0-19"), help="e.g. 0-19 or 1,2,7")
    parser.add_argument("--tiers", nargs="+", default=["hard"], choices=["easy", "medium", "hard"])
    parser.add_argument("--keep", type=Path, help="keep the bundles under this folder")
    parser.add_argument("--json", type=Path, help="append one JSON object per build to this file")
    parser.add_argument("--tasks", type=int, help="tasks per bundle (default: the tier's; the tests use 45)")
    parser.add_argument("--no-readers", action="store_true", help="skip the strong readers (report only)")
    args = parser.parse_args(argv)
    domains = [args.pack] if args.pack else args.domains
    failed = 0
    for domain in domains:
        for tier_name in args.tiers:
            for seed in args.seeds:
                record = sweep_one(domain, tier_name, seed, args.keep, args.tasks, not args.no_readers)
                failed += not record["ok"]
                print(line(record), flush=True)
                if args.json:
                    with args.json.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(record, sort_keys=True) + "\n")
    total = len(domains) * len(args.tiers) * len(args.seeds)
    print(f"{total - failed}/{total} builds passed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
