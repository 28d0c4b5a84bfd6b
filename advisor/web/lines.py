"""Where a request's position comes from: a saved position, a game record, an example, a file in the
games folder or a tracked game, then `at` (records) and `events` played on from there.

Every file name is checked against the games folder: a name is a plain ``*.json`` file name, and the
resolved path must lie inside the folder, so ``..``, absolute paths and symlinks out are refused.
"""

from __future__ import annotations

import json
import os
import re
import random
from dataclasses import dataclass
from typing import Any

from advisor.web.config import WebConfig
from advisor.web.errors import ApiError
from positions.kernel.actions import action_from_code, parse_action
from positions.errors import IllegalActionError, MalformedFileError
from positions.examples import example_names, load_example
from positions.kernel.position import Position
from positions.record import FORMAT as GAME_FORMAT
from positions.record import GameRecord, Replay, parse_record, record_to_data, replay, where
from positions.saved import FORMAT as POSITION_FORMAT
from positions.saved import SavedPosition, parse_position, position_to_data, saved_to_data
from positions.files import read_text_file
from positions.validation import did_you_mean, parse_json

SOURCES = ("position", "record", "example", "file", "tracked")
"""The fields that say where a line starts; a request gives exactly one."""
MAX_LINE_EVENTS = 5_000
FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,120}\.json$")
TRACKED_ID = re.compile(r"^[a-z0-9-]{1,64}$")
ANNOTATION_SUFFIX = ".annotation.json"
"""Annotations saved beside their game (advisor/web/annotations.py) are not games."""


@dataclass
class Line:
    """A start (position or record) and the events played since: the position at the end of it."""

    position: Position
    names: tuple[str, ...]
    events: list[str]
    """Events played after the start (for a record: after event `at`)."""
    record: GameRecord | None = None
    at: int | None = None
    title: str = ""
    story: str = ""
    start: SavedPosition | None = None

    def document(self) -> dict[str, object]:
        """The line as a self-contained request body (a position or record document, at, events)."""
        if self.start is not None:
            return {"position": saved_to_data(self.start), "events": list(self.events)}
        assert self.record is not None
        return {"record": record_to_data(self.record), "at": self.at, "events": list(self.events)}


# --- the games folder ------------------------------------------------------------------------------

def game_path(config: WebConfig, name: object) -> str:
    """The path of game file `name` inside the games folder.

    Raises:
        ApiError: 400 for a name that is not a plain ``*.json`` file name or leads outside the
            folder, 404 for a missing file.
    """
    if not isinstance(name, str) or not FILE_NAME.match(name) or ".." in name:
        raise ApiError(400, f"file: {str(name)[:60]!r} is not a game file name (NAME.json, no folders)")
    folder = os.path.realpath(config.games_dir)
    path = os.path.realpath(os.path.join(folder, name))
    if os.path.dirname(path) != folder:
        raise ApiError(400, f"file: {name!r} lies outside the games folder")
    if not os.path.isfile(path):
        raise ApiError(404, f"file: no game file {name!r} in the games folder")
    return path


def read_game_file(config: WebConfig, name: object) -> object:
    """The decoded JSON of a game file in the games folder (size capped).

    Raises:
        ApiError: bad name, missing file, or a file over the cap.
        MalformedFileError: not JSON.
    """
    path = game_path(config, name)
    size = os.path.getsize(path)
    if size > config.max_file_bytes:
        raise ApiError(413, f"file: {name} is {size} bytes, over the {config.max_file_bytes}-byte cap")
    # the shared reader: a regular file only (a FIFO named *.json must not block the server), UTF-8
    return parse_json(read_text_file(path, config.max_file_bytes), str(name))


def list_games(config: WebConfig) -> list[dict[str, object]]:
    """The ``*.json`` game files directly in the games folder (not the annotations saved beside
    them): name, size, modification time."""
    folder = os.path.realpath(config.games_dir)
    if not os.path.isdir(folder):
        return []
    files = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if FILE_NAME.match(entry.name) and not entry.name.endswith(ANNOTATION_SUFFIX) \
                and entry.is_file(follow_symlinks=False):
            stat = entry.stat(follow_symlinks=False)
            files.append({"name": entry.name, "bytes": stat.st_size, "modified": int(stat.st_mtime)})
    return files


# --- reading a line ------------------------------------------------------------------------------------

def _one_source(body: dict[str, Any]) -> str:
    given = [key for key in SOURCES if key in body]
    if len(given) != 1:
        raise ApiError(400, f"give exactly one of {', '.join(SOURCES)} (found {len(given)})")
    return given[0]


