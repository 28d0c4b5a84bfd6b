"""The search's progress hook: reports while it grows, stops when asked, changes nothing else."""

from __future__ import annotations

import pytest

from positions import Position
from search.errors import SearchError
from search.ismcts import search
from search.request import SearchRequest, SearchResult


def test_progress_reports_the_growing_root_and_changes_no_result() -> None:
    """Every `progress_every` iterations the hook sees the root so far; the final answer is the
    same as without the hook (same seed, same iterations)."""
    pos = Position.new_game(2, "meadows")
    request = SearchRequest(iterations=200, seed=3)
    seen: list[SearchResult] = []
    tables: list[int] = []

    def record(so_far: SearchResult, nodes: dict) -> None:
        seen.append(so_far)
        tables.append(len(nodes))

    with_hook = search(pos, request, on_progress=record, progress_every=50)
    plain = search(pos, request)
    assert [r.iterations for r in seen] == [50, 100, 150, 200]
    assert [sum(a.visits for a in r.actions) for r in seen] == [50, 100, 150, 200]
    assert tables == sorted(tables) and tables[0] > 1
    assert with_hook.actions == plain.actions and with_hook.chosen == plain.chosen


def test_progress_returning_false_stops_the_search_there() -> None:
    pos = Position.new_game(2, "meadows")
    result = search(pos, SearchRequest(iterations=10_000, seed=1),
                    on_progress=lambda so_far, nodes: so_far.iterations < 30, progress_every=10)
    assert result.iterations == 30


def test_progress_needs_one_worker() -> None:
    with pytest.raises(SearchError, match="workers=1"):
        search(Position.new_game(2, "meadows"), SearchRequest(iterations=10, workers=2),
               on_progress=lambda so_far, nodes: None)
