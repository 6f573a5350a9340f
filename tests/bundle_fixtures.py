"""Session-wide cache of built bundles, so test modules share builds instead of each paying for one.

Loaded as a pytest plugin (``-p bundle_fixtures`` in pyproject.toml). Use::

    def test_something(built_bundle):
        path = built_bundle("hard")          # banking, seed 0, built once per test run
        path = built_bundle("easy", seed=3)

Treat returned bundles as read only; copy one (shutil.copytree) before editing it.

The suite runs under pytest-xdist (``-n auto --dist loadgroup`` in pyproject.toml): each worker is its own
session, so the cache lives on disk in the run's shared temporary folder, and a file lock per bundle makes
the first worker that asks build it while the others wait and then reuse it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest
from filelock import FileLock


def _shared_root(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The folder every worker of this run sees (the run's base temp folder; its parent under xdist)."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if worker_id != "master" else base) / "bundle-cache"
    root.mkdir(parents=True, exist_ok=True)
    return root


TEST_TASKS = 45
"""Banking bundles in tests pick 45 tasks from the task space (the tiers' defaults, 60 to 300, would make
every validator, tau2 and mutation test several times slower); pass ``tasks=None`` for the tier's default."""


@pytest.fixture(scope="session")
def built_bundle(tmp_path_factory, request) -> Callable[..., Path]:
    """Factory ``(tier, seed=0, domain="banking", tasks=45, readers=True) -> Path`` of a validated bundle,
    built once per test run (across xdist workers); ``readers=False`` skips the strong readers at hard
    (``bundle.json`` then says so), a different bundle from the one with them."""
    from taugen.build.pipeline import build

    worker_id = getattr(request.config, "workerinput", {}).get("workerid", "master")  # gw0, gw1... under xdist
    root = _shared_root(tmp_path_factory, worker_id)
    cache: dict[tuple[str, str, int, int | None, bool], Path] = {}

    def get(tier: str, seed: int = 0, domain: str = "banking", tasks: int | None = TEST_TASKS,
            readers: bool = True) -> Path:
        key = (domain, tier, seed, tasks, readers)
        if key not in cache:
            count = tasks if domain == "banking" else None
            name = f"{domain}-{tier}-{seed}-{count if count is not None else 'default'}{'' if readers else '-no-readers'}"
            done = root / f"{name}.json"
            with FileLock(str(root / f"{name}.lock")):
                if not done.exists():
                    result = build(domain, tier, seed=seed, out=root / name, tasks=count, readers=readers)
                    assert result.ok, [f for f in result.findings if f.severity == "error"][:5]
                    done.write_text(json.dumps({"path": str(result.path)}))
            cache[key] = Path(json.loads(done.read_text())["path"])
        return cache[key]

    return get
