"""The search's progress hook: reports while it grows, stops when asked, changes nothing else."""

from __future__ import annotations

import pytest

from positions import Position
from search.errors import SearchError
from search.ismcts import LiveTree, search
from search.request import SearchRequest, SearchResult, SearchTree


def test_progress_reports_the_growing_root_and_changes_no_result() -> None:
    """Every `progress_every` iterations the hook sees the root so far; the final answer is the
    same as without the hook (same seed, same iterations)."""
    pos = Position.new_game(2, "meadows")
    request = SearchRequest.of(iterations=200, seed=3)
    seen: list[SearchResult] = []
    tables: list[int] = []

    def record(so_far: SearchResult, nodes: LiveTree) -> None:
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
    result = search(pos, SearchRequest.of(iterations=10_000, seed=1),
                    on_progress=lambda so_far, nodes: so_far.iterations < 30, progress_every=10)
    assert result.iterations == 30


def test_progress_needs_one_worker() -> None:
    with pytest.raises(SearchError, match="workers=1"):
        search(Position.new_game(2, "meadows"), SearchRequest.of(iterations=10, workers=2),
               on_progress=lambda so_far, nodes: None)


def test_a_snapshot_of_the_live_tree_is_the_tree_the_search_keeps() -> None:
    """With keep_tree, the hook's snapshot at the last iteration equals the finished search's tree;
    without it there is nothing to snapshot."""
    pos = Position.new_game(2, "meadows")
    snapshots: list[SearchTree] = []
    kept = search(pos, SearchRequest.of(iterations=120, seed=2, keep_tree=True),
                  on_progress=lambda so_far, live: snapshots.append(live.snapshot()) and None,
                  progress_every=40)
    assert len(snapshots) == 3 and snapshots[-1] == kept.tree
    assert len(snapshots[0].edges) < len(snapshots[-1].edges)

    def no_edges(so_far: SearchResult, live: LiveTree) -> None:
        live.snapshot()

    with pytest.raises(SearchError, match="keep_tree"):
        search(pos, SearchRequest.of(iterations=20, seed=2), on_progress=no_edges, progress_every=10)
