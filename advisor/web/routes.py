"""The route table: every path of the server and the view that answers it (docs/web.md)."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from advisor.web.views import games, positions, reference, tracked
from advisor.web.views.jobs import JobViews, start_analysis, start_annotation
from advisor.web.views.pages import PAGES, page, static_dir

JOB_KINDS = {"analysis": "analyses", "annotation": "annotations"}
"""Each kind of job and its path."""


def _job_routes(kind: str) -> list[BaseRoute]:
    views, base = JobViews(kind), f"/api/{JOB_KINDS[kind]}/{{id}}"
    return [Route(base, views.get), Route(base, views.cancel, methods=["DELETE"]),
            Route(f"{base}/events", views.events), Route(f"{base}/stop", views.stop, methods=["POST"]),
            Route(f"{base}/continue", views.resume, methods=["POST"])]


def routes() -> list[BaseRoute]:
    """The route table."""
    return [
        Route("/", page("index")),
        *[Route(f"/{name}", page(name)) for name in PAGES],
        Mount("/static", StaticFiles(directory=static_dir()), name="static"),
        Route("/api/status", reference.status),
        Route("/api/catalogue", reference.catalogue),
        Route("/api/examples", reference.examples),
        Route("/api/examples/{name}", reference.example),
        Route("/api/new", positions.new_position, methods=["POST"]),
        Route("/api/validate", positions.validate, methods=["POST"]),
        Route("/api/view", positions.view, methods=["POST"]),
        Route("/api/apply", positions.apply, methods=["POST"]),
        Route("/api/export", positions.export, methods=["POST"]),
        Route("/api/games", games.games),
        Route("/api/games/{name}", games.game_file),
        Route("/api/review", games.review, methods=["POST"]),
        Route("/api/analyses", start_analysis, methods=["POST"]),
        Route("/api/annotations", start_annotation, methods=["POST"]),
        *_job_routes("analysis"), *_job_routes("annotation"),
        Route("/api/tracked", tracked.listing),
        Route("/api/tracked", tracked.new, methods=["POST"]),
        Route("/api/tracked/{id}", tracked.get),
        Route("/api/tracked/{id}/events", tracked.event, methods=["POST"]),
        Route("/api/tracked/{id}/undo", tracked.undo, methods=["POST"]),
        Route("/api/tracked/{id}/download", tracked.download),
    ]
