"""Progressive widening below the root, guided by the rollout policy (issue 12, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.players.bots import DEFAULT_ROLLOUT
from search.errors import SearchConfigError
from search.ismcts import EdgeStats, widened_actions, search
from search.request import SearchRequest
from lab.value_accuracy import load_cases

HELD_OUT = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "continuation_heldout.json"


def visited(times: int) -> EdgeStats:
    """An action's statistics after `times` visits."""
    stats = EdgeStats()
    stats.visits = stats.availability = times
    return stats


def test_a_thin_node_considers_only_the_policys_action() -> None:
    """Visited n times, a node offers the guide and floor(widening * sqrt(n)) others, in order."""
    legal = [0, 1, 2, 3]
    assert widened_actions(legal, {}, 0.5, 2) == [2]
    assert widened_actions(legal, {2: visited(16)}, 0.5, 2) == [2, 0, 1]
    assert widened_actions(legal, {0: visited(50), 2: visited(50)}, 0.5, 2) == [2, 0, 1, 3]


@pytest.mark.parametrize("field, value", [("widening", -1.0), ("widening", float("nan")),
                                          ("exploration_below", -0.1)])
def test_bad_widening_settings_are_refused_when_built(field: str, value: float) -> None:
    with pytest.raises(SearchConfigError, match=field):
        SearchRequest.of(iterations=10, **{field: value})  # type: ignore[arg-type]


def test_widening_is_seeded_and_off_by_default() -> None:
    """Same seed, same answer; widening 0 with no separate constant below is the plain search."""
    pos = load_cases(HELD_OUT)[0].position
    plain = SearchRequest.of(iterations=300, seed=5, rollout=DEFAULT_ROLLOUT)
    off = SearchRequest.of(iterations=300, seed=5, rollout=DEFAULT_ROLLOUT, widening=0.0,
                        exploration_below=None)
    assert search(pos, plain).actions == search(pos, off).actions
    widened = SearchRequest.of(iterations=300, seed=5, rollout=DEFAULT_ROLLOUT, widening=0.1,
                            exploration_below=0.3)
    assert search(pos, widened).actions == search(pos, widened).actions
