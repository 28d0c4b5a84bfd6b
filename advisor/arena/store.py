"""The arena's SQLite store: runs and every finished game, each committed the moment it arrives.

The file is the whole store. A run is identified by what fixes its game list (agents and specs,
players, route, seed), so ``--resume`` finds it again and skips every game already stored.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Iterator, Sequence

from advisor.arena.play import Entrant, GameJob, GameOutcome
from positions.errors import RefugeError

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    config TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    run INTEGER NOT NULL REFERENCES runs(id),
    idx INTEGER NOT NULL,
    tbl INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    deal_seed INTEGER NOT NULL,
    players INTEGER NOT NULL,
    route TEXT NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    returns TEXT NOT NULL,
    fault TEXT,
    record TEXT NOT NULL,
    seconds REAL NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (run, idx)
);
"""


class StoreError(RefugeError):
    """An arena database that cannot be used (not SQLite, another schema, a clashing run)."""


@dataclass(frozen=True)
class StoredGame:
    """A game as the store holds it: who sat where (name, spec, revision) and how it ended."""

    run: int
    index: int
    table: int
    deal: int
    rotation: int
    seats: tuple[tuple[str, str, str], ...]
    returns: tuple[float, ...]
    scores: tuple[int, ...]
    fault: dict[str, object] | None


def run_key(config: dict[str, object]) -> str:
    """The identity of a run: a hash of the configuration that fixes its game list."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


class ArenaStore:
    """An open arena database."""

    def __init__(self, path: str) -> None:
        """Open (or create) the database at `path`.

        Raises:
            StoreError: the file is not an arena database of this schema.
        """
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=30.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            # WAL with NORMAL sync: a commit survives the process being killed (not a power cut)
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                with self.db:
                    self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise StoreError(f"{path}: arena schema {row[0]}, this program reads {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path}: not an arena database ({error})") from None

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def find_run(self, config: dict[str, object]) -> int | None:
        """The id of the run with this configuration, if stored."""
        row = self.db.execute("SELECT id FROM runs WHERE key = ?", (run_key(config),)).fetchone()
        return None if row is None else int(row[0])

    def create_run(self, config: dict[str, object]) -> int:
        """Store a new run and return its id."""
        with self.db:
            cursor = self.db.execute("INSERT INTO runs (key, config, created) VALUES (?, ?, ?)",
                                     (run_key(config), json.dumps(config, sort_keys=True), _now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def finished(self, run: int) -> set[int]:
        """The indices of the run's stored games."""
        return {row[0] for row in self.db.execute("SELECT idx FROM games WHERE run = ?", (run,))}

    def count(self, run: int) -> int:
        """How many games of the run are stored."""
        return int(self.db.execute("SELECT COUNT(*) FROM games WHERE run = ?", (run,)).fetchone()[0])

    def add(self, run: int, job: GameJob, entrants: Sequence[Entrant], outcome: GameOutcome) -> None:
        """Store one finished game and commit it at once."""
        seats = [{"name": entrants[e].name, "spec": entrants[e].spec, "revision": entrants[e].revision}
                 for e in job.seats]
        fault = json.dumps(asdict(outcome.fault)) if outcome.fault is not None else None
        try:
            with self.db:
                self.db.execute(
                    "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (run, job.index, job.table, job.deal, job.rotation, job.deal_seed, job.players,
                     job.route, json.dumps(seats), json.dumps(list(outcome.scores)),
                     json.dumps(list(outcome.returns)), fault, outcome.record, outcome.seconds,
                     _now()))
        except sqlite3.IntegrityError:
            raise StoreError(f"{self.path}: game {job.index} of this run is already stored "
                             "(is another arena playing the same run?)") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: cannot store game {job.index}: {error}") from None

    def games(self, run: int | None = None) -> Iterator[StoredGame]:
        """Every stored game (of one run, or of all), in run and index order."""
        query = "SELECT run, idx, tbl, deal, rotation, seats, returns, scores, fault FROM games"
        rows = (self.db.execute(query + " WHERE run = ? ORDER BY idx", (run,)) if run is not None
                else self.db.execute(query + " ORDER BY run, idx"))
        for run_id, index, table, deal, rotation, seats, returns, scores, fault in rows:
            yield StoredGame(run_id, index, table, deal, rotation,
                             tuple((s["name"], s["spec"], s["revision"]) for s in json.loads(seats)),
                             tuple(json.loads(returns)), tuple(json.loads(scores)),
                             json.loads(fault) if fault else None)

    def record(self, run: int, index: int) -> str | None:
        """The game record of one stored game, as JSON text."""
        row = self.db.execute("SELECT record FROM games WHERE run = ? AND idx = ?",
                              (run, index)).fetchone()
        return None if row is None else str(row[0])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
