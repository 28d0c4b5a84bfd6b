"""Following a game at the table: `refuge track`'s session (advisor/analysis/track.py) behind the web.

Each tracked game is a ``refuge-game/1`` file ``tracked-ID.json`` directly in the games folder, with
an unguessable random ID. An event or undo changes the game only once its new record is on disk
(:meth:`TrackSession.enter_saved`): written atomically, relative to the folder, never through a link
(:func:`positions.files.write_in_folder`), so a failed save leaves the game as it was. A restarted
server picks a game up again from its file (a choice held in a simultaneous step is not an event
yet and is not saved, as in `refuge track`).
"""

from __future__ import annotations

import os
import secrets
import threading

from advisor.analysis.track import Outcome, TrackSession
from advisor.web.config import WebConfig
from advisor.web.errors import ApiError
from advisor.web.lines import TRACKED_ID, list_games, read_game_file
from positions.kernel import phases
from positions.kernel.actions import parse_action
from positions.errors import IllegalActionError
from positions.files import FileWriteError, write_in_folder
from positions.record import GameRecord, dump_record, parse_record
from positions.kernel.routes import ROUTES
from positions.kernel.rulesets import DEFAULT_RULESET

PREFIX = "tracked-"
MAX_NAME = 40
ID_BYTES = 12
"""Random bytes in a tracked game's id (24 hex digits)."""


class TrackedGame:
    """One game being followed: its id, file name and session."""

    def __init__(self, game_id: str, folder: str, session: TrackSession) -> None:
        self.id = game_id
        self.folder = folder
        self.session = session
        self.lock = threading.Lock()

    @property
    def file(self) -> str:
        """The file name in the games folder."""
        return f"{PREFIX}{self.id}.json"

    def save(self, record: GameRecord, new: bool = False) -> None:
        """Write `record` as this game's file (atomically, never through a link).

        Raises:
            ApiError: 507 (with the reason) when the file cannot be written.
        """
        try:
            write_in_folder(self.folder, self.file, dump_record(record), new=new)
        except FileWriteError as error:
            raise ApiError(507, f"not saved, nothing changed: {error}") from None


def _int_field(body: dict[str, object], name: str, default: object) -> object:
    value = body.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise ApiError(422, f"{name}: expected an integer")
    return value


class Tracker:
    """The tracked games of this server's games folder."""

    def __init__(self, config: WebConfig) -> None:
        self.config = config
        self.folder = os.path.realpath(config.games_dir)
        self.games: dict[str, TrackedGame] = {}
        self._lock = threading.Lock()

    def new(self, body: dict[str, object]) -> TrackedGame:
        """Start a game from ``{players, route, names?, seed?}`` and save it.

        Raises:
            ApiError: a bad field (422 naming it), the cap of tracked games reached (409), or the
                file cannot be written.
        """
        counts = DEFAULT_RULESET.player_counts
        players = _int_field(body, "players", counts[0])
        if players not in counts:
            raise ApiError(422, f"players: expected one of {list(counts)}")
        assert isinstance(players, int)
        route = body.get("route", next(iter(ROUTES)))
        if not isinstance(route, str) or route not in ROUTES:
            raise ApiError(422, f"route: expected one of {', '.join(ROUTES)}")
        names = body.get("names", [])
        if not isinstance(names, list) or len(names) not in (0, players) or not all(
                isinstance(n, str) and len(n) <= MAX_NAME for n in names):
            raise ApiError(422, f"names: expected {players} names of at most {MAX_NAME} characters")
        seed = _int_field(body, "seed", None)
        if isinstance(seed, int) and not 0 <= seed < 2**63:
            raise ApiError(422, "seed: expected a non-negative integer")
        setup = GameRecord(players, ROUTES[route], DEFAULT_RULESET, tuple(names),
                           seed if isinstance(seed, int) else None)
        if not os.path.isdir(self.folder):
            raise ApiError(507, "the games folder does not exist: start the server with --games DIR")
        with self._lock:
            if self.count() >= self.config.max_tracked:
                raise ApiError(409, f"tracked games: the cap of {self.config.max_tracked} is reached "
                                    f"(start the server with a larger --max-tracked, or remove some)")
            game = TrackedGame(secrets.token_hex(ID_BYTES), self.folder, TrackSession(setup))
            game.save(game.session.record(), new=True)  # O_EXCL: never over anything already there
            self.games[game.id] = game
        return game

    def count(self) -> int:
        """Tracked games of the folder: its files and those in memory."""
        on_disk = {str(entry["name"]) for entry in list_games(self.config)
                   if str(entry["name"]).startswith(PREFIX)}
        return len(on_disk | {game.file for game in self.games.values()})

    def get(self, game_id: object) -> TrackedGame:
        """A tracked game by id, from memory or from its file.

        Raises:
            ApiError: a bad id or no such game.
            RefugeError: its file is no longer a valid record.
        """
        if not isinstance(game_id, str) or not TRACKED_ID.match(game_id):
            raise ApiError(404, f"tracked: {game_id!r:.40} is not a tracked game id")
        game = self.games.get(game_id)
        if game is not None:
            return game
        with self._lock:  # two requests at once load one session, not two
            game = self.games.get(game_id)
            if game is None:
                name = f"{PREFIX}{game_id}.json"
                record = parse_record(read_game_file(self.config, name), name)
                game = TrackedGame(game_id, self.folder, TrackSession.from_record(record, name))
                self.games[game_id] = game
        return game

    def enter(self, game: TrackedGame, action: object, seat: object = None) -> Outcome:
        """Enter one event (notation) for `seat` (default: the first expected; chance at a chance
        event); saved before the game changes.

        Raises:
            ApiError: a bad field (422), or the file cannot be written (the game unchanged).
            RefugeError: it cannot be read or is not legal (nothing changes).
        """
        if not isinstance(action, str):
            raise ApiError(422, "action: expected an action in notation, e.g. \"draw\"")
        parsed = parse_action(action)
        with game.lock:
            session = game.session
            player = self._seat(session, seat)
            return session.enter_saved(player, parsed, game.save)

    @staticmethod
    def _seat(session: TrackSession, seat: object) -> int:
        pos = session.position
        if pos.is_terminal():
            raise IllegalActionError("the game is over: no more events (undo to change the end)")
        if pos.is_chance():
            return phases.CHANCE_PLAYER
        expected = session.expected()
        if seat is None:
            return expected[0]
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ApiError(422, "seat: expected a seat number")
        if seat not in expected:
            who = ", ".join(map(str, expected))
            raise ApiError(409, f"seat: {seat} has nothing to enter now (waiting for {who})")
        return seat

    def undo(self, game: TrackedGame) -> None:
        """Take back the last entry; saved before the game changes.

        Raises:
            ApiError: 409 when there is nothing to take back, or the file cannot be written.
        """
        with game.lock:
            if not game.session.entries:
                raise ApiError(409, "undo: no event to take back")
            game.session.undo_saved(1, game.save)

    def listing(self) -> list[dict[str, object]]:
        """The tracked-game files in the games folder."""
        return [dict(entry, id=str(entry["name"])[len(PREFIX):-5])
                for entry in list_games(self.config) if str(entry["name"]).startswith(PREFIX)]
