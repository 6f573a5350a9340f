"""Executors: where a build's independent units of work run (rendering records, validators, readers).

A unit is ``function(shared, item)``: a module-level function, the inputs every unit of one job shares
(the corpus plan and render context, a bundle view) and the unit's own item (a plan index, a validator
name). Every unit is a pure function of those two, so its result does not depend on which process or
machine ran it; an executor only decides where the units run and hands their results back **in the
order of the items**, as each becomes available.

* :class:`LocalExecutor` (``--executor local``, the default): in this process, or side by side in
  forked worker processes that inherit ``shared`` (the build's behaviour before executors existed).
* :class:`RayExecutor` (``--executor ray``, optional extra ``taugen[ray]``): as Ray tasks, on a local
  Ray started for the build (``TAUGEN_WORKERS`` CPUs, else the CPU count) or on an existing cluster
  (``--ray-address``). ``shared`` is put into Ray's object store once and read once per worker process.
  A chunk of units that fails as a Ray task (a worker died, the cluster cannot import what the unit
  needs) is run again here, so a real error is raised here as it would be locally.

Callers that must replay a failed unit to raise its real error (a template error with its file and line)
keep doing so: their unit catches its own exception and returns a marker, and the caller renders it
again in its own process.
"""

from __future__ import annotations

import multiprocessing
import os
import warnings
from typing import Any, Callable, Iterator, Sequence

from taugen.errors import InputError

EXECUTORS = ("local", "ray")
"""The names ``--executor`` accepts."""


def local_workers(count: int) -> int:
    """Worker processes for ``count`` units run locally: ``TAUGEN_WORKERS`` if set, else the CPU count (at
    most four), and 1 for fewer than 40 units or where ``fork`` is unavailable."""
    if count < 40 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    configured = os.environ.get("TAUGEN_WORKERS")
    if configured:
        return max(1, int(configured))
    return max(1, min(4, os.cpu_count() or 1))


