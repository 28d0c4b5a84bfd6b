"""The corpus store: one SQLite file, a row a game, a row a decision, a row a paired counterfactual.

A game and everything measured in it are written in one transaction, so a killed run leaves whole
games only; a corpus is identified by what fixes its game list (agent, players, route, seed and
the counterfactual sampling), so running the same command again continues it.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import asdict, dataclass
from typing import Iterator, Sequence

from positions.errors import RefugeError
from positions.files import regular_file_problem

SCHEMA_VERSION = 2
"""2 added the games' moves (``games.moves``); a version-1 file is brought up to it when opened."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS corpora (
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL,
    players INTEGER NOT NULL,
    route TEXT NOT NULL,
    seed INTEGER NOT NULL,
    counterfactual_every INTEGER NOT NULL,
    exact_nodes INTEGER NOT NULL,
    UNIQUE (agent, players, route, seed, counterfactual_every, exact_nodes)
);
CREATE TABLE IF NOT EXISTS games (
    corpus INTEGER NOT NULL REFERENCES corpora(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    scores TEXT NOT NULL,
    returns TEXT NOT NULL,
    turns INTEGER NOT NULL,
    events INTEGER NOT NULL,
    seconds REAL NOT NULL,
    moves TEXT,
    PRIMARY KEY (corpus, idx)
);
CREATE TABLE IF NOT EXISTS decisions (
    corpus INTEGER NOT NULL,
    game INTEGER NOT NULL,
    event INTEGER NOT NULL,
    walk INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    phase INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,
    legal INTEGER NOT NULL,
    storms_to_hit INTEGER NOT NULL,
    path_paws INTEGER NOT NULL,
    steps INTEGER NOT NULL,
    vp INTEGER NOT NULL,
    options TEXT,
    exact TEXT,
    PRIMARY KEY (corpus, game, event)
);
CREATE TABLE IF NOT EXISTS counterfactuals (
    corpus INTEGER NOT NULL,
    game INTEGER NOT NULL,
    event INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER NOT NULL,
    walk INTEGER NOT NULL,
    storms_to_hit INTEGER NOT NULL,
    path_paws INTEGER NOT NULL,
    chosen INTEGER NOT NULL,
    first INTEGER NOT NULL,
    second INTEGER NOT NULL,
    first_return REAL NOT NULL,
    second_return REAL NOT NULL,
    first_score INTEGER NOT NULL,
    second_score INTEGER NOT NULL,
    PRIMARY KEY (corpus, game, event, kind)
);
"""


class CorpusStoreError(RefugeError):
    """A corpus file that cannot be used (not SQLite, another schema, not a regular file)."""


@dataclass(frozen=True)
class CorpusKey:
    """What fixes a corpus's list of games: the same key, the same games."""

    agent: str
    players: int
    route: str
    seed: int
    counterfactual_every: int
    exact_nodes: int


@dataclass(frozen=True)
class Decision:
    """One player's decision in a game and what the search thought of it (``options``: JSON of
    ``[[action, visits, win, score], ...]`` when a search ran; ``exact``: JSON of
    ``[[action, win, score], ...]`` when the exact solver answered)."""

    event: int
    walk: int
    turn: int
    phase: int
    seat: int
    action: int
    legal: int
    storms_to_hit: int
    path_paws: int
    steps: int
    vp: int
    options: str | None = None
    exact: str | None = None


@dataclass(frozen=True)
class Counterfactual:
    """A paired continuation: one decision played both ways from the same chance seeds.

    ``kind`` is ``buy`` (``first`` a buy, ``second`` a pass) or ``return`` (``first`` return,
    ``second`` draw); the returns and scores are the deciding seat's at the end of each branch.
    """

    event: int
    kind: str
    seat: int
    walk: int
    storms_to_hit: int
    path_paws: int
    chosen: int
    first: int
    second: int
    first_return: float
    second_return: float
    first_score: int
    second_score: int


@dataclass(frozen=True)
class GameResult:
    """Everything one game of the corpus produced."""

    index: int
    seed: int
    scores: tuple[int, ...]
    returns: tuple[float, ...]
    turns: int
    events: int
    seconds: float
    """CPU seconds the game and its counterfactuals took in their process."""
    decisions: tuple[Decision, ...]
    counterfactuals: tuple[Counterfactual, ...]
    moves: tuple[int, ...] = ()
    """Every event of the game in order (decisions and chance outcomes): with the corpus's key it
    rebuilds any position of the game without searching again."""


def _fields(cls: type) -> tuple[str, ...]:
    return tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]


