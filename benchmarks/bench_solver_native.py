"""The one-walker exact solver, native against Python in the same run (issue 53, item 2): a typical
last-walk position solved from a fresh memo by ``search.solver.ExactSolver`` and by the core
(``refuge_native.ExactSolver``, the position as its encoding; exact numbers back as ints). The crate's own number (no Python call) comes from
``cargo bench -p refuge-core --bench solver`` (criterion, the same positions)."""

from __future__ import annotations

import random

import pytest

from advisor.players.tablebase import single_walker
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.kernel.position import Position
from search.solver import ExactSolver

refuge_native = pytest.importorskip(
    "refuge_native", reason="the native module is not built (make native, or pip install ./native/py)")
if not hasattr(refuge_native, "ExactSolver"):
    pytest.skip("the native module has no ExactSolver (rebuild it)", allow_module_level=True)

NODES = {11: 4_383, 10: 64_047}
"""Seed -> positions solved (native/core/benches/solver.rs solves the same positions)."""


def last_walk(seed: int) -> Position:
    """The first decision of a 2-player meadows game (heuristic play, `seed`) with a single walker
    in the last walk."""
    pos, rng = Position.new_game(2, "meadows"), random.Random(seed)
    while single_walker(pos) is None:
        pos.apply(pos.sample_chance(rng) if pos.is_chance() else DEFAULT_ROLLOUT.choose(pos, rng))
    return pos


@pytest.mark.parametrize("seed", [11, 10])
@pytest.mark.benchmark(group="one-walker solve")
def test_solve_python(benchmark, seed: int) -> None:  # type: ignore[no-untyped-def]
    pos = last_walk(seed)
    result = benchmark.pedantic(lambda: ExactSolver(300_000).solve(pos), rounds=3, iterations=1)
    assert result.nodes == NODES[seed]


@pytest.mark.parametrize("seed", [11, 10])
@pytest.mark.benchmark(group="one-walker solve")
def test_solve_native(benchmark, seed: int) -> None:  # type: ignore[no-untyped-def]
    ints = last_walk(seed).to_ints()
    player, options, best, nodes = benchmark.pedantic(
        lambda: refuge_native.ExactSolver(300_000).solve(ints), rounds=10, iterations=1)
    assert nodes == NODES[seed]
