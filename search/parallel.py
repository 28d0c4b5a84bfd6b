"""Root parallelisation: independent jobs in worker processes, seeds derived from one seed."""

from __future__ import annotations

import atexit
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence, TypeVar

from search.seeds import derive_seed, worker_seeds

__all__ = ["derive_seed", "map_in_processes", "split_iterations", "worker_seeds"]

T = TypeVar("T")

_POOLS: dict[int, ProcessPoolExecutor] = {}


def split_iterations(iterations: int | None, workers: int) -> list[int | None]:
    """Iterations per worker: as even as possible, the first workers taking the remainder."""
    if iterations is None:
        return [None] * workers
    share, extra = divmod(iterations, workers)
    return [share + (1 if i < extra else 0) for i in range(workers)]


def _pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of this size, kept for later searches (starting processes is slow)."""
    pool = _POOLS.get(workers)
    if pool is None:
        pool = _POOLS[workers] = ProcessPoolExecutor(max_workers=workers)
    return pool


def map_in_processes(function: Callable[..., T], jobs: Sequence[tuple[Any, ...]]) -> list[T]:
    """``[function(*job) for job in jobs]``, each job in its own worker process, results in job order."""
    if len(jobs) == 1:
        return [function(*jobs[0])]
    futures = [_pool(len(jobs)).submit(function, *job) for job in jobs]
    return [future.result() for future in futures]


def shutdown_pools() -> None:
    """Stop every kept worker process."""
    for pool in _POOLS.values():
        pool.shutdown(cancel_futures=True)
    _POOLS.clear()


atexit.register(shutdown_pools)
