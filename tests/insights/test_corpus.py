"""A corpus game: every decision stored with what the search thought, and paired continuations."""

from __future__ import annotations

import json

from advisor.insights.corpus import agents_for, continuation, game_seed, is_buy, play_corpus_game
from advisor.insights.store import CorpusKey
from advisor.players.games import play_game
from positions.kernel import phases
from positions.kernel.actions import DRAW, PASS, RETURN
from positions.kernel.routes import parse_route

KEY = CorpusKey("ismcts:iterations=4", 2, "mountains", 5, 1, 2000)


def test_a_searched_game_stores_each_decision_with_the_options_values_and_visits() -> None:
    game = play_corpus_game((0,), KEY)
    assert game.index == 0 and game.seed == game_seed(KEY, 0)
    assert sum(game.returns) == 1.0 and len(game.scores) == 2  # C18: the shares sum to 1
    searched = [d for d in game.decisions if d.options is not None]
    assert searched and all(d.legal > 1 for d in searched)
    assert all(d.options is None for d in game.decisions if d.legal == 1)  # no search, nothing claimed
    for decision in searched:
        options = json.loads(decision.options)
        assert sum(visits for _, visits, _, _ in options) >= 4  # its budget (reuse keeps earlier visits)
        assert decision.action in {action for action, *_ in options}
    kinds = {c.kind: c for c in game.counterfactuals}
    assert set(kinds) == {"buy", "return"}
    assert is_buy(kinds["buy"].first) and kinds["buy"].second == PASS
    assert (kinds["return"].first, kinds["return"].second) == (RETURN, DRAW)
    by_event = {d.event: d for d in game.decisions}
    for sample in game.counterfactuals:
        decision = by_event[sample.event]
        assert decision.phase == (phases.BUY if sample.kind == "buy" else phases.DECIDE)
        assert sample.chosen == decision.action and sample.seat == decision.seat


def test_the_same_game_twice_is_the_same_game() -> None:
    first, second = play_corpus_game((1,), KEY), play_corpus_game((1,), KEY)
    assert first.decisions == second.decisions and first.counterfactuals == second.counterfactuals


def test_a_continuation_depends_only_on_its_events_and_seed() -> None:
    key = CorpusKey("heuristic", 2, "meadows", 1, 1, 0)
    game = play_corpus_game((2,), key)
    decision = next(d for d in game.decisions if d.phase == phases.DECIDE and d.legal == 2)
    events = _events(key, 2)
    prefix = events[:decision.event]
    once = continuation(key, prefix, RETURN, decision.seat, 99)
    assert once == continuation(key, prefix, RETURN, decision.seat, 99)
    assert 0.0 <= once[0] <= 1.0


def _events(key: CorpusKey, index: int) -> list[int]:
    return list(play_game(agents_for(key), parse_route(key.route), game_seed(key, index)).events)
