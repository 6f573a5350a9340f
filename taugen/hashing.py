"""Hashing and seeding shared by every stage (floor 0): canonical bytes, digests and stable seeds.

A build is byte-for-byte reproducible because every random choice is seeded by :func:`stable_seed` from
the build seed and stable ids, and every JSON file is written by :func:`json_bytes`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

BundleFiles = dict[str, bytes]
"""A bundle in memory: ``{relative posix path: file bytes}``."""


def sha256_hex(data: bytes) -> str:
    """sha256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest_name(data: bytes, suffix: str, length: int = 16) -> str:
    """A neutral file name from the content: ``<first length hex of sha256><suffix>``."""
    return f"{sha256_hex(data)[:length]}{suffix}"


def json_bytes(data: Any) -> bytes:
    """Canonical JSON: sorted keys, two-space indent, UTF-8, trailing newline (stable bytes)."""
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False, default=str) + "\n").encode()


def sha256sums(files: Mapping[str, bytes]) -> bytes:
    """``SHA256SUMS`` text in coreutils format (``<hex>  <path>``), sorted by path."""
    lines = [f"{sha256_hex(files[path])}  {path}\n" for path in sorted(files)]
    return "".join(lines).encode()


def stable_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, stable across runs and Python versions (sha256, not hash())."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
