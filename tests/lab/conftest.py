"""Fixtures of the lab's tests: a small stored arena run for the readers of stored runs."""

from __future__ import annotations

import pytest

from advisor.arena.match import ArenaSettings, run_arena


@pytest.fixture(scope="module")
def arena_db(tmp_path_factory) -> str:
    """A small stored run: the heuristic (``h``) against greedy (``g``), 6 games, seed 5."""
    db = str(tmp_path_factory.mktemp("arena") / "games.sqlite")
    run_arena(ArenaSettings([("h", "heuristic"), ("g", "greedy")], games=6, seed=5, db=db))
    return db
