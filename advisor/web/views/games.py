"""The games folder: its files, one file's document, a record's review."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from advisor.web import present
from advisor.web.errors import ApiError
from advisor.web.lines import SOURCES, list_games, read_game_file, read_start, replay_of
from advisor.web.views.base import body_of, off_loop, server
from positions.record import record_to_data


async def games(request: Request) -> Response:
    """The ``*.json`` files of the folder."""
    return JSONResponse({"files": await off_loop(list_games, server(request).config)})


async def game_file(request: Request) -> Response:
    """One file's document."""
    return JSONResponse(await off_loop(read_game_file, server(request).config, request.path_params["name"]))


def _review(body: dict[str, Any], request: Request) -> dict[str, object]:
    parts = server(request)
    saved, record = read_start(body, parts.config, parts.tracker.get)
    if record is None:
        raise ApiError(422, "record: a saved position has no moves to review, give a game record")
    game = replay_of(record)
    over = game.final.is_terminal()
    return {"record": record_to_data(record), "names": list(record.names), "players": record.players,
            "moves": present.moves_to_data(game, record.names), "over": over,
            "scores": game.final.scores() if over else None}


async def review(request: Request) -> Response:
    """``{record | file | tracked}`` → the record and its move list."""
    return JSONResponse(await off_loop(_review, await body_of(request, SOURCES), request))
