"""The differential harness: a Python Position and a native State side by side, compared after every
event (canonical encoding, current player, legal set, chance outcomes with weights, every seat's
information-set key, the error class of an illegal action; at some events a determinization and the
step's start) — issue 53, "Proof of identity"."""

from __future__ import annotations

import random
from typing import Callable

import pytest

from positions.errors import RefugeError
from positions.kernel.actions import ACTION_SPACE, DRAW, RETURN, Action
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.kernel.position import Position
from positions.kernel.rules import choice_revealed

refuge_native = pytest.importorskip(
    "refuge_native", reason="the native module is not built (make native, or pip install ./native/py)")

ROUTES = ("meadows", "forest", "mountains")
POLICIES = ("random", "heuristic", "walker")
"""How decisions are chosen: uniformly, by the heuristic rollout policy, or a walker who never goes
home while a draw is legal (long walks, Storm hits, empty bags) and is uniform otherwise."""


def same_state(py: Position, nat: "refuge_native.State", where: str) -> None:
    """Every observable of the two positions is equal (one assertion message naming `where`)."""
    assert nat.to_ints() == py.to_ints(), f"{where}: encodings differ"
    assert nat.current_player() == py.current_player(), f"{where}: current player"
    assert nat.legal_actions() == [int(a) for a in py.legal_actions()], f"{where}: legal set"
    if py.is_chance():
        assert nat.chance_outcomes() == [(int(a), p) for a, p in py.chance_outcomes()], f"{where}: outcomes"
        assert nat.chance_weights() == [(int(a), w) for a, w in py.chance_weights()], f"{where}: weights"
    for seat in range(py.players):
        key = py.information_set_key(seat)
        assert nat.information_set_key(seat) == tuple(int(x) for x in key), f"{where}: seat {seat}'s key"
        assert nat.choice_revealed(seat) == choice_revealed(py, seat), f"{where}: seat {seat} revealed"
    assert nat.returns() == py.returns(), f"{where}: returns"
    assert nat.is_simultaneous() == py.is_simultaneous(), f"{where}: simultaneous"


def error_class(apply: Callable[[int], None], action: int) -> type | None:
    """The class of the error applying `action` raises, or None."""
    try:
        apply(action)
    except RefugeError as error:
        return type(error)
    return None


def try_illegal(py: Position, nat: "refuge_native.State", action: int, where: str) -> None:
    """Applying `action` raises the same error class on both sides, or succeeds on both (on copies:
    the positions themselves are left as they were)."""
    py_copy, nat_copy = py.copy(), nat.copy()
    expected = error_class(py_copy.apply, action)
    assert error_class(nat_copy.apply, action) == expected, f"{where}: action {action}"
    same_state(py_copy, nat_copy, f"{where} after action {action}")


def illegal_probe(py: Position, rng: random.Random) -> int:
    """An action code that is usually not legal here: any code, or one just past a legal one."""
    legal = list(py.legal_actions()) or [0]
    if rng.random() < 0.5:
        return int(rng.random() * (ACTION_SPACE + 20)) - 10
    return int(legal[int(rng.random() * len(legal))]) + 1


def walker_options(legal: list[Action]) -> list[Action]:
    """The walker's options: every legal action but going home while drawing is legal."""
    return [a for a in legal if a != RETURN] if DRAW in legal else legal


def play_game(players: int, route: str, policy: str, seed: int) -> int:
    """Play one seeded game on both sides, comparing after every event; also probe an illegal
    action and a determinization at some events. Returns the number of events."""
    py, nat = Position.new_game(players, route), refuge_native.State.new_game(players, route)
    py_rng, nat_rng = random.Random(seed), refuge_native.Rng(seed)
    probe = random.Random(seed + 1_000_003)  # the probes' own stream: the game's stays untouched
    events = 0
    while True:
        where = f"{players}p {route} {policy} seed {seed} event {events}"
        same_state(py, nat, where)
        if py.is_terminal():
            break
        if probe.random() < 0.1:
            try_illegal(py, nat, illegal_probe(py, probe), where)
        if py.is_simultaneous() and probe.random() < 0.2:
            seat = int(probe.random() * players)
            det_seed = int(probe.random() * 2**53)
            expected = py.determinize(seat, random.Random(det_seed)).to_ints()
            assert nat.determinize(seat, refuge_native.Rng(det_seed)).to_ints() == expected, where
            start = py.step_start(seat)
            native_start = nat.step_start(seat)
            assert (native_start and native_start.to_ints()) == (start and start.to_ints()), where
        if py.is_chance():
            action = py.sample_chance(py_rng)
            assert nat.sample_chance(nat_rng) == action, f"{where}: sampled outcome"
        elif policy == "heuristic":
            action = DEFAULT_ROLLOUT.choose(py, py_rng)
            assert nat.heuristic_choice(nat_rng) == action, f"{where}: heuristic choice"
        else:
            legal = walker_options(py.legal_actions()) if policy == "walker" else py.legal_actions()
            action = legal[int(py_rng.random() * len(legal))]
            assert int(nat_rng.random() * len(legal)) == legal.index(action)
        py.apply(action)
        nat.apply(int(action))
        events += 1
    assert nat_rng.getstate() == py_rng.getstate()[1], f"{players}p {route} {policy} seed {seed}: stream"
    return events
