"""Incremental-build benchmark: a cold build, a rebuild of the same pack, and rebuilds after a one-fact edit.

Not a test. Run from the repository root::

    python bench/incremental.py                        # banking, hard, seed 0
    python bench/incremental.py --tier medium --fact fee_everyday_checking_monthly_maintenance

Every build runs in its own process (``taugen.build.pipeline.build``, as ``taugen build`` calls it) with the
content cache in a fresh temporary folder (``--cache``), in this order:

1. **cold**: the pack as shipped, empty cache (the baseline of every ratio);
2. **unchanged**: the same pack again (every record comes from the render cache);
3. **one-fact edit**: a copy of the pack with one fact's amount changed in its YAML (by default the
   Everyday Checking minimum-balance waiver, $1,500.00 → $1,750.00; ``--fact ID`` picks another inline
   fact with a money amount written in its statement);
4. **edited back**: the copy with the original amount again (its records' first renders are still kept);
5. **cold edit** (unless ``--no-verify``): the edited pack with no cache at all. Its ``SHA256SUMS`` must equal
   the incremental build's, or the script exits 1.

Each line gives the wall time, its ratio to the cold build (above 1: faster), the records the render cache
reused, the slowest stages and the build process's peak resident memory. The readers stage (strong
readers, hard only) is measured on every build; ``--no-readers`` leaves it out of all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from taugen.authoring.pack import load_pack, packs  # noqa: E402

_BUILD = """
import json, sys
from pathlib import Path
from taugen import content_cache
from taugen.build.pipeline import build
pack, tier, seed, out, cache, readers = sys.argv[1:7]
content_cache.configure(cache if cache != "-" else None, enabled=cache != "-")
result = build(pack, tier, seed=int(seed), out=Path(out), readers=readers == "1")
print(json.dumps({"ok": result.ok, "path": str(result.path), "timings": result.timings, "reuse": result.reuse}))
"""


def run_build(pack: Path, tier: str, seed: int, out: Path, cache: Path | None, readers: bool) -> dict:
    """One build in a child process: its result summary, ``seconds`` (wall) and ``peak_mb`` (its peak RSS)."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", _BUILD, str(pack), tier, str(seed), str(out),
                              str(cache) if cache else "-", "1" if readers else "0"],
                             stdout=subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    output = child.stdout.read() if child.stdout else b""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"build of {pack} failed (exit {child.returncode})")
    summary = json.loads(output.decode().strip().splitlines()[-1])
    if not summary["ok"]:
        raise SystemExit(f"build of {pack} found errors")
    summary.update(seconds=seconds, peak_mb=usage.ru_maxrss / 1024)
    return summary


def set_amount(pack: Path, fact_id: str, amount: Decimal) -> tuple[Path, bytes]:
    """Write ``amount`` as fact ``fact_id``'s money amount (its value and its statement) in ``pack``'s YAML, as
    a domain expert edits it: the lines of that fact's entry only, the rest of the file byte for byte.
    Returns the file and its bytes before the edit.

    Raises:
        SystemExit: no inline fact ``fact_id`` with a money amount written in its statement, or one with
            hand-written voiced renditions.
    """
    loaded = load_pack(pack)
    fact = loaded.facts.get(fact_id)
    if fact is None or fact.value is None or fact.value.type != "money" or fact.value.canonical() not in fact.statement:
        raise SystemExit(f"--fact {fact_id}: not a fact with a money amount written in its statement")
    if fact.voiced:
        raise SystemExit(f"--fact {fact_id}: has hand-written voiced renditions, which would need rewording too")
    source = loaded.sources[fact_id]
    path = Path(source.file)
    before = path.read_bytes()
    lines = before.decode().splitlines(keepends=True)
    start = (source.line or 1) - 1
    end = next((number for number in range(start + 1, len(lines)) if lines[number].lstrip().startswith("- ")),
               len(lines))
    new = fact.value.model_copy(update={"amount": amount})
    block = "".join(lines[start:end])
    edited = block.replace(fact.value.canonical(), new.canonical()).replace(
        f'"{fact.value.amount:.2f}"', f'"{amount:.2f}"')
    if edited == block or f'"{amount:.2f}"' not in edited:
        raise SystemExit(f"--fact {fact_id}: expanded from a family row, or its amount is not written as "
                         f'"{fact.value.amount:.2f}"')
    path.write_text("".join(lines[:start]) + edited + "".join(lines[end:]))
    return path, before


def line(label: str, run: dict, cold: dict) -> str:
    stages = sorted(run["timings"].items(), key=lambda item: -item[1])[:4]
    reuse = run["reuse"]
    return (f"{label:<14} {run['seconds']:7.1f} s  x{cold['seconds'] / run['seconds']:5.2f}  "
            f"records reused {reuse.get('records_reused', 0):>5}/{reuse.get('records', 0):<5} "
            f"peak {run['peak_mb']:6.0f} MB  " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in stages))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="banking")
    parser.add_argument("--tier", default="hard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fact", default="waiver_everyday_checking_minimum_balance")
    parser.add_argument("--amount", default="1750.00", help="the edited amount")
    parser.add_argument("--no-readers", action="store_true")
    parser.add_argument("--no-verify", action="store_true", help="skip the cold build of the edited pack")
    arguments = parser.parse_args()
    readers = not arguments.no_readers
    with tempfile.TemporaryDirectory(prefix="taugen-bench-") as scratch:
        root = Path(scratch)
        pack = root / "pack"
        shutil.copytree(packs()[arguments.domain], pack, ignore=shutil.ignore_patterns("__pycache__"))
        cache = root / "cache"
        common = (arguments.tier, arguments.seed)
        print(f"{arguments.domain} {arguments.tier} seed {arguments.seed}, {os.cpu_count()} CPUs; "
              f"edit: {arguments.fact} → {arguments.amount}")
        cold = run_build(pack, *common, root / "cold", cache, readers)
        print(line("cold", cold, cold), flush=True)
        unchanged = run_build(pack, *common, root / "unchanged", cache, readers)
        print(line("unchanged", unchanged, cold), flush=True)
        path, original = set_amount(pack, arguments.fact, Decimal(arguments.amount))
        edited = run_build(pack, *common, root / "edited", cache, readers)
        print(line("one-fact edit", edited, cold), flush=True)
        verdict = 0
        if not arguments.no_verify:
            fresh = run_build(pack, *common, root / "edited-cold", None, readers)
            same = (Path(edited["path"]) / "SHA256SUMS").read_bytes() == (Path(fresh["path"]) / "SHA256SUMS").read_bytes()
            print(line("cold edit", fresh, cold) + f"  SHA256SUMS {'equal' if same else 'DIFFER'}", flush=True)
            verdict = 0 if same else 1
        path.write_bytes(original)
        back = run_build(pack, *common, root / "back", cache, readers)
        same = (Path(back["path"]) / "SHA256SUMS").read_bytes() == (Path(cold["path"]) / "SHA256SUMS").read_bytes()
        print(line("edited back", back, cold) + f"  SHA256SUMS {'equal' if same else 'DIFFER'} to cold", flush=True)
        return verdict if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
