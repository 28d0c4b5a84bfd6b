"""The arena's SQLite store: runs and every finished game, each committed the moment it arrives.

The file is the whole store. A run is identified by what fixes its game list (agents and specs,
players, route, seed), so ``--resume`` finds it again and skips every game already stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Iterator, Sequence

from advisor.arena.play import Entrant, GameJob, GameOutcome
from positions.errors import RefugeError
from positions.files import regular_file_problem
from positions.validation import parse_json

SCHEMA_VERSION = 1
OPEN_SECONDS = 30.0
"""How long opening the store waits out another process holding its lock."""
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
CREATE TABLE IF NOT EXISTS claims (
    run INTEGER PRIMARY KEY REFERENCES runs(id),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since TEXT NOT NULL
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


def _is_running(pid: int, host: str) -> bool:
    """Whether the arena process `pid` on `host` may still be running (another host: assume so)."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ArenaStore:
    """An open arena database; every SQLite failure becomes a one-line :class:`StoreError`."""

    def __init__(self, path: str) -> None:
        """Open (or create) the database at `path`.

        Raises:
            StoreError: not a regular file, or not an arena database of this schema.
        """
        self.path = path
        problem = regular_file_problem(path)
        if problem is not None:
            raise StoreError(f"{path}: {problem}")
        try:
            # Autocommit: every write is its own transaction, or an explicit BEGIN IMMEDIATE.
            self.db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(f"{path}: cannot open the arena database ({error})") from None
        try:
            version = _prepare_retrying(self.db)
        except sqlite3.OperationalError as error:  # read-only, locked, out of space
            self.db.close()
            raise StoreError(f"{path}: cannot use the arena database ({error})") from None
        except sqlite3.DatabaseError as error:
            self.db.close()
            raise StoreError(f"{path}: not an arena database ({error})") from None
        if version != str(SCHEMA_VERSION):
            self.db.close()
            raise StoreError(f"{path}: arena schema {version}, this program reads {SCHEMA_VERSION}")

    @contextlib.contextmanager
    def _failing_as(self, what: str) -> Iterator[None]:
        """Turn SQLite's errors (read-only, malformed, locked) into a one-line StoreError."""
        try:
            yield
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: cannot {what}: {error}") from None

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def find_run(self, config: dict[str, object]) -> int | None:
        """The id of the run with this configuration, if stored."""
        with self._failing_as("read the runs"):
            row = self.db.execute("SELECT id FROM runs WHERE key = ?", (run_key(config),)).fetchone()
        return None if row is None else int(row[0])

    def create_run(self, config: dict[str, object]) -> int:
        """Store a new run (or find the same one) and return its id."""
        with self._failing_as("store the run"):
            self.db.execute("INSERT OR IGNORE INTO runs (key, config, created) VALUES (?, ?, ?)",
                            (run_key(config), json.dumps(config, sort_keys=True), _now()))
        run = self.find_run(config)
        assert run is not None
        return run

    def claim_run(self, config: dict[str, object]) -> int:
        """The run with this configuration (created if new), claimed by this process.

        One arena plays a run at a time: the claim names its process and host and is released when
        it stops; a claim whose process is gone (``kill -9``) is taken over.

        Raises:
            StoreError: a live arena holds the run, or the database cannot be written.
        """
        me, host = os.getpid(), socket.gethostname()
        with self._failing_as("claim the run"):
            with _write_transaction(self.db):  # one claimer at a time
                self.db.execute("INSERT OR IGNORE INTO runs (key, config, created) VALUES (?, ?, ?)",
                                (run_key(config), json.dumps(config, sort_keys=True), _now()))
                run = int(self.db.execute("SELECT id FROM runs WHERE key = ?",
                                          (run_key(config),)).fetchone()[0])
                holder = self.db.execute("SELECT pid, host, since FROM claims WHERE run = ?",
                                         (run,)).fetchone()
                if holder is not None and (holder[0], holder[1]) != (me, host) \
                        and _is_running(holder[0], holder[1]):
                    pid, where, since = holder
                    other = "" if where == socket.gethostname() else (
                        f"; if it is no longer running: sqlite3 {self.path} "
                        f"'DELETE FROM claims WHERE run = {run}'")
                    raise StoreError(f"{self.path}: run {run} is being played by another arena "
                                     f"(pid {pid} on {where}, since {since}): wait for it or stop "
                                     f"it, then --resume{other}")
                self.db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                                (run, me, host, _now()))
        return run

    def release(self, run: int) -> None:
        """Give up this process's claim on `run` (quietly: the store may have become unusable)."""
        try:
            self.db.execute("DELETE FROM claims WHERE run = ? AND pid = ? AND host = ?",
                            (run, os.getpid(), socket.gethostname()))
        except sqlite3.Error:
            pass

    def finished(self, run: int) -> set[int]:
        """The indices of the run's stored games."""
        with self._failing_as("read the stored games"):
            return {row[0] for row in self.db.execute("SELECT idx FROM games WHERE run = ?", (run,))}

    def count(self, run: int) -> int:
        """How many games of the run are stored."""
        with self._failing_as("read the stored games"):
            return int(self.db.execute("SELECT COUNT(*) FROM games WHERE run = ?",
                                       (run,)).fetchone()[0])

    def add(self, run: int, job: GameJob, entrants: Sequence[Entrant], outcome: GameOutcome) -> None:
        """Store one finished game and commit it at once."""
        seats = [{"name": entrants[e].name, "spec": entrants[e].spec, "revision": entrants[e].revision}
                 for e in job.seats]
        fault = json.dumps(asdict(outcome.fault)) if outcome.fault is not None else None
        try:
            self.db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run, job.index, job.table, job.deal, job.rotation, job.deal_seed, job.players,
                 job.route, json.dumps(seats), json.dumps(list(outcome.scores)),
                 json.dumps(list(outcome.returns)), fault, outcome.record, outcome.seconds,
                 _now()))
        except sqlite3.IntegrityError:
            raise StoreError(f"{self.path}: game {job.index} of this run is already stored "
                             "(is another arena playing the same run?)") from None
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: cannot store game {job.index}: {error}") from None

    def games(self, run: int | None = None) -> Iterator[StoredGame]:
        """Every stored game (of one run, or of all), in run and index order.

        Raises:
            StoreError: the database cannot be read, or a row is not what the arena writes.
        """
        query = "SELECT run, idx, tbl, deal, rotation, seats, returns, scores, fault FROM games"
        with self._failing_as("read the stored games"):
            rows = (self.db.execute(query + " WHERE run = ? ORDER BY idx", (run,)) if run is not None
                    else self.db.execute(query + " ORDER BY run, idx"))
            for row in rows:
                yield self._stored_game(row)

    def _stored_game(self, row: tuple) -> StoredGame:  # type: ignore[type-arg]
        run_id, index, table, deal, rotation, seats, returns, scores, fault = row
        where = f"{self.path}: run {run_id} game {index}"
        try:
            seat_list = parse_json(seats, f"{where} seats")
            game = StoredGame(run_id, index, table, deal, rotation,
                              tuple((str(s["name"]), str(s["spec"]), str(s["revision"]))
                                    for s in seat_list),  # type: ignore[attr-defined]
                              tuple(float(r) for r in parse_json(returns, f"{where} returns")),  # type: ignore[attr-defined]
                              tuple(int(s) for s in parse_json(scores, f"{where} scores")),  # type: ignore[attr-defined]
                              parse_json(fault, f"{where} fault") if fault else None)  # type: ignore[arg-type]
        except RefugeError as error:
            raise StoreError(str(error)) from None
        except (KeyError, TypeError, ValueError):
            raise StoreError(f"{where}: not a game row as the arena writes it") from None
        if not (isinstance(game.fault, dict) or game.fault is None) or not game.seats:
            raise StoreError(f"{where}: not a game row as the arena writes it")
        return game

    def record(self, run: int, index: int) -> str | None:
        """The game record of one stored game, as JSON text."""
        with self._failing_as("read the stored games"):
            row = self.db.execute("SELECT record FROM games WHERE run = ? AND idx = ?",
                                  (run, index)).fetchone()
        return None if row is None else str(row[0])


