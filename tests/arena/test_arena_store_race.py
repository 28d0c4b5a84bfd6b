"""Several arenas opening one new database at the same moment (CI saw 'database is locked')."""

from __future__ import annotations

import multiprocessing
import sqlite3
from multiprocessing.synchronize import Barrier

from advisor.arena.store import SCHEMA_VERSION, ArenaStore, StoreError, _prepare_retrying

OPENERS = 4
ROUNDS = 40


def _open(path: str, start: Barrier, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    start.wait()
    try:
        store = ArenaStore(path)
        store.create_run({"agents": ["a", "b"]})
        store.close()
        results.put("ok")
    except StoreError as error:
        results.put(str(error))


def test_arenas_opening_one_new_database_at_once_all_open_it(tmp_path) -> None:
    """Creating the tables and the schema version raced: 'locked' or 'UNIQUE constraint failed'."""
    context = multiprocessing.get_context("fork")
    failures = []
    for round_ in range(ROUNDS):
        path = str(tmp_path / f"new-{round_}.sqlite")
        start, results = context.Barrier(OPENERS), context.Queue()
        openers = [context.Process(target=_open, args=(path, start, results)) for _ in range(OPENERS)]
        for opener in openers:
            opener.start()
        failures += [text for text in (results.get(timeout=60) for _ in openers) if text != "ok"]
        for opener in openers:
            opener.join(timeout=60)
    assert failures == []


def test_a_store_that_has_its_tables_opens_read_only(tmp_path) -> None:
    """Creating the tables in a write transaction must not make a read-only store unreadable."""
    path = str(tmp_path / "read-only.sqlite")
    ArenaStore(path).close()
    read_only = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    assert _prepare_retrying(read_only) == str(SCHEMA_VERSION)
    read_only.close()
