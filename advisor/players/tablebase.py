"""Exact endgames for the search: the solver's values where it can finish the game, like a chess
engine probing endgame tablebases (``search.protocol.ExactValues`` for Refuge).

In scope: the last walk once a single player is still walking, at that player's decision. One
``ExactSolver`` per budget and process (or, for an agent, per game) keeps its memo between probes,
so every position solved for one leaf answers the next leaves below it too.
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


class _Probes:
    """Solvers by budget and the sizes found too large for each: what probes learn as they run."""

    def __init__(self) -> None:
        self.solvers: dict[int, ExactSolver] = {}
        self.too_large: dict[int, int] = {}
        """Budget -> the fewest tiles (bag and hand) of a walker whose position was over that
        budget: positions with as many tiles are not probed again (a failed probe costs its whole
        budget)."""

    def solver(self, budget: int) -> ExactSolver:
        """The solver for `budget`, afresh once its memo is full."""
        solver = self.solvers.get(budget)
        if solver is None or len(solver.memo) > MEMO_LIMIT:
            solver = self.solvers[budget] = ExactSolver(budget)
        return solver

    def in_budget(self, pos: Position, budget: int) -> int | None:
        """The walker, if `pos` is in scope and not known to be too large for `budget`."""
        walker = single_walker(pos)
        if walker is None:
            return None
        tiles = len(pos.bags[walker]) + len(pos.hands[walker])
        return walker if tiles < self.too_large.get(budget, 1 << 30) else None

    def refused(self, pos: Position, walker: int, budget: int) -> None:
        """Remember that `pos` was over `budget`."""
        tiles = len(pos.bags[walker]) + len(pos.hands[walker])
        self.too_large[budget] = min(tiles, self.too_large.get(budget, 1 << 30))


_SHARED = _Probes()
"""The process's probes. Module-level, so the advisor's searches of one process share them: every
iteration, every search of a command and, in a kept worker pool, every search that worker runs."""


def single_walker(pos: Position) -> int | None:
    """The walker deciding at `pos` when the solver's scope holds (last walk, one walker), else None."""
    if pos.walk != pos.ruleset.walks - 1 or sum(pos.walking) != 1:
        return None
    player = pos.current_player()
    return player if player >= 0 and pos.walking[player] else None


def _floats(value: ExactValue) -> Values:
    return [float(w) for w in value.wins], [float(s) for s in value.scores]


class ExactEndgames:
    """The search's exact-value oracle for Refuge.

    Whether a probe finishes within its budget depends on what the solver already holds, so a
    player's moves would depend on the games its process played before. ``shared=False`` (agents)
    keeps the probes' memory in this oracle instead, emptied by :meth:`forget` at each new game and
    never pickled: a game's moves then depend on that game alone, whatever the worker count.
    """

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES, leaf_max_nodes: int = LEAF_MAX_NODES,
                 shared: bool = True) -> None:
        self.max_nodes = max_nodes
        self.leaf_max_nodes = leaf_max_nodes
        self._own = None if shared else _Probes()

    @property
    def shared(self) -> bool:
        """Whether the probes' memory is the process's (the advisor) rather than this oracle's."""
        return self._own is None

    @property
    def _probes(self) -> _Probes:
        return _SHARED if self._own is None else self._own

    def forget(self) -> None:
        """Start afresh (an unshared oracle; a shared one keeps the process's memory)."""
        if self._own is not None:
            self._own = _Probes()

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        if self._own is not None:
            state["_own"] = _Probes()  # a copy sent to a worker starts empty, as a fresh game does
        return state

    def exact_value(self, state: Position) -> Values | None:
        """Every player's exact values at the walker's decision under best play, or None."""
        probes = self._probes
        walker = probes.in_budget(state, self.leaf_max_nodes)
        if walker is None:
            return None
        try:
            return _floats(probes.solver(self.leaf_max_nodes).value(state))
        except SolverLimitError:
            probes.refused(state, walker, self.leaf_max_nodes)
            return None

    def exact_options(self, state: Position) -> dict[int, Values] | None:
        """Every player's exact values after each option at the walker's decision, or None."""
        probes = self._probes
        walker = probes.in_budget(state, self.max_nodes)
        if walker is None:
            return None
        try:
            result = probes.solver(self.max_nodes).solve(state)
        except SolverLimitError:
            probes.refused(state, walker, self.max_nodes)
            return None
        return {o.action: _floats(o.value) for o in result.options}

    def __repr__(self) -> str:
        return (f"ExactEndgames(max_nodes={self.max_nodes}, leaf_max_nodes={self.leaf_max_nodes}"
                f"{'' if self.shared else ', shared=False'})")


def solved_positions() -> int:
    """How many positions this process's shared solvers hold."""
    return sum(len(s.memo) for s in _SHARED.solvers.values())
