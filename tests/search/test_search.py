"""ISMCTS on Refuge: request checks, determinism, information safety, bots and rollouts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.players.bots import (
    DEFAULT_ROLLOUT, HeuristicEvaluator, HeuristicPolicy, cautious_bot, greedy_bot,
    random_bot, storm_hit_chance,
)
from advisor.players.agents import make_agent
from positions import Position, parse_action
from builders import midgame
from search.errors import SearchConfigError, SearchError
from search.ismcts import search
from search.parallel import derive_seed, split_iterations, worker_seeds
from search.records import RootStats
from search.request import RootSums, SearchRequest, SearchResult, wilson_interval, worker_spread


def two_hidden_choices() -> tuple[Position, Position]:
    """Two positions that differ only in player 0's unrevealed DECIDE choice (C6), player 1 to act."""
    pos = midgame(decisions=0)
    first, second = pos.copy(), pos.copy()
    first.apply(parse_action("return"))
    second.apply(parse_action("draw"))
    assert first.current_player() == second.current_player() == 1
    return first, second


@pytest.mark.parametrize("bad, message", [
    ({}, "iterations, seconds or both"),
    ({"iterations": 0}, "iterations must be"),
    ({"seconds": -1.0}, "seconds must be"),
    ({"iterations": 10, "workers": 0}, "workers must be"),
    ({"iterations": 1, "workers": 2}, "2 workers for only 1"),
    ({"iterations": 10, "exploration": -0.1}, "exploration"),
    ({"iterations": 10, "rollout_cutoff": 5}, "needs an evaluator"),
    ({"iterations": 10, "root_selection": "best"}, "root_selection"),
    ({"iterations": 10, "seed": "x"}, "seed must be"),
])
def test_request_is_checked_when_built(bad: dict, message: str) -> None:
    """Search configuration is validated at construction (STYLE 5), naming the field."""
    with pytest.raises(SearchConfigError, match=message):
        SearchRequest.of(**bad)


