"""Where arena games run: in this process, a local process pool, or a Dask cluster — one code path.

Every executor is a ``concurrent.futures.Executor``; :func:`run_tasks` keeps a window of batches in
flight, hands each finished batch to a callback, rebuilds a broken pool and resubmits what it lost.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Sequence

from positions.errors import RefugeError

MAX_BREAKS = 3
"""A pool that breaks this many times in a row without finishing a batch stops the run."""


class ExecutorError(RefugeError):
    """An executor that cannot be used: unknown kind, unreachable cluster, a pool that keeps breaking."""


class SerialExecutor(Executor):
    """Runs each task at once in this process (one worker: no pickling, easy to debug)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` now; a done future holds its result or exception."""
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # noqa: BLE001 - delivered through the future, as a pool would
            if isinstance(error, KeyboardInterrupt):
                raise
            future.set_exception(error)
        return future


def parse_executor(text: str) -> str | None:
    """``None`` for ``local``, else the Dask scheduler address ``tcp://HOST:PORT`` of ``dask://HOST:PORT``.

    Raises:
        ExecutorError: neither form.
    """
    if text == "local":
        return None
    if text.startswith("dask://"):
        host, _, port = text[len("dask://"):].rpartition(":")
        if host and port.isdigit():
            return f"tcp://{host}:{port}"
    raise ExecutorError(f"unknown executor {text!r} (expected local or dask://HOST:PORT)")


class Runner:
    """An executor of the chosen kind with its capacity, rebuilt when a local pool breaks."""

    def __init__(self, workers: int, address: str | None = None, connect_seconds: float = 10.0) -> None:
        """A serial executor (1 worker), a local process pool, or a client of the Dask cluster.

        Raises:
            ExecutorError: Dask is not installed or the scheduler cannot be reached.
        """
        self.address = address
        self.workers = max(1, workers)
        self.client: Any = None
        if address is not None:
            self._connect(address, connect_seconds)
        self.executor = self._make()

    def _connect(self, address: str, seconds: float) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError("the dask executor needs dask.distributed: "
                                "pip install 'refuge-advisor[cluster]'") from None
        try:
            self.client = Client(address, timeout=f"{seconds}s")
        except (OSError, TimeoutError) as error:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        threads = sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values())
        self.workers = max(1, threads)

    def _make(self) -> Executor:
        if self.client is not None:
            executor: Executor = self.client.get_executor(pure=False)
            return executor
        if self.workers == 1:
            return SerialExecutor()
        return ProcessPoolExecutor(max_workers=self.workers)

    def _stop(self, wait: bool) -> None:
        if self.client is not None:
            self.executor.shutdown(wait=wait)  # Dask's executor has no cancel_futures
        else:
            self.executor.shutdown(wait=wait, cancel_futures=True)

    def rebuild(self) -> None:
        """Replace a broken executor with a new one."""
        self._stop(wait=False)
        self.executor = self._make()

    def abort(self) -> None:
        """Stop at once (Ctrl-C): drop queued tasks and end local worker processes mid-game."""
        if isinstance(self.executor, ProcessPoolExecutor):
            # No public way to stop running tasks before Python 3.14 (terminate_workers); a worker
            # would otherwise finish its batch, as it catches the KeyboardInterrupt and carries on.
            processes = getattr(self.executor, "_processes", None) or {}
            for process in list(processes.values()):
                process.terminate()
        self._stop(wait=False)
        if self.client is not None:
            self.client.close()

    def shutdown(self) -> None:
        """Stop the executor (queued tasks are dropped) and disconnect from the cluster."""
        self._stop(wait=True)
        if self.client is not None:
            self.client.close()


def is_lost_worker(error: BaseException) -> bool:
    """Whether a task failed because its worker died (so the task should run again)."""
    if isinstance(error, BrokenProcessPool):
        return True
    return type(error).__name__ == "KilledWorker"  # dask.distributed, without importing it


Task = Sequence[Any]


def run_tasks(runner: Runner, function: Callable[..., Any], tasks: Sequence[Task],
              common: tuple[Any, ...], on_result: Callable[[Task, Any], bool]) -> None:
    """Run ``function(task, *common)`` for every task, at most two per worker in flight.

    `on_result` gets each task with its result as it finishes and returns True to stop: queued tasks
    are then dropped, running ones are still awaited and handed over. Tasks lost with a broken pool
    are resubmitted on a rebuilt pool.

    Raises:
        ExecutorError: the pool broke ``MAX_BREAKS`` times in a row.
        Exception: whatever a task raised, other than losing its worker.
    """
    queue: deque[Task] = deque(tasks)
    running: dict[Future, Task] = {}
    breaks = 0
    stopping = False
    while queue or running:
        while queue and not stopping and len(running) < 2 * runner.workers:
            task = queue.popleft()
            try:
                future = runner.executor.submit(function, task, *common)
            except BrokenProcessPool:  # a worker died after the last wait: the pool takes no more
                queue.appendleft(task)
                if running:
                    break  # the running tasks come back lost below, and the pool is rebuilt there
                breaks += 1
                if breaks >= MAX_BREAKS:
                    raise ExecutorError(f"workers died {breaks} times in a row") from None
                runner.rebuild()
                continue
            running[future] = task
        finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
        lost: list[Task] = []
        for future in finished:
            task = running.pop(future)
            if future.cancelled():
                continue
            error = future.exception()
            if error is None:
                breaks = 0
                if on_result(task, future.result()) and not stopping:
                    stopping = True
                    queue.clear()
                    for other in list(running):
                        if other.cancel():
                            del running[other]
            elif is_lost_worker(error):
                lost.append(task)
            else:
                raise error
        if lost:
            breaks += 1
            if breaks >= MAX_BREAKS:
                raise ExecutorError(f"workers died {breaks} times in a row without finishing a batch")
            if isinstance(runner.executor, ProcessPoolExecutor):
                # Every task still running died with the pool: run them again on a new one.
                for future, task in list(running.items()):
                    if not future.done() or future.exception() is not None:
                        lost.append(task)
                        del running[future]
                runner.rebuild()
        if not stopping:
            queue.extendleft(reversed(lost))


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
