"""Exact expectimax with memoisation for small positions where one player makes every decision.

That covers the last walk once a single player is still walking: the others are home, so only
the walker decides and chance does the rest. Every chance outcome is enumerated with its exact
weight (``Solvable.chance_weights``) and every value is exact (integers over a common denominator
inside, ``Fraction`` outside), so equal values are equal and ties are decided exactly: the decider maximises their win share (C18), then their expected
final score, then takes the lowest action code. Every player's value under that play is kept, so a
search can use the exact value of a position for all players at once. The memo is keyed by
``Solvable.solver_key``, which holds only what can change the future.
"""

from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Iterator, cast

from search.errors import SearchConfigError, SolverLimitError, SolverSizeError
from search.protocol import CHANCE_PLAYER, TERMINAL_PLAYER, SG

DEFAULT_MAX_NODES = 300_000
"""Distinct positions the solver evaluates (per call) before it gives up."""

Values = tuple[int, ...]
"""A position's exact value inside the solver: a common denominator, then every player's win share
and then every player's expected final score as numerators over it, reduced. Integers over one
denominator are about twice as fast as a tuple of ``Fraction`` (docs/search.md)."""


@dataclass(frozen=True)
class ExactValue:
    """Every player's exact win share and expected final score, assuming the decider's best play."""

    wins: tuple[Fraction, ...]
    """Win share per player (win 1, k-way tie 1/k); they sum to 1 at the end of a game."""
    scores: tuple[Fraction, ...]
    """Expected final score per player."""

    @classmethod
    def from_values(cls, values: Values) -> "ExactValue":
        """The value from the solver's tuple (denominator, win numerators, score numerators)."""
        denominator = values[0]
        players = (len(values) - 1) // 2
        shares = tuple(Fraction(n, denominator) for n in values[1:])
        return cls(shares[:players], shares[players:])


@dataclass(frozen=True)
class SolvedOption:
    """One root action's exact value, assuming best play afterwards."""

    action: int
    win: Fraction
    """The deciding player's exact win share (win 1, k-way tie 1/k)."""
    score: Fraction
    """The deciding player's exact expected final score."""
    value: ExactValue
    """Every player's win share and expected score after this action."""


@dataclass(frozen=True)
class SolverResult:
    """Every root option's exact value and the best one."""

    player: int
    options: tuple[SolvedOption, ...]
    """In the game's order of the root's legal actions."""
    best: int
    """The option with the highest win share (ties: higher expected score, then lowest action code)."""
    nodes: int
    """Distinct positions evaluated by this call (positions already in the memo are not counted)."""

    def option(self, action: int) -> SolvedOption:
        """The exact value of one root action.

        Raises:
            KeyError: the action was not legal at the root.
        """
        for entry in self.options:
            if entry.action == action:
                return entry
        raise KeyError(action)

    def ranked(self) -> list[SolvedOption]:
        """The options best first: win share, then expected score, then action code."""
        return sorted(self.options, key=lambda o: (-o.win, -o.score, o.action))


