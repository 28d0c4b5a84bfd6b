"""Fishtest's SPRT: the exact generalised log-likelihood ratio of a pentanomial, its bounds with the
dynamic overshoot correction, in logistic or normalized Elo.

A test sees the counts of its units' scores on an evenly spaced grid from 0 to 1: for game pairs the
pentanomial (pair scores 0, ½, 1, 1½, 2 of 2), for single games the trinomial. Empty bins count as
0.001 of a unit (fishtest's regularisation; bins with results are left alone). Under each hypothesis
the LLR takes the maximum-likelihood distribution on the same grid whose expected score (logistic
Elo) or t-value (normalized Elo) is the hypothesis's; see docs/arena.md for the formulas and
fishtest's papers behind them. Everything is vectorised over independent tests (the leading axes of
the counts), so the simulation that checks the error rates runs this very code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from advisor.arena.stats import EMPTY_BIN, MatchSummary, graded, score_from_elo

ELO_MODELS = ("normalized", "logistic")
"""The Elo scales of a test; normalized is fishtest's default for SPRTs."""
NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of t-value per game, (score − ½) / σ per game (≈ 347.4)."""
ROOT_ITERATIONS = 200
ROOT_TOLERANCE = 1e-12
"""Relative precision of a root; the LLR is stationary in it, so this is far more than it needs."""
MLE_ITERATIONS = 100
MLE_TOLERANCE = 1e-10
"""Largest change of a fitted probability at which the t-value fit stops (fishtest's: 1e-9)."""

Decision = Literal["H0", "H1", "continue"]
Floats = NDArray[np.float64]


@dataclass(frozen=True)
class SprtSettings:
    """What a test decides: H0 elo = elo0 against H1 elo = elo1 at error rates alpha and beta.

    Raises:
        ValueError: elo0 ≥ elo1, an error rate outside (0, 1), alpha + beta ≥ 1, or an unknown model.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    elo_model: str = "normalized"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise ValueError(f"expected finite elo0 < elo1, got {self.elo0:g}, {self.elo1:g}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 1:
                raise ValueError(f"{name} must be between 0 and 1, got {rate:g}")
        if self.alpha + self.beta >= 1:
            raise ValueError(f"alpha + beta must be below 1, got {self.alpha + self.beta:g}")
        if self.elo_model not in ELO_MODELS:
            raise ValueError(f"unknown Elo model {self.elo_model!r} (expected "
                             f"{' or '.join(ELO_MODELS)})")
        check_reachable(self, 5)

    @property
    def lower(self) -> float:
        """Wald's lower bound log(β / (1 − α)): at or below it the test accepts H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound log((1 − β) / α): at or above it the test accepts H1."""
        return math.log((1 - self.beta) / self.alpha)


def grid(bins: int) -> Floats:
    """The unit scores of `bins` evenly spaced bins from 0 to 1."""
    return np.linspace(0.0, 1.0, bins)


def padded(counts: ArrayLike) -> Floats:
    """The counts as floats with each empty bin set to 0.001 (fishtest's regularisation)."""
    values = np.asarray(counts, dtype=float)
    return np.where(values > 0, values, EMPTY_BIN)


def games_per_unit(bins: int) -> int:
    """Head-to-head games behind one unit of a grid: 1 for the trinomial, 2 for the pentanomial."""
    return (bins - 1) // 2


# The fits below hold distributions with the bins on the FIRST axis (shape (bins, ...)), so that
# every sum over bins adds a few large arrays instead of reducing many tiny rows.

def _column(values: Floats, ndim: int) -> Floats:
    return values.reshape((-1,) + (1,) * (ndim - 1))


def _moments(probs: Floats) -> tuple[Floats, Floats]:
    values = _column(grid(probs.shape[0]), probs.ndim)
    mean = (probs * values).sum(axis=0)
    return mean, (probs * (values - mean) ** 2).sum(axis=0)


class Fit(NamedTuple):
    """Maximum-likelihood distributions (bins first) with their Lagrange multipliers x: each is
    p̂ / (1 + x a); a fit can start the next one's search (a warm start)."""

    probs: Floats
    multiplier: Floats


def secular_root(shifts: Floats, probs: Floats, start: Floats | None = None) -> Floats:
    """The x solving Σᵢ pᵢ aᵢ / (1 + x aᵢ) = 0 for each distribution (bins first: aᵢ = `shifts[i]`,
    of both signs, pᵢ = `probs[i]` > 0).

    The sum falls strictly from +∞ to −∞ across (−1 / max a, −1 / min a), so the root is unique;
    Newton's method, from `start` where it lies in that range (else from 0), keeps to a shrinking
    bracket and bisects when a step would leave it.

    Raises:
        ValueError: shifts that do not take both signs (no distribution on the grid fits).
    """
    high_shift, low_shift = shifts.max(axis=0), shifts.min(axis=0)
    if np.any(high_shift <= 0) or np.any(low_shift >= 0):
        raise ValueError("the hypothesis lies outside what any score distribution on the grid can reach")
    bins, shape = shifts.shape[0], high_shift.shape
    shifts, probs = shifts.reshape(bins, -1), np.broadcast_to(probs, (bins, *shape)).reshape(bins, -1)
    low, high = (-1.0 / high_shift).ravel(), (-1.0 / low_shift).ravel()
    x = np.zeros_like(low)
    if start is not None:
        first = np.broadcast_to(start, shape).ravel()
        x = np.where((first > low) & (first < high), first, x)
    solved = x.copy()
    todo = np.arange(x.size)  # the roots not yet found: only they are iterated
    for _ in range(ROOT_ITERATIONS):
        ratio = shifts / (1.0 + x * shifts)
        value = (probs * ratio).sum(axis=0)
        slope = -(probs * ratio ** 2).sum(axis=0)
        low = np.where(value > 0, x, low)
        high = np.where(value < 0, x, high)
        newton = -value / slope
        done = np.abs(newton) <= ROOT_TOLERANCE * (1.0 + np.abs(x))
        solved[todo[done]] = x[done]
        if np.all(done):
            break
        inside = (x + newton > low) & (x + newton < high)
        x = np.where(inside, x + newton, (low + high) / 2)
        keep = ~done
        todo, x, low, high = todo[keep], x[keep], low[keep], high[keep]
        shifts, probs = shifts[:, keep], probs[:, keep]
    else:
        solved[todo] = x
    return solved.reshape(shape)


def _fit(probs: Floats, shifts: Floats, start: Floats | None) -> Fit:
    multiplier = secular_root(shifts, probs, start)
    return Fit(probs / (1.0 + multiplier * shifts), multiplier)


def mle_with_mean(probs: Floats, mean: ArrayLike, start: Fit | None = None) -> Fit:
    """The distribution on the grid nearest (maximum likelihood) to `probs` (bins first) with this
    expected score (a number, or one per distribution)."""
    shifts = _column(grid(probs.shape[0]), probs.ndim) - np.asarray(mean, dtype=float)
    return _fit(probs, np.broadcast_to(shifts, probs.shape),
                None if start is None else start.multiplier)


def mle_with_t_value(probs: Floats, t_value: ArrayLike, reference: float = 0.5,
                     start: Fit | None = None) -> Fit:
    """The distribution on the grid nearest (maximum likelihood) to `probs` (bins first) whose
    (mean − `reference`) / standard deviation is `t_value` (a number, or one per distribution), by
    fishtest's fixed-point iteration from the uniform distribution (or from `start`)."""
    bins, shape = probs.shape[0], probs.shape[1:]
    values = grid(bins)[:, None]
    observed = probs.reshape(bins, -1)
    target = np.broadcast_to(np.asarray(t_value, dtype=float), shape).ravel()
    if start is None:
        fitted, multiplier = np.full(observed.shape, 1.0 / bins), np.zeros(observed.shape[1])
    else:
        fitted = np.broadcast_to(start.probs, probs.shape).reshape(bins, -1).copy()
        multiplier = np.broadcast_to(start.multiplier, shape).ravel().copy()
    todo = np.arange(observed.shape[1])  # the fits still moving: only they are iterated
    for _ in range(MLE_ITERATIONS):
        current = fitted[:, todo]
        mean, variance = _moments(current)
        sigma = np.sqrt(variance)
        shifts = values - reference - target[todo] * sigma * (1.0 + ((mean - values) / sigma) ** 2) / 2
        updated = _fit(observed[:, todo], shifts, multiplier[todo])
        fitted[:, todo], multiplier[todo] = updated.probs, updated.multiplier
        todo = todo[np.abs(updated.probs - current).max(axis=0) >= MLE_TOLERANCE]
        if not todo.size:
            break
    return Fit(fitted.reshape(probs.shape), multiplier.reshape(shape))


def hypothesis_targets(settings: SprtSettings, bins: int) -> tuple[float, float]:
    """H0's and H1's expected unit score (logistic) or unit t-value (normalized) on this grid."""
    if settings.elo_model == "logistic":
        return score_from_elo(settings.elo0), score_from_elo(settings.elo1)
    scale = math.sqrt(games_per_unit(bins)) / NELO_PER_T
    return settings.elo0 * scale, settings.elo1 * scale


def check_reachable(settings: SprtSettings, bins: int) -> None:
    """Check that fishtest's t-value fit can start from the hypotheses on this grid: from the
    uniform distribution (σ₀) it needs |t| < 1 / (σ₀ + 1/(4σ₀)), about ±231 normalized Elo for the
    pentanomial (logistic hypotheses are always reachable).

    Raises:
        ValueError: a normalized bound at or beyond that.
    """
    if settings.elo_model != "normalized":
        return
    sigma = math.sqrt(float(_moments(np.full(bins, 1.0 / bins))[1]))
    limit = NELO_PER_T / (sigma + 0.25 / sigma) / math.sqrt(games_per_unit(bins))
    if max(abs(settings.elo0), abs(settings.elo1)) >= limit:
        raise ValueError(f"normalized Elo bounds must lie within ±{math.floor(limit)} here, got "
                         f"{settings.elo0:g}, {settings.elo1:g}")


def llr_and_fits(counts: ArrayLike, settings: SprtSettings,
                 start: Fit | None = None) -> tuple[Floats, Fit]:
    """:func:`llr` with the fits under H0 and H1, shaped (bins, 2, *counts' leading axes), which
    may start the next call's (`start`)."""
    raw = np.moveaxis(np.asarray(counts, dtype=float), -1, 0)
    values = padded(raw)
    total = values.sum(axis=0)
    probs = values / total
    both = np.broadcast_to(probs[:, None], (probs.shape[0], 2, *probs.shape[1:]))
    targets = _column(np.array(hypothesis_targets(settings, raw.shape[0])), probs.ndim)
    if settings.elo_model == "logistic":
        fit = mle_with_mean(both, targets, start)
    else:
        fit = mle_with_t_value(both, targets, start=start)
    ratio = total * (probs * (np.log(fit.probs[:, 1]) - np.log(fit.probs[:, 0]))).sum(axis=0)
    return np.where(raw.sum(axis=0) > 0, ratio, 0.0), fit


def llr(counts: ArrayLike, settings: SprtSettings) -> Floats:
    """The generalised log-likelihood ratio of H1 against H0 for each row of counts (bins last; 0
    for no units).

    N Σ p̂ᵢ log(p₁ᵢ / p₀ᵢ), where p̂ is the observed distribution (empty bins padded), N its padded
    count and pⱼ the maximum-likelihood distribution on the grid under hypothesis j.
    """
    return llr_and_fits(counts, settings)[0]


def llr_of(counts: Sequence[int], settings: SprtSettings) -> float:
    """:func:`llr` of one test."""
    return float(llr(np.asarray([counts]), settings)[0])


def normalized_elo(counts: Sequence[int], score: float) -> float:
    """`score` as normalized Elo: (score − ½) / σ per game × 800 / ln 10, σ from the (padded) counts."""
    values = padded(counts)
    _, variance = _moments(values / values.sum())
    sigma_per_game = math.sqrt(float(variance) * games_per_unit(len(counts)))
    return (score - 0.5) / sigma_per_game * NELO_PER_T


@dataclass(frozen=True)
class SprtResult:
    """A test's state at one moment: its LLR, the bounds then in force and the decision."""

    settings: SprtSettings
    llr: float
    lower: float
    """Wald's lower bound, raised by the overshoot estimated so far."""
    upper: float
    """Wald's upper bound, lowered by the overshoot estimated so far."""
    units: int
    """Units (game pairs for the pentanomial) behind the LLR."""

    @property
    def decision(self) -> Decision:
        """``H1`` (accept elo1), ``H0`` (accept elo0) or ``continue``."""
        if self.llr <= self.lower:  # first, as fishtest does, should the moved bounds ever cross
            return "H0"
        if self.llr >= self.upper:
            return "H1"
        return "continue"

    @property
    def elo0(self) -> float:
        """H0's Elo."""
        return self.settings.elo0

    @property
    def elo1(self) -> float:
        """H1's Elo."""
        return self.settings.elo1


class SequentialTest:
    """Independent sequential tests, each updated as its units come in, with fishtest's dynamic
    overshoot correction (Siegmund, Sequential Analysis, corollary 8.33).

    Each time the LLR reaches a new minimum (maximum) one unit after the last update, the step past
    the old one is an overshoot sample; a bound is moved inwards by Σ δ² / (2 Σ |δ|) of its samples,
    the expected overshoot of a random walk at a boundary. An update that skips units restarts the
    sampling at the current LLR; an update with fewer units than before ends the correction.
    """

    def __init__(self, settings: SprtSettings, runs: int = 1) -> None:
        """`runs` tests of these settings, none with any units yet."""
        self.settings = settings
        self.llr = np.zeros(runs)
        self.units = np.zeros(runs, dtype=np.int64)
        self.corrected = np.ones(runs, dtype=bool)
        self.minimum, self.maximum = np.zeros(runs), np.zeros(runs)
        self.sum_down, self.squares_down = np.zeros(runs), np.zeros(runs)
        self.sum_up, self.squares_up = np.zeros(runs), np.zeros(runs)

    def update(self, counts: ArrayLike, rows: NDArray[np.intp] | None = None) -> None:
        """Take the current counts of every test, or of the tests `rows` (one row of counts each)."""
        counts = np.asarray(counts)
        self.record(llr(counts, self.settings), counts.sum(axis=-1), rows)

    def record(self, llrs: Floats, units: NDArray[np.int64],
               rows: NDArray[np.intp] | None = None) -> None:
        """Take each test's LLR after `units` units (all tests, or the tests `rows`)."""
        where = slice(None) if rows is None else rows
        last = self.units[where]
        self.corrected[where] &= units >= last
        step = units == last + 1
        down = np.minimum(llrs - self.minimum[where], 0.0) * step
        up = np.maximum(llrs - self.maximum[where], 0.0) * step
        self.sum_down[where] += down
        self.squares_down[where] += down ** 2
        self.sum_up[where] += up
        self.squares_up[where] += up ** 2
        moved = units != last
        self.minimum[where] = np.where(moved & (~step | (down < 0)), llrs, self.minimum[where])
        self.maximum[where] = np.where(moved & (~step | (up > 0)), llrs, self.maximum[where])
        self.llr[where] = llrs
        self.units[where] = units

    def bounds(self, rows: NDArray[np.intp] | None = None) -> tuple[Floats, Floats]:
        """Each test's lower and upper bound (or those of `rows`), moved inwards by its estimated
        overshoot."""
        where = slice(None) if rows is None else rows
        sum_down, sum_up, corrected = self.sum_down[where], self.sum_up[where], self.corrected[where]
        with np.errstate(divide="ignore", invalid="ignore"):
            below = np.where(corrected & (sum_down < 0), -self.squares_down[where] / sum_down / 2, 0.0)
            above = np.where(corrected & (sum_up > 0), self.squares_up[where] / sum_up / 2, 0.0)
        return self.settings.lower + below, self.settings.upper - above

    def decisions(self, rows: NDArray[np.intp] | None = None) -> NDArray[np.int8]:
        """Each test's decision (or those of `rows`): −1 accepts H0, +1 accepts H1, 0 continues."""
        lower, upper = self.bounds(rows)
        value = self.llr if rows is None else self.llr[rows]
        return np.where(value <= lower, -1, np.where(value >= upper, 1, 0)).astype(np.int8)

    def result(self, run: int = 0) -> SprtResult:
        """One test's state now."""
        lower, upper = self.bounds()
        return SprtResult(self.settings, float(self.llr[run]), float(lower[run]), float(upper[run]),
                          int(self.units[run]))


def format_counts(counts: Sequence[int]) -> str:
    """``N0,N1,...``: counts as `parse_counts` reads them (``20,5,50,5,23``)."""
    return ",".join(map(str, counts))


def parse_counts(text: str, bins: int = 5) -> tuple[int, ...]:
    """``N0,N1,...`` as `bins` non-negative counts, at least one of them positive.

    Raises:
        ValueError: anything else.
    """
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"expected {bins} comma-separated counts, got {text!r}") from None
    if len(counts) != bins:
        raise ValueError(f"expected {bins} comma-separated counts, got {len(counts)} in {text!r}")
    if min(counts) < 0 or not sum(counts):
        raise ValueError(f"expected counts of 0 or more, not all 0, got {text!r}")
    return counts


