"""The exact solver for two-player positions where both players decide: equilibria of the
simultaneous steps, best play at the others.

A two-player game with win shares summing to 1 (C18: a tie is 1/2 each) is constant-sum, so every
position has one value, the equilibrium (minimax) value. The solver computes it exactly:

* a chance event: the expectation over every outcome, with exact weights (as ``search.solver``);
* a decision the other player sees before deciding (a discard, an option, a return's discard):
  the decider's best option (highest win share, then expected score, then lowest action code);
* a simultaneous step both players decide (the game's information sets say so: after each of the
  first decider's options the second decider's information-set key is the same, C6/C8/C12): a
  matrix game over the two players' options, solved exactly (``search.matrix_game``); the step's
  value is that of its equilibrium, and every player's expected scores are those under it.

An option's value at a simultaneous step is its expected value **against the other seat's
equilibrium strategy**: the options the decider mixes all have the step's value, the others less.
Values are exact (``Fraction`` at the API, integers over a common denominator inside, as the
one-walker solver). The memo, the node budget and the refusals are the one-walker solver's.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Sequence, cast

from search.errors import SolverLimitError
from search.matrix_game import MatrixSolution, solve_matrix_game
from search.protocol import SG
from search.solver import (
    DEFAULT_MAX_NODES, ExactSolver, ExactValue, SolvedOption, SolverResult, Values, _common_denominator,
)


@dataclass(frozen=True)
class SeatStrategy:
    """One seat's options at a simultaneous step: each one's value against the other seat's
    equilibrium strategy, and this seat's equilibrium mix."""

    player: int
    options: tuple[SolvedOption, ...]
    """In action-code order."""
    mix: tuple[Fraction, ...]
    """The equilibrium probability of each option (same order; they sum to 1)."""

    def option(self, action: int) -> SolvedOption:
        """One option's value.

        Raises:
            KeyError: the action is not one of the seat's options.
        """
        for entry in self.options:
            if entry.action == action:
                return entry
        raise KeyError(action)

    def probability(self, action: int) -> Fraction:
        """The equilibrium probability of one option (KeyError if it is not one)."""
        return self.mix[self.options.index(self.option(action))]

    def ranked(self) -> list[SolvedOption]:
        """The options best first: value against the other's mix, then equilibrium probability,
        then expected score, then action code."""
        return sorted(self.options, key=lambda o: (-o.win, -self.probability(o.action), -o.score, o.action))

    @property
    def best(self) -> int:
        """The first option of :meth:`ranked`: one the seat plays at equilibrium."""
        return self.ranked()[0].action


@dataclass(frozen=True)
class StepResult:
    """A simultaneous step's exact equilibrium: both seats' strategies and the step's value."""

    seats: tuple[SeatStrategy, SeatStrategy]
    """The step's first decider (who chooses first in the game's seat order), then the second."""
    value: ExactValue
    """Every player's win share and expected score when both play the equilibrium."""
    nodes: int
    """Distinct positions evaluated by this call."""

    def seat(self, player: int) -> SeatStrategy:
        """The strategy of one of the two deciders (KeyError for another player)."""
        for seat in self.seats:
            if seat.player == player:
                return seat
        raise KeyError(player)


@dataclass(frozen=True)
class _Step:
    """A two-decider step inside the recursion: who, the options, the outcomes, the equilibrium."""

    first: int
    second: int
    rows: list[int]
    columns: list[int]
    cells: list[list[Values]]
    solution: MatrixSolution


