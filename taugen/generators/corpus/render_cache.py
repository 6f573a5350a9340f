"""The render cache: a record rendered once is not rendered again while nothing it read has changed.

A record's render (its delivered files, author text, placed renditions, timestamps, metadata and the text
its genre reads back) is a pure function of

* the code that renders it: taugen's own source and templates, the installed Python distributions, the
  external programs the genres run (Chromium, Graphviz ``dot``, ``espeak-ng``, ``ffmpeg``) and the system
  fonts (:func:`taugen.content_cache.code_version`);
* what every record of the build shares: the pack's domain config and corpus vocabulary, the tier and the
  build seed (:func:`job_key`);
* its own plan item (:class:`~taugen.generators.corpus.genre.ArtifactPlan`: the renditions it states, their
  facts, its dates, its seed, its length);
* what it read of the pack's other facts and of the plan's owner genres while rendering, recorded by
  :class:`~taugen.generators.corpus.fact_reads.TracedFacts` (the facts of its topic it names, the value
  sets its figures keep clear of ...).

An entry is stored under the SHA-256 of the first three (:func:`entry_key`) and holds up to
:data:`MAX_TRACES` traces, each the reads with the digest of what each gave and the id of the result they
produced (results are stored once, by their own digest); a trace is used only when every read gives the
same digest against the pack being built (:func:`~taugen.generators.corpus.fact_reads.reads_hold`). So
after a one-fact edit only the records that state the fact or read it (directly, or through a lookup whose
answer it changes: a new amount changes its section's value set, which every record writing figures on
that section's subjects keeps clear of) are rendered again, and the bundle is byte-identical to a build
without the cache. Entries live in the content cache (:mod:`taugen.content_cache`: atomic writes,
checksummed payloads, ``--cache DIR`` / ``--no-cache``); a corrupt or unreadable entry is a miss.

Payloads are pickles that only :func:`traces` and :func:`result` read back, through
:func:`taugen.content_cache.load_object`, which builds nothing but taugen's own record types and plain data
(a tampered cache cannot run code). A plug-in genre's code is covered by its distribution's version only:
after editing an installed plug-in in place, build once with ``--no-cache``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from taugen.content_cache import code_version, content_key, dumps, load_object, store_object
from taugen.content_cache import store as store_entry
from taugen.hashing import canonical_bytes

if TYPE_CHECKING:
    from taugen.generators.corpus.genre import ArtifactPlan, RenderContext

NAMESPACE = "render"
RESULTS = "render-result"
MAX_TRACES = 8
"""Traces kept per record (the newest first): a value edited back and forth finds each of its renders."""
FORMAT = "render entry 2"
"""Changes when the layout of an entry changes (old entries are then misses; part of :func:`job_key`)."""


def job_key(context: "RenderContext", genre_names: list[str]) -> str:
    """Hex digest of what every record of a build shares: :func:`code_version`, the registered genres, the
    domain config, the corpus vocabulary's words (not the file they came from: a copied pack reuses its
    records), the tier and the build seed (not the facts: each record's reads of them are checked one by one)."""
    return content_key(FORMAT, code_version(), ",".join(sorted(genre_names)), canonical_bytes(context.config),
                       canonical_bytes(context.vocabulary.sections), context.tier, str(context.build_seed))


def entry_key(job: str, plan: "ArtifactPlan") -> str:
    """Hex digest naming one record's entry: the build's :func:`job_key` and the record's plan item."""
    return content_key(job, canonical_bytes(plan))


def traces(key: str) -> list[tuple[list, str]]:
    """The traces kept under ``key``, newest first: ``(reads, result id)`` with the recorded reads as
    ``[(read, digest)]``; ``[]`` on a miss, with the cache off, or for an entry that cannot be read back."""
    found = load_object(NAMESPACE, key)
    return found if isinstance(found, list) else []


def result(result_id: str) -> Any:
    """The render result stored as ``result_id``, or None (a miss, or damaged)."""
    return load_object(RESULTS, result_id)


def lookup(key: str, holds: Callable[[list], bool]) -> Any:
    """The result of the newest trace under ``key`` whose reads ``holds`` accepts, or None."""
    for reads, result_id in traces(key):
        if holds(reads):
            found = result(result_id)
            if found is not None:
                return found
    return None


def store(key: str, reads: dict, rendered: Any) -> None:
    """Keep ``rendered`` (stored once by its digest) and its ``reads`` (read → digest) as the newest trace
    under ``key``, beside at most :data:`MAX_TRACES` - 1 older ones (best effort, atomic; two builds
    storing at once may each drop the other's trace, never damage one)."""
    payload = dumps(rendered)
    result_id = content_key(payload)
    store_entry(RESULTS, result_id, payload)
    recorded = list(reads.items())
    kept = [(recorded, result_id)] + [trace for trace in traces(key) if trace[0] != recorded][:MAX_TRACES - 1]
    store_object(NAMESPACE, key, kept)