class ExactSolver:
    """The exact solver with a memo kept between calls, so repeated questions about one game are
    answered from what is already solved (``max_nodes`` bounds the new positions of each call)."""

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        """A solver that gives up beyond `max_nodes` new positions per call.

        Raises:
            SearchConfigError: `max_nodes` is not a positive int.
        """
        if not isinstance(max_nodes, int) or isinstance(max_nodes, bool) or max_nodes < 1:
            raise SearchConfigError(f"solver: max_nodes must be an int >= 1, got {max_nodes!r}")
        self.max_nodes = max_nodes
        self.memo: dict[Hashable, Values] = {}
        self.refused: dict[Hashable, str] = {}
        """Why each root this solver gave up on was refused: asked again, it refuses at once."""
        self._decider = -1
        self._budget_end = 0

    def value(self, state: SG) -> ExactValue:
        """Every player's exact value at `state` (a decision, a chance event or the end).

        Raises:
            SolverLimitError: a second player would have to decide, or more than ``max_nodes``
                new positions would be needed.
        """
        with self._call(state.current_player(), state.solver_key()):
            return ExactValue.from_values(self._value(state))

    def solve(self, state: SG) -> SolverResult:
        """The exact value of each option at `state` for its current player.

        Raises:
            SolverLimitError: the root is not a decision, another player would have to decide, or
                more than ``max_nodes`` new positions would be needed.
        """
        player = state.current_player()
        if player < 0:
            raise SolverLimitError("solver: the root must be a player's decision, not chance or the end")
        start = len(self.memo)
        with self._call(player, state.solver_key()):
            options = []
            for action in state.legal_actions():
                value = ExactValue.from_values(self._after(state, action))
                options.append(SolvedOption(action, value.wins[player], value.scores[player], value))
        best = min(options, key=lambda o: (-o.win, -o.score, o.action)).action
        return SolverResult(player, tuple(options), best, len(self.memo) - start)

    # --- the recursion --------------------------------------------------------------------------

    @contextmanager
    def _call(self, player: int, root: Hashable) -> Iterator[None]:
        """One call: its decider (unknown at a chance root), its node budget, a deep recursion; a
        root refused before is refused again at once."""
        if root in self.refused:
            raise SolverLimitError(self.refused[root])
        self._decider = player
        self._budget_end = len(self.memo) + self.max_nodes
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))
        try:
            yield
        except SolverLimitError as error:
            self.refused[root] = str(error)
            raise
        finally:
            sys.setrecursionlimit(limit)

    def _after(self, node: SG, action: int) -> Values:
        child = cast(SG, node.copy())
        child.apply(action)
        return self._value(child)

    def _value(self, node: SG) -> Values:
        key = node.solver_key()
        known = self.memo.get(key)
        if known is not None:
            return known
        if len(self.memo) >= self._budget_end:
            raise SolverSizeError(
                f"solver: position too large: more than {self.max_nodes} distinct positions "
                f"(max_nodes={self.max_nodes})")
        actor = node.current_player()
        result: Values
        if actor == TERMINAL_PLAYER:
            result = _common_denominator(
                tuple(node.exact_returns()) + tuple(Fraction(s) for s in node.scores()))
        elif actor == CHANCE_PLAYER:
            result = self._expectation(node)
        else:
            result = self._decision(node, actor)
        self.memo[key] = result
        return result

    def _decision(self, node: SG, actor: int) -> Values:
        """A decision's value: the single decider's best option (another decider is refused; the
        two-walker solver, ``search.equilibrium``, overrides this)."""
        if self._decider < 0:
            self._decider = actor
        elif actor != self._decider:
            raise SolverLimitError(
                f"solver: player {actor} also decides; the solver handles a single decider "
                f"(player {self._decider}), e.g. the last walk with one player still walking")
        return self._best(node, actor)

    def _expectation(self, node: SG) -> Values:
        weighted = [(weight, self._after(node, outcome)) for outcome, weight in node.chance_weights()]
        if not weighted:
            raise SolverLimitError("solver: a chance event with no outcome")
        common = math.lcm(*[values[0] for _, values in weighted])
        sums = [0] * (len(weighted[0][1]) - 1)
        total = 0
        for weight, values in weighted:
            total += weight
            scale = weight * (common // values[0])
            for i in range(len(sums)):
                sums[i] += scale * values[i + 1]
        return _reduced(common * total, sums)

    def _best(self, node: SG, actor: int) -> Values:
        best: Values | None = None
        win, score = 1 + actor, 1 + node.players + actor
        for action in sorted(node.legal_actions()):  # strict > below: the lowest code wins ties
            values = self._after(node, action)
            if best is None or ((values[win] * best[0], values[score] * best[0])
                                > (best[win] * values[0], best[score] * values[0])):
                best = values
        if best is None:
            raise SolverLimitError(f"solver: player {actor} has no legal action")
        return best


def _common_denominator(shares: tuple[Fraction, ...]) -> Values:
    common = math.lcm(*[share.denominator for share in shares])
    return (common,) + tuple(share.numerator * (common // share.denominator) for share in shares)


def _reduced(denominator: int, numerators: list[int]) -> Values:
    divisor = math.gcd(denominator, *numerators)
    return (denominator // divisor,) + tuple(n // divisor for n in numerators)


def solve(state: SG, max_nodes: int = DEFAULT_MAX_NODES) -> SolverResult:
    """The exact value of each option at `state` for its current player (a fresh memo).

    Raises:
        SolverLimitError: the root is not a decision, another player would have to decide, or
            more than `max_nodes` distinct positions would be needed.
        SearchConfigError: `max_nodes` is not a positive int.
    """
    return ExactSolver(max_nodes).solve(state)

