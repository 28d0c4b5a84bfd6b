"""One loader for both kinds of file: a saved position (``refuge-position/1``) or a game record
(``refuge-game/1``), told apart by their ``format`` field, here only."""

from __future__ import annotations

from positions.files import read_text_file
from positions.record import FORMAT as GAME_FORMAT
from positions.record import GameRecord, parse_record
from positions.saved import FORMAT as POSITION_FORMAT
from positions.saved import SavedPosition, parse_position
from positions.validation import parse_json

Document = SavedPosition | GameRecord
"""What a file holds: a saved position or a game record."""


def is_record(data: object) -> bool:
    """Whether a decoded document says it is a game record."""
    return isinstance(data, dict) and data.get("format") == GAME_FORMAT


def is_position(data: object) -> bool:
    """Whether a decoded document says it is a saved position."""
    return isinstance(data, dict) and data.get("format") == POSITION_FORMAT


def parse_document(data: object, source: str = "") -> Document:
    """A decoded document as a game record if it says it is one, else as a saved position.

    Raises:
        MalformedFileError: not a well-formed position or record (the message names `source`).
        ImpossiblePositionError: a position the rules cannot reach, or an illegal event in a record.
    """
    if is_record(data):
        return parse_record(data, source)
    return parse_position(data, source)


def load_document(path: str) -> Document:
    """The saved position or game record in the file at `path`.

    Raises:
        MalformedFileError: unreadable, not JSON, or not a well-formed position or record.
        ImpossiblePositionError: a position the rules cannot reach, or an illegal event in a record.
    """
    return parse_document(parse_json(read_text_file(path), path), path)
