"""Positions: a new game, validation, a line's board, a move played on it, its export."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from advisor.web import present
from advisor.web.errors import ApiError, problem_count, problems_of
from advisor.web.lines import SOURCES, Line, is_record, read_line, read_start, replay_of, sample_outcome, seen_by_actor
from advisor.web.views.base import body_of, choice_field, int_field, off_loop, server
from positions.errors import RefugeError
from positions.kernel.position import Position
from positions.record import FORMAT as GAME_FORMAT
from positions.kernel.routes import ROUTES
from positions.kernel.rulesets import DEFAULT_RULESET
from positions.saved import FORMAT as POSITION_FORMAT
from positions.saved import position_to_data

DEFAULT_ROUTE = next(iter(ROUTES))
LINE_FIELDS = (*SOURCES, "at", "events")
"""The fields of a line (docs/web.md "Where a position comes from")."""


def line_to_data(line: Line) -> dict[str, object]:
    """A line's end as the board shows it."""
    return {"view": present.position_view(line.position, line.names), "events": line.events,
            "at": line.at, "names": list(line.names), "title": line.title, "story": line.story}


async def new_position(request: Request) -> Response:
    """``{players, route}`` → the ``refuge-position/1`` document of a new game."""
    body = await body_of(request, ("players", "route"))
    counts = DEFAULT_RULESET.player_counts
    players = int_field(body, "players", counts[0], min(counts), max(counts))
    route = choice_field(body, "route", DEFAULT_ROUTE, ROUTES)
    return JSONResponse(position_to_data(Position.new_game(players, route)))


def _validate(body: dict[str, Any], request: Request) -> dict[str, object]:
    fmt = GAME_FORMAT if "record" in body or is_record(body.get("position")) else POSITION_FORMAT
    try:
        saved, record = read_start(body, server(request).config)
        if record is not None:
            replay_of(record)
    except RefugeError as error:
        return {"valid": False, "format": fmt, "problems": problems_of(error),
                "problem_count": problem_count(error)}
    return {"valid": True, "format": fmt, "problems": [], "problem_count": 0}


async def validate(request: Request) -> Response:
    """``{position}`` or ``{record}`` → ``{valid, format, problems, problem_count}`` (200)."""
    body = await body_of(request, ("position", "record"))
    if "position" not in body and "record" not in body:
        raise ApiError(422, "position: give a position or a record to validate")
    return JSONResponse(await off_loop(_validate, body, request))


def _line(body: dict[str, Any], request: Request) -> Line:
    parts = server(request)
    return read_line(body, parts.config, parts.tracker.get)


async def line_of(request: Request, body: dict[str, Any] | None = None) -> Line:
    """The line a request's body names, read off the event loop."""
    return await off_loop(_line, await body_of(request, LINE_FIELDS) if body is None else body, request)


async def view(request: Request) -> Response:
    """A line → its board."""
    return JSONResponse(line_to_data(await line_of(request)))


def _apply(body: dict[str, Any], request: Request) -> dict[str, object]:
    current = _line(body, request)
    if "sample" in body:
        action = sample_outcome(current.position, body["sample"])
    elif isinstance(body.get("action"), str):
        action = body["action"]
    else:
        raise ApiError(422, "action: give an action (notation) or sample (a seed for a chance outcome)")
    return line_to_data(_line(dict(body, events=current.events + [action]), request))


async def apply(request: Request) -> Response:
    """A line and an action (or a sample seed) → the board one event on."""
    body = await body_of(request, (*LINE_FIELDS, "action", "sample"))
    return JSONResponse(await off_loop(_apply, body, request))


async def export(request: Request) -> Response:
    """A line → its position as ``refuge-position/1``, as the player to decide sees it."""
    return JSONResponse(seen_by_actor(await line_of(request)))
