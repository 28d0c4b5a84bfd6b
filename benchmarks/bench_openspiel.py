"""Our ISMCTS against OpenSpiel's Python ISMCTSBot on Refuge: same positions, uniform random rollouts.

Both searches run in this process on the same seeded decisions with the same budget and the same
exploration constant; both roll out uniformly at random to the end of the game. OpenSpiel's bot
uses its own ``RandomRolloutEvaluator`` (the stock configuration); ``rollout="engine"`` gives it
our engine's playout instead, which isolates the cost of its tree code.
``lab/scripts/openspiel_match.py speed`` prints the iterations-per-second table from these helpers.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.positions_for_bench import play_random
from positions import Position
from search.ismcts import search
from search.policies import UniformRandom
from search.request import SearchRequest, SearchResult

EXPLORATION = 0.7
"""The UCT constant of both searches (returns are win shares in [0, 1])."""
ITERATIONS = 100
"""Iterations per benchmarked search."""


def _decision_after(players: int, route: str, seed: int, walk: int) -> Position:
    """Seeded random play until a real decision (two or more options) in the given walk."""
    pos = play_random(Position.new_game(players, route), random.Random(seed),
                      stop=lambda p: p.walk >= walk and not p.is_chance() and len(p.legal) > 1)
    assert not pos.is_terminal() and len(pos.legal_actions()) > 1
    return pos


def speed_positions() -> dict[str, Position]:
    """The decisions both searches are timed on: an opening, a midgame and a last walk."""
    return {
        "2p opening (meadows)": Position.new_game(2, "meadows"),
        "3p walk 3 (forest)": _decision_after(3, "forest", 5, 2),
        "4p walk 5 (mountains)": _decision_after(4, "mountains", 9, 4),
    }


def run_ours(position: Position, iterations: int, seed: int) -> SearchResult:
    """Our ISMCTS with uniform random rollouts to the end."""
    return search(position, SearchRequest.of(iterations=iterations, seed=seed, exploration=EXPLORATION,
                                          rollout=UniformRandom()))


def run_openspiel(position: Position, iterations: int, seed: int, rollout: str = "openspiel") -> int:
    """OpenSpiel's Python ISMCTSBot on the same decision; its chosen action."""
    from advisor.openspiel.agent import make_bot
    from advisor.openspiel.game import load_game

    game = load_game(position.players, position.route.name)
    bot = make_bot(game, iterations, None, EXPLORATION, seed, rollout)
    return int(bot.step(game.state_from_position(position)))


POSITIONS = speed_positions()


@pytest.mark.parametrize("label", list(POSITIONS))
def test_ours(benchmark, label: str) -> None:
    """Our ISMCTS, ITERATIONS iterations: deterministic for a seed."""
    pos = POSITIONS[label]
    result = benchmark.pedantic(run_ours, args=(pos, ITERATIONS, 1), rounds=3, iterations=1)
    assert result.iterations == ITERATIONS
    assert result.chosen == run_ours(pos, ITERATIONS, 1).chosen


@pytest.mark.parametrize("rollout", ["openspiel", "engine"])
@pytest.mark.parametrize("label", list(POSITIONS))
def test_openspiel(benchmark, label: str, rollout: str) -> None:
    """OpenSpiel's ISMCTSBot, ITERATIONS simulations: deterministic for a seed (our resampler)."""
    pytest.importorskip("pyspiel")
    pos = POSITIONS[label]
    action = benchmark.pedantic(run_openspiel, args=(pos, ITERATIONS, 1, rollout), rounds=3,
                                iterations=1)
    assert action in pos.legal_actions()
    assert action == run_openspiel(pos, ITERATIONS, 1, rollout)
