"""`/insights`: the report shipped with refuge or of a corpus database in the games folder
(docs/insights.md), as a page and as the JSON ``refuge insights report --json`` prints."""

from __future__ import annotations

import os
import re
from importlib import resources

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from advisor.insights.report import build_report
from advisor.insights.summary import published_path, read_summary
from advisor.web.config import WebConfig
from advisor.web.errors import ApiError

CORPUS_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,120}\.(sqlite|sqlite3|db)$")
"""A corpus file's name: directly in the games folder, never a path."""
PUBLISHED = "published"
"""The shipped summary's name in the list (no corpus file can have it: those end in .sqlite or .db)."""
CACHE_SIZE = 8
"""Reports kept, by file name, size and modification time (a corpus grows while it runs)."""


def insights_routes(config: WebConfig) -> list[Route]:
    """The page, the list of corpus files in the games folder, and one file's report."""
    folder = os.path.realpath(config.games_dir)
    cache: dict[tuple[str, int, int], dict[str, object]] = {}

    def corpus_files() -> list[dict[str, object]]:
        shipped = published_path()
        listed: list[dict[str, object]] = [] if shipped is None else [
            {"name": PUBLISHED, "bytes": os.path.getsize(shipped), "published": True}]
        if not os.path.isdir(folder):
            return listed
        return listed + [{"name": e.name, "bytes": e.stat(follow_symlinks=False).st_size}
                         for e in sorted(os.scandir(folder), key=lambda e: e.name)
                         if CORPUS_NAME.match(e.name) and e.is_file(follow_symlinks=False)]

    async def page(request: Request) -> Response:
        return FileResponse(str(resources.files("advisor.web") / "static" / "insights.html"),
                            media_type="text/html")

    async def files(request: Request) -> Response:
        return JSONResponse({"files": corpus_files()})

    async def report(request: Request) -> Response:
        name = request.path_params["name"]
        shipped = published_path()
        if name == PUBLISHED and shipped is not None:
            return JSONResponse({"name": "the summary shipped with refuge", **read_summary(shipped)})
        path = os.path.join(folder, name)
        if not CORPUS_NAME.match(name) or not os.path.isfile(path) or os.path.islink(path):
            raise ApiError(404, f"{name}: no corpus file of that name in the games folder")
        stat = os.stat(path)
        key = (name, stat.st_size, int(stat.st_mtime_ns))
        if key not in cache:
            if len(cache) >= CACHE_SIZE:
                cache.clear()
            cache[key] = await run_in_threadpool(build_report, path)
        return JSONResponse({"name": name, **cache[key]})

    return [Route("/insights", page), Route("/api/insights", files), Route("/api/insights/{name}", report)]
