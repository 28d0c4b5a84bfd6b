"""Analyses and annotations as jobs: one child process each, one running per core, the rest queued.

A job is ``queued`` until a slot frees, then ``running``; an analysis can be ``paused`` (its process
waits, its slot goes to the next job) and continued (queued again for a slot). It ends ``capped``
(iterations or time), ``done`` (an annotation), ``cancelled`` (asked, its last listener gone, or
idle) or ``failed``. A loop on the server's event loop reads the pipes every few hundredths of a
second, starts queued jobs and cancels idle ones; nothing blocks the server.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, AsyncIterator, Callable

from advisor.web import worker
from advisor.web.config import WebConfig
from advisor.web.errors import ApiError

LOG = logging.getLogger("refuge.web")
ACTIVE = ("queued", "running", "paused")
FINISHED = ("capped", "done", "cancelled", "failed")
TICK = 0.03
DIED = "the job's process ended unexpectedly"
CANCEL_GRACE = 1.0
"""Seconds a cancelled child gets to exit before it is terminated."""


@dataclass
class Job:
    """One analysis or annotation and its latest report."""

    id: str
    kind: str
    target: Callable[..., None]
    args: tuple[Any, ...]
    state: str = "queued"
    reason: str = ""
    error: str = ""
    result: Any = None
    version: int = 0
    resume: bool = False
    """Queued to continue after a pause (the process exists and waits)."""
    pause_wanted: bool = False
    listeners: int = 0
    created: float = field(default_factory=time.monotonic)
    last_seen: float = field(default_factory=time.monotonic)
    ended: float = 0.0
    process: BaseProcess | None = None
    conn: Connection | None = None
    kill_at: float = 0.0
    """When a finished job's process that has not exited gets terminated."""
    terminated: bool = False
    place: int = 0
    paused_at: float = 0.0
    """When it last paused (the paused cap cancels the oldest first)."""

    def touch(self) -> None:
        """Someone asked about this job: it is not idle."""
        self.last_seen = time.monotonic()

    def changed(self) -> None:
        self.version += 1


