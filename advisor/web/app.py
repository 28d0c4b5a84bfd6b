"""The ASGI app: the pages (static files) and the JSON API they use (docs/web.md).

``create_app(WebConfig(...))`` builds it from the route table (:mod:`advisor.web.routes`, views in
:mod:`advisor.web.views`) and the checks every request passes as middleware (:mod:`advisor.web.guard`:
Host, token, Origin, content type; the body cap; security headers); `refuge serve` hands it to
uvicorn and the tests to Starlette's TestClient. Every endpoint is JSON in and out, errors included.
"""

from __future__ import annotations

import contextlib
import logging
from typing import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from advisor.web.config import WebConfig
from advisor.web.errors import BodyLimit, on_api_error, on_http_error, on_refuge_error, on_unexpected, ApiError
from advisor.web.guard import Guard
from advisor.web.insights_view import insights_routes
from advisor.web.jobs import JobManager
from advisor.web.routes import routes
from advisor.web.tracker import Tracker
from advisor.web.views.base import Server
from positions.errors import RefugeError
from positions.files import remove_stray_temporaries
from search.errors import SearchError

LOG = logging.getLogger("refuge.web")
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                 b"base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


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


def create_app(config: WebConfig | None = None) -> Starlette:
    """The web app over `config`'s games folder and caps."""
    config = config or WebConfig()
    parts = Server(config, JobManager(config), Tracker(config))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for name in remove_stray_temporaries(parts.tracker.folder):
            LOG.info("removed a temporary file left by an interrupted save: %s", name)
        await parts.jobs.start()
        try:
            yield
        finally:
            await parts.jobs.close()

    app = Starlette(
        routes=[*routes(), *insights_routes(config)], lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(Guard, config=config),
                    Middleware(BodyLimit, limit=config.max_body_bytes)],
        exception_handlers={ApiError: on_api_error, RefugeError: on_refuge_error,
                            SearchError: on_refuge_error, HTTPException: on_http_error,
                            Exception: on_unexpected})
    app.state.server = parts
    app.state.config, app.state.jobs, app.state.tracker = config, parts.jobs, parts.tracker
    return app
