"""Expert iteration's store (issue 54, item 3): one SQLite file holding every generation's
self-play, written a whole game at a time as games finish.

A game and its recorded decisions go in one transaction, so a run killed anywhere keeps every
finished game and nothing of an unfinished one; a resumed run plays only the games the store does
not hold. The store's first table names the run's settings, and a run with other settings is
refused. Rows are kept exactly (float64, little-endian, zlib-compressed: about 0.3 kB a decision);
search values as JSON, whose floats read back bit for bit. :meth:`ExpertStore.digest` hashes the
content in key order without the CPU times, so two stores of the same seed compare equal whatever
order their games finished in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from lab.expert_selfplay import PlayedGame
from positions.errors import RefugeError

STORE_KIND = "refuge-expert-iteration"
STORE_VERSION = 1
"""The layout of the store's tables; changes whenever a column or its meaning changes."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    generation INTEGER NOT NULL, game INTEGER NOT NULL, route TEXT NOT NULL, deal_seed INTEGER NOT NULL,
    returns TEXT NOT NULL, scores TEXT NOT NULL, decisions INTEGER NOT NULL, cpu_seconds REAL NOT NULL,
    PRIMARY KEY (generation, game));
CREATE TABLE IF NOT EXISTS decisions (
    generation INTEGER NOT NULL, game INTEGER NOT NULL, decision INTEGER NOT NULL, seat INTEGER NOT NULL,
    walk INTEGER NOT NULL, walks_left INTEGER NOT NULL, players INTEGER NOT NULL, rows BLOB NOT NULL,
    search_wins TEXT NOT NULL, search_scores TEXT NOT NULL, iterations INTEGER NOT NULL,
    PRIMARY KEY (generation, game, decision));
"""


class ExpertStoreError(RefugeError):
    """A store that cannot be opened, or that holds another run."""


@dataclass(frozen=True)
class Decisions:
    """A generation's recorded decisions as arrays, in (game, decision) order, with their games'
    results: what a fit reads (about 1.4 kB a decision in memory with two players)."""

    game: np.ndarray
    """(n,) the game of each decision."""
    walk: np.ndarray
    """(n,) the walk it was in (0 for the first)."""
    walks_left: np.ndarray
    """(n,) walks still to come after that one."""
    rows: np.ndarray
    """(n, players, features) every player's position rows."""
    search_wins: np.ndarray
    """(n, players) every player's win share at the root of the move's search."""
    search_scores: np.ndarray
    """(n, players) every player's final score there."""
    returns: np.ndarray
    """(n, players) every player's win share of the game's result."""
    scores: np.ndarray
    """(n, players) every player's final score."""

    def __len__(self) -> int:
        return len(self.game)

    def take(self, picked: np.ndarray) -> "Decisions":
        """The decisions `picked` (a boolean mask or indices), in order."""
        return Decisions(**{f.name: getattr(self, f.name)[picked] for f in dataclasses.fields(self)})


def pack_rows(rows: list[list[float]]) -> bytes:
    """Every player's rows as compressed little-endian float64 (exact)."""
    return zlib.compress(np.asarray(rows, dtype="<f8").tobytes(), 6)


def unpack_rows(blob: bytes, players: int) -> list[list[float]]:
    """The rows :func:`pack_rows` kept, one list per player."""
    return np.frombuffer(zlib.decompress(blob), dtype="<f8").reshape(players, -1).tolist()


