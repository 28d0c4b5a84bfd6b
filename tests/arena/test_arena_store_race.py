"""Several arenas opening one new database at the same moment (CI saw 'database is locked')."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier

from advisor.arena.store import ArenaStore, StoreError

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
