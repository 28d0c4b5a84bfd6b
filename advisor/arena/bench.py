"""`refuge bench`: a fixed search on fixed positions with fixed seeds, like Stockfish's bench.

It prints a signature (a hash of every chosen action and root visit count) and the speed. The
signature depends only on the rules, the bots and the search, never on the machine, so a change to
any of them that alters play changes it; tests/data/bench_signature.json holds the expected value.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass


from advisor.players.agents import SearchAgent
from advisor.players.bots import HeuristicPolicy
from positions.kernel import phases
from positions.kernel.actions import action_from_code
from positions.kernel.position import Position
from search.ismcts import search
from search.request import Limit

DEFAULT_ITERATIONS = 400
BENCH_SEED = 20240611


def _after(players: int, route: str, seed: int, walk: int, phase: str) -> Position:
    """The first `phase` decision in or after `walk` (0-based) of a seeded heuristic game."""
    rng = random.Random(seed)
    bot = HeuristicPolicy()
    position = Position.new_game(players, route)
    while True:
        if position.is_terminal():
            raise AssertionError(f"bench position: game {seed} ended before walk {walk + 1}")
        if position.is_chance():
            position.apply(position.sample_chance(rng))
        elif position.walk >= walk and phases.NAMES[position.phase] == phase:
            return position
        else:
            position.apply(bot.choose(position, rng))


BENCH_POSITIONS: tuple[tuple[str, int, str, int, int, str], ...] = (
    ("decide-2p-meadows", 2, "meadows", 0, 0, "decide"),
    ("choose-3p-forest", 3, "forest", 1, 0, "choose"),
    ("buy-2p", 2, "meadows", 2, 1, "buy"),
    ("decide-2p-mountains", 2, "mountains", 3, 2, "decide"),
    ("option-3p", 3, "meadows", 4, 2, "option"),
    ("buy-4p-forest", 4, "forest", 5, 3, "buy"),
)
"""(label, players, route, seed, walk, phase): the first such decision of a seeded heuristic game."""


def bench_positions() -> list[tuple[str, Position]]:
    """The benchmark's positions, rebuilt the same way every time."""
    return [(label, _after(players, route, seed, walk, phase))
            for label, players, route, seed, walk, phase in BENCH_POSITIONS]


@dataclass(frozen=True)
class BenchLine:
    """One position's search: what it chose and how its root visits fell."""

    label: str
    chosen: str
    visits: tuple[tuple[str, int], ...]
    iterations: int
    seconds: float
    backend: str = "python"
    """Which engine searched it (``SearchResult.backend``)."""


@dataclass(frozen=True)
class BenchResult:
    """The whole bench: per-position lines, the signature and the speed."""

    lines: tuple[BenchLine, ...]
    signature: str
    iterations: int
    seconds: float

    @property
    def backend(self) -> str:
        """Which engine searched the positions: ``python``, ``native``, or both named when they differed."""
        return "+".join(sorted({line.backend for line in self.lines})) or "python"

    @property
    def speed(self) -> float:
        """Iterations per second over the whole bench."""
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def run_bench(iterations: int = DEFAULT_ITERATIONS, workers: int = 1) -> BenchResult:
    """Search every bench position as the default agent (``ismcts``) would, afresh, with
    `iterations` iterations (split across `workers` root-parallel trees) and fixed seeds."""
    lines = []
    for number, (label, position) in enumerate(bench_positions()):
        limit = Limit(iterations=iterations, workers=workers)
        request = SearchAgent("bench", limit, reuse=False).request(BENCH_SEED + number)
        result = search(position, request)
        visits = tuple((str(action_from_code(s.action)), s.visits) for s in result.actions)
        lines.append(BenchLine(label, str(action_from_code(result.chosen)), visits, result.iterations,
                               result.seconds, result.backend))
    digest = hashlib.sha256(json.dumps(
        [[line.label, line.chosen, [list(v) for v in line.visits]] for line in lines]).encode())
    return BenchResult(tuple(lines), digest.hexdigest()[:16], sum(line.iterations for line in lines),
                       sum(line.seconds for line in lines))
