"""Executors: where a build's independent units of work run (rendering records, validators, readers).

A unit is ``function(shared, item)``: a module-level function, the inputs every unit of one job shares
(the corpus plan and render context, a bundle view) and the unit's own item (a plan index, a validator
name). Every unit is a pure function of those two, so its result does not depend on which process or
machine ran it; an executor only decides where the units run and hands their results back **in the
order of the items**, as each becomes available.

* :class:`LocalExecutor` (``--executor local``, the default): in this process, or side by side in
  forked worker processes that inherit ``shared`` (the build's behaviour before executors existed).
* :class:`RayExecutor` (``--executor ray``, optional extra ``taugen[ray]``): in chunks on a pool of Ray
  actors (one CPU each), on a local Ray started for the build (``TAUGEN_WORKERS`` CPUs, else the CPU
  count) or on an existing cluster (``--ray-address``). ``shared`` is put into Ray's object store once per
  job and read once per actor. A chunk that fails on Ray (a unit raised, an actor died, a worker cannot
  import what the unit needs) is run again here, so a real error is raised here as it would be locally.

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


class _RayWorker:
    """One Ray actor: a worker process that runs chunks of units for the executor's whole life, keeping the
    shared input of the job it last ran (read once per job), and that exits gracefully when the executor
    closes, so that what its units started (a browser) is stopped and cleaned up by the process's own exit
    handlers (``ray.kill`` and a shut-down Ray would skip them)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.shared: Any = None

    def run(self, function: Callable[[Any, Any], Any], boxed: list, items: list, cache: str | None) -> list:
        """``function(shared, item)`` for each of ``items``. ``boxed`` holds the ObjectRef of the shared input
        (in a list, so that Ray does not fetch and unpickle it for every call); ``cache`` is the build's
        content cache choice (:func:`taugen.content_cache.cache_root` as a string, None: off)."""
        import ray

        from taugen import content_cache

        content_cache.configure(cache, enabled=cache is not None)
        key = boxed[0].hex()
        if key != self.key:
            self.key, self.shared = None, None  # let the last job's input go before reading this one's
            self.shared, self.key = ray.get(boxed[0]), key
        return [function(self.shared, item) for item in items]

    def exit(self) -> None:
        """End this worker process the way a Python program ends (exit handlers run)."""
        import ray

        ray.actor.exit_actor()


