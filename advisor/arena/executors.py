"""Where arena games run: in this process, a local process pool, or a Dask cluster — one code path.

Every executor is a ``concurrent.futures.Executor``; :func:`run_tasks` keeps a window of batches in
flight, hands each finished batch to a callback, rebuilds a broken pool and resubmits what it lost.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from types import FrameType
from typing import Any, Callable, Iterable, Iterator, Sequence

from advisor.players.processes import die_with_parent
from positions.errors import RefugeError

MAX_BREAKS = 3
"""A pool that breaks this many times in a row without finishing a batch stops the run."""
HEARTBEAT_SECONDS = 30.0
"""With Dask, a line saying how many workers are connected after this long without a result."""
POLL_SECONDS = 1.0
"""How often a Dask run with nothing finishing checks its workers."""
INTERRUPT_POLL_SECONDS = 0.1
"""How often a local pool's run looks for a Ctrl-C noted while it waited."""


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


def start_worker(parent: int) -> None:
    """Set up a pool worker: it dies with the arena (even after ``kill -9``) and leaves Ctrl-C and
    SIGTERM to it (the arena stops its workers itself, with its results kept)."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Runner:
    """An executor of the chosen kind with its capacity, rebuilt when a local pool breaks."""

    def __init__(self, workers: int, address: str | None = None, connect_seconds: float = 10.0,
                 worker_timeout: float | None = None,
                 on_wait: Callable[[str], None] | None = None) -> None:
        """A serial executor (1 worker), a local process pool, or a client of the Dask cluster.

        With Dask, `on_wait` gets a line every :data:`HEARTBEAT_SECONDS` without a result, and the
        run stops once no worker has been connected for `worker_timeout` seconds.

        Raises:
            ExecutorError: Dask is not installed or the scheduler cannot be reached.
        """
        self.address = address
        self.workers = max(1, workers)
        self.worker_timeout = worker_timeout
        self.on_wait = on_wait
        self.client: Any = None
        self._quiet_since = time.monotonic()
        self._last_line = self._quiet_since
        self._alone_since: float | None = None
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
        return ProcessPoolExecutor(max_workers=self.workers, initializer=start_worker,
                                   initargs=(os.getpid(),))

    @property
    def poll_seconds(self) -> float | None:
        """How long to wait for a result before checking on the workers (``None``: no need)."""
        return POLL_SECONDS if self.client is not None else None

    def progressed(self) -> None:
        """A result came back: the workers are alive."""
        self._quiet_since = self._last_line = time.monotonic()
        self._alone_since = None

    def check_workers(self, running: int) -> None:
        """Nothing finished for a while: report the connected workers, give up after the timeout.

        Raises:
            ExecutorError: no worker connected for `worker_timeout` seconds, or the scheduler is gone.
        """
        if self.client is None:
            return
        try:
            connected = len(self.client.nthreads())
        except (OSError, TimeoutError) as error:
            raise ExecutorError(f"lost the Dask scheduler at {self.address}: {error}") from None
        now = time.monotonic()
        if connected:
            self._alone_since = None
        elif self._alone_since is None:
            self._alone_since = now
        if now - self._last_line >= HEARTBEAT_SECONDS and self.on_wait is not None:
            self._last_line = now
            self.on_wait(f"waiting for workers: {connected} connected, {running} tasks in flight, "
                         f"no result for {now - self._quiet_since:.0f} s")
        if (self.worker_timeout is not None and self._alone_since is not None
                and now - self._alone_since >= self.worker_timeout):
            raise ExecutorError(f"no Dask worker connected to {self.address} for "
                                f"{self.worker_timeout:g} s (--worker-timeout); stopping")

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
            # would otherwise finish its batch (workers ignore Ctrl-C: the arena decides).
            processes = getattr(self.executor, "_processes", None) or {}
            for process in list(processes.values()):
                process.kill()
            # A worker killed while writing a result leaves half a message on the result pipe, and
            # the pool's manager thread would wait for its rest for ever (here, and again at exit).
            # With every writer closed — the dead workers' and this process's own — it reads an end
            # of file instead, marks the pool broken and ends.
            writer = getattr(getattr(self.executor, "_result_queue", None), "_writer", None)
            if writer is not None:
                writer.close()
            # Waiting is then quick, and lets the manager thread close its wake-up pipe before
            # interpreter exit writes to it (Python 3.11 races there: EBADF).
            self._stop(wait=True)
        else:
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


@contextlib.contextmanager
def deferred_interrupts(enabled: bool = True) -> Iterator[threading.Event]:
    """Ctrl-C and SIGTERM, while inside, only set the yielded event; the loop acts on it when safe.

    A ``KeyboardInterrupt`` raised wherever the main thread happens to be can leave a future's lock
    held inside ``concurrent.futures.wait``, and the pool's manager thread then waits for that lock
    for ever (an arena that never answered Ctrl-C). Only signals whose handler is Python's (which
    raises) are deferred; an ignored or default signal keeps its meaning. Nothing is deferred off the
    main thread, or when not `enabled` (a serial run plays in this thread and must be interruptible).
    """
    noted = threading.Event()
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield noted
        return

    def note(signum: int, frame: FrameType | None) -> None:
        noted.set()

    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    deferred = {number: handler for number, handler in previous.items() if callable(handler)}
    for number in deferred:
        signal.signal(number, note)
    try:
        yield noted
    finally:
        for number, handler in deferred.items():
            signal.signal(number, handler)


def run_tasks(runner: Runner, function: Callable[..., Any], tasks: Iterable[Task],
              common: tuple[Any, ...], on_result: Callable[[Task, Any], bool]) -> None:
    """Run ``function(task, *common)`` for every task, at most two per worker in flight.

    `tasks` is consumed as it goes (a schedule of a billion games is never held in memory).
    `on_result` gets each task with its result as it finishes and returns True to stop: queued tasks
    are then dropped, running ones are still awaited and handed over. Tasks lost with a broken pool
    are resubmitted on a rebuilt pool.

    Raises:
        ExecutorError: the pool broke ``MAX_BREAKS`` times in a row, or the Dask workers are gone.
        Exception: whatever a task raised, other than losing its worker.
    """
    with deferred_interrupts(not isinstance(runner.executor, SerialExecutor)) as interrupted:
        _run_tasks(runner, function, tasks, common, on_result, interrupted)


def _run_tasks(runner: Runner, function: Callable[..., Any], tasks: Iterable[Task],
               common: tuple[Any, ...], on_result: Callable[[Task, Any], bool],
               interrupted: threading.Event) -> None:
    """:func:`run_tasks`, raising ``KeyboardInterrupt`` between waits once `interrupted` is set."""
    upcoming: Iterator[Task] = iter(tasks)
    retry: deque[Task] = deque()
    running: dict[Future, Task] = {}
    breaks = 0
    stopping = False

    def next_task() -> Task | None:
        return retry.popleft() if retry else next(upcoming, None)

    pending = next_task()
    while pending is not None or running:
        if interrupted.is_set():  # here, between waits, no lock of the pool's is held
            raise KeyboardInterrupt
        while pending is not None and not stopping and len(running) < 2 * runner.workers:
            try:
                future = runner.executor.submit(function, pending, *common)
            except BrokenProcessPool:  # a worker died after the last wait: the pool takes no more
                if running:
                    break  # the running tasks come back lost below, and the pool is rebuilt there
                breaks += 1
                if breaks >= MAX_BREAKS:
                    raise ExecutorError(f"workers died {breaks} times in a row") from None
                runner.rebuild()
                continue
            running[future] = pending
            pending = next_task()
        if stopping:
            pending = None
        if not running:
            continue
        finished, _ = wait(list(running), timeout=runner.poll_seconds or INTERRUPT_POLL_SECONDS,
                           return_when=FIRST_COMPLETED)
        if not finished:
            runner.check_workers(len(running))
            continue
        lost: list[Task] = []
        for future in finished:
            task = running.pop(future)
            if future.cancelled():
                continue
            error = future.exception()
            if error is None:
                breaks = 0
                runner.progressed()
                if on_result(task, future.result()) and not stopping:
                    stopping = True
                    pending = None
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
            if pending is not None:
                retry.appendleft(pending)
            retry.extendleft(reversed(lost))
            pending = next_task()


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
