"""How deep does a search's tree reach? (issue 27): the decisions an iteration walks inside the tree.

A Refuge tree branches on every drawn pair and weather tile, so at a few thousand iterations an
iteration leaves the tree about a turn below the root and the rest of its walk is the rollout
policy's (docs/strength.md). This measures it: each view is searched by a family's request at each
budget, one iteration at a time through :class:`search.ismcts.Tree`, and every iteration's walk is
counted — its decisions in the tree, and those of them the searching player made (the searcher's
own later choices that the tree, not the rollout policy, decides).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence

from advisor.arena.scaling import budget_spec
from advisor.players.agents import SearchAgent, make_agent
from positions.kernel.position import Position
from search.ismcts import Tree


@dataclass(frozen=True)
class Depth:
    """One search's walks: the mean decisions in the tree per iteration, the searcher's own among
    them, the deepest walk, the information-set nodes grown, and the mean first tries per iteration."""

    mean: float
    own: float
    deepest: int
    nodes: int
    first_tries: float
    """Decisions in the tree, other than the walk's last, whose action was tried at its node for the
    first time: UCT's exploration of a node's untried actions, played in the simulation instead of
    the rollout policy's choice."""


def search_depth(view: Position, spec: str, iterations: int, seed: int) -> Depth:
    """Search `view` with the ``ismcts`` agent `spec` for `iterations` (a fresh tree) and count its walks."""
    agent = make_agent(spec)
    if not isinstance(agent, SearchAgent):
        raise ValueError(f"{spec!r} is not an ismcts agent")
    tree = Tree(view, agent.request(seed), seed)
    player = view.current_player()
    walked, own, deepest, first_tries = 0, 0, 0, 0
    for _ in range(iterations):
        path = tree.iterate()
        walked += len(path)
        own += max(0, sum(1 for _, actor, _ in path if actor == player) - 1)  # not the root's own
        deepest = max(deepest, len(path))
        first_tries += sum(1 for stats, _, _ in path[:-1] if stats.visits == 1)  # just backed up once
    return Depth(walked / iterations, own / iterations, deepest, len(tree.nodes),
                 first_tries / iterations)


@dataclass(frozen=True)
class DepthRow:
    """A family at a budget over many views: means of their :class:`Depth`."""

    family: str
    budget: int
    views: int
    mean: float
    own: float
    deepest: float
    nodes: float
    first_tries: float


def depth_table(views: Sequence[Position], families: Sequence[tuple[str, str]], budgets: Sequence[int],
                seed: int) -> list[DepthRow]:
    """Every family (name, ``ismcts`` spec without a budget) at every budget over `views`."""
    rows = []
    for family, spec in families:
        for budget in budgets:
            found = [search_depth(view, budget_spec(spec, budget), budget, seed + i) for i, view in enumerate(views)]
            rows.append(DepthRow(family, budget, len(found), statistics.fmean(d.mean for d in found),
                                 statistics.fmean(d.own for d in found),
                                 statistics.fmean(d.deepest for d in found),
                                 statistics.fmean(d.nodes for d in found),
                                 statistics.fmean(d.first_tries for d in found)))
    return rows
