"""The pages: static HTML files of the package (their scripts and styles are under /static)."""

from __future__ import annotations

from importlib import resources

from typing import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import FileResponse, Response

PAGES = ("board", "editor", "review", "track")
"""The pages besides the index (``/`` serves ``index.html``)."""


def static_dir() -> str:
    """The folder of the pages, scripts and styles."""
    return str(resources.files("advisor.web") / "static")


def page(name: str) -> Callable[[Request], Awaitable[Response]]:
    """A view serving the HTML page `name`."""

    async def serve_page(request: Request) -> Response:
        return FileResponse(f"{static_dir()}/{name}.html", media_type="text/html")

    serve_page.__name__ = f"page_{name}"
    return serve_page
