"""A score utility: every node maximises its chooser's return blended with the final-score margin
(``SearchRequest.score_utility``, issue 27)."""

from __future__ import annotations

import math

import pytest

from advisor.players.agents import SearchAgent, make_agent
from advisor.players.specs import AgentSpecError
from search.errors import SearchConfigError
from search.ismcts import LiveTree, score_utilities, search
from search.request import SearchRequest, SearchResult, SearchTree
from toy_games import GambleGame

EVEN_CHANCES = GambleGame((
    (0.5, (30.0, 29.0), (29.0, 30.0)),   # win or lose by a point
    (0.5, (45.0, 30.0), (30.0, 31.0)),   # the same chance; win by 15, lose by 1
))
BETTER_CHANCE = GambleGame((
    (0.7, (30.0, 29.0), (29.0, 30.0)),   # a better chance, by a point either way
    (0.5, (45.0, 30.0), (30.0, 31.0)),   # a worse chance, bigger wins
))


def test_the_utility_blends_the_return_with_the_margin() -> None:
    """(1 - w) * return + w * (1 + tanh(margin / scale)) / 2, the margin against the best other."""
    values = score_utilities([1.0, 0.0, 0.0], [40.0, 30.0, 35.0], 0.25, 10.0)
    assert values[0] == pytest.approx(0.75 + 0.25 * (1 + math.tanh(0.5)) / 2)
    assert values[1] == pytest.approx(0.25 * (1 + math.tanh(-1.0)) / 2)
    assert values[2] == pytest.approx(0.25 * (1 + math.tanh(-0.5)) / 2)
    assert score_utilities([0.5, 0.5], [30.0, 30.0], 1.0, 10.0) == [0.5, 0.5]
    assert all(0 <= v <= 1 for v in score_utilities([1.0, 0.0], [200.0, 0.0], 0.9, 1.0))


@pytest.mark.parametrize("field,value", [("score_utility", -0.1), ("score_utility", 1.5),
                                         ("score_utility", True), ("score_scale", 0.0),
                                         ("score_scale", float("inf")), ("score_scale", "10")])
def test_bad_settings_are_refused_when_built(field: str, value: object) -> None:
    with pytest.raises(SearchConfigError, match=field):
        SearchRequest(iterations=10, **{field: value})  # type: ignore[arg-type]


def test_equal_chances_are_told_apart_by_the_margin_and_the_win_stays_the_return() -> None:
    """Of two gambles with the same win chance, the utility prefers the one that wins by more; the
    answer still reports each option's win chance (about 0.5), not its utility."""
    result = search(EVEN_CHANCES, SearchRequest(iterations=4000, seed=3, score_utility=0.3))
    assert result.chosen == 1
    bigger, smaller = result.stats(1), result.stats(0)
    assert bigger.visits > 2 * smaller.visits
    for stats in (bigger, smaller):
        assert stats.ci_low <= 0.5 <= stats.ci_high
        assert stats.win == pytest.approx(stats.wins[0])
        assert stats.win + stats.wins[1] == pytest.approx(1.0)


def test_a_better_win_chance_outweighs_a_small_weight_on_the_margin() -> None:
    result = search(BETTER_CHANCE, SearchRequest(iterations=4000, seed=3, score_utility=0.2))
    assert result.chosen == 0
    assert result.stats(0).win > result.stats(1).win


def test_off_by_default_and_the_same_search_at_zero() -> None:
    plain = search(BETTER_CHANCE, SearchRequest(iterations=500, seed=9))
    zero = search(BETTER_CHANCE, SearchRequest(iterations=500, seed=9, score_utility=0.0))
    assert plain.actions == zero.actions


def test_the_kept_tree_holds_returns_not_utilities() -> None:
    """The tree for inspection shows each edge's return sum (the root's: each option's win chance
    times its visits), whatever the utility."""
    result = search(EVEN_CHANCES, SearchRequest(iterations=600, seed=4, score_utility=0.5, keep_tree=True))
    assert result.tree is not None
    root = result.tree.nodes[(0, EVEN_CHANCES.information_set_key(0))]
    for action, (visits, value_sum) in root.items():
        assert value_sum == pytest.approx(result.stats(action).win * visits)


def test_the_agent_spec_takes_the_utility() -> None:
    agent = make_agent("ismcts:iterations=50,score_utility=0.3,score_scale=8")
    assert isinstance(agent, SearchAgent)
    assert (agent.template.score_utility, agent.template.score_scale) == (0.3, 8)
    with pytest.raises(AgentSpecError, match="score_utility"):
        make_agent("ismcts:iterations=50,score_utility=2")


def test_a_live_snapshot_holds_returns_too() -> None:
    """The progress hook's snapshot of a growing tree shows return sums, as the finished tree does."""
    request = SearchRequest(iterations=640, seed=4, score_utility=0.5, keep_tree=True)
    seen: list[tuple[SearchResult, SearchTree]] = []

    def keep(so_far: SearchResult, live: LiveTree) -> None:
        seen.append((so_far, live.snapshot()))

    search(EVEN_CHANCES, request, on_progress=keep, progress_every=320)
    so_far, snapshot = seen[-1]
    root = snapshot.nodes[(0, EVEN_CHANCES.information_set_key(0))]
    for action, (visits, value_sum) in root.items():
        assert visits == so_far.stats(action).visits
        assert value_sum == pytest.approx(so_far.stats(action).win * visits)
