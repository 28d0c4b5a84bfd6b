"""Exact expectimax with memoisation for small positions where one player makes every decision.

That covers the last walk once a single player is still walking: the others are home, so only
the walker decides and chance does the rest. Every chance outcome is enumerated with its
probability; the decider maximises their win share (C18), then their expected final score.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Hashable, cast

from search.errors import SearchConfigError, SolverLimitError
from search.protocol import CHANCE_PLAYER, TERMINAL_PLAYER, G

DEFAULT_MAX_NODES = 300_000
"""Distinct positions the solver evaluates before it gives up."""


@dataclass(frozen=True)
class SolvedOption:
    """One root action's exact value for the deciding player, assuming best play afterwards."""

    action: int
    win: float
    """Exact win share (win 1, k-way tie 1/k)."""
    score: float
    """Exact expected final score."""


@dataclass(frozen=True)
class SolverResult:
    """Every root option's exact value and the best one."""

    player: int
    options: tuple[SolvedOption, ...]
    best: int
    """The option with the highest win share (ties: higher expected score, then the game's order)."""
    nodes: int
    """Distinct positions evaluated."""

    def option(self, action: int) -> SolvedOption:
        """The exact value of one root action.

        Raises:
            KeyError: the action was not legal at the root.
        """
        for entry in self.options:
            if entry.action == action:
                return entry
        raise KeyError(action)


def solve(state: G, key: Callable[[G], Hashable], max_nodes: int = DEFAULT_MAX_NODES,
          ) -> SolverResult:
    """The exact value of each option at `state` for its current player.

    `key` maps a state to a hashable summary of everything that decides its future; states with
    equal keys share one memo entry.

    Raises:
        SolverLimitError: the root is not a decision, another player would have to decide, or
            more than `max_nodes` distinct positions would be needed.
        SearchConfigError: `max_nodes` is not a positive int.
    """
    if not isinstance(max_nodes, int) or max_nodes < 1:
        raise SearchConfigError(f"solver: max_nodes must be an int >= 1, got {max_nodes!r}")
    player = state.current_player()
    if player < 0:
        raise SolverLimitError("solver: the root must be a player's decision, not chance or the end")
    memo: dict[Hashable, tuple[float, float]] = {}

    def value(node: G) -> tuple[float, float]:
        signature = key(node)
        known = memo.get(signature)
        if known is not None:
            return known
        if len(memo) >= max_nodes:
            raise SolverLimitError(
                f"solver: position too large: more than {max_nodes} distinct positions "
                f"(max_nodes={max_nodes})")
        actor = node.current_player()
        result: tuple[float, float]
        if actor == TERMINAL_PLAYER:
            result = (node.returns()[player], float(node.scores()[player]))
        elif actor == CHANCE_PLAYER:
            win = score = 0.0
            for outcome, probability in node.chance_outcomes():
                child = cast(G, node.copy())
                child.apply(outcome)
                child_win, child_score = value(child)
                win += probability * child_win
                score += probability * child_score
            result = (win, score)
        elif actor != player:
            raise SolverLimitError(
                f"solver: player {actor} also decides; the solver handles a single decider "
                f"(player {player}), e.g. the last walk with one player still walking")
        else:
            result = max((_after(node, action, value) for action in node.legal_actions()))
        memo[signature] = result
        return result

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        options = tuple(SolvedOption(action, *_after(state, action, value))
                        for action in state.legal_actions())
    finally:
        sys.setrecursionlimit(limit)
    order = {o.action: i for i, o in enumerate(options)}
    best = max(options, key=lambda o: (o.win, o.score, -order[o.action])).action
    return SolverResult(player, options, best, len(memo))


def _after(node: G, action: int, value: Callable[[G], tuple[float, float]]) -> tuple[float, float]:
    child = cast(G, node.copy())
    child.apply(action)
    return value(child)
