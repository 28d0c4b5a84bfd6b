"""Exact endgames for the search: the solver's values where it can finish the game, like a chess
engine probing endgame tablebases (``search.protocol.ExactValues`` for Refuge).

In scope: the last walk once a single player is still walking, at that player's decision; and the
last walk of a two-player game with both still walking, small enough (``TWO_WALKER_MAX_TILES``), at
any decision — at a simultaneous step both decide (C6, C8, C12) the values are the step's
equilibrium (``search.equilibrium``): an option's value is its value against the other seat's
equilibrium strategy. One solver per kind, budget and process (or, for an agent, per game) keeps
its memo between probes, so every position solved for one leaf answers the next leaves below it too.
"""

from __future__ import annotations

from typing import Any

from advisor.players.native_solver import step_result
from positions import Position
from positions.kernel import rules
from positions.kernel.phases import SIMULTANEOUS
from search.backend import forced_backend
from search.equilibrium import EquilibriumSolver, StepResult
from search.errors import SearchConfigError, SolverLimitError
from search.solver import ExactSolver, ExactValue

try:
    import refuge_native  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # the crate is not built: the Python solvers run
    refuge_native = None

DEFAULT_MAX_NODES = 100_000
"""New positions the root's probe may solve (once per search: a few seconds at most)."""
LEAF_MAX_NODES = 2_000
"""New positions a probe inside the search may solve (a few tens of milliseconds at most): larger
positions roll out instead."""
TWO_WALKER_MAX_NODES = 20_000
"""New positions the root's probe of a two-walker position may solve (a few seconds at most)."""
TWO_WALKER_LEAF_MAX_NODES = 500
"""New positions a two-walker probe inside the search may solve."""
TWO_WALKER_MAX_TILES = 8
"""Two-walker positions are probed only when the walkers hold at most this many tiles in their
bags and hands together (larger ones are far beyond any budget: docs/search.md)."""
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
        self.pair_solvers: dict[int, EquilibriumSolver] = {}
        self.pair_too_large: dict[int, int] = {}
        """As ``too_large`` for two walkers: the fewest tiles of both walkers together."""

    def solver(self, budget: int) -> ExactSolver:
        """The solver for `budget`, afresh once its memo is full."""
        solver = self.solvers.get(budget)
        if solver is None or len(solver.memo) > MEMO_LIMIT:
            solver = self.solvers[budget] = ExactSolver(budget)
        return solver

    def pair_solver(self, budget: int) -> EquilibriumSolver:
        """The two-walker solver for `budget`, afresh once its memo is full."""
        solver = self.pair_solvers.get(budget)
        if solver is None or len(solver.memo) > MEMO_LIMIT:
            solver = self.pair_solvers[budget] = EquilibriumSolver(budget)
        return solver

    def pair_in_budget(self, pos: Position, budget: int) -> bool:
        """Whether `pos` is a two-walker position small enough and not known too large for `budget`."""
        if not two_walkers(pos):
            return False
        tiles = walker_tiles(pos)
        return tiles <= TWO_WALKER_MAX_TILES and tiles < self.pair_too_large.get(budget, 1 << 30)

    def pair_refused(self, pos: Position, budget: int) -> None:
        """Remember that the two-walker `pos` was over `budget`."""
        self.pair_too_large[budget] = min(walker_tiles(pos), self.pair_too_large.get(budget, 1 << 30))

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

    def exact_value(self, pos: Position, budget: int) -> Values | None:
        """``ExactEndgames.exact_value`` with the leaf budget `budget`."""
        walker = self.in_budget(pos, budget)
        if walker is None:
            return self._pair_value(pos)
        try:
            return _floats(self.solver(budget).value(pos))
        except SolverLimitError:
            self.refused(pos, walker, budget)
            return None

    def exact_options(self, pos: Position, budget: int) -> dict[int, Values] | None:
        """``ExactEndgames.exact_options`` with the root budget `budget`."""
        walker = self.in_budget(pos, budget)
        if walker is None:
            return self._pair_options(pos)
        try:
            result = self.solver(budget).solve(pos)
        except SolverLimitError:
            self.refused(pos, walker, budget)
            return None
        return {o.action: _floats(o.value) for o in result.options}

    def exact_step(self, pos: Position) -> StepResult | None:
        """``ExactEndgames.exact_step``."""
        start = step_start(pos)
        if start is None or not self.pair_in_budget(pos, TWO_WALKER_MAX_NODES):
            return None
        try:
            return self.pair_solver(TWO_WALKER_MAX_NODES).solve_step(start)
        except SolverLimitError:
            self.pair_refused(pos, TWO_WALKER_MAX_NODES)
            return None

    def _pair_value(self, pos: Position) -> Values | None:
        budget = TWO_WALKER_LEAF_MAX_NODES
        if not self.pair_in_budget(pos, budget):
            return None
        solver = self.pair_solver(budget)
        try:
            start = step_start(pos)
            if start is None:
                return _floats(solver.value(pos))
            step = solver.solve_step(start)
        except SolverLimitError:
            self.pair_refused(pos, budget)
            return None
        first = step.seats[0].player
        choice = pos.pending[first]
        return _floats(step.value if pos.actor == first else step.seats[0].option(choice).value)

    def _pair_options(self, pos: Position) -> dict[int, Values] | None:
        if step_start(pos) is not None:
            step = self.exact_step(pos)
            if step is None:
                return None
            return {o.action: _floats(o.value) for o in step.seat(pos.actor).options}
        budget = TWO_WALKER_MAX_NODES
        if not self.pair_in_budget(pos, budget):
            return None
        try:
            result = self.pair_solver(budget).solve(pos)
        except SolverLimitError:
            self.pair_refused(pos, budget)
            return None
        return {o.action: _floats(o.value) for o in result.options}

    def solved_positions(self) -> int:
        """How many positions these probes' solvers hold."""
        solvers: list[ExactSolver] = [*self.solvers.values(), *self.pair_solvers.values()]
        return sum(len(s.memo) for s in solvers)


