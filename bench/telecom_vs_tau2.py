"""Benchmark: taugen's telecom generator against tau2's own, plus banking tasks/s per tier.

Usage::

    python bench/telecom_vs_tau2.py [--workers 1 2] [--skip-tau2] [--skip-banking]

In one run on one machine, each generator runs in its own fresh subprocess (imports excluded from the
timed part, which both pay):

* tau2: ``tau2.domains.telecom.tasks.create_tasks.create_tasks(save_tasks=False)``: 3,405 tasks, each
  built on a fresh environment and checked with ``verify_task`` (its printing goes to a sink);
* taugen: the same 3,405 tasks (``generate_tau2(pack, "current")``), each with its certificate, emitted
  as tau2 task dicts; once per ``--workers`` value (2: a forked pool over the two halves of the prefix
  order, each worker emitting its own dicts).

Printed per generator: wall time, CPU time, tasks/s, peak RSS (the subprocess's own, and its children's
when it forks a pool), and the speed ratio. Then banking: ``compose_tasks`` tasks/s at each tier.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

TAU2_CHILD = textwrap.dedent("""
    import io, json, os, re, resource, sys, time
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from tau2.domains.telecom.tasks.create_tasks import create_tasks

    class Sink(io.TextIOBase):
        count = None
        def write(self, text):
            match = re.search(r"^Number of tasks: (\\d+)", text)
            if match:
                Sink.count = int(match.group(1))
            return len(text)

    sys.stdout, real = Sink(), sys.stdout
    wall, cpu = time.perf_counter(), time.process_time()
    create_tasks(save_tasks=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    sys.stdout = real
    print(json.dumps({"tasks": Sink.count, "wall": wall, "cpu": cpu,
                      "rss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "rss_children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
""")

TAUGEN_CHILD = textwrap.dedent("""
    import json, resource, sys, time
    import taugen
    from taugen.authoring.pack import load_pack
    from taugen.domains.telecom.compose import generate_tau2
    from taugen.domains.telecom.env import tau2_classes
    from taugen.domains.telecom.parity import PACK_DIR
    tau2_classes()  # import tau2's telecom modules outside the timing, as the tau2 child does
    workers = int(sys.argv[1])
    wall, cpu = time.perf_counter(), time.process_time()
    pack = load_pack(PACK_DIR)
    tasks, certificates = generate_tau2(pack, "current", workers=workers)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"tasks": len(tasks), "certified": sum(c["ok"] for c in certificates), "wall": wall,
                      "cpu": cpu + children.ru_utime + children.ru_stime,
                      "rss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "rss_children_mb": children.ru_maxrss / 1024}))
""")

BANKING_CHILD = textwrap.dedent("""
    import json, time
    import taugen
    from taugen.authoring.pack import load_pack
    from taugen.build.pipeline import resolve_pack
    from taugen.generators.domain import load_domain
    from taugen.generators.tasks import compose_tasks
    from taugen.generators.tiers import TIERS
    pack = load_pack(resolve_pack("banking"))
    domain = load_domain(pack.config)
    world = domain.build_world(pack.config, 0)
    out = {}
    for name, preset in TIERS.items():
        wall = time.perf_counter()
        tasks = compose_tasks(domain, pack, world, preset, 0)
        wall = time.perf_counter() - wall
        out[name] = {"tasks": len(tasks), "wall": wall, "tasks_per_s": len(tasks) / wall,
                     "certified": sum(t.certificate.ok for t in tasks)}
    print(json.dumps(out))
""")


def run_child(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(name: str, result: dict) -> str:
    rss = max(result["rss_self_mb"], result.get("rss_children_mb") or 0)
    return (f"{name:<22} {result['tasks']:>6} tasks  wall {result['wall']:7.2f} s  cpu {result['cpu']:7.2f} s  "
            f"{result['tasks'] / result['wall']:9.1f} tasks/s  peak RSS {rss:6.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--skip-tau2", action="store_true")
    parser.add_argument("--skip-banking", action="store_true")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    print("telecom, 3,405 tasks (tau2's current generator code):")
    tau2 = None
    if not args.skip_tau2:
        tau2 = run_child(TAU2_CHILD)
        print(line("tau2 create_tasks", tau2))
    for workers in args.workers:
        ours = run_child(TAUGEN_CHILD, str(workers))
        print(line(f"taugen ({workers} worker{'s' if workers > 1 else ''})", ours)
              + f"  certified {ours['certified']}/{ours['tasks']}")
        if tau2:
            rss_ours = max(ours["rss_self_mb"], ours.get("rss_children_mb") or 0)
            rss_tau2 = max(tau2["rss_self_mb"], tau2.get("rss_children_mb") or 0)
            print(f"{'':<22} speed-up: wall {tau2['wall'] / ours['wall']:.1f}x, cpu {tau2['cpu'] / ours['cpu']:.1f}x; "
                  f"peak RSS {rss_ours:.0f} MB vs tau2 {rss_tau2:.0f} MB")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    if not args.skip_banking:
        print("banking, compose_tasks per tier (world built once, outside the timing):")
        for tier, result in run_child(BANKING_CHILD).items():
            print(f"  {tier:<7} {result['tasks']:>4} tasks  {result['wall']:6.2f} s  {result['tasks_per_s']:7.1f} tasks/s  "
                  f"certified {result['certified']}/{result['tasks']}")


if __name__ == "__main__":
    main()
