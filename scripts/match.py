"""Paired matches between bots: every deal is played twice with the seats swapped.

Each deal has its own seed (derived from --seed); chance and both bots draw from generators
seeded by it, so the two games of a pair start from the same luck. Reports the first bot's win
rate (ties count 1/k, C18) with a 95% Wilson interval and both bots' mean final scores.

Bots: random, cautious, greedy, heuristic, ismctsN (ISMCTS with N iterations per decision and
heuristic rollouts) or ismctsN-random (uniform random rollouts).

Usage: .venv/bin/python scripts/match.py ismcts1000 greedy --deals 100 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.players.bots import BOTS, DEFAULT_ROLLOUT, SearchBot  # noqa: E402
from positions import ROUTES, Position, RefugeError  # noqa: E402
from search.parallel import derive_seed  # noqa: E402
from search.request import wilson_interval  # noqa: E402


def make_bot(name: str) -> Any:
    """A bot from its command-line name.

    Raises:
        ValueError: unknown name.
    """
    if name in BOTS:
        return BOTS[name]()
    if name == "heuristic":
        return DEFAULT_ROLLOUT
    if name.startswith("ismcts"):
        spec, _, rollout = name[len("ismcts"):].partition("-")
        if spec.isdigit() and rollout in ("", "random"):
            return SearchBot(int(spec), rollout=None if rollout else DEFAULT_ROLLOUT, name=name)
    raise ValueError(f"unknown bot {name!r}: use random, cautious, greedy, heuristic or ismctsN[-random]")


def play(bots: list[Any], seed: int, route: str) -> Position:
    """One game: chance from one generator, each seat's decisions from its own, all from `seed`."""
    chance = random.Random(derive_seed(seed, 0))
    seats = [random.Random(derive_seed(seed, 1 + i)) for i in range(len(bots))]
    pos = Position.new_game(len(bots), route)
    while not pos.is_terminal():
        if pos.is_chance():
            pos.apply(pos.sample_chance(chance))
        else:
            player = pos.current_player()
            pos.apply(bots[player].choose(pos, seats[player]))
    return pos


def match(first: Any, second: Any, deals: int, seed: int, route: str) -> dict[str, float]:
    """Play `deals` pairs; the first bot's win share, its interval and both mean scores."""
    wins = 0.0
    scores = [0.0, 0.0]
    games = 0
    for deal in range(deals):
        deal_seed = derive_seed(seed, 1000 + deal)
        for swap in (False, True):
            end = play([second, first] if swap else [first, second], deal_seed, route)
            me, other = (1, 0) if swap else (0, 1)
            wins += end.returns()[me]
            scores[0] += end.scores()[me]
            scores[1] += end.scores()[other]
            games += 1
    rate = wins / games
    low, high = wilson_interval(rate, games)
    return {"games": games, "win": rate, "low": low, "high": high,
            "score_first": scores[0] / games, "score_second": scores[1] / games}


def main() -> None:
    """Parse the command line, run the match, print one summary line."""
    parser = argparse.ArgumentParser(description="Paired Refuge matches (seats swapped per deal).")
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--route", default="meadows", choices=sorted(ROUTES))
    args = parser.parse_args()
    try:
        if args.deals < 1:
            raise ValueError(f"--deals must be >= 1, got {args.deals}")
        first, second = make_bot(args.first), make_bot(args.second)
        start = time.perf_counter()
        result = match(first, second, args.deals, args.seed, args.route)
    except (ValueError, RefugeError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    print(f"{args.first} vs {args.second} ({args.route}, {result['games']:.0f} games, seed {args.seed}): "
          f"win {result['win']:.3f} [95% CI {result['low']:.3f}-{result['high']:.3f}], "
          f"mean score {result['score_first']:.1f} vs {result['score_second']:.1f}, "
          f"{time.perf_counter() - start:.0f}s")


if __name__ == "__main__":
    main()
