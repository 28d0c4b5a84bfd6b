"""Tiny games with known answers that run through the same search as Refuge.

``DiceGame``: one player, push your luck with a three-sided die. ``MatrixGame``: a one-shot
simultaneous 2x2 constant-sum game (a mixed equilibrium by default). ``BidGame``: the matrix game
where two players bid 0 or 1 at the same time (the higher bid wins, equal bids tie), so each
player's choice must be made without seeing the other's. ``GambleGame``: player 0 picks one of
several gambles, each a chance to win and the final scores of a win and of a loss, so the win
chance and the score margin of each choice are known.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction
from typing import Any

CHANCE, TERMINAL = -1, -2
STOP, ROLL = 0, 1
FACE_BASE = 10


class DiceGame:
    """Roll a die with faces 1-3 or stop; a 1 busts to 0; reaching `target` ends the game in a win.

    From 0 with target 3: rolling is worth 1/3 * 0 + 1/3 * 2/3 + 1/3 * 1 = 5/9 (at 2 you must roll
    again: 2/3), stopping is worth 0. The expected final score of rolling is (0 + 3 + 3) / 3 = 2
    (at 2, rolling ends on 0, 4 or 5: 3 on average).
    """

    players = 1

    def __init__(self, target: int = 3):
        self.target = target
        self.total = 0
        self.rolling = False
        self.over = False

    def copy(self) -> "DiceGame":
        other = DiceGame(self.target)
        other.total, other.rolling, other.over = self.total, self.rolling, self.over
        return other

    def current_player(self) -> int:
        return TERMINAL if self.over else CHANCE if self.rolling else 0

    def is_chance(self) -> bool:
        return self.rolling and not self.over

    def is_terminal(self) -> bool:
        return self.over

    def is_simultaneous(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        if self.rolling:
            return [FACE_BASE + f for f in (1, 2, 3)]
        return [STOP, ROLL]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(FACE_BASE + f, 1 / 3) for f in (1, 2, 3)]

    def sample_chance(self, rng: random.Random) -> int:
        return FACE_BASE + 1 + int(rng.random() * 3)

    def apply(self, action: int) -> None:
        if self.rolling:
            face = action - FACE_BASE
            self.rolling = False
            if face == 1:
                self.total, self.over = 0, True
            else:
                self.total += face
                self.over = self.total >= self.target
        elif action == STOP:
            self.over = True
        else:
            self.rolling = True

    def returns(self) -> list[float]:
        return [1.0 if self.over and self.total >= self.target else 0.0]

    def scores(self) -> list[float]:
        return [float(self.total)]

    def information_set_key(self, player: int) -> tuple[int, bool, bool]:
        return (self.total, self.rolling, self.over)

    def determinize(self, player: int, rng: random.Random) -> "DiceGame":
        return self.copy()

    def solver_key(self) -> tuple[int, bool, bool]:
        """The solver's memo key."""
        return (self.total, self.rolling, self.over)

    def chance_weights(self) -> list[tuple[int, int]]:
        return [(FACE_BASE + f, 1) for f in (1, 2, 3)]

    def exact_returns(self) -> list[Fraction]:
        return [Fraction(r) for r in self.returns()]