@contextlib.contextmanager
def _write_transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One ``BEGIN IMMEDIATE`` transaction (the write lock taken first), committed or rolled back."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _prepare(db: sqlite3.Connection) -> str:
    """Put the database in WAL mode, create the tables if missing and return its schema version.

    The tables and the version are written in one ``BEGIN IMMEDIATE`` transaction, so two arenas
    creating the same new file at once cannot both insert the version; a store that has them is
    only read (it may be read-only: a ladder over stores someone else wrote).
    """
    db.execute("PRAGMA journal_mode=WAL")
    # WAL with NORMAL sync: a commit survives the process being killed (not a power cut)
    db.execute("PRAGMA synchronous=NORMAL")
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError as error:
        if "no such table" not in str(error):
            raise
        row = None
    if row is not None:
        return str(row[0])
    with _write_transaction(db):
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        return str(db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0])


def _prepare_retrying(db: sqlite3.Connection) -> str:
    """:func:`_prepare`, tried again while another process holds a lock SQLite will not wait for.

    Changing the journal mode, or a write after a read of an older snapshot, can fail with
    "database is locked" at once, without the connection's busy timeout; that is contention, not a
    broken file, so it is retried for up to :data:`OPEN_SECONDS`.
    """
    deadline = time.monotonic() + OPEN_SECONDS
    while True:
        try:
            return _prepare(db)
        except sqlite3.OperationalError as error:
            contended = "locked" in str(error) or "busy" in str(error)
            if not contended or time.monotonic() >= deadline:
                raise
        time.sleep(0.02)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