class Executor:
    """Where units run (see the module docstring). Subclasses implement :meth:`map`."""

    name = "?"
    remote = False
    """True when units run in processes that did not fork from this one (they lack what it imported or
    configured since it started)."""

    def map(self, function: Callable[[Any, Any], Any], shared: Any, items: Sequence[Any], workers: int | None = None,
            chunksize: int = 1) -> Iterator[Any]:
        """``function(shared, item)`` for every item, yielded in the order of ``items``.

        Args:
            function: a module-level function (it is sent to other processes by reference).
            shared: what every unit reads; sent once, never modified by the units.
            items: one per unit (small: indexes, names).
            workers: for the local executor, how many processes at most (default :func:`local_workers` of
                ``len(items)``; 1 runs in this process); a Ray executor uses the CPUs of its cluster.
            chunksize: units sent to a worker together.

        Raises:
            whatever ``function`` raises (locally; on Ray, when the chunk is run again here).
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release what the executor started (a local Ray); it may not be used after."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SHARED: Any = None
_FUNCTION: Callable[[Any, Any], Any] | None = None
"""What a forked local worker runs (set around the pool; inherited by fork, never pickled)."""


def _in_fork(item: Any) -> Any:
    assert _FUNCTION is not None
    return _FUNCTION(_SHARED, item)


class LocalExecutor(Executor):
    """Units in this process, or in forked workers that inherit ``shared`` (``multiprocessing`` ``fork``).

    Args:
        workers: processes for every map (1: this process only), overriding what the caller asks for;
            None (the default) lets each map decide (its ``workers``, else :func:`local_workers`).
    """

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers

    def map(self, function, shared, items, workers=None, chunksize=1):
        """See :meth:`Executor.map`; with more than one worker the pool is closed and joined (not terminated)
        after the last result, so that the workers stop what they started (a browser) on their own."""
        global _SHARED, _FUNCTION
        items = list(items)
        count = self.workers or workers or local_workers(len(items))
        count = min(count, len(items))
        if count <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            for item in items:
                yield function(shared, item)
            return
        _SHARED, _FUNCTION = shared, function
        try:
            with multiprocessing.get_context("fork").Pool(count) as pool:
                yield from pool.imap(_in_fork, items, chunksize=chunksize)
                pool.close()
                pool.join()
        finally:
            _SHARED = _FUNCTION = None


_RAY_SHARED: dict[str, Any] = {}
"""In a Ray worker process: the shared input of the job it last ran, by object id (read once per job)."""


def _ray_chunk(function: Callable[[Any, Any], Any], boxed: list, items: list, cache: str | None) -> list:
    """Run one chunk of units in a Ray worker. ``boxed`` holds the ObjectRef of the shared input (in a list,
    so that Ray does not fetch and unpickle it for every task); ``cache`` is the build's content cache choice
    (:func:`taugen.content_cache.cache_root` as a string, None: off), applied before the units run."""
    import ray

    from taugen import content_cache

    content_cache.configure(cache, enabled=cache is not None)
    key = boxed[0].hex()
    if key not in _RAY_SHARED:
        _RAY_SHARED.clear()
        _RAY_SHARED[key] = ray.get(boxed[0])
    shared = _RAY_SHARED[key]
    return [function(shared, item) for item in items]


class RayExecutor(Executor):
    """Units as Ray tasks (one CPU each), results gathered in the order of the items.

    Args:
        address: an existing cluster (``auto``, ``ray://host:10001``, ``host:6379``); None starts a local Ray
            with ``workers`` CPUs for this executor and stops it on :meth:`close`. When Ray is already
            initialised in this process, that connection is used as it is (and left open).
        workers: CPUs of a local Ray (default ``TAUGEN_WORKERS``, else the CPU count).

    Attributes:
        replayed: how many units failed as Ray tasks and were run again in this process.

    Raises:
        InputError: Ray is not installed (``pip install 'taugen[ray]'``), or the cluster cannot be reached.
    """

    name = "ray"
    remote = True

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise InputError("--executor ray needs Ray: pip install 'taugen[ray]' (or pip install ray)") from None
        self._ray = ray
        self.replayed = 0
        self._started = False
        if workers is None:
            configured = os.environ.get("TAUGEN_WORKERS")
            workers = max(1, int(configured)) if configured else (os.cpu_count() or 1)
        self.workers = workers
        if ray.is_initialized():
            return
        try:
            if address:
                ray.init(address=address, logging_level="WARNING", log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
            raise InputError(f"cannot start Ray{f' at {address}' if address else ''}: "
                             f"{type(exc).__name__}: {exc}") from None
        self._started = True

    def map(self, function, shared, items, workers=None, chunksize=1):
        """See :meth:`Executor.map` (``workers`` is ignored: Ray schedules on its cluster's CPUs)."""
        from taugen.content_cache import cache_root

        ray = self._ray
        items = list(items)
        if not items:
            return
        remote = ray.remote(num_cpus=1, max_retries=1)(_ray_chunk)
        root = cache_root()
        cache = None if root is None else str(root)
        boxed = [ray.put(shared)]
        chunks = [items[start:start + chunksize] for start in range(0, len(items), chunksize)]
        refs = [remote.remote(function, boxed, chunk, cache) for chunk in chunks]
        gathered = 0
        try:
            for chunk, ref in zip(chunks, refs):
                try:
                    results = ray.get(ref)
                except ray.exceptions.RayError as exc:  # run it here: the real error, if any, is raised here
                    if not self.replayed:
                        cause = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
                        warnings.warn(f"a Ray task failed ({cause[0][:200]}); its units run in this process "
                                      f"(later failures are not reported)", RuntimeWarning, stacklevel=2)
                    self.replayed += len(chunk)
                    results = [function(shared, item) for item in chunk]
                gathered += 1
                yield from results
        finally:  # the caller stopped early (an error): do not leave the rest running on the cluster
            for ref in refs[gathered:]:
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - finished or already gone
                    pass

    def close(self) -> None:
        """Stop the local Ray this executor started (a cluster it connected to is left running)."""
        if self._started:
            self._ray.shutdown()
            self._started = False


def make_executor(name: str = "local", address: str | None = None, workers: int | None = None) -> Executor:
    """The executor ``--executor NAME [--ray-address ADDR]`` asks for.

    Raises:
        InputError: an unknown name, an address without ``ray``, or Ray missing or unreachable.
    """
    if name not in EXECUTORS:
        raise InputError(f"unknown executor '{name}' (known: {', '.join(EXECUTORS)})")
    if name == "local":
        if address is not None:
            raise InputError("--ray-address needs --executor ray")
        return LocalExecutor()
    return RayExecutor(address=address, workers=workers)


__all__ = ["EXECUTORS", "Executor", "LocalExecutor", "RayExecutor", "local_workers", "make_executor"]
