"""The ASGI app: the pages (static files) and the JSON API they use (docs/web.md).

``create_app(WebConfig(...))`` builds it; `refuge serve` hands it to uvicorn and the tests to
Starlette's TestClient. Every endpoint is JSON in and out, errors included.
"""

from __future__ import annotations

import contextlib
import json
from importlib import resources
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from advisor.analysis.annotate import DEFAULT_ITERATIONS as ANNOTATE_ITERATIONS
from advisor.web import views
from advisor.web.config import WebConfig
from advisor.web.errors import (
    ApiError, BodyLimit, on_api_error, on_http_error, on_refuge_error, on_unexpected, problems_of,
)
from advisor.web.jobs import JobManager, analysis_job, annotation_job, job_to_data
from advisor.web.lines import (
    Line, is_record, list_games, read_game_file, read_line, read_start, replay_of, sample_outcome,
    seen_by_actor,
)
from advisor.web.tracker import TrackedGame, Tracker
from positions.errors import MalformedFileError, RefugeError
from positions.examples import example_names, load_example
from positions.position import Position
from positions.record import record_to_data
from positions.routes import ROUTES
from positions.saved import position_to_data
from positions.validation import did_you_mean, parse_json
from search.errors import SearchError

PAGES = ("board", "editor", "review", "track")
PLURALS = {"analysis": "analyses", "annotation": "annotations"}
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                 b"base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def _static_dir() -> str:
    return str(resources.files("advisor.web") / "static")


class SecurityHeaders:
    """ASGI middleware: a strict content security policy (scripts from this server only) on every
    response, so that nothing read from a file can run as code in the page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object.

    Raises:
        ApiError: 400 when the body is not a JSON object.
    """
    raw = await request.body()
    try:  # the shared JSON reader: depth guard, each key once
        data = parse_json((raw or b"{}").decode("utf-8"), "body")
    except UnicodeDecodeError:
        raise ApiError(400, "body: not UTF-8") from None
    except MalformedFileError as error:
        raise ApiError(400, " ".join(str(error).split())[:200]) from None
    if not isinstance(data, dict):
        raise ApiError(400, "body: expected a JSON object")
    return data


def _seed(body: dict[str, Any]) -> int:
    seed = body.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ApiError(400, "seed: expected a non-negative integer")
    return seed


def line_to_data(line: Line) -> dict[str, object]:
    """A line's end as the board shows it."""
    return {"view": views.position_view(line.position, line.names), "events": line.events,
            "at": line.at, "names": list(line.names), "title": line.title, "story": line.story}


def tracked_to_data(game: TrackedGame) -> dict[str, object]:
    """A tracked game: its record so far, the board and the move list."""
    record = game.recorder.record()
    return {"id": game.id, "file": game.file, "record": record_to_data(record),
            "moves": views.moves_to_data(replay_of(record), record.names),
            "view": views.position_view(game.recorder.position, record.names)}


