"""The native heuristic rollout policy equals positions/kernel/heuristics.py: the same choice on a
corpus of positions for several parameter sets, and whole playouts (heuristic and random) from the
same seed end in the same state with the stream at the same place."""

from __future__ import annotations

import random

import pytest

from native_trace import ROUTES, refuge_native
from positions.examples import example_names, load_example
from positions.kernel.heuristics import DEFAULT_ROLLOUT, THRIFTY_ROLLOUT, HeuristicPolicy
from positions.kernel.position import Position

POLICIES = {
    "default": DEFAULT_ROLLOUT,
    "thrifty": THRIFTY_ROLLOUT,
    "per-step": HeuristicPolicy(),
    "cautious": HeuristicPolicy(aggression=0.7, draw_gain=1.2, tie_draw=1.3, behind=0.1,
                                save_ratio=0.5, save_margin=1.0),
}


def native_policy(policy: HeuristicPolicy) -> "refuge_native.Heuristic":
    """The native Heuristic with `policy`'s parameters."""
    return refuge_native.Heuristic(policy.aggression, policy.buy_style, policy.draw_gain, policy.tie_draw,
                                   policy.behind, policy.save_ratio, policy.save_margin)


def corpus(games: int) -> list[Position]:
    """Every decision with a choice in `games` games, 2-4 players, every route, half of them with
    random decisions and half with the heuristic's (which walk longer and reach other endgames)."""
    found = []
    for seed in range(games):
        pos = Position.new_game(2 + seed % 3, ROUTES[seed // 3 % 3])
        rng = random.Random(seed)
        while not pos.is_terminal():
            if pos.is_chance():
                pos.apply(pos.sample_chance(rng))
                continue
            found.append(pos.copy())
            legal = pos.legal_actions()
            pos.apply(DEFAULT_ROLLOUT.choose(pos, rng) if seed % 2 else legal[int(rng.random() * len(legal))])
    return found


CORPUS = corpus(60)


@pytest.mark.parametrize("name", POLICIES)
def test_choices_agree_on_a_corpus(name: str) -> None:
    policy = POLICIES[name]
    native = native_policy(policy)
    alone = 0
    for i, pos in enumerate(CORPUS):
        nat = refuge_native.State.from_ints(pos.to_ints())
        py_rng, nat_rng = random.Random(i), refuge_native.Rng(i)
        assert native.choose(nat, nat_rng) == policy.choose(pos, py_rng), f"position {i}: {pos!r}"
        assert nat_rng.getstate() == py_rng.getstate()[1]
        alone += HeuristicPolicy._alone_at_the_end(pos, pos.actor)
    assert len(CORPUS) > 5000 and alone > 100  # the endgame branches were asked too


def test_default_rollout_is_the_native_default() -> None:
    nat = refuge_native.Heuristic.default_rollout()
    pos = CORPUS[123]
    assert (nat.choose(refuge_native.State.from_ints(pos.to_ints()), refuge_native.Rng(1))
            == DEFAULT_ROLLOUT.choose(pos, random.Random(1)))


def _starts() -> list[tuple[str, Position]]:
    starts = [(f"new {p}p {route}", Position.new_game(p, route)) for p in (2, 3, 4) for route in ROUTES]
    starts += [(name, load_example(name).position) for name in example_names()]
    return starts


@pytest.mark.parametrize("policy", ["heuristic", "thrifty", "random"])
def test_whole_playouts_agree(policy: str) -> None:
    """Python's playout (the rollout fast path) and the native one: same end, same stream place."""
    py_policy = {"heuristic": DEFAULT_ROLLOUT, "thrifty": THRIFTY_ROLLOUT, "random": None}[policy]
    nat_policy = None if py_policy is None else native_policy(py_policy)
    for name, start in _starts():
        for seed in range(12):
            py, nat = start.copy(), refuge_native.State.from_ints(start.to_ints())
            py_rng, nat_rng = random.Random(seed), refuge_native.Rng(seed)
            py.playout(py_rng, py_policy)
            nat.playout(nat_rng, nat_policy)
            assert nat.to_ints() == py.to_ints(), f"{name} seed {seed}"
            assert nat.is_terminal()
            assert nat_rng.getstate() == py_rng.getstate()[1], f"{name} seed {seed}: stream"
