"""What one search tree returns, as named records (the native core returns the same ones).

* :class:`RootStats` — one root action's sums in one tree.
* :class:`PlayerSums` — every player's return and score sums behind one root action.
* :class:`JointCell` — the same for one joint action of several seats of a simultaneous step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class RootStats(NamedTuple):
    """One root action's sums in one tree, from the searching player's point of view."""

    visits: float
    """Iterations that played the action."""
    value_sum: float
    """The searching player's returns summed over them."""
    score_sum: float
    """The searching player's final scores summed over them."""
    policy_sum: float = 0.0
    """At a simultaneous node under regret matching or Exp3: the action's probability summed over the
    node's visits (the mean strategy, unnormalised); 0 under UCT."""

    def plus(self, other: "RootStats") -> "RootStats":
        """The sums of two trees added (root parallelisation)."""
        return RootStats(self.visits + other.visits, self.value_sum + other.value_sum,
                         self.score_sum + other.score_sum, self.policy_sum + other.policy_sum)


@dataclass(slots=True)
class PlayerSums:
    """Every player's sums over the iterations that played one root action; added to in place."""

    returns: list[float]
    """Per player, the returns summed (they sum to ``count``: C18)."""
    scores: list[float]
    """Per player, the final scores summed."""
    squared_score: float = 0.0
    """The deciding player's squared final scores summed (for the score's noise)."""
    count: float = 0.0
    """The iterations summed: this search's own, where the root action's visits also count those
    of a tree kept from earlier searches (tree reuse); the means divide by this."""

    @classmethod
    def zeros(cls, players: int) -> "PlayerSums":
        """Empty sums for `players` players."""
        return cls([0.0] * players, [0.0] * players)

    def copy(self) -> "PlayerSums":
        """A copy to add to without changing this one."""
        return PlayerSums(list(self.returns), list(self.scores), self.squared_score, self.count)

    def add(self, other: "PlayerSums") -> None:
        """Add another tree's sums of the same action."""
        for p, value in enumerate(other.returns):
            self.returns[p] += value
        for p, value in enumerate(other.scores):
            self.scores[p] += value
        self.squared_score += other.squared_score
        self.count += other.count


@dataclass(slots=True)
class JointCell:
    """One joint action of the seats searched together (:func:`search.ismcts.search_step`): the
    iterations that played it and every player's sums over them; added to in place."""

    iterations: float
    returns: list[float]
    """Per player, the returns summed."""
    scores: list[float]
    """Per player, the final scores summed."""

    @classmethod
    def zeros(cls, players: int) -> "JointCell":
        """An empty cell for `players` players."""
        return cls(0.0, [0.0] * players, [0.0] * players)

    def copy(self) -> "JointCell":
        """A copy to add to without changing this one."""
        return JointCell(self.iterations, list(self.returns), list(self.scores))

    def add(self, other: "JointCell") -> None:
        """Add another tree's sums of the same joint action."""
        self.iterations += other.iterations
        for p, value in enumerate(other.returns):
            self.returns[p] += value
        for p, value in enumerate(other.scores):
            self.scores[p] += value
