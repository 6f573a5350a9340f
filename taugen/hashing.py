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


def recorded_sums(sums: bytes) -> dict[str, str]:
    """``{path: hex digest}`` read from ``SHA256SUMS`` text (coreutils format, as :func:`sha256sums` writes)."""
    recorded: dict[str, str] = {}
    for line in sums.decode("utf-8", "replace").splitlines():
        digest, _, path = line.partition("  ")
        if path:
            recorded[path] = digest
    return recorded


def sums_differences(files: Mapping[str, bytes]) -> list[str]:
    """How ``files`` (a bundle's, with its ``SHA256SUMS``) differ from the sums recorded at build time, one
    ``"edited: <path>"``, ``"added: <path>"`` or ``"removed: <path>"`` per file, sorted by path; ``[]`` when
    they agree. A missing ``SHA256SUMS`` reads as every file added."""
    recorded = recorded_sums(files.get("SHA256SUMS", b""))
    actual = {path: sha256_hex(data) for path, data in files.items() if path != "SHA256SUMS"}
    found = []
    for path in sorted(set(recorded) | set(actual)):
        if path not in actual:
            found.append(f"removed: {path}")
        elif path not in recorded:
            found.append(f"added: {path}")
        elif recorded[path] != actual[path]:
            found.append(f"edited: {path}")
    return found


def stable_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, stable across runs and Python versions (sha256, not hash())."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _canonical_default(value: Any) -> Any:
    import dataclasses
    import datetime as dt
    import decimal
    import enum
    from pathlib import PurePath

    if hasattr(value, "model_dump") and callable(value.model_dump):  # a pydantic model
        return {"__model__": type(value).__qualname__, **value.model_dump(mode="json")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__dataclass__": type(value).__qualname__,
                **{field.name: getattr(value, field.name) for field in dataclasses.fields(value)}}
    if isinstance(value, (set, frozenset)):
        return sorted((json.loads(canonical_bytes(item)) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, PurePath)):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bytes):
        return {"__sha256__": sha256_hex(value)}
    raise TypeError(f"no canonical form for {type(value).__name__}")


def canonical_bytes(data: Any) -> bytes:
    """A canonical encoding of ``data`` for content keys: JSON with sorted keys, where a pydantic model is its
    JSON dump, a dataclass its fields, a set its members in sorted order, a date its ISO form, a Decimal its
    string and bytes their SHA-256 (each model and dataclass tagged with its class name). Equal data give
    equal bytes in any process (no ``repr``, no ``hash()`` order).

    Raises:
        TypeError: ``data`` holds a type with no canonical form (never silently keyed by ``repr``).
    """
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=_canonical_default).encode()
