"""CPU time of the ``tasks`` validator (``check_tasks``: schema, certificates and their DB replays) on a bundle.

Not a test. Run from the repository root on a built bundle::

    python bench/validate_tasks.py dist/banking-hard-0.3.0
    python bench/validate_tasks.py dist/banking-hard-0.3.0 --against /path/to/a/checkout/of/main

It reads the bundle, runs ``check_tasks`` ``--repeat`` times on fresh views (its memo of replayed tasks
emptied before each run, so every task is replayed each time) and prints the best CPU seconds per run, the
findings' digest (equal digests: the same findings) and the time per task. With ``--against DIR`` it runs the
same measurement with the code of ``DIR`` (another checkout of taugen, e.g. a ``git worktree`` of the commit
before a change) in a subprocess, in turns with this tree's, and prints the ratio of the two; that is the
comparison to trust on a shared machine. Without it, the ratio is against ``BASELINE``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BASELINE = 0.090
"""CPU seconds per task of ``check_tasks`` before issue 14 (commit 415366d: a full ``clone`` and a full JSON
dump per replay), measured with ``--against`` a worktree of that commit on the shared 2-core machine: 4.02 s
for banking hard seed 0 ``--tasks 45`` (89 ms/task), 27.4 s for a 300-task banking hard bundle (91 ms/task);
this tree took 0.92 s and 7.03 s there."""


def measure(bundle: Path, repeat: int) -> dict[str, object]:
    """Best CPU seconds of ``check_tasks`` over ``repeat`` runs on ``bundle``, with the findings' digest (the
    ``taugen`` imported is the first on ``sys.path``)."""
    from taugen.build.files import read_bundle
    from taugen.validators import tasks as tasks_validator
    from taugen.validators.bundle_view import BundleView
    from taugen.validators.memo import digest

    files = read_bundle(bundle)
    best, findings = float("inf"), []
    for _ in range(repeat):
        tasks_validator._REPLAYED._entries.clear()
        view = BundleView(files, source=str(bundle))
        _ = (view.tasks, view.db, view.certificates, view.manifest)  # parsing the files is not the validator's work
        started = time.process_time()
        findings = tasks_validator.check_tasks(view)
        best = min(best, time.process_time() - started)
    return {"seconds": best, "tasks": len(view.tasks), "findings": len(findings),
            "digest": digest([finding.model_dump() for finding in findings])[:16]}


def run_in(tree: Path, bundle: Path, repeat: int) -> dict[str, object]:
    """:func:`measure` with the code of checkout ``tree`` (a subprocess with ``tree`` on its path)."""
    environment = dict(os.environ, PYTHONPATH=str(tree))
    output = subprocess.run([sys.executable, __file__, str(bundle), "--repeat", str(repeat), "--json"],
                            cwd=tree, env=environment, check=True, capture_output=True, text=True).stdout
    return json.loads(output.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another taugen checkout to compare with")
    parser.add_argument("--rounds", type=int, default=2, help="turns of this tree and --against (best kept)")
    parser.add_argument("--json", action="store_true", help="print only the measurement, as JSON")
    args = parser.parse_args()
    bundle = args.bundle.resolve()
    if args.against is None and not args.json:
        sys.path.insert(0, str(ROOT))
    if args.json:
        print(json.dumps(measure(bundle, args.repeat)))
        return
    if args.against is None:
        mine = measure(bundle, args.repeat)
        per_task = mine["seconds"] / mine["tasks"]
        print(f"check_tasks on {bundle.name}: {mine['tasks']} tasks, {mine['findings']} findings "
              f"(digest {mine['digest']}), {mine['seconds']:.3f} s CPU = {per_task * 1000:.1f} ms/task")
        print(f"{BASELINE / per_task:.2f}x faster than the {BASELINE * 1000:.1f} ms/task baseline (commit 415366d)")
        return
    mine: dict[str, object] = {}
    theirs: dict[str, object] = {}
    for _ in range(args.rounds):  # in turns, so load from other work falls on both alike
        for result, tree in ((mine, ROOT), (theirs, args.against.resolve())):
            run = run_in(tree, bundle, args.repeat)
            if not result or run["seconds"] < result["seconds"]:
                result.update(run)
    same = "the same findings" if mine["digest"] == theirs["digest"] else "DIFFERENT FINDINGS"
    print(f"check_tasks on {bundle.name}: {mine['tasks']} tasks, {mine['findings']} findings ({same}: digests "
          f"{mine['digest']} / {theirs['digest']})")
    print(f"this tree {mine['seconds']:.3f} s CPU, {args.against} {theirs['seconds']:.3f} s CPU: "
          f"{theirs['seconds'] / mine['seconds']:.2f}x faster")


if __name__ == "__main__":
    main()