def read_start(body: dict[str, Any], config: WebConfig,
               tracked: Any = None) -> tuple[SavedPosition | None, GameRecord | None]:
    """The saved position or the game record a request starts from.

    Raises:
        ApiError: no source or several, a bad file name, an unknown tracked game.
        RefugeError: the document is not a valid position or record.
    """
    source = _one_source(body)
    value = body[source]
    if source == "example":
        if not isinstance(value, str) or value not in example_names():
            raise ApiError(404, f"example: no example named {str(value)[:40]!r}"
                           + (did_you_mean(value, example_names()) if isinstance(value, str) else "")
                           + f" (examples: {', '.join(example_names())})")
        return load_example(value), None
    if source == "tracked":
        if tracked is None:
            raise ApiError(404, "tracked: no tracked games on this server")
        return None, tracked(value).session.record()
    data = read_game_file(config, value) if source == "file" else value
    label = str(value) if source == "file" else source
    if source == "position" or (source == "file" and is_position(data)):
        return parse_position(data, "" if source == "position" else label), None
    if source == "record" and is_position(data):
        raise MalformedFileError("format: found a saved position, expected a game record")
    return None, parse_record(data, "" if source == "record" else label)


def is_position(data: object) -> bool:
    """Whether a decoded document says it is a saved position."""
    return isinstance(data, dict) and data.get("format") == POSITION_FORMAT


def is_record(data: object) -> bool:
    """Whether a decoded document says it is a game record."""
    return isinstance(data, dict) and data.get("format") == GAME_FORMAT


def read_events(value: object) -> list[str]:
    """The ``events`` field: a list of notation strings.

    Raises:
        ApiError: not a list of strings, or too long.
    """
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(e, str) for e in value):
        raise ApiError(422, "events: expected a list of actions in notation, e.g. [\"draw\"]")
    if len(value) > MAX_LINE_EVENTS:
        raise ApiError(413, f"events: {len(value)} events, over the cap of {MAX_LINE_EVENTS}")
    return list(value)


def apply_events(pos: Position, events: list[str]) -> None:
    """Play `events` on `pos` in place, naming the first bad one.

    Raises:
        InvalidActionError, IllegalActionError: an event cannot be read or played (its index named).
    """
    for index, text in enumerate(events):
        action = parse_action(text)
        if action not in pos.legal_actions():
            legal = ", ".join(str(a) for a in pos.legal_actions()[:12])
            raise IllegalActionError(f"events[{index}]: {where(pos)}: {action} is not legal here "
                                     f"(legal: {legal or 'nothing, the game is over'})")
        pos.apply(action)


def read_line(body: object, config: WebConfig, tracked: Any = None) -> Line:
    """The line a request names (see the module doc).

    Raises:
        ApiError: malformed request.
        RefugeError: invalid document or event.
    """
    if not isinstance(body, dict):
        raise ApiError(400, "expected a JSON object")
    saved, record = read_start(body, config, tracked)
    events = read_events(body.get("events"))
    at = body.get("at")
    if saved is not None:
        if at is not None:
            raise ApiError(422, "at: only a game record has events to stop at")
        line = Line(saved.position.copy(), saved.names, events, title=saved.title, story=saved.story,
                    start=saved)
    else:
        assert record is not None
        game = replay(record)
        if at is None:
            at = len(record.events)
        if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= len(record.events):
            raise ApiError(422, f"at: expected an event index 0 to {len(record.events)}")
        line = Line(game.position_at(at).copy(), record.names, events, record, at, record.title,
                    record.story)
    apply_events(line.position, events)
    return line


def replay_of(record: GameRecord) -> Replay:
    """The replayed record (every event checked)."""
    return replay(record)


def sample_outcome(pos: Position, seed: object) -> str:
    """One chance outcome for `pos`, drawn from `seed`.

    Raises:
        ApiError: the next event is not chance, or the seed is not an int.
    """
    if not pos.is_chance():
        raise ApiError(409, "sample: the next event is not chance")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ApiError(422, "sample: expected an integer seed")
    return str(action_from_code(pos.sample_chance(random.Random(seed))))


def seen_by_actor(line: Line) -> dict[str, object]:
    """The line's position as a ``refuge-position/1`` document, as the player to decide sees it."""
    return position_to_data(line.position, line.names, line.title, line.story)


def dumps(data: object) -> str:
    """Compact JSON text."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
