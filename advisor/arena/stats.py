"""Match statistics: Elo with confidence intervals, LOS, Bradley–Terry ratings (SPRT: arena.sprt)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from search.request import wilson_interval

Z95 = 1.959963984540054
EMPTY_BIN = 1e-3
"""Fishtest's regularisation: an empty bin of a score distribution counts as this much of a unit."""


def elo_from_score(score: float) -> float:
    """The Elo difference that gives this expected score (logistic model)."""
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """The expected score of a player `elo` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def normal_cdf(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@dataclass(frozen=True)
class MatchSummary:
    """Score and Elo of one agent against another, from independent units (games or game pairs)."""

    units: int
    score: float
    variance: float
    """Variance of one unit's score (per game, or per pair for pentanomial)."""

    @property
    def elo(self) -> float:
        """Elo difference implied by the score."""
        return elo_from_score(self.score)

    @property
    def score_ci95(self) -> tuple[float, float]:
        """95% interval of the mean score (Wilson's for a clean sweep: every unit scored 0, or 1)."""
        if not self.units:
            return 0.0, 1.0
        if self.variance <= 0:
            return wilson_interval(self.score, self.units)
        half = Z95 * math.sqrt(self.variance / self.units)
        return max(0.0, self.score - half), min(1.0, self.score + half)

    @property
    def elo_ci95(self) -> tuple[float, float]:
        """95% interval of the Elo difference (the score interval mapped through the logistic)."""
        low, high = self.score_ci95
        return elo_from_score(low), elo_from_score(high)

    @property
    def los(self) -> float:
        """Likelihood of superiority: the chance the true score exceeds 0.5."""
        if not self.units or self.variance <= 0:
            return 0.5 if self.score == 0.5 else float(self.score > 0.5)
        return normal_cdf((self.score - 0.5) / math.sqrt(self.variance / self.units))


def _summarise(values: Sequence[float], counts: Sequence[int]) -> MatchSummary:
    """Mean and variance of a unit's score; when every unit scored alike strictly between 0 and 1
    (e.g. all draws), the variance is that of the counts with each empty bin padded as fishtest does."""
    total = sum(counts)
    if total == 0:
        return MatchSummary(0, 0.5, 0.0)
    x = np.asarray(values, dtype=float)
    n = np.asarray(counts, dtype=float)
    mean = float((x * n).sum() / total)
    variance = float((n * (x - mean) ** 2).sum() / total)
    if variance <= 0 and 0 < mean < 1:
        n = np.where(n > 0, n, EMPTY_BIN)
        padded_mean = float((x * n).sum() / n.sum())
        variance = float((n * (x - padded_mean) ** 2).sum() / n.sum())
    return MatchSummary(total, mean, variance)


def trinomial(wins: int, draws: int, losses: int) -> MatchSummary:
    """Per-game statistics from wins, draws and losses."""
    return _summarise((1.0, 0.5, 0.0), (wins, draws, losses))


def graded(counts: Sequence[int]) -> MatchSummary:
    """Per-unit statistics from the counts of unit scores 0, 1/k, ..., 1 (k + 1 evenly spaced bins)."""
    if len(counts) < 2:
        raise ValueError(f"a score distribution needs at least 2 bins, got {len(counts)}")
    return _summarise(np.linspace(0.0, 1.0, len(counts)).tolist(), counts)


def pentanomial(counts: Sequence[int]) -> MatchSummary:
    """Per-pair statistics from the counts of pair scores 0, 0.5, 1, 1.5, 2 (scaled to 0..1)."""
    if len(counts) != 5:
        raise ValueError(f"pentanomial counts need 5 entries, got {len(counts)}")
    return graded(counts)


@dataclass(frozen=True)
class Rating:
    """One agent's fitted rating with its 95% interval, relative to the anchor."""

    name: str
    elo: float
    ci95: tuple[float, float]
    games: int


def bradley_terry(names: Sequence[str], results: Iterable[tuple[str, str, float]],
                  anchor: str, iterations: int = 200) -> list[Rating]:
    """Ratings from pairwise results (a, b, score of a in [0, 1]), anchored at 0 on `anchor`.

    Fitted by Newton's method on the Bradley–Terry likelihood with a weak prior (one draw against a
    virtual equal player) so that unbeaten agents get finite ratings; intervals from the inverse Hessian.

    Raises:
        ValueError: the anchor is unknown.
    """
    index = {name: i for i, name in enumerate(names)}
    if anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not among the agents: {', '.join(names)}")
    n = len(names)
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    for a, b, score in results:
        i, j = index[a], index[b]
        wins[i, j] += score
        wins[j, i] += 1 - score
        games[i, j] += 1
        games[j, i] += 1
    theta = np.zeros(n)
    scale = math.log(10) / 400
    hessian = np.eye(n)
    for _ in range(iterations):
        diff = theta[:, None] - theta[None, :]
        p = 1 / (1 + np.exp(-diff))
        grad = (wins - games * p).sum(axis=1) + (0.5 - 1 / (1 + np.exp(-theta)))
        weight = games * p * (1 - p)
        hessian = -np.diag(weight.sum(axis=1)) + weight
        hessian -= np.diag(np.exp(-theta) / (1 + np.exp(-theta)) ** 2)
        step = np.linalg.solve(hessian, grad)
        theta = theta - step
        if np.abs(step).max() < 1e-10:
            break
    covariance = np.linalg.inv(-hessian)
    k = index[anchor]
    ratings = []
    for name, i in index.items():
        variance = covariance[i, i] + covariance[k, k] - 2 * covariance[i, k]
        half = Z95 * math.sqrt(max(variance, 0.0))
        elo = (theta[i] - theta[k]) / scale
        ratings.append(Rating(name, elo, (elo - half / scale, elo + half / scale),
                              int(games[i].sum())))
    return sorted(ratings, key=lambda r: -r.elo)
