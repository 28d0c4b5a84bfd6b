"""``ismcts:cutoff=grow`` (issue 27): the rollout cut-off grows with the budget, by one documented rule."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from advisor.players.agents import (
    DEFAULT_CUTOFF, GROW_LIMITS, NOMINAL_RATE, growing_cutoff, make_agent,
)
from advisor.players.specs import AgentSpecError


@pytest.mark.parametrize("spec, cutoff", [
    ("ismcts:cutoff=grow", DEFAULT_CUTOFF),  # the default budget, 1,000 iterations
    ("ismcts:cutoff=grow,iterations=250", 4),
    ("ismcts:cutoff=grow,iterations=1000", 8),
    ("ismcts:cutoff=grow,iterations=4000", 16),
    ("ismcts:cutoff=grow,iterations=16000", 32),
    ("ismcts:cutoff=grow,iterations=1000000", GROW_LIMITS[1]),
    ("ismcts:cutoff=grow,iterations=2", GROW_LIMITS[0]),
    ("ismcts:cutoff=grow,seconds=0.2", 8),  # 0.2 s stands for 1,000 iterations
    ("ismcts:cutoff=grow,seconds=0.8", 16),
    ("ismcts:cutoff=grow,seconds=0.2,workers=4", 16),  # four workers search four times the iterations
    ("ismcts:cutoff=grow,seconds=0.8,iterations=1000", 8),  # the smaller budget decides
    ("ismcts:cutoff=grow,iterations=4000,evaluator=heuristic", 16),
])
def test_the_spec_gives_the_rules_cutoff(spec: str, cutoff: int) -> None:
    request = make_agent(spec).request(seed=3)  # type: ignore[attr-defined]
    assert request.rollout_cutoff == cutoff
    assert request.evaluator is not None


@pytest.mark.parametrize("spec, message", [
    ("ismcts:cutoff=grown", "cutoff must be an int >= 0 or grow, got 'grown'"),
    ("ismcts:cutoff=2.5", "cutoff must be an int >= 0 or grow, got 2.5"),
    ("ismcts:cutoff=grow,evaluator=rollout", "cutoff=grow needs an evaluator"),
    ("ismcts:cutoff=grow,iterations=x", "iterations must be an int >= 1, got 'x'"),
])
def test_bad_cutoffs_are_refused_on_one_line(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message) as error:
        make_agent(spec)
    assert "\n" not in str(error.value)


@given(st.integers(1, 10**7))
def test_the_cutoff_doubles_with_every_four_times_the_iterations(iterations: int) -> None:
    low, high = GROW_LIMITS
    here, later = growing_cutoff(iterations, None), growing_cutoff(4 * iterations, None)
    assert low <= here <= later <= high
    if low < 2 * here < high and 4 * iterations > 100:  # away from the limits and tiny budgets
        assert abs(later - 2 * here) <= 1  # rounding moves each by at most a half


@given(st.integers(1, 10**6), st.sampled_from([1, 2, 4]))
def test_a_time_budget_counts_as_its_nominal_iterations(iterations: int, workers: int) -> None:
    seconds = iterations / NOMINAL_RATE
    assert growing_cutoff(None, seconds) == growing_cutoff(iterations, None)
    assert growing_cutoff(None, seconds / workers, workers) == growing_cutoff(iterations, None)