class RayExecutor(Executor):
    """Units on Ray: chunks of units handed to a pool of Ray actors (one CPU each) as each becomes free,
    results yielded in the order of the items.

    Args:
        address: an existing cluster (``auto``, ``ray://host:10001``, ``host:6379``); None starts a local Ray
            with ``workers`` CPUs for this executor and stops it on :meth:`close`. When Ray is already
            initialised in this process, that connection is used as it is (and left open).
        workers: how many actors (default ``TAUGEN_WORKERS``, else every CPU: of this machine for a local
            Ray, of the cluster with ``address``; never more than the cluster's CPUs).

    Attributes:
        replayed: how many units failed on Ray and were run again in this process.

    Raises:
        InputError: Ray is not installed (``pip install 'taugen[ray]'``), or the cluster cannot be reached.
    """

    name = "ray"
    remote = True
    IN_FLIGHT = 2
    """Chunks queued on each actor at once (the next one waits there while the first runs)."""

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise InputError("--executor ray needs Ray: pip install 'taugen[ray]' (or pip install ray)") from None
        self._ray = ray
        self._pid = os.getpid()
        self.replayed = 0
        self._warned = False
        self._started = False
        self._actors: list[Any] = []
        configured = os.environ.get("TAUGEN_WORKERS")
        if workers is None and configured:
            workers = max(1, int(configured))
        if not ray.is_initialized():
            if address:
                _check_reachable(address)
            try:
                if address:
                    ray.init(address=address, logging_level="WARNING", log_to_driver=False)
                else:
                    # "local": a Ray of our own, even when another one runs on this machine (ray.init()
                    # alone would join the latest one started here, someone else's build perhaps)
                    ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                             logging_level="WARNING", log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
                raise InputError(f"cannot start Ray{f' at {address}' if address else ''}: "
                                 f"{type(exc).__name__}: {exc}") from None
            self._started = True
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.workers = min(workers or cpus, cpus)  # an actor beyond the CPUs would wait for one forever

    def _pool(self) -> list[Any]:
        if not self._actors:
            actor = self._ray.remote(num_cpus=1)(_RayWorker)
            self._actors = [actor.remote() for _ in range(self.workers)]
        return self._actors

    def map(self, function, shared, items, workers=None, chunksize=1):
        """See :meth:`Executor.map` (``workers`` is ignored: the executor's own ``workers`` actors run every
        map). A chunk whose call fails (the unit raised, the actor died, a worker cannot import what the unit
        needs) is run again here, in order, so its real error, if any, is raised here; a dead actor gets no
        more chunks, and when none is left the rest runs here."""
        from collections import deque

        from taugen.content_cache import cache_root

        ray = self._ray
        items = list(items)
        if not items:
            return
        root = cache_root()
        cache = None if root is None else os.path.abspath(root)  # the actors' working folder is not ours
        boxed = [ray.put(shared)]
        chunks = [items[start:start + chunksize] for start in range(0, len(items), chunksize)]
        free = deque(actor for _ in range(self.IN_FLIGHT) for actor in self._pool())
        pending: dict[Any, tuple[int, Any]] = {}
        done: dict[int, list | None] = {}
        submitted = 0
        try:
            for index, chunk in enumerate(chunks):
                while index not in done:
                    while free and submitted < len(chunks):
                        actor = free.popleft()
                        pending[actor.run.remote(function, boxed, chunks[submitted], cache)] = (submitted, actor)
                        submitted += 1
                    if not pending:  # no actor left alive: the rest runs here
                        done[index] = None
                        break
                    ready, _ = ray.wait(list(pending), num_returns=1)
                    for ref in ready:
                        position, actor = pending.pop(ref)
                        try:
                            done[position] = ray.get(ref)
                            free.append(actor)
                        except ray.exceptions.RayActorError as exc:
                            self._failed(exc)
                            done[position] = None  # and the actor gets no more chunks
                        except ray.exceptions.RayError as exc:
                            self._failed(exc)
                            done[position] = None
                            free.append(actor)
                results = done.pop(index)
                if results is None:
                    self.replayed += len(chunk)
                    results = [function(shared, item) for item in chunk]
                yield from results
        finally:  # the caller stopped early (an error): do not leave the rest running
            # ... unless this runs where Ray is gone: a generator left unfinished is closed when it is
            # collected, perhaps after close() or in a process forked since (a validator worker), and any
            # Ray call there would start a new Ray of its own (Ray's auto-init) and wait for it forever
            if os.getpid() != self._pid or not ray.is_initialized():
                pending.clear()
            for ref in pending:
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - finished or already gone
                    pass

    def _failed(self, exc: Exception) -> None:
        """Warn once per executor that Ray could not run a chunk (it is run again here)."""
        if not self._warned:
            self._warned = True
            cause = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
            warnings.warn(f"a Ray task failed ({cause[0][:200]}); its units run in this process "
                          f"(later failures are not reported)", RuntimeWarning, stacklevel=3)

    def close(self) -> None:
        """End the actors gracefully, then stop the local Ray this executor started (a cluster it connected
        to is left running)."""
        ray = self._ray
        if self._actors:
            exits = [actor.exit.remote() for actor in self._actors]
            ray.wait(exits, num_returns=len(exits), timeout=30)
            self._actors = []
        if self._started:
            ray.shutdown()
            self._started = False


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Connect to a ``HOST:PORT`` or ``ray://HOST:PORT`` Ray address once, so that a wrong one fails in seconds
    (``ray.init`` retries for minutes); ``auto`` and other forms are left to Ray.

    Raises:
        InputError: nothing answers at that address.
    """
    import socket

    where = address[len("ray://"):] if address.startswith("ray://") else address
    host, _, port = where.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise InputError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


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
