"""The native core against the Python engine in the same run (issue 53): a heuristic playout of a
2-player game through refuge_native and through positions.kernel, and the native copy and
draw+apply seen from Python. `make bench` prints them side by side; the ratio is their means'.
The crate's own numbers (no Python call in the loop) come from `make native-bench` (criterion)."""

from __future__ import annotations

import random

import pytest

from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.kernel.position import Position

refuge_native = pytest.importorskip(
    "refuge_native", reason="the native module is not built (make native, or pip install ./native/py)")

START = Position.new_game(2, "meadows")


def _python_playout(rng: random.Random) -> Position:
    pos = START.copy()
    pos.playout(rng, DEFAULT_ROLLOUT)
    return pos


def _native_playout(start: "refuge_native.State", rng: "refuge_native.Rng",
                    policy: "refuge_native.Heuristic") -> "refuge_native.State":
    pos = start.copy()
    pos.playout(rng, policy)
    return pos


@pytest.mark.benchmark(group="heuristic playout 2p")
def test_heuristic_playout_2p_python(benchmark) -> None:
    final = benchmark(_python_playout, random.Random(1))
    assert final.is_terminal()


@pytest.mark.benchmark(group="heuristic playout 2p")
def test_heuristic_playout_2p_native(benchmark) -> None:
    """Goal (issue 53): <= 25 us in the crate; this adds one Python call and a copy."""
    start = refuge_native.State.from_ints(START.to_ints())
    final = benchmark(_native_playout, start, refuge_native.Rng(1), refuge_native.Heuristic.default_rollout())
    assert final.is_terminal()


def test_native_and_python_playouts_end_alike() -> None:
    """What the two benchmarks time is the same game (seed for seed)."""
    start = refuge_native.State.from_ints(START.to_ints())
    for seed in range(5):
        final = _native_playout(start, refuge_native.Rng(seed), refuge_native.Heuristic.default_rollout())
        assert final.to_ints() == _python_playout(random.Random(seed)).to_ints()


@pytest.mark.benchmark(group="copy")
def test_copy_native(benchmark) -> None:
    start = refuge_native.State.from_ints(START.to_ints())
    assert benchmark(start.copy) == start


@pytest.mark.benchmark(group="draw+apply")
def test_draw_apply_native(benchmark) -> None:
    pos = START.copy()
    rng = random.Random(2)
    while not pos.is_chance():
        pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))
    start = refuge_native.State.from_ints(pos.to_ints())
    stream = refuge_native.Rng(3)

    def draw(state):
        state.apply(state.sample_chance(stream))
        return state

    state = benchmark.pedantic(draw, setup=lambda: ((start.copy(),), {}), rounds=20000, iterations=1)
    assert state != start
