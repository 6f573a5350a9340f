"""Session-wide cache of built bundles, so test modules share builds instead of each paying for one.

Loaded as a pytest plugin (``-p bundle_fixtures`` in pyproject.toml). Use::

    def test_something(built_bundle):
        path = built_bundle("hard")          # banking, seed 0, built once per test session
        path = built_bundle("easy", seed=3)

Treat returned bundles as read only; copy one (shutil.copytree) before editing it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest


@pytest.fixture(scope="session")
def built_bundle(tmp_path_factory) -> Callable[..., Path]:
    """Factory ``(tier, seed=0, domain="banking") -> Path`` of a validated bundle, built once per session."""
    from taugen.build.pipeline import build

    cache: dict[tuple[str, str, int], Path] = {}

    def get(tier: str, seed: int = 0, domain: str = "banking") -> Path:
        key = (domain, tier, seed)
        if key not in cache:
            result = build(domain, tier, seed=seed, out=tmp_path_factory.mktemp(f"{domain}-{tier}-{seed}"))
            assert result.ok, [f for f in result.findings if f.severity == "error"][:5]
            cache[key] = result.path
        return cache[key]

    return get
