"""Hot paths of the engine: position copy, drawing 2 tiles, a whole random game, the history hash and
the state encoding."""

from __future__ import annotations

import copy
import random
import timeit

from benchmarks.positions_for_bench import about_to_draw_2p, midgame_4p, random_game
from positions.kernel.phases import DEAL
from positions.kernel.position import FIELDS, Position
from positions.kernel.rules import fold


def _same_state(a, b) -> bool:
    return all(getattr(a, name) == getattr(b, name) for name in FIELDS)


def test_copy_4p_midgame(benchmark) -> None:
    """Goal: <= 2 us."""
    pos = midgame_4p()
    clone = benchmark(pos.copy)
    assert _same_state(clone, pos) and clone.bags is not pos.bags


def test_deepcopy_4p_midgame(benchmark) -> None:
    """The yardstick that copy() must beat by 100x."""
    pos = midgame_4p()
    clone = benchmark(copy.deepcopy, pos)
    assert _same_state(clone, pos)


def test_draw_two_tiles(benchmark) -> None:
    """Sample and apply a 2-tile draw (the copy made in setup is not timed). Goal: <= 1 us."""
    pos = about_to_draw_2p()
    assert pos.phase == DEAL
    rng = random.Random(3)

    def draw(state):
        state.apply(state.sample_chance(rng))
        return state

    state = benchmark.pedantic(draw, setup=lambda: ((pos.copy(),), {}), rounds=20000, iterations=1)
    assert len(state.bags[pos.actor]) == len(pos.bags[pos.actor]) - 2


def test_sample_two_tiles(benchmark) -> None:
    """Only the chance sample of a 2-tile draw (no state change)."""
    pos = about_to_draw_2p()
    rng = random.Random(3)
    outcome = benchmark(pos.sample_chance, rng)
    assert str(outcome).startswith("drawn ")


def test_random_game_2p(benchmark) -> None:
    """A whole 2-player game of uniformly random play. Goal: <= 1 ms."""
    final = benchmark(random_game, 11)
    assert final.is_terminal() and final.scores() == random_game(11).scores()


def test_copy_is_at_least_50x_faster_than_deepcopy() -> None:
    """The only timing check CI makes: a ratio measured in one run, independent of the machine."""
    pos = midgame_4p()
    fast = min(timeit.repeat(pos.copy, number=2000, repeat=5)) / 2000
    slow = min(timeit.repeat(lambda: copy.deepcopy(pos), number=50, repeat=5)) / 50
    assert slow / fast >= 50, f"copy {fast * 1e6:.2f} us vs deepcopy {slow * 1e6:.2f} us"


def test_heuristic_playout_2p(benchmark) -> None:
    """The rollout hot path: a whole 2-player game played out by the compiled heuristic policy."""
    from positions.kernel.heuristics import DEFAULT_ROLLOUT
    from positions.kernel.position import Position

    start = Position.new_game(2, "meadows")

    def playout() -> Position:
        state = start.copy()
        state.playout(random.Random(5), DEFAULT_ROLLOUT)
        return state

    final = benchmark(playout)
    assert final.is_terminal() and final.scores() == playout().scores()


def test_history_fold_of_a_decision(benchmark) -> None:
    """The history hash of one decision, (actor, action): three splitmix64 steps (docs/determinism.md)."""
    history = benchmark(fold, 11190284869970784947, (1, 34))
    assert 0 <= history < 2**64 and history == fold(11190284869970784947, [1, 34])


def test_encode_4p_midgame(benchmark) -> None:
    """Position.to_ints, the canonical encoding a native core exchanges."""
    pos = midgame_4p()
    ints = benchmark(pos.to_ints)
    assert Position.from_ints(ints).to_ints() == ints


def test_decode_4p_midgame(benchmark) -> None:
    """Position.from_ints, every value checked."""
    pos = midgame_4p()
    ints = pos.to_ints()
    back = benchmark(Position.from_ints, ints)
    assert _same_state(back, pos)