class ExpertStore:
    """The run's SQLite file (created if missing), checked to hold the run of `settings`."""

    def __init__(self, path: str, settings: dict[str, Any]) -> None:
        try:
            self.db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self.db.executescript(SCHEMA)
        except sqlite3.Error as error:
            raise ExpertStoreError(f"{path}: cannot open the store ({error})") from None
        self.path = path
        self._claim(settings)

    def _claim(self, settings: dict[str, Any]) -> None:
        """Write the run's settings into a new store, or check an existing one holds the same run."""
        wanted = {"kind": STORE_KIND, "version": STORE_VERSION, **settings}
        stored = {key: json.loads(value) for key, value in self.db.execute("SELECT key, value FROM settings")}
        if not stored:
            with self.transaction():
                self.db.executemany("INSERT INTO settings VALUES (?, ?)",
                                    [(k, json.dumps(v, sort_keys=True)) for k, v in sorted(wanted.items())])
            return
        for key in sorted(set(wanted) | set(stored)):
            if stored.get(key) != wanted.get(key):
                raise ExpertStoreError(f"{self.path}: holds a run with {key}={stored.get(key)!r}, not "
                                       f"{wanted.get(key)!r}; give another --out or the run's own settings")

    def close(self) -> None:
        """Close the file."""
        self.db.close()

    def transaction(self) -> "_Transaction":
        """A context in which every statement commits together or not at all."""
        return _Transaction(self.db)

    def finished(self, generation: int) -> set[int]:
        """The games of `generation` the store holds."""
        return {g for (g,) in self.db.execute("SELECT game FROM games WHERE generation = ?", (generation,))}

    def add(self, generation: int, played: PlayedGame) -> None:
        """Store a finished game and its decisions, in one transaction."""
        players = len(played.returns)
        with self.transaction():
            self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            (generation, played.game, played.route, played.deal_seed, json.dumps(played.returns),
                             json.dumps(played.scores), len(played.decisions), played.cpu_seconds))
            self.db.executemany(
                "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(generation, played.game, d.decision, d.seat, d.walk, d.walks_left, players, pack_rows(d.rows),
                  json.dumps(d.search_wins), json.dumps(d.search_scores), d.iterations) for d in played.decisions])

    def decisions(self, generation: int) -> Decisions:
        """The generation's recorded decisions, in (game, decision) order, with their games' results.

        Raises:
            ExpertStoreError: none recorded, or games of different player counts.
        """
        count, players = self.db.execute("SELECT COUNT(*), MAX(players) FROM decisions WHERE generation = ?",
                                         (generation,)).fetchone()
        if not count:
            raise ExpertStoreError(f"{self.path}: no decisions of generation {generation}")
        query = ("SELECT d.game, d.walk, d.walks_left, d.players, d.rows, d.search_wins, d.search_scores, "
                 "g.returns, g.scores FROM decisions d JOIN games g ON d.generation = g.generation "
                 "AND d.game = g.game WHERE d.generation = ? ORDER BY d.game, d.decision")
        columns: list[list[Any]] = [[] for _ in range(3)]
        rows: list[np.ndarray] = []
        values: list[list[Any]] = [[] for _ in range(4)]
        for game, walk, left, seats, blob, *labels in self.db.execute(query, (generation,)):
            if seats != players:
                raise ExpertStoreError(f"{self.path}: generation {generation} mixes player counts")
            for column, value in zip(columns, (game, walk, left)):
                column.append(value)
            rows.append(np.frombuffer(zlib.decompress(blob), dtype="<f8").reshape(players, -1))
            for column, text in zip(values, labels):
                column.append(json.loads(text))
        game, walk, left = (np.array(c, dtype=np.int64) for c in columns)
        wins, searched, returns, scores = (np.array(c, dtype=float) for c in values)
        return Decisions(game, walk, left, np.stack(rows), wins, searched, returns, scores)

    def cost(self, generation: int) -> tuple[int, int, float]:
        """(games, recorded decisions, CPU-seconds of self-play) of `generation`."""
        games, decisions, seconds = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(decisions), 0), COALESCE(SUM(cpu_seconds), 0) FROM games "
            "WHERE generation = ?", (generation,)).fetchone()
        return int(games), int(decisions), float(seconds)

    def digest(self) -> str:
        """A SHA-256 of the settings, games and decisions in key order, CPU times left out: equal for
        two stores of the same run however their games were scheduled."""
        hasher = hashlib.sha256()
        for query in ("SELECT key, value FROM settings ORDER BY key",
                      "SELECT generation, game, route, deal_seed, returns, scores, decisions FROM games "
                      "ORDER BY generation, game",
                      "SELECT * FROM decisions ORDER BY generation, game, decision"):
            for row in self.db.execute(query):
                hasher.update(repr(row).encode())
        return hasher.hexdigest()


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on an error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: Any, *_: Any) -> None:
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")