class EquilibriumSolver(ExactSolver):
    """The exact solver for two players who both decide (``ExactSolver``'s memo, budget and
    refusals; one walker's positions get the same values as ``ExactSolver``'s)."""

    def solve_step(self, state: SG) -> StepResult:
        """Both seats' exact equilibrium at `state`, the start of a simultaneous step both decide
        (its first decider to act, no choice of the step made yet).

        Raises:
            SolverLimitError: `state` is not such a step, or it needs more than ``max_nodes`` new
                positions, or it is not a two-player game.
        """
        player = state.current_player()
        start = len(self.memo)
        with self._call(player, ("step", state.solver_key())):
            step = self._step(state, player) if player >= 0 else None
            if step is None:
                raise SolverLimitError("solver: not the start of a simultaneous step two players decide")
            value = ExactValue.from_values(_mixed(step))
        first = _seat(step.first, step.rows, [list(row) for row in step.cells], step.solution.columns,
                      step.solution.rows)
        by_column = [[step.cells[i][j] for i in range(len(step.rows))] for j in range(len(step.columns))]
        second = _seat(step.second, step.columns, by_column, step.solution.rows, step.solution.columns)
        return StepResult((first, second), value, len(self.memo) - start)

    def solve(self, state: SG) -> SolverResult:
        """As ``ExactSolver.solve`` (each option's value under best play after it), for a decision
        that is not a two-decider simultaneous step (those: :meth:`solve_step`).

        Raises:
            SolverLimitError: as ``ExactSolver.solve``, or `state` starts a two-decider step.
        """
        player = state.current_player()
        if player >= 0 and _simultaneous(state, player) is not None:
            raise SolverLimitError("solver: a simultaneous step two players decide: see solve_step")
        return super().solve(state)

    # --- the recursion --------------------------------------------------------------------------

    def _decision(self, node: SG, actor: int) -> Values:
        step = self._step(node, actor)
        return self._best(node, actor) if step is None else _mixed(step)

    def _step(self, node: SG, actor: int) -> _Step | None:
        """The matrix game at `node` if another player decides the same step unseen, else None."""
        found = _simultaneous(node, actor)
        if found is None:
            return None
        second, rows, children, columns = found
        cells = [[self._after(child, b) for b in columns] for child in children]
        wins = [[Fraction(v[1 + actor], v[0]) for v in row] for row in cells]
        return _Step(actor, second, rows, columns, cells, solve_matrix_game(wins))


def _simultaneous(node: SG, actor: int) -> tuple[int, list[int], list[SG], list[int]] | None:
    """(the second decider, the first's options, the positions after each, the second's options)
    if another player decides `node`'s step without seeing `actor`'s choice, else None.

    Raises:
        SolverLimitError: more than two players, or the second's options depend on the first's.
    """
    if not node.is_simultaneous():
        return None
    rows = sorted(node.legal_actions())
    children = []
    for action in rows:
        child = cast(SG, node.copy())
        child.apply(action)
        children.append(child)
    second = children[0].current_player()
    if second < 0 or second == actor or not children[0].is_simultaneous():
        return None
    seen: Hashable = children[0].information_set_key(second)
    if any(c.current_player() != second or c.information_set_key(second) != seen for c in children):
        return None  # the second decider sees the first's choice: not simultaneous
    if node.players != 2:
        raise SolverLimitError(
            f"solver: players {actor} and {second} decide a step unseen in a {node.players}-player "
            "game; the solver handles two-player (constant-sum) games")
    columns = sorted(children[0].legal_actions())
    if any(sorted(c.legal_actions()) != columns for c in children):
        raise SolverLimitError("solver: the second decider's options depend on the first's choice")
    return second, rows, children, columns


def _fractions(values: Values) -> list[Fraction]:
    return [Fraction(n, values[0]) for n in values[1:]]


def _average(weights: Sequence[Fraction], outcomes: Sequence[Values]) -> list[Fraction]:
    """Every component of `outcomes` averaged with `weights`."""
    total = [Fraction(0)] * (len(outcomes[0]) - 1)
    for weight, values in zip(weights, outcomes):
        if weight:
            for i, share in enumerate(_fractions(values)):
                total[i] += weight * share
    return total


def _mixed(step: _Step) -> Values:
    """The step's value when both play the equilibrium, every component."""
    solution = step.solution
    per_row = [_average(solution.columns, row) for row in step.cells]
    total = [Fraction(0)] * len(per_row[0])
    for weight, row_value in zip(solution.rows, per_row):
        for i, share in enumerate(row_value):
            total[i] += weight * share
    return _common_denominator(tuple(total))


def _seat(player: int, actions: list[int], outcomes: list[list[Values]], against: Sequence[Fraction],
          mix: Sequence[Fraction]) -> SeatStrategy:
    """A seat's options valued against the other's mix (`outcomes[k]`: action k's outcomes, one per
    option of the other seat)."""
    options = []
    for action, row in zip(actions, outcomes):
        value = ExactValue.from_values(_common_denominator(tuple(_average(against, row))))
        options.append(SolvedOption(action, value.wins[player], value.scores[player], value))
    return SeatStrategy(player, tuple(options), tuple(mix))


def solve_step(state: SG, max_nodes: int = DEFAULT_MAX_NODES) -> StepResult:
    """Both seats' exact equilibrium at the start of a two-decider simultaneous step (fresh memo).

    Raises:
        SolverLimitError: not such a step, or more than `max_nodes` distinct positions needed.
        SearchConfigError: `max_nodes` is not a positive int.
    """
    return EquilibriumSolver(max_nodes).solve_step(state)
