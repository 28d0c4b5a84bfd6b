"""The principal line and the selection-bias widening, on small hand-built trees."""

from __future__ import annotations

import pytest

from advisor.analysis.intervals import following_edges, max_backup, widened
from advisor.analysis.line import principal_line
from search.records import RootStats
from search.request import RootSums, SearchResult, SearchTree

ROOT, MINE, THEIRS, MINE_LATER, THIN = (0, "root"), (0, "mine"), (1, "theirs"), (0, "later"), (0, "thin")


def _tree() -> SearchTree:
    """Player 0 plays 7 at the root, then (past player 1's node) decides 3 at ``MINE``, whose best
    action (mean 0.8) is better than the mix the root option's mean holds (0.5)."""
    nodes = {
        ROOT: {7: (100.0, 50.0), 8: (20.0, 4.0)},
        THEIRS: {5: (90.0, 40.0)},
        MINE: {3: (60.0, 48.0), 4: (25.0, 2.0), 9: (2.0, 2.0)},
        MINE_LATER: {1: (30.0, 20.0)},
        THIN: {2: (5.0, 5.0)},
    }
    edges = {(ROOT, 7, THEIRS): 90, (THEIRS, 5, MINE): 87, (MINE, 3, MINE_LATER): 30,
             (MINE_LATER, 1, THIN): 5}
    return SearchTree.from_edges(nodes, edges)


def test_the_line_follows_the_most_walked_continuation_of_the_players_own_decisions() -> None:
    """Player 1's move is followed but not shown; the line stops at a thinly walked edge."""
    assert principal_line(_tree(), ROOT, 7, player=0) == [7, 3, 1]
    assert principal_line(_tree(), ROOT, 7, player=0, max_moves=2) == [7, 3]
    assert principal_line(_tree(), ROOT, 8, player=0) == [8]


def test_max_backup_takes_the_best_well_visited_action_at_the_players_next_node() -> None:
    """87 of 100 iterations reach ``MINE``, whose best action with 10+ visits is worth 0.8 (the
    2-visit action at 1.0 is not trusted); the other 13 keep the option's mean 0.5."""
    tree = _tree()
    value = max_backup(tree, following_edges(tree), ROOT, 7, 0, mean=0.5, visits=100)
    assert value == pytest.approx((87 * 0.8 + 13 * 0.5) / 100)


def test_widened_interval_covers_the_max_backup_value() -> None:
    sums = RootSums({7: RootStats(100, 50.0, 0.0), 8: RootStats(20, 4.0, 0.0)}, {})
    result = SearchResult.from_trees(0, [7, 8], [sums], 0.0)
    wide = widened(result, _tree(), ROOT)
    before, after = result.stats(7), wide.stats(7)
    assert after.ci_low == before.ci_low and after.ci_high > 0.76 > before.ci_high
    assert wide.stats(8) == result.stats(8)  # no tree below: unchanged