class MatrixGame:
    """A one-shot simultaneous 2x2 constant-sum game: player 0 picks a row, player 1 a column, unseen;
    player 0's return is ``payoff[row][column]``, player 1's the rest.

    The default payoff ``((1.0, 0.2), (0.4, 0.6))`` has no pure equilibrium: player 0 mixes row 0
    with probability 1/5, player 1 column 0 with 2/5, and the game is worth 0.52 to player 0 (each
    mix leaves the other indifferent: 0.4 + 0.6 p = 0.6 - 0.4 p, q + 0.2 (1 - q) = 0.6 - 0.2 q).
    """

    players = 2

    def __init__(self, payoff: tuple[tuple[float, float], tuple[float, float]] = ((1.0, 0.2), (0.4, 0.6))):
        self.payoff = payoff
        self.picks = [-1, -1]

    def copy(self) -> "MatrixGame":
        other = copy.copy(self)
        other.picks = self.picks[:]
        return other

    def fresh(self) -> "MatrixGame":
        """The same game before anyone picked."""
        other = copy.copy(self)
        other.picks = [-1, -1]
        return other

    def current_player(self) -> int:
        if self.picks[0] < 0:
            return 0
        return 1 if self.picks[1] < 0 else TERMINAL

    def is_chance(self) -> bool:
        return False

    def is_terminal(self) -> bool:
        return self.picks[1] >= 0

    def is_simultaneous(self) -> bool:
        return not self.is_terminal()

    def legal_actions(self) -> list[int]:
        return [0, 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def sample_chance(self, rng: random.Random) -> int:
        raise ValueError(f"{type(self).__name__} has no chance events")

    def apply(self, action: int) -> None:
        self.picks[self.current_player()] = action

    def returns(self) -> list[float]:
        value = self.payoff[self.picks[0]][self.picks[1]]
        return [value, 1.0 - value]

    def scores(self) -> list[float]:
        return self.returns()

    def information_set_key(self, player: int) -> tuple[int, int, bool]:
        """Player 1 sees that player 0 has picked, not what."""
        return (player, self.picks[player], self.picks[0] >= 0)

    def step_start(self, player: int) -> "MatrixGame | None":
        """Before anyone picked, for player 1 once player 0 has picked unseen; else ``None``."""
        if player == 1 and self.picks[0] >= 0 and self.picks[1] < 0:
            return self.fresh()
        return None

    def determinize(self, player: int, rng: random.Random, belief: Any = None) -> "MatrixGame":
        """Player 0's hidden pick resampled: uniformly, or by `belief` on their view of their pick
        (made before anyone picked)."""
        state = self.copy()
        if player == 1 and state.picks[0] >= 0 and not state.is_terminal():
            state.picks[0] = int(rng.random() * 2) if belief is None else belief.choose(self.fresh(), rng)
        return state


class BidGame(MatrixGame):
    """Players 0 and 1 bid 0 or 1 simultaneously (in seat order, choices hidden until both bid).

    Bidding 1 never does worse: with both playing it, player 0's bid 1 is worth 1/2 and bid 0 is
    worth 0, and so are player 1's. A player who cannot see the other's bid and assumes it uniform
    values bid 1 at 3/4 and bid 0 at 1/4.
    """

    def __init__(self) -> None:
        super().__init__(((0.5, 0.0), (1.0, 0.5)))

    @property
    def bids(self) -> list[int]:
        """Each player's bid (-1: not yet)."""
        return self.picks

    @bids.setter
    def bids(self, bids: list[int]) -> None:
        self.picks = bids

    def scores(self) -> list[float]:
        return [float(b) for b in self.bids]

    def solver_key(self) -> tuple[int, ...]:
        return tuple(self.bids)

    def chance_weights(self) -> list[tuple[int, int]]:
        return []

    def exact_returns(self) -> list[Fraction]:
        return [Fraction(r) for r in self.returns()]


Gamble = tuple[float, tuple[float, float], tuple[float, float]]
"""A gamble: player 0's chance to win, the final scores (player 0's, player 1's) of a win, of a loss."""


class GambleGame:
    """Player 0 picks gamble ``i`` (action ``i``), then a coin decides it (outcomes ``WIN`` / ``LOSE``)."""

    players = 2
    WIN, LOSE = 100, 101

    def __init__(self, gambles: tuple[Gamble, ...]):
        self.gambles = gambles
        self.picked: int | None = None
        self.won: bool | None = None

    def copy(self) -> "GambleGame":
        other = GambleGame(self.gambles)
        other.picked, other.won = self.picked, self.won
        return other

    def current_player(self) -> int:
        return 0 if self.picked is None else CHANCE if self.won is None else TERMINAL

    def is_chance(self) -> bool:
        return self.picked is not None and self.won is None

    def is_terminal(self) -> bool:
        return self.won is not None

    def is_simultaneous(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        return [self.WIN, self.LOSE] if self.is_chance() else list(range(len(self.gambles)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.picked is not None
        chance = self.gambles[self.picked][0]
        return [(self.WIN, chance), (self.LOSE, 1 - chance)]

    def sample_chance(self, rng: random.Random) -> int:
        assert self.picked is not None
        return self.WIN if rng.random() < self.gambles[self.picked][0] else self.LOSE

    def apply(self, action: int) -> None:
        if self.picked is None:
            self.picked = action
        else:
            self.won = action == self.WIN

    def returns(self) -> list[float]:
        return [1.0, 0.0] if self.won else [0.0, 1.0]

    def scores(self) -> list[float]:
        assert self.picked is not None
        _, if_won, if_lost = self.gambles[self.picked]
        return list(if_won if self.won else if_lost)

    def information_set_key(self, player: int) -> tuple[int | None, bool | None]:
        return self.picked, self.won

    def determinize(self, player: int, rng: random.Random) -> "GambleGame":
        return self.copy()
