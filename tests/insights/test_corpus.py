"""A corpus game: every decision stored with what the search thought, and paired continuations."""

from __future__ import annotations

import json
import sqlite3

from advisor.insights.corpus import agents_for, continuation, game_seed, is_buy, play_corpus_game
from advisor.insights.store import SCHEMA_VERSION, CorpusKey, open_store, store_game
from positions.record import GameRecorder
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


def test_the_stored_moves_replay_the_game_to_its_stored_result(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A stored game's moves rebuild every position of it without searching (later analyses)."""
    key = CorpusKey("heuristic", 3, "forest", 2, 0, 0)
    game = play_corpus_game((4,), key)
    db = str(tmp_path / "corpus.sqlite")
    with open_store(db) as con:
        con.execute("INSERT INTO corpora VALUES (1, ?, ?, ?, ?, ?, ?)", tuple(key.__dict__.values()))
        assert store_game(con, 1, game)
        moves, scores = con.execute("SELECT moves, scores FROM games").fetchone()
    replay = GameRecorder.new(key.players, parse_route(key.route))
    for action in json.loads(moves):
        replay.apply(action)
    assert replay.position.is_terminal()
    assert list(replay.position.scores()) == json.loads(scores) == list(game.scores)
    assert len(json.loads(moves)) == game.events


def test_a_version_1_file_is_brought_up_to_date_when_opened(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "old.sqlite")
    with open_store(db) as con:
        con.execute("ALTER TABLE games DROP COLUMN moves")
        con.execute("UPDATE meta SET value = '1' WHERE key = 'insights_schema'")
        con.execute("INSERT INTO games VALUES (1, 0, 5, '[1, 2]', '[0.0, 1.0]', 9, 40, 0.5)")
        con.commit()
    with open_store(db, create=False) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'insights_schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert con.execute("SELECT idx, moves FROM games").fetchall() == [(0, None)]
    with sqlite3.connect(db) as con:
        assert "moves" in [c[1] for c in con.execute("PRAGMA table_info(games)")]