class JobManager:
    """Every job of the server, the slots they run in and the loop that tends them."""

    def __init__(self, config: WebConfig) -> None:
        self.config = config
        self.jobs: dict[str, Job] = {}
        self.counts: Counter[str] = Counter()
        self.stopping = False
        """Set when the server shuts down: event streams end."""
        self._task: asyncio.Task[None] | None = None
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["advisor.web.worker"])

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start tending jobs (on the server's event loop)."""
        self._task = asyncio.create_task(self._loop())

    async def close(self) -> None:
        """Cancel every job and end every child process."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        for job in self.jobs.values():
            if job.state in ACTIVE:
                self._finish(job, "cancelled", "server stopped")
            self._end_process(job, wait=0.5)

    # --- requests -------------------------------------------------------------------------------

    def submit(self, kind: str, target: Callable[..., None], args: tuple[Any, ...]) -> Job:
        """Queue a job.

        Raises:
            ApiError: 503 when the server already holds its cap of active jobs.
        """
        self._forget_finished()
        active = sum(job.state in ACTIVE for job in self.jobs.values())
        if active >= self.config.max_jobs:
            raise ApiError(503, f"busy: {active} analyses and annotations already queued or running "
                           f"(cap {self.config.max_jobs}); try again later")
        job = Job(f"{kind}-{secrets.token_hex(12)}", kind, target, args)  # unguessable
        self.jobs[job.id] = job
        self._schedule()
        return job

    def get(self, job_id: str, kind: str | None = None) -> Job:
        """The job with this id.

        Raises:
            ApiError: 404 when there is none (of that kind).
        """
        job = self.jobs.get(job_id)
        if job is None or (kind is not None and job.kind != kind):
            raise ApiError(404, f"no {kind or 'job'} {job_id[:40]!r} (finished jobs are kept a while only)")
        job.touch()
        return job

    def pause(self, job: Job) -> None:
        """Ask a running analysis to pause (its slot frees once it has).

        Raises:
            ApiError: 409 when it is not running or cannot pause.
        """
        if job.kind != "analysis" or job.state not in ("running", "queued"):
            raise ApiError(409, f"{job.kind} {job.id} is {job.state}: only a running analysis stops")
        if job.state == "queued" and not job.resume:
            raise ApiError(409, f"analysis {job.id} has not started yet")
        if job.state == "queued":
            job.state, job.resume = "paused", False
            self._paused(job)
        elif self._send(job, "pause"):
            job.pause_wanted = True
        job.changed()

    def resume(self, job: Job) -> None:
        """Queue a paused analysis to continue.

        Raises:
            ApiError: 409 when it is not paused.
        """
        if job.state != "paused":
            raise ApiError(409, f"{job.kind} {job.id} is {job.state}: only a paused analysis continues")
        job.state, job.resume = "queued", True
        job.changed()
        self._schedule()

    def cancel(self, job: Job, reason: str = "asked") -> None:
        """Cancel a job (a finished one stays as it is)."""
        if job.state in ACTIVE:
            self._finish(job, "cancelled", reason)
            self._send(job, "cancel")
            self._schedule()

    async def stream(self, job: Job) -> AsyncIterator[dict[str, object]]:
        """The job's state each time it changes, until it ends; its last listener leaving cancels it."""
        job.listeners += 1
        seen = -1
        try:
            while True:
                if job.version != seen:
                    seen = job.version
                    data = job_to_data(job, self)
                    yield data
                    if data["state"] in FINISHED:  # what was sent: the job may have ended meanwhile
                        return
                if self.stopping:
                    return
                job.touch()
                await asyncio.sleep(TICK)
        finally:
            job.listeners -= 1
            if job.listeners == 0 and job.state in ACTIVE:
                self.cancel(job, "disconnected")

    def status(self) -> dict[str, object]:
        """Slots, jobs by state, lifetime counts and caps."""
        states = Counter(job.state for job in self.jobs.values())
        alive = sum(job.process is not None and job.process.is_alive() for job in self.jobs.values())
        config = self.config
        return {"slots": config.slots, "jobs": dict(states), "processes": alive,
                "finished": dict(self.counts),
                "caps": {"max_iterations": config.max_iterations, "max_seconds": config.max_seconds,
                         "max_annotate_iterations": config.max_annotate_iterations,
                         "max_jobs": config.max_jobs, "idle_seconds": config.idle_seconds,
                         "max_body_bytes": config.max_body_bytes}}

    def queue_position(self, job: Job) -> int | None:
        """1 for the next job to get a slot; ``None`` unless queued."""
        if job.state != "queued":
            return None
        queued = sorted((j for j in self.jobs.values() if j.state == "queued"), key=lambda j: j.created)
        return queued.index(job) + 1

    # --- the loop -------------------------------------------------------------------------------

    async def _loop(self) -> None:
        while True:
            try:
                self.tick()
            except Exception:  # a bug in one tick must not stop every job being tended
                LOG.exception("error while tending jobs (the loop goes on)")
            await asyncio.sleep(TICK)

    def tick(self) -> None:
        """Read every pipe, end finished processes, cancel idle jobs, start queued ones."""
        now = time.monotonic()
        for job in list(self.jobs.values()):
            self._pump(job)
            if job.state in ACTIVE and job.listeners == 0 and now - job.last_seen > self.config.idle_seconds:
                self.cancel(job, "idle")
            if job.process is not None and (job.state in FINISHED or not job.process.is_alive()):
                if not job.process.is_alive():
                    self._pump(job)  # a last message may have come just before the process ended
                    if job.state in ACTIVE:
                        self._finish(job, "failed", "", DIED)
                self._reap(job, now)
        self._schedule()

    def _pump(self, job: Job) -> None:
        conn = job.conn
        if conn is None:
            return
        try:
            while conn.poll():
                self._receive(job, conn.recv())
        except (EOFError, OSError):
            pass

    def _receive(self, job: Job, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if job.state == "cancelled":
            return
        if kind == "update":
            job.result = message["data"]
        elif kind == "paused":
            job.result = message["data"]
            job.pause_wanted = False
            if job.state == "running":
                job.state = "paused"
                self._paused(job)
        elif kind == "final":
            if message["data"] is not None:
                job.result = message["data"]
            reason = message.get("reason", "")
            state = "done" if reason == "done" else "cancelled" if reason == "cancelled" else "capped"
            self._finish(job, state, reason)
        elif kind == "error":
            self._finish(job, "failed", "", str(message.get("message", "error")))
        job.changed()

    def _paused(self, job: Job) -> None:
        """`job` has just paused: beyond the cap of paused analyses (each holds a process), cancel
        the one paused longest ago."""
        job.paused_at = time.monotonic()
        paused = sorted((j for j in self.jobs.values() if j.state == "paused" or
                         (j.state == "queued" and j.resume)), key=lambda j: j.paused_at)
        for old in paused[:max(0, len(paused) - self.config.paused_cap)]:
            self.cancel(old, "too many paused")
            old.error = (f"cancelled: more than {self.config.paused_cap} paused analyses "
                         f"(this one was paused longest ago)")

    def _finish(self, job: Job, state: str, reason: str, error: str = "") -> None:
        job.state, job.reason, job.error = state, reason, error
        job.ended = time.monotonic()
        job.kill_at = job.ended + CANCEL_GRACE
        job.resume = job.pause_wanted = False
        self.counts[state if state != "capped" else f"capped:{reason}"] += 1
        job.changed()

    def _schedule(self) -> None:
        """Give free slots to queued jobs, oldest first."""
        running = sum(job.state == "running" for job in self.jobs.values())
        queued = sorted((j for j in self.jobs.values() if j.state == "queued"), key=lambda j: j.created)
        for job in queued[:max(0, self.config.slots - running)]:
            started = self._send(job, "go") if job.resume else self._launch(job)
            if started:
                job.state, job.resume = "running", False
                job.changed()
        for place, job in enumerate(queued[max(0, self.config.slots - running):], 1):
            if job.place != place:
                job.place = place
                job.changed()  # the queue moved: listeners see their new place

    def _send(self, job: Job, message: str) -> bool:
        """Send `message` to the job's process; a process that has gone (a broken pipe) fails an
        active job instead of raising."""
        if job.conn is None:
            return False
        try:
            job.conn.send(message)
            return True
        except (OSError, ValueError):  # the child exited (or its pipe was closed): it is gone
            if job.state in ACTIVE:
                self._finish(job, "failed", "", DIED)
            return False

    def _launch(self, job: Job) -> bool:
        """Start the job's process; one that cannot start fails the job."""
        parent, child = self._context.Pipe()
        process = self._context.Process(target=job.target, args=(child, *job.args), daemon=True,
                                        name=f"refuge-{job.id}")
        try:
            process.start()
        except OSError as error:
            parent.close()
            self._finish(job, "failed", "", f"cannot start a search process: {error.strerror or error}")
            return False
        finally:
            child.close()
        job.process, job.conn = process, parent
        return True

    def _reap(self, job: Job, now: float) -> None:
        """End a finished job's process without blocking: it gets a grace period to exit by
        itself, then SIGTERM, then SIGKILL; an exited one is joined and its pipe closed."""
        process = job.process
        assert process is not None
        if process.is_alive():
            if now >= job.kill_at:
                process.kill() if job.terminated else process.terminate()
                job.terminated, job.kill_at = True, now + CANCEL_GRACE
            return
        self._end_process(job, wait=0)

    def _end_process(self, job: Job, wait: float) -> None:
        process = job.process
        if process is None:
            return
        if process.is_alive():
            process.terminate()
        process.join(wait)
        if process.is_alive():
            process.kill()
            process.join(wait)
        if job.conn is not None:
            job.conn.close()
        job.process, job.conn = None, None

    def _forget_finished(self) -> None:
        """Drop finished jobs nobody has asked about for a while, and the oldest beyond the cap."""
        now = time.monotonic()
        finished = sorted((j for j in self.jobs.values() if j.state in FINISHED and j.process is None),
                          key=lambda j: j.ended)
        keep = self.config.max_jobs
        for i, job in enumerate(finished):
            if now - job.last_seen > 4 * self.config.idle_seconds or len(finished) - i > keep:
                del self.jobs[job.id]


def job_to_data(job: Job, manager: JobManager) -> dict[str, object]:
    """A job as the API shows it."""
    return {"id": job.id, "kind": job.kind, "state": job.state, "reason": job.reason,
            "error": job.error, "queue_position": manager.queue_position(job),
            "stopping": job.pause_wanted, "result": job.result}


def analysis_job(manager: JobManager, document: dict[str, object], seed: int) -> Job:
    """Queue a live analysis of a line's position."""
    config = manager.config
    return manager.submit("analysis", worker.run_analysis,
                          (document, seed, config.max_iterations, config.max_seconds, config.update_seconds))


def annotation_job(manager: JobManager, record: dict[str, object], iterations: int, seed: int,
                   save_to: tuple[str, str, str] | None = None) -> Job:
    """Queue the annotation of a game record (saved to `save_to`, folder, name and game, when complete)."""
    config = manager.config
    return manager.submit("annotation", worker.run_annotation,
                          (record, iterations, seed, config.max_seconds, config.update_seconds, save_to))
