"""What a search is asked (:class:`SearchRequest`) and what it answers (:class:`SearchResult`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

from search.errors import SearchConfigError
from search.protocol import Evaluator, Policy

ROOT_SELECTIONS = ("uct", "uniform")
"""How the root picks its action each iteration (see ``SearchRequest.root_selection``)."""
Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


@dataclass(frozen=True)
class SearchRequest:
    """The limits and knobs of one search; checked when built.

    With an ``iterations`` limit the result depends only on the seed and the worker count. A
    ``seconds`` limit stops on the clock, so how many iterations run (and hence the result) varies
    from run to run; with both, whichever comes first stops the search.
    """

    iterations: int | None = None
    """Iterations in all (split across workers); ``None``: no iteration limit."""
    seconds: float | None = None
    """Wall-clock budget for each worker; ``None``: no time limit."""
    seed: int = 0
    """Every random choice of the search flows from this seed."""
    exploration: float = 0.7
    """The UCT exploration constant (returns are in [0, 1])."""
    workers: int = 1
    """Independent trees searched in separate processes, their root statistics merged."""
    rollout: Policy[Any] | None = None
    """Picks decisions after the tree; ``None``: uniformly random."""
    rollout_cutoff: int | None = None
    """After this many rollout decisions, stop and ask ``evaluator``; ``None``: roll out to the end."""
    evaluator: Evaluator[Any] | None = None
    """Estimates returns and final scores where a rollout is cut off."""
    widening: float = 0.0
    """Progressive widening below the root, guided by ``rollout``: a node visited n times considers
    the policy's action and ``floor(widening * sqrt(n))`` others; 0: every legal action (plain UCT)."""
    exploration_below: float | None = None
    """The UCT constant below the root; ``None``: ``exploration``."""
    keep_tree: bool = False
    """Return the whole tree (every information-set node and the edges walked) for inspection."""
    root_selection: str = "uct"
    """``"uct"``: the root selects like every node and the most visited action is chosen.
    ``"uniform"``: every root action gets an equal share of iterations (UCT below), so each
    option's estimate is equally sharp, and the action with the best mean win is chosen."""

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise SearchConfigError("search request: give iterations, seconds or both")
        if self.iterations is not None and (not isinstance(self.iterations, int)
                                            or isinstance(self.iterations, bool)
                                            or self.iterations < 1):
            raise SearchConfigError(f"search request: iterations must be an int >= 1, got {self.iterations!r}")
        if self.seconds is not None and not (isinstance(self.seconds, (int, float)) and self.seconds > 0
                                             and math.isfinite(self.seconds)):
            raise SearchConfigError(f"search request: seconds must be a positive number, got {self.seconds!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise SearchConfigError(f"search request: seed must be an int, got {self.seed!r}")
        if not (isinstance(self.exploration, (int, float)) and self.exploration >= 0
                and math.isfinite(self.exploration)):
            raise SearchConfigError(
                f"search request: exploration must be a number >= 0, got {self.exploration!r}")
        if not isinstance(self.workers, int) or isinstance(self.workers, bool) or self.workers < 1:
            raise SearchConfigError(f"search request: workers must be an int >= 1, got {self.workers!r}")
        if self.iterations is not None and self.workers > self.iterations:
            raise SearchConfigError(
                f"search request: {self.workers} workers for only {self.iterations} iterations")
        if not (isinstance(self.widening, (int, float)) and self.widening >= 0 and math.isfinite(self.widening)):
            raise SearchConfigError(f"search request: widening must be a number >= 0, got {self.widening!r}")
        if self.exploration_below is not None and not (
                isinstance(self.exploration_below, (int, float)) and self.exploration_below >= 0
                and math.isfinite(self.exploration_below)):
            raise SearchConfigError(f"search request: exploration_below must be a number >= 0, "
                                    f"got {self.exploration_below!r}")
        if self.rollout_cutoff is not None:
            if not isinstance(self.rollout_cutoff, int) or self.rollout_cutoff < 0:
                raise SearchConfigError(
                    f"search request: rollout_cutoff must be an int >= 0, got {self.rollout_cutoff!r}")
            if self.evaluator is None:
                raise SearchConfigError("search request: rollout_cutoff needs an evaluator")
        if self.root_selection not in ROOT_SELECTIONS:
            raise SearchConfigError(f"search request: root_selection must be one of "
                                    f"{', '.join(ROOT_SELECTIONS)}, got {self.root_selection!r}")
        if self.rollout is not None and not callable(getattr(self.rollout, "choose", None)):
            raise SearchConfigError(f"search request: rollout {self.rollout!r} has no choose(state, rng)")


def wilson_interval(mean: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a success rate `mean` seen over `n` trials ((0, 1) when n = 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, mean))
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class ActionStats:
    """One root action's statistics, from the searching player's point of view."""

    action: int
    visits: int
    win: float
    """Mean return (win share, C18) over the iterations that played this action."""
    ci_low: float
    ci_high: float
    """The 95% Wilson interval of ``win``."""
    score: float
    """Mean final score of the searching player over those iterations."""

    @classmethod
    def from_sums(cls, action: int, visits: int, value_sum: float, score_sum: float) -> "ActionStats":
        """Statistics from raw sums."""
        win = value_sum / visits if visits else 0.0
        low, high = wilson_interval(win, visits)
        return cls(action, visits, win, low, high, score_sum / visits if visits else 0.0)


@dataclass(frozen=True)
class SearchTree:
    """A search tree for inspection: per node ``(player, key)`` and action, (visits, value_sum); and
    how often each edge (node, action, next node) was walked. Chance sits inside the edges."""

    nodes: dict[Hashable, dict[int, tuple[float, float]]]
    edges: dict[tuple[Hashable, int, Hashable], int]

    @classmethod
    def merged(cls, trees: Sequence["SearchTree"]) -> "SearchTree":
        """The trees of several workers as one (their statistics added up)."""
        nodes: dict[Hashable, dict[int, tuple[float, float]]] = {}
        edges: dict[tuple[Hashable, int, Hashable], int] = {}
        for tree in trees:
            for key, stats in tree.nodes.items():
                node = nodes.setdefault(key, {})
                for action, (visits, value) in stats.items():
                    old = node.get(action, (0.0, 0.0))
                    node[action] = (old[0] + visits, old[1] + value)
            for edge, count in tree.edges.items():
                edges[edge] = edges.get(edge, 0) + count
        return cls(nodes, edges)


@dataclass(frozen=True)
class SearchResult:
    """What a search found: per-action statistics at the root and the action it picks."""

    player: int
    """The searching player: every statistic is from their point of view."""
    actions: tuple[ActionStats, ...]
    """Every legal root action, in the game's order."""
    chosen: int
    """The action with most visits (ties: higher win rate, then the game's order); with
    ``root_selection="uniform"``, the best mean win (ties: more visits, then the game's order)."""
    iterations: int
    seconds: float
    workers: int = 1
    per_worker_iterations: tuple[int, ...] = field(default=())
    tree: SearchTree | None = None
    """The whole tree, if the request asked to keep it."""

    def stats(self, action: int) -> ActionStats:
        """The statistics of one root action.

        Raises:
            KeyError: the action was not legal at the root.
        """
        for entry in self.actions:
            if entry.action == action:
                return entry
        raise KeyError(action)

    @classmethod
    def from_sums(cls, player: int, legal: Sequence[int],
                  sums: dict[int, list[float]], iterations: int, seconds: float,
                  per_worker: Sequence[int] = (), by_win: bool = False) -> "SearchResult":
        """A result from merged root sums ``action -> [visits, value_sum, score_sum]``."""
        actions = tuple(ActionStats.from_sums(a, int(sums[a][0]), sums[a][1], sums[a][2])
                        if a in sums else ActionStats.from_sums(a, 0, 0.0, 0.0) for a in legal)
        order = {a: i for i, a in enumerate(legal)}
        if by_win:
            chosen = max(actions, key=lambda s: (s.win, s.visits, -order[s.action])).action
        else:
            chosen = max(actions, key=lambda s: (s.visits, s.win, -order[s.action])).action
        return cls(player, actions, chosen, iterations, seconds, max(1, len(per_worker)),
                   tuple(per_worker))
