"""Search speed: ISMCTS iterations per second on a fixed 2-player mid-walk position.

Rollouts go to the end of the game. Run with ``make bench``; under ``make test`` (benchmarks
disabled) each function still runs once and checks its deterministic result.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from advisor.players.bots import DEFAULT_ROLLOUT
from positions import Position
from positions.kernel import phases
from search.ismcts import search
from search.request import SearchRequest

ITERATIONS = {"random": 2_000, "heuristic": 400}


def reference_position() -> Position:
    """Walk 1, turn 4, player 0 to decide return or draw; reached by seeded heuristic play."""
    rng = random.Random(7)
    pos = Position.new_game(2, "meadows")
    while True:
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
        elif pos.phase == phases.DECIDE and pos.turn >= 3 and pos.actor == 0:
            return pos
        else:
            pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))


@pytest.mark.parametrize("rollout", ["random", "heuristic"])
@pytest.mark.parametrize("workers", [1, 2])
def test_iterations_per_second(benchmark, rollout: str, workers: int) -> None:  # type: ignore[no-untyped-def]
    """ISMCTS iterations per second (ops x ITERATIONS[rollout]) with 1 and 2 worker processes."""
    pos = reference_position()
    assert (pos.walk, pos.turn, pos.phase) == (0, 3, phases.DECIDE)
    request = SearchRequest.of(iterations=ITERATIONS[rollout], seed=1, workers=workers,
                            rollout=DEFAULT_ROLLOUT if rollout == "heuristic" else None)
    if workers > 1:
        search(pos, SearchRequest.of(iterations=2, workers=workers))  # start the pool outside the timing
    result = benchmark(search, pos, request)
    assert sum(s.visits for s in result.actions) == ITERATIONS[rollout]
    assert search(pos, request).actions == result.actions  # deterministic for a fixed seed


def hidden_choice_position() -> Position:
    """Player 1 to return or draw after player 0's hidden choice (turn 4 or later of a walk);
    reached by seeded heuristic play."""
    rng = random.Random(7)
    pos = Position.new_game(2, "meadows")
    while True:
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
        elif pos.phase == phases.DECIDE and pos.turn >= 3 and pos.actor == 1 and pos.pending[0] >= 0:
            return pos
        else:
            pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))


OPTIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "plain": lambda: {},
    "prior": lambda: {"prior": DEFAULT_ROLLOUT},
    "widening": lambda: {"widening": 0.1, "exploration_below": 0.3},
    "step_root=off": lambda: {"step_root": False},
    "simultaneous=rm": lambda: {"simultaneous": "rm"},
    "simultaneous=exp3": lambda: {"simultaneous": "exp3"},
}
"""The search's options: the prior, the advisor's widening, ``step_root=off`` (the agent's: from the
decision), and regret matching or Exp3 at simultaneous nodes (``best-move --simultaneous``)."""


@pytest.mark.parametrize("option", list(OPTIONS))
def test_option_cost(benchmark, option: str) -> None:  # type: ignore[no-untyped-def]
    """Iterations per second (ops x 400) of each search option, heuristic rollouts, one worker, at
    player 1's return-or-draw decision after player 0's hidden one (where a belief has work)."""
    pos = hidden_choice_position()

    def request() -> SearchRequest:
        return SearchRequest.of(iterations=ITERATIONS["heuristic"], seed=1, rollout=DEFAULT_ROLLOUT,
                             **OPTIONS[option]())

    result = benchmark(lambda: search(pos, request()))
    assert sum(s.visits for s in result.actions) == ITERATIONS["heuristic"]
    assert search(pos, request()).actions == result.actions
