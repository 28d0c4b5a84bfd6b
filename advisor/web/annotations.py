"""Annotations saved beside their game (``NAME.annotation.json``), in `refuge annotate --json`'s
format, so a review opened again shows them at once; and the check that one belongs to a record."""

from __future__ import annotations

import json
import os
from typing import Any

from advisor.web.errors import ApiError
from advisor.web.lines import ANNOTATION_SUFFIX as SUFFIX
from positions.errors import RefugeError
from positions.files import read_text_file, write_in_folder
from positions.record import GameRecord
from positions.validation import parse_json

FORMAT = "refuge-annotation/1"
"""`refuge annotate --json`'s format (advisor/cli/annotate.py ``JSON_FORMAT``; a test keeps them equal)."""
LABELS = ("", "inaccuracy", "mistake", "blunder")
NUMBERS = ("best_win", "loss")


def annotation_name(game_file: str) -> str:
    """The annotation's file name beside game file `game_file` (``g.json`` → ``g.annotation.json``)."""
    return game_file[:-len(".json")] + SUFFIX


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_annotation(data: object, record: GameRecord) -> dict[str, Any]:
    """`data` if it is an annotation of `record` (`refuge annotate --json` or one saved here).

    Raises:
        ApiError: 422 naming the first field that is wrong, or the first decision whose move is not
            the record's (an annotation of another game).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ApiError(422, f"annotation: expected a {FORMAT} document (refuge annotate --json)")
    decisions = data.get("decisions")
    if not isinstance(decisions, list):
        raise ApiError(422, "annotation.decisions: expected a list")
    counted = data.get("record_events")
    if counted is not None and counted != len(record.events):
        raise ApiError(422, f"annotation.record_events: {counted}, but the record has {len(record.events)} "
                       "events (annotated before the game went on)")
    for index, item in enumerate(decisions):
        where = f"annotation.decisions[{index}]"
        if not isinstance(item, dict):
            raise ApiError(422, f"{where}: expected an object")
        event = item.get("event")
        if not isinstance(event, int) or isinstance(event, bool) or not 0 <= event < len(record.events):
            raise ApiError(422, f"{where}.event: expected an event index 0 to {len(record.events) - 1}")
        if item.get("played") != str(record.events[event]):
            raise ApiError(422, f"{where}.played: {str(item.get('played'))[:40]!r}, but the record's event "
                           f"{event} is {str(record.events[event])!r} (an annotation of another game?)")
        player = item.get("player")
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < record.players:
            raise ApiError(422, f"{where}.player: expected a seat 0 to {record.players - 1}")
        if item.get("label") not in LABELS or not isinstance(item.get("best"), str):
            raise ApiError(422, f"{where}: expected a label ({', '.join(map(repr, LABELS))}) and a best move")
        chances = item.get("chances")
        if not isinstance(chances, list) or len(chances) != record.players or not all(map(_number, chances)):
            raise ApiError(422, f"{where}.chances: expected {record.players} win chances")
        if not all(_number(item.get(name)) for name in NUMBERS) or not (
                item.get("played_win") is None or _number(item.get("played_win"))):
            raise ApiError(422, f"{where}: best_win, loss and played_win must be numbers")
    if not isinstance(data.get("players"), list):
        raise ApiError(422, "annotation.players: expected a list (each player's accuracy)")
    return data


def saved_annotation(folder: str, name: str, record: GameRecord, limit: int) -> dict[str, Any] | None:
    """The annotation saved as `name` in `folder` (at most `limit` bytes), if there is one and it
    is of this record."""
    path = os.path.join(folder, name)
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    try:
        return check_annotation(parse_json(read_text_file(path, limit), path), record)
    except (ApiError, RefugeError, ValueError, OSError):  # a stale or damaged file is as good as none
        return None


def save_annotation(folder: str, name: str, document: dict[str, Any]) -> None:
    """Write the annotation to `name` in `folder` (atomically, never through a link).

    Raises:
        FileWriteError: it cannot be written.
    """
    write_in_folder(folder, name, json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def annotation_document(result: dict[str, Any], game: str, seed: int, events: int) -> dict[str, Any]:
    """A finished annotation job's result as `refuge annotate --json` prints it, plus the record's
    event count (an annotation of a game that has gone on since is not shown)."""
    return {"format": FORMAT, "game": game, "seed": seed,
            "iterations_per_decision": result["iterations_per_decision"], "seconds_per_decision": None,
            "decisions": result["annotations"], "players": result["players"], "plot": None,
            "record_events": events}
