"""Match statistics: Elo with confidence intervals, LOS, SPRT (fishtest's GSPRT), Bradley–Terry ratings."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from search.request import wilson_interval

Z95 = 1.959963984540054


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
        """95% interval of the mean score (Wilson's when every unit scored alike, e.g. a sweep)."""
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
    total = sum(counts)
    if total == 0:
        return MatchSummary(0, 0.5, 0.0)
    x = np.asarray(values, dtype=float)
    p = np.asarray(counts, dtype=float) / total
    mean = float((x * p).sum())
    variance = float((p * (x - mean) ** 2).sum())
    return MatchSummary(total, mean, variance)


def trinomial(wins: int, draws: int, losses: int) -> MatchSummary:
    """Per-game statistics from wins, draws and losses."""
    return _summarise((1.0, 0.5, 0.0), (wins, draws, losses))


def pentanomial(counts: Sequence[int]) -> MatchSummary:
    """Per-pair statistics from the counts of pair scores 0, 0.5, 1, 1.5, 2 (scaled to 0..1)."""
    if len(counts) != 5:
        raise ValueError(f"pentanomial counts need 5 entries, got {len(counts)}")
    return _summarise((0.0, 0.25, 0.5, 0.75, 1.0), counts)


def fractional(scores: Iterable[float]) -> MatchSummary:
    """Per-unit statistics from arbitrary scores in [0, 1] (e.g. shared wins 1/k)."""
    values: dict[float, int] = {}
    for score in scores:
        values[score] = values.get(score, 0) + 1
    return _summarise(list(values), list(values.values()))


@dataclass(frozen=True)
class SprtResult:
    """The sequential test's state: log-likelihood ratio, its bounds and the decision so far."""

    llr: float
    lower: float
    upper: float
    elo0: float
    elo1: float

    @property
    def decision(self) -> str:
        """``H1`` (accept elo1), ``H0`` (accept elo0) or ``continue``."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return "continue"


def sprt(summary: MatchSummary, elo0: float, elo1: float,
         alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """Fishtest's generalised SPRT (normal approximation) of elo0 against elo1 (logistic Elo)."""
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    if summary.units == 0 or summary.variance <= 0:
        return SprtResult(0.0, lower, upper, elo0, elo1)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    llr = summary.units * (s1 - s0) * (2 * summary.score - s0 - s1) / (2 * summary.variance)
    return SprtResult(llr, lower, upper, elo0, elo1)


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