class _NativeProbes:
    """The same probes in the native core (``refuge_native.EndgameProbes``, native/core/src/endgames.rs):
    the same branches, budgets and answers as :class:`_Probes` (tests/native/test_endgames_identity.py),
    and lent to the native search, whose leaves probe them too."""

    def __init__(self) -> None:
        assert refuge_native is not None
        self.core = refuge_native.EndgameProbes()

    def in_budget(self, pos: Position, budget: int) -> int | None:
        """As ``_Probes.in_budget``."""
        return self.core.in_budget(pos.to_ints(), budget)  # type: ignore[no-any-return]

    def exact_value(self, pos: Position, budget: int) -> Values | None:
        """As ``_Probes.exact_value``."""
        return self.core.exact_value(pos.to_ints(), budget)  # type: ignore[no-any-return]

    def exact_options(self, pos: Position, budget: int) -> dict[int, Values] | None:
        """As ``_Probes.exact_options``."""
        found = self.core.exact_options(pos.to_ints(), budget)
        return None if found is None else dict(found)

    def exact_step(self, pos: Position) -> StepResult | None:
        """As ``_Probes.exact_step``."""
        found = self.core.exact_step(pos.to_ints())
        return None if found is None else step_result(found)

    def solved_positions(self) -> int:
        """As ``_Probes.solved_positions``."""
        return self.core.solved_positions()  # type: ignore[no-any-return]


Probes = _Probes | _NativeProbes


def native_probes() -> bool:
    """Whether probes run in the native core: it is built with them and ``REFUGE_BACKEND`` is not python."""
    built = refuge_native is not None and hasattr(refuge_native, "EndgameProbes")
    return built and forced_backend() != "python"


class _Memory:
    """The probes of one oracle (or of the process): the Python ones, or the native ones per tree
    of a native search's workers (worker 0's are also the oracle's own)."""

    def __init__(self) -> None:
        self.python: _Probes | None = None
        self.native: list[_NativeProbes] = []

    def probes(self, worker: int = 0) -> Probes:
        """Worker `worker`'s probes (made at first use): native where :func:`native_probes`."""
        if native_probes():
            while len(self.native) <= worker:
                self.native.append(_NativeProbes())
            return self.native[worker]
        if self.python is None:
            self.python = _Probes()
        return self.python

    def solved_positions(self) -> int:
        """How many positions every probes' solvers hold."""
        held: list[Probes] = [self.python] if self.python is not None else []
        return sum(p.solved_positions() for p in [*held, *self.native])


_SHARED = _Memory()
"""The process's probes. Module-level, so the advisor's searches of one process share them: every
iteration, every search of a command and, in a kept worker pool, every search that worker runs."""


def last_walk(pos: Position) -> bool:
    """Whether `pos` is in the last walk: every probe's scope (one walker or two) lies there."""
    return pos.walk == pos.ruleset.walks - 1


