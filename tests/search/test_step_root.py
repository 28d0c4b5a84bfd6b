"""A simultaneous decision searched from its step's start (issue 22, C6): the position there, the
search rooted there, and the later seat's search blind to the earlier seats' hidden choices."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from advisor.players.bots import DEFAULT_ROLLOUT
from positions import Position, parse_action
from positions.kernel import rules
from positions.kernel.phases import DECIDE, SIMULTANEOUS
from search.ismcts import search, tree_root
from search.request import SearchRequest
from test_search import midgame, two_hidden_choices

STEP_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None)


def later_seat_decision(seed: int, players: int) -> Position | None:
    """A simultaneous decision of a seat after another seat's hidden choice in the same step
    (seeded heuristic play, 2-4 players), or ``None`` if the game ended first."""
    rng = random.Random(seed)
    pos = Position.new_game(players, "meadows")
    while not pos.is_terminal():
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
            continue
        hidden = [s for s, c in enumerate(pos.pending) if s != pos.actor and c >= 0
                  and len(rules.step_legal(pos, s)) > 1] if pos.phase in SIMULTANEOUS else []
        if hidden and rng.random() < 0.2:
            return pos
        pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))
    return None


def test_the_step_start_undoes_the_hidden_choice_and_keeps_every_key() -> None:
    """C6: at player 1's return-or-draw decision the step's start has player 0 to decide and no
    choice made; both seats' information sets there are the ones they have at their decisions."""
    first, second = two_hidden_choices()
    start = first.step_start(1)
    assert start is not None and start.phase == DECIDE and start.current_player() == 0
    assert all(choice < 0 for choice in start.pending)
    assert start.information_set_key(0) == midgame(decisions=0).information_set_key(0)
    assert start.information_set_key(1) == first.information_set_key(1)
    again = second.step_start(1)
    assert again is not None and again.information_set_key(0) == start.information_set_key(0)
    assert list(again.legal_actions()) == list(start.legal_actions())
    assert first.pending[0] >= 0  # the original is untouched


def test_no_step_start_where_nothing_is_hidden() -> None:
    """The first seat to decide, and a decision outside a simultaneous step, search from themselves."""
    pos = midgame(decisions=0)
    assert pos.current_player() == 0 and pos.step_start(0) is None
    request = SearchRequest.of(iterations=10)
    assert tree_root(pos, request.config) is pos
    first, _ = two_hidden_choices()
    assert tree_root(first, request.config) is not first
    assert tree_root(first, SearchRequest.of(iterations=10, step_root=False).config) is first


@STEP_SETTINGS
@given(st.integers(0, 10_000), st.sampled_from([2, 3, 4]))
def test_the_key_and_the_step_start_never_reveal_a_hidden_choice(seed: int, players: int) -> None:
    """Whatever the other seats chose unseen in this step (any of their options), the decider's
    information-set key and its step start (keys of every seat, who acts, the options) are the same."""
    pos = later_seat_decision(seed, players)
    if pos is None:
        return
    me = pos.current_player()
    start = pos.step_start(me)
    assert start is not None
    keys = [start.information_set_key(p) for p in range(players)]
    rng = random.Random(seed)
    for _ in range(4):
        other = pos.copy()
        for seat, choice in enumerate(other.pending):
            if seat != me and choice >= 0:
                options = rules.step_legal(other, seat)
                other.pending[seat] = options[int(rng.random() * len(options))]
        assert other.information_set_key(me) == pos.information_set_key(me)
        moved = other.step_start(me)
        assert moved is not None
        assert [moved.information_set_key(p) for p in range(players)] == keys
        assert (moved.current_player(), list(moved.legal_actions()), moved.pending) == (
            start.current_player(), list(start.legal_actions()), start.pending)


@pytest.mark.parametrize("rule", ["uct", "rm"])
def test_the_later_seat_search_is_rooted_at_the_step_start(rule: str) -> None:
    """Every iteration passes player 0's node of the step before player 1's (the tree holds it with
    every visit), player 1's answer is read at its own node, and the statistics are the same
    whatever player 0 chose secretly."""
    first, second = two_hidden_choices()
    request = SearchRequest.of(iterations=300, seed=8, rollout=DEFAULT_ROLLOUT, keep_tree=True,
                            simultaneous=rule)
    result = search(first, request)
    assert result.player == 1 and result.iterations == 300
    assert result.tree is not None
    start = first.step_start(1)
    assert start is not None
    earlier = result.tree.nodes[(0, start.information_set_key(0))]
    assert sum(visits for visits, _ in earlier.values()) == 300
    answer = result.tree.nodes[(1, first.information_set_key(1))]
    assert {a: v for a, (v, _) in answer.items()} == {s.action: s.visits for s in result.actions}
    assert search(second, request).actions == result.actions
    old = search(first, SearchRequest.of(iterations=300, seed=8, rollout=DEFAULT_ROLLOUT, keep_tree=True,
                                      step_root=False))
    assert old.tree is not None and (0, start.information_set_key(0)) not in old.tree.nodes


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("rule", ["uct", "rm", "exp3"])
def test_step_root_search_is_deterministic_by_seed(workers: int, rule: str) -> None:
    """Same seed, same statistics, with one worker or two (STYLE 7)."""
    first, _ = two_hidden_choices()
    request = SearchRequest.of(iterations=200, seed=5, workers=workers, rollout=DEFAULT_ROLLOUT,
                            simultaneous=rule)
    result = search(first, request)
    assert result.actions == search(first, request).actions
    assert result.iterations == 200
    if rule != "uct":
        assert sum(s.share or 0.0 for s in result.actions) == pytest.approx(1.0)


def test_replaying_the_step_from_its_start_gives_the_same_game() -> None:
    """C6: from the step's start the same choices end the step in the same position, a seat with
    only one option (an empty bag: return) filled in by the rules as in the game itself."""
    pos = Position.new_game(3, "meadows")
    rng = random.Random(2)
    while not (pos.phase == DECIDE and pos.turn >= 1 and pos.actor == 0):
        pos.apply(pos.sample_chance(rng) if pos.is_chance() else DEFAULT_ROLLOUT.choose(pos, rng))
    pos.bags[2] = ()  # seat 2 has nothing left to draw (an edited position)
    pos.apply(parse_action("draw"))
    assert pos.current_player() == 1
    start = pos.step_start(1)
    assert start is not None and start.current_player() == 0 and start.pending[0] < 0
    start.apply(parse_action("draw"))
    for game in (pos, start):
        game.apply(parse_action("return"))
    assert pos.pending == start.pending and pos.pending[2] == parse_action("return")
    assert (pos.history, pos.phase, pos.actor) == (start.history, start.phase, start.actor)
