"""The rollout fast path: ``Position.playout`` ends exactly where step-by-step ``apply`` ends.

It skips the history hash and the checks on its own chance draws, nothing else: for the same rng
it must reach the same final position (every field but the history) and leave the rng in the same
state, from any position, with random decisions and with a policy.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.players.bots import DEFAULT_ROLLOUT, cautious_bot
from positions import IllegalActionError, Position
from positions.kernel.position import FIELDS
from search.ismcts import rollout
from test_properties import PROPERTY_SETTINGS, games, snapshot

SKIPPED = {"history"}


def without_history(pos: Position) -> tuple[object, ...]:
    """A snapshot of every field but the history hash (which the fast path does not keep)."""
    return tuple(v for name, v in zip(FIELDS, snapshot(pos)) if name not in SKIPPED)


def step_by_step(pos: Position, rng: random.Random, policy: object | None) -> None:
    """The reference: apply each decision and chance outcome one at a time, with every check."""
    while not pos.is_terminal():
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
        elif policy is None:
            legal = pos.legal_actions()
            pos.apply(legal[int(rng.random() * len(legal))])
        else:
            pos.apply(policy.choose(pos, rng))  # type: ignore[attr-defined]


def position_after(seed: int, players: int, route: object, moves: int) -> Position:
    """A position reached by `moves` random events of a new game (or the end, if sooner)."""
    rng = random.Random(seed)
    pos = Position.new_game(players, route)  # type: ignore[arg-type]
    for _ in range(moves):
        if pos.is_terminal():
            break
        legal = pos.legal_actions()
        pos.apply(pos.sample_chance(rng) if pos.is_chance() else legal[int(rng.random() * len(legal))])
    return pos


@PROPERTY_SETTINGS
@given(games, st.integers(0, 400), st.sampled_from([None, "heuristic", "cautious"]))
def test_playout_reaches_the_same_end_as_applying_step_by_step(game, moves, policy_name) -> None:  # type: ignore[no-untyped-def]
    seed, players, route, _ = game
    policy = {None: None, "heuristic": DEFAULT_ROLLOUT, "cautious": cautious_bot()}[policy_name]
    start = position_after(seed, players, route, moves)
    fast, slow = start.copy(), start.copy()
    fast_rng, slow_rng = random.Random(seed + 1), random.Random(seed + 1)
    fast.playout(fast_rng, policy)
    step_by_step(slow, slow_rng, policy)
    assert fast.is_terminal()
    assert without_history(fast) == without_history(slow)
    assert fast_rng.getstate() == slow_rng.getstate()  # the same draws, in the same order


def test_search_rollouts_use_the_fast_path_with_unchanged_results() -> None:
    """``search.ismcts.rollout`` through ``playout`` returns what its generic loop returns (taken
    here by asking for a cut-off that never comes)."""
    start = position_after(3, 2, "meadows", 40)

    class Never:
        def evaluate(self, state: Position) -> tuple[list[float], list[float]]:
            raise AssertionError("the cut-off is never reached")

    for seed in range(20):
        fast = rollout(start.copy(), random.Random(seed), DEFAULT_ROLLOUT)
        generic = rollout(start.copy(), random.Random(seed), DEFAULT_ROLLOUT, 10**9, Never())
        assert fast == generic


def test_playout_refuses_an_illegal_choice_from_its_policy() -> None:
    """A policy that answers with an action outside the legal ones is stopped, not followed."""

    class Stubborn:
        def choose(self, state: Position, rng: random.Random) -> int:
            return 10_000

    pos = Position.new_game(2, "meadows")
    with pytest.raises(IllegalActionError, match="not legal"):
        pos.playout(random.Random(1), Stubborn())


def test_the_uniform_random_policy_and_no_policy_search_alike() -> None:
    """``rollout=UniformRandom()`` takes the built-in random rollout: identical statistics."""
    from search.ismcts import search
    from search.policies import UniformRandom
    from search.request import SearchRequest

    start = position_after(8, 3, "forest", 30)
    while start.is_chance():
        start.apply(start.sample_chance(random.Random(0)))
    with_policy = search(start, SearchRequest.of(iterations=200, seed=4, rollout=UniformRandom()))
    without = search(start, SearchRequest.of(iterations=200, seed=4))
    assert with_policy.actions == without.actions
