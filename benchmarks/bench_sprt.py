"""The SPRT's error rates and lengths, simulated: 1,000 seeded tests per case, checked after every pair.

For both Elo models, two shapes of pentanomial (draw-heavy, wide) and a true Elo at elo0 and at elo1
of ``<0, 10>``: the wrong hypothesis must be accepted in 3-7% of the tests (alpha = beta = 0.05).
The median number of pairs to a decision goes to ``extra_info`` (``make bench`` shows the time; the
numbers are in docs/arena.md). ``make test`` (benchmarks disabled) skips it: the smaller seeded
simulation in tests/arena/test_sprt_simulation.py is the check there.
"""

from __future__ import annotations

import pytest

from advisor.arena.sprt import ELO_MODELS, SprtSettings
from lab.sprt_simulation import SHAPES, simulate, true_distribution

RUNS = 1_000
SEED = 2026


@pytest.mark.parametrize("model", ELO_MODELS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("truth", ["elo0", "elo1"])
def test_wrong_acceptance_rate(benchmark, model: str, shape: str,  # type: ignore[no-untyped-def]
                               truth: str) -> None:
    if benchmark.disabled:
        pytest.skip("the 1,000-run simulation runs under `make bench`; "
                    "tests/arena/test_sprt_simulation.py checks a smaller one")
    settings = SprtSettings(0.0, 10.0, elo_model=model)
    elo = settings.elo0 if truth == "elo0" else settings.elo1
    probs = true_distribution(SHAPES[shape], elo, model)
    result = benchmark.pedantic(simulate, args=(settings, probs, RUNS, SEED), rounds=1, iterations=1)
    wrong = result.accepted_h1 if truth == "elo0" else result.accepted_h0
    benchmark.extra_info.update(wrong_rate=wrong / RUNS, median_pairs=result.median_length)
    assert result.undecided == 0
    assert 0.03 <= wrong / RUNS <= 0.07, f"{wrong} of {RUNS} accepted the wrong hypothesis"
