"""Tracked games: `refuge track`'s session over the API (advisor/web/tracker.py)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from advisor.web import present
from advisor.web.lines import replay_of, sample_outcome
from advisor.web.tracker import TrackedGame
from advisor.web.views.base import body_of, off_loop, server
from positions.events import event_options
from positions.record import record_to_data


def tracked_to_data(game: TrackedGame, lines: tuple[str, ...] = ()) -> dict[str, object]:
    """A tracked game: its record so far, the board, the move list and whose events come next
    (every waiting seat of a simultaneous step with its options, in any order)."""
    session = game.session
    record = session.record()
    pos = session.position
    view = present.position_view(pos, record.names)
    for seat in session.held:  # chosen already in this step, hidden until the step is complete
        players = view["players"]
        assert isinstance(players, list)
        players[seat]["choice"] = "hidden"
    expected = [] if pos.is_chance() else [
        {"seat": seat, "options": [str(a) for a in event_options(pos, seat)]}
        for seat in session.expected()]
    return {"id": game.id, "file": game.file, "record": record_to_data(record),
            "moves": present.moves_to_data(replay_of(record), record.names), "view": view,
            "expected": expected, "held": sorted(session.held), "prompt": session.prompt().rstrip(" >"),
            "said": list(lines)}


async def listing(request: Request) -> Response:
    """The tracked games of the folder."""
    return JSONResponse({"games": await off_loop(server(request).tracker.listing)})


async def new(request: Request) -> Response:
    """``{players, route, names?, seed?}`` → 201 and the new game (saved)."""
    body = await body_of(request, ("players", "route", "names", "seed"))
    game = await off_loop(server(request).tracker.new, body)
    return JSONResponse(await off_loop(tracked_to_data, game), status_code=201)


async def get(request: Request) -> Response:
    """One tracked game."""
    game = await off_loop(server(request).tracker.get, request.path_params["id"])
    return JSONResponse(await off_loop(tracked_to_data, game))


def _event(game: TrackedGame, body: dict[str, Any], request: Request) -> dict[str, object]:
    tracker = server(request).tracker
    if "sample" in body:
        action: object = sample_outcome(game.session.position, body["sample"])
    else:
        action = body.get("action")
    outcome = tracker.enter(game, action, body.get("seat"))
    return tracked_to_data(game, outcome.lines)


async def event(request: Request) -> Response:
    """``{action, seat?}`` or ``{sample: seed}`` → the game one event on (saved first)."""
    game = await off_loop(server(request).tracker.get, request.path_params["id"])
    body = await body_of(request, ("action", "seat", "sample"))
    return JSONResponse(await off_loop(_event, game, body, request))


async def undo(request: Request) -> Response:
    """Take back the last entry (saved first)."""
    game = await off_loop(server(request).tracker.get, request.path_params["id"])
    await body_of(request)
    await off_loop(server(request).tracker.undo, game)
    return JSONResponse(await off_loop(tracked_to_data, game))


async def download(request: Request) -> Response:
    """The record as an attachment."""
    game = await off_loop(server(request).tracker.get, request.path_params["id"])
    text = game.session.recorder.to_json()
    return Response(text, media_type="application/json",
                    headers={"content-disposition": f'attachment; filename="{game.file}"'})


