"""The native random stream and history hash equal Python's (SPEC-portable sections 1 and 2)."""

from __future__ import annotations

import random

import pytest

from native_trace import refuge_native
from positions.kernel.position import Position
from positions.kernel.rules import fold

SEEDS = (0, 1, 2, 42, 2**31 - 1, 2**32, 2**32 + 1, 2**53 + 12345, 2**64 - 1, -7)


@pytest.mark.parametrize("seed", SEEDS)
def test_stream_matches_random_random(seed: int) -> None:
    """random.Random(seed).random(), 2,000 draws (past three twists), and the generator's state."""
    py, nat = random.Random(seed), refuge_native.Rng(seed)
    assert nat.getstate() == py.getstate()[1]
    assert [nat.random() for _ in range(2000)] == [py.random() for _ in range(2000)]
    assert nat.getstate() == py.getstate()[1]


def test_stream_vectors() -> None:
    """Fixed values, so a change on both sides is caught too (python3 -c "import random; ...")."""
    rng = refuge_native.Rng(0)
    assert [rng.random() for _ in range(3)] == [0.8444218515250481, 0.7579544029403025, 0.420571580830845]
    assert refuge_native.Rng(12345678901234567).random() == 0.09702702310935107


def test_setstate_resumes_the_stream() -> None:
    py = random.Random(9)
    for _ in range(700):
        py.random()
    nat = refuge_native.Rng(0)
    nat.setstate(list(py.getstate()[1]))
    assert [nat.random() for _ in range(50)] == [py.random() for _ in range(50)]


def test_seed_from_stream_is_int_random_times_2_53() -> None:
    py, nat = random.Random(5), refuge_native.Rng(5)
    assert [nat.seed_from_stream() for _ in range(20)] == [int(py.random() * 2**53) for _ in range(20)]


def test_a_seed_beyond_64_bits_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="not below 2\\*\\*64"):
        refuge_native.Rng(2**64)


def test_history_hash_vectors() -> None:
    """A new game's history is fold(0, (players, 8, *route, *ruleset ints)) on both sides."""
    for players in (2, 3, 4):
        for route in ("meadows", "forest", "mountains"):
            py = Position.new_game(players, route)
            start = (players, 8, *py.route.kinds, *py.ruleset.to_ints())
            assert refuge_native.State.new_game(players, route).history == fold(0, start) == py.history
    assert fold(0, ()) == 0xE220A8397B1DCDAF  # splitmix64's first output for seed 0 (len 0 folded)