def create_app(config: WebConfig | None = None) -> Starlette:
    """The web app over `config`'s games folder and caps."""
    config = config or WebConfig()
    jobs = JobManager(config)
    tracker = Tracker(config)

    def line(body: dict[str, Any]) -> Line:
        return read_line(body, config, tracker.get)

    # --- pages ---------------------------------------------------------------------------------

    def page(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            return FileResponse(f"{_static_dir()}/{name}.html", media_type="text/html")
        return endpoint

    # --- reference data ------------------------------------------------------------------------

    async def status(request: Request) -> Response:
        return JSONResponse(jobs.status())

    async def catalogue(request: Request) -> Response:
        return JSONResponse(views.catalogue())

    async def examples(request: Request) -> Response:
        listing = []
        for name in example_names():
            saved = load_example(name)
            listing.append({"name": name, "title": saved.title, "story": saved.story,
                            "players": saved.position.players})
        return JSONResponse(listing)

    async def example(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in example_names():
            raise ApiError(404, f"no example named {name[:40]!r}{did_you_mean(name, example_names())}")
        saved = load_example(name)
        return JSONResponse(position_to_data(saved.position, saved.names, saved.title, saved.story))

    # --- positions -----------------------------------------------------------------------------

    async def new_position(request: Request) -> Response:
        body = await body_of(request)
        players, route = body.get("players", 2), body.get("route", "meadows")
        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
            raise ApiError(400, "players: expected 2, 3 or 4")
        if route not in ROUTES:
            raise ApiError(400, f"route: expected one of {', '.join(ROUTES)}")
        return JSONResponse(position_to_data(Position.new_game(players, str(route))))

    async def validate(request: Request) -> Response:
        body = await body_of(request)
        if "position" not in body and "record" not in body:
            raise ApiError(400, "give a position or a record to validate")
        fmt = "refuge-game/1" if "record" in body or is_record(body.get("position")) else "refuge-position/1"
        try:
            saved, record = read_start(body, config)
            if record is not None:
                replay_of(record)
        except RefugeError as error:
            return JSONResponse({"valid": False, "format": fmt, "problems": problems_of(error)})
        return JSONResponse({"valid": True, "format": fmt, "problems": []})

    async def view(request: Request) -> Response:
        return JSONResponse(line_to_data(line(await body_of(request))))

    async def apply(request: Request) -> Response:
        body = await body_of(request)
        current = line(body)
        if "sample" in body:
            action = sample_outcome(current.position, body["sample"])
        elif isinstance(body.get("action"), str):
            action = body["action"]
        else:
            raise ApiError(400, "give an action (notation) or sample (a seed for a chance outcome)")
        return JSONResponse(line_to_data(line(dict(body, events=current.events + [action]))))

    async def export(request: Request) -> Response:
        return JSONResponse(seen_by_actor(line(await body_of(request))))

    # --- games ---------------------------------------------------------------------------------

    async def games(request: Request) -> Response:
        return JSONResponse({"files": list_games(config)})

    async def game_file(request: Request) -> Response:
        return JSONResponse(read_game_file(config, request.path_params["name"]))

    async def review(request: Request) -> Response:
        body = await body_of(request)
        saved, record = read_start(body, config, tracker.get)
        if record is None:
            raise ApiError(422, "a saved position has no moves to review: give a game record")
        game = replay_of(record)
        return JSONResponse({"record": record_to_data(record), "names": list(record.names),
                             "players": record.players, "moves": views.moves_to_data(game, record.names),
                             "over": game.final.is_terminal(),
                             "scores": game.final.scores() if game.final.is_terminal() else None})

    # --- jobs ----------------------------------------------------------------------------------

    async def start_analysis(request: Request) -> Response:
        body = await body_of(request)
        current = line(body)
        if current.position.current_player() < 0:
            what = "the game is over" if current.position.is_terminal() else "the next event is chance"
            raise ApiError(409, f"no decision to analyse: {what}")
        job = analysis_job(jobs, current.document(), _seed(body))
        return JSONResponse(job_to_data(job, jobs), status_code=202)

    async def start_annotation(request: Request) -> Response:
        body = await body_of(request)
        iterations = body.get("iterations", min(ANNOTATE_ITERATIONS, config.max_annotate_iterations))
        if not isinstance(iterations, int) or isinstance(iterations, bool) or \
                not 1 <= iterations <= config.max_annotate_iterations:
            raise ApiError(400, f"iterations: expected 1 to {config.max_annotate_iterations} per decision")
        saved, record = read_start({k: v for k, v in body.items() if k not in ("iterations", "seed")},
                                   config, tracker.get)
        if record is None:
            raise ApiError(422, "a saved position cannot be annotated: give a game record")
        replay_of(record)
        job = annotation_job(jobs, record_to_data(record), iterations, _seed(body))
        return JSONResponse(job_to_data(job, jobs), status_code=202)

    def job_endpoints(kind: str) -> list[Route]:
        async def get(request: Request) -> Response:
            return JSONResponse(job_to_data(jobs.get(request.path_params["id"], kind), jobs))

        async def events(request: Request) -> Response:
            job = jobs.get(request.path_params["id"], kind)

            async def stream() -> AsyncIterator[str]:
                async for data in jobs.stream(job):
                    yield f"event: {data['state']}\ndata: {json.dumps(data)}\n\n"

            return StreamingResponse(stream(), media_type="text/event-stream",
                                     headers={"cache-control": "no-store"})

        async def stop(request: Request) -> Response:
            job = jobs.get(request.path_params["id"], kind)
            jobs.pause(job) if kind == "analysis" else jobs.cancel(job)
            return JSONResponse(job_to_data(job, jobs))

        async def resume(request: Request) -> Response:
            job = jobs.get(request.path_params["id"], kind)
            jobs.resume(job)
            return JSONResponse(job_to_data(job, jobs))

        async def cancel(request: Request) -> Response:
            job = jobs.get(request.path_params["id"], kind)
            jobs.cancel(job)
            return JSONResponse(job_to_data(job, jobs))

        base = f"/api/{PLURALS[kind]}/{{id}}"
        return [Route(base, get), Route(base, cancel, methods=["DELETE"]),
                Route(f"{base}/events", events), Route(f"{base}/stop", stop, methods=["POST"]),
                Route(f"{base}/continue", resume, methods=["POST"])]

    # --- tracked games -------------------------------------------------------------------------

    async def tracked_list(request: Request) -> Response:
        return JSONResponse({"games": tracker.listing()})

    async def tracked_new(request: Request) -> Response:
        return JSONResponse(tracked_to_data(tracker.new(await body_of(request))), status_code=201)

    async def tracked_get(request: Request) -> Response:
        return JSONResponse(tracked_to_data(tracker.get(request.path_params["id"])))

    async def tracked_event(request: Request) -> Response:
        game = tracker.get(request.path_params["id"])
        body = await body_of(request)
        if "sample" in body:
            tracker.apply(game, sample_outcome(game.recorder.position, body["sample"]))
        else:
            tracker.apply(game, body.get("action"))
        return JSONResponse(tracked_to_data(game))

    async def tracked_undo(request: Request) -> Response:
        game = tracker.get(request.path_params["id"])
        tracker.undo(game)
        return JSONResponse(tracked_to_data(game))

    async def tracked_download(request: Request) -> Response:
        game = tracker.get(request.path_params["id"])
        return Response(game.recorder.to_json(), media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="{game.file}"'})

    routes = [
        Route("/", page("index")),
        *[Route(f"/{name}", page(name)) for name in PAGES],
        Mount("/static", StaticFiles(directory=_static_dir()), name="static"),
        Route("/api/status", status),
        Route("/api/catalogue", catalogue),
        Route("/api/examples", examples),
        Route("/api/examples/{name}", example),
        Route("/api/new", new_position, methods=["POST"]),
        Route("/api/validate", validate, methods=["POST"]),
        Route("/api/view", view, methods=["POST"]),
        Route("/api/apply", apply, methods=["POST"]),
        Route("/api/export", export, methods=["POST"]),
        Route("/api/games", games),
        Route("/api/games/{name}", game_file),
        Route("/api/review", review, methods=["POST"]),
        Route("/api/analyses", start_analysis, methods=["POST"]),
        Route("/api/annotations", start_annotation, methods=["POST"]),
        *job_endpoints("analysis"), *job_endpoints("annotation"),
        Route("/api/tracked", tracked_list),
        Route("/api/tracked", tracked_new, methods=["POST"]),
        Route("/api/tracked/{id}", tracked_get),
        Route("/api/tracked/{id}/events", tracked_event, methods=["POST"]),
        Route("/api/tracked/{id}/undo", tracked_undo, methods=["POST"]),
        Route("/api/tracked/{id}/download", tracked_download),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await jobs.start()
        try:
            yield
        finally:
            await jobs.close()

    app = Starlette(
        routes=routes, lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(BodyLimit, limit=config.max_body_bytes)],
        exception_handlers={ApiError: on_api_error, RefugeError: on_refuge_error,
                            SearchError: on_refuge_error, HTTPException: on_http_error,
                            Exception: on_unexpected})
    app.state.config = config
    app.state.jobs = jobs
    app.state.tracker = tracker
    return app