def single_walker(pos: Position) -> int | None:
    """The walker deciding at `pos` when the solver's scope holds (last walk, one walker), else None."""
    if pos.walk != pos.ruleset.walks - 1 or sum(pos.walking) != 1:
        return None
    player = pos.current_player()
    return player if player >= 0 and pos.walking[player] else None


def two_walkers(pos: Position) -> bool:
    """Whether `pos` is a decision of the last walk of a two-player game with both still walking."""
    return (pos.players == 2 and pos.walk == pos.ruleset.walks - 1 and all(pos.walking)
            and pos.current_player() >= 0)


def walker_tiles(pos: Position) -> int:
    """The tiles in the walking players' bags and hands together (what makes a solve large)."""
    return sum(len(pos.bags[p]) + len(pos.hands[p]) for p in range(pos.players) if pos.walking[p])


def step_start(pos: Position) -> Position | None:
    """The start of `pos`'s simultaneous step (its first decider to act, no choice of the step
    made yet) if `pos`'s player and another decide it; else None. A later seat's decision cannot
    see the earlier seats' choices (C6, C8, C12), so its values are the step's."""
    if pos.phase not in SIMULTANEOUS or pos.current_player() < 0:
        return None
    deciders = [p for p in range(pos.players) if len(rules.step_legal(pos, p)) > 1]
    if len(deciders) < 2 or pos.actor not in deciders:
        return None
    start = pos.copy()
    first = deciders[0]
    start.pending = [choice if p < first else rules.NO_CHOICE for p, choice in enumerate(pos.pending)]
    start.actor = first
    start.legal = rules.step_legal(pos, first)
    return start


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
        """Probes with these budgets (the root's, the leaves').

        Raises:
            SearchConfigError: a budget is not an int >= 1 (the solver's own check, made at once).
        """
        for budget in (max_nodes, leaf_max_nodes):
            if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
                raise SearchConfigError(f"solver: max_nodes must be an int >= 1, got {budget!r}")
        self.max_nodes = max_nodes
        self.leaf_max_nodes = leaf_max_nodes
        self._own = None if shared else _Memory()

    @property
    def shared(self) -> bool:
        """Whether the probes' memory is the process's (the advisor) rather than this oracle's."""
        return self._own is None

    @property
    def _memory(self) -> _Memory:
        return _SHARED if self._own is None else self._own

    @property
    def _probes(self) -> Probes:
        return self._memory.probes()

    def forget(self) -> None:
        """Start afresh (an unshared oracle; a shared one keeps the process's memory)."""
        if self._own is not None:
            self._own = _Memory()

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        if self._own is not None:
            state["_own"] = _Memory()  # a copy sent to a worker starts empty, as a fresh game does
        return state

    def native_oracle(self, worker: int) -> tuple[Any, int] | None:
        """This oracle as the native search of worker `worker`'s tree takes it: that worker's native
        probes (worker 0's are this oracle's own; each other worker keeps its own, as Python's worker
        processes do) and the leaf budget; ``None`` where probes run in Python."""
        probes = self._memory.probes(worker)
        return (probes.core, self.leaf_max_nodes) if isinstance(probes, _NativeProbes) else None

    def exact_value(self, state: Position) -> Values | None:
        """Every player's exact values at the walker's decision under best play, or None. With two
        walkers, at a simultaneous step: the step's equilibrium value at its start, and after the
        first decider's choice (hidden from the second) that choice's value against the second's
        equilibrium strategy."""
        if not last_walk(state):
            return None  # out of every scope: answered without crossing to the probes
        return self._probes.exact_value(state, self.leaf_max_nodes)

    def exact_options(self, state: Position) -> dict[int, Values] | None:
        """Every player's exact values after each option at the walker's decision, or None. With
        two walkers at a simultaneous step both decide: each option's value against the other
        seat's equilibrium strategy."""
        if not last_walk(state):
            return None
        return self._probes.exact_options(state, self.max_nodes)

    def exact_step(self, state: Position) -> StepResult | None:
        """The exact equilibrium of `state`'s simultaneous step (two walkers, both deciding), or None."""
        if not last_walk(state):
            return None
        return self._probes.exact_step(state)

    def __repr__(self) -> str:
        return (f"ExactEndgames(max_nodes={self.max_nodes}, leaf_max_nodes={self.leaf_max_nodes}"
                f"{'' if self.shared else ', shared=False'})")


def solved_positions() -> int:
    """How many positions this process's shared solvers hold."""
    return _SHARED.solved_positions()
