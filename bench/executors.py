"""Executor benchmark: the corpus render with the local executor and with Ray, at 1 and 2 workers.

Not a test. Run from the repository root (Ray from ``pip install 'taugen[ray]'``)::

    python bench/executors.py                          # banking, medium tier, seed 0, whole corpus
    python bench/executors.py --artifacts 200 --repeat 3

The corpus is planned once the way ``taugen build`` plans it, then rendered (and read back, as the build
does) four times with the content cache off: locally in this process (1 worker), locally in 2 forked
workers, and on a local Ray started with 1 and then 2 CPUs (one actor each). Each line gives the render's
wall time and its ratio to the local 1-worker baseline (above 1: faster than the baseline); Ray's start-up
(``ray.init``, a few seconds) is printed apart and not counted in the render time, but the actors' own
start (importing taugen) is. ``--repeat N`` runs N rounds of the four and reports the best of each (on a
shared machine the load changes under a run). Every run must give the same bytes (SHA-256 over every
rendered file and read-back text, in plan order), or the script exits 1. ``--artifacts N`` renders N
artifacts spread evenly over the plan (every genre keeps its share).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taugen import content_cache  # noqa: E402
from taugen.authoring.pack import load_pack, packs  # noqa: E402
from taugen.executors import Executor, LocalExecutor, RayExecutor  # noqa: E402
from taugen.generators.corpus.genre import RenderContext, genres  # noqa: E402
from taugen.generators.corpus.planner import plan_corpus  # noqa: E402
from taugen.generators.corpus.render import render_corpus, template_environment  # noqa: E402
from taugen.generators.corpus.vocabulary import load_vocabulary  # noqa: E402
from taugen.generators.tiers import tier  # noqa: E402


def render(plan, context, available, executor: Executor) -> tuple[float, str]:
    """``(wall seconds, sha256 of every file and read-back text in plan order)`` of one render."""
    texts: dict[str, str] = {}
    started = time.perf_counter()
    rendered = render_corpus(plan, context, available, texts=texts, executor=executor)
    seconds = time.perf_counter() - started
    digest = hashlib.sha256()
    for artifact in rendered:
        for file in artifact.files:
            digest.update(hashlib.sha256(file.data).digest())
        digest.update(hashlib.sha256(texts[artifact.plan.artifact_id].encode()).digest())
    return seconds, digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="banking")
    parser.add_argument("--tier", default="medium")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--artifacts", type=int, default=None, help="render only this many (spread over the plan)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of the four runs; each line gives the best")
    args = parser.parse_args()
    content_cache.configure(None, enabled=False)  # read every PDF back afresh: the same work in every run
    pack = load_pack(packs()[args.domain])
    vocabulary = load_vocabulary(pack.directory, [section.id for section in pack.config.sections])
    preset = tier(args.tier)
    available = genres()
    plan = plan_corpus(pack, preset, args.seed, available, vocabulary=vocabulary)
    if args.artifacts is not None and args.artifacts < len(plan.artifacts):
        step = len(plan.artifacts) / args.artifacts
        plan = dataclasses.replace(plan, artifacts=[plan.artifacts[int(i * step)] for i in range(args.artifacts)])
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=args.seed,
                            tier=preset.name, facts=pack.facts, vocabulary=vocabulary)
    print(f"{args.domain} {args.tier} seed {args.seed}: {len(plan.artifacts)} artifacts; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    runs: dict[str, list[tuple[float, str]]] = {}
    for _ in range(args.repeat):  # rounds, so that a change of load on a shared machine hits every executor
        for workers in (1, 2):
            seconds, digest = render(plan, context, available, LocalExecutor(workers=workers))
            runs.setdefault(f"local, {workers} worker{'s' * (workers > 1)}", []).append((seconds, digest))
        for workers in (1, 2):
            started = time.perf_counter()
            executor = RayExecutor(workers=workers)
            startup = time.perf_counter() - started
            try:
                seconds, digest = render(plan, context, available, executor)
            finally:
                executor.close()
            if executor.replayed:
                print(f"FAIL: {executor.replayed} units did not run on Ray", file=sys.stderr)
                return 1
            print(f"  (Ray with {workers} CPU{'s' * (workers > 1)} started in {startup:.1f} s)")
            runs.setdefault(f"ray, {workers} actor{'s' * (workers > 1)}", []).append((seconds, digest))
    best = {label: min(seconds for seconds, _ in measured) for label, measured in runs.items()}
    baseline = best["local, 1 worker"]
    for label, measured in runs.items():
        print(f"{label:<18} render {best[label]:7.2f} s (best of {len(measured)}: "
              f"{', '.join(f'{seconds:.1f}' for seconds, _ in measured)})   "
              f"ratio to local 1 worker {baseline / best[label]:5.2f}x   sha256 {measured[0][1][:12]}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if len({digest for measured in runs.values() for _, digest in measured}) != 1:
        print("FAIL: the executors rendered different bytes", file=sys.stderr)
        return 1
    print("same bytes from every executor and round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
