"""Exact endgames for the search: the solver's values where it can finish the game, like a chess
engine probing endgame tablebases.

In scope: the last walk once a single player is still walking, at that player's decision. The
other players are home, so their scores are final and the walker's win share decides everyone's:
the home players tied for the best score share what the walker does not win (C18).
"""

from __future__ import annotations

from advisor.players.bots import position_key
from positions import Position
from search.errors import SolverLimitError
from search.solver import solve

DEFAULT_MAX_NODES = 20_000
"""The size budget of the root's probe (once per search)."""
LEAF_MAX_NODES = 2_000
"""The size budget of a probe inside the search (at most a few tens of milliseconds): positions
needing more distinct positions roll out instead."""
CACHE_LIMIT = 200_000
"""Solved positions kept per process before the cache starts afresh."""

Values = tuple[list[float], list[float]]
"""Every player's expected return and expected final score."""

_CACHE: dict[tuple[object, int], dict[int, tuple[float, float]] | None] = {}
"""(position key, budget) -> the walker's (win, score) after each option, or None (out of budget).
Module-level, so one process's searches share it: every iteration, every search of a command and,
in a kept worker pool, every search that worker runs."""
_TOO_LARGE: dict[int, int] = {}
"""Budget -> the fewest tiles (bag and hand) of a walker whose position was over that budget:
positions with as many tiles are not probed again (a failed probe costs the whole budget)."""


def _tiles(pos: Position, walker: int) -> int:
    return len(pos.bags[walker]) + len(pos.hands[walker])


def single_walker(pos: Position) -> int | None:
    """The walker deciding at `pos` when the solver's scope holds (last walk, one walker), else None."""
    if pos.walk != pos.ruleset.walks - 1 or sum(pos.walking) != 1:
        return None
    player = pos.current_player()
    return player if player >= 0 and pos.walking[player] else None


def _everyone(pos: Position, walker: int, win: float, score: float) -> Values:
    """Every player's values from the walker's exact win share and score (the others are home)."""
    others = [p for p in range(pos.players) if p != walker]
    top = max(pos.vp[p] for p in others)
    leaders = [p for p in others if pos.vp[p] == top]
    returns = [0.0] * pos.players
    returns[walker] = win
    for p in leaders:
        returns[p] = (1.0 - win) / len(leaders)
    scores = [float(v) for v in pos.vp]
    scores[walker] = score
    return returns, scores


class ExactEndgames:
    """The search's exact-value oracle for Refuge (``search.protocol.ExactValues``)."""

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES, leaf_max_nodes: int = LEAF_MAX_NODES) -> None:
        self.max_nodes = max_nodes
        self.leaf_max_nodes = leaf_max_nodes

    def _options(self, pos: Position, walker: int, budget: int) -> dict[int, tuple[float, float]] | None:
        key = (position_key(pos), budget)
        if key in _CACHE:
            return _CACHE[key]
        tiles = _tiles(pos, walker)
        if tiles >= _TOO_LARGE.get(budget, 1 << 30):
            return None
        try:
            result = solve(pos, position_key, budget)
            known: dict[int, tuple[float, float]] | None = {
                o.action: (o.win, o.score) for o in result.options}
        except SolverLimitError:
            known = None
            _TOO_LARGE[budget] = tiles
        if len(_CACHE) >= CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = known
        return known

    def exact_value(self, state: Position) -> Values | None:
        """Every player's exact values at the walker's decision under best play, or None."""
        walker = single_walker(state)
        options = None if walker is None else self._options(state, walker, self.leaf_max_nodes)
        if walker is None or options is None:
            return None
        win, score = max(options.values())
        return _everyone(state, walker, win, score)

    def exact_options(self, state: Position) -> dict[int, Values] | None:
        """Every player's exact values after each option at the walker's decision, or None."""
        walker = single_walker(state)
        options = None if walker is None else self._options(state, walker, self.max_nodes)
        if walker is None or options is None:
            return None
        return {a: _everyone(state, walker, w, s) for a, (w, s) in options.items()}

    def __repr__(self) -> str:
        return f"ExactEndgames(max_nodes={self.max_nodes}, leaf_max_nodes={self.leaf_max_nodes})"


def solved_positions() -> int:
    """How many positions this process has probed (solved or found too large)."""
    return len(_CACHE)

