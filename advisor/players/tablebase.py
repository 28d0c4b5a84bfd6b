"""Exact endgames for the search: the solver's values where it can finish the game, like a chess
engine probing endgame tablebases (``search.protocol.ExactValues`` for Refuge).

In scope: the last walk once a single player is still walking, at that player's decision. One
``ExactSolver`` per budget and process keeps its memo between probes, so every position solved
for one leaf answers the next leaves below it too.
"""

from __future__ import annotations

from positions import Position
from search.errors import SolverLimitError
from search.solver import ExactSolver, ExactValue

DEFAULT_MAX_NODES = 100_000
"""New positions the root's probe may solve (once per search: a few seconds at most)."""
LEAF_MAX_NODES = 2_000
"""New positions a probe inside the search may solve (a few tens of milliseconds at most): larger
positions roll out instead."""
MEMO_LIMIT = 500_000
"""Positions a process's solvers keep before they start afresh."""

Values = tuple[list[float], list[float]]
"""Every player's expected return and expected final score."""

_SOLVERS: dict[int, ExactSolver] = {}
"""Budget -> the process's solver. Module-level, so the searches of one process share it: every
iteration, every search of a command and, in a kept worker pool, every search that worker runs."""
_TOO_LARGE: dict[int, int] = {}
"""Budget -> the fewest tiles (bag and hand) of a walker whose position was over that budget:
positions with as many tiles are not probed again (a failed probe costs its whole budget)."""


def single_walker(pos: Position) -> int | None:
    """The walker deciding at `pos` when the solver's scope holds (last walk, one walker), else None."""
    if pos.walk != pos.ruleset.walks - 1 or sum(pos.walking) != 1:
        return None
    player = pos.current_player()
    return player if player >= 0 and pos.walking[player] else None


def _solver(budget: int) -> ExactSolver:
    solver = _SOLVERS.get(budget)
    if solver is None or len(solver.memo) > MEMO_LIMIT:
        solver = _SOLVERS[budget] = ExactSolver(budget)
    return solver


def _floats(value: ExactValue) -> Values:
    return [float(w) for w in value.wins], [float(s) for s in value.scores]


def _in_budget(pos: Position, budget: int) -> int | None:
    """The walker, if `pos` is in scope and not known to be too large for `budget`."""
    walker = single_walker(pos)
    if walker is None:
        return None
    tiles = len(pos.bags[walker]) + len(pos.hands[walker])
    return walker if tiles < _TOO_LARGE.get(budget, 1 << 30) else None


def _refused(pos: Position, walker: int, budget: int) -> None:
    tiles = len(pos.bags[walker]) + len(pos.hands[walker])
    _TOO_LARGE[budget] = min(tiles, _TOO_LARGE.get(budget, 1 << 30))


class ExactEndgames:
    """The search's exact-value oracle for Refuge."""

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES, leaf_max_nodes: int = LEAF_MAX_NODES) -> None:
        self.max_nodes = max_nodes
        self.leaf_max_nodes = leaf_max_nodes

    def exact_value(self, state: Position) -> Values | None:
        """Every player's exact values at the walker's decision under best play, or None."""
        walker = _in_budget(state, self.leaf_max_nodes)
        if walker is None:
            return None
        try:
            return _floats(_solver(self.leaf_max_nodes).value(state))
        except SolverLimitError:
            _refused(state, walker, self.leaf_max_nodes)
            return None

    def exact_options(self, state: Position) -> dict[int, Values] | None:
        """Every player's exact values after each option at the walker's decision, or None."""
        walker = _in_budget(state, self.max_nodes)
        if walker is None:
            return None
        try:
            result = _solver(self.max_nodes).solve(state)
        except SolverLimitError:
            _refused(state, walker, self.max_nodes)
            return None
        return {o.action: _floats(o.value) for o in result.options}

    def __repr__(self) -> str:
        return f"ExactEndgames(max_nodes={self.max_nodes}, leaf_max_nodes={self.leaf_max_nodes})"


def solved_positions() -> int:
    """How many positions this process's solvers hold."""
    return sum(len(s.memo) for s in _SOLVERS.values())
