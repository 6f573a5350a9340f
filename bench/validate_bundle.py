"""Wall time of ``taugen validate`` on a built bundle: every validator, side by side as the CLI runs them.

Not a test. Run from the repository root on a built bundle::

    python bench/validate_bundle.py dist/banking-hard-0.3.0
    python bench/validate_bundle.py dist/banking-hard-0.3.0 --against /path/to/a/checkout/of/main

Each run is a fresh process (``python -m taugen validate BUNDLE --format json``, so no in-process memo of an
earlier run helps) with the content cache as a build of the bundle leaves it: texts read back from PDFs and
each task's certificate replay, gold replay and sufficiency findings (:mod:`taugen.validators.memo`). With
``--pdf-texts-only`` every run starts from a fresh cache holding only the PDF texts, so every task is
replayed (and the cache's folders are created again). It prints the best wall seconds of ``--repeat``
runs, the peak memory of a run (the largest resident set of the process and its workers), the findings'
digest (equal digests: the same findings) and the ratio to ``BASELINE``. With ``--against DIR`` the same runs are made with the code of ``DIR`` (another checkout of
taugen, e.g. a ``git worktree`` of the commit before a change), in turns with this tree's, and the ratio
printed is of the two: the comparison to trust on a shared machine. ``--serial`` also prints each
validator's seconds run one after another in this process (where the time goes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BASELINE = 20.3
"""Wall seconds of ``taugen validate`` on banking hard seed 0 (300 tasks, 1,530 records) at commit 76de898,
before validators shared the gold replays and found values without a regular expression per value, on
the 2-core machine of session 19 (idle, PDF texts cached). Issue 14's goal is 10 s."""


def _run(code: Path, bundle: Path, cache: Path | None = None) -> tuple[float, str, int]:
    """One ``taugen validate`` of ``bundle`` with the taugen at ``code``: wall seconds, findings digest, and
    the run's peak resident set in kilobytes (``wait4``'s ``ru_maxrss``: the largest of the process and the
    worker processes it waited for). ``cache``: the content cache folder to use (default: the environment's)."""
    env = dict(os.environ, PYTHONPATH=str(code)) | ({"TAUGEN_CACHE": str(cache)} if cache is not None else {})
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "taugen", "validate", str(bundle), "--format", "json"],
                                   cwd=code, env=env, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode not in (0, 1):
        raise SystemExit(f"taugen validate failed with exit code {process.returncode}: {stderr.strip()[-400:]}")
    findings = json.loads(stdout)["findings"] if stdout.strip().startswith("{") else stdout
    text = json.dumps(findings, sort_keys=True)
    return seconds, hashlib.sha256(text.encode()).hexdigest()[:16], usage.ru_maxrss


def serial(bundle: Path) -> None:
    """Each validator's seconds, one after another in this process (the texts read first, once)."""
    sys.path.insert(0, str(ROOT))
    from taugen.build.files import read_bundle
    from taugen.validators.bundle_view import BundleView
    from taugen.validators.registry import validators

    started = time.perf_counter()
    view = BundleView(read_bundle(bundle), source=str(bundle))
    for artifact_id in view.manifest["artifacts"]:
        view.text(artifact_id)
    print(f"  {'reading the records':24}{time.perf_counter() - started:6.2f} s")
    total = 0.0
    for name, function in validators().items():
        started = time.perf_counter()
        function(view)
        seconds = time.perf_counter() - started
        total += seconds
        print(f"  {name:24}{seconds:6.2f} s")
    print(f"  {'all validators':24}{total:6.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--against", type=Path, help="another checkout of taugen to compare with")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--serial", action="store_true", help="also time each validator alone, in this process")
    parser.add_argument("--pdf-texts-only", action="store_true",
                        help="start every run from a cache holding only the PDF texts (every task replayed)")
    args = parser.parse_args()
    bundle = args.bundle.resolve()
    codes = {"this tree": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    warm = Path(tempfile.mkdtemp(prefix="taugen-bench-cache-")) if args.pdf_texts_only else None
    _run(ROOT, bundle, warm)  # warms the content cache, as a build leaves it
    best: dict[str, tuple[float, str, int]] = {}
    for _ in range(args.repeat):
        for label, code in codes.items():
            cache = None
            if warm is not None:  # a fresh folder with the PDF texts alone
                cache = Path(tempfile.mkdtemp(prefix="taugen-bench-run-"))
                shutil.copytree(warm / "pdf-pages", cache / "pdf-pages")
            seconds, digest, peak = _run(code, bundle, cache)
            if cache is not None:
                shutil.rmtree(cache, ignore_errors=True)
            if label not in best or seconds < best[label][0]:
                best[label] = (seconds, digest, max(peak, best.get(label, (0, "", 0))[2]))  # peak: of any run
    for label, (seconds, digest, peak) in best.items():
        print(f"{label:10} {seconds:6.2f} s  findings {digest}  peak RSS {peak / 1024:.0f} MB")
    mine = best["this tree"][0]
    if args.against:
        print(f"ratio this tree / against: {mine / best['against'][0]:.2f}"
              f"  (findings {'equal' if best['this tree'][1] == best['against'][1] else 'DIFFER'})")
    else:
        print(f"ratio to the baseline ({BASELINE} s): {mine / BASELINE:.2f}; goal 10 s")
    if args.serial:
        serial(bundle)
    if warm is not None:
        shutil.rmtree(warm, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
