"""Certified banking tasks per second (certificate with the fact-sensitivity proof) against a baseline.

Not a test. Run from the repository root::

    python bench/tasks_per_second.py                  # hard tier, 60 tasks, seed 0
    python bench/tasks_per_second.py --tier easy --tasks 120

It enumerates the task space (family instances included), then composes and certifies ``--tasks`` tasks
the way ``taugen build`` does (one process), and prints tasks/s against the 7.5 tasks/s that composing
and certifying the 45 hard-written tasks reached before problem families (issue 9's baseline), with the
share of certified tasks and the sensitivity rows proven. The goal is 200 tasks/s on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taugen.authoring.pack import load_pack  # noqa: E402
from taugen.generators.domain import load_domain  # noqa: E402
from taugen.generators.tasks import compose_tasks, task_space  # noqa: E402
from taugen.generators.tiers import tier  # noqa: E402

PACK = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking"
BASELINE = 7.5
"""Certified tasks/s of ``compose_tasks`` on banking hard before problem families (45 tasks)."""
GOAL = 200.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", default="hard")
    parser.add_argument("--tasks", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pack = load_pack(PACK)
    domain = load_domain(pack.config)
    world = domain.build_world(pack.config, args.seed)
    preset = replace(tier(args.tier), tasks=args.tasks)
    started = time.perf_counter()
    space = task_space(domain, pack, world, args.seed)
    enumerated = time.perf_counter() - started
    tasks = compose_tasks(domain, pack, world, preset, args.seed, space=space)
    seconds = time.perf_counter() - started
    certified = sum(t.certificate.ok for t in tasks)
    rows = [row for t in tasks for row in t.certificate.sensitivity]
    rate = certified / seconds
    print(f"banking {args.tier} seed {args.seed}: task space {space.size(preset)['problem_instances']} problem "
          f"instances (enumerated in {enumerated:.2f} s)")
    print(f"{certified} of {len(tasks)} tasks certified, {sum(r['changed'] is not None for r in rows)} of {len(rows)} "
          f"declared facts proven to decide their task, in {seconds:.2f} s")
    print(f"{rate:.1f} certified tasks/s = {rate / BASELINE:.2f}x the {BASELINE} tasks/s baseline "
          f"(goal {GOAL:.0f} tasks/s: {'met' if rate >= GOAL else 'not met'})")


if __name__ == "__main__":
    main()
