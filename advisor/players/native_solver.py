"""The Python glue of the native exact solvers (``refuge_native.ExactSolver``, native/core/src/solver.rs):
the same answers as :class:`search.solver.ExactSolver` / :class:`search.equilibrium.EquilibriumSolver`,
value for value, node count for node count, refusal for refusal (tests/native/test_solver_identity.py).
`refuge solve` uses it when the core is built; the oracle's native probes
(native/core/src/endgames.rs) call the core directly and come back through :func:`step_result`.

A position crosses as its canonical encoding (``to_ints()``); exact numbers come back as Python ints
and are built into the Python solver's dataclasses here. A refusal is raised by the core as
``search.errors.SolverLimitError`` (``SolverSizeError`` over the budget) with Python's message.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol, Sequence

from search.backend import forced_backend
from search.equilibrium import EquilibriumSolver, SeatStrategy, StepResult
from search.errors import SearchConfigError
from search.solver import DEFAULT_MAX_NODES, ExactSolver, ExactValue, SolvedOption, SolverResult

try:
    import refuge_native  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # the crate is not built
    refuge_native = None

NativeFraction = tuple[int, int]
"""A fraction as (numerator, denominator)."""
NativeValue = tuple[list[NativeFraction], list[NativeFraction]]
"""Every player's win share, then every player's expected score."""
NativeOption = tuple[int, NativeValue]
"""An option's action and every player's value after it."""
NativeSeat = tuple[int, list[NativeOption], list[NativeFraction]]
"""A seat at a step: its player, its options, its equilibrium mix."""
NativeStep = tuple[list[NativeSeat], NativeValue, int]
"""Both seats, the step's value, the positions solved."""


class Encodable(Protocol):
    """A position that crosses to the core as its canonical encoding (``Position.to_ints``)."""

    def to_ints(self) -> list[int]:
        """The canonical encoding."""
        ...


def built() -> bool:
    """Whether the native core with the solver can be imported."""
    return refuge_native is not None and hasattr(refuge_native, "ExactSolver")


class NativeExactSolver:
    """The core's exact solver with its memo kept between calls (``equilibrium=True``: the
    two-walker solver); ``memo_len()`` is the Python solver's ``len(memo)``."""

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES, equilibrium: bool = False) -> None:
        """A solver that gives up beyond `max_nodes` new positions per call.

        Raises:
            SearchConfigError: `max_nodes` is not a positive int.
            RuntimeError: the native core is not built.
        """
        if not isinstance(max_nodes, int) or isinstance(max_nodes, bool) or max_nodes < 1:
            raise SearchConfigError(f"solver: max_nodes must be an int >= 1, got {max_nodes!r}")
        if not built():
            raise RuntimeError("native solver: refuge_native is not built (make native)")
        self.max_nodes = max_nodes
        self.equilibrium = equilibrium
        self._core: Any = refuge_native.ExactSolver(max_nodes, equilibrium)

    def memo_len(self) -> int:
        """Positions solved so far (the Python solver's ``len(memo)``)."""
        return int(self._core.memo_len())

    def value(self, state: Encodable) -> ExactValue:
        """As :meth:`search.solver.ExactSolver.value`."""
        return exact_value(self._core.value(state.to_ints()))

    def solve(self, state: Encodable) -> SolverResult:
        """As :meth:`search.solver.ExactSolver.solve` (the two-walker solver: as
        :meth:`search.equilibrium.EquilibriumSolver.solve`)."""
        player, options, best, nodes = self._core.solve(state.to_ints())
        return SolverResult(player, solved_options(player, options), best, nodes)

    def solve_step(self, state: Encodable) -> StepResult:
        """As :meth:`search.equilibrium.EquilibriumSolver.solve_step` (the two-walker solver only)."""
        return step_result(self._core.solve_step(state.to_ints()))

    def __repr__(self) -> str:
        return f"NativeExactSolver(max_nodes={self.max_nodes}{', equilibrium=True' if self.equilibrium else ''})"


def _fractions(pairs: Sequence[NativeFraction]) -> tuple[Fraction, ...]:
    return tuple(Fraction(numerator, denominator) for numerator, denominator in pairs)


def exact_value(value: NativeValue) -> ExactValue:
    """An ``ExactValue`` from the core's (⇄ native/py/src/exact.rs ``value``)."""
    wins, scores = value
    return ExactValue(_fractions(wins), _fractions(scores))


def solved_options(player: int, options: Sequence[NativeOption]) -> tuple[SolvedOption, ...]:
    """`player`'s ``SolvedOption``s from the core's (⇄ native/py/src/exact.rs ``options``)."""
    solved = []
    for action, raw in options:
        value = exact_value(raw)
        solved.append(SolvedOption(action, value.wins[player], value.scores[player], value))
    return tuple(solved)


def step_result(data: NativeStep) -> StepResult:
    """A ``StepResult`` from the core's (⇄ native/py/src/exact.rs ``step``)."""
    seats, value, nodes = data
    first, second = (SeatStrategy(player, solved_options(player, options), _fractions(mix))
                     for player, options, mix in seats)
    return StepResult((first, second), exact_value(value), nodes)


def _native() -> bool:
    return built() and forced_backend() != "python"


def one_walker_solver(max_nodes: int) -> ExactSolver | NativeExactSolver:
    """A fresh solver for one walker: the native core's when it is built and ``REFUGE_BACKEND`` is
    not ``python``, else Python's ``ExactSolver`` (the same answers).

    Raises:
        SearchConfigError: `max_nodes` is not a positive int.
    """
    return NativeExactSolver(max_nodes) if _native() else ExactSolver(max_nodes)


def two_walker_solver(max_nodes: int) -> EquilibriumSolver | NativeExactSolver:
    """A fresh solver for two walkers: the native core's equilibrium solver when it is built and
    ``REFUGE_BACKEND`` is not ``python``, else Python's ``EquilibriumSolver`` (the same answers).

    Raises:
        SearchConfigError: `max_nodes` is not a positive int.
    """
    return NativeExactSolver(max_nodes, equilibrium=True) if _native() else EquilibriumSolver(max_nodes)
