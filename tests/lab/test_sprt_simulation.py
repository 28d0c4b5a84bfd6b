"""The test of the test, small enough for CI: seeded simulated SPRTs accept the wrong hypothesis
about as often as alpha and beta say (benchmarks/bench_sprt.py runs 1,000 tests a case)."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.arena.sprt import SprtSettings
from lab.sprt_simulation import SHAPES, simulate, true_distribution

RUNS = 300
SETTINGS = SprtSettings(0.0, 40.0)
"""Normalized Elo, as the arena's default; a wide gap keeps the tests short."""


def test_true_distributions_keep_the_shape_and_get_the_strength() -> None:
    even = true_distribution(SHAPES["wide"], 0.0, "logistic")
    assert even == pytest.approx(np.array(SHAPES["wide"]))
    stronger = true_distribution(SHAPES["draw-heavy"], 10.0, "logistic")
    assert (stronger * np.linspace(0, 1, 5)).sum() == pytest.approx(0.5143871, abs=1e-6)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("truth", ["elo0", "elo1"])
def test_wrong_acceptance_is_near_alpha_and_beta(shape: str, truth: str) -> None:
    """300 tests (SE of a 5% rate: 1.3 points), so the band is wider than the benchmark's 3-7%."""
    elo = SETTINGS.elo0 if truth == "elo0" else SETTINGS.elo1
    result = simulate(SETTINGS, true_distribution(SHAPES[shape], elo, SETTINGS.elo_model), RUNS,
                      seed=17)
    wrong = result.accepted_h1 if truth == "elo0" else result.accepted_h0
    assert result.undecided == 0
    assert 0.015 <= wrong / RUNS <= 0.09
    assert 50 < result.median_length < 400  # pairs: about 160 at this gap


def test_the_simulation_is_seeded() -> None:
    probs = true_distribution(SHAPES["wide"], 0.0, "normalized")
    one, two = (simulate(SETTINGS, probs, 20, seed=5) for _ in range(2))
    assert one.lengths.tolist() == two.lengths.tolist() and one.accepted_h0 == two.accepted_h0
    assert simulate(SETTINGS, probs, 20, seed=6).lengths.tolist() != one.lengths.tolist()
