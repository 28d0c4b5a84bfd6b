"""Errors as JSON with a message (never a stack trace), and the request body cap."""

from __future__ import annotations

import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from positions.errors import RefugeError
from search.errors import SearchError

LOG = logging.getLogger("refuge.web")
MAX_MESSAGE = 300
"""Characters of a message (or of input it quotes) in an answer; the rest is cut."""
MAX_PROBLEMS = 50
"""Problems listed in an answer; ``problem_count`` says how many there were."""


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` cut to `limit` characters (with "…" when cut)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


class ApiError(Exception):
    """A request the server refuses: an HTTP status and a one-line message (plus details)."""

    def __init__(self, status: int, message: str, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = details


def problems_of(error: RefugeError, limit: int = MAX_PROBLEMS) -> list[dict[str, str]]:
    """The reader's first `limit` lines (``JSONPATH: message``, as `refuge validate` prints them) as
    path and message, each cut short."""
    problems = []
    for line in str(error).splitlines()[:limit]:
        path, sep, message = line.partition(": ")
        if not sep or " " in path:
            path, message = "", line
        problems.append({"path": clip(path, 120), "message": clip(message)})
    return problems


def problem_count(error: RefugeError) -> int:
    """How many problems an error reports (the reader counts those it did not word)."""
    counted = getattr(error, "problem_count", None)
    return counted if isinstance(counted, int) else max(1, str(error).count("\n") + 1)


def error_response(status: int, message: str, **details: Any) -> JSONResponse:
    """``{"error": message, ...}`` with `status`."""
    return JSONResponse({"error": message, **details}, status_code=status)


async def on_api_error(request: Request, error: Exception) -> Response:
    """An :class:`ApiError` as JSON."""
    assert isinstance(error, ApiError)
    return error_response(error.status, clip(error.message), **error.details)


async def on_refuge_error(request: Request, error: Exception) -> Response:
    """Bad input met by the game library (a position, record or action): 422 with every problem."""
    assert isinstance(error, (RefugeError, SearchError))
    problems = problems_of(error) if isinstance(error, RefugeError) else []
    count = problem_count(error) if isinstance(error, RefugeError) else 0
    text = str(error)
    first = clip(text[:MAX_MESSAGE * 2].splitlines()[0]) if text else type(error).__name__
    return error_response(422, first, problems=problems, problem_count=count)


async def on_http_error(request: Request, error: Exception) -> Response:
    """Starlette's own errors (404, 405): JSON under /api, plain text elsewhere."""
    assert isinstance(error, HTTPException)
    if request.url.path.startswith("/api"):
        return error_response(error.status_code, str(error.detail))
    return PlainTextResponse(f"{error.status_code} {error.detail}", status_code=error.status_code)


async def on_unexpected(request: Request, error: Exception) -> Response:
    """A bug: logged here with its traceback, reported to the client as one line."""
    LOG.error("internal error on %s %s", request.method, request.url.path, exc_info=error)
    return error_response(500, "internal error (the server log has the details)")


class BodyLimit:
    """ASGI middleware: a request body longer than `limit` bytes gets 413, read no further."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await self._refuse(scope, receive, send)
                return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise ApiError(413, f"request body over {self.limit} bytes")
            return message

        await self.app(scope, counted, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(413, f"request body over {self.limit} bytes")
        await response(scope, receive, send)