@contextlib.contextmanager
def open_store(path: str, create: bool = True) -> Iterator[sqlite3.Connection]:
    """A connection to the corpus file at `path` (created with `create`), closed afterwards.

    Raises:
        CorpusStoreError: the path is not a regular file, not SQLite, or of another schema.
    """
    import os

    if os.path.exists(path):
        problem = regular_file_problem(path)
        if problem:
            raise CorpusStoreError(f"{path}: {problem}")
    elif not create:
        raise CorpusStoreError(f"{path}: no such corpus file")
    try:
        con = sqlite3.connect(path, timeout=30)
    except sqlite3.Error as error:
        raise CorpusStoreError(f"{path}: cannot open: {error}") from None
    try:
        try:
            version = con.execute("SELECT value FROM meta WHERE key = 'insights_schema'").fetchone()
        except sqlite3.DatabaseError as error:
            if "no such table" not in str(error):
                raise CorpusStoreError(f"{path}: not a corpus database ({error})") from None
            version = None
        if version is None:
            if not create:
                raise CorpusStoreError(f"{path}: not a corpus database (no insights tables)")
            try:
                con.executescript(SCHEMA)
                con.execute("INSERT OR REPLACE INTO meta VALUES ('insights_schema', ?)",
                            (str(SCHEMA_VERSION),))
                con.commit()
            except sqlite3.DatabaseError as error:
                raise CorpusStoreError(f"{path}: not a corpus database ({error})") from None
        elif version[0] == "1":
            _add_moves(con)
        elif version[0] != str(SCHEMA_VERSION):
            raise CorpusStoreError(f"{path}: corpus schema {version[0]}, this version reads "
                                   f"{SCHEMA_VERSION}")
        yield con
    finally:
        con.close()


def _add_moves(con: sqlite3.Connection) -> None:
    """Bring a version-1 file to version 2: a ``moves`` column, empty for the games it holds."""
    with con:
        con.execute("ALTER TABLE games ADD COLUMN moves TEXT")
        con.execute("UPDATE meta SET value = ? WHERE key = 'insights_schema'", (str(SCHEMA_VERSION),))


def corpus_id(con: sqlite3.Connection, key: CorpusKey) -> int:
    """The id of the corpus with this key, created if new."""
    values = tuple(asdict(key).values())
    columns = ", ".join(_fields(CorpusKey))
    where = " AND ".join(f"{c} = ?" for c in _fields(CorpusKey))
    con.execute(f"INSERT OR IGNORE INTO corpora ({columns}) VALUES ({', '.join('?' * len(values))})",
                values)
    con.commit()
    return int(con.execute(f"SELECT id FROM corpora WHERE {where}", values).fetchone()[0])


def stored_games(con: sqlite3.Connection, corpus: int) -> set[int]:
    """The indices of the games of a corpus already stored."""
    return {row[0] for row in con.execute("SELECT idx FROM games WHERE corpus = ?", (corpus,))}


def store_game(con: sqlite3.Connection, corpus: int, game: GameResult) -> bool:
    """Write a game with its decisions and counterfactuals in one transaction; False if it was
    already stored (nothing is written twice)."""
    with con:
        cursor = con.execute(
            "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (corpus, game.index, game.seed, json.dumps(list(game.scores)),
             json.dumps(list(game.returns)), game.turns, game.events, game.seconds,
             json.dumps(list(game.moves))))
        if cursor.rowcount == 0:
            return False
        con.executemany(f"INSERT INTO decisions VALUES ({', '.join('?' * 15)})",
                        [(corpus, game.index, *asdict(d).values()) for d in game.decisions])
        con.executemany(f"INSERT INTO counterfactuals VALUES ({', '.join('?' * 15)})",
                        [(corpus, game.index, *asdict(c).values()) for c in game.counterfactuals])
    return True


def corpora(con: sqlite3.Connection) -> list[tuple[int, CorpusKey]]:
    """Every corpus in the file, by id."""
    rows = con.execute(f"SELECT id, {', '.join(_fields(CorpusKey))} FROM corpora ORDER BY id")
    return [(row[0], CorpusKey(*row[1:])) for row in rows]


def decision_rows(con: sqlite3.Connection, where: str = "", params: Sequence[object] = ()
                  ) -> Iterator[sqlite3.Row]:
    """The decision rows matching an SQL condition, streamed (never all in memory)."""
    con.row_factory = sqlite3.Row
    try:
        yield from con.execute(f"SELECT * FROM decisions {('WHERE ' + where) if where else ''}", params)
    finally:
        con.row_factory = None
