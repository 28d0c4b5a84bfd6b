"""Reference data: the server's status, the tile catalogue, the examples."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from advisor.web import present
from advisor.web.errors import ApiError
from advisor.web.views.base import server
from positions.errors import did_you_mean
from positions.examples import example_names, load_example
from positions.saved import position_to_data


async def status(request: Request) -> Response:
    """Slots, jobs by state, caps."""
    return JSONResponse(server(request).jobs.status())


async def catalogue(request: Request) -> Response:
    """Tiles, routes, phases, player counts."""
    return JSONResponse(present.catalogue())


async def examples(request: Request) -> Response:
    """Every example's name, title, story and player count."""
    listing = []
    for name in example_names():
        saved = load_example(name)
        listing.append({"name": name, "title": saved.title, "story": saved.story,
                        "players": saved.position.players})
    return JSONResponse(listing)


async def example(request: Request) -> Response:
    """One example as a ``refuge-position/1`` document."""
    name = request.path_params["name"]
    if name not in example_names():
        raise ApiError(404, f"no example named {name[:40]!r}{did_you_mean(name, example_names())}")
    saved = load_example(name)
    return JSONResponse(position_to_data(saved.position, saved.names, saved.title, saved.story))
