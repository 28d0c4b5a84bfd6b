"""ISMCTS converges to the exact solver on the stored last-walk positions (issue 4)."""

from __future__ import annotations

import pytest

from advisor.players.bots import DEFAULT_ROLLOUT
from search.ismcts import search
from search.request import SearchRequest
from solver_positions import load_entries, replay

ENTRIES = load_entries()


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"seed{e['seed']}-{e['phase']}")
def test_every_option_within_two_points_of_exact(entry: dict) -> None:
    """With every root option searched equally (20,000 iterations), each option's mean win is
    within 0.02 of the solver's exact value and the best mean is the solver's best option."""
    pos = replay(entry)
    result = search(pos, SearchRequest.of(iterations=20_000, seed=11, rollout=DEFAULT_ROLLOUT,
                                       root_selection="uniform"))
    for exact in entry["exact"]:
        stats = next(s for s in result.actions if str(s.action) == exact["action"])
        assert stats.win == pytest.approx(exact["win"], abs=0.02), exact["action"]
    assert str(result.chosen) == entry["best"]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"seed{e['seed']}-{e['phase']}")
def test_uct_picks_the_exact_best_action(entry: dict) -> None:
    """Plain UCT at the root (default exploration, 4,000 iterations) picks the solver's best."""
    result = search(replay(entry), SearchRequest.of(iterations=4_000, seed=5, rollout=DEFAULT_ROLLOUT))
    assert str(result.chosen) == entry["best"]
