"""Following a game at the table: a game record built event by event, saved after every event.

Each tracked game is a ``refuge-game/1`` file ``tracked-ID.json`` in the games folder, rewritten
atomically after every event and undo (:class:`positions.record.GameRecorder`), so a restarted
server picks it up again from the file.
"""

from __future__ import annotations

import itertools
import os
import threading
import time

from advisor.web.config import WebConfig
from advisor.web.errors import ApiError
from advisor.web.lines import TRACKED_ID, game_path, list_games, read_game_file
from positions.actions import parse_action
from positions.record import GameRecorder, parse_record
from positions.routes import ROUTES
from positions.rulesets import DEFAULT_RULESET

PREFIX = "tracked-"
MAX_NAME = 40


class TrackedGame:
    """One game being followed: its id, file and recorder."""

    def __init__(self, game_id: str, path: str, recorder: GameRecorder) -> None:
        self.id = game_id
        self.path = path
        self.recorder = recorder
        self.lock = threading.Lock()

    @property
    def file(self) -> str:
        """The file name in the games folder."""
        return os.path.basename(self.path)

    def save(self) -> None:
        """Rewrite the file (atomically).

        Raises:
            ApiError: 500 when the file cannot be written.
        """
        try:
            self.recorder.write(self.path)
        except OSError as error:
            raise ApiError(500, f"cannot save {self.file}: {error.strerror or error}") from None


class Tracker:
    """The tracked games of this server's games folder."""

    def __init__(self, config: WebConfig) -> None:
        self.config = config
        self.games: dict[str, TrackedGame] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def new(self, body: dict[str, object]) -> TrackedGame:
        """Start a game from ``{players, route, names?, seed?}`` and save it.

        Raises:
            ApiError: a bad field.
        """
        players = body.get("players", 2)
        if not isinstance(players, int) or isinstance(players, bool) or \
                players not in DEFAULT_RULESET.player_counts:
            raise ApiError(400, f"players: expected one of {list(DEFAULT_RULESET.player_counts)}")
        route = body.get("route", "meadows")
        if route not in ROUTES:
            raise ApiError(400, f"route: expected one of {', '.join(ROUTES)}")
        names = body.get("names", [])
        if not isinstance(names, list) or len(names) not in (0, players) or not all(
                isinstance(n, str) and len(n) <= MAX_NAME for n in names):
            raise ApiError(400, f"names: expected {players} names of at most {MAX_NAME} characters")
        seed = body.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise ApiError(400, "seed: expected a non-negative integer")
        recorder = GameRecorder.new(players, str(route), tuple(str(n) for n in names), seed)
        with self._lock:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            game_id = f"{stamp}-{next(self._ids)}"
            while os.path.exists(self._path(game_id)):
                game_id = f"{stamp}-{next(self._ids)}"
        if not os.path.isdir(self.config.games_dir):
            raise ApiError(500, "the games folder does not exist: start the server with --games DIR")
        game = TrackedGame(game_id, self._path(game_id), recorder)
        game.save()
        self.games[game_id] = game
        return game

    def _path(self, game_id: str) -> str:
        return os.path.join(os.path.realpath(self.config.games_dir), f"{PREFIX}{game_id}.json")

    def get(self, game_id: object) -> TrackedGame:
        """A tracked game by id, from memory or from its file.

        Raises:
            ApiError: a bad id or no such game.
            RefugeError: its file is no longer a valid record.
        """
        if not isinstance(game_id, str) or not TRACKED_ID.match(game_id):
            raise ApiError(400, f"tracked: {str(game_id)[:40]!r} is not a tracked game id")
        game = self.games.get(game_id)
        if game is None:
            name = f"{PREFIX}{game_id}.json"
            record = parse_record(read_game_file(self.config, name), name)
            game = TrackedGame(game_id, game_path(self.config, name), GameRecorder(record))
            self.games[game_id] = game
        return game

    def apply(self, game: TrackedGame, action: object) -> None:
        """Play one event (notation) and save.

        Raises:
            ApiError: no action given.
            RefugeError: it cannot be read or is not legal (nothing changes).
        """
        if not isinstance(action, str):
            raise ApiError(400, "action: expected an action in notation, e.g. \"draw\"")
        with game.lock:
            game.recorder.apply(parse_action(action))
            game.save()

    def undo(self, game: TrackedGame) -> None:
        """Take back the last event and save.

        Raises:
            ApiError: 409 when there is no event to take back.
        """
        with game.lock:
            record = game.recorder.record()
            if not record.events:
                raise ApiError(409, "undo: no event to take back")
            game.recorder = GameRecorder(record._replace(events=record.events[:-1], result=None,
                                                         actors=()))
            game.save()

    def listing(self) -> list[dict[str, object]]:
        """The tracked-game files in the games folder."""
        return [dict(entry, id=str(entry["name"])[len(PREFIX):-5])
                for entry in list_games(self.config) if str(entry["name"]).startswith(PREFIX)]

