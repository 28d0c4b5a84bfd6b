"""The games folder: its files, one file's document, a record's review."""

from __future__ import annotations

import os
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from advisor.web import present
from advisor.web.annotations import annotation_name, check_annotation, save_annotation, saved_annotation
from advisor.web.errors import ApiError
from advisor.web.lines import SOURCES, list_games, read_game_file, read_start, replay_of
from advisor.web.views.base import Server, body_of, off_loop, server
from positions.files import FileWriteError
from positions.record import GameRecord, record_to_data


async def games(request: Request) -> Response:
    """The ``*.json`` files of the folder."""
    return JSONResponse({"files": await off_loop(list_games, server(request).config)})


async def game_file(request: Request) -> Response:
    """One file's document."""
    return JSONResponse(await off_loop(read_game_file, server(request).config, request.path_params["name"]))


def annotation_home(body: dict[str, Any], parts: Server) -> tuple[str, str, str] | None:
    """Where the annotation of the game a body names is saved: (folder, file name, the game's file),
    beside a file or a tracked game; ``None`` for an uploaded record."""
    if isinstance(body.get("file"), str):
        return os.path.realpath(parts.config.games_dir), annotation_name(body["file"]), body["file"]
    if "tracked" in body:
        game = parts.tracker.get(body["tracked"])
        return parts.tracker.folder, annotation_name(game.file), game.file
    return None


def _annotation(body: dict[str, Any], parts: Server, record: GameRecord) -> tuple[dict[str, Any] | None, str]:
    """The annotation given (checked, then saved beside the game) or the one saved before; and the
    file it is saved in ("" when none), or why saving failed."""
    home = annotation_home(body, parts)
    if body.get("annotation") is None:
        if home is None:
            return None, ""
        found = saved_annotation(home[0], home[1], record, parts.config.max_file_bytes)
        return found, home[1] if found is not None else ""
    document = check_annotation(body["annotation"], record)
    if home is None:
        return document, ""
    try:
        save_annotation(home[0], home[1], document)
    except FileWriteError as error:
        return document, f"not saved: {error}"
    return document, home[1]


def _review(body: dict[str, Any], request: Request) -> dict[str, object]:
    parts = server(request)
    saved, record = read_start({k: v for k, v in body.items() if k != "annotation"}, parts.config,
                               parts.tracker.get)
    if record is None:
        raise ApiError(422, "record: a saved position has no moves to review, give a game record")
    game = replay_of(record)
    over = game.final.is_terminal()
    annotation, annotation_file = _annotation(body, parts, record)
    return {"record": record_to_data(record), "names": list(record.names), "players": record.players,
            "moves": present.moves_to_data(game, record.names), "over": over,
            "scores": game.final.scores() if over else None,
            "annotation": annotation, "annotation_file": annotation_file}


async def review(request: Request) -> Response:
    """``{record | file | tracked, annotation?}`` → the record, its move list and its annotation
    (the one given, saved beside the game, or the one saved there before)."""
    return JSONResponse(await off_loop(_review, await body_of(request, (*SOURCES, "annotation")), request))