@dataclass(frozen=True)
class Calculation:
    """A fixed sample's Elo in both models, its LOS, and the SPRT's verdict on it (Wald's bounds:
    a single sample has no history to estimate the overshoot from)."""

    counts: tuple[int, ...]
    summary: MatchSummary
    normalized: tuple[float, float, float]
    """Normalized Elo and its 95% interval."""
    result: SprtResult

    def to_dict(self) -> dict[str, object]:
        """The calculation as JSON-ready data."""
        low, high = self.summary.elo_ci95
        result = self.result
        return {"counts": list(self.counts), "units": self.summary.units,
                "games": self.summary.units * games_per_unit(len(self.counts)),
                "score": self.summary.score,
                "elo": {"logistic": {"elo": self.summary.elo, "ci95": [low, high]},
                        "normalized": {"elo": self.normalized[0], "ci95": list(self.normalized[1:])}},
                "los": self.summary.los,
                "sprt": {"elo0": result.elo0, "elo1": result.elo1,
                         "elo_model": result.settings.elo_model, "alpha": result.settings.alpha,
                         "beta": result.settings.beta, "llr": result.llr, "lower": result.lower,
                         "upper": result.upper, "decision": result.decision}}


def calculate(counts: Sequence[int], settings: SprtSettings) -> Calculation:
    """Elo, LOS and the SPRT of one sample of counts (a pentanomial, or any even grid)."""
    summary = graded(counts)
    low, high = summary.score_ci95
    normalized = tuple(normalized_elo(counts, score) for score in (summary.score, low, high))
    result = SprtResult(settings, llr_of(counts, settings), settings.lower, settings.upper,
                        summary.units)
    return Calculation(tuple(counts), summary, (normalized[0], normalized[1], normalized[2]), result)
