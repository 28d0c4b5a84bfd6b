"""Analyses and annotations: start one, follow it (server-sent events), pause, continue, cancel."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from advisor.analysis.annotate import DEFAULT_ITERATIONS as ANNOTATE_ITERATIONS
from advisor.web.errors import ApiError
from advisor.web.jobs import Job, analysis_job, annotation_job, job_to_data
from advisor.web.lines import SOURCES, read_start, replay_of
from advisor.web.views.games import annotation_home
from advisor.web.views.base import body_of, int_field, off_loop, seed_of, server
from advisor.web.views.positions import LINE_FIELDS, line_of
from positions.record import record_to_data


async def start_analysis(request: Request) -> Response:
    """A line + ``seed`` → 202 and the queued analysis of its decision."""
    body = await body_of(request, (*LINE_FIELDS, "seed"))
    seed = seed_of(body)
    current = await line_of(request, body)
    if current.position.current_player() < 0:
        what = "the game is over" if current.position.is_terminal() else "the next event is chance"
        raise ApiError(409, f"no decision to analyse: {what}")
    job = analysis_job(server(request).jobs, current.document(), seed)
    return JSONResponse(job_to_data(job, server(request).jobs), status_code=202)


def _record_of(body: dict[str, Any], request: Request) -> dict[str, object]:
    parts = server(request)
    saved, record = read_start({k: v for k, v in body.items() if k not in ("iterations", "seed")},
                               parts.config, parts.tracker.get)
    if record is None:
        raise ApiError(422, "record: a saved position cannot be annotated, give a game record")
    replay_of(record)
    return record_to_data(record)


async def start_annotation(request: Request) -> Response:
    """``{record | file | tracked, iterations?, seed?}`` → 202 and the queued annotation."""
    body = await body_of(request, (*SOURCES, "iterations", "seed"))
    cap = server(request).config.max_annotate_iterations
    iterations = int_field(body, "iterations", min(ANNOTATE_ITERATIONS, cap), 1, cap)
    seed = seed_of(body)
    record = await off_loop(_record_of, body, request)
    home = await off_loop(annotation_home, body, server(request))
    job = annotation_job(server(request).jobs, record, iterations, seed, home)
    return JSONResponse(job_to_data(job, server(request).jobs), status_code=202)


class JobViews:
    """The views of one kind of job (``analysis`` or ``annotation``) by id."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def _job(self, request: Request) -> Job:
        return server(request).jobs.get(request.path_params["id"], self.kind)

    def _answer(self, request: Request, job: Job) -> Response:
        return JSONResponse(job_to_data(job, server(request).jobs))

    async def get(self, request: Request) -> Response:
        """The job and its latest report."""
        return self._answer(request, self._job(request))

    async def events(self, request: Request) -> Response:
        """Server-sent events, one per change, until the job ends."""
        job, jobs = self._job(request), server(request).jobs

        async def stream() -> AsyncIterator[str]:
            async for data in jobs.stream(job):
                yield f"event: {data['state']}\ndata: {json.dumps(data)}\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    async def stop(self, request: Request) -> Response:
        """Pause an analysis (cancel an annotation)."""
        job, jobs = self._job(request), server(request).jobs
        await body_of(request)
        jobs.pause(job) if self.kind == "analysis" else jobs.cancel(job)
        return self._answer(request, job)

    async def resume(self, request: Request) -> Response:
        """Continue a paused analysis."""
        job = self._job(request)
        await body_of(request)
        server(request).jobs.resume(job)
        return self._answer(request, job)

    async def cancel(self, request: Request) -> Response:
        """Cancel the job."""
        job = self._job(request)
        server(request).jobs.cancel(job)
        return self._answer(request, job)
