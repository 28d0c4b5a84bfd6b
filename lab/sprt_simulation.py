"""The test of the test: many seeded SPRTs on simulated pentanomial outcomes of a known true Elo, to
measure how often they accept the wrong hypothesis and how long they run (tests/ and benchmarks/)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from advisor.arena.sprt import (
    NELO_PER_T, Fit, SequentialTest, SprtSettings, games_per_unit, llr_and_fits, mle_with_mean,
    mle_with_t_value,
)
from advisor.arena.stats import score_from_elo

SHAPES: dict[str, tuple[float, ...]] = {
    "draw-heavy": (0.01, 0.09, 0.80, 0.09, 0.01),
    "wide": (0.15, 0.20, 0.30, 0.20, 0.15),
}
"""Pentanomial distributions of equal agents: mostly even pairs, or results all over the range."""


def true_distribution(shape: Sequence[float], elo: float, elo_model: str) -> NDArray[np.float64]:
    """The distribution nearest `shape` whose strength is `elo` in this Elo model."""
    probs = np.asarray(shape, dtype=float) / sum(shape)
    if elo_model == "logistic":
        return mle_with_mean(probs, score_from_elo(elo)).probs
    t_value = elo * math.sqrt(games_per_unit(len(probs))) / NELO_PER_T
    return mle_with_t_value(probs, t_value).probs


@dataclass(frozen=True)
class SimulationResult:
    """How the simulated tests ended: counts of each decision and each test's length in units."""

    runs: int
    accepted_h0: int
    accepted_h1: int
    lengths: NDArray[np.int64]
    """Units each test took (``max_units`` for one still undecided)."""

    @property
    def undecided(self) -> int:
        """Tests that reached ``max_units`` without a decision."""
        return self.runs - self.accepted_h0 - self.accepted_h1

    @property
    def median_length(self) -> float:
        """The median number of units before a decision."""
        return float(np.median(self.lengths))


def simulate(settings: SprtSettings, probs: Sequence[float], runs: int, seed: int,
             max_units: int = 200_000, chunk: int = 64) -> SimulationResult:
    """`runs` tests fed one unit at a time, each drawn from `probs`, checked after every unit.

    The LLRs of the next `chunk` units of every running test are computed in one vectorised call
    (warm-started from each test's last fit); the tests then take them one unit at a time.
    """
    rng = np.random.default_rng(seed)
    distribution = np.asarray(probs, dtype=float)
    bins = len(distribution)
    test = SequentialTest(settings, runs)
    counts = np.zeros((runs, bins), dtype=np.int64)
    fit: Fit | None = None
    lengths = np.full(runs, max_units, dtype=np.int64)
    decided = np.zeros(runs, dtype=np.int8)
    active = np.arange(runs)
    done = 0
    while active.size and done < max_units:
        width = min(chunk, max_units - done)
        draws = rng.choice(bins, size=(active.size, width), p=distribution)
        ahead = counts[active][:, None, :] + np.cumsum(np.eye(bins, dtype=np.int64)[draws], axis=1)
        start = None if fit is None else Fit(
            np.broadcast_to(fit.probs[..., None], (bins, 2, active.size, width)),
            np.broadcast_to(fit.multiplier[..., None], (2, active.size, width)))
        values, ahead_fit = llr_and_fits(ahead, settings, start)
        running = np.arange(active.size)
        for offset in range(width):
            rows = active[running]
            test.record(values[running, offset], ahead[running, offset].sum(axis=-1), rows)
            decision = test.decisions(rows)
            stopped = decision != 0
            decided[rows[stopped]] = decision[stopped]
            lengths[rows[stopped]] = done + offset + 1
            running = running[~stopped]
            if not running.size:
                break
        done += width
        counts[active[running]] = ahead[running, -1]
        fit = Fit(ahead_fit.probs[:, :, running, -1], ahead_fit.multiplier[:, running, -1])
        active = active[running]
    return SimulationResult(runs, int((decided == -1).sum()), int((decided == 1).sum()), lengths)
