"""Means with their 95 % intervals, built up one value at a time (a corpus is never held in memory)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from search.request import Z95, wilson_interval


WIN_DIFFERENCE = (-1.0, 1.0)
"""Where a difference of two win shares lies: its interval never reaches past it."""


@dataclass
class Mean:
    """A running mean with a normal 95 % interval (Welford's sums), cut to `bounds` when the
    values have them (a difference of win shares: :data:`WIN_DIFFERENCE`)."""

    n: int = 0
    mean: float = 0.0
    _m2: float = 0.0
    bounds: tuple[float, float] | None = None

    def add(self, value: float) -> None:
        """Count one more value."""
        self.n += 1
        delta = value - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (value - self.mean)

    @property
    def sd(self) -> float:
        """The sample standard deviation (0 below two values)."""
        return math.sqrt(self._m2 / (self.n - 1)) if self.n > 1 else 0.0

    @property
    def half_width(self) -> float | None:
        """Half the 95 % interval of the mean (None below two values: no spread to judge by)."""
        return Z95 * self.sd / math.sqrt(self.n) if self.n > 1 else None

    def interval(self) -> list[float] | None:
        """The 95 % interval of the mean, ``[low, high]`` within the bounds, or None below two
        values (too few to judge)."""
        half = self.half_width
        if half is None:
            return None
        low, high = self.mean - half, self.mean + half
        if self.bounds is not None:
            low, high = max(low, self.bounds[0]), min(high, self.bounds[1])
        return [round(low, 4), round(high, 4)]


@dataclass
class Share:
    """A success share (a win counts 1, a shared win 1/k) with its Wilson 95 % interval."""

    n: int = 0
    total: float = 0.0

    def add(self, value: float) -> None:
        """Count one more trial worth `value` in [0, 1]."""
        self.n += 1
        self.total += value

    @property
    def mean(self) -> float:
        """The share (0 with no trial)."""
        return self.total / self.n if self.n else 0.0

    def interval(self) -> list[float]:
        """The Wilson 95 % interval ``[low, high]`` ((0, 1) with no trial)."""
        low, high = wilson_interval(self.mean, self.n)
        return [round(low, 4), round(high, 4)]


@dataclass
class Counts:
    """How often each value came up (a histogram over small integers)."""

    counts: dict[int, int] = field(default_factory=dict)

    def add(self, value: int) -> None:
        """Count one more `value`."""
        self.counts[value] = self.counts.get(value, 0) + 1

    @property
    def n(self) -> int:
        """Values counted."""
        return sum(self.counts.values())

    def quantile(self, q: float) -> int | None:
        """The smallest value with at least a share `q` of the values at or below it."""
        total, seen = self.n, 0
        for value in sorted(self.counts):
            seen += self.counts[value]
            if seen >= q * total:
                return value
        return None


def rounded(value: float, digits: int = 4) -> float:
    """`value` rounded for a report."""
    return round(value, digits)
