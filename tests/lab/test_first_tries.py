"""The tree-depth probe's first tries (issue 27): in-tree decisions that try an action at its node
for the first time, UCT's exploration played where the rollout policy would otherwise choose."""

from __future__ import annotations

from lab.tree_depth import depth_table, search_depth
from search.ismcts import Tree
from search.request import SearchRequest
from advisor.players.bots import DEFAULT_ROLLOUT
from builders import midgame


def test_first_tries_count_actions_tried_for_the_first_time_away_from_the_walks_end() -> None:
    """Counted by hand from the tree's own edges: a walk's decision (the last aside) whose edge
    holds exactly the one visit this iteration gave it."""
    tree = Tree(midgame(), SearchRequest.of(iterations=400, seed=2, rollout=DEFAULT_ROLLOUT), 2)
    by_hand = by_visits = 0
    for _ in range(400):
        before = {id(stats): stats.visits for node in tree.nodes.values() for stats in node.values()}
        path = tree.iterate()
        by_hand += sum(1 for stats, _, _ in path[:-1] if before.get(id(stats), 0) == 0)
        by_visits += sum(1 for stats, _, _ in path[:-1] if stats.visits == 1)  # the probe's rule
    assert by_hand == by_visits > 0
    depth = search_depth(midgame(), "ismcts:iterations=400", 400, seed=2)
    assert 0 < depth.first_tries < depth.mean


def test_progressive_widening_plays_the_policy_at_thin_nodes_instead_of_first_tries() -> None:
    """The advisor's widening (the agent's was retired, lab/journal/widening.md) removes first tries."""
    def first_tries(widening: float) -> float:
        tree = Tree(midgame(), SearchRequest.of(iterations=800, seed=5, rollout=DEFAULT_ROLLOUT,
                                                 widening=widening), 5)
        return sum(sum(1 for stats, _, _ in tree.iterate()[:-1] if stats.visits == 1) for _ in range(800)) / 800
    assert first_tries(0.5) < 0.6 * first_tries(0.0)
    rows = depth_table([midgame()], [("plain", "ismcts"), ("full", "ismcts:evaluator=rollout")], [300], seed=5)
    assert len(rows) == 2 and all(row.first_tries > 0 for row in rows)
