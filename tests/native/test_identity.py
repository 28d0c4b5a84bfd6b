"""The native rules equal the Python kernel after every event (issue 53, "Proof of identity"):
seeded games (2-4 players x every route x random, heuristic and walker decisions), the shipped examples,
hidden bags dealt afresh, and hypothesis-drawn action sequences with illegal actions.

``REFUGE_NATIVE_GAMES`` sets the number of seeded games (2,016 by default; ``make native-identity``
runs 50,000)."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings, strategies as st

from native_trace import POLICIES, ROUTES, play_game, refuge_native, same_state, try_illegal
from positions.examples import example_names, load_example
from positions.kernel.actions import ACTION_SPACE
from positions.kernel.position import Position
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.kernel.routes import make_route
from positions.kernel.rulesets import DEFAULT_RULESET
from positions.kernel.tiles import KIND_BY_NAME

GAMES = int(os.environ.get("REFUGE_NATIVE_GAMES", "2016"))
COMBOS = [(players, route, policy) for players in (2, 3, 4) for route in ROUTES for policy in POLICIES]
PER_COMBO = -(-GAMES // len(COMBOS))


@pytest.mark.parametrize("players,route,policy", COMBOS)
def test_seeded_games_agree_after_every_event(players: int, route: str, policy: str) -> None:
    events = sum(play_game(players, route, policy, seed) for seed in range(PER_COMBO))
    assert events > PER_COMBO * 20  # the games were played, not skipped


@pytest.mark.parametrize("name", example_names())
def test_shipped_examples_agree_through_random_games(name: str) -> None:
    start = load_example(name).position
    for seed in range(20):
        py = start.copy()
        nat = refuge_native.State.from_ints(py.to_ints())
        py_rng, nat_rng = random.Random(seed), refuge_native.Rng(seed)
        event = 0
        while not py.is_terminal():
            same_state(py, nat, f"{name} seed {seed} event {event}")
            if py.is_chance():
                action = py.sample_chance(py_rng)
                assert nat.sample_chance(nat_rng) == action
            else:
                legal = py.legal_actions()
                action = legal[int(py_rng.random() * len(legal))]
                nat_rng.random()
            py.apply(action)
            nat.apply(int(action))
            event += 1
        same_state(py, nat, f"{name} seed {seed} end")


CUSTOM_RULESET = DEFAULT_RULESET._replace(
    name="custom", penalised_kinds=tuple(KIND_BY_NAME[n] for n in ("bear", "deer", "cave", "sign", "camera")),
    walks=3, start_steps=3, deck_suns=3, deck_storms=5, reserve_storms=4, stack_size=3,
    storm_thresholds=((2, 5), (3, 6), (4, 8)))
CUSTOM_ROUTE = make_route([KIND_BY_NAME[n] for n in ("camera", "cairn", "hiker", "map", "fox", "bird",
                                                      "cave", "bear")])


@pytest.mark.parametrize("players", (2, 3, 4))
def test_a_custom_ruleset_and_route_agree(players: int) -> None:
    """Penalised kinds (C16), other deck, reserve, stack and thresholds: the heuristic reads them too."""
    for seed in range(40):
        py = Position.new_game(players, CUSTOM_ROUTE, CUSTOM_RULESET)
        nat = refuge_native.State.from_ints(py.to_ints())
        py_rng, nat_rng = random.Random(seed), refuge_native.Rng(seed)
        event = 0
        while True:
            same_state(py, nat, f"custom {players}p seed {seed} event {event}")
            if py.is_terminal():
                break
            if py.is_chance():
                action = py.sample_chance(py_rng)
                assert nat.sample_chance(nat_rng) == action
            else:
                action = DEFAULT_ROLLOUT.choose(py, py_rng)
                assert nat.heuristic_choice(nat_rng) == action, f"custom {players}p seed {seed} event {event}"
            py.apply(action)
            nat.apply(int(action))
            event += 1


def _hide(pos: Position, seats: tuple[int, ...]) -> Position:
    hidden = pos.copy()
    hidden.hidden_bags = seats
    return hidden


def test_hidden_bags_are_dealt_alike() -> None:
    """Position.determinize deals hidden bags by Fisher-Yates on random() (SPEC-portable section 4)."""
    dealt = 0
    for seed in range(60):
        pos = Position.new_game(2 + seed % 3, ROUTES[seed % 3])
        rng = random.Random(seed)
        for _ in range(40 + seed):
            if pos.is_terminal():
                break
            pos.apply(pos.sample_chance(rng) if pos.is_chance()
                      else pos.legal_actions()[int(rng.random() * len(pos.legal_actions()))])
        seats = tuple(p for p in range(pos.players) if p != pos.actor or seed % 2)
        hidden = _hide(pos, seats)
        nat = refuge_native.State.from_ints(hidden.to_ints())
        for player in range(pos.players):
            expected = hidden.determinize(player, random.Random(seed * 7 + player))
            got = nat.determinize(player, refuge_native.Rng(seed * 7 + player))
            assert got.to_ints() == expected.to_ints(), f"seed {seed} player {player}"
            dealt += expected.bags != hidden.bags
    assert dealt > 20  # the deals moved tiles


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 4), route=st.sampled_from(ROUTES),
       moves=st.lists(st.tuples(st.booleans(), st.integers(-5, ACTION_SPACE + 5), st.integers(0, 10**6)),
                      max_size=250))
def test_drawn_action_sequences_agree_legal_or_not(players: int, route: str,
                                                    moves: list[tuple[bool, int, int]]) -> None:
    """Each move is a legal action (chosen by index) or any code at all; after each, both sides
    agree, and an illegal one raises the same error class and changes nothing."""
    py, nat = Position.new_game(players, route), refuge_native.State.new_game(players, route)
    for step, (legal_one, code, index) in enumerate(moves):
        if py.is_terminal():
            break
        where = f"move {step}"
        if legal_one:
            legal = py.legal_actions()
            action = int(legal[index % len(legal)])
            py.apply(action)
            nat.apply(action)
        else:
            try_illegal(py, nat, code, where)
        same_state(py, nat, where)