def test_wilson_interval() -> None:
    """The 95% Wilson interval: wide with no data, about +-0.098 at p=1/2 over 100 trials."""
    assert wilson_interval(0.5, 0) == (0.0, 1.0)
    low, high = wilson_interval(0.5, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = wilson_interval(1.0, 20)
    assert high == 1.0 and 0.8 < low < 0.9


def test_seeds_and_iteration_split() -> None:
    """Worker seeds are derived from the one seed; iterations split evenly."""
    assert derive_seed(1, 0) == derive_seed(1, 0) != derive_seed(1, 1) != derive_seed(2, 1)
    assert split_iterations(10, 3) == [4, 3, 3]
    assert split_iterations(None, 2) == [None, None]


@given(st.integers(-2**70, 2**70), st.integers(0, 9))
def test_worker_seeds_are_the_derived_seeds(seed: int, workers: int) -> None:
    """The workers' seeds in one call are ``derive_seed(seed, i)`` for each worker, in order."""
    assert worker_seeds(seed, workers) == [derive_seed(seed, i) for i in range(workers)]


def test_result_lists_every_legal_root_action() -> None:
    """Every legal action gets statistics; visits add up; the chosen one has most visits."""
    pos = midgame()
    result = search(pos, SearchRequest.of(iterations=400, seed=1, rollout=DEFAULT_ROLLOUT))
    assert [s.action for s in result.actions] == list(pos.legal_actions())
    assert sum(s.visits for s in result.actions) == result.iterations == 400
    assert result.chosen == max(result.actions, key=lambda s: s.visits).action
    for stats in result.actions:
        assert 0.0 <= stats.ci_low <= stats.win <= stats.ci_high <= 1.0
        assert stats.score >= 0


def test_search_leaves_the_root_alone() -> None:
    """The search copies; the caller's position is unchanged."""
    pos = midgame()
    before = (pos.information_set_key(pos.current_player()), pos.bags[:], pos.vp[:])
    search(pos, SearchRequest.of(iterations=200, seed=1))
    assert (pos.information_set_key(pos.current_player()), pos.bags, pos.vp) == before


def test_search_refuses_chance_root() -> None:
    """The root must be a player's decision."""
    pos = Position.new_game(2)
    pos.apply(parse_action("draw"))
    pos.apply(parse_action("draw"))
    with pytest.raises(SearchError, match="chance"):
        search(pos, SearchRequest.of(iterations=10))


@pytest.mark.parametrize("workers", [1, 2])
def test_same_seed_same_result(workers: int) -> None:
    """Determinism: same seed and worker count give identical statistics, across processes too."""
    pos = midgame()
    request = SearchRequest.of(iterations=600, seed=42, workers=workers, rollout=DEFAULT_ROLLOUT)
    first, second = search(pos, request), search(pos, request)
    assert first.actions == second.actions and first.chosen == second.chosen
    assert first.per_worker_iterations == second.per_worker_iterations == \
        tuple(split_iterations(600, workers))
    other = search(pos, SearchRequest.of(iterations=600, seed=43, workers=workers, rollout=DEFAULT_ROLLOUT))
    assert other.actions != first.actions


def test_two_workers_merge_their_trees() -> None:
    """Root statistics of the workers are summed: visits equal the iterations."""
    result = search(midgame(), SearchRequest.of(iterations=500, seed=1, workers=2))
    assert result.workers == 2 and sum(s.visits for s in result.actions) == 500


def test_hidden_choice_of_another_player_changes_nothing() -> None:
    """Information safety (C6): player 0's unrevealed return/draw choice is invisible to player 1:
    same key, and the same statistics for the same seed."""
    first, second = two_hidden_choices()
    assert first.information_set_key(1) == second.information_set_key(1)
    request = SearchRequest.of(iterations=500, seed=8, rollout=DEFAULT_ROLLOUT)
    assert search(first, request).actions == search(second, request).actions


def test_bots_do_not_read_hidden_choices() -> None:
    """Bots see only what their player may know: same choice whatever player 0 chose secretly."""
    first, second = two_hidden_choices()
    for bot in (cautious_bot(), greedy_bot(), random_bot(), make_agent("ismcts:iterations=50,reuse=0")):
        assert bot.choose(first, random.Random(1)) == bot.choose(second, random.Random(1))


def test_time_limit_stops_the_search() -> None:
    """A seconds limit alone runs some iterations and stops."""
    result = search(midgame(), SearchRequest.of(seconds=0.05, seed=1))
    assert result.iterations > 0 and sum(s.visits for s in result.actions) == result.iterations


def test_rollout_cutoff_uses_the_evaluator() -> None:
    """With a cut-off of 0 rollout decisions, every rollout is judged by the evaluator."""
    pos = midgame()
    result = search(pos, SearchRequest.of(iterations=200, seed=3, rollout_cutoff=0,
                                       evaluator=HeuristicEvaluator()))
    assert result.iterations == 200
    for stats in result.actions:
        assert 0.0 < stats.win < 1.0  # evaluator shares are never exactly 0 or 1
    shares, scores = HeuristicEvaluator().evaluate(pos)
    assert sum(shares) == pytest.approx(1.0) and len(scores) == 2


def play(bots: list, seed: int) -> Position:
    """A whole game with seeded chance and decisions."""
    rng = random.Random(seed)
    pos = Position.new_game(len(bots), "forest")
    while not pos.is_terminal():
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
        else:
            pos.apply(bots[pos.current_player()].choose(pos, rng))
    return pos


def test_heuristic_bots_beat_random() -> None:
    """Both heuristic styles win nearly every game against the random bot (seats swapped)."""
    for bot in (cautious_bot(), greedy_bot()):
        wins = sum(play([bot, random_bot()], s).returns()[0] + play([random_bot(), bot], s).returns()[1]
                   for s in range(5))
        assert wins >= 9


def test_search_bot_plays_a_whole_game() -> None:
    """A search bot with a tiny budget plays legal moves to the end against a heuristic bot."""
    end = play([make_agent("ismcts:iterations=8,rollout=random,evaluator=rollout"), cautious_bot()], 3)
    assert end.walk == 5 and sum(end.returns()) == pytest.approx(1.0)


def test_storm_hit_chance() -> None:
    """C5/C13: with one Storm to go and an all-Storm weather deck the Storm surely hits; at the
    start of a walk it cannot (6 needed, at most 2 + 2 from the bags + 1 from the deck)."""
    pos = Position.new_game(2)
    assert storm_hit_chance(pos, 0) == 0.0
    pos.track_storms, pos.deck_suns, pos.deck_storms = 5, 0, 3
    assert storm_hit_chance(pos, 0) == pytest.approx(1.0)


def test_heuristic_policy_checks_its_style() -> None:
    """A bad heuristic configuration is refused."""
    with pytest.raises(ValueError, match="buy_style"):
        HeuristicPolicy(buy_style="cheap")


def test_a_kept_tree_matches_the_root_statistics_with_one_or_two_workers() -> None:
    """keep_tree returns every node; the root's action visits are the result's, merged over workers."""
    from positions import Position
    from search.ismcts import search
    from search.request import SearchRequest

    pos = Position.new_game(2)
    for workers in (1, 2):
        result = search(pos, SearchRequest.of(iterations=120, seed=3, workers=workers, keep_tree=True))
        assert result.tree is not None
        root = result.tree.nodes[(0, pos.information_set_key(0))]
        assert {a: int(v) for a, (v, _) in root.items()} == {s.action: s.visits for s in result.actions}
        assert sum(result.tree.edges.values()) >= 1
    assert search(pos, SearchRequest.of(iterations=50, seed=3)).tree is None


@pytest.mark.parametrize("workers", [1, 2])
def test_every_players_chances_at_the_root_sum_to_one(workers: int) -> None:
    """C18: the win shares of all players sum to 1 per root action; the searcher's share and score
    are the action's own statistics."""
    pos = midgame()
    result = search(pos, SearchRequest.of(iterations=300, seed=3, workers=workers, rollout=DEFAULT_ROLLOUT))
    for stats in result.actions:
        if not stats.visits:
            continue
        assert len(stats.wins) == len(stats.scores) == pos.players
        assert sum(stats.wins) == pytest.approx(1.0)
        assert stats.wins[result.player] == pytest.approx(stats.win)
        assert stats.scores[result.player] == pytest.approx(stats.score)


def test_worker_spread_widens_only_when_the_trees_disagree() -> None:
    """Two trees agreeing add nothing; trees 0.2 apart imply a wide merged interval."""
    assert worker_spread([0.5, 0.5], [100, 100]) == 0.0
    assert worker_spread([0.5], [100]) == 0.0
    assert worker_spread([0.4, 0.6], [100, 100]) == pytest.approx(1.96 * 0.1, rel=1e-3)


def _result(*options: tuple[int, float, float]) -> SearchResult:
    """A uniform-root result from (visits, win, score) per action."""
    trees = [RootSums({a: RootStats(n, n * w, n * s) for a, (n, w, s) in enumerate(options)}, {})]
    return SearchResult.from_trees(0, list(range(len(options))), trees, 0.0, by_win=True)


def test_recommendation_is_the_best_win_unless_within_noise_then_the_best_score() -> None:
    """Clear of #2: the best win chance. Within noise: the higher expected score decides, and the
    result says the top two are within noise."""
    clear = _result((2000, 0.60, 10.0), (2000, 0.40, 30.0)).recommendation
    assert (clear.action, clear.runner_up, clear.within_noise) == (0, 1, False)
    close = _result((2000, 0.50, 10.0), (2000, 0.51, 30.0), (2000, 0.52, 20.0)).recommendation
    assert (close.action, close.within_noise) == (1, True)


def test_a_starved_option_is_not_recommended_under_uct() -> None:
    """UCT gave action 1 four visits: its lucky mean is no recommendation."""
    trees = [RootSums({0: RootStats(1000, 500.0, 20.0), 1: RootStats(4, 4.0, 100.0)}, {})]
    result = SearchResult.from_trees(0, [0, 1], trees, 0.0)
    assert result.recommendation.action == 0 and not result.is_contender(result.stats(1))
